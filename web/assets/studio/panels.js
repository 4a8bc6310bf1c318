// The studio's panels but Record (record.js): the lesson's own fields, the tasks and their
// questions, variants with a preview of each, the play-test in the real player, and export.
// Each is drawn from the file (raw values from its tree, so a `${expr}` stays an expression
// when edited; rendered values from the draft for previews) and edits it in place.

import { S, PROFILES, commit, editor, fileName } from './studio.js';
import { at, plain } from './edit.js';
import { h, field, fill } from './dom.js';
import { drawRecord, setupRecord } from './record.js';

let engine = null;
const DRAW = { lesson: drawLesson, record: drawRecord, tasks: drawTasks, variants: drawVariants, play: drawPlay, export: drawExport };
const view = { variant: 0, stateTask: 0, playing: null };

export const panels = {
  setup(deps) {
    engine = deps.engine;
    setupRecord(engine);
  },
  show(tab) {
    S.tab = tab;
    for (const t of document.querySelectorAll('[role=tab]')) {
      const on = t.id === `tab-${tab}`;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')).hidden = !on;
    }
    panels.redraw();
  },
  redraw() {
    DRAW[S.tab]();
  },
};

/** Sets a key of the table at `path`, as one undoable step. */
function set(path, key, value, what) {
  const edit = editor();
  if (edit) commit(edit.set(path, key, value), what);
}

function needLesson(panel) {
  if (S.tree) return false;
  fill(panel, h('p', { class: 'status error' }, `The file is not TOML at line ${S.broken.line}, column ${S.broken.column} (${S.broken.message}): fix it in the source to go on with the panels.`));
  return true;
}

function drawLesson() {
  const panel = document.getElementById('panel-lesson');
  if (needLesson(panel)) return;
  const raw = (key) => plain(at(S.tree, [key]));
  const params = raw('params') ?? {};
  fill(panel, 
    h('p', { class: 'muted' }, 'A lesson is its setup, an intro, tasks and hidden variants. Record them in Record, word them in Tasks, and watch the problems under the file: when there are none, the file passes `streamlab check`.'),
    field('Id (the file is id.toml)', raw('id'), (v) => set([], 'id', v)),
    field('Title', raw('title'), (v) => set([], 'title', v)),
    field('Summary (markdown)', raw('summary'), (v) => set([], 'summary', v), { kind: 'textarea', rows: 2 }),
    field('Server profile', raw('profile'), (v) => set([], 'profile', v), { kind: 'select', options: PROFILES }),
    field('Minutes', raw('minutes'), (v) => set([], 'minutes', v), { kind: 'number' }),
    field('Version', raw('version'), (v) => set([], 'version', v), { kind: 'number', hint: 'Bump it when a change would invalidate saved progress.' }),
    field('Parameters (name = number, …)', Object.entries(params).map(([k, v]) => `${k} = ${v}`).join(', '), (v) => {
      const parsed = parseParams(v);
      if (typeof parsed === 'string') return S.notice(parsed, 'error');
      set([], 'params', parsed, 'Parameters set: use them as ${name} in lines and texts.');
    }, { hint: 'The numbers a variant may change: write ${name} where they appear.' }),
    h('h3', {}, 'Intro'),
    ...(plain(at(S.tree, ['intro'])) ?? []).map((step, n) => field(`Intro step ${n + 1} (markdown)`, step.text, (v) => set(['intro', n], 'text', v), { kind: 'textarea' })),
    h('button', { onclick: () => { const e = editor(); if (e) commit(e.add('intro', { text: '' }), 'Added an intro step: its demo is recorded in Record.'); } }, 'Add an intro step'));
}

function parseParams(text) {
  const out = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = part.match(/^([a-z][a-z0-9_]*)\s*=\s*(-?\d+)$/);
    if (!m) return `“${part}” is not name = integer (lower-case name).`;
    out[m[1]] = Number(m[2]);
  }
  return out;
}

