// The studio's panels but Record (record.js): the lesson's own fields, the tasks and their
// questions, variants with a preview of each, the play-test in the real player, and export.
// Each is drawn from the file (raw values from its tree, so a `${expr}` stays an expression
// when edited; rendered values from the draft for previews) and edits it in place.

import { S, change, fileName, flushTyping } from './studio.js';
import { at, plain } from './edit.js';
import { h, field, fill, keepFocus, rendered } from './dom.js';
import { drawRecord, setupRecord } from './record.js';

let engine = null;
const DRAW = { lesson: drawLesson, record: drawRecord, tasks: drawTasks, variants: drawVariants, play: drawPlay, export: drawExport };
const view = { variant: 0, stateTask: 0, form: {}, exported: null };

export const panels = {
  setup(deps) {
    engine = deps.engine;
    setupRecord(engine);
  },
  show(tab) {
    flushTyping();
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
    keepFocus(document.getElementById(`panel-${S.tab}`), DRAW[S.tab]);
  },
  /** A check finished: the Export panel's word on the file follows it (in place: redrawing
   * the panel would take the author's focus and what it shows). */
  checked() {
    const state = document.getElementById('export-state');
    if (state) state.replaceWith(exportState());
  },
};

/** Sets a key of the table at `path` from a field, as one undoable step; the field shows the
 * value already, so its panel is not redrawn. */
function set(path, key, value, what) {
  change((edit) => edit.set(path, key, value), what, { quiet: true });
}

/** The markdown preview of a field: the text as the player shows the lesson as written
 * (the draft read again only for a text with a `${`, which is rare). */
const md = (text) => rendered(JSON.parse(engine.markdown(text.includes('${') ? engine.prose(fileName(), S.text, text) : text)));

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
    h('p', { class: 'muted' }, 'A lesson is its setup, an intro, tasks and hidden variants. Record them in Record, word them in Tasks, and watch the problems under the file: when there are none, the file passes streamlab check.'),
    field('Id (the file is id.toml)', raw('id'), (v) => set([], 'id', v)),
    field('Title', raw('title'), (v) => set([], 'title', v)),
    field('Summary (markdown)', raw('summary'), (v) => set([], 'summary', v), { kind: 'textarea', rows: 2, preview: md }),
    field('Server profile', raw('profile'), (v) => set([], 'profile', v), { kind: 'select', options: JSON.parse(engine.profiles()) }),
    field('Minutes', raw('minutes'), (v) => set([], 'minutes', v), { kind: 'number' }),
    field('Version', raw('version'), (v) => set([], 'version', v), { kind: 'number', hint: 'Bump it when a change would invalidate saved progress.' }),
    field('Parameters (name = number, …)', Object.entries(params).map(([k, v]) => `${k} = ${v}`).join(', '), (v) => {
      const parsed = parseParams(v);
      if (typeof parsed === 'string') return S.notice(parsed, 'error');
      // Not quiet: the previews above show the parameters' values.
      change((edit) => edit.set([], 'params', parsed), 'Parameters set: use them as ${name} in lines and texts.');
    }, { hint: 'The numbers a variant may change: write ${name} where they appear.' }),
    h('h3', {}, 'Intro'),
    ...(plain(at(S.tree, ['intro'])) ?? []).map((step, n) => field(`Intro step ${n + 1} (markdown)`, step.text, (v) => set(['intro', n], 'text', v), { kind: 'textarea', preview: md })),
    h('button', { onclick: () => change((e) => e.add('intro', { text: '' }), 'Added an intro step: its demo is recorded in Record.') }, 'Add an intro step'));
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
      field('Prompt (markdown)', t.prompt, (v) => set(path, 'prompt', v), { kind: 'textarea', preview: md }),
    ];
    if (t.kind === 'reach-state') {
      parts.push(
        hintsEditor(path, t.hints ?? []),
        h('p', {}, h('strong', {}, 'Solution: '), h('code', {}, (t.solution ?? []).join(' ; ') || '(none yet: record it)')),
        list('Checks', t.check ?? [], (c) => `${c.kind}: ${c.message}`, (i) => removeTable(['task', n, 'check', i])),
        list('Misconceptions', t.misconception ?? [], (m) => `${m.path.join(' ; ')} → ${m.message}`, (i) => removeTable(['task', n, 'misconception', i])),
        h('p', { class: 'muted' }, `${(t.must_not_pass ?? []).length} must-not-pass sequence(s).`));
    } else if (t.kind === 'predict') {
      parts.push(
        h('p', {}, h('strong', {}, 'Command: '), h('code', {}, t.command)),
        h('p', {}, h('strong', {}, 'The engine prints: '), h('code', { class: 'reply' }, rendered[n]?.reply ?? '(not yet known)')),
        field('Explanation, shown once answered', t.explain, (v) => set(path, 'explain', v), { kind: 'textarea', rows: 2, preview: md }));
    } else if (t.kind === 'choice') {
      parts.push(optionsEditor(path, t));
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
  change((edit) => edit.remove(path), what);
}

