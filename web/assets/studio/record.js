// The Record panel: a console at a place of the lesson (its setup, its intro's demos, or a
// task's start state) whose lines go into the file as they run: the setup, the last intro
// step's demo, or the task's solution. Played as a wrong path instead, the lines stay here
// until saved as a misconception or a must-not-pass sequence, and each line tells at once
// whether the path still fails the task's checks. The checks a solution suggests come from
// the engine's comparison of the task's start state with the state now.

import { S, change, fileName } from './studio.js';
import { Edit, at, plain } from './edit.js';
import { h, fill, keepFocus } from './dom.js';

let engine = null;
const rec = {
  place: 'setup',
  // 'lesson' (lines go into the file), 'wrong' (a wrong path, kept here) or 'look' (run,
  // never recorded: looking around, or a line to make a predict quiz of).
  mode: 'lesson',
  recorder: null,
  basis: '',
  // What this visit ran, shown in the log: { line, printed, ok, before } (`before`: the
  // lines the console ran at this place before it, as written: a predict task's setup).
  log: [],
  // The lines of this visit that are not in the file (a wrong path, looking around): a
  // console started again replays them after the file's, so it stays where the log is.
  extra: [],
  proposals: null,
  message: '',
};

export function setupRecord(e) { engine = e; }

const isTask = () => rec.place !== 'setup' && rec.place !== 'intro';

/** The reach-state tasks, the places a solution or a wrong path is recorded at. */
function reachTasks() {
  return (S.draft?.lesson?.tasks ?? []).map((t, n) => ({ ...t, n })).filter((t) => t.kind === 'reach-state');
}

/** The lesson's lines a recorder at this place starts from; when they change, the console
 * starts again. */
function basisOf() {
  const l = S.draft?.lesson;
  if (!l) return '';
  return JSON.stringify([l.profile, plain(at(S.tree, ['clock'])), l.setup, l.intro.map((i) => i.demo), l.tasks.map((t) => [t.setup, t.solution, t.continues]), rec.place, rec.mode === 'wrong']);
}

/** The file's lines at the place as written (`${expr}` kept: the recorder fills them in), the
 * ones a console here runs first: a task's solution, unless a wrong path is played. */
function inFile() {
  if (!isTask() || rec.mode === 'wrong') return [];
  return plain(at(S.tree, ['task', Number(rec.place), 'solution'])) ?? [];
}

/** Starts the console at the place again: the file's lines there, then this visit's own. */
function restart() {
  rec.recorder?.free();
  rec.recorder = null;
  rec.proposals = null;
  rec.basis = basisOf();
  if (!S.draft?.lesson) return;
  try {
    rec.recorder = new engine.Recorder(fileName(), S.text, rec.place, 0, [...inFile(), ...rec.extra]);
  } catch (error) {
    S.notice(`The console could not start here: ${error.message}`, 'error');
  }
}

/** Leaves this visit's lines behind: another place, another mode, or Start over. */
function leave() {
  rec.log = [];
  rec.extra = [];
  rec.message = '';
}

/** Writes a line played at the place into the file; false when it could not be. Quiet: the
 * console already ran the line, so it stays (its basis is the file with the line). */
function record(line) {
  rec.proposals = null;
  const made = change((edit) => {
    if (rec.place === 'setup') return edit.push([], 'setup', [line]);
    if (rec.place === 'intro') {
      const steps = S.draft.lesson.intro.length;
      return steps ? edit.push(['intro', steps - 1], 'demo', [line]) : edit.add('intro', { text: '', demo: [line] });
    }
    return edit.push(['task', Number(rec.place)], 'solution', [line]);
  }, '', { quiet: true });
  if (made) rec.basis = basisOf();
  return made;
}

function run(line) {
  if (!rec.recorder) return;
  const before = [...inFile(), ...rec.extra];
  const ran = JSON.parse(rec.recorder.run(line));
  const printed = ran.refused ? [ran.refused] : ran.lines;
  rec.log.push({ line, printed, ok: ran.ok, refused: !!ran.refused, before });
  // The log is drawn anew with the panel, which a screen reader does not announce: the reply
  // is said in the page's one live region.
  document.getElementById('announce').textContent = `${line}: ${printed.join(' ') || 'nothing printed'}`;
  if (!ran.ok) {
    // An error reply may still have changed something (a transaction's other commands): the
    // console starts again without the line, as the file has it.
    if (!ran.refused) restart();
    return drawRecord();
  }
  if (rec.mode !== 'lesson') {
    rec.extra.push(line);
    return drawRecord();
  }
  // The console ran the line; if the file cannot take it, the console goes back to the file.
  if (!record(line)) restart();
  drawRecord();
}

