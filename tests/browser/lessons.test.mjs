// End-to-end tests of the lesson player in headless Chromium: the list with saved progress,
// two lessons completed by typing their solutions, a failing check with its message, the goal,
// quizzes (multiple choice, predict with options and typed), disabled commands, the sandbox,
// hidden variants, and lessons loaded from a URL or a pasted file. Needs dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, withPage as withPageAt, type, lastEntry, screenshot, root, axe, lessonTasks, tabTo } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

// The lessons' address is the page's search (`?lesson=...`). Math.random is 0, so a lesson
// starts on attempt 0: the lesson as written.
const withPage = ({ search = '', ...options }, body) => withPageAt(server.url + search, { random: 0, ...options }, body);

/** A lesson's tasks as variant 0 shows them (see harness.mjs). */
async function tasksOf(id) {
  return lessonTasks(await readFile(join(root, 'lessons', `${id}.toml`), 'utf8'));
}

/** Each task's reference solution in variant 0 (empty for quizzes). */
async function solutions(id) {
  return (await tasksOf(id)).map((t) => t.solution);
}

async function openLesson(page, id) {
  await page.getByRole('button', { name: 'Lessons', exact: true }).click();
  await page.locator(`[data-lesson="${id}"] .lesson-open`).click();
  await page.waitForSelector('.lesson .task');
}

async function checkResult(page) {
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  return page.locator('.check-result').innerText();
}

/**
 * Answers the current question as a learner who guesses: wrong first where it can, then, after
 * "Try again", until it is right (a typed reply is read from "Show what it prints"; an order
 * task's steps come from the lesson file, `task`). Returns what the first wrong answer showed.
 */
async function answerQuiz(page, task) {
  const result = () => page.locator('.answer').innerText();
  const answer = () => page.getByRole('button', { name: 'Answer', exact: true }).click();
  const retry = () => page.getByRole('button', { name: 'Try again' }).click();
  let wrong = null;
  if (await page.locator('.typed-reply').count()) {
    await page.locator('.typed-reply').fill('no idea');
    await answer();
    wrong = await result();
    assert.match(wrong, /Not quite/);
    assert.equal(await page.locator('.answer pre.reply').count(), 0, 'a wrong try does not show the reply');
    await page.getByRole('button', { name: 'Show what it prints' }).click();
    const reply = await page.locator('.answer pre.reply').innerText();
    await retry();
    await page.locator('.typed-reply').fill(reply);
    await answer();
    assert.match(await result(), /✓ Right/);
    return wrong;
  }
  if (await page.locator('.numeric-answer').count()) {
    for (let n = 0; n < 500; n++) {
      await page.locator('.numeric-answer').fill(String(n));
      await page.locator('.numeric-answer').press('Enter');
      const shown = await result();
      if (/✓ Right/.test(shown)) return wrong;
      wrong ??= shown;
      await retry();
    }
    assert.fail('no number was right');
  }
  if (await page.locator('.order-steps').count()) {
    await answer();
    wrong = await result();
    await retry();
    // Each step to its place from the top, with its Move up button.
    for (let place = 0; place < task.steps.length; place++) {
      for (;;) {
        const shown = await page.locator('.order-steps .step-text').allInnerTexts();
        const at = shown.findIndex((t) => t.trim() === task.steps[place]);
        assert.ok(at >= 0, `step “${task.steps[place]}” is shown: ${shown}`);
        if (at <= place) break;
        await page.locator('.order-step').nth(at).getByRole('button', { name: 'Move up' }).click();
      }
    }
    await answer();
    assert.match(await result(), /✓ Right/);
    return wrong;
  }
  const options = page.locator('.quiz .option input');
  const count = await options.count();
  const multiple = (await options.first().getAttribute('type')) === 'checkbox';
  // Every set of options, smallest first, for "select all that apply".
  const sets = multiple
    ? Array.from({ length: 2 ** count - 1 }, (_, i) => i + 1).sort((a, b) => bits(a) - bits(b) || a - b)
      .map((mask) => [...Array(count).keys()].filter((n) => mask & (1 << n)))
    : [...Array(count).keys()].map((n) => [n]);
  for (const set of sets) {
    if (multiple) for (let n = 0; n < count; n++) await options.nth(n).setChecked(set.includes(n));
    else await options.nth(set[0]).check();
    await answer();
    const shown = await result();
    if (/✓ Right/.test(shown)) {
      // Every option explains itself once answered right.
      assert.equal(await page.locator('.quiz .option .option-why').count(), count);
      return wrong;
    }
    assert.equal(await page.locator('.quiz .option .option-why').count(), 0, 'a wrong answer explains no other option');
    wrong ??= shown;
    await retry();
  }
  assert.fail('no option was right');
}

