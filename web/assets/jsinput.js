/* Open edX JSInput (README, "Embedding": "Open edX"): loaded by embed-frame.js into
 * embed.html?jsinput=1, it answers the problem's getGrade, getState and setState over the
 * JSChannel wire protocol (JSON strings, "JSInput::" methods), to the frame's `origin` only.
 * getGrade's answer carries the attempt's receipt, so staff can re-grade it. No eval. */
(() => {
  'use strict';
  const frame = window.StreamLabFrame;
  const origin = frame.origin;
  const SCOPE = 'JSInput::';
  const send = (message) => window.parent.postMessage(JSON.stringify(message), origin);
  let ready = false;
  let progress = {};
  document.getElementById('widget').addEventListener('progress', (event) => { progress = event.detail; });

  /** What edX keeps of the attempt: the receipt, and for getGrade what it scored. */
  async function grade() {
    const handle = await frame.handle().ready;
    const receipt = await handle.getReceipt();
    return JSON.stringify({ lesson: progress.lesson ?? null, score: progress.score ?? 0, max: progress.max ?? null,
      done: progress.done ?? 0, total: progress.total ?? null, receipt });
  }
  const METHODS = {
    getGrade: grade,
    getState: async () => JSON.stringify({ receipt: await (await frame.handle().ready).getReceipt() }),
    setState: async (state) => {
      // edX hands back what getState gave, as a string (or parsed, by some versions).
      const saved = typeof state === 'string' ? JSON.parse(state) : state;
      if (!saved || typeof saved.receipt !== 'string') throw new Error('this state holds no StreamLab receipt');
      await (await frame.handle().ready).resume(saved.receipt);
      return null;
    },
  };

  window.addEventListener('message', async (event) => {
    if (event.origin !== origin || event.source !== window.parent || typeof event.data !== 'string') return;
    let m;
    try { m = JSON.parse(event.data); } catch { return; }
    if (!m || typeof m.method !== 'string' || !m.method.startsWith(SCOPE)) return;
    const method = m.method.slice(SCOPE.length);
    if (method === '__ready') {
      // Both ends announce themselves; the first announcement either way makes the channel.
      // An old JSChannel pings, a newer one sends a publish-request.
      if (!ready) send({ method: m.method, params: m.params === 'ping' ? 'pong' : { type: 'publish-reply', publish: [] } });
      ready = true;
      return;
    }
    if (m.id === undefined) return;
    if (!Object.hasOwn(METHODS, method)) {
      send({ id: m.id, error: 'method_not_found', message: `StreamLab answers getGrade, getState and setState, not ${method}` });
      return;
    }
    try {
      send({ id: m.id, result: await METHODS[method](m.params) });
    } catch (error) {
      send({ id: m.id, error: 'runtime_error', message: (error && error.message) || String(error) });
    }
  });
  send({ method: `${SCOPE}__ready`, params: { type: 'publish-request', publish: [] } });
})();