/** A predict task from a console line: the reply its learner must give is what the engine
 * prints at that point, so at a task's place the new task starts from the lines before it
 * (the task's setup and what ran before the line, as written). At the setup or the intro the
 * task starts where every task does, after both: the notice says when that reply differs. */
function predictFrom(entry) {
  const n = isTask() ? Number(rec.place) : null;
  if (n !== null && S.draft.lesson.tasks[n]?.continues) {
    return S.notice('This task continues the one before it: a predict task made from it would start from the lesson\'s start, not from where this one is. Make the quiz at a task that does not continue, or write it in the file with continues = true after this task.', 'error');
  }
  const setup = n === null ? [] : [...(plain(at(S.tree, ['task', n, 'setup'])) ?? []), ...entry.before];
  const command = entry.line.replace(/^[A-Za-z0-9_-]+>\s*/, '');
  const made = change((edit) => edit.add('task', {
    kind: 'predict',
    title: `What ${command.split(/\s+/)[0]} prints`,
    prompt: `What does \`${command}\` print here? Type the reply.`,
    setup: setup.length ? setup : undefined,
    command: entry.line,
    explain: '',
  }));
  if (!made) return;
  const task = S.draft.lesson?.tasks.at(-1);
  const captured = entry.printed.join('\n');
  const same = task?.reply === captured ? '' : ` (not what the console showed, ${captured}: the task starts after the whole setup and intro)`;
  S.notice(`Added task ${S.draft.lesson.tasks.length}: predict what \`${command}\` prints — the engine prints ${task?.reply ?? '?'}${same}.`);
}

function addTask() {
  const n = (S.draft?.lesson?.tasks.length ?? 0) + 1;
  // Quiet: the panel is drawn once, at the new task.
  if (!change((edit) => edit.add('task', { kind: 'reach-state', title: `Task ${n}`, prompt: '', hints: [], solution: [] }), `Added task ${n}: play its solution here.`, { quiet: true })) return;
  rec.place = String(n - 1);
  rec.mode = 'lesson';
  leave();
  restart();
  drawRecord();
}

function startOver() {
  if (rec.mode === 'lesson' && rec.place !== 'intro') {
    const [path, key] = rec.place === 'setup' ? [[], 'setup'] : [['task', Number(rec.place)], 'solution'];
    if (!change((edit) => edit.set(path, key, []), 'Cleared what was recorded here (Undo brings it back).', { quiet: true })) return;
  }
  leave();
  restart();
  drawRecord();
}

function keepProposals() {
  const kept = (rec.proposals ?? []).filter((p) => p.keep);
  if (!kept.length) return S.notice('Tick the checks to keep first.', 'error');
  const task = ['task', Number(rec.place)];
  const made = change((edit) => {
    let text = edit.text;
    for (const p of kept) {
      const body = { kind: p.kind, ...Object.fromEntries(p.fields) };
      if (p.expect === 'same_as_solution') body.same_as_solution = true;
      else body[p.expect] = p.value;
      body.message = p.message;
      text = new Edit(text, JSON.parse(engine.tree(text)).tree).add('task.check', body, task);
    }
    return text;
  }, `Added ${kept.length} check${kept.length > 1 ? 's' : ''} to task ${Number(rec.place) + 1}.`);
  if (made) rec.proposals = null;
  drawRecord();
}

function saveWrong(message) {
  if (!rec.extra.length) return S.notice('Play the wrong path first.', 'error');
  const task = ['task', Number(rec.place)];
  const path = [...rec.extra];
  change((edit) => (message ? edit.add('task.misconception', { path, message }, task) : edit.push(task, 'must_not_pass', [path])),
    message ? 'Saved the misconception.' : 'Saved as a sequence that must not pass.');
}

/** Redraws the panel, starting the console again when the lesson before this place changed
 * (a line this console recorded moves its basis along: `record`). */
export function drawRecord() {
  keepFocus(document.getElementById('panel-record'), draw);
}