function addQuestion() {
  const blank = (correct) => (correct ? { text: '', correct: true, why: '' } : { text: '', why: '' });
  change((edit) => edit.add('task', { kind: 'choice', title: 'A question', prompt: '', options: [blank(true), blank(false), blank(false)] }), 'Added a choice question: write its options and why each is right or wrong.');
}

/** A task's hints, one field each (a hint may hold line breaks): the form owns the `hints`
 * value and writes it whole, leaving out empty ones. */
function hintsEditor(path, hints) {
  const list = hints.length ? [...hints] : [''];
  const save = () => change((edit) => edit.set(path, 'hints', list.filter((x) => x.trim())), '', { quiet: true });
  const one = (i) => field(`Hint ${i + 1}`, list[i], (v) => { list[i] = v; save(); }, { kind: 'textarea', rows: 2, preview: md });
  const fields = h('div', { class: 'hint-list' }, list.map((_, i) => one(i)));
  const add = () => {
    list.push('');
    const made = one(list.length - 1);
    fields.append(made);
    made.querySelector('textarea').focus();
  };
  return h('div', { class: 'hint-editor' }, h('h4', {}, 'Hints (shown one at a time; no solution line in them)'), fields,
    h('button', { class: 'small', onclick: add }, 'Add a hint'));
}

/** A choice's options: the form owns the `options` value, written whole on each change. */
function optionsEditor(path, task) {
  const options = (task.options ?? []).map((o) => ({ ...o }));
  // Text typed into an option is saved quietly; adding, removing or marking one redraws.
  const save = (redraw = false) => change((edit) => edit.set(path, 'options', options.map((o) => (o.correct ? { text: o.text ?? '', correct: true, why: o.why ?? '' } : { text: o.text ?? '', why: o.why ?? '' }))), '', { quiet: !redraw });
  const rows = options.map((o, i) => h('li', { class: 'option' },
    field(`Option ${i + 1}`, o.text, (v) => { o.text = v; save(); }),
    h('label', {}, h('input', { type: task.multiple ? 'checkbox' : 'radio', name: `correct-${path[1]}`, checked: !!o.correct,
      onchange: (e) => { if (!task.multiple) options.forEach((x) => { x.correct = false; }); o.correct = e.target.checked; save(true); } }), ' right'),
    field(`Why option ${i + 1} is ${o.correct ? 'right' : 'wrong'}`, o.why, (v) => { o.why = v; save(); }, { preview: md }),
    h('button', { class: 'small', onclick: () => { options.splice(i, 1); save(true); } }, `Remove option ${i + 1}`)));
  return h('div', { class: 'options' }, h('h4', {}, 'Options (shown shuffled)'), h('ol', {}, rows),
    h('button', { class: 'small', onclick: () => { options.push({ text: '', why: '' }); save(true); } }, 'Add an option'));
}