function drawTasks() {
  const panel = document.getElementById('panel-tasks');
  if (needLesson(panel)) return;
  const tasks = plain(at(S.tree, ['task'])) ?? [];
  const rendered = S.draft?.lesson?.tasks ?? [];
  const cards = tasks.map((t, n) => {
    const path = ['task', n];
    const parts = [
      h('h3', {}, `Task ${n + 1} · ${t.kind}`),
      field('Title', t.title, (v) => set(path, 'title', v)),
      field('Prompt (markdown)', t.prompt, (v) => set(path, 'prompt', v), { kind: 'textarea' }),
    ];
    if (t.kind === 'reach-state') {
      parts.push(
        field('Hints, one a line (shown one at a time)', (t.hints ?? []).join('\n'), (v) => set(path, 'hints', v.split('\n').map((s) => s.trim()).filter(Boolean)), { kind: 'textarea' }),
        h('p', {}, h('strong', {}, 'Solution: '), h('code', {}, (t.solution ?? []).join(' ; ') || '(none yet: record it)')),
        list('Checks', t.check ?? [], (c) => `${c.kind}: ${c.message}`, (i) => removeTable(['task', n, 'check', i])),
        list('Misconceptions', t.misconception ?? [], (m) => `${m.path.join(' ; ')} → ${m.message}`, (i) => removeTable(['task', n, 'misconception', i])),
        h('p', { class: 'muted' }, `${(t.must_not_pass ?? []).length} must-not-pass sequence(s).`));
    } else if (t.kind === 'predict') {
      parts.push(
        h('p', {}, h('strong', {}, 'Command: '), h('code', {}, t.command)),
        h('p', {}, h('strong', {}, 'The engine prints: '), h('code', { class: 'reply' }, rendered[n]?.reply ?? '(not yet known)')),
        field('Explanation, shown once answered', t.explain, (v) => set(path, 'explain', v), { kind: 'textarea', rows: 2 }));
    } else if (t.kind === 'choice') {
      parts.push(optionsEditor(path, t), field('Explanation', t.explain ?? '', (v) => set(path, 'explain', v), { kind: 'textarea', rows: 2 }));
    } else {
      parts.push(h('p', { class: 'muted' }, 'Its answer is edited in the file.'));
    }
    parts.push(h('button', { class: 'danger', onclick: () => removeTable(path, `Deleted task ${n + 1} (Undo brings it back).`) }, `Delete task ${n + 1}`));
    return h('article', { class: 'task-card', 'aria-label': `Task ${n + 1}` }, parts);
  });
  fill(panel, ...cards, h('div', { class: 'row' },
    h('button', { onclick: () => addQuestion() }, 'Add a choice question'),
    h('button', { onclick: () => { S.tab = 'record'; panels.show('record'); } }, 'Record a reach-state task')));
}

function list(title, items, describe, remove) {
  return h('div', { class: 'list' }, h('h4', {}, `${title} (${items.length})`),
    h('ul', {}, items.map((item, i) => h('li', {}, describe(item), ' ', h('button', { class: 'small', onclick: () => remove(i) }, 'Remove')))));
}

function removeTable(path, what = 'Removed (Undo brings it back).') {
  const edit = editor();
  if (edit) commit(edit.remove(path), what);
}

function addQuestion() {
  const edit = editor();
  if (!edit) return;
  const blank = (correct) => (correct ? { text: '', correct: true, why: '' } : { text: '', why: '' });
  commit(edit.add('task', { kind: 'choice', title: 'A question', prompt: '', options: [blank(true), blank(false), blank(false)] }), 'Added a choice question: write its options in Tasks.');
}

/** A choice's options: the form owns the `options` value, written whole on each change. */
function optionsEditor(path, task) {
  const options = (task.options ?? []).map((o) => ({ ...o }));
  const save = () => set(path, 'options', options.map((o) => (o.correct ? { text: o.text, correct: true, why: o.why } : { text: o.text, why: o.why })));
  const rows = options.map((o, i) => h('li', { class: 'option' },
    field(`Option ${i + 1}`, o.text, (v) => { o.text = v; save(); }),
    h('label', {}, h('input', { type: task.multiple ? 'checkbox' : 'radio', name: `correct-${path[1]}`, checked: !!o.correct,
      onchange: (e) => { if (!task.multiple) options.forEach((x) => { x.correct = false; }); o.correct = e.target.checked; save(); } }), ' right'),
    field(`Why option ${i + 1} is ${o.correct ? 'right' : 'wrong'}`, o.why, (v) => { o.why = v; save(); }),
    h('button', { class: 'small', onclick: () => { options.splice(i, 1); save(); } }, 'Remove')));
  return h('div', { class: 'options' }, h('h4', {}, 'Options (shown shuffled)'), h('ol', {}, rows),
    h('button', { class: 'small', onclick: () => { options.push({ text: '', why: '' }); save(); } }, 'Add an option'));
}

