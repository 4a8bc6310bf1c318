// Attempt receipts from real widgets, and the gradebook that re-grades them. A lesson widget
// (every kind of task, a chain, hidden variants) is played at random, as a restless learner
// would: console lines, Check, Hint, Show solution, answers right and wrong, moving between
// tasks; its getReceipt() token, replayed by the grader in Node, must come back valid with the
// score the widget showed. Then gradebook.html, given those receipts (and an edited and a cut
// one) and the lesson file as a teacher would, shows each learner's re-graded tasks, flags the
// two, and exports the CSV. Screenshots at 1400, 1024 and 390 px; axe on the gradebook.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/receipts.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { root, serveDist, withBrowser, screenshot, axe } from './harness.mjs';

const RICH_FILE = join(root, 'tests', 'browser', 'fixtures', 'rich.toml');
const RICH = await readFile(RICH_FILE, 'utf8');
const { load, verifyReceipt, seal, openReceipt } = await import(join(root, 'dist', 'grader', 'grader.js'));
await load();

let dist;
before(async () => { dist = await serveDist(); });
after(() => dist.close());

/** A page of StreamLab's own origin with one lesson widget on `attempt`, its events kept. */
async function lessonPage(page, attempt) {
  const url = `${dist.url}test/receipts-${attempt}.html`;
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body:
    `<!doctype html><html lang="en"><title>receipts</title><script src="../embed.js"></script>
     <script>window.seen = []; for (const t of ['ready', 'progress', 'error']) document.addEventListener(t, (e) => window.seen.push([t, e.detail]));</script>
     <stream-lab id="w" mode="player" attempt="${attempt}" solution="confirm" layout="console" loading="eager"><script type="application/toml">${RICH}</script></stream-lab></html>` }));
  await page.goto(url);
  await page.waitForFunction(() => window.seen.some(([t]) => t === 'ready'));
}

/** Lines a learner might type: right, wrong, reads, clock moves, in every variant's names. */
const LINES = [
  'carol> XAUTOCLAIM jobs workers carol 55000 0-0', 'carol> XAUTOCLAIM jobs workers carol 35000 0-0',
  'cleo> XAUTOCLAIM jobs workers cleo 55000 0-0', 'carol> XAUTOCLAIM jobs workers carol 55000 0-0 COUNT 2',
  'carol> XCLAIM jobs workers carol 0 1-0', 'carol> MULTI', 'carol> XADD dead * source 3-0', 'carol> XACK jobs workers 3-0',
  'carol> XADD dead * source 4-0', 'carol> XACK jobs workers 4-0', 'cleo> MULTI', 'cleo> XADD dead * source 4-0',
  'cleo> XACK jobs workers 4-0', 'carol> EXEC', 'cleo> EXEC', 'XPENDING jobs workers', ':clock +1500',
];

/** A small seeded generator (xorshift), so a failing round can be played again. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return (n) => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) % n; };
}

/** One random step in the widget: what a learner could do next, picked at random. */
async function step(page, pick) {
  const w = page.locator('#w');
  const button = (name) => w.getByRole('button', { name, exact: true });
  const visible = async (l) => (await l.count()) > 0 && (await l.first().isVisible()) && (await l.first().isEnabled());
  const moves = [];
  if (await visible(w.locator('#console-input'))) moves.push('line', 'line', 'line');
  for (const name of ['Check', 'Hint', 'Show solution', 'Yes, show it', 'Next →', '← Previous', 'Try again']) {
    if (await visible(button(name))) moves.push(name);
  }
  if (await visible(button('Answer'))) moves.push('answer', 'answer');
  const move = moves[pick(moves.length)];
  if (move === 'line') return page.evaluate((line) => document.getElementById('w').run(line), LINES[pick(LINES.length)]);
  if (move !== 'answer') return button(move).first().click();
  const choices = w.locator('input[type=radio], input[type=checkbox]');
  const count = await choices.count();
  if (count) {
    for (let i = 0; i < count; i++) if (pick(2)) await choices.nth(i).click();
  } else if (await visible(w.locator('.typed-reply'))) {
    await w.locator('.typed-reply').fill(['(integer) 1', '(integer) 2', '1'][pick(3)]);
  } else if (await visible(w.getByLabel('A whole number'))) {
    await w.getByLabel('A whole number').fill(['1', '2', '3'][pick(3)]);
  } else if (await visible(w.getByRole('button', { name: 'Move up' }))) {
    await w.getByRole('button', { name: 'Move up' }).nth(pick(await w.getByRole('button', { name: 'Move up' }).count())).click();
  }
  if (await visible(button('Answer'))) await button('Answer').click();
}

