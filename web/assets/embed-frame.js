/* embed.html?mode=...&setup=...&origin=https://course.example: one widget filling an iframe,
 * with the same options as URL parameters (`setup` may repeat, one line each). Its events go
 * to the parent as postMessage({source: "stream-lab", v: 1, type, payload}) to the `origin`
 * parameter only (none without it). The parent may call methods with
 * {source: "stream-lab", v: 1, type: "call", payload: {id, method, args}}; the answer comes
 * back as type "result". Messages from another origin or window, or of another shape, are
 * ignored. */
(() => {
  'use strict';
  const params = new URLSearchParams(location.search);
  const origin = params.get('origin');
  const raw = {};
  for (const [key, value] of params) {
    if (key === 'origin') continue;
    if (key === 'setup') raw.setup = (raw.setup || []).concat(value.split('\n'));
    else raw[key] = value;
  }
  // The frame itself is what a page lazy-loads (loading="lazy" on the iframe).
  if (raw.loading === undefined) raw.loading = 'eager';
  const element = document.getElementById('widget');
  const EVENTS = ['ready', 'command', 'check', 'task-complete', 'quiz-answer', 'progress', 'lesson-complete', 'resize', 'error'];
  // embed.js (loaded before this script, see embed.html) keeps the one list.
  const METHODS = window.StreamLab.methods;
  const post = (type, payload) => {
    if (origin && window.parent !== window) window.parent.postMessage({ source: 'stream-lab', v: 1, type, payload }, origin);
  };
  for (const type of EVENTS) element.addEventListener(type, (event) => post(type, event.detail));
  const handle = window.StreamLab.create(element, raw);
  window.addEventListener('message', async (event) => {
    if (!origin || event.origin !== origin || event.source !== window.parent) return;
    const m = event.data;
    if (!m || typeof m !== 'object' || m.source !== 'stream-lab' || m.v !== 1 || m.type !== 'call') return;
    const p = m.payload;
    if (!p || typeof p !== 'object' || !METHODS.includes(p.method) || !Array.isArray(p.args || [])) return;
    try {
      const value = await handle[p.method](...(p.args || []));
      post('result', { id: p.id, method: p.method, value: value === undefined ? null : value });
    } catch (error) {
      post('result', { id: p.id, method: p.method, error: (error && error.message) || String(error) });
    }
  });
})();