function draw() {
  const panel = document.getElementById('panel-record');
  if (!S.draft?.lesson) {
    fill(panel, h('p', { class: 'muted' }, 'The file has no lesson yet: see the problems under the source.'));
    return;
  }
  const tasks = reachTasks();
  if (isTask() && !tasks.some((t) => String(t.n) === rec.place)) {
    // The task played at is gone (deleted, undone): back to the setup.
    [rec.place, rec.mode] = ['setup', 'lesson'];
    leave();
  }
  if (basisOf() !== rec.basis) {
    // The lesson before this place changed (typed in the file, undone): the console starts
    // again from it, replaying this visit's own lines; the log stays.
    if (rec.recorder && rec.log.length) S.notice('The lesson changed before this place: the console started again from it, with this visit\'s lines.');
    restart();
  }
  const focused = document.activeElement?.id === 'rec-input';
  const here = isTask();
  const place = h('select', { id: 'rec-place', onchange: (e) => { rec.place = e.target.value; rec.mode = 'lesson'; leave(); restart(); drawRecord(); } },
    h('option', { value: 'setup' }, "The lesson's setup"),
    h('option', { value: 'intro' }, "The intro's demos"),
    tasks.map((t) => h('option', { value: String(t.n) }, `Task ${t.n + 1}: ${t.title}`)));
  place.value = rec.place;
  const modes = [['lesson', here ? 'the solution' : rec.place === 'setup' ? 'the setup' : 'the demo'], ...(here ? [['wrong', 'a wrong path']] : []), ['look', 'nothing (just looking)']];
  const as = h('fieldset', { class: 'rec-as' }, h('legend', {}, 'Record'),
    modes.map(([mode, label]) => h('label', {}, h('input', {
      type: 'radio', name: 'rec-as', checked: rec.mode === mode,
      onchange: () => { rec.mode = mode; leave(); restart(); drawRecord(); },
    }), ` ${label}`)));
  const log = h('ol', { class: 'rec-log', role: 'log', 'aria-label': 'What ran here' }, rec.log.map((entry) => h('li', { class: entry.ok ? 'ok' : 'error' },
    h('code', {}, `> ${entry.line}`),
    h('pre', {}, entry.printed.join('\n') || '(nothing printed)'),
    entry.ok && !entry.refused && !entry.line.startsWith(':')
      ? h('button', { class: 'small', onclick: () => predictFrom(entry) }, 'Make a predict quiz of this reply') : null,
    !entry.ok ? h('small', {}, entry.refused ? 'Not recorded.' : 'Not recorded: an error reply.') : null)));
  const input = h('input', { id: 'rec-input', autocomplete: 'off', spellcheck: 'false', placeholder: 'XADD orders * item book   ·   bob> XREADGROUP …   ·   :clock +60s' });
  const form = h('form', { class: 'rec-line', onsubmit: (e) => { e.preventDefault(); const line = input.value.trim(); if (line) { input.value = ''; run(line); document.getElementById('rec-input')?.focus(); } } },
    h('label', { for: 'rec-input' }, rec.mode === 'wrong' ? 'Wrong path line' : 'Line'), input, h('button', { class: 'primary' }, 'Run'));
  const state = rec.recorder ? JSON.parse(rec.recorder.state()) : [];
  fill(panel,
    h('div', { class: 'rec-top' },
      h('div', { class: 'field' }, h('label', { for: 'rec-place' }, 'Play at'), place), as,
      h('button', { onclick: addTask }, 'New reach-state task'),
      h('button', { onclick: startOver }, 'Start over here')),
    h('p', { class: 'muted' }, describePlace()),
    log, form,
    h('h3', {}, 'State now'), h('pre', { class: 'rec-state', 'aria-label': 'State now' }, state.join('\n')),
    here && rec.mode === 'lesson' ? proposalsView() : null,
    here && rec.mode === 'wrong' ? wrongView() : null);
  if (focused) document.getElementById('rec-input').focus();
}

function describePlace() {
  if (rec.mode === 'look') return 'Lines run here are not recorded: look around, or make a predict quiz of a reply.';
  if (rec.place === 'setup') return 'Lines run here go into the lesson\'s setup: the state every task starts from.';
  if (rec.place === 'intro') return 'Lines run here go into the last intro step\'s demo, shown with their replies before the tasks.';
  if (rec.mode === 'wrong') return 'A wrong path starts from the task\'s start state; its lines stay here until you save it.';
  return 'The console is at this task\'s start state (with its solution so far); lines run here go into its solution.';
}

