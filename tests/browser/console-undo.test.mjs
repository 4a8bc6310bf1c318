// The console as a learner uses it (ux-review M2, M3, H3, L1): `name> COMMAND` in the sandbox
// and in an embedded lesson, undo marking the lines it takes back, typing at an earlier step
// setting the later ones aside (and bringing them back), a connection opened within its first
// command's step, a blocked connection refusing what is typed on it, the waiting notices, QUIT.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/console-undo.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, withPage, withBrowser, type, runAll, lastEntry, screenshot, axe } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server.close(); });

const undo = (page) => page.click('button[aria-label="Undo the last step"]');
const position = (page) => page.locator('.timeline .position').innerText();
/** The scrollback's entries: their marks ('' when current) and first lines. */
const entries = (page) => page.locator('.log .log-item').evaluateAll((items) => items.map((item) => ({
  mark: item.classList.contains('undone') ? 'undone' : item.classList.contains('aside') ? 'aside' : '',
  text: item.querySelector('.in').textContent,
})));

// The reviewer's session behind screenshots 07-09: five jobs, two reads, an ack, a clock move.
const SESSION = [
  'XGROUP CREATE jobs workers $ MKSTREAM',
  'XADD jobs 1-0 type email',
  'XADD jobs 2-0 type sms',
  'XADD jobs 3-0 type push',
  'XADD jobs 4-0 type email',
  'XADD jobs 5-0 type sms',
  'bob> XREADGROUP GROUP workers bob COUNT 1 STREAMS jobs >',
  'alice> XREADGROUP GROUP workers alice COUNT 2 STREAMS jobs >',
  'XACK jobs workers 2-0',
  ':clock +1000',
];

test('undone lines are marked, typing in the past sets later steps aside, and they come back', async () => {
  await withPage(server.url, {}, async (page) => {
    await runAll(page, SESSION);
    assert.equal(await position(page), '10/10');
    // `bob> ` ran on bob as one step, and the console follows the prompt to its tab.
    assert.match((await entries(page))[6].text, /^bob> XREADGROUP/);
    for (let i = 0; i < 3; i++) await undo(page);
    assert.equal(await position(page), '7/10');
    const marked = await entries(page);
    assert.deepEqual(marked.map((e) => e.mark), ['', '', '', '', '', '', '', 'undone', 'undone', 'undone']);
    // In words too, for a screen reader: the mark's text says what it is and how to undo it.
    assert.equal(await page.locator('.log .log-item.undone .step-mark').first().textContent(), 'undone: Redo brings it back');
    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'console-undone-1400.png', { fullPage: false });

    // The scrubber to step 5, then a command: steps 6-10 are set aside, and the console says so.
    await page.locator('.scrub input').fill('5');
    await type(page, 'XLEN jobs');
    assert.match(await lastEntry(page), /\(integer\) 4\n\(what was undone after step 5 is set aside, not lost: :branch 1 brings it back\)/);
    assert.equal(await position(page), '6/6');
    assert.deepEqual((await entries(page)).map((e) => e.mark),
      ['', '', '', '', '', 'aside', 'aside', 'aside', 'aside', 'aside', '']);
    const set = page.locator('.timeline .branches li');
    assert.match(await set.innerText(), /^What was undone after step 5 is set aside\s+Bring it back$/);
    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'console-set-aside-1400.png', { fullPage: false });

    // Bringing them back: the state after step 10 again, and the XLEN is set aside instead.
    await set.locator('button').click();
    assert.equal(await position(page), '10/10');
    assert.match(await page.locator(".pictures").innerText(), /last-delivered-id 3-0\nentries-read 3\nlag 2\npending 2/);
    assert.deepEqual((await entries(page)).map((e) => e.mark).slice(5, 11), ['', '', '', '', '', 'aside']);
    assert.match(await set.innerText(), /^What was undone after step 5 is set aside\s+Bring it back$/);
    // The console's own command does the same, back and forth.
    await type(page, ':branch');
    assert.match(await lastEntry(page), /back to step 6; what followed step 5 is set aside/);
    assert.equal(await position(page), '6/6');
    assert.match(await page.locator('.timeline .branches li').innerText(), /^What was undone after step 5 is set aside/);
  });
});

test('a connection opens within its first command: one undo takes both back', async () => {
  await withPage(server.url, {}, async (page) => {
    await runAll(page, ['XGROUP CREATE s g 0 MKSTREAM', ':as b3']);
    assert.equal(await position(page), '1/1', ':as alone is no step');
    assert.equal(await page.locator('.tabs .tab.selected').innerText(), 'b3');
    await type(page, 'XGROUP SETID s g 1-0');
    assert.equal(await position(page), '2/2');
    await undo(page);
    assert.equal(await position(page), '1/2');
    assert.match((await entries(page)).at(-1).mark, /undone/);
    // The tab stays; its next command opens the connection again, in its own step.
    await type(page, 'CLIENT ID');
    assert.equal(await position(page), '2/2');
    assert.equal(await page.locator('.tabs .tab:not(.add)').count(), 3);
  });
});

