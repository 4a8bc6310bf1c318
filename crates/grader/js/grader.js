// The StreamLab grader: the engine and the lesson checker with no UI, as a plain ES module.
// Works in browsers and in Node (>= 18) with no bundler. Types: grader.d.ts.
//
//   import { load, Session, Lesson } from './grader/grader.js';
//   await load();
//   const s = new Session({ profile: 'redis-8.2' });
//   s.execute('XADD jobs 1-0 type email');   // { text: '"1-0"', ok: true, replies: ['1-0'], ... }
//
// Everything the wasm answers is JSON; this wrapper parses it so callers get plain objects.
import * as glue from './streamlab_grader.js';

const wasmUrl = new URL('./streamlab_grader_bg.wasm', import.meta.url);
let loading = null;
let compiled = null;
/** The glue of the instance new objects are made in. */
let current = null;
/** Another copy of the glue, imported ahead, for the instance that follows a trap. */
let spare = null;
let copies = 0;

// The wasm-bindgen glue keeps its instance in module scope: a second instance needs the glue
// imported under another URL (a fragment: the same file, a module of its own).
const copy = () => import(`${new URL('./streamlab_grader.js', import.meta.url).href}#instance-${++copies}`).then((m) => { spare = m; });

/** The compiled module from bytes, a URL (string or URL), a Response or a compiled module. */
async function compile(source) {
  let input = source ?? wasmUrl;
  if (input instanceof WebAssembly.Module) return input;
  if (typeof input === 'string' || input instanceof URL) {
    // Node cannot fetch file: URLs; read the file instead.
    if (new URL(input, import.meta.url).protocol === 'file:') {
      const { readFile } = await import('node:fs/promises');
      input = await readFile(new URL(input, import.meta.url));
    } else {
      input = await fetch(input);
    }
  }
  if (typeof Response === 'function' && input instanceof Response) input = await input.arrayBuffer();
  return WebAssembly.compile(input);
}

/**
 * Loads the wasm once. `source` (bytes, URL or Response) overrides where it comes from. After
 * an internal error that found no spare instance ready, the next call makes a fresh one.
 */
export function load(source) {
  if (!loading) {
    loading = (async () => {
      compiled ??= await compile(source);
      if (!spare && copies > 0) await copy();
      const next = copies === 0 ? glue : spare;
      if (next === spare) spare = null;
      next.initSync({ module: compiled });
      current = next;
      await copy();
    })();
  }
  return loading;
}

/**
 * Runs `call`; a trap (a panic, or memory run out: the wasm aborts) becomes a plain Error.
 * The instance that trapped may hold half-done state or all the memory it could get, so the
 * object that trapped is done for, and objects made from then on live in a fresh instance of
 * the same compiled module (the objects made before keep theirs).
 */
function guarded(owner, call) {
  if (owner.dead) throw owner.dead;
  try {
    return call();
  } catch (error) {
    if (!(error instanceof WebAssembly.RuntimeError)) throw error;
    owner.dead = new Error(`StreamLab grader: internal error (${error.message}); this object can no longer be used, create a new one`);
    if (owner.glue === current) {
      if (spare) {
        spare.initSync({ module: compiled });
        current = spare;
        spare = null;
        copy();
      } else {
        // The spare is still being imported: new objects wait for load() to make one.
        current = null;
        loading = null;
      }
    }
    throw owner.dead;
  }
}

/** What ties a wrapper to its wasm object: the instance's glue, and whether it trapped. */
function owner(make) {
  if (!current) throw new Error('StreamLab grader: call load() first (and again after an internal error)');
  // Making the object can trap too (a lesson that exhausts memory): handled like any call.
  const own = { glue: current, inner: null, dead: null };
  own.inner = guarded(own, () => make(own.glue));
  return own;
}

// The wasm sends a finite double's digits as a string (it carries no float printer); they
// become a number here. Infinities and NaN stay redis-cli text such as "(double) inf".
function doubles(key, value) {
  return key === 'double' && typeof value === 'string' && !value.startsWith('(') ? Number(value) : value;
}

function lines(log) {
  return Array.isArray(log) ? log.join('\n') : String(log);
}

