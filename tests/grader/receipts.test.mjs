// Attempt receipts as a course platform re-grades them: receipts written by grader/receipt.js
// from a lesson widget's events (as embed.js keeps them), sealed into tokens, and replayed by
// grader.js's verifyReceipt against the lesson file. True receipts re-grade to their own
// score; edited, cut, foreign and other-version ones are reported, never trusted. (The
// browser test embed-receipts.test.mjs takes them from real widgets.) Needs dist/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grader = await import(join(root, 'dist', 'grader', 'grader.js'));
const { record, parse, open, digest } = await import(join(root, 'dist', 'grader', 'receipt.js'));
const { load, verifyReceipt, seal } = grader;
await load();
const RICH = await readFile(join(root, 'tests', 'browser', 'fixtures', 'rich.toml'), 'utf8');

const CLAIM = 'carol> XAUTOCLAIM jobs workers carol 55000 0-0';
const DEAD_LETTER = 'carol> MULTI\ncarol> XADD dead * source 3-0\ncarol> XACK jobs workers 3-0\ncarol> EXEC';

/** The events of attempt 0: both reach-state tasks solved (the second continuing the
 * learner's session, with a hint), a question answered wrong then right, one right at once,
 * and the learner on task 5 with nothing typed. */
function events() {
  let at = 1_700_000_000_000;
  const e = (type, detail, session = null) => ({ type, detail, at: (at += 1000), session });
  const done = (lessonTask, score, max, hintsUsed = 0) => e('task-complete', { task: lessonTask, lessonTask, score, max, hintsUsed, solutionViewed: false });
  return [
    e('ready', { mode: 'lesson', profile: 'redis-8.2', lesson: 'rich-fixture', version: 1, tasks: 8, attempt: 0, variant: 0 }),
    e('check', { lessonTask: 0, passed: false }),
    e('check', { lessonTask: 0, passed: true }, { task: 0, base: [], log: CLAIM }),
    done(0, 3, 3),
    e('progress', { score: 3, max: 12 }),
    e('check', { lessonTask: 1, passed: true }, { task: 1, base: [CLAIM], log: DEAD_LETTER }),
    done(1, 2, 3, 1),
    e('progress', { score: 5, max: 12 }),
    e('quiz-answer', { lessonTask: 2, option: 1, correct: false }),
    e('quiz-answer', { lessonTask: 2, option: 0, correct: true }),
    done(2, 0, 1),
    e('quiz-answer', { lessonTask: 4, typed: '(integer) 1', correct: true }),
    done(4, 1, 1),
    e('progress', { score: 6, max: 12 }),
  ];
}
const LIVE = { task: 5, base: [], log: '' };
const text = () => record(events(), LIVE, RICH, 1_700_000_100_000);

test('a receipt writes what the events say and reads back', async () => {
  const written = await text();
  assert.ok(written.startsWith(`streamlab-receipt 1\nlesson rich-fixture 1 ${await digest(RICH)}\nattempt 0\n`), written);
  assert.match(written, /\ntask 1 done 2 hints 1 solution 0 finished \d+\nbase\n\| carol> XAUTOCLAIM jobs workers carol 55000 0-0\nlog\n\| carol> MULTI\n/);
  assert.match(written, /\ntask 4 done 1 hints 0 solution 0 finished \d+\nanswer typed "\(integer\) 1"\nlive 5\nlog\nend\n$/);
  const r = parse(written);
  assert.deepEqual([r.lesson, r.version, r.attempt, r.variant, r.mode, r.score, r.max, r.at], ['rich-fixture', 1, 0, 0, 'lesson', 6, 12, 5]);
  assert.deepEqual(r.tasks.map((t) => [t.task, t.done, t.score]), [[0, true, 3], [1, true, 2], [2, true, 0], [4, true, 1]]);
  assert.deepEqual(r.tasks[1].base, [CLAIM]);
  assert.equal(r.tasks[1].log, DEAD_LETTER);
  assert.deepEqual(r.tasks[2].answers, [{ option: 1 }, { option: 0 }]);
  assert.deepEqual(r.live, { task: 5, base: [], log: '', reach: true });
  // A token is URL-safe and compresses the text.
  const token = await seal(written);
  assert.match(token, /^SL1\.[A-Za-z0-9_-]+$/);
  assert.ok(token.length < written.length, `${token.length} < ${written.length}`);
  assert.equal(await open(token), written);
});

