// The lesson studio: a lesson file made by playing it. The file's text is the one truth:
// every panel is drawn from it (through the studio engine's tree and draft), and every panel
// edit is an edit of it in place (edit.js), so the TOML beside the panels stays editable and
// both directions meet in one undo history. The draft is kept in this browser's storage, and
// replacing it (New, Open) is one more undoable step: nothing an author wrote is lost
// without their doing it.

import init, * as engine from './streamlab_studio.js';
import { Edit, at, plain } from './edit.js';
import { h } from './dom.js';
import { panels } from './panels.js';

const STORE = 'streamlab.studio.draft';
// The TOML reader refuses more (a lesson is far smaller); refused before reading, so a
// wrong file never fills the page.
const MAX_FILE = 1 << 20;
const MAX_ZIP = 64 << 20;

const NEW = `id = "my-lesson"
version = 1
title = "My lesson"
summary = "What the learner will be able to do."
profile = "redis-8.2"
minutes = 10
setup = []
`;

const $ = (id) => document.getElementById(id);

/** The studio's state: the text, what the engine reads of it, the undo history. */
export const S = {
  text: '',
  tree: null,
  broken: null,
  draft: null,
  history: [],
  at: -1,
  tab: 'lesson',
  unsaved: false,
  notice(text, kind = 'info') {
    const n = $('notice');
    // A draft the browser would not keep is said with every notice until it keeps one.
    if (S.unsaved) [text, kind] = [`${text} This browser would not keep the draft: download it (Export) before you leave.`.trim(), 'error'];
    n.textContent = text;
    n.dataset.kind = kind;
    n.hidden = !text;
  },
};

/** The file name the validator expects for the draft's id. */
export function fileName() {
  const id = plain(S.tree && at(S.tree, ['id']));
  return typeof id === 'string' && id ? `${id}.toml` : 'lesson.toml';
}

/** The engine's reading of a text's TOML, kept for the last text read: an edit's result is
 * read once to check it, and that reading is the file's once it is committed. */
let lastRead = { text: null, read: null };
function readToml(text) {
  if (lastRead.text !== text) lastRead = { text, read: JSON.parse(engine.tree(text)) };
  return lastRead.read;
}

/** Line ends as the studio keeps them (a text box gives nothing else back). */
const lf = (text) => text.replace(/\r\n/g, '\n');

/** An editor over the current text, or null (with the reason shown) while it is not TOML. */
function editor() {
  flushTyping();
  if (!S.tree) {
    S.notice(`Fix the file first: line ${S.broken.line}, column ${S.broken.column}: ${S.broken.message}`, 'error');
    return null;
  }
  return new Edit(S.text, S.tree);
}

/** Makes `text` the lesson: one step of the undo history, saved, the panels redrawn (but
 * `quiet`: a field's own change, whose panel already shows it, is not redrawn under the
 * author's hands, so focus and the next click stay where they were). */
function commit(text, what = '', { quiet = false } = {}) {
  if (text === S.text) return;
  S.history.length = S.at + 1;
  S.history.push(text);
  S.at = S.history.length - 1;
  load(text, quiet);
  if (what) S.notice(what);
}

/** Applies an edit made with an editor over the file: refused with a message (and the panel
 * drawn again from the file) when it cannot be made or would leave the file unreadable, so
 * nothing half-done is ever committed. Returns whether it was made. */
export function change(make, what = '', options = {}) {
  try {
    const edit = editor();
    if (!edit) return false;
    const text = make(edit);
    const read = readToml(text);
    if (!read.ok) throw new Error(`it would leave the file unreadable (line ${read.broken.line}: ${read.broken.message})`);
    commit(text, what, options);
    return true;
  } catch (error) {
    S.notice(`Not changed: ${error.message}`, 'error');
    panels.redraw();
    return false;
  }
}

function load(text, quiet = false) {
  S.text = text;
  const toml = $('toml');
  if (toml.value !== text) toml.value = text;
  try {
    localStorage.setItem(STORE, text);
    S.unsaved = false;
  } catch {
    S.unsaved = true;
  }
  read();
  if (!quiet) panels.redraw();
  validateSoon();
  $('undo').disabled = S.at <= 0;
  $('redo').disabled = S.at >= S.history.length - 1;
}