function proposalsView() {
  const box = h('section', { class: 'proposals', 'aria-label': 'Proposed checks' }, h('h3', {}, 'Checks'),
    h('button', { onclick: () => { rec.proposals = JSON.parse(rec.recorder.propose()).map((p) => ({ ...p, keep: false, expect: p.key })); drawRecord(); } }, 'Propose checks from what changed'));
  if (!rec.proposals) return box;
  if (!rec.proposals.length) return box.appendChild(h('p', {}, 'Nothing changed since the task\'s start: play the solution first.')) && box;
  const rows = rec.proposals.map((p, n) => {
    const where = p.fields.map(([k, v]) => `${k} ${v}`).join(', ');
    const numeric = typeof p.value === 'number';
    const expect = h('select', { 'aria-label': `Expectation of check ${n + 1}`, onchange: (e) => { p.expect = e.target.value; } },
      // A presence (`present`) cannot be "the solution's": the lesson format refuses that.
      (numeric ? ['equals', 'at_least', 'at_most'] : [p.key]).concat(p.key === 'present' ? [] : ['same_as_solution']).map((o) => h('option', { value: o }, o.replace(/_/g, ' '))));
    expect.value = p.expect;
    const shown = typeof p.value === 'string' || numeric ? p.value : JSON.stringify(p.value);
    return h('li', { class: 'proposal' },
      h('label', {}, h('input', { type: 'checkbox', checked: p.keep, onchange: (e) => { p.keep = e.target.checked; } }),
        h('strong', {}, ` ${p.kind}`), ` ${where}: ${p.before} → ${p.after}`),
      h('div', { class: 'proposal-edit' }, expect,
        h('input', { 'aria-label': `Value of check ${n + 1}`, value: String(shown), disabled: typeof p.value === 'boolean' || Array.isArray(p.value),
          onchange: (e) => {
            const n = Number(e.target.value);
            if (numeric && !Number.isSafeInteger(n)) { e.target.value = String(p.value); return S.notice(`${e.target.value} is not a whole number: the value stays ${p.value}.`, 'error'); }
            p.value = numeric ? n : e.target.value;
          } }),
        h('input', { class: 'message', 'aria-label': `Message of check ${n + 1}`, value: p.message, onchange: (e) => { p.message = e.target.value; } })));
  });
  box.append(h('ol', { class: 'proposal-list' }, rows), h('button', { class: 'primary', onclick: keepProposals }, 'Add the ticked checks to the task'));
  return box;
}

function wrongView() {
  const task = Number(rec.place);
  const judged = rec.extra.length ? JSON.parse(engine.judge(fileName(), S.text, task, rec.extra)) : null;
  let status = 'Play the wrong path: each line is judged against the task\'s checks.';
  let kind = 'info';
  if (judged?.error) [status, kind] = [`It cannot be judged yet: ${judged.error}`, 'error'];
  else if (judged && judged.passed) [status, kind] = ['This path passes the checks: it is not a wrong path, or the checks are too loose.', 'error'];
  else if (judged) status = `This path fails the checks, as a wrong path should: ${judged.failures[0] ?? ''}${judged.misconception ? ` Check answers: “${judged.misconception}”` : ''}`;
  // What is typed here outlives the redraw after each line of the path.
  const message = h('textarea', { id: 'wrong-message', rows: 3, value: rec.message, oninput: (e) => { rec.message = e.target.value; } });
  return h('section', { class: 'wrong', 'aria-label': 'Wrong path' },
    h('h3', {}, 'Wrong path'),
    h('p', { id: 'wrong-status', class: `status ${kind}`, role: 'status' }, status),
    h('div', { class: 'field' }, h('label', { for: 'wrong-message' }, 'What Check tells a learner who did this'), message),
    h('div', { class: 'row' },
      h('button', { class: 'primary', onclick: () => (message.value.trim() ? saveWrong(message.value.trim()) : S.notice('Write the message first (or save it as a must-not-pass sequence).', 'error')) }, 'Save as a misconception'),
      h('button', { onclick: () => saveWrong('') }, 'Save as a must-not-pass sequence')));
}