test('a true receipt re-grades to the score the widget gave', async () => {
  const check = await verifyReceipt(await seal(await text()), RICH);
  assert.deepEqual(check.problems, []);
  assert.equal(check.valid, true);
  assert.deepEqual([check.score, check.max, check.claimed, check.done, check.total], [6, 12, 6, 4, 8]);
  assert.deepEqual(check.tasks.map((t) => [t.task, t.score, t.max]), [[0, 3, 3], [1, 2, 3], [2, 0, 1], [3, 0, 1], [4, 1, 1], [5, 0, 1], [6, 0, 1], [7, 0, 1]]);
  assert.equal(check.tasks[1].commands, 2);
  assert.deepEqual(check.tasks[2].failed, ['XCLAIM claims only the ids you name.']);
  // Without a lesson, what the receipt says of itself: which lesson to load.
  const self = await verifyReceipt(await seal(await text()), null);
  assert.deepEqual([self.valid, self.lesson, self.version, self.claimed], [false, 'rich-fixture', 1, 6]);
  assert.deepEqual(self.problems, ['no lesson file was given to re-grade it against']);
});

test('edited, cut, foreign and other-version receipts are reported, never trusted', async () => {
  const problems = async (edit, lesson = RICH) => (await verifyReceipt(await seal(edit(await text())), lesson)).problems;
  // An edited score: the question answered wrong first claims its point.
  assert.deepEqual(await problems((t) => t.replace('task 2 done 0', 'task 2 done 1').replace('score 6 12', 'score 7 12')),
    ['task 2: the receipt claims 1 of 1 points, its work earns 0']);
  // The same, leaving the total alone.
  assert.ok((await problems((t) => t.replace('task 2 done 0', 'task 2 done 1'))).includes("the receipt's total (6) is not the sum of its tasks' scores (7)"));
  // A log cut short no longer reaches the goal.
  const cut = await problems((t) => t.replace('| carol> EXEC\n', ''));
  assert.deepEqual(cut.slice(0, 2), ['task 1: the receipt claims 2 of 3 points, its work earns 0', 'task 1: the receipt says it is solved, the replay finds it is not']);
  // The wrong answer dropped: the right one now looks first.
  assert.deepEqual(await problems((t) => t.replace('answer option 1\n', '')), ['task 2: the receipt claims 0 of 1 points, its work earns 1']);
  // Another version, an edited file of the same version, another lesson.
  assert.deepEqual(await problems((t) => t, RICH.replace('version = 1', 'version = 2')), ['the receipt is of version 1 of the lesson, this file is version 2']);
  assert.deepEqual(await problems((t) => t, RICH.replace('has not been heard of since', 'is gone')),
    ['the lesson file differs from the one the attempt was played on (same id and version)']);
  assert.match((await problems((t) => t, RICH.replace('id = "rich-fixture"', 'id = "other"')))[0], /not "other"/);
  // A variant the attempt does not pick; a task the mode does not play; a task twice.
  assert.deepEqual(await problems((t) => t.replace('\nvariant 0\n', '\nvariant 1\n')), ['attempt 0 plays variant 0, the receipt says 1']);
  assert.ok((await problems((t) => t.replace('\nmode lesson\n', '\nmode quiz\n'))).includes('task 0 is not one this lesson plays in mode quiz'));
  // Work on another attempt's variant (attempt 1 renames the keys) earns nothing.
  const other = await problems((t) => t.replace('\nattempt 0\nvariant 0\n', '\nattempt 1\nvariant 1\n'));
  assert.ok(other.includes('task 0: the receipt claims 3 of 3 points, its work earns 0'), other.join('\n'));
});

test('damaged tokens and texts say what is wrong', async () => {
  const token = await seal(await text());
  const verdict = async (t) => (await verifyReceipt(t, RICH)).problems[0];
  assert.equal(await verdict(token.slice(0, token.length - 12)), 'the receipt is damaged or cut short: its checksum does not match');
  const flipped = token.slice(0, 40) + (token[40] === 'A' ? 'B' : 'A') + token.slice(41);
  assert.equal(await verdict(flipped), 'the receipt is damaged or cut short: its checksum does not match');
  assert.equal(await verdict('SL1.not a token'), 'the receipt has characters (or a length) no receipt has: it was changed or cut');
  assert.equal(await verdict('hello'), 'this is not a StreamLab receipt (a receipt starts with "SL1.")');
  // A text cut before its last line, sealed again (a well-formed token of a cut receipt).
  const written = await text();
  assert.equal(await verdict(await seal(written.slice(0, written.lastIndexOf('end')))), 'the receipt is cut short (its last line is missing)');
  assert.match(await verdict(await seal(written.replace('\nat 5\n', '\nat five\n'))), /^receipt line 10: "at five" is not understood$/);
  assert.match(await verdict(await seal(`${written}score 1 1\n`)), /"end" is not understood/);
});
