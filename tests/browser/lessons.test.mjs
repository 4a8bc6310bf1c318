// End-to-end tests of the lesson player in headless Chromium: the list with saved progress,
// two lessons completed by typing their solutions, a failing check with its message, Show goal,
// quizzes (multiple choice, predict with options and typed), disabled commands, the sandbox,
// hidden variants, and lessons loaded from a URL or a pasted file. Needs dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, withPage as withPageAt, type, lastEntry, screenshot, root, axe } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

// The lessons' address is the page's search (`?lesson=...`).
const withPage = ({ search = '', ...options }, body) => withPageAt(server.url + search, options, body);

/** Each task's reference solution as written in the lesson file (empty for quizzes). */
async function solutions(id) {
  const text = await readFile(join(root, 'lessons', `${id}.toml`), 'utf8');
  return text.split(/^\[\[task\]\]$/m).slice(1).map((block) => {
    const found = block.match(/^solution = \[([\s\S]*?)\]\s*$/m);
    return found ? [...found[1].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`)) : [];
  });
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
 * Answers the current quiz: a wrong option (or a wrong typed reply) first, then, after "Try
 * again", the right one. Returns what the wrong answer showed.
 */
async function answerQuiz(page) {
  const typed = page.locator('.typed-reply');
  if (await typed.count()) {
    await typed.fill('no idea');
    await page.getByRole('button', { name: 'Answer' }).click();
    const wrong = await page.locator('.answer').innerText();
    assert.match(wrong, /Not quite/);
    const reply = await page.locator('.answer pre.reply').innerText();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.typed-reply').fill(reply);
    await page.getByRole('button', { name: 'Answer' }).click();
    assert.match(await page.locator('.answer').innerText(), /Right/);
    return wrong;
  }
  const options = page.locator('.quiz .option input');
  const count = await options.count();
  let wrong = null;
  for (let n = 0; n < count; n++) {
    await page.locator('.quiz .option input').nth(n).check();
    await page.getByRole('button', { name: 'Answer' }).click();
    const answer = await page.locator('.answer').innerText();
    if (/Right/.test(answer)) {
      // Every option explains itself once answered.
      assert.equal(await page.locator('.quiz .option .option-why').count(), count);
      return wrong;
    }
    wrong ??= answer;
    await page.getByRole('button', { name: 'Try again' }).click();
  }
  assert.fail('no option was right');
}

/** Completes the open lesson: types each reach-state solution, answers each quiz. */
async function complete(page, id, { shots = false } = {}) {
  const all = await solutions(id);
  for (let task = 0; task < all.length; task++) {
    await page.locator('.task-list .task-link').nth(task).click();
    await page.waitForSelector(`.task h3:has-text("Task ${task + 1}:")`);
    if (all[task].length) {
      for (const line of all[task]) await type(page, line);
      const result = await checkResult(page);
      assert.match(result, /Goal reached in \d+ commands \(par \d+\)/, `${id} task ${task + 1}: ${result}`);
    } else {
      const wrong = await answerQuiz(page);
      if (shots && !(await page.locator('.typed-reply').count())) {
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
    assert.equal(await page.locator('.lesson-section').count(), 4);
    assert.equal(await page.locator('.lesson-card').count(), 17);
    assert.deepEqual(await axe(page), [], 'axe on the lesson list');
    await screenshot(page, 'lesson-list.png');

    await page.locator('[data-lesson="noack"] .lesson-open').click();
    await page.waitForSelector('.lesson .task');
    // The intro's demos ran, with their replies.
    assert.match(await page.locator('.lesson .demo').first().innerText(), /> XREADGROUP/);
    assert.match(await page.locator('.lesson .par').innerText(), /Par 2 · your commands 0/);
    await screenshot(page, 'lesson-view.png');

    // A check that fails on purpose says what is wrong, in an aria-live region.
    assert.equal(await page.locator('.check-result').getAttribute('aria-live'), 'polite');
    await type(page, 'XGROUP CREATE clicks billing $');
    const failed = await checkResult(page);
    assert.match(failed, /biller should hold 3 recoverable clicks; it holds 0\./);
    assert.match(await page.locator('.lesson .par').innerText(), /your commands 1/);
    assert.deepEqual(await axe(page), [], 'axe on a failed check');
    await screenshot(page, 'lesson-check-failed.png');

    // Progressive hints.
    await page.getByRole('button', { name: 'Hint' }).click();
    assert.equal(await page.locator('.hints li').count(), 1);
    await page.getByRole('button', { name: /Next hint/ }).click();
    assert.equal(await page.locator('.hints li').count(), 2);

    // Show goal draws the state after the reference solution beside the learner's.
    await page.getByRole('button', { name: 'Show goal' }).click();
    await page.waitForSelector('.compare .goal');
    assert.match(await page.locator('.compare .goal').innerText(), /billing/);
    assert.deepEqual(await axe(page), [], 'axe with the goal shown');
    await screenshot(page, 'lesson-goal.png');
    await page.getByRole('button', { name: 'Show goal' }).click();
    assert.equal(await page.locator('.compare').count(), 0);

    // The solution needs a confirmation.
    await page.getByRole('button', { name: 'Show solution' }).click();
    await page.getByRole('button', { name: 'Not yet' }).click();
    assert.equal(await page.locator('.solution').count(), 0);
    await page.getByRole('button', { name: 'Show solution' }).click();
    await page.getByRole('button', { name: 'Yes, show it' }).click();
    assert.match(await page.locator('.solution pre').innerText(), /biller> XREADGROUP GROUP billing biller STREAMS clicks >/);

    // Restart the task (Reset), then complete the lesson by typing the solutions.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    assert.match(await page.locator('.lesson .par').innerText(), /your commands 0/);
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
    assert.deepEqual(keys, ['streamlab.lesson.noack@1', 'streamlab.lesson.poison-messages@1']);
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

test('disabled commands are refused, typed predictions are checked, the sandbox keeps the state', async () => {
  await withPage({ search: '?lesson=ack-is-not-delete' }, async (page) => {
    await page.waitForSelector('.lesson .task');
    assert.match(await page.locator('.lesson .disabled').innerText(), /XDEL/);
    await type(page, 'XDEL anything 1-0');
    assert.match(await lastEntry(page), /turned off in this task/);
    assert.match(await page.locator('.lesson .par').innerText(), /your commands 0/);

    await openLesson(page, 'ack-before-work');
    // Task 3 asks for the reply typed.
    await page.locator('.task-list .task-link').nth(2).click();
    await page.waitForSelector('.typed-reply');
    const wrong = await answerQuiz(page);
    assert.match(wrong, /It prints:\s*\(integer\) 2/);
    // Once answered, the command can run in the console.
    await page.getByRole('button', { name: 'Run it in the console' }).click();
    assert.match(await lastEntry(page), /XLEN orders\n\(integer\) 2/);

    await page.getByRole('button', { name: 'Sandbox' }).click();
    assert.equal(await page.locator('.lesson').count(), 0);
    // The lesson's session stays in the playground.
    assert.match(await page.locator('.right').innerText(), /orders/);
    await type(page, 'XLEN orders');
    assert.match(await lastEntry(page), /\(integer\) 2/);
  });
});

test('lessons load from a URL or a pasted file, validated first, errors with line numbers', async () => {
  const good = await readFile(join(root, 'lessons', 'noack.toml'), 'utf8');
  await withPage({ width: 390, height: 844 }, async (page) => {
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.waitForSelector('.lesson-card');
    const broken = good.replace('minutes = 7', 'minutes = 7\nminuets = 7');
    const line = broken.split('\n').findIndex((l) => l.startsWith('minuets')) + 1;
    await page.fill('#lesson-paste', broken);
    await page.getByRole('button', { name: 'Check and play' }).click();
    const problems = await page.locator('.problems').innerText();
    assert.match(problems, new RegExp(`pasted\\.toml:${line}:1: unknown field \`minuets\``));
    await screenshot(page, 'lesson-load-errors-phone.png');

    // A lesson that parses but fails validation: its goal already passes at the start.
    const trivial = good.replace('equals = 3', 'equals = 0');
    await page.fill('#lesson-paste', trivial);
    await page.getByRole('button', { name: 'Check and play' }).click();
    assert.match(await page.locator('.problems').innerText(), /pasted\.toml:\d+/);

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
    // The choice quiz by keyboard: arrows pick a radio, Enter answers.
    await page.locator('.task-list .task-link').nth(2).focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('.quiz .option input');
    await page.locator('.quiz .option input').first().focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.match(await page.locator('.answer').innerText(), /Right/);
  });
});
