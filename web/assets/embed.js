/* StreamLab's embedding kit: <stream-lab> and StreamLab.create (README, "Embedding"). No eval.
 * Errors show in their widget and as `error` events, never as a blank box. */
(() => {
  'use strict';
  if (window.StreamLab) return;
  const script = document.currentScript;
  const base = new URL('.', (script && script.src) || location.href);
  // Another origin's page needs CORS headers, which static hosts lack, to import the engine:
  // there each widget is an iframe of embed.html (framing needs none). Chosen by origin, not
  // by a failed import: the same on every host, with no failing request.
  const remote = base.origin !== location.origin;
  const CHOICES = {
    mode: ['sandbox', 'readonly', 'lesson', 'quiz', 'player'],
    theme: ['auto', 'light', 'dark'],
    loading: ['lazy', 'eager', 'click'],
    solution: ['confirm', 'allow', 'never'],
    persist: ['none', 'local'],
    layout: ['both', 'console', 'pictures'],
  };
  const FLAGS = ['hints', 'autoresize'];
  const TEXTS = ['lesson', 'profile', 'state', 'key'];
  // For xapi.js, which checks them; the page keeps them (the LRS's credentials stay in it).
  const XAPI = ['xapi-base', 'lrs-endpoint', 'lrs-auth', 'actor', 'registration', 'mastery'];
  const KNOWN = [...Object.keys(CHOICES), ...FLAGS, ...TEXTS, 'setup', 'height', 'attempt', ...XAPI];
  const LESSON_MODES = ['lesson', 'quiz', 'player'];
  // On the element, the handle, and by message to a frame (embed-frame.js).
  const METHODS = Object.freeze(['run', 'reset', 'undo', 'redo', 'getState', 'setState', 'exportScript', 'check', 'getReceipt', 'resume']);
  // The element's events; a frame's message of any other type is not one.
  const EVENTS = Object.freeze(['ready', 'command', 'check', 'task-complete', 'quiz-answer', 'progress', 'lesson-complete', 'error', 'xapi']);

  let compiled = null;
  let instances = 0;
  // What a receipt records (grader/receipt.js writes it, loaded when first asked for).
  const RECORDED = ['ready', 'check', 'quiz-answer', 'task-complete', 'progress'];
  let receipts = null;
  // Destroyed widgets' instances, for the next: a module record, memory included, lives on.
  const idle = [];
  /** A wasm instance per widget (compiled once), so a panic stops only its widget. The glue
   * keeps its instance in module scope: each imports it under a fragment URL of its own. */
  function loadEngine() {
    if (!compiled) {
      compiled = fetch(new URL('streamlab_bg.wasm', base)).then(async (response) => {
        if (!response.ok) throw new Error(`the StreamLab engine could not be loaded (HTTP ${response.status})`);
        if (/^application\/wasm/.test(response.headers.get('content-type') || '')) return WebAssembly.compileStreaming(response);
        return WebAssembly.compile(await response.arrayBuffer());
      });
    }
    if (idle.length) return Promise.resolve(idle.pop());
    return compiled.then(async (module) => {
      const m = await import(new URL(`streamlab.js#instance-${instances++}`, base).href);
      await m.default({ module_or_path: module });
      return m;
    });
  }

  const loaded = {};
  /** A script of StreamLab's host, added to the page once; resolves when it has run. */
  function load(name) {
    return loaded[name] ??= new Promise((ok, fail) => {
      const tag = el('script');
      tag.src = new URL(name, base).href;
      tag.onload = ok;
      tag.onerror = () => fail(new Error(`${tag.src} could not be loaded`));
      document.head.append(tag);
    });
  }

  function flag(value) {
    if (value === true || value === '' || value === 'true') return true;
    if (value === false || value === 'false') return false;
    return null;
  }

  /** Options with defaults, and what is wrong with them. */
  function normalise(raw, inline) {
    const o = { mode: 'sandbox', theme: 'auto', loading: 'lazy', solution: 'confirm', persist: 'none', layout: 'both', hints: true, autoresize: true, setup: [] };
    const problems = [];
    for (let [key, value] of Object.entries(raw)) {
      if (value === undefined || value === null) continue;
      // create()'s xapiBase is the tag's xapi-base.
      key = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      if (!KNOWN.includes(key)) {
        problems.push(`unknown option "${key}" (options: ${KNOWN.join(', ')})`);
      } else if (CHOICES[key]) {
        const v = String(value).trim().toLowerCase();
        if (CHOICES[key].includes(v)) o[key] = v;
        else problems.push(`${key} must be one of ${CHOICES[key].join(', ')}, not "${value}"`);
      } else if (FLAGS.includes(key)) {
        const v = flag(value);
        if (v === null) problems.push(`${key} must be true or false, not "${value}"`);
        else o[key] = v;
      } else if (key === 'setup') {
        const lines = Array.isArray(value) ? value.map(String) : String(value).split('\n');
        o.setup = lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
      } else if (key === 'attempt') {
        // The lesson's variant and option order (random if absent).
        const v = String(value).trim();
        if (/^\d{1,9}$/.test(v)) o.attempt = v;
        else problems.push(`attempt must be a whole number, not "${value}"`);
      } else if (key === 'height') {
        const v = String(value).trim();
        if (/^\d+(\.\d+)?$/.test(v)) o.height = `${v}px`;
        else if (/^\d+(\.\d+)?(px|em|rem|vh|svh|dvh)$/.test(v)) o.height = v;
        else problems.push(`height must be a length such as 420 or 30rem, not "${value}"`);
      } else {
        o[key] = key === 'actor' && typeof value === 'object' ? JSON.stringify(value) : String(value);
      }
    }
    if (o.height) o.autoresize = false;
    const lesson = o.lesson || inline;
    if (LESSON_MODES.includes(o.mode) && !lesson) problems.push(`mode ${o.mode} needs a lesson: an id, a URL, or a <script type="application/toml"> inside the element`);
    if (!LESSON_MODES.includes(o.mode) && lesson) problems.push(`a lesson needs mode lesson, quiz or player (mode is ${o.mode})`);
    return { o, problems };
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function button(text, onclick, className = '') {
    const node = el('button', className, text);
    node.type = 'button';
    node.addEventListener('click', onclick, { once: true });
    return node;
  }

  function sheet(name) {
    const link = el('link');
    link.rel = 'stylesheet';
    link.href = new URL(name, base).href;
    return link;
  }

  function messageOf(error) {
    return (error && error.message) || String(error);
  }

  /** What a widget shows, short (FNV-1a), to name its save. */
  function fingerprint(o, inline) {
    const what = JSON.stringify([o.mode, o.layout, o.profile, o.lesson, inline && inline.textContent, o.setup, o.attempt]);
    let hash = 0x811c9dc5;
    for (let i = 0; i < what.length; i++) hash = Math.imul(hash ^ what.charCodeAt(i), 0x01000193);
    return `${o.mode}-${(hash >>> 0).toString(36)}`;
  }

  const live = new Set();

  /** One widget; `frame` is embed-frame.js's: origin, place, problems, lesson, storage (the
   * page's, when embed.js drives the frame). */
  class Widget {
    constructor(host, raw, frame) {
      this.host = host;
      this.frame = frame;
      this.generation = 0;
      this.pending = [];
      this.queued = [];
      this.shadow = host.shadowRoot || host.attachShadow({ mode: 'open' });
      this.box = el('div', 'sl-frame');
      this.shadow.replaceChildren(sheet('style.css'), sheet('embed.css'), this.box);
      this.ready = new Promise((ok, fail) => { this.settle = { ok, fail }; });
      this.ready.catch(() => {});
      this.inline = host.querySelector(':scope > script[type="application/toml"]');
      this.given = frame && frame.lesson;
      const { o, problems } = normalise(raw, !!(this.inline || this.given));
      this.options = o;
      if (frame) {
        problems.push(...frame.problems);
        if (o.persist === 'local' && !frame.origin) problems.push(frame.unsaved);
      }
      this.fingerprint = fingerprint(o, this.inline);
      this.ordinal = frame ? frame.index : undefined;
      live.add(this);
      host.setAttribute('data-theme', o.theme);
      if (o.height) host.style.height = o.height;
      if (problems.length) {
        this.fail(`Bad options:\n${problems.join('\n')}`);
        return;
      }
      if (o.persist === 'local' && !frame && !o.key && !host.id) {
        console.warn('StreamLab: persist="local" without an id or key: the save is named by the options and place, and editing the page loses it', host);
      }
      if (o['xapi-base'] !== undefined) {
        // xapi.js, unless the page loaded it itself (cmi5.js's and scorm.js's pages do).
        this.tracker = (window.StreamLabXAPI ? Promise.resolve() : load('xapi.js')).then(() => window.StreamLabXAPI.attach(this),
          (error) => { this.dispatch('error', { message: `${messageOf(error)}: no xAPI statements are sent` }); return null; });
      }
      this.observeSize();
      if (o.loading === 'eager') {
        // After the script that made it, so widgets made together all count in name().
        queueMicrotask(() => this.start());
      } else if (o.loading === 'click') {
        this.placeholder('Redis Streams, live in this page.', button('Start the StreamLab console', () => this.start(), 'primary'));
      } else {
        this.placeholder('StreamLab loads when you scroll here…');
        this.visibility = new IntersectionObserver((seen) => {
          if (seen.some((entry) => entry.isIntersecting)) this.start();
        }, { rootMargin: '200px' });
        this.visibility.observe(host);
      }
    }

    placeholder(text, button) {
      const box = el('div', 'sl-placeholder');
      box.append(el('p', '', text));
      if (button) box.append(button);
      this.box.replaceChildren(box);
    }

    observeSize() {
      let last = '';
      this.sizes = new ResizeObserver(() => {
        const box = this.host.getBoundingClientRect();
        const size = { width: Math.round(box.width), height: Math.round(box.height) };
        if (`${size.width}x${size.height}` !== last && this.widget) {
          last = `${size.width}x${size.height}`;
          this.dispatch('resize', size);
        }
      });
      this.sizes.observe(this.host);
    }

    /** The save's name: a key, an id, or what it shows and its place among identical ones
     * (counted when first needed, so widgets made by script out of order differ). */
    name() {
      this.ordinal ??= [...live].filter((w) => w.fingerprint === this.fingerprint
        && w.host.compareDocumentPosition(this.host) & Node.DOCUMENT_POSITION_FOLLOWING).length;
      const own = `${this.fingerprint}.${this.ordinal}`;
      return this.options.key || (this.frame ? own : this.host.id || `${location.pathname}#${own}`);
    }

    storageKey() {
      // Pages framing StreamLab share its storage: a frame saves under the origin it answers.
      // A frame embed.js drives saves through the page, under the page's own name.
      return this.frame && !this.frame.storage ? `streamlab.embed.frame ${this.frame.origin} ${this.name()}` : `streamlab.embed.${this.name()}`;
    }

    /** Where saves go: this page's storage, or for a frame embed.js drives, the page's. */
    storage() {
      return (this.frame && this.frame.storage) || localStorage;
    }

    /** Mounts this widget; resolves when it is ready. */
    start() {
      if (this.started || this.error) return this.ready;
      this.started = true;
      if (this.visibility) this.visibility.disconnect();
      this.placeholder('Loading StreamLab…');
      if (remote) return this.open();
      const o = this.options;
      // A restart goes back to the last state that worked, unless the learner chose not to.
      let state = this.fresh ? undefined : this.saved !== undefined ? this.saved : o.state;
      const loading = this.loadingKey();
      this.restoring = null;
      if (!state && !this.fresh && o.persist === 'local') {
        try {
          state = this.storage().getItem(this.storageKey()) || undefined;
          // Marked until ready: still marked, the last rebuild died, and is not replayed unasked.
          if (state && this.storage().getItem(loading) && !this.retrying) return this.stalled();
          if (state) { this.storage().setItem(loading, '1'); this.restoring = loading; }
        } catch { /* storage off */ }
      }
      const generation = ++this.generation;
      Promise.all([loadEngine(), this.lessonText()]).then(([m, lesson]) => {
        if (this.destroyed) { idle.push(m); return; }
        this.module = m;
        const root = el('div');
        this.box.replaceChildren(root);
        // A URL query (no JSON reader in the wasm); `setup` repeats, one line each.
        const options = new URLSearchParams({ mode: o.mode, layout: o.layout });
        for (const line of o.setup) options.append('setup', line);
        if (o.profile !== undefined) options.set('profile', o.profile);
        if (state !== undefined) options.set('state', state);
        if (lesson) {
          for (const [key, value] of Object.entries({ lesson: lesson.text, file: lesson.file, hints: o.hints, solution: o.solution })) options.set(key, value);
          if (o.attempt !== undefined) options.set('attempt', o.attempt);
          this.played = lesson.text;
        }
        this.events = [];
        // A trapped instance's leftover timers may still call: only this start's count.
        this.widget = m.mount(root, options.toString(), (type, payload) => {
          if (generation === this.generation) this.emit(type, JSON.parse(payload));
        });
        const queued = this.queued;
        this.queued = null;
        queued.forEach(([type, detail]) => this.emit(type, detail));
      }).catch((error) => {
        // A trap stops the widget as always; a refusal (options, state, lesson) is final.
        if (error instanceof WebAssembly.RuntimeError) this.crash(messageOf(error));
        else if (this.crashed === undefined) this.fail(messageOf(error));
      });
      return this.ready;
    }

    /** The lesson: inline, from the frame's page, an id or a URL; a remote widget leaves what
     * is on StreamLab's host to its frame (null). */
    async lessonText() {
      if (this.inline) return { text: this.inline.textContent, file: 'inline lesson' };
      if (this.given) return { text: String(this.given.text), file: String(this.given.file) };
      const name = this.options.lesson;
      if (!name) return null;
      const own = /^[a-z0-9][a-z0-9-]*$/.test(name);
      const url = own ? new URL(`lessons/${name}.toml`, base) : new URL(name, location.href);
      if (remote && url.origin === base.origin) {
        this.options.lesson = own ? name : url.href;
        return null;
      }
      const response = await fetch(url).catch((error) => {
        throw new Error(`the lesson "${name}" could not be loaded (${messageOf(error)}${url.origin === location.origin ? '' : `: ${url.origin} must send Access-Control-Allow-Origin`})`);
      });
      if (!response.ok) throw new Error(`the lesson "${name}" could not be loaded (HTTP ${response.status})`);
      return { text: await response.text(), file: own ? `${name}.toml` : name };
    }

    /** A remote widget: an iframe of embed.html, sent its options and lesson. Its events are
     * the element's, `resize` sizes it, `state` answers getState() and exportScript(). */
    open() {
      const o = this.options;
      // A page without an origin (file://, a sandboxed frame) cannot be answered by a frame.
      if (location.origin === 'null') return this.fail('this page has no origin (a file:// page or a sandboxed frame), so a StreamLab frame cannot answer it: open this page over http(s)');
      const frame = el('iframe');
      frame.title = `StreamLab ${o.mode}`;
      frame.src = new URL(`embed.html?options=message&origin=${encodeURIComponent(location.origin)}`, base).href;
      this.calls = new Map();
      this.asked = 0;
      this.post = (type, payload) => frame.contentWindow.postMessage({ source: 'stream-lab', v: 1, type, payload }, base.origin);
      const lesson = this.lessonText();
      lesson.catch(() => {});
      this.listener = async (event) => {
        const m = event.data;
        if (event.source !== frame.contentWindow || event.origin !== base.origin || !m || m.source !== 'stream-lab' || m.v !== 1) return;
        const p = m.payload;
        if (m.type === 'open') {
          // Again: the frame reloaded (its host moved in the DOM). Calls it had are lost, and
          // it starts from the learner's latest state, not the original options.
          if (this.opened) this.drop('the StreamLab frame reloaded before it answered');
          this.opened = true;
          try {
            const given = await lesson;
            if (this.destroyed) return;
            const state = this.latest ? this.latest.state : o.state;
            // The page keeps the frame's saves: a frame of another site may get no storage
            // (browsers blocking third-party storage), and the save is the course page's.
            const stored = {};
            if (o.persist === 'local') {
              for (const key of this.savedKeys()) try { const value = localStorage.getItem(key); if (value !== null) stored[key] = value; } catch { /* storage off */ }
            }
            // xapi.js runs in this page: the xAPI options (the LRS's credentials) stay here.
            const kept = Object.fromEntries(XAPI.map((k) => [k]));
            this.post('init', { options: { ...o, ...kept, state, loading: 'eager', key: this.name(), height: o.height && '100vh' }, lesson: given, stored });
          } catch (error) { this.fail(messageOf(error)); }
        } else if (m.type === 'state') {
          this.latest = p;
        } else if (m.type === 'store') {
          // Only this widget's keys; only null removes (a malformed value changes nothing).
          if (o.persist !== 'local' || !p || !this.savedKeys().includes(p.key)) return;
          if (typeof p.value !== 'string' && p.value !== null) return;
          try {
            if (p.value === null) localStorage.removeItem(p.key);
            else localStorage.setItem(p.key, p.value);
          } catch { this.notSaved(); }
        } else if (m.type === 'result') {
          const call = this.calls.get(p.id);
          this.calls.delete(p.id);
          if (call) 'error' in p ? call[1](new Error(p.error)) : call[0](p.value ?? undefined);
        } else if (m.type === 'resize') {
          // autoresize=false is the frame's widget's to apply (it fixes its own height at ready).
          if (!o.height) frame.style.height = `${p.height}px`;
        } else if (EVENTS.includes(m.type)) {
          if (m.type === 'ready') { this.widget = frame; this.settle.ok(this.handle); }
          if (m.type === 'error' && !p.internal) this.settle.fail(new Error(p.message));
          this.dispatch(m.type, p);
        }
      };
      addEventListener('message', this.listener);
      // "open" is posted before `load` but may arrive after it: long silence means no frame.
      frame.addEventListener('load', () => setTimeout(() => this.opened || this.destroyed || this.fail(`${frame.src.split('?')[0]} did not answer: its host must serve it and let other sites frame it (no X-Frame-Options or CSP frame-ancestors)`), 10000));
      this.box.className = 'sl-remote';
      this.box.replaceChildren(frame);
      return this.ready;
    }

    /** Rejects the calls a frame will not answer. */
    drop(why) {
      const error = new Error(why);
      if (this.calls) for (const [, fail] of this.calls.values()) fail(error);
      if (this.calls) this.calls.clear();
      this.pending.splice(0).forEach((p) => p.fail(error));
      this.settle.fail(error);
    }

    /** A remote widget's method, called in its frame. */
    ask(method, args) {
      return this.start().then(() => new Promise((ok, fail) => {
        const id = ++this.asked;
        this.calls.set(id, [ok, fail]);
        this.post('call', { id, method, args });
      }));
    }

    dispatch(type, detail) {
      this.host.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
      // Statements are timed by when the event was raised, not when xapi.js got to it.
      const time = Date.now();
      if (this.tracker && type !== 'xapi' && type !== 'resize') this.tracker.then((t) => t && t.event(type, detail, time));
    }

    emit(type, detail) {
      // Events raised during mount() wait for the handle.
      if (type === 'panic') { this.crash(detail.message); return; }
      if (this.queued) { this.queued.push([type, detail]); return; }
      if (type === 'ready') {
        // autoresize=false without a height: the height it has now stays (it scrolls inside).
        if (!this.options.autoresize && !this.options.height) this.host.style.height = `${this.host.getBoundingClientRect().height}px`;
        if (this.restoring) try { this.storage().removeItem(this.restoring); } catch { /* storage off */ }
        this.restoring = null;
        this.settle.ok(this.handle);
      }
      // A passing Check is recorded with the session it judged (asked now: the learner moves on).
      if (RECORDED.includes(type) && this.events) this.events.push({ type, detail, at: Date.now(), session: type === 'check' && detail.passed ? JSON.parse(this.widget.act('live')) : null });
      // A receipt being replayed (resume) is the learner's past: recorded, not told again.
      if (this.replaying) return;
      if (type === 'check' && this.checking) { this.checking(detail); this.checking = null; }
      if (type === 'command') {
        // `name> COMMAND` is reported as the command it ran on `name`.
        const i = this.pending.findIndex((p) => p.input === detail.input || p.input.replace(/^[\w.:-]+> /, '') === detail.input);
        if (i >= 0) this.pending.splice(i, 1)[0].done(detail);
        this.save();
      }
      this.dispatch(type, detail);
    }

    /** Keeps the state once per turn (a paste is many events), for restarts and persist. */
    save() {
      if (this.saving) return;
      this.saving = true;
      queueMicrotask(() => {
        this.saving = false;
        if (!this.widget) return;
        this.saved = this.widget.getState();
        if (this.options.persist !== 'local') return;
        try {
          this.storage().setItem(this.storageKey(), this.saved);
        } catch {
          this.notSaved();
        }
      });
    }

    /** Storage full or off: the last save stays (a failed setItem changes nothing); told once. */
    notSaved() {
      if (this.notice) return;
      this.notice = el('p', 'sl-notice', 'Your work here is not being saved: this browser\'s storage for the site is full or turned off.');
      this.notice.setAttribute('role', 'status');
      this.box.prepend(this.notice);
    }

    /** Marks a save being rebuilt: still there at the next start, the rebuild died. */
    loadingKey() {
      return `${this.storageKey()} loading`;
    }

    /** The keys of this widget's save and its loading mark. */
    savedKeys() {
      return [this.storageKey(), this.loadingKey()];
    }

    alert(title, ...parts) {
      const box = el('div', 'sl-error');
      box.setAttribute('role', 'alert');
      box.append(el('strong', '', title), ...parts);
      this.box.replaceChildren(box);
    }

    fail(message) {
      // A late refusal (a lesson still loading) of a widget already gone is nobody's.
      if (this.destroyed) return;
      this.error = message;
      this.alert('StreamLab could not start', el('span', '', message));
      this.settle.fail(new Error(message));
      // Later, so listeners added to a fresh handle hear it.
      queueMicrotask(() => this.dispatch('error', { message }));
    }

    /** The instance trapped (a panic, a RuntimeError): nothing may call it again, not even
     * free(); Restart mounts a fresh one. */
    crash(message) {
      if (this.crashed !== undefined || this.destroyed) return;
      this.crashed = message;
      this.widget = null;
      const error = new Error(`StreamLab hit an internal error: ${message}`);
      this.pending.splice(0).forEach((p) => p.fail(error));
      if (this.checking) this.checkFailed(error);
      this.checking = null;
      this.alert('StreamLab hit an internal error',
        el('span', '', 'This console stopped; the rest of the page is not affected. Restarting continues from the last command that worked.'),
        el('code', '', message), button('Restart this console', () => this.restart(), 'primary'),
        // Died rebuilding the save: a restart would replay it.
        ...(this.restoring ? [' ', this.freshButton()] : []));
      queueMicrotask(() => this.dispatch('error', { message, internal: true }));
    }

    /** The save did not finish loading last time: the learner decides. */
    stalled() {
      this.alert('Your saved work here did not finish loading last time',
        el('span', '', 'The browser may have run out of memory rebuilding it. It is still saved. '),
        button('Load it again', () => { this.retrying = true; this.restart(); }, 'primary'), ' ', this.freshButton());
      return this.ready;
    }

    freshButton() {
      return button('Start without it', () => {
        this.fresh = true;
        try { this.storage().removeItem(this.loadingKey()); } catch { /* storage off */ }
        this.restart();
      });
    }

    restart() {
      this.crashed = undefined;
      this.started = false;
      this.queued = [];
      this.ready = new Promise((ok, fail) => { this.settle = { ok, fail }; });
      this.ready.catch(() => {});
      return this.start();
    }

    /** Gives the engine's widget up; its instance goes to the next widget. */
    unmount() {
      if (!this.widget) return;
      this.widget.destroy();
      this.widget.free();
      this.widget = null;
      idle.push(this.module);
    }

    /** Resumes the attempt a receipt holds: a fresh widget of its attempt replays it, or on
     * failure is left fresh. Resolves with where it is and its progress. */
    async resume(token) {
      const m = await (receipts ??= import(new URL('grader/receipt.js', base).href));
      const r = await m.resumable(token, this.events.find((x) => x.type === 'ready')?.detail, this.played);
      this.replaying = true;
      try {
        this.options.attempt = r.attempt;
        this.unmount();
        await this.restart();
        try { m.replay(r, this.widget, this.events); } catch (error) { this.unmount(); await this.restart(); throw error; }
        // command events come from the render after each line: they are the replay's too.
        await new Promise((ok) => setTimeout(ok));
      } finally { this.replaying = false; }
      const last = this.events.findLast((x) => x.type === 'progress');
      const progress = last ? last.detail : { lesson: r.lesson, done: 0, total: this.events[0].detail.tasks, score: 0, max: r.max };
      this.save();
      this.dispatch('progress', progress);
      return { task: r.live.task, ...progress };
    }

    /** Runs `fn` on the engine's widget, once mounted. */
    call(fn) {
      if (this.crashed !== undefined) return Promise.reject(new Error(`StreamLab hit an internal error: ${this.crashed}`));
      return this.start().then(() => fn(this.widget)).catch((error) => {
        // A trap no panic hook saw (out of memory).
        if (error instanceof WebAssembly.RuntimeError) this.crash(messageOf(error));
        throw error;
      });
    }

    get handle() {
      if (this.api) return this.api;
      const w = this;
      const asks = {};
      for (const method of METHODS) asks[method] = (...args) => w.ask(method, args);
      this.api = {
        element: w.host,
        get ready() { return w.ready; },
        destroy: () => w.destroy(),
        on: (type, listener) => { w.host.addEventListener(type, listener); return w.api; },
      };
      Object.assign(this.api, remote ? {
        ...asks,
        getState: () => (w.latest ? w.latest.state : null),
        exportScript: () => (w.latest ? w.latest.script : ''),
      } : {
        run: (command) => w.call((e) => new Promise((done, fail) => {
          w.pending.push({ input: String(command), done, fail });
          e.run(String(command));
        })),
        reset: () => w.call((e) => { e.reset(); w.save(); }),
        undo: () => w.call((e) => { e.undo(); w.save(); }),
        redo: () => w.call((e) => { e.redo(); w.save(); }),
        getState: () => (w.widget ? w.widget.getState() : w.saved ?? null),
        setState: (token) => w.call((e) => { e.setState(String(token)); w.save(); }),
        exportScript: () => (w.widget ? w.widget.exportScript() : ''),
        getReceipt: () => w.call(async (e) => {
          const live = JSON.parse(e.act('live'));
          const m = await (receipts ??= import(new URL('grader/receipt.js', base).href));
          return m.seal(await m.record(w.events, live, w.played, Date.now()));
        }),
        resume: (token) => w.call(() => w.resume(String(token))),
        check: () => w.call((e) => new Promise((done, fail) => {
          w.checking = done;
          w.checkFailed = fail;
          e.act('check');
        })),
      });
      return this.api;
    }

    destroy() {
      this.drop('this StreamLab widget was destroyed');
      this.destroyed = true;
      if (this.visibility) this.visibility.disconnect();
      if (this.sizes) this.sizes.disconnect();
      removeEventListener('message', this.listener);
      if (!remote) this.unmount();
      this.box.replaceChildren();
      widgets.delete(this.host);
      live.delete(this);
    }
  }

  const widgets = new WeakMap();

  function create(element, options = {}, frame = undefined) {
    if (!(element instanceof Element)) throw new TypeError('StreamLab.create needs an element');
    if (widgets.has(element)) widgets.get(element).destroy();
    const widget = new Widget(element, options || {}, frame);
    widgets.set(element, widget);
    return widget.handle;
  }

  /** <stream-lab mode="sandbox" setup="XADD s * a 1">: options as attributes. */
  class StreamLabElement extends HTMLElement {
    connectedCallback() {
      if (widgets.has(this)) return;
      // Children (an inline lesson) are parsed after the start tag.
      const go = () => {
        if (!this.isConnected || widgets.has(this)) return;
        const raw = {};
        for (const name of KNOWN) if (this.hasAttribute(name)) raw[name] = this.getAttribute(name);
        create(this, raw);
      };
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go, { once: true });
      else go();
    }

    disconnectedCallback() {
      const widget = widgets.get(this);
      if (widget) widget.destroy();
    }
  }
  for (const method of METHODS) {
    StreamLabElement.prototype[method] = function (...args) {
      const widget = widgets.get(this);
      if (!widget) return Promise.reject(new Error('this <stream-lab> is not connected'));
      return widget.handle[method](...args);
    };
  }
  StreamLabElement.prototype.destroy = function () {
    const widget = widgets.get(this);
    if (widget) widget.destroy();
  };

  window.StreamLab = Object.freeze({ create, version: 1, methods: METHODS, events: EVENTS, normalise: (raw) => normalise(raw) });
  if (!customElements.get('stream-lab')) customElements.define('stream-lab', StreamLabElement);
  // The page's own tag asks for its ```streamlab code blocks to become widgets (README, "Docs
  // sites"): that code lives in fences.js, so pages without fences do not download it.
  if (script && script.hasAttribute('data-fences')) load('fences.js').catch((error) => console.error(`StreamLab: ${error.message}: code fences stay as they are`));
})();
