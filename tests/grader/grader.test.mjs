// The headless grader module as a course platform uses it: dist/grader/grader.js in Node,
// no browser. Needs dist/ (cargo xtask dist). Run: node --test tests/grader/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { load, Session, Lesson } = await import(join(root, 'dist', 'grader', 'grader.js'));
await load();

test('a session answers as redis-cli prints and as values', () => {
  const s = new Session({ profile: 'redis-8.2' });
  assert.equal(s.profile, 'redis-8.2');
  const added = s.execute('XADD jobs 1-0 type email');
  assert.deepEqual([added.text, added.ok, added.replies], ['"1-0"', true, ['1-0']]);
  s.execute('XGROUP CREATE jobs workers 0');
  const read = s.execute('XREADGROUP GROUP workers alice STREAMS jobs >');
  assert.equal(read.text, '1) 1) "jobs"\n   2) 1) 1) "1-0"\n         2) 1) "type"\n            2) "email"');
  assert.deepEqual(read.replies, [[['jobs', [['1-0', ['type', 'email']]]]]]);
  const pending = s.execute('XPENDING jobs workers');
  assert.deepEqual(pending.replies, [[1, '1-0', '1-0', [['alice', '1']]]]);
  const bad = s.execute('XADD jobs 1-0 type sms');
  assert.equal(bad.ok, false);
  assert.match(bad.replies[0].error, /^ERR The ID specified in XADD is equal or smaller/);
  assert.equal(s.execute('SET k v').replies[0].status, 'OK');
  assert.deepEqual(s.execute('GET missing').replies, [null]);
  const snap = s.snapshot();
  assert.equal(snap.streams[0].key, 'jobs');
  assert.equal(snap.streams[0].groups[0].consumers[0].pending[0].id, '1-0');
  assert.equal(snap.streams[0].groups[0].pending, 1);
  s.free();
});

test('connections, the clock, deliveries and scripts', () => {
  const s = new Session({ clock: 1_000_000 });
  s.run([':as bob', 'XREAD BLOCK 0 STREAMS q $', ':as default']);
  const served = s.execute('XADD q 5-0 f v');
  assert.deepEqual(served.deliveries, [{ to: 'bob', value: [['q', [['5-0', ['f', 'v']]]]] }]);
  assert.match(served.text, /^"5-0"\n\[bob\] 1\) 1\) "q"/);
  s.execute(':clock +2500');
  assert.equal(s.now, 1_002_500);
  const again = new Session({ clock: 1_000_000 });
  again.run(s.script());
  assert.deepEqual(again.snapshot(), s.snapshot());
  assert.throws(() => new Session({ profile: 'redis-6.0' }), /unknown profile/);
});

test('a batch runs in one call and answers compactly; a bounded history still answers every line', () => {
  const log = ['XADD q 1-0 f v', 'XADD q 1-0 f v', '# a note', ':clock +1500', 'XLEN q'];
  const one = new Session();
  const each = log.map((line) => one.execute(line));
  const batch = new Session();
  const ran = batch.run(log);
  assert.equal(ran.lines, 5);
  assert.deepEqual(ran.errors, [{ line: 1, text: each[1].text }]);
  assert.deepEqual(ran.last, each[4]);
  assert.deepEqual(batch.snapshot(), one.snapshot());

  const bounded = new Session({ history: 10 });
  const many = Array.from({ length: 3000 }, (_, i) => `XADD big ${i + 1}-0 f v`).join('\n');
  assert.deepEqual(bounded.run(many).errors, []);
  assert.deepEqual(bounded.execute('XLEN big').replies, [3000]);
  assert.throws(() => bounded.script(), /forgotten its first/);
});