/** The score the widget showed last (its last progress event). */
const shown = (page) => page.evaluate(() => window.seen.filter(([t]) => t === 'progress').map(([, d]) => d.score).pop() ?? 0);

const receipts = [];

test('random attempts re-grade to the score the widget showed', { timeout: 600_000 }, async () => {
  await withBrowser({ width: 1400, height: 1000 }, async (page) => {
    const solved = { 'reach-state': 0, question: 0 };
    for (let round = 0; round < 8; round++) {
      const attempt = round % 4;
      await lessonPage(page, attempt);
      const pick = rng(1800 + round);
      for (let n = 0; n < 40; n++) await step(page, pick);
      const token = await page.evaluate(() => document.getElementById('w').getReceipt());
      const check = await verifyReceipt(token, RICH);
      assert.deepEqual(check.problems, [], `round ${round}: ${await openReceipt(token)}`);
      assert.equal(check.score, await shown(page), `round ${round}`);
      assert.equal(check.variant, attempt % 3, 'the variant the attempt played');
      for (const t of check.tasks) solved[t.kind] += t.done ? 1 : 0;
      receipts.push([`learner ${round}`, token, check]);
      // Resumed in a widget of another attempt (a reload, as an LMS does it), the attempt is
      // the same one: its receipt again, but for when it was saved, and the score it showed.
      await lessonPage(page, attempt + 1);
      const resumed = await page.evaluate((t) => document.getElementById('w').resume(t), token);
      assert.deepEqual(await page.evaluate(() => window.seen.filter(([t]) => t !== 'ready').length), 1, 'one progress event, after the replay');
      assert.equal(resumed.score, check.score, `round ${round}`);
      const again = await page.evaluate(() => document.getElementById('w').getReceipt());
      const unsaved = async (t) => (await openReceipt(t)).replace(/\nsaved \d+/, '');
      assert.equal(await unsaved(again), await unsaved(token), `round ${round}: the resumed attempt's receipt`);
      assert.equal(await shown(page), check.score);
    }
    console.log(`receipts: the random learners solved ${solved['reach-state']} reach-state tasks and ${solved.question} questions`);
    assert.ok(solved['reach-state'] >= 1 && solved.question >= 2, `the random learners solved tasks of both kinds too (${JSON.stringify(solved)})`);
    assert.deepEqual(await page.evaluate(() => window.seen.filter(([t]) => t === 'error')), []);
  });
});

test('resume refuses a cut receipt and one of another lesson version, and the widget plays on', { timeout: 120_000 }, async () => {
  assert.ok(receipts.length, 'the random attempts ran first');
  const [, token, check] = receipts.reduce((best, r) => (r[2].score > best[2].score ? r : best));
  const other = await seal((await openReceipt(token)).replace(/^lesson (\S+) 1 /m, 'lesson $1 2 '));
  await withBrowser({ width: 1400, height: 1000 }, async (page) => {
    await lessonPage(page, 0);
    const refused = (t) => page.evaluate((t) => document.getElementById('w').resume(t).then(() => 'resumed', (e) => e.message), t);
    assert.match(await refused(token.slice(0, -12)), /damaged or cut short|changed or cut/);
    assert.match(await refused(other), /^this receipt is of rich-fixture version 2 in mode player: the widget plays rich-fixture version 1 in mode player$/);
    assert.match(await refused('hello'), /not a StreamLab receipt/);
    assert.equal(await refused(token), 'resumed');
    const done = check.tasks.filter((t) => t.done).length;
    assert.ok(done >= 1, 'the attempt resumed had a task done');
    await page.locator('#w').getByRole('button', { name: 'Check' }).or(page.locator('#w').getByRole('button', { name: 'Answer' })).first().waitFor();
    await screenshot(page, 'resumed-1400.png');
    assert.deepEqual(await page.evaluate(() => window.seen.filter(([t]) => t === 'error')), []);
  });
});

