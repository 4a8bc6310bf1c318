/* StreamLab's xAPI 1.0.3 statements (README, "Embedding": "Statements for a learning record
 * store"). embed.js loads this plain script, from its own base URL, only for a widget with
 * `xapi-base`, and hands it each of the widget's events with the time it was raised. It runs
 * in the course page, so statements go to the LRS from the course's origin and wait in the
 * course's storage. No eval. */
(() => {
  'use strict';
  if (window.StreamLabXAPI) return;
  const ADL = 'http://adlnet.gov/expapi/';
  const verb = (name) => ({ id: `${ADL}verbs/${name}`, display: { 'en-US': name } });
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
  // An Agent is identified by exactly one of these (xAPI 1.0.3, 2.4.2.1).
  const IFIS = ['mbox', 'mbox_sha1sum', 'openid', 'account'];
  // Kept per endpoint: beyond this the oldest go, so a long-dead LRS cannot fill the storage.
  const QUEUE_MAX = 500;
  const BATCH = 50;

  const absolute = (text) => {
    try { const url = new URL(text); return /^https?:$/.test(url.protocol) ? url : null; } catch { return null; }
  };
  const slash = (url) => (url.href.endsWith('/') ? url.href : `${url.href}/`);

  /** The widget's xAPI options, checked; { settings, problems }. */
  function read(o) {
    const problems = [];
    const base = absolute(o['xapi-base']);
    if (!base) problems.push(`xapi-base must be an http(s) URL, the base of the activity IRIs, not "${o['xapi-base']}"`);
    const settings = { base: base && slash(base), mastery: 0.8 };
    if (o['lrs-endpoint'] !== undefined) {
      const endpoint = absolute(o['lrs-endpoint']);
      if (endpoint) settings.endpoint = slash(endpoint);
      else problems.push(`lrs-endpoint must be the LRS's http(s) URL, not "${o['lrs-endpoint']}"`);
    }
    if (o['lrs-auth'] !== undefined) {
      if (o['lrs-endpoint'] === undefined) problems.push('lrs-auth needs lrs-endpoint');
      settings.auth = o['lrs-auth'];
    }
    if (o.actor !== undefined) {
      let actor = null;
      try { actor = JSON.parse(o.actor); } catch { /* named below */ }
      const ifis = actor && typeof actor === 'object' ? IFIS.filter((k) => k in actor) : [];
      if (ifis.length === 1) settings.actor = { objectType: 'Agent', ...actor };
      else problems.push(`actor must be the JSON of an xAPI Agent with one of ${IFIS.join(', ')}, not ${o.actor}`);
    }
    if (o.registration !== undefined) {
      if (UUID.test(o.registration)) settings.registration = o.registration.toLowerCase();
      else problems.push(`registration must be a UUID, not "${o.registration}"`);
    }
    if (o.mastery !== undefined) {
      const m = Number(o.mastery);
      if (String(o.mastery).trim() !== '' && m >= 0 && m <= 1) settings.mastery = m;
      else problems.push(`mastery must be a number from 0 to 1, not "${o.mastery}"`);
    }
    return { settings, problems };
  }

  /** This device's anonymous learner, one per activity base, kept across visits. */
  function anonymous(base) {
    const key = `streamlab.xapi.learner ${base}`;
    let name = null;
    try { name = localStorage.getItem(key); } catch { /* storage off: one per page load */ }
    if (!name) {
      name = crypto.randomUUID();
      try { localStorage.setItem(key, name); } catch { /* as above */ }
    }
    return { objectType: 'Agent', account: { homePage: base, name } };
  }

  /** ISO 8601 duration of `ms`, to the hundredth of a second xAPI keeps. */
  function duration(ms) {
    const cs = Math.max(0, Math.round(ms / 10));
    const h = Math.floor(cs / 360000);
    const m = Math.floor((cs % 360000) / 6000);
    const s = (cs % 6000) / 100;
    return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s}S`;
  }

  /** The interaction an answer is, from the one field the event fills. A typed number is a
   * numeric question's (a typed prediction is a server's reply, which is not a bare number). */
  function interaction(a) {
    const ids = (prefix, list) => list.map((n) => `${prefix}-${n}`).join('[,]');
    if (a.order) return ['sequencing', ids('step', a.order)];
    if (a.options) return ['choice', ids('option', a.options)];
    if (a.option !== null && a.option !== undefined) return ['choice', `option-${a.option}`];
    const typed = String(a.typed ?? '');
    return [/^-?\d+(\.\d+)?$/.test(typed.trim()) ? 'numeric' : 'fill-in', typed];
  }

  const senders = new Map();

  /** Statements for one endpoint: queued in the page's storage before each POST and taken
   * out only once the LRS took them, so a reload, a crash or a dead network loses none. */
  class Sender {
    constructor(endpoint) {
      this.endpoint = endpoint;
      this.key = `streamlab.xapi.queue ${endpoint}`;
      // Once the storage refuses (off, full), the queue lives in this page only.
      this.memory = null;
      this.failures = 0;
      this.widgets = new Set();
      addEventListener('online', () => this.flush());
    }

    load() {
      if (this.memory) return this.memory.slice();
      try { return JSON.parse(localStorage.getItem(this.key) || '[]'); } catch { this.memory = []; return []; }
    }

    store(queue) {
      if (!this.memory) try { localStorage.setItem(this.key, JSON.stringify(queue)); return; } catch { /* below */ }
      this.memory = queue;
    }

    add(statement) {
      const queue = this.load();
      queue.push(statement);
      const dropped = queue.splice(0, Math.max(0, queue.length - QUEUE_MAX)).length;
      this.store(queue);
      if (dropped) this.tell(`${dropped} xAPI statement(s) for ${this.endpoint} were dropped: ${QUEUE_MAX} were already waiting for the LRS`);
      this.flush();
    }

    tell(message) {
      console.warn(`StreamLab: ${message}`);
      for (const w of this.widgets) w.dispatch('error', { message });
    }

    /** POSTs what is queued, a batch at a time; one POST at a time per page and endpoint. */
    async flush() {
      if (this.busy) { this.again = true; return; }
      this.busy = true;
      clearTimeout(this.timer);
      try {
        for (let batch = this.load().slice(0, BATCH); batch.length; batch = this.load().slice(0, BATCH)) {
          const status = await this.post(batch);
          if (status === 'retry') {
            // Backoff up to a minute; `online`, the next statement and the next load try sooner.
            this.timer = setTimeout(() => this.flush(), Math.min(60000, 1000 * 2 ** this.failures++));
            return;
          }
          this.failures = 0;
          const sent = new Set(batch.map((s) => s.id));
          this.store(this.load().filter((s) => !sent.has(s.id)));
          if (status !== 'ok') this.tell(`the LRS at ${this.endpoint} rejected ${batch.length} xAPI statement(s), which were dropped: ${status}`);
        }
      } finally {
        this.busy = false;
        if (this.again) { this.again = false; this.flush(); }
      }
    }

    /** 'ok', 'retry' (network, 5xx, 429: the LRS may take them later) or why it refused. */
    async post(batch) {
      const headers = { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3' };
      if (this.auth) headers.Authorization = this.auth;
      const body = JSON.stringify(batch);
      let response;
      try {
        // keepalive lets the last statements of a page being closed still go out.
        response = await fetch(`${this.endpoint}statements`, { method: 'POST', headers, body, keepalive: body.length < 60000 });
      } catch {
        return 'retry';
      }
      if (response.ok) return 'ok';
      if (response.status >= 500 || response.status === 429) return 'retry';
      const text = await response.text().catch(() => '');
      return `HTTP ${response.status}${text ? ` ${text.slice(0, 200)}` : ''}`;
    }
  }

  /** One widget's statements, from its events, in the order they were raised. */
  class Tracker {
    constructor(widget, settings) {
      this.widget = widget;
      this.s = settings;
      this.actor = settings.actor || anonymous(settings.base);
      this.answered = new Map();
      this.chain = Promise.resolve();
      if (settings.endpoint) {
        if (!senders.has(settings.endpoint)) senders.set(settings.endpoint, new Sender(settings.endpoint));
        this.sender = senders.get(settings.endpoint);
        if (settings.auth !== undefined) this.sender.auth = settings.auth;
        this.sender.widgets.add(widget);
        // What an earlier visit left queued goes out now.
        this.sender.flush();
      }
    }

    event(type, detail, time) {
      // Serial: a lesson's statements wait for its receipt, and later ones for them.
      this.chain = this.chain.then(() => this.handle(type, detail, time)).catch((error) => {
        this.widget.dispatch('error', { message: `StreamLab could not make an xAPI statement: ${(error && error.message) || error}` });
      });
    }

    async handle(type, d, time) {
      if (type === 'ready') { this.ready = { ...d, time }; return; }
      if (!this.ready || !this.ready.lesson) return;
      const lesson = this.lessonActivity();
      const took = duration(time - this.ready.time);
      if (type === 'quiz-answer') {
        const [interactionType, response] = interaction(d);
        this.answered.set(d.lessonTask, interactionType);
        this.send('answered', this.taskActivity(d.lessonTask), { success: d.correct, response, duration: took }, time, lesson);
      } else if (type === 'task-complete') {
        this.send('completed', this.taskActivity(d.lessonTask), { score: score(d), completion: true, duration: took }, time, lesson);
      } else if (type === 'lesson-complete') {
        const result = { score: score(d), completion: true, duration: took };
        const receipt = await this.receipt();
        if (receipt) result.extensions = { [`${this.s.base}extensions/receipt`]: receipt };
        this.send('completed', lesson, result, time);
        const success = result.score.scaled >= this.s.mastery;
        this.send(success ? 'passed' : 'failed', lesson, { ...result, success }, time);
      }
    }

    /** The attempt's receipt, where the widget has getReceipt and it answers. */
    async receipt() {
      const handle = this.widget.handle;
      if (typeof handle.getReceipt !== 'function') return null;
      try {
        const token = await handle.getReceipt();
        return typeof token === 'string' && token ? token : null;
      } catch {
        return null;
      }
    }

    lessonActivity() {
      const id = this.ready.lesson;
      return { objectType: 'Activity', id: `${this.s.base}lessons/${encodeURIComponent(id)}`, definition: { type: `${ADL}activities/lesson`, name: { 'en-US': id } } };
    }

    /** A question is a cmi.interaction; a task done in the console, a performance. */
    taskActivity(lessonTask) {
      const kind = this.answered.get(lessonTask);
      const definition = kind
        ? { type: `${ADL}activities/cmi.interaction`, interactionType: kind }
        : { type: `${ADL}activities/performance` };
      definition.name = { 'en-US': `${this.ready.lesson}, task ${lessonTask + 1}` };
      return { objectType: 'Activity', id: `${this.lessonActivity().id}/tasks/${lessonTask}`, definition };
    }

    send(name, object, result, time, parent) {
      const context = { platform: 'StreamLab', extensions: {} };
      if (this.s.registration) context.registration = this.s.registration;
      if (parent) context.contextActivities = { parent: [{ objectType: 'Activity', id: parent.id }] };
      for (const key of ['variant', 'profile', 'attempt']) {
        if (this.ready[key] !== null && this.ready[key] !== undefined) context.extensions[`${this.s.base}extensions/${key}`] = this.ready[key];
      }
      const statement = {
        id: crypto.randomUUID(), actor: this.actor, verb: verb(name), object, result, context,
        timestamp: new Date(time).toISOString(),
      };
      this.widget.dispatch('xapi', statement);
      if (this.sender) this.sender.add(statement);
    }
  }

  function score(d) {
    return { raw: d.score, min: 0, max: d.max, scaled: d.max ? Math.round((d.score / d.max) * 10000) / 10000 : 0 };
  }

  /** For embed.js: a widget's tracker ({ event(type, detail, time) }), or null when its options
   * are wrong (the widget then fails with them, as for any bad option). */
  function attach(widget) {
    const { settings, problems } = read(widget.options);
    if (problems.length) { widget.fail(`Bad options:\n${problems.join('\n')}`); return null; }
    return new Tracker(widget, settings);
  }

  // read and duration also serve cmi5.js, which makes its own statements.
  window.StreamLabXAPI = Object.freeze({ attach, read, duration, interaction });
})();
