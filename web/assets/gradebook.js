// The zero-server gradebook: a class's attempt receipts re-graded in this page by the grader
// module (grader/grader.js), against the lessons of this site (by id) or files the teacher
// drops. Everything read is untrusted text: it is shown with textContent only.
import { load, verifyReceipt } from './grader/grader.js';

const $ = (id) => document.getElementById(id);
const TOKEN = /SL1\.[A-Za-z0-9_-]+/g;
/** Lesson files dropped, by id. */
const dropped = new Map();
let rows = [];

/** The learner an xAPI statement's actor names. */
function actorName(actor) {
  if (!actor || typeof actor !== 'object') return '';
  return String(actor.name || actor.mbox || (actor.account && actor.account.name) || '').replace(/^mailto:/, '');
}

/** [learner, token] pairs from pasted or dropped text: an xAPI export, a CSV with a receipt
 * column, or lines holding a token (the text before it names the learner). */
function receiptsIn(text) {
  const found = [];
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json;
    try { json = JSON.parse(trimmed); } catch { json = null; }
    if (json) {
      const statements = Array.isArray(json) ? json : Array.isArray(json.statements) ? json.statements : [json];
      for (const s of statements) {
        const extensions = (s && s.result && s.result.extensions) || {};
        for (const [key, value] of Object.entries(extensions)) {
          if (key.endsWith('/receipt') && typeof value === 'string') found.push([actorName(s.actor), value]);
        }
      }
      return found;
    }
  }
  const lines = trimmed.split(/\r?\n/);
  const header = lines[0] ? lines[0].split(/[,;\t]/).map((c) => c.trim().replace(/^"|"$/g, '').toLowerCase()) : [];
  const nameColumn = header.findIndex((c) => /^(learner|name|student|email|user)/.test(c));
  for (const [n, line] of lines.entries()) {
    const tokens = line.match(TOKEN) || [];
    for (const token of tokens) {
      let learner;
      if (nameColumn >= 0 && n > 0) learner = (line.split(/[,;\t]/)[nameColumn] || '').trim().replace(/^"|"$/g, '');
      else learner = line.slice(0, line.indexOf(token)).replace(/[\s,;:\t"]+$/, '').replace(/^"/, '').trim();
      found.push([learner, token]);
    }
  }
  return found;
}

const lessonTexts = new Map();
/** A lesson's file: dropped, or this site's own by id. */
async function lessonText(id) {
  if (dropped.has(id)) return dropped.get(id);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(id || '')) return null;
  if (!lessonTexts.has(id)) {
    lessonTexts.set(id, fetch(new URL(`lessons/${id}.toml`, location.href)).then((r) => (r.ok ? r.text() : null)).catch(() => null));
  }
  return lessonTexts.get(id);
}

