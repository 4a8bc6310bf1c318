/* embed.html?mode=...&setup=...&origin=https://course.example: one widget filling an iframe,
 * with the same options as URL parameters (`setup` may repeat, one line each). Its events go
 * to the parent as postMessage({source: "stream-lab", v: 1, type, payload}) to the `origin`
 * parameter only (none without it). The parent may call methods with
 * {source: "stream-lab", v: 1, type: "call", payload: {id, method, args}}; the answer comes
 * back as type "result". Messages from another origin or window, or of another shape, are
 * ignored. `origin` given as a URL means its origin; persist=local keeps the session under it
 * (see storageKey in embed.js). */
(() => {
  'use strict';
  const params = new URLSearchParams(location.search);
  const problems = [];
  // An origin given as a URL (`https://course.example/`, or the page's own address) means
  // that URL's origin: postMessage and event.origin compare origins exactly, so a trailing
  // slash left as it was let events through and silently dropped every call.
  let origin = null;
  const given = params.get('origin');
  if (given !== null) {
    try { origin = new URL(given).origin; } catch { origin = 'null'; }
    if (origin === 'null') {
      problems.push(`origin must be the embedding page's origin, such as https://course.example, not "${given}"`);
      origin = null;
    }
  }
  // Where this frame is among its page's frames (cross-origin windows can be compared).
  let index = 0;
  while (index < window.parent.frames.length && window.parent.frames[index] !== window) index++;
  // Where the browser names the page around the frame (Chromium, Safari), it must be `origin`
  // for the frame to keep a save under that origin's name.
  const around = location.ancestorOrigins && location.ancestorOrigins[0];
  const unsaved = !origin
    ? 'persist=local needs origin=, the embedding page\'s origin: a frame keeps its session for that page only'
    : `persist=local: this frame was given origin=${origin}, but it is in a page of ${around}`;
  const frame = { origin: around && around !== origin ? null : origin, index, problems, unsaved };
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
  const handle = window.StreamLab.create(element, raw, frame);
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
