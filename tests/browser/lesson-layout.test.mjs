// The lesson's layout as the UX review used it, in headless Chromium: a lesson opened from a
// scrolled list starts at its top; at 1400×900 and 1024×768 the task, its Check, the console's
// input and the state are on screen together, and Check moves none of them; the goal stays
// beside the state while the learner works; the lesson's example lines go into the console by
// mouse and by keyboard; on a phone (390×844, touch) one of the task, the console and the state
// is shown, switched from a bar at the top, and the header and the input's help fit a touch
// screen; an embedded lesson has Show goal. Needs dist/ (cargo xtask dist).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, withPage as withPageAt, withBrowser, type, screenshot, axe } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

// Math.random is 0: a lesson starts on attempt 0, the lesson as written.
const withPage = (options, body) => withPageAt(server.url, { random: 0, ...options }, body);

/** Opens a lesson from the list, after scrolling the list down as a learner looking for it. */
async function openFromScrolledList(page, id) {
  await page.getByRole('button', { name: 'Lessons', exact: true }).click();
  await page.waitForSelector('.lesson-card');
  await page.evaluate(() => window.scrollTo(0, 900));
  assert.ok(await page.evaluate(() => window.scrollY) > 300, 'the list scrolled');
  await page.locator(`[data-lesson="${id}"] .lesson-open`).click();
  await page.waitForSelector('.lesson .task');
}

/** Where an element is in the viewport, rounded; null when it is not drawn. */
const box = (page, selector) => page.evaluate((s) => {
  const r = document.querySelector(s)?.getBoundingClientRect();
  return r && r.height > 0 ? { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right) } : null;
}, selector);

/** Asserts that `selector` is drawn, wholly inside the viewport (or only its top `part` px). */
async function onScreen(page, selector, what, part = null) {
  const b = await box(page, selector);
  const { width, height } = page.viewportSize();
  assert.ok(b, `${what} is drawn`);
  const bottom = part === null ? b.bottom : b.top + part;
  assert.ok(b.top >= 0 && bottom <= height && b.left >= 0 && b.right <= width,
    `${what} (${JSON.stringify(b)}) is inside the ${width}×${height} viewport`);
}

const CHECK = '.task-actions button.primary';

for (const [width, height] of [[1400, 900], [1024, 768]]) {
  for (const id of ['dead-consumer', 'setid']) {
    test(`${id} at ${width}×${height}: opens at its top with the task, Check, the console and the state on screen, and Check moves neither the console nor the state`, async () => {
      await withPage({ width, height }, async (page) => {
        await openFromScrolledList(page, id);
        assert.equal(await page.evaluate(() => window.scrollY), 0, 'the lesson starts at its top');
        assert.equal(await page.locator(CHECK).innerText(), 'Check');
        await onScreen(page, '.task h3', 'the task\'s heading');
        await onScreen(page, '.task .prompt-text', 'the task\'s text');
        await onScreen(page, CHECK, 'Check');
        await onScreen(page, '#console-input', 'the console\'s input');
        await onScreen(page, '.right .view-switch', 'the state\'s heading');
        // The state's first stream: its name, its numbers and the start of its rail.
        await onScreen(page, '.right .stream', 'the learner\'s stream', 150);
        // The goal is there from the start, beside or under the learner's state.
        await onScreen(page, '.compare .goal h3', 'the goal\'s heading');
        assert.equal(await page.getByRole('button', { name: 'Show goal' }).getAttribute('aria-pressed'), 'true');
        assert.deepEqual(await axe(page), [], `axe on a lesson at ${width} px`);
        if (id === 'setid') await screenshot(page, `lesson-layout-${width}.png`, { fullPage: false });

        // Check on a task not done yet: the page does not move, nor do the console and the
        // state; what Check found is on screen, and so is Check (the lesson's own column
        // scrolls as little as it takes to show the result).
        const watched = ['.right', '.right .stream', '#console-input', '.compare .goal'];
        const before = await Promise.all(watched.map((s) => box(page, s)));
        await page.locator(CHECK).click();
        await page.locator('.check-result p').first().waitFor();
        assert.match(await page.locator('.check-result').innerText(), /Not yet/);
        assert.equal(await page.evaluate(() => window.scrollY), 0, 'Check does not scroll the page');
        assert.deepEqual(await Promise.all(watched.map((s) => box(page, s))), before, 'Check moves neither the console nor the state');
        await page.waitForFunction(() => {
          const r = document.querySelector('.check-result').getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight;
        });
        await onScreen(page, CHECK, 'Check after it ran');
        if (id === 'setid') await screenshot(page, `lesson-layout-${width}-checked.png`, { fullPage: false });
      });
    });
  }
}