test('a lesson re-grades a log on the variant the learner had and on hidden ones', async () => {
  // The format's fixture, which uses every kind of task and check (crates/lessons/tests/richer.rs).
  const toml = await readFile(join(root, 'crates', 'lessons', 'tests', 'fixtures', 'rich.toml'), 'utf8');
  const lesson = new Lesson(toml, 'rich.toml');
  assert.equal(lesson.info.id, 'rich');
  assert.equal(lesson.info.variants, 3);
  assert.deepEqual(lesson.info.tasks.map((t) => [t.kind, t.par, t.continues]),
    [['reach-state', 1, false], ['reach-state', 2, true], ['numeric', null, false], ['numeric', null, false],
      ['choice', null, false], ['order', null, false]]);
  assert.equal(lesson.info.tasks[4].multiple, true);

  // Looking first is free; par counts the claim only.
  const right = lesson.checkLog(0, 'carol> XPENDING jobs workers - + 10\ncarol> XAUTOCLAIM jobs workers carol 55000 0-0');
  assert.deepEqual([right.passed, right.failures, right.commands, right.par, right.misconception], [true, [], 1, 1, null]);
  // On variant 1 bob has been idle 40 s, not 60: the threshold remembered from variant 0
  // claims nothing, and the lesson says why.
  const remembered = lesson.checkLog(0, 'carol> XAUTOCLAIM jobs workers carol 55000 0-0', { variant: 1 });
  assert.equal(remembered.passed, false);
  assert.equal(remembered.failures[0].message, 'carol holds 0 of 4.');
  assert.equal(remembered.failures[0].hint, 'Claim from the start of the pending list.');
  assert.equal(remembered.misconception, 'That threshold is longer than bob has been idle.');
  assert.equal(lesson.checkLog(0, 'carol> XAUTOCLAIM jobs workers carol 35000 0-0', { variant: 1 }).passed, true);

  // Task 2 continues from task 1: from the reference solution, or from the learner's own log.
  const together = ['carol> MULTI', 'carol> XADD dead * source 3-0', 'carol> XACK jobs workers 3-0', 'carol> EXEC'];
  assert.equal(lesson.checkLog(1, together).passed, true);
  const apart = lesson.checkLog(1, ['carol> XADD dead * source 3-0', 'carol> XACK jobs workers 3-0']);
  assert.equal(apart.misconception, 'Both ran, but not in one transaction.');
  const own = lesson.checkLog(1, together, { earlier: ['carol> XAUTOCLAIM jobs workers carol 55000 0-0 COUNT 2'] });
  assert.equal(own.passed, true);
  const graded = lesson.gradeTasks(['carol> XAUTOCLAIM jobs workers carol 55000 0-0', together]);
  assert.deepEqual(graded.tasks.map((t) => [t.task, t.passed]), [[0, true], [1, true]]);
  assert.equal(lesson.grade('carol> XAUTOCLAIM jobs workers carol 55000 0-0').passed, false, 'one log does not pass every task');

  // Questions of every kind; option numbers are the lesson's, whatever order was shown.
  assert.equal(lesson.checkAnswer(2, '2').correct, true);
  assert.equal(lesson.checkAnswer(2, '1', { variant: 1 }).correct, true);
  assert.deepEqual(lesson.checkAnswer(2, '3'), { correct: false, reply: '', why: 'Not that number: look at the state again.' });
  assert.equal(lesson.checkAnswer(4, [0, 1]).correct, true);
  assert.equal(lesson.checkChoice(4, [0]).correct, false);
  assert.equal(lesson.checkAnswer(5, { order: [0, 1, 2] }).correct, true);
  assert.equal(lesson.checkAnswer(5, { order: [2, 1, 0] }).why, '1 of 3 steps are in the right place.');
  const shown = lesson.shownOrder(4, 7);
  assert.deepEqual([...shown].sort(), [0, 1, 2]);
  assert.deepEqual(lesson.shownOrder(4, 7), shown, 'the same attempt shows the same order');
  assert.notDeepEqual(lesson.shownOrder(5, 0), [0, 1, 2], 'an order task never starts solved');
  assert.throws(() => lesson.checkAnswer(4, 0), /not a multiple choice/);
  assert.throws(() => lesson.checkLog(99, ''), /no task 99/);
  assert.throws(() => new Lesson('id = "x"\nbogus = 1\n'), /lesson.toml:2:1: unknown field `bogus`/);
});

test('every lesson of the course loads in the grader', async () => {
  const index = await readFile(join(root, 'lessons', 'index.toml'), 'utf8');
  const ids = [...index.matchAll(/"([a-z0-9-]+)"/g)].map((m) => m[1]);
  assert.ok(ids.length >= 25, `${ids.length} lessons`);
  for (const id of ids) {
    const lesson = new Lesson(await readFile(join(root, 'lessons', `${id}.toml`), 'utf8'), `${id}.toml`);
    assert.equal(lesson.info.id, id);
    assert.ok(lesson.info.variants >= 2, `${id} has hidden variants`);
    lesson.free();
  }
});

test('a trap becomes an Error: that object is done for, new ones work in a fresh instance', async () => {
  const s = new Session();
  s.execute('XADD mine 1-0 f v');
  // The instance these live in, through its glue (the module grader.js imported). Taking
  // every page its memory may still grow by makes its next large allocation fail, and the wasm
  // aborts as it does when a session outgrows 4 GB, without the minutes that takes.
  const raw = (await import(join(root, 'dist', 'grader', 'streamlab_grader.js'))).initSync();
  for (let pages = 16384; pages >= 1;) {
    try { raw.memory.grow(pages); } catch { pages >>= 1; }
  }
  const big = `XADD mine * f ${'x'.repeat(16 << 20)}`;
  assert.throws(() => s.execute(big), (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError)
    && /^StreamLab grader: internal error \(.+\); this object can no longer be used, create a new one$/.test(e.message));
  assert.throws(() => s.execute('PING'), /can no longer be used/, 'the same object refuses at once, without entering the wasm');
  s.free();
  const fresh = new Session();
  assert.equal(fresh.execute('PING').text, 'PONG');
  assert.equal(fresh.execute(`SET big ${'y'.repeat(1 << 20)}`).text, 'OK', 'a fresh instance has its memory back');
  assert.throws(() => new Lesson('id = "x"\n'), /^Error: lesson.toml:1:1: missing field `version`/);
});
