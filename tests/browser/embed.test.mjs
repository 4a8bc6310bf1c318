// The embedding kit in headless Chromium: the example course page (a sandbox, a lesson and a
// quiz in an iframe), ten widgets sharing one wasm download, a page with broken widgets, the
// iframe's message rules, the player, readonly and pictures-only widgets with an inline lesson
// played to lesson-complete and destroy(), and README's three snippets pasted into blank pages.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/embed.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { root, serveDist, withBrowser, screenshot, lessonTasks, axe, tinyLesson } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
// Math.random is 0 in every page: a lesson widget without `attempt` plays attempt 0.
const withPage = (options, body) => withBrowser({ random: 0, ...options }, body);
const RICH = await readFile(join(root, 'tests', 'browser', 'fixtures', 'rich.toml'), 'utf8');
after(async () => { await server.close(); });

/** Serves `html` at `path` of the dist server's origin (or another origin's URL). */
async function virtualPage(page, url, html) {
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
}

/** The events the page logged (course.js keeps them in window.courseEvents). */
const events = (page, from, type) => page.evaluate(([f, t]) =>
  window.courseEvents.filter((e) => e.from === f && (!t || e.type === t)), [from, type]);

async function waitEvent(page, from, type, count = 1) {
  await page.waitForFunction(([f, t, n]) =>
    window.courseEvents.filter((e) => e.from === f && e.type === t).length >= n, [from, type, count]);
  return (await events(page, from, type)).at(-1).detail;
}

async function typeIn(widget, line) {
  const input = widget.locator('#console-input');
  await input.fill(line);
  await input.press('Enter');
}