function drawVariants() {
  const panel = document.getElementById('panel-variants');
  if (needLesson(panel)) return;
  const variants = plain(at(S.tree, ['variant'])) ?? [];
  const described = variants.map((v, n) => h('li', {}, `Variant ${n + 1}: ${describeVariant(v)} `, h('button', { class: 'small', onclick: () => removeTable(['variant', n]) }, 'Remove')));
  // What is typed into the form outlives the panel's redraws (a preview picked, an edit).
  const typed = (id, el) => { el.value = view.form[id] ?? el.value; el.addEventListener('input', () => { view.form[id] = el.value; }); return el; };
  const form = {
    renames: typed('renames', h('textarea', { id: 'v-renames', rows: 3, placeholder: 'orders = parcels\nalice = dana' })),
    ids: typed('ids', h('input', { id: 'v-ids', type: 'number', min: 0, value: '0' })),
    clock: typed('clock', h('input', { id: 'v-clock', type: 'number', min: 0, value: '0' })),
    params: typed('params', h('input', { id: 'v-params', placeholder: 'threshold = 90000' })),
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
    const whole = (el, what) => {
      const n = Number(el.value || 0);
      if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} is a whole number of ms, 0 or more`);
      return n || undefined;
    };
    let body;
    try {
      body = { ids: whole(form.ids, 'The id shift'), clock: whole(form.clock, 'The clock shift'),
        values: Object.keys(values).length ? values : undefined, params: Object.keys(params).length ? params : undefined };
    } catch (error) { return S.notice(error.message, 'error'); }
    if (!Object.values(body).some((v) => v !== undefined)) return S.notice('A variant must change something: names, ids, the clock or a parameter.', 'error');
    const before = view.variant;
    view.variant = variants.length + 1;
    if (change((edit) => edit.add('variant', body), `Added variant ${variants.length + 1}: its preview is below.`)) {
      view.form = {};
      drawVariants();
    } else view.variant = before;
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
      rendered.intro.map((i) => h('div', { class: 'md-preview' }, md(i.text), i.demo.length ? h('p', {}, h('code', {}, i.demo.join(' ; '))) : null)),
      tasks.map((t, n) => h('div', { class: 'md-preview' }, h('h5', {}, `${n + 1}. ${t.title}`), md(t.prompt),
        t.solution.length ? h('p', {}, 'Solution: ', h('code', {}, t.solution.join(' ; '))) : null,
        t.command ? h('p', {}, 'Command: ', h('code', {}, t.command), t.reply ? [' prints ', h('code', {}, t.reply)] : null) : null))) : null,
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
    flushTyping();
    const lab = h('stream-lab', { mode: 'player', attempt: pick.value, persist: 'none', height: '640' });
    lab.append(h('script', { type: 'application/toml' }, S.text));
    lab.addEventListener('error', (e) => S.notice(`The player says: ${e.detail?.message ?? 'the lesson could not be played'}`, 'error'));
    stage.replaceChildren(lab);
  };
  fill(panel,
    h('p', { class: 'muted' }, 'Play the lesson as a learner does, in the player the site and embeds use, on any variant: its texts as learners will read them, every task in the task list. It plays the file as it is now.'),
    h('div', { class: 'row' }, h('div', { class: 'field' }, h('label', { for: 'play-variant' }, 'Variant'), pick), h('button', { class: 'primary', onclick: play }, 'Play as a learner')),
    stage);
}

function drawExport() {
  const panel = document.getElementById('panel-export');
  if (needLesson(panel)) return;
  const base = new URL('.', location.href);
  // What was exported last stays shown when the panel is drawn again (the tab left and
  // opened), until the file changes.
  if (view.exported?.of !== S.text) view.exported = null;
  const out = h('textarea', { id: 'export-out', rows: 6, readonly: true, 'aria-label': 'Exported text', value: view.exported?.text ?? '' });
  const show = (text, what) => {
    out.value = text;
    view.exported = { of: S.text, text };
    navigator.clipboard?.writeText(text).then(() => S.notice(`${what} copied.`), () => S.notice(`${what} is below: copy it from there.`));
  };
  // Each export takes in the source's last typing first: it exports what the author sees.
  const fresh = (act) => () => { flushTyping(); return act(); };
  const download = (blob, name) => {
    const a = h('a', { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const snippet = () => {
    // The lesson goes in as a script element's text: these would end it early or hide its end.
    const breaks = S.text.match(/<\/script|<script|<!--/i);
    if (breaks) return S.notice(`The lesson holds “${breaks[0]}”, which would break the snippet's script element in a page: reword that text.`, 'error');
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
  fill(panel,
    exportState(),
    h('div', { class: 'row' },
      h('button', { class: 'primary', onclick: fresh(() => download(new Blob([S.text], { type: 'text/plain' }), fileName())) }, `Download ${fileName()}`),
      h('button', { onclick: fresh(snippet) }, 'Embed snippet'),
      h('button', { onclick: fresh(share) }, 'Share link'),
      h('button', { onclick: fresh(tutorial) }, 'Redis Insight tutorial (.zip)')),
    out,
    h('p', { class: 'muted' }, 'Check a downloaded file with streamlab check FILE.toml; put it in a lessons directory with index.toml to ship it with the site.'));
}

/** What the last check says of the file, for the Export panel. */
function exportState() {
  const state = document.getElementById('problems').dataset.state;
  if (state === 'problems') return h('p', { id: 'export-state', class: 'status error' }, 'The file still has problems (see under the source): it exports as it is, but streamlab check will refuse it.');
  if (state === 'checking') return h('p', { id: 'export-state', class: 'status' }, 'The file is being checked…');
  return h('p', { id: 'export-state', class: 'status' }, 'streamlab check passes the file (its golden trace aside).');
}
