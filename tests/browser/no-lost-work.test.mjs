// What the UX review did to lose work, done again: a sandbox stream kept while a lesson is
// played and after a reload; Reset, a server change and Start over undone (after a reload
// too), the lesson list telling the truth throughout; Share's confirmation where the button
// is, its Copy button, and the scrollback a reload or a link restores; the Pause icon drawn
// with what Debian's Chromium has. Screenshots at 1400, 1024 and 390 px. Needs dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, withPage as withPageAt, type, lastEntry, screenshot, root, shots, axe, lessonTasks } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

// Math.random is 0, so a lesson starts on attempt 0: the lesson as written.
const withPage = ({ search = '', ...options }, body) => withPageAt(server.url + search, { random: 0, ...options }, body);

const WIDTHS = [[1400, 900], [1024, 768], [390, 844]];

const tasksOf = async (id) => lessonTasks(await readFile(join(root, 'lessons', `${id}.toml`), 'utf8'));

async function openLesson(page, id) {
  await page.getByRole('button', { name: 'Lessons', exact: true }).click();
  await page.locator(`[data-lesson="${id}"] .lesson-open`).click();
  await page.waitForSelector('.lesson .task');
}

/** Solves task `n` of the lesson shown: its solution typed and checked, or its right option. */
async function solve(page, tasks, n) {
  await page.locator('.task-list .task-link').nth(n).click();
  await page.locator('#task-title', { hasText: `Task ${n + 1}:` }).waitFor();
  const task = tasks[n];
  if (task.kind === 'reach-state') {
    for (const line of task.solution) await type(page, line);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    assert.match(await page.locator('.check-result').innerText(), /Goal reached/);
  } else {
    assert.equal(task.kind, 'choice');
    await page.locator('.quiz .option', { hasText: task.right[0] }).locator('input').check();
    await page.getByRole('button', { name: 'Answer', exact: true }).click();
    assert.match(await page.locator('.answer').innerText(), /✓ Right/);
  }
  await page.locator('.task-list .task-link').nth(n).and(page.locator('.done')).waitFor();
}

const listStatus = (page, id) => page.locator(`[data-lesson="${id}"] .lesson-status`).innerText();

/** Waits for the notice bar's status to say `text`, and checks it is on screen without scrolling. */
async function notice(page, text) {
  await page.waitForFunction((t) => document.querySelector('.notice-bar .status[role="status"]')?.textContent === t, text);
  const box = await page.locator('.notice-bar').boundingBox();
  const viewport = page.viewportSize();
  assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `the notice is in the viewport: ${JSON.stringify(box)}`);
}

test('a change is saved after it is painted, and a reload or a hidden tab never outruns the save', async () => {
  await withPage({}, async (page) => {
    await type(page, 'XADD early 1-0 n 1');
    await page.waitForFunction(() => (localStorage.getItem('streamlab.session') || '').includes('early'));
    // With no frames coming (a frame callback never runs), the save of the next change waits:
    // then only the tab turning hidden (as it does before a reload) writes it.
    await page.evaluate(() => { window.requestAnimationFrame = () => 0; });
    await type(page, 'XADD late 1-0 n 1');
    assert.doesNotMatch(await page.evaluate(() => localStorage.getItem('streamlab.session')), /late/, 'waits for the paint');
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    assert.match(await page.evaluate(() => localStorage.getItem('streamlab.session')), /late/, 'a hidden tab saves at once');
    await page.evaluate(() => { delete document.hidden; });
    await type(page, 'XADD reloaded 1-0 n 1');
    assert.doesNotMatch(await page.evaluate(() => localStorage.getItem('streamlab.session')), /reloaded/);
    await page.reload();
    await page.waitForSelector('#console-input');
    await page.waitForFunction(() => document.querySelector('.position')?.textContent === '3/3');
    assert.match(await page.locator('section.right').innerText(), /reloaded/, 'saved as the page went away');
  });
});

test('a sandbox change whose save waits is saved as the sandbox even when a lesson opens first', async () => {
  await withPage({}, async (page) => {
    // No frames: the save of the sandbox's change is still waiting when the lesson opens.
    await page.evaluate(() => { window.requestAnimationFrame = () => 0; });
    await type(page, 'XADD beforelesson 1-0 n 1');
    await openLesson(page, 'noack');
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    assert.match(await page.evaluate(() => localStorage.getItem('streamlab.session')), /beforelesson/);
  });
});

