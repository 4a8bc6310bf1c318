// The studio's in-place edits (web/assets/studio/edit.js) on every built-in lesson, with the
// trees the studio's own engine reads (dist/studio, built by `cargo xtask dist`): each edit
// changes only what it names, reads back as the value given, and leaves valid TOML; an edit
// undone by its inverse gives the file back byte for byte.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { Edit, at, plain, headers } = await import(join(root, 'web', 'assets', 'studio', 'edit.js'));
const studio = await import(join(root, 'dist', 'studio', 'streamlab_studio.js'));

let lessons;
before(async () => {
  await studio.default({ module_or_path: await readFile(join(root, 'dist', 'studio', 'streamlab_studio_bg.wasm')) });
  const dir = join(root, 'lessons');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.toml') && n !== 'index.toml').sort();
  lessons = await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), 'utf8')]));
});

function tree(text) {
  const read = JSON.parse(studio.tree(text));
  assert.ok(read.ok, `not TOML: ${JSON.stringify(read.broken)}\n${text}`);
  return read.tree;
}
const edit = (text) => new Edit(text, tree(text));
const changedLines = (a, b) => {
  const [x, y] = [a.split('\n'), b.split('\n')];
  return x.map((line, n) => (line === y[n] ? null : n + 1)).filter(Boolean);
};

test('setting a value changes its own text only, and reads back', () => {
  for (const [name, text] of lessons) {
    const titled = edit(text).set([], 'title', 'A "new" title\\ with é');
    assert.deepEqual(changedLines(text, titled), [3], name);
    assert.equal(plain(at(tree(titled), ['title'])), 'A "new" title\\ with é');
    const prompt = 'Two lines:\nthe second has `code` and """ quotes.';
    const prompted = edit(text).set(['task', 0], 'prompt', prompt);
    assert.equal(plain(at(tree(prompted), ['task', 0, 'prompt'])), prompt, name);
    assert.equal(JSON.parse(studio.draft(name, prompted, 0)).lesson.tasks.length, JSON.parse(studio.draft(name, text, 0)).lesson.tasks.length);
  }
});

test('a key the table lacks is added after its last key, indented like it', () => {
  for (const [name, text] of lessons) {
    const clocked = edit(text).set([], 'clock', 1_700_000_100_000);
    assert.equal(plain(at(tree(clocked), ['clock'])) ?? null, 1_700_000_100_000, name);
    assert.equal(clocked.split('\n').length, text.split('\n').length + (plain(at(tree(text), ['clock'])) === undefined ? 1 : 0), name);
    const checks = plain(at(tree(text), ['task', 0, 'check'])) ?? [];
    if (!checks.length) continue;
    const hinted = edit(text).set(['task', 0, 'check', 0], 'hint', 'Look at XPENDING.');
    assert.equal(plain(at(tree(hinted), ['task', 0, 'check', 0, 'hint'])), 'Look at XPENDING.', name);
  }
});

test('a table added and removed again gives the file back byte for byte', () => {
  for (const [name, text] of lessons) {
    const body = { kind: 'length', stream: 'x', equals: 3, message: 'It holds {actual}.' };
    const added = edit(text).add('task.check', body, ['task', 0]);
    const t = tree(added);
    const checks = plain(at(t, ['task', 0, 'check']));
    assert.deepEqual(checks.at(-1), body, name);
    assert.equal(edit(added).remove(['task', 0, 'check', checks.length - 1]), text, name);
    // A variant goes before the first task, where lessons keep them.
    const varied = edit(text).add('variant', { ids: 7 });
    const list = headers(tree(varied));
    const made = list.filter((h) => h.name === 'variant').at(-1);
    assert.ok(made.s[0] < list.find((h) => h.name === 'task').s[0], name);
    assert.equal(JSON.parse(studio.draft(name, varied, 0)).lesson.variants, JSON.parse(studio.draft(name, text, 0)).lesson.variants + 1, name);
    // A task removed takes its checks and misconceptions with it, nothing else.
    const last = (plain(at(tree(text), ['task'])) ?? []).length - 1;
    const shorter = edit(text).remove(['task', last]);
    assert.equal((plain(at(tree(shorter), ['task'])) ?? []).length, last, name);
  }
});

