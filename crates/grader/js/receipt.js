// Attempt receipts: what a learner did in a lesson, as text any grader can replay, sealed into
// a URL-safe token. embed.js records one from a lesson widget's events (getReceipt); grader.js
// reads one back and re-grades it (verifyReceipt). Plain ES module, browsers and Node >= 18.
//
// The text, one field a line (README, "Receipts"):
//   streamlab-receipt 1
//   lesson ID VERSION DIGEST      the lesson file's SHA-256 (line endings as \n), 16 bytes
//   attempt N / variant N / profile NAME / mode lesson|quiz|player
//   started MS / saved MS         the learner's clock (Unix ms)
//   score POINTS [MAX]            what the widget showed
//   at TASK                       the task being played (the lesson file's index)
//   task N done|open SCORE hints N solution 0|1 [finished MS]   (a task done, answered, or helped)
//     base ref | base + `| ` lines   per earlier task of its chain (reach-state tasks)
//     log + `| ` lines               the log the passing Check judged
//     answer option N | options N... | order N... | typed "JSON"   (questions)
//   live N + base/log              the task being played, as its session is now
//   end
// Console lines never hold a line break (the console quotes one), so a line is a log line.
export const HEADER = 'streamlab-receipt 1';
const PREFIX = 'SL1.';

async function through(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

/** A receipt's text as a token: "SL1." and the text zlib-deflated (its checksum catches a
 * token cut short or changed in transit), base64url-encoded. */
export async function seal(text) {
  const bytes = await through(new TextEncoder().encode(String(text)), new CompressionStream('deflate'));
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return PREFIX + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A token's text; throws with what is wrong with the token. */
export async function open(token) {
  const text = String(token ?? '').trim();
  if (!text.startsWith(PREFIX)) throw new Error('this is not a StreamLab receipt (a receipt starts with "SL1.")');
  const body = text.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body) || body.length % 4 === 1) throw new Error('the receipt has characters (or a length) no receipt has: it was changed or cut');
  const bytes = Uint8Array.from(atob(body.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await through(bytes, new DecompressionStream('deflate')));
  } catch {
    throw new Error('the receipt is damaged or cut short: its checksum does not match');
  }
}

/** A lesson file's digest: the first 16 bytes of the SHA-256 of its text, line endings as \n. */
export async function digest(text) {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(String(text).replace(/\r\n?/g, '\n'))));
  return Array.from(bytes.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The answer a `quiz-answer` event carries, as a receipt writes it. */
function answerOf(d) {
  if (d.option != null) return { option: d.option };
  if (d.options != null) return { options: d.options };
  if (d.order != null) return { order: d.order };
  return { typed: d.typed ?? '' };
}

/**
 * The receipt's text from a lesson widget's events, as embed.js keeps them: `{type, detail,
 * at}` for `ready`, `check`, `quiz-answer`, `task-complete` and `progress`, each passing
 * `check` with `session` (the wasm's `act('live')` then: the work that earned the score);
 * `live`, the current task's session now; `lessonText`, the file played; `saved`, now.
 */
export async function record(events, live, lessonText, saved) {
  const tasks = new Map();
  const task = (n) => {
    if (!tasks.has(n)) tasks.set(n, { task: n, done: false, score: 0, hints: 0, solution: false, answers: [] });
    return tasks.get(n);
  };
  let ready = null;
  let started = saved;
  let [score, max] = [0, null];
  for (const { type, detail: d, at, session } of events) {
    const t = d.lessonTask === undefined ? null : task(d.lessonTask);
    if (type === 'ready') [ready, started] = [d, at];
    else if (type === 'check' && d.passed && !t.done) Object.assign(t, { reach: true, base: session.base, log: session.log });
    else if (type === 'quiz-answer' && !t.done) t.answers.push(answerOf(d));
    else if (type === 'task-complete' && !t.done) Object.assign(t, { done: true, score: d.score, hints: d.hintsUsed, solution: d.solutionViewed, finished: at });
    else if (type === 'progress') [score, max] = [d.score, d.max];
  }
  // Hints and the solution seen in a task not finished still count when it is resumed.
  (live.hints ?? []).forEach((hints, n) => {
    const solution = live.solutions.includes(n);
    if ((hints || solution) && !task(n).done) Object.assign(task(n), { hints, solution });
  });
  if (!ready || ready.lesson == null) throw new Error('this widget plays no lesson, so it has no receipt');
  const out = [HEADER, `lesson ${ready.lesson} ${ready.version} ${await digest(lessonText)}`, `attempt ${ready.attempt}`,
    `variant ${ready.variant}`, `profile ${ready.profile}`, `mode ${ready.mode}`, `started ${started}`, `saved ${saved}`,
    `score ${score}${max == null ? '' : ` ${max}`}`, `at ${live.task}`];
  const lines = (head, log) => { out.push(head); for (const line of log ? log.split('\n') : []) out.push(`| ${line}`); };
  const session = (s) => { for (const b of s.base) b == null ? out.push('base ref') : lines('base', b); lines('log', s.log); };
  for (const t of [...tasks.values()].sort((a, b) => a.task - b.task)) {
    if (!t.done && !t.answers.length && !t.hints && !t.solution) continue;
    out.push(`task ${t.task} ${t.done ? 'done' : 'open'} ${t.score} hints ${t.hints} solution ${t.solution ? 1 : 0}${t.finished ? ` finished ${t.finished}` : ''}`);
    if (t.reach) session(t);
    for (const a of t.answers) {
      const [kind, value] = Object.entries(a)[0];
      out.push(`answer ${kind} ${kind === 'typed' ? JSON.stringify(value) : [].concat(value).join(' ')}`.trimEnd());
    }
  }
  out.push(`live ${live.task}`);
  session(live);
  out.push('end');
  return `${out.join('\n')}\n`;
}

/** Reads a receipt's text; throws naming the line that is wrong. */
export function parse(text) {
  const lines = String(text).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== HEADER) throw new Error('this is not a StreamLab receipt (or one of a newer format)');
  const r = { tasks: [], live: null };
  let last = null;
  let n = 1;
  const block = () => {
    const out = [];
    while (n < lines.length && lines[n].startsWith('| ')) out.push(lines[n++].slice(2));
    return out.join('\n');
  };
  while (n < lines.length) {
    const line = lines[n++];
    const bad = new Error(`receipt line ${n}: "${line}" is not understood`);
    const [word, ...f] = line.split(' ');
    const int = (s) => { if (!/^-?\d+$/.test(s ?? '')) throw bad; return Number(s); };
    const target = r.live ?? last;
    if (word === 'lesson' && f.length === 3) [r.lesson, r.version, r.digest] = [f[0], int(f[1]), f[2]];
    else if (['attempt', 'variant', 'started', 'saved', 'at'].includes(word) && f.length === 1) r[word] = int(f[0]);
    else if ((word === 'profile' || word === 'mode') && f.length === 1) r[word] = f[0];
    else if (word === 'score' && f.length <= 2) [r.score, r.max] = [int(f[0]), f[1] === undefined ? null : int(f[1])];
    else if (word === 'task' && !r.live && f[3] === 'hints' && f[5] === 'solution' && (f.length === 7 || (f.length === 9 && f[7] === 'finished'))) {
      last = { task: int(f[0]), done: f[1] === 'done', score: int(f[2]), hints: int(f[4]), solution: int(f[6]) === 1, finished: f[8] && int(f[8]), answers: [] };
      r.tasks.push(last);
    } else if (word === 'live' && f.length === 1) r.live = { task: int(f[0]), base: [], log: '' };
    else if (word === 'base' && target) {
      target.base ??= [];
      target.base.push(f[0] === 'ref' ? null : block());
    } else if (word === 'log' && target && f.length === 0) {
      target.base ??= [];
      target.log = block();
      target.reach = true;
    } else if (word === 'answer' && last && !r.live && !last.reach) {
      const kind = f[0];
      const rest = line.slice('answer '.length + kind.length + 1);
      if (kind === 'option') last.answers.push({ option: int(f[1]) });
      else if (kind === 'options' || kind === 'order') last.answers.push({ [kind]: f.slice(1).map(int) });
      else if (kind === 'typed') { try { last.answers.push({ typed: String(JSON.parse(rest)) }); } catch { throw bad; } }
      else throw bad;
    } else if (word === 'end' && f.length === 0 && n === lines.length) return r;
    else throw bad;
  }
  throw new Error('the receipt is cut short (its last line is missing)');
}