test('the sandbox is kept beside lessons: its stream, scrollback and saved copy, also after a reload', async () => {
  const tasks = await tasksOf('noack');
  await withPage({ width: 1400, height: 900 }, async (page) => {
    await type(page, 'XADD mywork 1-0 note draft');
    await type(page, 'XLEN mywork');
    await openLesson(page, 'noack');
    assert.doesNotMatch(await page.locator('section.right').innerText(), /mywork/, 'the lesson plays in its own session');
    await solve(page, tasks, 0);
    // The saved copy is still the sandbox's.
    assert.match(await page.evaluate(() => localStorage.getItem('streamlab.session')), /mywork/);

    // From the list: back to the lesson, or to the sandbox as it was.
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    assert.equal(await listStatus(page, 'noack'), '1 of 5 tasks');
    await page.getByRole('button', { name: 'Back to the lesson' }).click();
    assert.equal(await page.locator('.lesson .task-link.done').count(), 1);
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.getByRole('button', { name: 'Back to the playground' }).click();
    assert.equal(await page.locator('.lesson').count(), 0);
    assert.match(await page.locator('section.right').innerText(), /mywork/);
    assert.equal(await lastEntry(page), 'alice> XLEN mywork\n(integer) 1', 'the scrollback came back too');
    await screenshot(page, 'no-lost-work-sandbox-back-1400.png', { fullPage: false });

    // The lesson, reopened, resumes with its session; its Sandbox button leads back again.
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.locator('[data-lesson="noack"] .lesson-open').click();
    await page.waitForSelector('.lesson .task');
    assert.equal(await page.locator('.lesson .task-link.done').count(), 1);
    assert.doesNotMatch(await page.locator('section.right').innerText(), /mywork/);
    await page.getByRole('button', { name: 'Sandbox', exact: true }).click();
    assert.match(await page.locator('section.right').innerText(), /mywork/);

    await page.reload();
    await page.waitForSelector('#console-input');
    assert.match(await page.locator('section.right').innerText(), /mywork/);
    const log = await page.locator('.log .log-item').allInnerTexts();
    assert.deepEqual(log, ['alice> XADD mywork 1-0 note draft\n"1-0"', 'alice> XLEN mywork\n(integer) 1'], 'the reload restores the scrollback');
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    assert.equal(await listStatus(page, 'noack'), '1 of 5 tasks');
  });
});

test('Reset and a server change happen at once and offer Undo, which survives a reload', async () => {
  for (const [width, height] of WIDTHS) {
    await withPage({ width, height }, async (page) => {
      page.on('dialog', (d) => assert.fail(`a dialog asked: ${d.message()}`));
      for (const line of ['XADD mywork 1-0 note draft', 'XADD mywork 2-0 note more']) await type(page, line);
      await page.getByRole('button', { name: 'Reset', exact: true }).click();
      assert.equal(await page.locator('.position').innerText(), '0/0');
      await notice(page, 'Session reset.');
      await screenshot(page, `no-lost-work-reset-${width}.png`, { fullPage: false });
      assert.deepEqual(await axe(page), []);

      await page.reload();
      await page.waitForSelector('#console-input');
      await notice(page, 'Session reset.');
      await page.getByRole('button', { name: 'Undo', exact: true }).click();
      assert.equal(await page.locator('.position').innerText(), '2/2');
      assert.match(await page.locator('section.right').innerText(), /mywork/);
      assert.equal(await page.getByRole('button', { name: 'Undo', exact: true }).count(), 0);
      assert.equal(await lastEntry(page), 'alice> XADD mywork 2-0 note more\n"2-0"');
      await page.reload();
      await page.waitForSelector('#console-input');
      assert.equal(await page.locator('.position').innerText(), '2/2', 'the recovered session is the saved one');
      assert.equal(await page.getByRole('button', { name: 'Undo', exact: true }).count(), 0, 'and the offer is gone');

      // The header's server select: no dialog, the same Undo.
      await page.locator('.profile select').selectOption('redis-7.4');
      await notice(page, 'Server changed: a fresh session.');
      await page.getByRole('button', { name: 'Undo', exact: true }).click();
      assert.equal(await page.locator('.profile select').inputValue(), 'redis-8.10');
      assert.equal(await page.locator('.position').innerText(), '2/2');

      // Once the fresh session has work of its own, Undo is no longer offered over it.
      await page.getByRole('button', { name: 'Reset', exact: true }).click();
      await type(page, 'PING');
      assert.equal(await page.getByRole('button', { name: 'Undo', exact: true }).count(), 0);
      // The kept copy goes with the offer, once the change is saved (after its paint).
      await page.waitForFunction(() => localStorage.getItem('streamlab.session.undo') === null);
    });
  }
});