function drawVariants() {
  const panel = document.getElementById('panel-variants');
  if (needLesson(panel)) return;
  const variants = plain(at(S.tree, ['variant'])) ?? [];
  const described = variants.map((v, n) => h('li', {}, `Variant ${n + 1}: ${describeVariant(v)} `, h('button', { class: 'small', onclick: () => removeTable(['variant', n]) }, 'Remove')));
  const form = {
    renames: h('textarea', { id: 'v-renames', rows: 3, placeholder: 'orders = parcels\nalice = dana' }),
    ids: h('input', { id: 'v-ids', type: 'number', min: 0, value: '0' }),
    clock: h('input', { id: 'v-clock', type: 'number', min: 0, value: '0' }),
    params: h('input', { id: 'v-params', placeholder: 'threshold = 90000' }),
  };
  const add = () => {
    const values = {};
    for (const line of form.renames.value.split('\n').map((l) => l.trim()).filter(Boolean)) {
      const m = line.match(/^([A-Za-z0-9_-]+)\s*=\s*([A-Za-z0-9_-]+)$/);
      if (!m) return S.notice(`“${line}” is not a rename: write old = new (whole words).`, 'error');
      values[m[1]] = m[2];
    }
    const params = parseParams(form.params.value);
    if (typeof params === 'string') return S.notice(params, 'error');
    const body = { ids: Number(form.ids.value) || undefined, clock: Number(form.clock.value) || undefined,
      values: Object.keys(values).length ? values : undefined, params: Object.keys(params).length ? params : undefined };
    if (!Object.values(body).some((v) => v !== undefined)) return S.notice('A variant must change something: names, ids, the clock or a parameter.', 'error');
    const edit = editor();
    if (edit) commit(edit.add('variant', body), `Added variant ${variants.length + 1}: see it below.`);
    view.variant = variants.length + 1;
  };
  const labelled = (label, input, hint) => h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hint ? h('small', { class: 'muted' }, hint) : null);
  fill(panel, 
    h('p', { class: 'muted' }, 'Hidden variants stop memorised answers: each learner\'s attempt plays one. The solution as written must fail on every one of them.'),
    h('ul', { class: 'variants' }, described.length ? described : h('li', {}, 'No variant yet.')),
    h('h3', {}, 'A new variant'),
    labelled('Rename keys and names (old = new, one a line)', form.renames, 'Names are replaced in lines and checks, and in text only inside code.'),
    labelled('Shift explicit ids by (ms)', form.ids), labelled('Start the clock later by (ms)', form.clock),
    labelled('Change parameters (name = number, …)', form.params),
    h('button', { class: 'primary', onclick: add }, 'Add the variant'),
    preview(variants.length + 1));
}

function describeVariant(v) {
  const parts = [];
  if (v.values) parts.push(`renames ${Object.entries(v.values).map(([a, b]) => `${a} → ${b}`).join(', ')}`);
  if (v.ids) parts.push(`ids +${v.ids}`);
  if (v.clock) parts.push(`clock +${v.clock} ms`);
  if (v.params) parts.push(`parameters ${Object.entries(v.params).map(([a, b]) => `${a} = ${b}`).join(', ')}`);
  return parts.join('; ') || 'changes nothing';
}

/** A variant's texts and lines, and the state at a task's start in it. */
function preview(count) {
  view.variant = Math.min(view.variant, count - 1);
  const rendered = JSON.parse(engine.draft(fileName(), S.text, view.variant)).lesson;
  const pick = h('select', { id: 'v-preview', onchange: (e) => { view.variant = Number(e.target.value); drawVariants(); } },
    Array.from({ length: count }, (_, n) => h('option', { value: String(n) }, n ? `Variant ${n}` : 'As written')));
  pick.value = String(view.variant);
  const tasks = rendered?.tasks ?? [];
  view.stateTask = Math.min(view.stateTask, Math.max(0, tasks.length - 1));
  let state = [];
  if (tasks.length) {
    try {
      const r = new engine.Recorder(fileName(), S.text, String(view.stateTask), view.variant, []);
      state = JSON.parse(r.state());
      r.free();
    } catch (error) { state = [error.message]; }
  }
  const taskPick = h('select', { id: 'v-state-task', onchange: (e) => { view.stateTask = Number(e.target.value); drawVariants(); } },
    tasks.map((t, n) => h('option', { value: String(n) }, `Task ${n + 1}`)));
  taskPick.value = String(view.stateTask);
  return h('section', { class: 'variant-preview', 'aria-label': 'Variant preview' },
    h('h3', {}, 'Preview'), h('div', { class: 'field' }, h('label', { for: 'v-preview' }, 'Show'), pick),
    rendered ? h('div', { class: 'preview-text' },
      h('h4', {}, rendered.title),
      h('p', {}, h('strong', {}, 'Setup: '), h('code', {}, rendered.setup.join(' ; ') || '(none)')),
      rendered.intro.map((i) => h('p', {}, i.text, i.demo.length ? h('code', {}, ` ${i.demo.join(' ; ')}`) : null)),
      tasks.map((t, n) => h('p', {}, h('strong', {}, `${n + 1}. ${t.title}: `), t.prompt,
        t.solution.length ? h('code', {}, ` ${t.solution.join(' ; ')}`) : null, t.reply ? h('code', {}, ` → ${t.reply}`) : null))) : null,
    tasks.length ? h('div', { class: 'field' }, h('label', { for: 'v-state-task' }, 'State at the start of'), taskPick) : null,
    h('pre', { class: 'rec-state', 'aria-label': 'Variant state' }, state.join('\n')));
}