test('the course page: sandbox, lesson and quiz raise the events they document', async () => {
  const tasks = lessonTasks(await readFile(join(root, 'lessons', 'where-a-group-starts.toml'), 'utf8'));
  const questions = tasks.map((t, n) => n).filter((n) => tasks[n].kind !== 'reach-state');
  await withPage({}, async (page) => {
    await page.goto(server.url + 'examples/course.html');
    // Record every raw message from the frame to check the envelope itself.
    await page.evaluate(() => {
      window.rawMessages = [];
      window.addEventListener('message', (e) => window.rawMessages.push({ origin: e.origin, data: e.data }));
    });

    // The sandbox, under its paragraph.
    const ready = await waitEvent(page, '#sandbox', 'ready');
    assert.deepEqual(ready, { mode: 'sandbox', profile: 'redis-8.10', lesson: null, version: null, tasks: 0, attempt: null, variant: null });
    const sandbox = page.locator('#sandbox');
    await typeIn(sandbox, 'XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >');
    const command = await waitEvent(page, '#sandbox', 'command');
    assert.equal(command.input, 'XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >');
    assert.equal(command.conn, 'alice');
    assert.equal(command.ok, true);
    assert.match(command.reply, /"1-0"/);
    await sandbox.locator('.pel-card').first().waitFor();
    await typeIn(sandbox, 'XADD jobs 1-0 type dup');
    const failed = await waitEvent(page, '#sandbox', 'command', 2);
    assert.equal(failed.ok, false);
    assert.match(failed.reply, /^\(error\) ERR The ID specified in XADD is equal or smaller/);
    // Methods on the element.
    const reply = await page.evaluate(() => document.getElementById('sandbox').run('XLEN jobs'));
    assert.equal(reply.reply, '(integer) 2');
    const token = await page.evaluate(() => document.getElementById('sandbox').getState());
    assert.match(token, /XREADGROUP/);
    assert.match(await page.evaluate(() => document.getElementById('sandbox').exportScript()), /XADD jobs 1-0 type email/);
    await page.evaluate(() => document.getElementById('sandbox').undo());
    await page.evaluate(() => document.getElementById('sandbox').reset());
    await page.waitForFunction(() => !document.getElementById('sandbox').shadowRoot.querySelector('.pel-card'));
    await page.evaluate((t) => document.getElementById('sandbox').setState(t), token);
    await sandbox.locator('.pel-card').first().waitFor();
    const rejected = await page.evaluate(() => document.getElementById('sandbox').check().then(() => 'resolved', (e) => e.message));
    assert.match(rejected, /no lesson/);

    // The lesson: a wrong path first (the lesson foresaw it), a hint, then the right one.
    await page.locator('#lesson').scrollIntoViewIfNeeded();
    const lessonReady = await waitEvent(page, '#lesson', 'ready');
    assert.deepEqual([lessonReady.mode, lessonReady.profile, lessonReady.lesson, lessonReady.tasks, lessonReady.attempt, lessonReady.variant],
      ['lesson', 'redis-8.2', 'where-a-group-starts', tasks.length, 0, 0]);
    const lesson = page.locator('#lesson');
    await typeIn(lesson, 'XGROUP CREATE orders backfill $');
    await lesson.getByRole('button', { name: 'Check' }).click();
    const wrong = await waitEvent(page, '#lesson', 'check');
    assert.deepEqual([wrong.task, wrong.passed, wrong.commands, wrong.par], [0, false, 1, 1]);
    assert.ok(wrong.failed.length > 0 && wrong.hints.length > 0, JSON.stringify(wrong));
    assert.equal(typeof wrong.misconception, 'string', 'the wrong path is recognised');
    await lesson.getByText(wrong.misconception.replaceAll('`', '').slice(0, 30)).waitFor();
    await lesson.getByRole('button', { name: /^Hint/ }).click();
    await lesson.locator('.hints li').getByText(wrong.hints[0].replaceAll('`', '').slice(0, 30)).waitFor();
    await lesson.getByRole('button', { name: 'Reset' }).click();
    await typeIn(lesson, tasks[0].solution[0]);
    const checked = await page.evaluate(() => document.getElementById('lesson').check());
    assert.deepEqual(checked, { task: 0, lessonTask: 0, passed: true, failed: [], misconception: null, hints: [], commands: 1, par: 1 });
    const done = await waitEvent(page, '#lesson', 'task-complete');
    assert.deepEqual(done, { task: 0, lessonTask: 0, score: 2, max: 3, commands: 1, par: 1, hintsUsed: 1, solutionViewed: false });
    const progress = await waitEvent(page, '#lesson', 'progress');
    const max = tasks.reduce((n, t) => n + (t.kind === 'reach-state' ? 3 : 1), 0);
    assert.deepEqual(progress, { lesson: 'where-a-group-starts', done: 1, total: tasks.length, score: 2, max });
    // The next task shows its solution only after a confirmation.
    await lesson.getByRole('button', { name: 'Next →' }).click();
    await lesson.getByRole('heading', { name: tasks[1].title.replaceAll('`', '') }).waitFor();
    await lesson.getByRole('button', { name: 'Show solution' }).click();
    assert.equal(await lesson.locator('.solution').count(), 0);
    await lesson.getByRole('button', { name: 'Yes, show it' }).click();
    await lesson.locator('.solution').getByText(tasks[1].solution[0]).waitFor();

    // The quiz in the iframe: events come as postMessage envelopes to this page's origin.
    // Options are tried in the order shown until one is right.
    await page.locator('#quiz').scrollIntoViewIfNeeded();
    const quizReady = await waitEvent(page, '#quiz', 'ready');
    // The iframe answers as the lesson's server, and says so.
    assert.deepEqual([quizReady.mode, quizReady.profile, quizReady.tasks, quizReady.attempt], ['quiz', 'redis-8.2', questions.length, 0]);
    assert.ok(questions[0] > 0, 'the quiz skips the lesson\'s first task');
    const quiz = page.frameLocator('#quiz');
    const count = await quiz.locator('.quiz .option input').count();
    let tries = 0;
    for (let n = 0; n < count; n++) {
      await quiz.locator('.quiz .option input').nth(n).check();
      await quiz.getByRole('button', { name: 'Answer' }).click();
      const answer = await waitEvent(page, '#quiz', 'quiz-answer', ++tries);
      // Question 1 is task 0, whatever its place in the lesson (lessonTask, as the grader counts).
      assert.deepEqual([answer.task, answer.lessonTask], [0, questions[0]]);
      assert.equal(typeof answer.option, 'number');
      assert.deepEqual([answer.options, answer.order, answer.typed], [null, null, null]);
      if (answer.correct) break;
      await quiz.getByRole('button', { name: 'Try again' }).click();
    }
    assert.deepEqual(await waitEvent(page, '#quiz', 'task-complete'),
      { task: 0, lessonTask: questions[0], score: tries === 1 ? 1 : 0, max: 1, commands: 0, par: 0, hintsUsed: 0, solutionViewed: false });
    const envelope = await page.evaluate(() => window.rawMessages.find((m) => m.data.type === 'quiz-answer'));
    assert.equal(envelope.origin, new URL(server.url).origin);
    assert.deepEqual(Object.keys(envelope.data).sort(), ['payload', 'source', 'type', 'v']);
    assert.deepEqual([envelope.data.source, envelope.data.v], ['stream-lab', 1]);

    // Method calls by message: the right shape from the right origin is answered; others not.
    const answers = await page.evaluate(async () => {
      const frame = document.getElementById('quiz').contentWindow;
      const before = window.rawMessages.length;
      const send = (data) => frame.postMessage(data, '*');
      send({ source: 'stream-lab', v: 2, type: 'call', payload: { id: 1, method: 'getState', args: [] } });
      send({ source: 'other', v: 1, type: 'call', payload: { id: 2, method: 'getState', args: [] } });
      send({ source: 'stream-lab', v: 1, type: 'call', payload: { id: 3, method: 'constructor', args: [] } });
      send('getState');
      send({ source: 'stream-lab', v: 1, type: 'call', payload: { id: 4, method: 'getState', args: [] } });
      await new Promise((done) => setTimeout(done, 500));
      return window.rawMessages.slice(before).filter((m) => m.data.type === 'result').map((m) => m.data.payload);
    });
    assert.deepEqual(answers.map((a) => a.id), [4]);
    assert.equal(typeof answers[0].value, 'string');

    const events = await page.evaluate(() => window.courseEvents.map((e) => `${e.from} ${e.type}`));
    for (const expected of ['#sandbox ready', '#sandbox command', '#lesson check', '#lesson task-complete', '#lesson progress', '#quiz quiz-answer', '#quiz resize']) {
      assert.ok(events.includes(expected), `${expected} was logged`);
    }
    assert.ok(await page.locator('#events li').count() > 10, 'the page lists the events');
    await screenshot(page, 'embed-course.png');
  });
});