test('Start over with 3 of 5 solved can be undone, and the list tells the truth throughout', async () => {
  const tasks = await tasksOf('noack');
  await withPage({ search: '?lesson=noack', width: 1024, height: 768 }, async (page) => {
    await page.waitForSelector('.lesson .task');
    for (const n of [0, 2, 3]) await solve(page, tasks, n);
    assert.match(await page.locator('.lesson-top .lesson-meta').innerText(), /3 of 5 solved/);
    await page.getByRole('button', { name: 'Start over' }).click();
    assert.match(await page.locator('.lesson-top .lesson-meta').innerText(), /0 of 5 solved/);
    await notice(page, 'Lesson started over: a new variant, nothing solved yet.');
    await screenshot(page, 'no-lost-work-start-over-1024.png', { fullPage: false });
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    assert.equal(await listStatus(page, 'noack'), 'not started', 'what is saved now');
    // Undo from the list brings the lesson back, with its progress, saved again.
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.waitForSelector('.lesson .task');
    assert.match(await page.locator('.lesson-top .lesson-meta').innerText(), /3 of 5 solved/);
    assert.equal(await page.locator('.lesson .task-link.done').count(), 3);
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    assert.equal(await listStatus(page, 'noack'), '3 of 5 tasks');
    await page.reload();
    await page.waitForSelector('.lesson .task');
    assert.match(await page.locator('.lesson-top .lesson-meta').innerText(), /3 of 5 solved/);
  });
});

test('Share confirms next to its button, the panel copies, and a link restores the scrollback', async () => {
  for (const [width, height] of WIDTHS) {
    let url;
    let log;
    await withPage({ width, height }, async (page) => {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
      for (const line of ['XADD mywork 1-0 note draft', 'XRANGE mywork - +']) await type(page, line);
      const share = page.getByRole('button', { name: 'Share', exact: true });
      await share.click();
      await notice(page, 'Share link copied and put in the address bar');
      const [button, bar] = [await share.boundingBox(), await page.locator('.notice-bar').boundingBox()];
      assert.ok(bar.y - (button.y + button.height) < 120, `the notice is just under the button: ${JSON.stringify({ button, bar })}`);
      url = await page.inputValue('#share-url');
      log = await page.locator('.log .log-item').allInnerTexts();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
      await page.evaluate(() => navigator.clipboard.writeText('something else'));
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await notice(page, 'Link copied');
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
      await screenshot(page, `no-lost-work-share-${width}.png`, { fullPage: false });
      assert.deepEqual(await axe(page), []);
    });
    await withPage({ fragment: url.split('#')[1], width, height }, async (page) => {
      await page.locator('.log .log-item').nth(1).waitFor();
      assert.deepEqual(await page.locator('.log .log-item').allInnerTexts(), log, 'the link restores the scrollback as it was');
      assert.equal(log.length, 2);
    });
  }
});

test('the Pause icon is drawn, not a glyph the fonts lack', async () => {
  await withPage({}, async (page) => {
    await page.getByRole('button', { name: '▶ Run', exact: true }).click();
    const pause = page.getByRole('button', { name: 'Pause', exact: true });
    const drawn = await pause.evaluate((button) => {
      const style = getComputedStyle(button, '::before');
      // Text drawn in the button's font: a character no font has draws as the same box as
      // another such character (the known tofu); ▶ must not.
      const draw = (text) => {
        const canvas = document.createElement('canvas');
        canvas.width = 60; canvas.height = 40;
        const context = canvas.getContext('2d');
        context.font = getComputedStyle(button).font;
        context.fillText(text, 10, 30);
        return canvas.toDataURL();
      };
      return {
        // The bars' width plus the gap between them.
        width: ['width', 'borderLeftWidth', 'borderRightWidth'].reduce((sum, p) => sum + parseFloat(style[p]), 0),
        display: style.display,
        bars: [style.borderLeftWidth, style.borderRightWidth, style.borderLeftStyle],
        glyphs: [...button.textContent].filter((c) => c.codePointAt(0) > 0x7f),
        tofu: draw('\u{E000}') === draw('\u{E001}'),
        run: draw('▶') !== draw('\u{E000}'),
      };
    });
    assert.ok(drawn.width > 5 && drawn.display === 'inline-block', `the icon has a painted width: ${JSON.stringify(drawn)}`);
    assert.notEqual(drawn.bars[0], '0px');
    assert.deepEqual([drawn.bars[0] === drawn.bars[1], drawn.bars[2]], [true, 'solid']);
    assert.deepEqual(drawn.glyphs, [], 'no character outside ASCII to go missing');
    assert.ok(drawn.tofu, 'two characters no font has draw alike');
    assert.ok(drawn.run, '▶ is in a font');
    await page.locator('header.top').screenshot({ path: join(shots, 'no-lost-work-pause.png') });
    await pause.click();
  });
});