/** The receipt a token holds, if it resumes the lesson a widget plays (its `ready` event's
 * detail, `text` the file it played); throws saying why not. */
export async function resumable(token, ready, text) {
  if (!ready || ready.lesson == null) throw new Error('this widget plays no lesson, so it cannot resume a receipt');
  const r = parse(await open(token));
  if (r.lesson !== ready.lesson || r.version !== ready.version || r.digest !== await digest(text) || r.mode !== ready.mode) {
    throw new Error(`this receipt is of ${r.lesson} version ${r.version} in mode ${r.mode}: the widget plays ${ready.lesson} version ${ready.version} in mode ${ready.mode}${r.lesson === ready.lesson && r.version === ready.version ? ' (from another file)' : ''}`);
  }
  return r;
}

/**
 * Plays a receipt's attempt again in a fresh lesson widget `e` of its attempt (the wasm's
 * handle: `act`, `run`), so it shows the attempt as it was saved: each recorded task in the
 * file's order, then the live task. Scores are earned again by the same work, not copied.
 * `events` is the widget's record: what the replay adds is dated as the receipt dates it.
 */
export function replay(r, e, events) {
  const act = (step) => Number(e.act(step));
  const run = (log) => { for (const line of log ? log.split('\n') : []) e.run(line); };
  const hints = (want) => {
    let shown = 0;
    for (let now; shown < want && (now = act('hint')) > shown;) shown = now;
    return shown;
  };
  const play = (t, session) => {
    const before = events.length;
    // The chain a task continued: the first task with a log of its own entered afresh
    // (entering the task one is at starts it over), each next one continued into.
    const base = session.base ?? [];
    const own = base.findIndex((b) => b != null);
    const from = own < 0 ? t.task : t.task - base.length + own;
    act(`go ${from}`);
    act(`go ${from}`);
    for (let n = from; n < t.task; n++) { run(base[n - from + own]); act(`go ${n + 1}`); }
    // The ladder first; a failing Check's own hints when the learner saw more than it has.
    if (hints(t.hints) < t.hints) { act('check'); hints(t.hints); }
    if (t.solution) { act('reveal'); act('reveal'); }
    for (const a of t.answers ?? []) {
      const [kind, value] = Object.entries(a)[0];
      act(`${kind} ${[].concat(value).join(' ')}`);
    }
    run(session.log);
    if (t.reach && t.done) act('check');
    for (const x of events.slice(before)) x.at = t.finished ?? r.saved;
  };
  const live = r.tasks.find((t) => t.task === r.live.task && !t.done);
  for (const t of r.tasks) if (t !== live) play(t, t);
  play({ task: r.live.task, hints: 0, solution: false, ...live, reach: false }, r.live);
  for (const x of events) if (x.type === 'ready') x.at = r.started;
}