test('ten widgets on one page share one download of the wasm; each has its own session and instance', async () => {
  await withPage({}, async (page) => {
    const fetched = [];
    page.on('request', (r) => { if (/streamlab(_bg\.wasm|\.js)(#.*)?$/.test(r.url())) fetched.push(new URL(r.url()).pathname); });
    const widgets = Array.from({ length: 10 }, (_, i) =>
      `<stream-lab id="w${i}" loading="eager" layout="console" setup="XADD only${i} 1-0 n ${i}"></stream-lab>`).join('\n');
    await virtualPage(page, server.url + 'test/ten.html', `<!doctype html><title>ten</title>
      <script src="../embed.js"></script>
      <script>window.readyCount = 0; document.addEventListener('ready', () => window.readyCount++);</script>
      ${widgets}`);
    await page.goto(server.url + 'test/ten.html');
    await page.waitForFunction(() => window.readyCount === 10);
    // The wasm downloads and compiles once; each widget's instance imports the glue under its
    // own fragment, a module of its own from the one download.
    assert.deepEqual(fetched.sort(), ['/streamlab.js', '/streamlab_bg.wasm']);
    const memories = await page.evaluate(() => Promise.all([...document.querySelectorAll('stream-lab')].map((_, i) =>
      import(new URL(`../streamlab.js#instance-${i}`, location.href).href).then((m) => m.initSync().memory))));
    assert.equal(new Set(memories).size, 10, 'ten instances, ten memories');
    const replies = await page.evaluate(async () => Promise.all([...document.querySelectorAll('stream-lab')]
      .map((w, i) => w.run(`EXISTS only${i} only${(i + 1) % 10}`).then((r) => r.reply))));
    assert.deepEqual(replies, Array(10).fill('(integer) 1'));
  });
});

test('loading: lazy waits until the widget is near, click waits for the click', async () => {
  await withPage({}, async (page) => {
    let wasm = 0;
    page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm++; });
    await virtualPage(page, server.url + 'test/lazy.html', `<!doctype html><title>lazy</title>
      <script src="../embed.js"></script>
      <stream-lab id="click" loading="click" layout="console"></stream-lab>
      <div style="height:4000px"></div>
      <stream-lab id="lazy" layout="console"></stream-lab>`);
    await page.goto(server.url + 'test/lazy.html');
    await page.locator('#lazy').getByText('StreamLab loads when you scroll here').waitFor({ state: 'attached' });
    await page.waitForTimeout(300);
    assert.equal(wasm, 0, 'nothing loads before it is needed');
    await page.locator('#click').getByRole('button', { name: 'Start the StreamLab console' }).click();
    await page.locator('#click').locator('#console-input').waitFor();
    assert.equal(wasm, 1);
    assert.equal(await page.locator('#lazy').locator('#console-input').count(), 0);
    await page.locator('#lazy').scrollIntoViewIfNeeded();
    await page.locator('#lazy').locator('#console-input').waitFor();
    assert.equal(wasm, 1, 'the second widget reuses the download');
  });
});

test('persist=local keeps the session across reloads; theme picks the colours', async () => {
  await withPage({}, async (page) => {
    await virtualPage(page, server.url + 'test/keep.html', `<!doctype html><title>keep</title>
      <script src="../embed.js"></script>
      <stream-lab id="keep" persist="local" theme="dark" loading="eager" layout="console"></stream-lab>
      <stream-lab id="plain" loading="eager" layout="console"></stream-lab>`);
    await page.goto(server.url + 'test/keep.html');
    await page.locator('#plain').locator('#console-input').waitFor();
    await page.evaluate(() => Promise.all([document.getElementById('keep').run('XADD kept 1-0 a 1'),
      document.getElementById('plain').run('XADD gone 1-0 a 1')]));
    await page.reload();
    await page.locator('#plain').locator('#console-input').waitFor();
    const [kept, gone] = await page.evaluate(() => Promise.all([document.getElementById('keep').run('XLEN kept'),
      document.getElementById('plain').run('XLEN gone')]));
    assert.deepEqual([kept.reply, gone.reply], ['(integer) 1', '(integer) 0']);
    const colours = await page.evaluate(() => ['keep', 'plain'].map((id) =>
      getComputedStyle(document.getElementById(id)).getPropertyValue('--bg').trim()));
    assert.deepEqual(colours, ['#14161a', '#f7f7f5']);
  });
});

test('a lesson widget refuses what its task turns off, typed, pasted or sent by run()', async () => {
  await withPage({}, async (page) => {
    await virtualPage(page, server.url + 'test/refuse.html', `<!doctype html><title>refuse</title>
      <script src="../embed.js"></script>
      <stream-lab id="refuse" mode="lesson" lesson="claim-and-xnack" loading="eager" layout="console"></stream-lab>`);
    await page.goto(server.url + 'test/refuse.html');
    const widget = page.locator('#refuse');
    await widget.locator('#console-input').waitFor();
    const notice = widget.locator('.notice');
    // The first task turns XAUTOCLAIM and XCLAIM off; w1 holds the two pending orders.
    await typeIn(widget, 'XAUTOCLAIM emails mailers w2 0 0-0');
    await notice.getByText('`XAUTOCLAIM emails mailers w2 0 0-0` is turned off in this task').waitFor();
    await typeIn(widget, 'XLEN emails');
    await notice.waitFor({ state: 'detached' });
    // A paste runs the lines the task allows and refuses the others.
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData('text', 'XADD emails 5-0 order 1005\nXCLAIM emails mailers w2 0 2-0');
      const input = document.getElementById('refuse').shadowRoot.getElementById('console-input');
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await notice.getByText('`XCLAIM emails mailers w2 0 2-0` is turned off in this task').waitFor();
    // The page's run() meets the same rule, and its reply says why.
    const refused = await page.evaluate(() => document.getElementById('refuse').run('XCLAIM emails mailers w2 0 3-0'));
    assert.equal(refused.ok, false);
    assert.equal(refused.reply, '(error) `XCLAIM emails mailers w2 0 3-0` is turned off in this task: reach the goal without it');
    const [length, pending] = await page.evaluate(() => Promise.all(['XLEN emails', 'XPENDING emails mailers - + 10']
      .map((line) => document.getElementById('refuse').run(line))));
    assert.equal(length.reply, '(integer) 5');
    assert.match(pending.reply, /"w1"/);
    assert.doesNotMatch(pending.reply, /"w2"/);
  });
});

test('broken widgets show what is wrong and the others still work', async () => {
  await withPage({}, async (page) => {
    await page.route(server.url + 'test/broken.toml', (route) => route.fulfill({ body: 'id = "broken"\nversion = "one"\n' }));
    await virtualPage(page, server.url + 'test/broken.html', `<!doctype html><title>broken</title>
      <script src="../embed.js"></script>
      <script>window.seen = []; for (const t of ['ready', 'error']) document.addEventListener(t, (e) => window.seen.push([e.target.id, t, e.detail]));</script>
      <stream-lab id="bad-mode" mode="arcade" loading="eager"></stream-lab>
      <stream-lab id="bad-url" mode="lesson" lesson="broken.toml" loading="eager"></stream-lab>
      <stream-lab id="bad-inline" mode="lesson" loading="eager"><script type="application/toml">
id = "html"
title = "<img src=x onerror=alert(1)>"
</script></stream-lab>
      <stream-lab id="no-lesson" mode="quiz" loading="eager"></stream-lab>
      <stream-lab id="bad-profile" profile="redis-6.0" loading="eager"></stream-lab>
      <stream-lab id="good" loading="eager" layout="console" setup="XADD s 1-0 f v"></stream-lab>
      <stream-lab id="bad-setup" loading="eager" layout="console" setup="XADD s 1-0 f v
XGROUP CREATE s g 0 BOGUS
XADD s 2-0 f v"></stream-lab>`);
    await page.goto(server.url + 'test/broken.html');
    await page.waitForFunction(() => window.seen.length >= 8);
    // A setup line that fails raises `error` naming it, then the widget is ready all the same:
    // the other lines ran, and its console shows the error.
    const setup = await page.evaluate(() => window.seen.filter(([id]) => id === 'bad-setup').map(([, t, d]) => [t, d]));
    const reply = "(error) ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.";
    assert.deepEqual(setup[0], ['error', {
      message: `setup[1] failed: \`XGROUP CREATE s g 0 BOGUS\` printed ${reply}`, index: 1, input: 'XGROUP CREATE s g 0 BOGUS', reply,
    }]);
    assert.deepEqual([setup.length, setup[1][0], setup[1][1].mode], [2, 'ready', 'sandbox']);
    await page.locator('#bad-setup').getByText(reply).waitFor();
    assert.equal((await page.evaluate(() => document.getElementById('bad-setup').run('XLEN s'))).reply, '(integer) 2');
    const seen = Object.fromEntries(await page.evaluate(() => window.seen.map(([id, t, d]) => [id, [t, d.message ?? d.mode]])));
    assert.deepEqual(seen.good, ['ready', 'sandbox']);
    assert.match(seen['bad-mode'][1], /mode must be one of sandbox, readonly, lesson, quiz, player, not "arcade"/);
    assert.match(seen['bad-url'][1], /the lesson has problems:\nbroken\.toml:2/);
    assert.match(seen['bad-inline'][1], /the lesson has problems/);
    assert.match(seen['no-lesson'][1], /mode quiz needs a lesson/);
    assert.match(seen['bad-profile'][1], /unknown profile 'redis-6.0'/);
    for (const id of ['bad-mode', 'bad-url', 'bad-inline', 'no-lesson', 'bad-profile']) {
      const box = page.locator(`#${id}`).locator('.sl-error');
      assert.ok(await box.isVisible(), `${id} shows its error`);
      assert.match(await box.innerText(), /StreamLab could not start/);
    }
    // Lesson text never becomes HTML.
    assert.equal(await page.evaluate(() => document.getElementById('bad-inline').shadowRoot.querySelectorAll('img').length), 0);
    const good = await page.evaluate(() => document.getElementById('good').run('XLEN s'));
    assert.equal(good.reply, '(integer) 1');
    await screenshot(page, 'embed-broken.png');
  });
});

test('an iframe ignores calls from another origin and posts nothing to it', async () => {
  await withPage({ ignore: /postMessage/ }, async (page) => {
    // A second server (another port, so another origin) serves the host page; a routed page
    // would count as public and be refused the loopback frame.
    const frameOrigin = new URL(server.url).origin;
    const host = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>host</title>
      <script>window.got = []; addEventListener('message', (e) => window.got.push(e.data));</script>
      <iframe id="f" src="${server.url}embed.html?layout=console&origin=${encodeURIComponent(frameOrigin)}"></iframe>`);
    });
    await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
    const other = `http://127.0.0.1:${host.address().port}/`;
    after(() => new Promise((ok) => host.close(ok)));
    await page.goto(other + 'test/host.html');
    const frame = page.frameLocator('#f');
    await frame.locator('#console-input').waitFor();
    await page.evaluate(() => document.getElementById('f').contentWindow.postMessage(
      { source: 'stream-lab', v: 1, type: 'call', payload: { id: 1, method: 'run', args: ['XADD hacked * a 1'] } }, '*'));
    await page.waitForTimeout(500);
    assert.deepEqual(await page.evaluate(() => window.got), [], 'events go only to the origin the frame was given');
    const inFrame = page.frames().find((f) => f.url().includes('embed.html'));
    assert.equal(await inFrame.evaluate(() => document.getElementById('widget').shadowRoot.textContent.includes('hacked')), false);
  });
});

test('player, readonly and pictures widgets; an inline lesson to lesson-complete; hints and solution off; destroy()', async () => {
  const inline = tinyLesson('tiny');
  await withPage({}, async (page) => {
    await virtualPage(page, server.url + 'test/modes.html', `<!doctype html><title>modes</title>
      <script src="${server.url}embed.js"></script>
      <script>
        window.seen = [];
        for (const type of ['ready', 'error', 'quiz-answer', 'task-complete', 'progress', 'lesson-complete']) {
          document.addEventListener(type, (e) => window.seen.push([e.target.id, type, e.detail]));
        }
      </script>
      <stream-lab id="player" mode="player" lesson="where-a-group-starts" loading="eager" layout="console"></stream-lab>
      <stream-lab id="ro" mode="readonly" loading="eager" setup="XADD jobs 1-0 type email"></stream-lab>
      <stream-lab id="pics" layout="pictures" loading="eager" setup="XADD jobs 1-0 type email"></stream-lab>
      <stream-lab id="strict" mode="lesson" lesson="where-a-group-starts" hints="false" solution="never" loading="eager" layout="console"></stream-lab>
      <stream-lab id="inline" mode="quiz" loading="eager"><script type="application/toml">${inline}</script></stream-lab>`);
    await page.goto(server.url + 'test/modes.html');
    await page.waitForFunction(() => window.seen.filter(([, type]) => type === 'ready' || type === 'error').length >= 5);
    assert.deepEqual(await page.evaluate(() => window.seen.filter(([, type]) => type === 'error')), [], 'no widget failed');
    const ready = Object.fromEntries(await page.evaluate(() =>
      window.seen.filter(([, type]) => type === 'ready').map(([id, , detail]) => [id, detail])));
    const where = lessonTasks(await readFile(join(root, 'lessons', 'where-a-group-starts.toml'), 'utf8'));
    assert.deepEqual([ready.player.mode, ready.player.lesson, ready.player.tasks], ['player', 'where-a-group-starts', where.length]);
    assert.equal(ready.ro.mode, 'readonly');
    assert.deepEqual([ready.inline.mode, ready.inline.lesson, ready.inline.tasks, ready.inline.attempt], ['quiz', 'tiny', 1, 0]);

    // The player lists every task to move between.
    const player = page.locator('#player');
    assert.equal(await player.getByRole('navigation', { name: 'Tasks' }).locator('li').count(), where.length);

    // Readonly shows the setup's commands and no way to type or step through history.
    const ro = page.locator('#ro');
    await ro.getByText('XADD jobs 1-0 type email').waitFor();
    assert.equal(await ro.locator('#console-input').count(), 0);
    assert.equal(await ro.getByRole('group', { name: 'History' }).count(), 0);

    // Pictures only: the stream is drawn, there is no console.
    const pics = page.locator('#pics');
    await pics.getByText('Stream jobs').waitFor();
    assert.equal(await pics.locator('#console-input').count(), 0);

    // hints="false" and solution="never": the reach-state task offers neither.
    const strict = page.locator('#strict');
    await strict.getByRole('button', { name: 'Check' }).waitFor();
    assert.equal(await strict.getByRole('button', { name: /^Hint/ }).count(), 0);
    assert.equal(await strict.getByRole('button', { name: 'Show solution' }).count(), 0);

    // The inline lesson's only question, answered: the lesson is complete.
    const quiz = page.locator('#inline');
    await quiz.getByLabel('XACK', { exact: true }).check();
    await quiz.getByRole('button', { name: 'Answer' }).click();
    await page.waitForFunction(() => window.seen.some(([id, type]) => id === 'inline' && type === 'lesson-complete'));
    const of = (type) => page.evaluate((t) => window.seen.filter(([id, k]) => id === 'inline' && k === t).map(([, , d]) => d), type);
    // The lesson's second task, the quiz's first question: task 0.
    assert.deepEqual((await of('quiz-answer')).map((a) => [a.task, a.lessonTask, a.option, a.correct]), [[0, 1, 0, true]]);
    assert.deepEqual(await of('lesson-complete'), [{ lesson: 'tiny', done: 1, total: 1, score: 1, max: 1 }]);
    assert.deepEqual((await of('progress')).at(-1), { lesson: 'tiny', done: 1, total: 1, score: 1, max: 1 });

    // destroy(): the widget empties and its methods refuse.
    await page.evaluate(() => document.getElementById('pics').destroy());
    assert.equal(await pics.getByText('Stream jobs').count(), 0);
    const refused = await page.evaluate(() => document.getElementById('pics').run('PING').then(() => 'ran', (e) => e.message));
    assert.match(refused, /not connected/);
    await screenshot(page, 'embed-modes.png');
  });
});

test("README's three snippets work pasted into a blank page", async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const snippet = (name) => {
    const found = readme.match(new RegExp('```html ' + name + '\\n([\\s\\S]*?)```'));
    assert.ok(found, `README has the ${name} snippet`);
    return found[1].replaceAll('https://streamlab.example/', server.url);
  };
  await withPage({}, async (page) => {
    const origin = new URL(server.url).origin;
    // The tag.
    await virtualPage(page, server.url + 'test/tag.html', `<!doctype html><title>tag</title>\n${snippet('embed-tag')}`);
    await page.goto(server.url + 'test/tag.html');
    const tag = page.locator('stream-lab').first();
    await typeIn(tag, 'XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >');
    await tag.locator('.pel-card').first().waitFor();
    await page.locator('stream-lab').nth(1).scrollIntoViewIfNeeded();
    await page.locator('stream-lab').nth(1).getByRole('button', { name: 'Check' }).waitFor();
    // The iframe, with this page as the course's origin.
    const iframe = snippet('embed-iframe').replace('https://course.example', encodeURIComponent(origin));
    await virtualPage(page, server.url + 'test/iframe.html', `<!doctype html><title>iframe</title>
      <script>window.got = []; addEventListener('message', (e) => window.got.push(e.data));</script>\n${iframe}`);
    await page.goto(server.url + 'test/iframe.html');
    await page.waitForFunction(() => window.got.some((m) => m.type === 'ready'));
    const frame = page.frameLocator('iframe');
    for (let n = 0; !(await page.evaluate(() => window.got.some((m) => m.type === 'quiz-answer' && m.payload.correct))); n++) {
      if (n > 0) await frame.getByRole('button', { name: 'Try again' }).click();
      await frame.locator('.quiz .option input').nth(n).check();
      await frame.getByRole('button', { name: 'Answer' }).click();
      await page.waitForFunction((k) => window.got.filter((m) => m.type === 'quiz-answer').length > k, n);
    }
    // The JavaScript API.
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    await virtualPage(page, server.url + 'test/js.html', `<!doctype html><title>js</title>\n${snippet('embed-js')}`);
    await page.goto(server.url + 'test/js.html');
    await page.waitForFunction(() => document.getElementById('lab').shadowRoot.querySelector('#console-input'));
    // The snippet's script logs once its commands ran: waited for, not given a fixed time.
    for (let tries = 0; tries < 200 && !logs.includes('XLEN jobs → (integer) 1'); tries++) {
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(done)));
    }
    assert.ok(logs.includes('(integer) 1'), logs.join('\n'));
    assert.ok(logs.includes('XLEN jobs → (integer) 1'), logs.join('\n'));
  });
});