test('the goal stays beside the state while the learner works, and stays hidden once hidden', async () => {
  await withPage({ width: 1400, height: 900 }, async (page) => {
    await openFromScrolledList(page, 'noack');
    const goal = page.locator('.compare .goal');
    await goal.waitFor();
    assert.match(await goal.innerText(), /billing/);
    // Commands change the learner's state; the goal stays as it is, beside it.
    const drawn = await goal.innerText();
    // Whatever ids this attempt's variant starts from, a fourth entry.
    await type(page, 'XADD clicks * page faq');
    await page.waitForFunction(() => /\blength\n4\n/.test(document.querySelector('.compare > section:first-child').innerText));
    assert.equal(await goal.innerText(), drawn);
    // A Reset starts the task again: the goal is still there.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.locator('.lesson .par').filter({ hasText: 'yours 0' }).waitFor();
    await goal.waitFor();
    // Hidden by the learner, it stays hidden on the next task.
    await page.getByRole('button', { name: 'Show goal' }).click();
    await goal.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.waitForSelector('.task h3:has-text("Task 2:")');
    if (await page.getByRole('button', { name: 'Show goal' }).count()) {
      assert.equal(await page.getByRole('button', { name: 'Show goal' }).getAttribute('aria-pressed'), 'false');
    }
    assert.equal(await goal.count(), 0);
  });
});

test('example lines go into the console by mouse and by keyboard, and run only on Enter', async () => {
  await withPage({ width: 1400, height: 900 }, async (page) => {
    await openFromScrolledList(page, 'noack');
    const input = page.locator('#console-input');
    const entries = page.locator('.log .log-item');
    const par = page.locator('.lesson .par');
    // The intro's demo: a click puts its line in the input, with its connection; nothing runs.
    const demo = page.locator('.intro .demo .try').first();
    assert.equal(await demo.innerText(), 'default> XINFO GROUPS clicks');
    await demo.click();
    assert.equal(await input.inputValue(), 'default> XINFO GROUPS clicks');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'console-input');
    assert.equal(await entries.count(), 0, 'putting a line in the console runs nothing');
    assert.match(await par.innerText(), /yours 0/);
    await page.keyboard.press('Enter');
    await entries.first().waitFor();
    assert.match(await entries.first().innerText(), /XINFO GROUPS clicks\n1\)/);

    // The reference solution's lines, by keyboard: focus one, Enter puts it in the input.
    await page.getByRole('button', { name: 'Show solution' }).click();
    await page.getByRole('button', { name: 'Yes, show it' }).click();
    const lines = page.locator('.solution .try');
    assert.equal(await lines.count(), 3);
    const third = await lines.nth(2).innerText();
    assert.match(third, /^rescuer> XAUTOCLAIM /);
    await lines.nth(2).focus();
    await page.keyboard.press('Enter');
    assert.equal(await input.inputValue(), third);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'console-input');
    assert.equal(await entries.count(), 1);
    assert.deepEqual(await axe(page), [], 'axe with the solution\'s lines as buttons');
  });
  // The console's own examples (the sandbox's empty console) go into its input too.
  await withPage({ width: 1400, height: 900 }, async (page) => {
    await page.locator('.log .intro .try').first().click();
    assert.equal(await page.locator('#console-input').inputValue(), 'XADD jobs * type email');
    assert.equal(await page.locator('.log .log-item').count(), 0);
  });
});

