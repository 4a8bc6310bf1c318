// Hostile input in the page and in embeds (issue 14, the review's B.1): multi-byte spaces
// (U+00A0, U+3000, as pasting from a web page brings) typed and pasted into the console, then
// Tab; the touch palette on such lines; two widgets under touch emulation, one given NBSP, the
// other still answering; and an internal error (a real panic, see below) that stops only its
// own widget, which restarts from its last good state, and that the full page shows with a way
// back. Needs dist/ (cargo xtask dist). Run: node --test tests/browser/hostile.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, withPage, withBrowser, type, lastEntry, screenshot } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server.close(); });

const NBSP = '\u00a0';
const IDEOGRAPHIC = '\u3000';

/** Types `text` as keystrokes and pasted text arrive: one input event per character. */
const typeText = (page, selector, text) => page.locator(selector).pressSequentially(text);

/** A single-line paste: the browser inserts the text where the caret is. */
async function pasteLine(locator, text) {
  await locator.focus();
  await locator.page().keyboard.insertText(text);
}

/** A multi-line paste: the console runs every line (its paste handler reads clipboardData). */
async function pasteLines(locator, text) {
  await locator.evaluate((input, text) => {
    const data = new DataTransfer();
    data.setData('text', text);
    input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

for (const [label, width, height] of [['desktop', 1400, 1000], ['1024 px', 1024, 768], ['phone width', 390, 844]]) {
  test(`console at ${label}: NBSP and U+3000 typed or pasted, then Tab, complete as redis-cli words and never crash`, async () => {
    await withPage(server.url, { width, height }, async (page) => {
      const input = page.locator('#console-input');
      // The review's lines: XADD NBSP NOMK, and U+3000 before XAD. To redis-cli each is one
      // word, no command starts with it, so Tab leaves the line alone.
      await typeText(page, '#console-input', `XADD${NBSP}NOMK`);
      await input.press('Tab');
      assert.equal(await input.inputValue(), `XADD${NBSP}NOMK`);
      await input.fill('');
      await pasteLine(input, `${IDEOGRAPHIC}XAD`);
      await input.press('Tab');
      assert.equal(await input.inputValue(), `${IDEOGRAPHIC}XAD`);
      // A key with NBSP in it, then an option being typed: Tab completes the option.
      await input.fill('');
      await pasteLine(input, `XADD k${NBSP}x NOMK`);
      await input.press('Tab');
      assert.equal(await input.inputValue(), `XADD k${NBSP}x NOMKSTREAM `);
      await typeText(page, '#console-input', '* f v');
      await input.press('Enter');
      assert.match(await lastEntry(page), /^alice> XADD k\u00a0x NOMKSTREAM \* f v\s*\n\(nil\)$/, 'no such stream yet');
      // Run as written: the NBSP line is an unknown command, as redis-cli sends it.
      await pasteLines(input, `XADD${NBSP}s * f v\nXADD k${NBSP}x * f v\nXLEN k${NBSP}x`);
      await page.locator('.log .log-item', { hasText: 'XLEN' }).waitFor();
      assert.match(await page.locator('.log .log-item').nth(-3).innerText(), /ERR unknown command 'XADD\u00a0s'/);
      assert.match(await lastEntry(page), /\(integer\) 1$/);
      // Still alive: a command after all that.
      await type(page, 'PING');
      assert.match(await lastEntry(page), /PONG$/);
      if (width === 1024) await screenshot(page, 'hostile-console-1024.png', { fullPage: false });
    });
  });
}

for (const [label, width, height] of [['phone', 390, 844], ['1024 px tablet', 1024, 768]]) {
  test(`touch palette at ${label}: lines with NBSP are typed, tapped and backspaced`, async () => {
    await withPage(server.url, { width, height, touch: true }, async (page) => {
      await type(page, 'XGROUP CREATE jobs workers $ MKSTREAM');
      const input = page.locator('#console-input');
      const compose = page.locator('.compose');
      // Before the fix this froze the playground: the palette panicked while rendering.
      await typeText(page, '#console-input', `XADD${NBSP}s jobs`);
      await compose.waitFor();
      await compose.getByRole('button', { name: 'Clear', exact: true }).tap();
      assert.equal(await input.inputValue(), '');
      await compose.getByRole('group', { name: 'Commands' }).getByRole('button', { name: 'XADD', exact: true }).tap();
      await input.press('End');
      await typeText(page, '#console-input', `k${NBSP}x`);
      assert.equal(await input.inputValue(), `XADD k${NBSP}x`);
      // The key with NBSP is one word: a tapped option follows it, ⌫ takes it back whole.
      await compose.getByRole('group', { name: 'Options' }).getByRole('button', { name: 'NOMKSTREAM', exact: true }).tap();
      assert.equal(await input.inputValue(), `XADD k${NBSP}x NOMKSTREAM `);
      await compose.getByRole('button', { name: '⌫ word' }).tap();
      assert.equal(await input.inputValue(), `XADD k${NBSP}x `);
      await compose.getByRole('button', { name: '⌫ word' }).tap();
      assert.equal(await input.inputValue(), 'XADD ');
      await input.press('End');
      await pasteLine(input, `jobs${IDEOGRAPHIC}* f v`);
      await compose.locator('.compose-hint').waitFor();
      await page.locator('.prompt-line').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await screenshot(page, `hostile-palette-${width}.png`, { fullPage: false });
      await input.fill('XLEN jobs');
      await compose.getByRole('button', { name: 'Run ⏎' }).tap();
      assert.match(await lastEntry(page), /^alice> XLEN jobs\s*\n\(integer\) 0$/);
    });
  });
}

/** Two sandbox widgets on one page; `two` starts with a stream named two. */
async function twoWidgets(page, attributes = '') {
  await page.route(server.url + 'test/two.html', (route) => route.fulfill({
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><title>two</title><script src="../embed.js"></script>
      <script>window.errors = []; document.addEventListener('error', (e) => window.errors.push(e.detail));</script>
      <stream-lab id="w1" loading="eager" ${attributes}></stream-lab>
      <stream-lab id="w2" loading="eager" setup="XADD two 1-0 n 2" ${attributes}></stream-lab>`,
  }));
  await page.goto(server.url + 'test/two.html');
  await page.locator('#w1 #console-input').waitFor();
  await page.locator('#w2 #console-input').waitFor();
}

test('embed under touch emulation: NBSP typed into one widget, the other still answers', async () => {
  await withBrowser({ width: 390, height: 844, touch: true }, async (page) => {
    await twoWidgets(page, 'layout="console"');
    await typeText(page, '#w1 #console-input', `XADD${NBSP}s x`);
    await page.locator('#w1 .compose').waitFor();
    const reply = await page.evaluate(() => document.querySelector('#w2').run('XLEN two').then((r) => r.reply));
    assert.equal(reply, '(integer) 1');
    await page.locator('#w1 #console-input').fill('PING');
    await page.locator('#w1 #console-input').press('Enter');
    assert.match(await page.locator('#w1 .log .log-item').last().innerText(), /PONG$/);
    assert.deepEqual(await page.evaluate(() => window.errors), []);
  });
});

// The review's question: how does a test make one widget's instance panic, with no "crash me"
// in the product? Its yew renderer calls `Node.cloneNode` (it clones cached elements) and
// panics if that throws, as it does in a page or extension that breaks the DOM. So the test
// breaks cloneNode for the page, makes widget 1 draw a new element, and mends it: a real
// panic of a third-party crate inside widget 1's instance, reached through the page's own DOM.
const breakCloneNode = (page) => page.evaluate(() => {
  window.realCloneNode = Node.prototype.cloneNode;
  Node.prototype.cloneNode = function () { throw new Error('test: cloneNode refused'); };
});
const mendCloneNode = (page) => page.evaluate(() => { Node.prototype.cloneNode = window.realCloneNode; });
const PANIC = /unreachable|cloneNode refused/;

for (const [label, width, height] of [['desktop', 1400, 1000], ['phone width', 390, 844]]) {
  test(`embed at ${label}: a panic stops only its widget, which restarts from its last good state`, async () => {
    await withBrowser({ width, height, ignore: PANIC }, async (page) => {
      await twoWidgets(page);
      const w1 = page.locator('#w1');
      const ran = await page.evaluate(() => document.querySelector('#w1').run('XADD before 1-0 f v').then((r) => r.reply));
      assert.equal(ran, '"1-0"');
      await breakCloneNode(page);
      const failed = await page.evaluate(() => document.querySelector('#w1').run('XADD after 2-0 f v').then(() => 'resolved', (e) => e.message));
      await mendCloneNode(page);
      assert.match(failed, /^StreamLab hit an internal error: .*couldn't clone cached element/s);
      const panel = w1.getByRole('alert');
      await panel.waitFor();
      assert.match(await panel.innerText(), /StreamLab hit an internal error[\s\S]*rest of the page is not affected[\s\S]*cloneNode refused/);
      const [event] = await page.evaluate(() => window.errors);
      assert.equal(event.internal, true);
      assert.match(event.message, /couldn't clone cached element/);
      // Calls on the stopped widget fail at once, with the reason.
      assert.match(await page.evaluate(() => document.querySelector('#w1').run('PING').catch((e) => e.message)), /internal error/);
      await screenshot(page, `hostile-embed-panic-${width}.png`);

      // The other widget, in its own instance, never noticed.
      const reply = await page.evaluate(() => document.querySelector('#w2').run('XLEN two').then((r) => r.reply));
      assert.equal(reply, '(integer) 1');
      await page.locator('#w2 #console-input').fill('XADD two 2-0 n 3');
      await page.locator('#w2 #console-input').press('Enter');
      assert.match(await page.locator('#w2 .log .log-item').last().innerText(), /"2-0"$/);

      // Restart: a fresh instance, from the state after the last command that worked.
      await w1.getByRole('button', { name: 'Restart this console' }).click();
      await w1.locator('#console-input').waitFor();
      const after = await page.evaluate(() => document.querySelector('#w1').run('EXISTS before after').then((r) => r.reply));
      assert.equal(after, '(integer) 1', 'the session before the panic is back; the failed command is not');
      await w1.locator('#console-input').fill('PING');
      await w1.locator('#console-input').press('Enter');
      assert.match(await w1.locator('.log .log-item').last().innerText(), /PONG$/);
    });
  });
}

test('the full page shows a panic with reload links, and the reload restores the session', async () => {
  await withPage(server.url, { ignore: PANIC }, async (page) => {
    await type(page, 'XADD kept 1-0 f v');
    await breakCloneNode(page);
    await page.locator('#console-input').fill('XADD lost 2-0 f v');
    await page.locator('#console-input').press('Enter');
    await mendCloneNode(page);
    const panel = page.getByRole('alertdialog', { name: 'StreamLab hit an internal error' });
    await panel.waitFor();
    assert.match(await panel.innerText(), /couldn't clone cached element/);
    await screenshot(page, 'hostile-page-panic.png', { fullPage: false });
    await panel.getByRole('link', { name: 'Reload and restore the session' }).click();
    await page.waitForSelector('#console-input');
    await type(page, 'EXISTS kept lost');
    assert.match(await lastEntry(page), /\(integer\) 1$/);
    await page.goto(server.url);
    await page.waitForSelector('#console-input');
    await breakCloneNode(page);
    await type(page, 'PING');
    await mendCloneNode(page);
    await page.getByRole('link', { name: 'Reload with an empty session' }).click();
    await page.waitForSelector('#console-input');
    await type(page, 'EXISTS kept');
    assert.match(await lastEntry(page), /\(integer\) 0$/);
  });
});