const bits = (n) => n.toString(2).replaceAll('0', '').length;

/** Completes the open lesson: types each reach-state solution, answers each question. */
async function complete(page, id, { shots = false } = {}) {
  const all = await tasksOf(id);
  for (let task = 0; task < all.length; task++) {
    await page.locator('.task-list .task-link').nth(task).click();
    await page.waitForSelector(`.task h3:has-text("Task ${task + 1}:")`);
    if (all[task].kind === 'reach-state') {
      for (const line of all[task].solution) await type(page, line);
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      const result = await page.locator('.check-result').innerText();
      assert.match(result, /Goal reached with \d+ changes? \(par \d+\)/, `${id} task ${task + 1}: ${result}`);
    } else {
      await answerQuiz(page, all[task]);
      if (shots && (await page.locator('.quiz .option').count())) {
        await screenshot(page, 'lesson-quiz-answered.png');
      }
    }
    assert.match(await page.locator('.task h3').innerText(), /solved/);
  }
  assert.match(await page.locator('.lesson .complete').innerText(), /Lesson complete/);
}

test('two lessons completed by typing their solutions, with a failing check, the goal and quizzes', async () => {
  await withPage({}, async (page) => {
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.waitForSelector('.lesson-card');
    // Sections from lessons/index.toml, every lesson in them.
    const index = await readFile(join(root, 'lessons', 'index.toml'), 'utf8');
    assert.equal(await page.locator('.lesson-section').count(), index.match(/^\[\[section\]\]$/gm).length);
    assert.equal(await page.locator('.lesson-card').count(), [...index.matchAll(/^lessons = \[([^\]]*)\]/gm)]
      .reduce((n, m) => n + m[1].split(',').filter((id) => id.trim()).length, 0));
    assert.deepEqual(await axe(page), [], 'axe on the lesson list');
    await screenshot(page, 'lesson-list.png');

    await page.locator('[data-lesson="noack"] .lesson-open').click();
    await page.waitForSelector('.lesson .task');
    // The intro's demos ran, with their replies.
    assert.match(await page.locator('.lesson .demo').first().innerText(), /^\w+> \S/);
    const par = page.locator('.lesson .par');
    assert.match(await par.innerText(), /Par \d+ changes? · yours 0/);
    assert.match(await par.getAttribute('title'), /reads such as XINFO, XPENDING and XRANGE are free/);
    await screenshot(page, 'lesson-view.png');

    // A check that fails on purpose says what is wrong, in an aria-live region.
    assert.equal(await page.locator('.check-result').getAttribute('aria-live'), 'polite');
    // A read is free; a change counts.
    await type(page, 'XINFO GROUPS clicks');
    assert.match(await par.innerText(), /yours 0/);
    await type(page, 'XADD scratch * note 1');
    const failed = await checkResult(page);
    assert.match(failed, /Not yet:\n/);
    assert.match(await par.innerText(), /yours 1/);
    assert.deepEqual(await axe(page), [], 'axe on a failed check');
    await screenshot(page, 'lesson-check-failed.png');

    // Progressive hints.
    await page.getByRole('button', { name: 'Hint' }).click();
    assert.equal(await page.locator('.hints li').count(), 1);
    await page.getByRole('button', { name: /Next hint/ }).click();
    assert.equal(await page.locator('.hints li').count(), 2);

    // The goal, the state after the reference solution, is drawn beside the learner's from
    // the start; Show goal hides it and draws it again.
    await page.waitForSelector('.compare .goal');
    assert.match(await page.locator('.compare .goal').innerText(), /billing/);
    assert.deepEqual(await axe(page), [], 'axe with the goal shown');
    await screenshot(page, 'lesson-goal.png');
    await page.getByRole('button', { name: 'Show goal' }).click();
    await page.locator('.compare').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Show goal' }).click();
    await page.waitForSelector('.compare .goal');

    // The solution needs a confirmation.
    await page.getByRole('button', { name: 'Show solution' }).click();
    await page.getByRole('button', { name: 'Not yet' }).click();
    assert.equal(await page.locator('.solution').count(), 0);
    await page.getByRole('button', { name: 'Show solution' }).click();
    await page.getByRole('button', { name: 'Yes, show it' }).click();
    assert.equal(await page.locator('.solution pre').innerText(), (await solutions('noack'))[0].join('\n'));

    // Restart the task (Reset), then complete the lesson by typing the solutions.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    assert.match(await par.innerText(), /yours 0/);
    await complete(page, 'noack', { shots: true });

    // The second lesson.
    await openLesson(page, 'poison-messages');
    await complete(page, 'poison-messages');

    // Progress is saved in this browser, per lesson version.
    await page.getByRole('button', { name: 'All lessons' }).click();
    assert.equal(await page.locator('[data-lesson="noack"] .lesson-status').innerText(), 'done');
    assert.equal(await page.locator('[data-lesson="poison-messages"] .lesson-status').innerText(), 'done');
    await page.reload();
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.waitForSelector('.lesson-card');
    assert.equal(await page.locator('[data-lesson="noack"] .lesson-status').innerText(), 'done');
    const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('streamlab.lesson.')).sort());
    const version = async (id) => (await readFile(join(root, 'lessons', `${id}.toml`), 'utf8')).match(/^version = (\d+)$/m)[1];
    assert.deepEqual(keys, [`streamlab.lesson.noack@${await version('noack')}`, `streamlab.lesson.poison-messages@${await version('poison-messages')}`]);
  });
});