test('on a phone one view at a time: the effect of a command is one tap away, and the header and the help fit a touch screen', async () => {
  await withPage({ width: 390, height: 844, touch: true }, async (page) => {
    // The input's help names no keys, and the syntax hint is said once (the palette's "next:").
    assert.equal(await page.locator('.log .intro .keys-help').isVisible(), false);
    assert.doesNotMatch(await page.locator('.log .intro').innerText(), /Tab completes|Ctrl\+L/);
    await page.fill('#console-input', 'XGROUP ');
    await page.locator('.compose-hint').filter({ hasText: 'next:' }).waitFor();
    assert.equal(await page.locator('#syntax-hint').isVisible(), false);
    await page.fill('#console-input', '');
    const header = await box(page, 'header.top');
    assert.ok(header.bottom - header.top <= 140, `the header is ${header.bottom - header.top} px tall`);

    await openFromScrolledList(page, 'noack');
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the lesson starts at its top');
    const views = page.getByRole('radiogroup', { name: 'Show' });
    await onScreen(page, '.views', 'the view switch');
    await onScreen(page, '.task h3', 'the task\'s heading');
    await onScreen(page, CHECK, 'Check');
    assert.equal(await page.locator('#console-input').isVisible(), false, 'the task\'s view shows no console');
    assert.deepEqual(await axe(page), [], 'axe on the phone\'s task view');
    await screenshot(page, 'lesson-layout-390.png', { fullPage: false });

    // To the console: a command, then to the state, where its effect is drawn at the top.
    await views.getByText('Console').tap();
    await onScreen(page, '#console-input', 'the console\'s input');
    await type(page, 'XADD clicks 9-0 page faq');
    await page.locator('.log .log-item').filter({ hasText: '"9-0"' }).waitFor();
    await screenshot(page, 'lesson-layout-390-console.png', { fullPage: false });
    await page.evaluate(() => window.scrollTo(0, 400));
    await views.getByText('State').tap();
    await onScreen(page, '.views', 'the view switch');
    await onScreen(page, '.right .view-switch', 'the state\'s heading');
    const added = page.locator('.right .compare > section:first-child .entry').filter({ hasText: '9-0' });
    await added.first().waitFor();
    const entry = await added.first().boundingBox();
    assert.ok(entry.y >= 0 && entry.y + entry.height <= 844, `the new entry is on screen (${entry.y})`);
    assert.equal(await page.locator('.lesson').isVisible(), false);
    assert.deepEqual(await axe(page), [], 'axe on the phone\'s state view');
    await screenshot(page, 'lesson-layout-390-state.png', { fullPage: false });

    // An example line tapped in the task's view goes into the console, which is shown.
    await views.getByText('Task').tap();
    await page.locator('.intro .demo .try').first().tap();
    assert.equal(await page.locator('#console-input').inputValue(), 'default> XINFO GROUPS clicks');
    await onScreen(page, '#console-input', 'the console\'s input');
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= 390, `no sideways scrolling, got ${scrollWidth}`);
  });
});

test('an embedded lesson has Show goal, beside its console', async () => {
  await withBrowser({ random: 0, width: 1200, height: 900 }, async (page) => {
    const url = server.url + 'test/goal.html';
    await page.route(url, (route) => route.fulfill({
      status: 200, contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><title>goal</title><script src="../embed.js"></script>
        <stream-lab id="goal" mode="lesson" lesson="claim-and-xnack" loading="eager"></stream-lab>`,
    }));
    await page.goto(url);
    const widget = page.locator('#goal');
    await widget.locator('#console-input').waitFor();
    const show = widget.getByRole('button', { name: 'Show goal' });
    assert.equal(await show.getAttribute('aria-pressed'), 'false', 'a widget shows the goal when asked');
    await show.click();
    const goal = widget.locator('.compare .goal');
    await goal.waitFor();
    assert.match(await goal.innerText(), /Goal \(after the reference solution\)\n[\s\S]*emails/);
    assert.equal(await show.getAttribute('aria-pressed'), 'true');
    // It stays while the learner works.
    await widget.locator('#console-input').fill('XLEN emails');
    await widget.locator('#console-input').press('Enter');
    await widget.locator('.log .log-item').first().waitFor();
    assert.equal(await goal.count(), 1);
    assert.deepEqual(await axe(page), [], 'axe on an embedded lesson with its goal');
    await screenshot(page, 'lesson-layout-embed-goal.png');
    await show.click();
    await goal.waitFor({ state: 'detached' });
  });
});