/** What the engine reads of the text: its tree and the draft as written. */
function read() {
  const tree = readToml(S.text);
  S.tree = tree.ok ? tree.tree : null;
  S.broken = tree.ok ? null : tree.broken;
  S.draft = tree.ok ? JSON.parse(engine.draft(fileName(), S.text, 0)) : null;
}

let validating = null;
/** The validator runs every solution on every variant: after a pause in typing, not per key,
 * and in a worker (check-worker.js), so a long check never blocks the page. */
function validateSoon() {
  clearTimeout(validating);
  $('problems').dataset.state = 'checking';
  $('problem-count').textContent = '(checking…)';
  validating = setTimeout(validateNow, 250);
}

const check = { worker: null, asked: 0, busy: false, ticking: null };

function checker() {
  const worker = new Worker(new URL('./check-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (event) => {
    if (event.data.id !== check.asked) return;
    check.busy = false;
    clearInterval(check.ticking);
    if (event.data.error) showProblems([{ line: 0, column: 0, text: `The check could not run: ${event.data.error}` }]);
    else showProblems(event.data.result.problems);
  };
  worker.onerror = (event) => {
    // A worker that failed (its module did not load) is not asked again.
    worker.terminate();
    if (check.worker === worker) check.worker = null;
    check.busy = false;
    clearInterval(check.ticking);
    showProblems([{ line: 0, column: 0, text: `The check could not run: ${event.message ?? 'the worker stopped'}` }]);
  };
  return worker;
}

function validateNow() {
  // A check still running is of a text that is gone: ended, not waited for, and its answer
  // (were it to come) no longer the one asked for.
  const id = ++check.asked;
  clearInterval(check.ticking);
  if (check.busy) {
    check.worker.terminate();
    check.worker = null;
    check.busy = false;
  }
  if (S.broken) {
    const b = S.broken;
    return showProblems([{ line: b.line, column: b.column, text: `${fileName()}:${b.line}:${b.column}: ${b.message}` }]);
  }
  check.worker ??= checker();
  check.busy = true;
  const started = Date.now();
  // Long checks show that they are still going.
  check.ticking = setInterval(() => { $('problem-count').textContent = `(checking… ${Math.round((Date.now() - started) / 1000)} s)`; }, 1000);
  check.worker.postMessage({ id, file: fileName(), text: S.text });
}

function showProblems(found) {
  const list = $('problems');
  list.replaceChildren(...found.map((p) => h('li', {},
    p.line ? h('button', { class: 'problem', onclick: () => jumpTo(p.line, p.column) }, p.text) : h('span', { class: 'problem' }, p.text))));
  $('problem-count').textContent = found.length ? `(${found.length})` : '— none: streamlab check passes this file';
  list.dataset.state = found.length ? 'problems' : 'clean';
  panels.checked();
}

/** Puts the source's caret at a line and column (both from 1). */
function jumpTo(line, column) {
  const toml = $('toml');
  const lines = toml.value.split('\n');
  let offset = 0;
  for (let n = 0; n < Math.max(0, line - 1) && n < lines.length; n++) offset += lines[n].length + 1;
  offset += Math.max(0, column - 1);
  toml.focus();
  toml.setSelectionRange(offset, offset);
}

/** Replaces the draft (New, Open, Import): undoable like any edit, and said so. The studio
 * keeps LF line ends (a text box gives nothing else back), so a CRLF file is converted once,
 * here, and told. */
function replace(text, what) {
  const converted = lf(text) === text ? '' : ' Its CRLF line ends are LF now.';
  commit(lf(text), `${what}${converted} Undo brings back what was here before.`);
}

async function openBuiltin(id) {
  try {
    const response = await fetch(`lessons/${id}.toml`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    replace(await response.text(), `Opened the built-in lesson ${id}.`);
  } catch (error) {
    S.notice(`lessons/${id}.toml could not be fetched: ${error.message}`, 'error');
  }
}

async function openFile(file) {
  const zip = /\.zip$/i.test(file.name);
  const limit = zip ? MAX_ZIP : MAX_FILE;
  if (file.size > limit) {
    S.notice(`${file.name} is ${(file.size / 1048576).toFixed(1)} MB: a ${zip ? 'tutorial zip' : 'lesson file'} is at most ${limit >> 20} MiB. Nothing was opened.`, 'error');
    return;
  }
  try {
    if (zip) {
      // The tutorial reader is loaded the first time a zip is opened.
      const { importTutorial } = await import('./insight.js');
      const { toml, notes } = await importTutorial(new Uint8Array(await file.arrayBuffer()));
      replace(toml, `Imported the Redis Insight tutorial ${file.name} as a draft${notes.length ? ` (${notes.length} notes: ${notes.join(' ')})` : ''}.`);
    } else {
      const text = await file.text();
      if (text.includes('\u0000')) throw new Error('it is not a text file');
      replace(text, `Opened ${file.name}.`);
    }
  } catch (error) {
    S.notice(`${file.name} could not be opened: ${error.message}. Nothing was changed.`, 'error');
  }
}

async function listBuiltins() {
  const select = $('open-builtin');
  try {
    const response = await fetch('lessons/index.toml');
    const index = JSON.parse(engine.tree(await response.text()));
    for (const section of plain(at(index.tree, ['section'])) ?? []) {
      const group = h('optgroup', { label: section.title });
      for (const id of section.lessons) group.append(h('option', { value: id }, id));
      select.append(group);
    }
  } catch {
    select.disabled = true;
    select.title = 'The built-in lessons could not be listed here.';
  }
}

let typing = null;
/** What was typed in the source and not yet taken in (typing is taken in after a pause):
 * taken in now, before a panel edits the file, so the panel edits what the author sees. */
export function flushTyping() {
  clearTimeout(typing);
  const toml = $('toml');
  if (toml.value !== S.text) commit(toml.value);
}

function wire() {
  const toml = $('toml');
  toml.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(flushTyping, 300);
  });
  // Not on blur: taking the text in redraws the panels, and a redraw between the press and the
  // release of a button there would swallow its click. Panels take it in before they edit
  // (`editor`) and before another panel shows (`panels.show`).
  $('undo').onclick = () => step(-1);
  $('redo').onclick = () => step(1);
  $('new').onclick = () => replace(NEW, 'Started a new lesson.');
  $('open-builtin').onchange = (e) => { if (e.target.value) openBuiltin(e.target.value); e.target.value = ''; };
  $('open-file').onchange = (e) => { const f = e.target.files[0]; if (f) openFile(f); e.target.value = ''; };
  for (const tab of document.querySelectorAll('[role=tab]')) {
    tab.onclick = () => panels.show(tab.id.slice(4));
    // The tab list's keys (WAI-ARIA tabs): arrows move between tabs, Home and End to the ends.
    tab.onkeydown = (e) => {
      const tabs = [...document.querySelectorAll('[role=tab]')];
      const here = tabs.indexOf(tab);
      const to = { ArrowRight: here + 1, ArrowLeft: here - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (to === undefined || !tabs[to]) return;
      e.preventDefault();
      tabs[to].focus();
      tabs[to].click();
    };
  }
}

function step(by) {
  flushTyping();
  const to = S.at + by;
  if (to < 0 || to >= S.history.length) return;
  S.at = to;
  load(S.history[to]);
  S.notice(by < 0 ? 'Undone.' : 'Redone.');
}

async function start() {
  try {
    await init({ module_or_path: new URL('streamlab_studio_bg.wasm', import.meta.url) });
  } catch (error) {
    S.notice(`The studio's engine could not be loaded: ${error.message}`, 'error');
    return;
  }
  panels.setup({ engine });
  wire();
  let saved = null;
  try { saved = localStorage.getItem(STORE); } catch { /* no storage: a fresh draft */ }
  const wanted = new URLSearchParams(location.search).get('lesson');
  $('studio').hidden = false;
  S.notice('');
  // Quiet: the panel is drawn once, by show.
  commit(lf(saved ?? NEW), '', { quiet: true });
  panels.show('lesson');
  // Another tab of the studio saving its own draft replaces this one's in storage.
  window.addEventListener('storage', (e) => {
    if (e.key === STORE && e.newValue !== S.text) S.notice('The studio in another tab saved its draft over this one\'s: this tab keeps its own, and saves it again with its next change.', 'error');
  });
  if (saved) S.notice('Your draft from last time is back. New or Open replace it (Undo brings it back).');
  if (wanted && /^[a-z0-9-]+$/.test(wanted)) await openBuiltin(wanted);
  listBuiltins();
}

start();