function drawPlay() {
  const panel = document.getElementById('panel-play');
  if (needLesson(panel)) return;
  const count = S.draft?.lesson?.variants ?? 1;
  const pick = h('select', { id: 'play-variant' }, Array.from({ length: count }, (_, n) => h('option', { value: String(n) }, n ? `Variant ${n}` : 'As written')));
  const stage = h('div', { class: 'play-stage' });
  const play = () => {
    const lab = h('stream-lab', { mode: 'player', attempt: pick.value, persist: 'none', height: '640' });
    lab.append(h('script', { type: 'application/toml' }, S.text));
    lab.addEventListener('error', (e) => S.notice(`The player says: ${e.detail?.message ?? 'the lesson could not be played'}`, 'error'));
    stage.replaceChildren(lab);
  };
  fill(panel, 
    h('p', { class: 'muted' }, 'Play the lesson as a learner does, in the player the site and embeds use, on any variant. It plays the file as it is now.'),
    h('div', { class: 'row' }, h('div', { class: 'field' }, h('label', { for: 'play-variant' }, 'Variant'), pick), h('button', { class: 'primary', onclick: play }, 'Play as a learner')),
    stage);
}

function drawExport() {
  const panel = document.getElementById('panel-export');
  if (needLesson(panel)) return;
  const base = new URL('.', location.href);
  const out = h('textarea', { id: 'export-out', rows: 6, readonly: true, 'aria-label': 'Exported text' });
  const show = (text, what) => {
    out.value = text;
    navigator.clipboard?.writeText(text).then(() => S.notice(`${what} copied.`), () => S.notice(`${what} is below: copy it from there.`));
  };
  const download = (blob, name) => {
    const a = h('a', { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const snippet = () => {
    if (/<\/script/i.test(S.text)) return S.notice('The lesson holds “</script”, which would end the snippet\'s script early: reword that text.', 'error');
    show(`<script src="${new URL('embed.js', base)}"></script>\n<stream-lab mode="player">\n<script type="application/toml">\n${S.text}</script>\n</stream-lab>\n`, 'The embed snippet');
  };
  const share = () => {
    const bytes = new TextEncoder().encode(S.text);
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    const data = `data:text/plain;charset=utf-8;base64,${btoa(binary)}`;
    show(`${new URL('index.html', base)}?lesson=${encodeURIComponent(data)}`, 'The share link');
  };
  const tutorial = async () => {
    const lesson = S.draft?.lesson;
    if (!lesson) return S.notice('The file has no lesson yet.', 'error');
    try {
      const { exportTutorial } = await import('./insight.js');
      download(new Blob([await exportTutorial(lesson)], { type: 'application/zip' }), `${lesson.id}-redis-insight.zip`);
      S.notice('The Redis Insight tutorial is downloaded: upload it in Redis Insight\'s Tutorials panel.');
    } catch (error) { S.notice(`The tutorial could not be made: ${error.message}`, 'error'); }
  };
  const problems = document.getElementById('problems').dataset.state === 'problems';
  fill(panel, 
    problems ? h('p', { class: 'status error' }, 'The file still has problems (see under the source): it exports as it is, but `streamlab check` will refuse it.') : null,
    h('div', { class: 'row' },
      h('button', { class: 'primary', onclick: () => download(new Blob([S.text], { type: 'text/plain' }), fileName()) }, `Download ${fileName()}`),
      h('button', { onclick: snippet }, 'Embed snippet'),
      h('button', { onclick: share }, 'Share link'),
      h('button', { onclick: tutorial }, 'Redis Insight tutorial (.zip)')),
    out,
    h('p', { class: 'muted' }, 'Check a downloaded file with `streamlab check FILE.toml`; put it in a lessons directory with `index.toml` to ship it with the site.'));
}
