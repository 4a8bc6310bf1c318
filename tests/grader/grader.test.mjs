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

test('a lesson re-grades a log on the variant the learner had and on hidden ones', async () => {
  const toml = await readFile(join(root, 'lessons', 'where-a-group-starts.toml'), 'utf8');
  const lesson = new Lesson(toml, 'where-a-group-starts.toml');
  assert.equal(lesson.info.id, 'where-a-group-starts');
  assert.ok(lesson.info.variants >= 2, 'the lesson has hidden variants');
  assert.deepEqual(lesson.info.tasks.slice(0, 2).map((t) => [t.kind, t.par]), [['reach-state', 1], ['reach-state', 3]]);

  const right = lesson.checkLog(0, 'XGROUP CREATE orders backfill 0');
  assert.deepEqual([right.passed, right.failures, right.commands, right.par], [true, [], 1, 1]);
  const wrong = lesson.checkLog(0, 'XGROUP CREATE orders backfill $');
  assert.equal(wrong.passed, false);
  assert.match(wrong.failures[0].message, /backfill should have 3 orders waiting for it; its lag is 0/);
  // The answer memorised from variant 0 names the wrong stream on variant 1 (orders → sales).
  assert.equal(lesson.checkLog(0, 'XGROUP CREATE orders backfill 0', { variant: 1 }).passed, false);
  assert.equal(lesson.checkLog(0, 'XGROUP CREATE sales catchup 0', { variant: 1 }).passed, true);

  const log = ['XGROUP CREATE orders live $', 'XADD orders 4-0 item sofa', 'pager> XREADGROUP GROUP live pager STREAMS orders >'];
  assert.equal(lesson.checkLog(1, log).passed, true);
  const graded = lesson.grade(log);
  assert.equal(graded.passed, false, 'one log does not pass every task');
  assert.deepEqual(graded.tasks.map((t) => [t.task, t.passed]), [[0, false], [1, true], [2, false]]);

  const predict = lesson.info.tasks.findIndex((t) => t.kind === 'predict');
  const typed = lesson.checkPrediction(predict, '(error) ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.');
  assert.equal(typed.correct, true, typed.reply);
  assert.equal(lesson.checkPrediction(predict, 'OK').correct, false);
  const choice = lesson.info.tasks.findIndex((t) => t.kind === 'choice');
  if (choice >= 0) {
    const answers = [...Array(lesson.info.tasks[choice].options).keys()].map((o) => lesson.checkChoice(choice, o));
    assert.ok(answers.some((a) => a.correct) && answers.every((a) => a.why.length > 0));
  }
  assert.throws(() => lesson.checkLog(99, ''), /no task 99/);
  assert.throws(() => new Lesson('id = "x"\nbogus = 1\n'), /lesson.toml:2:1: unknown field `bogus`/);
});
