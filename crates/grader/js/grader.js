// The StreamLab grader: the engine and the lesson checker with no UI, as a plain ES module.
// Works in browsers and in Node (>= 18) with no bundler. Types: grader.d.ts.
//
//   import { load, Session, Lesson } from './grader/grader.js';
//   await load();
//   const s = new Session({ profile: 'redis-8.2' });
//   s.execute('XADD jobs 1-0 type email');   // { text: '"1-0"', ok: true, replies: ['1-0'], ... }
//
// Everything the wasm answers is JSON; this wrapper parses it so callers get plain objects.
import init, { Grader, GraderLesson } from './streamlab_grader.js';

const wasmUrl = new URL('./streamlab_grader_bg.wasm', import.meta.url);
let loading = null;

/** Loads the wasm once. `source` (bytes, URL or Response) overrides where it comes from. */
export function load(source) {
  if (!loading) {
    loading = (async () => {
      let input = source;
      if (input === undefined && wasmUrl.protocol === 'file:') {
        // Node cannot fetch file: URLs; read the file next to this module instead.
        const { readFile } = await import('node:fs/promises');
        input = await readFile(wasmUrl);
      }
      await init({ module_or_path: input ?? wasmUrl });
    })();
  }
  return loading;
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
  #inner;
  constructor({ profile, clock } = {}) {
    this.#inner = new Grader(profile, clock);
  }
  /** Runs one console line (a command, `:as NAME`, `:clock +MS`). */
  execute(line) {
    return JSON.parse(this.#inner.execute(String(line)), doubles);
  }
  /** Runs lines in order (an array, or text with one line per line). */
  run(log) {
    return lines(log).split('\n').map((line) => this.execute(line));
  }
  /** The state as the playground's pictures see it. */
  snapshot() {
    return JSON.parse(this.#inner.snapshot());
  }
  /** A command file that rebuilds this session. */
  script() {
    return this.#inner.script();
  }
  get profile() {
    return this.#inner.profile();
  }
  get now() {
    return this.#inner.now();
  }
  /** Frees the wasm memory now rather than when garbage-collected. */
  free() {
    this.#inner.free();
  }
}

/** A lesson file, parsed; checks learners' logs on any variant (0 is the lesson as written). */
export class Lesson {
  #inner;
  constructor(toml, file) {
    this.#inner = new GraderLesson(String(toml), file);
    this.info = JSON.parse(this.#inner.info());
  }
  /**
   * A reach-state task against a log. For a task that continues (`info.tasks[n].continues`),
   * `earlier` are the learner's logs of the tasks before it in its chain, first task first.
   */
  checkLog(task, log, { variant = 0, earlier } = {}) {
    const logs = earlier === undefined ? undefined : earlier.map(lines);
    return JSON.parse(this.#inner.checkLog(task, lines(log), variant, logs));
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
    return JSON.parse(this.#inner.checkAnswer(task, variant, option, options, typed, order));
  }
  checkChoice(task, option, options = {}) {
    return this.checkAnswer(task, option, options);
  }
  checkPrediction(task, answer, options = {}) {
    return this.checkAnswer(task, answer, options);
  }
  /** The lesson's option indices in the order attempt `attempt` showed them. */
  shownOrder(task, attempt) {
    return Array.from(this.#inner.shownOrder(task, attempt));
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
    this.#inner.free();
  }
}