test('a new attempt plays a hidden variant, so the remembered answer fails', async () => {
  await withPage({ search: '?lesson=noack' }, async (page) => {
    await page.waitForSelector('.lesson .task');
    await page.getByRole('button', { name: 'Start over' }).click();
    await page.waitForSelector('.lesson .task');
    const [first] = await solutions('noack');
    for (const line of first) await type(page, line);
    const result = await checkResult(page);
    assert.match(result, /Not yet/, 'the solution as written does not fit the variant');
    // The variant's own solution does.
    await page.getByRole('button', { name: 'Show solution' }).click();
    await page.getByRole('button', { name: 'Yes, show it' }).click();
    const lines = (await page.locator('.solution pre').innerText()).split('\n');
    assert.notDeepEqual(lines, first);
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    for (const line of lines) await type(page, line);
    assert.match(await checkResult(page), /Goal reached/);
  });
});

test('disabled commands are refused, predictions run in the console, the sandbox and the lesson keep their own sessions', async () => {
  await withPage({ search: '?lesson=ack-is-not-delete' }, async (page) => {
    await page.waitForSelector('.lesson .task');
    assert.match(await page.locator('.lesson .disabled').innerText(), /XDEL/);
    await type(page, 'XDEL anything 1-0');
    assert.match(await lastEntry(page), /turned off in this task/);
    assert.match(await page.locator('.lesson .par').innerText(), /yours 0/);

    // A prediction, once answered right, can run in the console.
    const tasks = await tasksOf('ack-is-not-delete');
    const predict = tasks.findIndex((t) => t.kind === 'predict');
    await page.locator('.task-list .task-link').nth(predict).click();
    await page.waitForSelector('.predict-command');
    const command = (await page.locator('.predict-command code').innerText()).replace(/^\w+> /, '');
    await answerQuiz(page, tasks[predict]);
    await page.getByRole('button', { name: 'Run it in the console' }).click();
    assert.ok((await lastEntry(page)).includes(`> ${command}\n`), await lastEntry(page));

    await page.getByRole('button', { name: 'Sandbox' }).click();
    assert.equal(await page.locator('.lesson').count(), 0);
    // The sandbox is the learner's own (empty here), not the lesson's.
    await type(page, 'EXISTS mail');
    assert.match(await lastEntry(page), /\(integer\) 0/);
    // Reopened, the lesson resumes where it was, its session and scrollback with it.
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.locator('[data-lesson="ack-is-not-delete"] .lesson-open').click();
    await page.waitForSelector('.predict-command');
    assert.ok((await lastEntry(page)).includes(`> ${command}\n`), await lastEntry(page));
    assert.match(await page.locator('section.right').innerText(), /mail/);
  });
});