test('a waiting connection refuses lines, its notice says how long it waits, and QUIT closes a tab', async () => {
  await withPage(server.url, {}, async (page) => {
    await runAll(page, ['XADD s 1-0 f v', 'XGROUP CREATE s g $', 'XREADGROUP GROUP g c BLOCK 0 STREAMS s >']);
    const waiting = page.locator('.log .waiting');
    assert.equal(await waiting.innerText(), 'alice is waiting until another connection adds data for it: BLOCK 0 has no timeout');
    // Screenshot 19: XLEN typed on the blocked tab. It is refused, and the notice stays with the read.
    await type(page, 'XLEN s');
    assert.match(await lastEntry(page), /^alice> XLEN s\n\(refused\) alice is waiting for XREADGROUP GROUP g c BLOCK 0 STREAMS s >; nothing else runs on it/);
    const items = page.locator('.log .log-item');
    assert.equal(await items.nth(2).locator('.waiting').count(), 1);
    assert.equal(await items.nth(3).locator('.waiting, .served').count(), 0);
    assert.equal(await position(page), '3/3');
    await screenshot(page, 'console-blocked-1400.png', { fullPage: false });
    // `:as bob` typed there is a switch, not a line that waited.
    await type(page, ':as bob');
    assert.equal(await items.last().locator('.waiting, .served').count(), 0);
    await type(page, 'XADD s 2-0 f v');
    assert.match(await lastEntry(page), /\[alice\] 1\) 1\) "s"/);
    // A timed wait names its timeout.
    await type(page, 'XREAD BLOCK 2000 STREAMS s $');
    assert.equal(await waiting.innerText(),
      'bob is waiting: served when another connection adds data, or with nil when its timeout passes on the clock, in 2000 ms');
    await page.click('button:has-text("+1 s")');
    assert.match(await waiting.innerText(), /in 1000 ms$/);
    await page.click('button:has-text("+1 s")');
    assert.match(await lastEntry(page), /\[bob\] \(nil\)/);
    // QUIT: OK, then the connection and its tab are gone; typing moves to the first tab.
    await type(page, 'QUIT');
    assert.match(await lastEntry(page), /^bob> QUIT\nOK\n\(bob's connection is closed; typing on alice now\)$/);
    assert.deepEqual(await page.locator('.tabs .tab:not(.add) .name').allInnerTexts(), ['alice']);
    assert.equal(await page.locator('.prompt-line .name').innerText(), 'alice');
    // Undo brings it back.
    await undo(page);
    assert.deepEqual(await page.locator('.tabs .tab:not(.add) .name').allInnerTexts(), ['alice', 'bob']);
  });
});

for (const [width, height] of [[1400, 900], [1024, 768], [390, 844]]) {
  test(`the sandbox takes \`name> \` and shows set-aside lines at ${width} px`, async () => {
    await withPage(server.url, { width, height, touch: width < 500 }, async (page) => {
      await type(page, 'bob> PING');
      assert.equal(await lastEntry(page), 'bob> PING\nPONG');
      assert.equal(await page.locator('.tabs .tab.selected').innerText(), 'bob');
      assert.equal(await position(page), '1/1');
      await runAll(page, ['XADD jobs 1-0 type email', 'XADD jobs 2-0 type sms', 'worker-c> XLEN jobs']);
      await undo(page);
      await undo(page);
      await type(page, 'XADD jobs 9-0 type push');
      assert.deepEqual((await entries(page)).map((e) => e.mark), ['', '', 'aside', 'aside', '']);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, 'no horizontal scrolling');
      assert.deepEqual(await axe(page), []);
      await page.locator('.timeline').scrollIntoViewIfNeeded();
      await screenshot(page, `console-sandbox-${width}.png`, { fullPage: width < 500 ? false : true });
    });
  });
}

test('an embedded lesson runs `worker-c> COMMAND` once, and par counts follow undo', async () => {
  await withBrowser({ random: 0 }, async (page) => {
    await page.route(server.url + 'test/lesson.html', (route) => route.fulfill({
      status: 200, contentType: 'text/html; charset=utf-8', body: `<!doctype html><html lang="en"><title>lesson</title>
      <script src="../embed.js"></script>
      <stream-lab id="l" mode="lesson" lesson="ack-before-work" loading="eager"></stream-lab>`,
    }));
    await page.goto(server.url + 'test/lesson.html');
    const widget = page.locator('#l');
    const input = widget.locator('#console-input');
    await input.waitFor();
    const yours = () => widget.locator('.par').innerText();
    assert.match(await yours(), /yours 0/);
    await input.fill('worker-c> XREADGROUP GROUP fulfil worker-c COUNT 1 STREAMS orders >');
    await input.press('Enter');
    const last = () => widget.locator('.log .log-item').last().innerText();
    assert.match(await last(), /^worker-c> XREADGROUP GROUP fulfil worker-c COUNT 1 STREAMS orders >\n1\) 1\) "orders"/);
    assert.doesNotMatch(await last(), /unknown command/);
    assert.match(await yours(), /yours 1/);
    await input.fill('worker-c> XACK orders fulfil 1-0');
    await input.press('Enter');
    assert.match(await last(), /\(integer\) 1/);
    assert.match(await yours(), /yours 2/);
    // One Undo takes back the ack (the command, not a connection step), and the count with it.
    await widget.locator('.sl-bar button:has-text("Undo")').click();
    assert.match(await yours(), /yours 1/);
    assert.equal(await widget.locator('.log .log-item.undone').count(), 1);
    await widget.locator('.sl-bar button:has-text("Undo")').click();
    assert.match(await yours(), /yours 0/);
    // Typing again sets the undone steps aside; the count is the current line's.
    await input.fill('worker-c> XREADGROUP GROUP fulfil worker-c COUNT 1 STREAMS orders >');
    await input.press('Enter');
    assert.match(await yours(), /yours 1/);
    assert.equal(await widget.locator('.log .log-item.aside').count(), 2);
    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'console-embed-lesson.png');
  });
});