test('lines pushed onto an array keep the items before them as written', () => {
  for (const [name, text] of lessons) {
    const setup = plain(at(tree(text), ['setup'])) ?? [];
    const pushed = edit(text).push([], 'setup', ['XADD extra * k "a b"']);
    assert.deepEqual(plain(at(tree(pushed), ['setup'])), [...setup, 'XADD extra * k "a b"'], name);
    const start = at(tree(text), ['setup'])?.s[0] ?? 0;
    assert.equal(pushed.slice(0, start), text.slice(0, start), name);
  }
  const empty = 'id = "x"\nsetup = []\n';
  assert.equal(edit(empty).push([], 'setup', ['PING']), 'id = "x"\nsetup = ["PING"]\n');
  assert.equal(edit('id = "x"\n').push([], 'setup', ['PING']), 'id = "x"\nsetup = ["PING"]\n');
});

test('values no lesson can hold are refused, not written', () => {
  const text = lessons[0][1];
  assert.throws(() => edit(text).set([], 'minutes', 1.5), /not an integer/);
  assert.throws(() => edit(text).set([], 'title', 'lone \ud800'), /lone surrogate/);
  assert.throws(() => edit(text).set(['task', 99], 'title', 'x'), /no table task\.99/);
});

test('the edits files of other shapes need: comments between tables, no last newline, CRLF, dotted and inline tables', () => {
  // A comment right above a header opens that table: a new check goes before the next task's
  // comment, and removing a task takes its own comment and leaves the next one's.
  const commented = 'id = "x"\n\n# ---- Task 1 ----\n[[task]]\ntitle = "a"\n\n# ---- Task 2 ----\n[[task]]\ntitle = "b"\n';
  const checked = edit(commented).add('task.check', { kind: 'length' }, ['task', 0]);
  assert.equal(checked, 'id = "x"\n\n# ---- Task 1 ----\n[[task]]\ntitle = "a"\n\n  [[task.check]]\n  kind = "length"\n\n# ---- Task 2 ----\n[[task]]\ntitle = "b"\n');
  assert.equal(edit(commented).remove(['task', 0]), 'id = "x"\n\n# ---- Task 2 ----\n[[task]]\ntitle = "b"\n');
  // The last table of a file without a last newline goes whole.
  const open = 'id = "x"\n\n[[task]]\ntitle = "a"\n\n[[task]]\ntitle = "b"\nprompt = "p"';
  const cut = edit(open).remove(['task', 1]);
  assert.equal(cut, 'id = "x"\n\n[[task]]\ntitle = "a"\n\n');
  assert.deepEqual(plain(at(tree(cut), ['task'])), [{ title: 'a' }]);
  // CRLF files get CRLF lines.
  const crlf = 'id = "x"\r\nsetup = []\r\n\r\n[[task]]\r\ntitle = "a"\r\n';
  assert.equal(edit(crlf).set(['task', 0], 'prompt', 'p'), 'id = "x"\r\nsetup = []\r\n\r\n[[task]]\r\ntitle = "a"\r\nprompt = "p"\r\n');
  assert.equal(edit(crlf).add('task', { title: 'b' }), 'id = "x"\r\nsetup = []\r\n\r\n[[task]]\r\ntitle = "a"\r\n\r\n[[task]]\r\ntitle = "b"\r\n');
  // Dotted tables are refused, not corrupted; inline ones take keys, trailing comma or not.
  const dotted = 'id = "x"\nparams.a = 1\n';
  assert.throws(() => edit(dotted).set([], 'params', { a: 2 }), /written as a table of its own/);
  assert.throws(() => edit(dotted).set(['params'], 'b', 2), /written with dotted keys/);
  assert.equal(edit('p = { a = 1, }\n').set(['p'], 'b', 2), 'p = { a = 1, b = 2 }\n');
  assert.equal(edit('p = {}\n').set(['p'], 'b', 2), 'p = { b = 2 }\n');
});

test('a `#` line inside a multi-line string is not a comment opening the next table', () => {
  const text = 'id = "x"\n\n[[task]]\nprompt = """\nStep one:\n# not a comment"""\n[[task]]\ntitle = "b"\n';
  const added = edit(text).add('task.check', { kind: 'length' }, ['task', 0]);
  assert.equal(plain(at(tree(added), ['task', 0, 'prompt'])), 'Step one:\n# not a comment');
  assert.deepEqual(plain(at(tree(added), ['task', 0, 'check'])), [{ kind: 'length' }]);
  assert.equal(edit(added).remove(['task', 0, 'check', 0]), text);
  // A key written as a table (an array of tables) is not spliced over.
  assert.throws(() => edit(text).set([], 'task', []), /written as a table of its own/);
});
