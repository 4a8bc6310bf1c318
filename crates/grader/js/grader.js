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
import { open, parse, digest } from './receipt.js';

export { seal, open as openReceipt, parse as parseReceipt } from './receipt.js';

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
   * `earlier` are the learner's logs of the tasks before it in its chain, first task first
   * (`null` for one the learner started from the reference solutions).
   */
  checkLog(task, log, { variant = 0, earlier } = {}) {
    const logs = earlier === undefined ? undefined : earlier.map((l) => (l == null ? '' : lines(l)));
    const solved = earlier === undefined ? undefined : Uint32Array.from(earlier.flatMap((l, n) => (l == null ? [n] : [])));
    return JSON.parse(this.#call((l) => l.checkLog(task, lines(log), variant, logs, solved)));
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

/** The player's score rules, from the wasm (one copy): a solved reach-state task, and a
 * question answered right after `wrong` wrong tries. */
export function taskScore(commands, par, hints, solutionViewed) {
  const own = owner((g) => g);
  return guarded(own, () => own.glue.taskScore(commands, par, hints, !!solutionViewed));
}
export function questionScore(wrong, solutionViewed) {
  const own = owner((g) => g);
  return guarded(own, () => own.glue.questionScore(wrong, !!solutionViewed));
}

/**
 * Replays an attempt receipt (a `getReceipt()` token) against the lesson file it was played
 * on and re-derives every score: `{ valid, problems, score, max, tasks, ... }`. A token that
 * is damaged, of another lesson, version or file, on a variant its attempt does not pick, or
 * whose scores its work does not earn, comes back `valid: false` with the reasons in
 * `problems`; a bad receipt never throws. With `null` for the lesson, only what the receipt
 * says of itself (which lesson to load). Only solved tasks score: work not checked (or
 * answered right) in the browser earns nothing there either.
 */
export async function verifyReceipt(receipt, lessonToml) {
  const problems = [];
  let r;
  try {
    r = parse(await open(receipt));
  } catch (error) {
    return { valid: false, problems: [error.message], tasks: [] };
  }
  const out = {
    valid: false, problems, lesson: r.lesson, version: r.version, attempt: r.attempt, variant: r.variant,
    profile: r.profile, mode: r.mode, started: r.started, saved: r.saved, claimed: r.score, claimedMax: r.max, tasks: [],
  };
  if (lessonToml == null) {
    problems.push('no lesson file was given to re-grade it against');
    return out;
  }
  let lesson;
  try {
    lesson = new Lesson(lessonToml);
  } catch (error) {
    problems.push(`the lesson file does not parse (${error.message.split('\n')[0]})`);
    return out;
  }
  try {
    regrade(r, lesson, await digest(lessonToml), out);
  } finally {
    lesson.free();
  }
  out.valid = problems.length === 0;
  return out;
}

function regrade(r, lesson, fileDigest, out) {
  const { info } = lesson;
  const problems = out.problems;
  if (r.lesson !== info.id) problems.push(`the receipt is of lesson "${r.lesson}", not "${info.id}"`);
  else if (r.version !== info.version) problems.push(`the receipt is of version ${r.version} of the lesson, this file is version ${info.version}`);
  else if (r.digest !== fileDigest) problems.push('the lesson file differs from the one the attempt was played on (same id and version)');
  const variant = r.attempt % Math.max(1, info.variants);
  if (r.variant !== variant) problems.push(`attempt ${r.attempt} plays variant ${variant}, the receipt says ${r.variant}`);
  out.variant = variant;
  if (r.profile !== info.profile) problems.push(`the lesson plays on ${info.profile}, the receipt says ${r.profile}`);
  if (!['lesson', 'player', 'quiz'].includes(r.mode)) problems.push(`unknown mode "${r.mode}"`);
  if (r.saved < r.started) problems.push('the receipt was saved before the attempt started');
  const played = info.tasks.map((t, n) => n).filter((n) => r.mode !== 'quiz' || info.tasks[n].kind !== 'reach-state');
  r.tasks.forEach((t, i) => {
    if (!played.includes(t.task)) problems.push(`task ${t.task} is not one this lesson plays in mode ${r.mode}`);
    else if (r.tasks.findIndex((u) => u.task === t.task) !== i) problems.push(`task ${t.task} is recorded twice`);
  });
  let score = 0;
  let max = 0;
  let done = 0;
  for (const n of played) {
    const t = r.tasks.find((u) => u.task === n);
    const graded = grade(lesson, n, variant, t);
    if (graded.claimed !== graded.score) problems.push(`task ${n}: the receipt claims ${graded.claimed} of ${graded.max} points, its work earns ${graded.score}`);
    if (t && t.done && !graded.done) problems.push(`task ${n}: the receipt says it is solved, the replay finds it is not`);
    score += graded.score;
    max += graded.max;
    done += graded.done ? 1 : 0;
    out.tasks.push(graded);
  }
  const claimed = r.tasks.reduce((sum, t) => sum + t.score, 0);
  if (r.score !== claimed) problems.push(`the receipt's total (${r.score}) is not the sum of its tasks' scores (${claimed})`);
  if (r.max != null && r.max !== max) problems.push(`the receipt's maximum is ${r.max}, the lesson's tasks score at most ${max}`);
  Object.assign(out, { score, max, done, total: played.length });
}

/** One task re-graded from its record (none: not attempted). */
function grade(lesson, n, variant, t) {
  const kind = lesson.info.tasks[n].kind === 'reach-state' ? 'reach-state' : 'question';
  const g = { task: n, kind, done: false, score: 0, max: lesson.info.tasks[n].max, claimed: t ? t.score : 0,
    hintsUsed: t ? t.hints : 0, solutionViewed: !!(t && t.solution), commands: 0, failed: [] };
  if (!t || !t.done) return g;
  if (kind === 'reach-state') {
    if (!t.reach) return { ...g, failed: ['the record holds no log'] };
    try {
      const v = lesson.checkLog(n, t.log, { variant, earlier: t.base.length ? t.base : undefined });
      Object.assign(g, { done: v.passed, commands: v.commands, failed: v.failures.map((f) => f.message) });
      if (v.passed) g.score = taskScore(v.commands, v.par, t.hints, t.solution);
    } catch (error) {
      g.failed.push(error.message);
    }
    return g;
  }
  let wrong = 0;
  for (const a of t.answers) {
    const answer = 'option' in a ? a.option : 'options' in a ? a.options : 'order' in a ? { order: a.order } : a.typed;
    let answered;
    try {
      answered = lesson.checkAnswer(n, answer, { variant });
    } catch (error) {
      g.failed.push(error.message);
      continue;
    }
    if (answered.correct) {
      Object.assign(g, { done: true, score: questionScore(wrong, t.solution) });
      break;
    }
    wrong++;
    g.failed.push(answered.why);
  }
  return g;
}