/** A console session with no UI, on a virtual clock. */
export class Session {
  #own;
  constructor({ profile, clock, history } = {}) {
    this.#own = owner((g) => new g.Grader(profile, clock, history));
  }
  #call(call) {
    return guarded(this.#own, () => call(this.#own.inner));
  }
  /** Runs one console line (a command, `:as NAME`, `:clock +MS`). */
  execute(line) {
    return JSON.parse(this.#call((g) => g.execute(String(line))), doubles);
  }
  /** Runs lines in order (an array, or text with one line per line) in one call into the
   * wasm; answers compactly: how many, the failures, the last line in full. */
  run(log) {
    return JSON.parse(this.#call((g) => g.run(lines(log))), doubles);
  }
  /** The state as the playground's pictures see it. */
  snapshot() {
    return JSON.parse(this.#call((g) => g.snapshot()));
  }
  /** A command file that rebuilds this session. */
  script() {
    return this.#call((g) => g.script());
  }
  get profile() {
    return this.#call((g) => g.profile());
  }
  get now() {
    return this.#call((g) => g.now());
  }
  /** Frees the wasm memory now rather than when garbage-collected. */
  free() {
    if (!this.#own.dead) this.#own.inner.free();
  }
}

/** A lesson file, parsed; checks learners' logs on any variant (0 is the lesson as written). */
export class Lesson {
  #own;
  constructor(toml, file) {
    this.#own = owner((g) => new g.GraderLesson(String(toml), file));
    this.info = JSON.parse(this.#call((l) => l.info()));
  }
  #call(call) {
    return guarded(this.#own, () => call(this.#own.inner));
  }
  /**
   * A reach-state task against a log. For a task that continues (`info.tasks[n].continues`),
   * `earlier` are the learner's logs of the tasks before it in its chain, first task first.
   */
  checkLog(task, log, { variant = 0, earlier } = {}) {
    const logs = earlier === undefined ? undefined : earlier.map(lines);
    return JSON.parse(this.#call((l) => l.checkLog(task, lines(log), variant, logs)));
  }
  /**
   * Any question: a number (an option), an array of numbers (multiple choice), a string (a
   * typed reply or number) or `{ order: [...] }` (an order task). Indices are the lesson's.
   */
  checkAnswer(task, answer, { variant = 0 } = {}) {
    const option = typeof answer === 'number' ? answer : undefined;
    const options = Array.isArray(answer) ? Uint32Array.from(answer) : undefined;
    const typed = typeof answer === 'string' ? answer : undefined;
    const order = answer && Array.isArray(answer.order) ? Uint32Array.from(answer.order) : undefined;
    return JSON.parse(this.#call((l) => l.checkAnswer(task, variant, option, options, typed, order)));
  }
  checkChoice(task, option, options = {}) {
    return this.checkAnswer(task, option, options);
  }
  checkPrediction(task, answer, options = {}) {
    return this.checkAnswer(task, answer, options);
  }
  /** The lesson's option indices in the order attempt `attempt` showed them. */
  shownOrder(task, attempt) {
    return Array.from(this.#call((l) => l.shownOrder(task, attempt)));
  }
  /**
   * Re-grades a learner's log for every reach-state task on one variant, e.g. a hidden one
   * the learner never saw: `lesson.grade(log, { variant: 2 })`.
   */
  grade(log, { variant = 0 } = {}) {
    const results = this.info.tasks.map((task, index) => task.kind === 'reach-state'
      ? { task: index, ...this.checkLog(index, log, { variant }) }
      : null).filter(Boolean);
    return { variant, passed: results.every((r) => r.passed), tasks: results };
  }
  /**
   * Re-grades each reach-state task against its own log (`logs[n]` for task n), on one
   * variant; a task that continues starts from the learner's own earlier logs.
   */
  gradeTasks(logs, { variant = 0 } = {}) {
    const results = [];
    this.info.tasks.forEach((task, index) => {
      if (task.kind !== 'reach-state') return;
      const earlier = logs.slice(task.chainStart, index).map((log) => log ?? '');
      results.push({ task: index, ...this.checkLog(index, logs[index] ?? '', { variant, earlier }) });
    });
    return { variant, passed: results.every((r) => r.passed), tasks: results };
  }
  free() {
    if (!this.#own.dead) this.#own.inner.free();
  }
}