async function addFiles(files) {
  let text = '';
  for (const file of files) {
    const content = await file.text();
    if (/\.toml$/i.test(file.name)) {
      const id = (content.match(/^id\s*=\s*"([^"]+)"/m) || [])[1];
      if (id) dropped.set(id, content);
      $('status').textContent = id ? `Lesson ${id} added.` : `${file.name}: no lesson id found in it.`;
    } else {
      text += `${content}\n`;
    }
  }
  if (text) $('receipts').value += ($('receipts').value && !$('receipts').value.endsWith('\n') ? '\n' : '') + text;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** Re-grades every receipt, showing progress, then one table per lesson. */
async function regrade() {
  const pairs = receiptsIn($('receipts').value);
  const seen = new Set();
  const unique = pairs.filter(([, token]) => !seen.has(token) && seen.add(token));
  $('results').replaceChildren();
  $('export').disabled = true;
  if (!unique.length) {
    $('status').textContent = 'No receipts found: a receipt starts with "SL1.".';
    return;
  }
  await load();
  rows = [];
  for (const [n, [learner, token]] of unique.entries()) {
    $('status').textContent = `Re-grading ${n + 1} of ${unique.length}…`;
    const own = await verifyReceipt(token, null);
    const text = own.lesson ? await lessonText(own.lesson) : null;
    const check = text ? await verifyReceipt(token, text) : own;
    if (own.lesson && !text) check.problems = [`the lesson "${own.lesson}" is not on this site: drop its .toml file here`];
    rows.push({ learner: learner || `Learner ${n + 1}`, check });
  }
  const invalid = rows.filter((r) => !r.check.valid).length;
  $('status').textContent = `${rows.length} receipt${rows.length === 1 ? '' : 's'} re-graded; ${invalid ? `${invalid} not to be trusted (see why in its row)` : 'all of them hold'}.`;
  render();
  $('export').disabled = false;
}

function render() {
  const byLesson = new Map();
  for (const row of rows) {
    const key = row.check.lesson ? `${row.check.lesson} (version ${row.check.version})` : 'Unreadable receipts';
    if (!byLesson.has(key)) byLesson.set(key, []);
    byLesson.get(key).push(row);
  }
  for (const [title, group] of byLesson) {
    const tasks = Math.max(0, ...group.map((r) => r.check.tasks.length));
    const taskIds = group.find((r) => r.check.tasks.length === tasks)?.check.tasks.map((t) => t.task) ?? [];
    const table = el('table');
    table.append(el('caption', title));
    const head = el('tr');
    for (const name of ['Learner', 'Variant', 'Score', 'Claimed', 'Receipt', ...taskIds.map((t) => `Task ${t + 1}`)]) {
      const th = el('th', name);
      th.scope = 'col';
      head.append(th);
    }
    table.append(el('thead'));
    table.tHead.append(head);
    const body = el('tbody');
    for (const { learner, check } of group) {
      const tr = el('tr');
      const th = el('th', learner);
      th.scope = 'row';
      tr.append(th);
      tr.append(el('td', check.variant === undefined ? '' : check.variant === 0 ? '0 (as written)' : `${check.variant} (hidden)`));
      tr.append(el('td', check.max ? `${check.score} / ${check.max}` : '', 'num'));
      tr.append(el('td', check.claimed === undefined ? '' : `${check.claimed}`, 'num'));
      const verdict = el('td', check.valid ? '✓ holds' : '✗ not trusted', check.valid ? 'ok' : 'bad');
      if (!check.valid) {
        const list = el('ul', undefined, 'problems');
        for (const p of check.problems) list.append(el('li', p));
        verdict.append(list);
      }
      tr.append(verdict);
      for (const id of taskIds) {
        const t = check.tasks.find((x) => x.task === id);
        const cell = el('td', t ? `${t.score} / ${t.max}` : '—', 'num');
        if (t && t.failed.length) cell.title = t.failed.join('\n');
        tr.append(cell);
      }
      body.append(tr);
    }
    table.append(body);
    // A region that scrolls sideways on narrow screens: focusable, so keys scroll it too.
    const wrap = el('div', undefined, 'table');
    wrap.tabIndex = 0;
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-label', title);
    wrap.append(table);
    $('results').append(wrap);
  }
}

/** A CSV cell: quoted, and a leading = + - @ made text, so a spreadsheet never runs it. */
function cell(value) {
  let text = String(value ?? '');
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

function exportCsv() {
  const tasks = Math.max(0, ...rows.map((r) => r.check.tasks.length));
  const header = ['learner', 'lesson', 'version', 'attempt', 'variant', 'score', 'max', 'claimed', 'valid', 'problems', 'started', 'saved'];
  for (let t = 0; t < tasks; t++) header.push(`task ${t + 1}`);
  const lines = [header.map(cell).join(',')];
  for (const { learner, check: c } of rows) {
    const values = [learner, c.lesson, c.version, c.attempt, c.variant, c.score, c.max, c.claimed, c.valid, c.problems.join('; '),
      c.started && new Date(c.started).toISOString(), c.saved && new Date(c.saved).toISOString()];
    for (let t = 0; t < tasks; t++) values.push(c.tasks[t] ? c.tasks[t].score : '');
    lines.push(values.map(cell).join(','));
  }
  const link = el('a');
  link.href = URL.createObjectURL(new Blob([`${lines.join('\r\n')}\r\n`], { type: 'text/csv' }));
  link.download = 'streamlab-gradebook.csv';
  document.body.append(link);
  link.click();
  link.remove();
}

$('input').addEventListener('submit', (event) => {
  event.preventDefault();
  regrade().catch((error) => { $('status').textContent = `The gradebook stopped: ${error.message}`; });
});
$('export').addEventListener('click', exportCsv);
$('files').addEventListener('change', () => addFiles($('files').files));
const drop = $('drop');
drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  addFiles(event.dataTransfer.files);
});