test('the gradebook re-grades a class, flags an edited and a cut receipt, and exports CSV', { timeout: 120_000 }, async () => {
  assert.ok(receipts.length, 'the random attempts ran first');
  const text = await openReceipt(receipts[0][1]);
  const edited = await seal(text.replace(/\nscore (\d+)/, (_, s) => `\nscore ${Number(s) + 3}`));
  const cut = receipts[1][1].slice(0, -10);
  const pasted = [...receipts.map(([name, token]) => `${name}, ${token}`), `mallory, ${edited}`, `trent, ${cut}`].join('\n');
  for (const [width, height] of [[1400, 1000], [1024, 800], [390, 844]]) {
    await withBrowser({ width, height }, async (page) => {
      await page.goto(`${dist.url}gradebook.html`);
      await page.getByLabel('Receipts').fill(pasted);
      await page.setInputFiles('#files', RICH_FILE);
      await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Lesson rich-fixture added'));
      await page.getByRole('button', { name: 'Re-grade' }).click();
      await page.waitForFunction(() => / re-graded; /.test(document.getElementById('status').textContent));
      assert.equal(await page.locator('#status').textContent(), `${receipts.length + 2} receipts re-graded; 2 not to be trusted (see why in its row).`);
      const row = (name) => page.locator('tr', { has: page.getByRole('rowheader', { name, exact: true }) });
      for (const [name, , check] of receipts) {
        assert.equal(await row(name).locator('td').nth(1).textContent(), `${check.score} / ${check.max}`);
        assert.equal(await row(name).locator('td').nth(3).textContent(), '✓ holds');
      }
      assert.match(await row('mallory').locator('td').nth(3).textContent(), /✗ not trusted.*the receipt's total/);
      // However it was cut, the token says so (its checksum, or a length no token has).
      assert.match(await row('trent').textContent(), /✗ not trusted.*cut/);
      if (width === 1400) {
        assert.deepEqual(await axe(page), []);
        const download = page.waitForEvent('download');
        await page.getByRole('button', { name: 'Export CSV' }).click();
        const csv = await readFile(await (await download).path(), 'utf8');
        const lines = csv.trim().split('\r\n');
        assert.equal(lines.length, receipts.length + 3);
        assert.match(lines[0], /^"learner","lesson","version","attempt","variant","score","max","claimed","valid","problems"/);
        assert.match(lines[1], new RegExp(`^"learner 0","rich-fixture","1","0","0","${receipts[0][2].score}","12",`));
        assert.match(lines.find((l) => l.startsWith('"mallory"')), /"false","task|"false","the receipt/);
      }
      await screenshot(page, `gradebook-${width}.png`);
    });
  }
});

test('the gradebook reads a CSV export and an LRS statements export', { timeout: 120_000 }, async () => {
  assert.ok(receipts.length >= 2, 'the random attempts ran first');
  const [[, a, checkA], [, b, checkB]] = receipts;
  const csv = `"Email","Score","Receipt"\r\n"ada@example.org","9","${a}"\r\n"bo@example.org","1","${b}"\r\n`;
  const xapi = JSON.stringify({ statements: [
    { actor: { name: 'Ada L.', mbox: 'mailto:ada@example.org' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
      result: { extensions: { 'https://course.example/xapi/extensions/receipt': a } } },
    { actor: { account: { homePage: 'https://course.example/', name: 'learner-7' } }, verb: { id: 'http://adlnet.gov/expapi/verbs/passed' },
      result: { extensions: { 'https://course.example/xapi/extensions/receipt': b } } },
    { actor: { name: 'no receipt' }, verb: { id: 'http://adlnet.gov/expapi/verbs/answered' }, result: {} },
  ] });
  await withBrowser({ width: 1400, height: 1000 }, async (page) => {
    await page.goto(`${dist.url}gradebook.html`);
    await page.setInputFiles('#files', RICH_FILE);
    for (const [input, names] of [[csv, ['ada@example.org', 'bo@example.org']], [xapi, ['Ada L.', 'learner-7']]]) {
      await page.getByLabel('Receipts').fill(input);
      await page.getByRole('button', { name: 'Re-grade' }).click();
      await page.waitForFunction(() => /^2 receipts re-graded; all of them hold\.$/.test(document.getElementById('status').textContent));
      const learners = await page.getByRole('rowheader').allInnerTexts();
      assert.deepEqual(learners, names);
      const scores = await page.locator('tbody tr td:nth-child(3)').allInnerTexts();
      assert.deepEqual(scores, [`${checkA.score} / ${checkA.max}`, `${checkB.score} / ${checkB.max}`]);
    }
  });
});