test('an inline lesson in a player widget: the events carry attempts, misconceptions, hints and every kind of answer', async () => {
  await withPage({ random: 0.25 }, async (page) => {
    await virtualPage(page, server.url + 'test/rich.html', `<!doctype html><html lang="en"><title>rich</title>
      <script src="${server.url}embed.js"></script>
      <script>
        window.seen = [];
        for (const type of ['ready', 'error', 'check', 'quiz-answer', 'task-complete']) {
          document.addEventListener(type, (e) => window.seen.push([e.target.id, type, e.detail]));
        }
      </script>
      <main>
      <stream-lab id="rich" mode="player" attempt="1" loading="eager"><script type="application/toml">${RICH}</script></stream-lab>
      <stream-lab id="chance" mode="quiz" loading="eager"><script type="application/toml">${RICH}</script></stream-lab>
      </main></html>`);
    await page.goto(server.url + 'test/rich.html');
    await page.waitForFunction(() => window.seen.filter(([, type]) => type === 'ready' || type === 'error').length >= 2);
    const of = (id, type) => page.evaluate(([i, t]) => window.seen.filter(([w, k]) => w === i && k === t).map(([, , d]) => d), [id, type]);
    const last = async (id, type, count) => {
      await page.waitForFunction(([i, t, n]) => window.seen.filter(([w, k]) => w === i && k === t).length >= n, [id, type, count]);
      return (await of(id, type)).at(-1);
    };
    assert.deepEqual(await of('rich', 'error'), []);
    const [ready] = await of('rich', 'ready');
    assert.deepEqual([ready.mode, ready.lesson, ready.tasks, ready.attempt, ready.variant], ['player', 'rich-fixture', 8, 1, 1]);
    // Without `attempt`, a random one (Math.random is 0.25 here): attempt 250, variant 250 % 3.
    const [chance] = await of('chance', 'ready');
    assert.deepEqual([chance.mode, chance.tasks, chance.attempt, chance.variant], ['quiz', 6, 250, 1]);

    const widget = page.locator('#rich');
    // Variant 1: bob took 4 jobs 40 s ago. A wrong path, then Check: its misconception and
    // the failing check's hint.
    await typeIn(widget, 'carol> XCLAIM jobs workers carol 0 1-0');
    await widget.getByRole('button', { name: 'Check', exact: true }).click();
    const wrong = await last('rich', 'check', 1);
    assert.deepEqual(wrong, {
      task: 0, lessonTask: 0, passed: false, failed: ['carol holds 1 of 4.', 'carol ran XAUTOCLAIM 0 times.'],
      misconception: 'XCLAIM takes only the ids you name.', hints: ['Claim from the start of the pending list.'],
      commands: 1, par: 1,
    });
    await widget.getByText('What happened:').waitFor();
    await widget.getByRole('button', { name: 'Hint', exact: true }).click();
    await widget.locator('.hints').getByText('Claim from the start of the pending list.').waitFor();
    await widget.getByRole('button', { name: 'Reset', exact: true }).click();
    await typeIn(widget, 'carol> XAUTOCLAIM jobs workers carol 35000 0-0');
    await widget.getByRole('button', { name: 'Check', exact: true }).click();
    assert.equal((await last('rich', 'check', 2)).passed, true);
    assert.deepEqual(await last('rich', 'task-complete', 1),
      { task: 0, lessonTask: 0, score: 2, max: 3, commands: 1, par: 1, hintsUsed: 1, solutionViewed: false });
    // The chained task continues from the widget's own session.
    await widget.getByRole('button', { name: 'Next →' }).click();
    await widget.getByText('continues from where you left off').waitFor();
    for (const line of ['carol> MULTI', 'carol> XADD dead * source 4-0', 'carol> XACK jobs workers 4-0', 'carol> EXEC']) await typeIn(widget, line);
    await widget.getByRole('button', { name: 'Check', exact: true }).click();
    assert.deepEqual((await last('rich', 'check', 3)).failed, []);
    // run() takes lesson lines too: `name> COMMAND` runs on that connection.
    const read = await page.evaluate(() => document.getElementById('rich').run('bob> XPENDING jobs workers'));
    assert.deepEqual([read.input, read.conn, read.ok], ['XPENDING jobs workers', 'bob', true]);

    const tasks = widget.getByRole('navigation', { name: 'Tasks' }).locator('button');
    // Single choice: the option's number in the lesson, whatever its place on screen.
    await tasks.nth(2).click();
    await widget.getByLabel('XCLAIM', { exact: true }).check();
    await widget.getByRole('button', { name: 'Answer' }).click();
    const single = await last('rich', 'quiz-answer', 1);
    assert.deepEqual(single, { task: 2, lessonTask: 2, option: 1, options: null, order: null, typed: null, correct: false, why: 'XCLAIM claims only the ids you name.' });
    // A number.
    await tasks.nth(5).click();
    await widget.getByLabel('A whole number').fill('1');
    await widget.getByLabel('A whole number').press('Enter');
    const number = await last('rich', 'quiz-answer', 2);
    assert.deepEqual([number.task, number.typed, number.correct, number.option], [5, '1', true, null]);
    // Several options.
    await tasks.nth(6).click();
    await widget.getByLabel('Reading with NOACK').check();
    await widget.getByLabel('Acknowledging before the work').check();
    await widget.getByRole('button', { name: 'Answer' }).click();
    const several = await last('rich', 'quiz-answer', 3);
    assert.deepEqual([several.task, several.options, several.correct, several.option], [6, [1, 0], true, null]);
    // Steps in order, by the lesson's numbers.
    await tasks.nth(7).click();
    const steps = ['Create the group', 'Read new entries with >', 'Do the work', 'Acknowledge the entry'];
    for (let place = 0; place < steps.length; place++) {
      for (;;) {
        const shown = await widget.locator('.order-steps .step-text').allInnerTexts();
        const at = shown.indexOf(steps[place]);
        if (at <= place) break;
        await widget.locator('.order-step').nth(at).getByRole('button', { name: 'Move up' }).click();
      }
    }
    await widget.getByRole('button', { name: 'Answer' }).click();
    const order = await last('rich', 'quiz-answer', 4);
    assert.deepEqual([order.task, order.order, order.correct], [7, [0, 1, 2, 3], true]);
    assert.deepEqual(await axe(page), [], 'axe on the player widget');
    await screenshot(page, 'embed-rich-player.png');
  });
});