test('lessons load from a URL or a pasted file, parsed first, errors with line numbers', async () => {
  const good = await readFile(join(root, 'lessons', 'noack.toml'), 'utf8');
  await withPage({ width: 390, height: 844 }, async (page) => {
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.waitForSelector('.lesson-card');
    const broken = good.replace(/^minutes = \d+$/m, (line) => `${line}\nminuets = 7`);
    const line = broken.split('\n').findIndex((l) => l.startsWith('minuets')) + 1;
    await page.fill('#lesson-paste', broken);
    await page.getByRole('button', { name: 'Check and play' }).click();
    const problems = await page.locator('.problems').innerText();
    assert.match(problems, new RegExp(`pasted\\.toml:${line}:1: unknown field \`minuets\``));
    await screenshot(page, 'lesson-load-errors-phone.png');

    await page.fill('#lesson-paste', good);
    await page.getByRole('button', { name: 'Check and play' }).click();
    await page.waitForSelector('.lesson .task');
    assert.deepEqual(await axe(page), [], 'axe on the player at phone width');
    await screenshot(page, 'lesson-view-phone.png');
  });
  // ?lesson=URL fetches, validates and plays.
  await withPage({ search: '?lesson=' + encodeURIComponent('lessons/poison-messages.toml') }, async (page) => {
    await page.waitForSelector('.lesson .task');
    assert.match(await page.locator('#lesson-title').innerText(), /Poison messages/);
  });
  await withPage({ search: '?lesson=' + encodeURIComponent('lessons/missing.toml'), ignore: /status of 404/ }, async (page) => {
    await page.waitForSelector('.problems');
    assert.match(await page.locator('.problems').innerText(), /HTTP 404/);
  });
});

test('the player is usable with the keyboard alone', async () => {
  await withPage({ search: '?lesson=noack' }, async (page) => {
    await page.waitForSelector('.lesson .task');
    // Tab to Check and press Enter: the result is announced.
    const check = page.getByRole('button', { name: 'Check', exact: true });
    await check.focus();
    await page.keyboard.press('Enter');
    assert.match(await page.locator('.check-result').innerText(), /Not yet/);
    const outline = await check.evaluate((e) => getComputedStyle(e).outlineStyle);
    assert.notEqual(outline, 'none', 'focus is visible');
    // The choice quiz by keyboard: arrows pick a radio (the options are shuffled: the learner
    // reads them), Enter answers.
    const tasks = await tasksOf('noack');
    const choice = tasks.findIndex((t) => t.kind === 'choice');
    await page.locator('.task-list .task-link').nth(choice).focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('.quiz .option input');
    assert.ok(await tabTo(page, (a) => a.type === 'radio'));
    const right = tasks[choice].right.map((t) => t.replaceAll('*', ''));
    const label = () => page.evaluate(() => document.activeElement.labels[0].innerText.trim());
    await page.keyboard.press('Space');
    for (let n = 0; n < 8 && !right.includes(await label()); n++) await page.keyboard.press('ArrowDown');
    assert.ok(right.includes(await label()), `${await label()} is a right option`);
    assert.ok(await tabTo(page, (a) => a.textContent.trim() === 'Answer'));
    await page.keyboard.press('Enter');
    assert.match(await page.locator('.answer').innerText(), /✓ Right/);
  });
});
