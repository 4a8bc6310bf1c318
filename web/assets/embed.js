/* StreamLab embedding kit: the <stream-lab> element and StreamLab.create(element, options).
 * One plain script, no bundler, no eval. The app's wasm loads only when a widget needs it,
 * and every widget on the page shares that one download and compilation. Each widget lives
 * in its own shadow root and its own wasm instance; options are checked here first, and anything
 * wrong shows in the widget and as an `error` event, never as a blank box; an internal error
 * stops only its widget, which offers to restart. Events are bubbling CustomEvents on the
 * widget's element. See README ("Embedding"). */
(() => {
  'use strict';
  if (window.StreamLab) return;
  const script = document.currentScript;
  const base = new URL('.', (script && script.src) || location.href);
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
  const KNOWN = [...Object.keys(CHOICES), ...FLAGS, ...TEXTS, 'setup', 'height', 'attempt'];
  const LESSON_MODES = ['lesson', 'quiz', 'player'];
  // The widget's methods, on the element and (through embed-frame.js) by message to a frame.
  const METHODS = Object.freeze(['run', 'reset', 'undo', 'redo', 'getState', 'setState', 'exportScript', 'check']);

  let compiled = null;
  let instances = 0;
  // Instances whose widget was destroyed cleanly, for the next widget: a module record lives as
  // long as the page, so each new one keeps its memory for good (one that trapped is dropped).
  const idle = [];
  /**
   * A fresh instance of the app's wasm for one widget. The module downloads and compiles once
   * per page; every widget gets its own instance (its own memory, its own yew scheduler), so a
   * panic, which traps the instance it happens in, stops only that widget. The wasm-bindgen
   * glue keeps its instance in module scope, so each instance imports it under its own URL:
   * the fragment makes a new module record without a new HTTP cache entry.
   */
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

  function flag(value) {
    if (value === true || value === '' || value === 'true') return true;
    if (value === false || value === 'false') return false;
    return null;
  }

  /** Options with defaults, and what is wrong with them. */
  function normalise(raw, inline) {
    const o = { mode: 'sandbox', theme: 'auto', loading: 'lazy', solution: 'confirm', persist: 'none', layout: 'both', hints: true, autoresize: true, setup: [] };
    const problems = [];
    for (const [key, value] of Object.entries(raw)) {
      if (value === undefined || value === null) continue;
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
        // Picks the lesson's variant and the order its options are shown in (random if absent).
        const v = String(value).trim();
        if (/^\d{1,9}$/.test(v)) o.attempt = v;
        else problems.push(`attempt must be a whole number, not "${value}"`);
      } else if (key === 'height') {
        const v = String(value).trim();
        if (/^\d+(\.\d+)?$/.test(v)) o.height = `${v}px`;
        else if (/^\d+(\.\d+)?(px|em|rem|vh|svh|dvh)$/.test(v)) o.height = v;
        else problems.push(`height must be a length such as 420 or 30rem, not "${value}"`);
      } else {
        o[key] = String(value);
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

  function sheet(name) {
    const link = el('link');
    link.rel = 'stylesheet';
    link.href = new URL(name, base).href;
    return link;
  }

  function messageOf(error) {
    return (error && error.message) || String(error);
  }

  /** A short name for what a widget shows (FNV-1a of its options), for its default save. */
  function fingerprint(o, inline) {
    const what = JSON.stringify([o.mode, o.layout, o.profile, o.lesson, inline && inline.textContent, o.setup, o.attempt]);
    let hash = 0x811c9dc5;
    for (let i = 0; i < what.length; i++) hash = Math.imul(hash ^ what.charCodeAt(i), 0x01000193);
    return `${o.mode}-${(hash >>> 0).toString(36)}`;
  }

  const live = new Set();

  /** One widget: its element, shadow root, options, engine handle and listeners. `frame` is
   * embed.html's (see embed-frame.js): the origin its saves belong to, where the frame sits
   * among its page's frames, and what is wrong with its own parameters. */
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
      const { o, problems } = normalise(raw, !!this.inline);
      this.options = o;
      if (frame) {
        problems.push(...frame.problems);
        if (o.persist === 'local' && !frame.origin) problems.push(frame.unsaved);
      }
      // A save named by what the widget shows, so two widgets of a page keep their own: the
      // frame's place among its page's frames, or (see storageKey) how many widgets showing
      // the same come before this one in the page, tells identical ones apart.
      this.fingerprint = fingerprint(o, this.inline);
      this.ordinal = frame ? frame.index : undefined;
      live.add(this);
      host.setAttribute('data-theme', o.theme);
      if (o.height) host.style.height = o.height;
      if (problems.length) {
        this.fail(`Bad options:\n${problems.join('\n')}`);
        return;
      }
      this.observeSize();
      if (o.loading === 'eager') {
        // After the script that made it: widgets made together all exist before the first
        // counts its place among identical ones (storageKey).
        queueMicrotask(() => this.start());
      } else if (o.loading === 'click') {
        const button = el('button', 'primary', 'Start the StreamLab console');
        button.type = 'button';
        button.addEventListener('click', () => this.start(), { once: true });
        this.placeholder('Redis Streams, live in this page.', button);
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
          this.emit('resize', size);
        }
      });
      this.sizes.observe(this.host);
    }

    storageKey() {
      // Counted when first needed, not when constructed: widgets made by script in another
      // order than the page's, all made before any loads, still get distinct places.
      this.ordinal ??= [...live].filter((w) => w.fingerprint === this.fingerprint
        && w.host.compareDocumentPosition(this.host) & Node.DOCUMENT_POSITION_FOLLOWING).length;
      const own = `${this.fingerprint}.${this.ordinal}`;
      // Every page that frames StreamLab shares the frame's storage (per site, or all of it):
      // a frame's save is kept under the origin it answers to, the only one that can read it
      // back (by message), whatever `key` another page passes. A tag's storage is its page's.
      if (this.frame) return `streamlab.embed.frame ${this.frame.origin} ${this.options.key || own}`;
      return `streamlab.embed.${this.options.key || this.host.id || `${location.pathname}#${own}`}`;
    }

    /** Loads the engine (once per page) and mounts this widget; resolves when it is ready. */
    start() {
      if (this.started || this.error) return this.ready;
      this.started = true;
      if (this.visibility) this.visibility.disconnect();
      this.placeholder('Loading StreamLab…');
      const o = this.options;
      // A restart after an internal error continues from the last state that worked, unless
      // the learner chose to start without it.
      let state = this.fresh ? undefined : this.saved !== undefined ? this.saved : o.state;
      const loading = `${this.storageKey()} loading`;
      this.restoring = null;
      if (!state && !this.fresh && o.persist === 'local') {
        try {
          state = localStorage.getItem(this.storageKey()) || undefined;
          // Marked while it is rebuilt, cleared once ready: still marked means the last load
          // never finished (the tab died rebuilding it), so it is not replayed again unasked.
          if (state && localStorage.getItem(loading) && !this.retrying) return this.stalled();
          if (state) { localStorage.setItem(loading, '1'); this.restoring = loading; }
        } catch { /* storage off */ }
      }
      const generation = ++this.generation;
      Promise.all([loadEngine(), this.lessonText()]).then(([m, lesson]) => {
        if (this.destroyed) { idle.push(m); return; }
        this.module = m;
        const root = el('div');
        this.box.replaceChildren(root);
        // The engine reads its options as a URL query (no JSON reader in the wasm): `setup`
        // repeats, one line each; absent options take their defaults.
        const options = new URLSearchParams({ mode: o.mode, layout: o.layout });
        for (const line of o.setup) options.append('setup', line);
        if (o.profile !== undefined) options.set('profile', o.profile);
        if (state !== undefined) options.set('state', state);
        if (lesson) {
          for (const [key, value] of Object.entries({ lesson: lesson.text, file: lesson.file, trusted: lesson.trusted, hints: o.hints, solution: o.solution })) options.set(key, value);
          if (o.attempt !== undefined) options.set('attempt', o.attempt);
        }
        // A trapped instance's leftover timers may still call back: only this start's count.
        this.widget = m.mount(root, options.toString(), (type, payload) => {
          if (generation === this.generation) this.emit(type, JSON.parse(payload));
        });
        const queued = this.queued;
        this.queued = null;
        queued.forEach(([type, detail]) => this.emit(type, detail));
      }).catch((error) => {
        // A trap while mounting stops the widget as any other does; a refusal (bad options,
        // a bad state token or lesson) is final.
        if (error instanceof WebAssembly.RuntimeError) this.crash(messageOf(error));
        else if (this.crashed === undefined) this.fail(messageOf(error));
      });
      return this.ready;
    }

    /** The lesson's text: inline, one of the site's lessons by id, or any URL (validated). */
    async lessonText() {
      if (this.inline) return { text: this.inline.textContent, file: 'inline lesson', trusted: false };
      const name = this.options.lesson;
      if (!name) return null;
      const own = /^[a-z0-9][a-z0-9-]*$/.test(name);
      const url = own ? new URL(`lessons/${name}.toml`, base) : new URL(name, location.href);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`the lesson "${name}" could not be loaded (HTTP ${response.status})`);
      return { text: await response.text(), file: own ? `${name}.toml` : name, trusted: own };
    }

    emit(type, detail) {
      // Events raised while mount() runs wait until the handle exists.
      if (type === 'panic') { this.crash(detail.message); return; }
      if (this.queued) { this.queued.push([type, detail]); return; }
      if (type === 'ready') {
        if (this.restoring) try { localStorage.removeItem(this.restoring); } catch { /* storage off */ }
        this.restoring = null;
        this.settle.ok(this.handle);
      }
      if (type === 'check' && this.checking) { this.checking(detail); this.checking = null; }
      if (type === 'command') {
        // A lesson line `name> COMMAND` is reported as the command it ran on `name`.
        const i = this.pending.findIndex((p) => p.input === detail.input || p.input.replace(/^[\w.:-]+> /, '') === detail.input);
        if (i >= 0) this.pending.splice(i, 1)[0].done(detail);
        this.save();
      }
      this.host.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
    }

    /**
     * Keeps the state, once per turn however many commands it ran (a paste is one event
     * each): what a restart after an internal error goes back to, and with persist=local what
     * the next visit starts from.
     */
    save() {
      if (this.saving) return;
      this.saving = true;
      queueMicrotask(() => {
        this.saving = false;
        if (!this.widget) return;
        this.saved = this.widget.getState();
        if (this.options.persist !== 'local') return;
        try {
          localStorage.setItem(this.storageKey(), this.saved);
        } catch {
          // Full or turned off: the last save stays as it was (a failed setItem changes
          // nothing), and the learner is told once, without stopping the widget.
          if (!this.notice) {
            this.notice = el('p', 'sl-notice', 'Your work here is not being saved: this browser\'s storage for the site is full or turned off.');
            this.notice.setAttribute('role', 'status');
            this.box.prepend(this.notice);
          }
        }
      });
    }

    fail(message) {
      this.error = message;
      const box = el('div', 'sl-error');
      box.setAttribute('role', 'alert');
      box.append(el('strong', '', 'StreamLab could not start'), el('span', '', message));
      this.box.replaceChildren(box);
      this.settle.fail(new Error(message));
      // After the constructor returns, so listeners added to a fresh handle hear it.
      queueMicrotask(() => this.host.dispatchEvent(new CustomEvent('error', { bubbles: true, composed: true, detail: { message } })));
    }

    /**
     * The widget's instance trapped (its panic hook said why, or a call threw a wasm
     * RuntimeError): nothing may call into it again, not even to free it. The widget shows
     * the error and a restart, which mounts a fresh instance from the last state that worked.
     */
    crash(message) {
      if (this.crashed !== undefined || this.destroyed) return;
      this.crashed = message;
      this.widget = null;
      const error = new Error(`StreamLab hit an internal error: ${message}`);
      this.pending.splice(0).forEach((p) => p.fail(error));
      if (this.checking) this.checkFailed(error);
      this.checking = null;
      const box = el('div', 'sl-error');
      box.setAttribute('role', 'alert');
      const restart = el('button', 'primary', 'Restart this console');
      restart.type = 'button';
      restart.addEventListener('click', () => this.restart(), { once: true });
      box.append(el('strong', '', 'StreamLab hit an internal error'),
        el('span', '', 'This console stopped; the rest of the page is not affected. Restarting continues from the last command that worked.'),
        el('code', '', message), restart);
      // It died rebuilding the saved work: restarting would replay the same.
      if (this.restoring) box.append(' ', this.freshButton());
      this.box.replaceChildren(box);
      queueMicrotask(() => this.host.dispatchEvent(new CustomEvent('error', { bubbles: true, composed: true, detail: { message, internal: true } })));
    }

    /** The saved work did not finish loading last time: the learner decides what happens. */
    stalled() {
      const box = el('div', 'sl-error');
      box.setAttribute('role', 'alert');
      const again = el('button', 'primary', 'Load it again');
      again.type = 'button';
      again.addEventListener('click', () => { this.retrying = true; this.restart(); }, { once: true });
      box.append(el('strong', '', 'Your saved work here did not finish loading last time'),
        el('span', '', 'The browser may have run out of memory rebuilding it. It is still saved. '), again, ' ', this.freshButton());
      this.box.replaceChildren(box);
      return this.ready;
    }

    freshButton() {
      const fresh = el('button', '', 'Start without it');
      fresh.type = 'button';
      fresh.addEventListener('click', () => {
        this.fresh = true;
        try { localStorage.removeItem(`${this.storageKey()} loading`); } catch { /* storage off */ }
        this.restart();
      }, { once: true });
      return fresh;
    }

    restart() {
      this.crashed = undefined;
      this.started = false;
      this.queued = [];
      this.ready = new Promise((ok, fail) => { this.settle = { ok, fail }; });
      this.ready.catch(() => {});
      return this.start();
    }

    /** Runs `fn` on the mounted engine widget, loading it first when needed. */
    call(fn) {
      if (this.crashed !== undefined) return Promise.reject(new Error(`StreamLab hit an internal error: ${this.crashed}`));
      return this.start().then(() => fn(this.widget)).catch((error) => {
        // A trap no panic hook saw (out of memory) stops the widget the same way.
        if (error instanceof WebAssembly.RuntimeError) this.crash(messageOf(error));
        throw error;
      });
    }

    get handle() {
      if (this.api) return this.api;
      const w = this;
      this.api = {
        element: w.host,
        get ready() { return w.ready; },
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
        check: () => w.call((e) => new Promise((done, fail) => {
          w.checking = done;
          w.checkFailed = fail;
          e.check();
        })),
        destroy: () => w.destroy(),
        on: (type, listener) => { w.host.addEventListener(type, listener); return w.api; },
      };
      return this.api;
    }

    destroy() {
      this.destroyed = true;
      if (this.visibility) this.visibility.disconnect();
      if (this.sizes) this.sizes.disconnect();
      if (this.widget) {
        this.widget.destroy();
        this.widget.free();
        this.widget = null;
        idle.push(this.module);
      }
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
      // Child elements (an inline lesson) are parsed after the start tag.
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

  window.StreamLab = Object.freeze({ create, version: 1, methods: METHODS, normalise: (raw) => normalise(raw) });
  if (!customElements.get('stream-lab')) customElements.define('stream-lab', StreamLabElement);
})();
