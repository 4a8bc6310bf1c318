/* embed.html: one widget in an iframe, options as URL parameters, talking only to `origin`
 * (README, "Embedding": events out as {source: "stream-lab", v: 1, type, payload}, "call" in,
 * "result" out). With options=message (embed.js in a page of another origin) it posts
 * "open", waits for "init" {options, lesson?, stored}, posts "state" {state, script}, and
 * "store" {key, value} for the page to keep the save (value null: removed). */
(() => {
  'use strict';
  const params = new URLSearchParams(location.search);
  const problems = [];
  // A URL means its origin: postMessage compares origins exactly (a slash drops every call).
  let origin = null;
  const given = params.get('origin');
  if (given !== null) {
    try { origin = new URL(given).origin; } catch { origin = 'null'; }
    if (origin === 'null') {
      problems.push(`origin must be the embedding page's origin, such as https://course.example, not "${given}"`);
      origin = null;
    }
  }
  // Its place among its page's frames (cross-origin windows compare).
  let index = 0;
  while (index < window.parent.frames.length && window.parent.frames[index] !== window) index++;
  // Where the browser names the page around (Chromium, Safari), saves need it to be `origin`.
  const around = location.ancestorOrigins && location.ancestorOrigins[0];
  const unsaved = !origin
    ? 'persist=local needs origin=, the embedding page\'s origin: a frame keeps its session for that page only'
    : `persist=local: this frame was given origin=${origin}, but it is in a page of ${around}`;
  const frame = { origin: around && around !== origin ? null : origin, index, problems, unsaved };
  const raw = {};
  for (const [key, value] of params) {
    if (['origin', 'options', 'jsinput', 'lti'].includes(key)) continue;
    if (key === 'setup') raw.setup = (raw.setup || []).concat(value.split('\n'));
    else raw[key] = value;
  }
  // Statements are sent from the course page by embed.js; the frame has no part in them.
  if ('xapi-base' in raw) problems.push('xapi-base needs embed.js in the course page: a bare iframe sends no xAPI statements');
  // A page lazy-loads the frame itself.
  if (raw.loading === undefined) raw.loading = 'eager';
  // Course platforms' own protocols, spoken to `origin` only: Open edX's JSInput (jsinput.js)
  // and Canvas's lti.frameResize.
  const lti = params.has('lti');
  for (const [key, what] of [['jsinput', 'the LMS'], ['lti', 'the Canvas page']]) {
    if (params.has(key) && !origin) problems.push(`${key}=1 needs origin=, ${what}'s origin, such as https://courses.example.org`);
  }
  const element = document.getElementById('widget');
  const EVENTS = [...window.StreamLab.events, 'resize'];
  const METHODS = window.StreamLab.methods;
  const post = (type, payload) => {
    if (origin && window.parent !== window) window.parent.postMessage({ source: 'stream-lab', v: 1, type, payload }, origin);
  };
  let handle = null;
  let last;
  let size;
  // Before each event and answer (so getState() in a listener is current), and after a redraw
  // (its own Undo raises none): size, token and script, if changed. Measured here: browsers
  // pause ResizeObserver in cross-origin frames out of view.
  const push = () => {
    later = false;
    const box = element.getBoundingClientRect();
    const now = { width: Math.round(box.width), height: Math.round(box.height) };
    if (JSON.stringify(now) !== size) {
      post('resize', now);
      if (lti && origin) window.parent.postMessage(JSON.stringify({ subject: 'lti.frameResize', height: now.height }), origin);
    }
    size = JSON.stringify(now);
    try {
      const state = handle.getState();
      if (state !== last) post('state', { state: last = state, script: handle.exportScript() });
    } catch { /* a trapped instance: the next call reports it */ }
  };
  for (const type of EVENTS) element.addEventListener(type, (event) => { push(); if (type !== 'resize') post(type, event.detail); });
  // Redraws come in many mutation batches: one push a task (a port's message, which browsers
  // do not throttle in frames out of view as they do timers and animation frames).
  let later = false;
  const tick = new MessageChannel();
  tick.port1.onmessage = push;
  const soon = () => { if (!later) { later = true; tick.port2.postMessage(0); } };
  const start = (options, lesson, storage) => {
    handle = window.StreamLab.create(element, options, { ...frame, lesson, storage });
    new MutationObserver(soon).observe(element.shadowRoot, { childList: true, subtree: true, characterData: true });
  };
  const waiting = params.get('options') === 'message';
  window.addEventListener('message', async (event) => {
    if (!origin || event.origin !== origin || event.source !== window.parent) return;
    const m = event.data;
    if (!m || typeof m !== 'object' || m.source !== 'stream-lab' || m.v !== 1) return;
    const p = m.payload;
    if (m.type === 'init' && waiting && !handle && p && typeof p.options === 'object') {
      // The page's copies of this widget's saves; each change goes back to it to keep.
      const kept = new Map(Object.entries(p.stored && typeof p.stored === 'object' ? p.stored : {}));
      const storage = {
        getItem: (key) => (kept.has(key) ? kept.get(key) : null),
        setItem: (key, value) => { kept.set(key, String(value)); post('store', { key, value: String(value) }); },
        removeItem: (key) => { kept.delete(key); post('store', { key, value: null }); },
      };
      start(p.options, p.lesson && typeof p.lesson.text === 'string' ? p.lesson : undefined, storage);
      return;
    }
    if (m.type !== 'call' || !handle || !p || typeof p !== 'object' || !METHODS.includes(p.method) || !Array.isArray(p.args || [])) return;
    let answer;
    try {
      answer = { value: (await handle[p.method](...(p.args || []))) ?? null };
    } catch (error) {
      answer = { error: (error && error.message) || String(error) };
    }
    push();
    post('result', { id: p.id, method: p.method, ...answer });
  });
  if (waiting) post('open');
  else start(raw);
  if (params.has('jsinput') && origin) {
    window.StreamLabFrame = { origin, handle: () => handle };
    const tag = document.createElement('script');
    tag.src = 'jsinput.js';
    document.head.append(tag);
  }
})();
