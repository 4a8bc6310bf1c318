// The embedding kit loaded across sites, as a course site on its own host uses it: dist/ on
// one server (serveDist, 127.0.0.1), the course page on a second plain server (localhost:
// another site, so the frames are third-party and get no storage of their own in headless
// Chromium), and no Access-Control-Allow-Origin header on any response. Every widget then runs
// in an iframe of embed.html; the tags, StreamLab.create, their options, events and methods
// work as on the same origin: a sandbox with setup, a lesson by id, a quiz from a lesson file
// on the course's own site, an inline lesson, a created widget; run, getState, exportScript,
// undo, check; persist=local across a reload; the iframe growing with its quiz; a frame that
// refuses to be framed named as the cause; a panic in one frame; README's iframe snippet
// following its quiz's height, and README's list of lesson ids; the frame protocol's edges
// (state before each event, autoresize=false, a reloaded frame, stray message types, destroy
// while loading, a page with no origin). Screenshots at 1400, 1024 and 390 px.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/embed-cross-origin.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { root, shots, serveDist, withBrowser, screenshot, settle, lessonTasks, axe, tinyLesson, filesServer, drawnIn } from './harness.mjs';

let dist;
let course;
/** The course server's files, by path. */
const files = new Map();
before(async () => {
  dist = await serveDist();
  course = filesServer(files);
  await new Promise((ok) => course.listen(0, '127.0.0.1', ok));
});
after(async () => {
  await dist.close();
  await new Promise((ok) => course.close(ok));
});
// localhost: another site than StreamLab's 127.0.0.1, not just another origin, so the browser
// treats the frames as third-party (their storage partitioned by the course's site).
const courseUrl = (path) => `http://localhost:${course.address().port}${path}`;
/** A third origin (the course server's port on StreamLab's host name): a lesson host the
 * course page does not control. */
const thirdOrigin = () => `http://127.0.0.1:${course.address().port}`;


const TYPES = ['ready', 'command', 'check', 'task-complete', 'quiz-answer', 'progress', 'lesson-complete', 'resize', 'error'];

/** The course page: StreamLab's embed.js from the dist server, five widgets. */
function coursePage() {
  files.set('/lessons/tiny.toml', { type: 'text/plain; charset=utf-8', body: tinyLesson('tiny-file') });
  files.set('/course.html', {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>A course on another site</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js"></script>
<script>
  window.seen = [];
  for (const type of ${JSON.stringify(TYPES)}) document.addEventListener(type, (e) => window.seen.push([e.target.id, type, e.detail]));
</script>
<style>body { font: 16px/1.5 sans-serif; max-width: 1100px; margin: 0 auto; padding: 1rem; }</style>
</head><body><main>
<h1>Consumer groups, embedded from another site</h1>
<p>A sandbox: the group starts before both jobs.</p>
<stream-lab id="sandbox" loading="eager" persist="local" setup="XADD jobs 1-0 type email
XADD jobs 2-0 type sms
XGROUP CREATE jobs workers 0"></stream-lab>
<h2>A lesson</h2>
<stream-lab id="lesson" mode="lesson" lesson="where-a-group-starts" attempt="0" layout="console" loading="eager"></stream-lab>
<h2>A quiz from this site's own lesson file</h2>
<stream-lab id="quiz" mode="quiz" lesson="lessons/tiny.toml" loading="eager"></stream-lab>
<h2>An inline lesson</h2>
<stream-lab id="inline" mode="quiz" loading="eager"><script type="application/toml">${tinyLesson('tiny-inline')}</script></stream-lab>
<h2>A widget made by script</h2>
<div class="lab"></div>
<script>
  window.lab = StreamLab.create(document.querySelector('.lab'), { layout: 'console', persist: 'local', loading: 'eager', setup: ['XADD made 1-0 by script'] });
  window.labCommands = [];
  window.lab.on('command', (e) => window.labCommands.push(e.detail.input));
  window.firstRun = window.lab.run('XLEN made');
</script>
</main></body></html>`,
  });
  return courseUrl('/course.html');
}

const seen = (page, id, type) => page.evaluate(([i, t]) => window.seen.filter(([w, k]) => w === i && k === t).map(([, , d]) => d), [id, type]);
async function last(page, id, type, count = 1) {
  await page.waitForFunction(([i, t, n]) => window.seen.filter(([w, k]) => w === i && k === t).length >= n, [id, type, count]);
  return (await seen(page, id, type)).at(-1);
}
/** The widget inside the iframe of the tag `id`. */
const inFrame = (page, id) => page.frameLocator(`#${id} iframe`);
async function typeIn(widget, line) {
  const input = widget.locator('#console-input');
  await input.fill(line);
  await input.press('Enter');
}
/** The height of a tag's iframe. */
const heights = (page, id) => page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('iframe').getBoundingClientRect().height, id);

/** The frame of the tag `id`, scrolled into view and drawn (see drawnIn). */
const drawn = (page, id) => drawnIn(page.locator(`#${id}`));

/** Checks an option. The widgets above a frame grow as their own frames draw, moving it, and a
 * click aimed before such a move lands beside the option: then it is aimed again. */
async function choose(option) {
  for (let tries = 1; ; tries++) {
    try {
      return await option.check();
    } catch (error) {
      if (tries === 5 || !/did not change its state/.test(error.message)) throw error;
    }
  }
}

/** Answers a quiz's first question, trying the options in the order shown until one is right. */
async function answerFirst(page, id) {
  const quiz = inFrame(page, id);
  const count = await quiz.locator('.quiz .option input').count();
  for (let n = 0; n < count; n++) {
    if (n > 0) await quiz.getByRole('button', { name: 'Try again' }).click();
    await choose(quiz.locator('.quiz .option input').nth(n));
    await quiz.getByRole('button', { name: 'Answer' }).click();
    if ((await last(page, id, 'quiz-answer', n + 1)).correct) return n + 1;
  }
  throw new Error(`no option of ${id} was right`);
}

test('a course page on another origin, without CORS headers: every widget works through a frame', { timeout: 180_000 }, async () => {
  const url = coursePage();
  const where = lessonTasks(await readFile(join(root, 'lessons', 'where-a-group-starts.toml'), 'utf8'));
  // axe reads the widgets' cross-origin style sheets by XHR, which no CORS header allows; the
  // page itself never reads them (no request fails before axe runs, see below).
  await withBrowser({ random: 0, ignore: /^Access to XMLHttpRequest at '[^']*\.css' from origin .* blocked by CORS policy|^Failed to load resource: net::ERR_FAILED$/ }, async (page) => {
    const responses = [];
    const failed = [];
    page.on('response', (r) => responses.push(r));
    page.on('requestfailed', (r) => failed.push(r.url()));
    const warnings = [];
    page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
    await page.goto(url);
    await page.waitForFunction(() => window.seen.filter(([, t]) => t === 'ready' || t === 'error').length >= 5);
    assert.deepEqual(await page.evaluate(() => window.seen.filter(([, t]) => t === 'error')), [], 'no widget failed');
    // Each widget is a frame of StreamLab's host; nothing of the engine runs in this page.
    const frames = await page.evaluate(() => [...document.querySelectorAll('stream-lab, .lab')].map((w) =>
      [w.id || w.className, w.shadowRoot.querySelector('iframe')?.src.split('?')[0], !!w.shadowRoot.querySelector('#console-input')]));
    assert.deepEqual(frames, ['sandbox', 'lesson', 'quiz', 'inline', 'lab'].map((id) => [id, `${dist.url}embed.html`, false]));

    // The sandbox: its setup ran, and a typed command arrives as the element's event.
    const ready = await last(page, 'sandbox', 'ready');
    assert.deepEqual([ready.mode, ready.lesson, 'steps' in ready], ['sandbox', null, false]);
    const sandbox = inFrame(page, 'sandbox');
    await typeIn(sandbox, 'XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >');
    const typed = await last(page, 'sandbox', 'command');
    assert.deepEqual([typed.input, typed.conn, typed.ok], ['XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >', 'alice', true]);
    await sandbox.locator('.pel-card').first().waitFor();

    // Methods: run resolves with the command event, getState and exportScript answer at once.
    const reply = await page.evaluate(() => document.getElementById('sandbox').run('XADD jobs 3-0 type push'));
    assert.deepEqual([reply.input, reply.reply, reply.ok], ['XADD jobs 3-0 type push', '"3-0"', true]);
    assert.deepEqual(await last(page, 'sandbox', 'command', 2), reply, 'run() resolved with the event the element raised');
    const [token, script] = await page.evaluate(() => [document.getElementById('sandbox').getState(), document.getElementById('sandbox').exportScript()]);
    assert.equal(typeof token, 'string');
    assert.match(token, /XADD%20jobs%203-0/);
    assert.match(script, /XADD jobs 1-0 type email/);
    assert.match(script, /XADD jobs 3-0 type push/);
    // undo() resolves once the frame has undone it, and getState() then says so.
    const undone = await page.evaluate(async () => {
      const lab = document.getElementById('sandbox');
      await lab.undo();
      return [lab.getState(), lab.exportScript()];
    });
    assert.notEqual(undone[0], token);
    assert.doesNotMatch(undone[1], /XADD jobs 3-0/);
    // The frame's own Redo button changes the session without an event: the page still knows.
    await sandbox.getByRole('button', { name: 'Redo' }).first().click();
    await page.waitForFunction((t) => document.getElementById('sandbox').getState() === t, token);
    assert.match(await page.evaluate(() => document.getElementById('sandbox').check().then(() => 'resolved', (e) => e.message)), /no lesson/);

    // A lesson by id loads inside the frame; check() resolves with the check event.
    const lessonReady = await last(page, 'lesson', 'ready');
    assert.deepEqual([lessonReady.mode, lessonReady.lesson, lessonReady.tasks, lessonReady.attempt], ['lesson', 'where-a-group-starts', where.length, 0]);
    await typeIn(inFrame(page, 'lesson'), where[0].solution[0]);
    const checked = await page.evaluate(() => document.getElementById('lesson').check());
    assert.deepEqual([checked.task, checked.passed, checked.failed], [0, true, []]);
    assert.deepEqual(await last(page, 'lesson', 'check'), checked);
    assert.equal((await last(page, 'lesson', 'task-complete')).task, 0);

    // A quiz whose lesson is a file on the course's site, read by the page and handed over;
    // its iframe grows with the answer's explanation.
    const quizReady = await last(page, 'quiz', 'ready');
    assert.deepEqual([quizReady.mode, quizReady.lesson, quizReady.tasks], ['quiz', 'tiny-file', 1]);
    const before = await heights(page, 'quiz');
    const tries = await answerFirst(page, 'quiz');
    await inFrame(page, 'quiz').getByText('which is what acknowledging means').waitFor();
    await page.waitForFunction(([h]) => document.getElementById('quiz').shadowRoot.querySelector('iframe').getBoundingClientRect().height > h, [before]);
    assert.deepEqual(await last(page, 'quiz', 'lesson-complete'), { lesson: 'tiny-file', done: 1, total: 1, score: tries === 1 ? 1 : 0, max: 1 });
    // The iframe is as tall as what it shows: nothing cut off, no scrollbar inside.
    for (const id of ['sandbox', 'quiz', 'inline']) {
      const frame = await (await page.locator(`#${id} iframe`).elementHandle()).contentFrame();
      const [inner, outer] = await frame.evaluate(() => [document.documentElement.scrollHeight, innerHeight]);
      assert.ok(inner <= outer + 1, `${id}: the frame shows all of its ${inner} px in ${outer} px`);
    }

    // The inline lesson, read from the element by the page.
    const inlineReady = await last(page, 'inline', 'ready');
    assert.deepEqual([inlineReady.lesson, inlineReady.tasks], ['tiny-inline', 1]);
    await inFrame(page, 'inline').getByLabel('XACK', { exact: true }).check();
    await inFrame(page, 'inline').getByRole('button', { name: 'Answer' }).click();
    assert.deepEqual((await last(page, 'inline', 'quiz-answer')).correct, true);

    // The created widget: run() before it was ready resolved, its on() listener heard it.
    assert.equal((await page.evaluate(() => window.firstRun)).reply, '(integer) 1');
    assert.deepEqual(await page.evaluate(() => window.labCommands), ['XLEN made']);
    assert.match(await page.evaluate(() => window.lab.exportScript()), /XADD made 1-0 by script/);
    // persist=local without an id or key: the page is told what that means.
    assert.ok(warnings.some((w) => /persist="local" without an id or key/.test(w)), warnings.join('\n'));
    // The element's own resize events report the element's size.
    const size = await last(page, 'quiz', 'resize');
    assert.equal(size.height, Math.round(await page.evaluate(() => document.getElementById('quiz').getBoundingClientRect().height)));

    // No response carried a CORS header: none was needed.
    const cors = (await Promise.all(responses.map(async (r) => [r.url(), (await r.allHeaders())['access-control-allow-origin']])))
      .filter(([, header]) => header !== undefined);
    assert.deepEqual(cors, []);
    assert.ok(responses.some((r) => r.url() === `${dist.url}streamlab_bg.wasm`), 'the frames loaded the engine');

    assert.deepEqual(failed, [], 'every request of the page and its frames succeeded');
    assert.deepEqual(await axe(page), [], 'axe on the course page');
    for (const id of ['sandbox', 'quiz']) {
      const frame = await (await page.locator(`#${id} iframe`).elementHandle()).contentFrame();
      assert.deepEqual(await axe(frame), [], `axe in the ${id} frame`);
    }

    // persist=local: both saves come back after a reload, each its own.
    await page.evaluate(() => Promise.all([document.getElementById('sandbox').run('XADD kept 1-0 a 1'), window.lab.run('XADD mine 1-0 a 1')]));
    await page.reload();
    await page.waitForFunction(() => window.seen.filter(([, t]) => t === 'ready').length >= 5);
    const kept = await page.evaluate(() => Promise.all([document.getElementById('sandbox').run('EXISTS kept mine'), window.lab.run('EXISTS kept mine')]));
    assert.deepEqual(kept.map((r) => r.reply), ['(integer) 1', '(integer) 1'], 'each widget has its own save back');
    // In the course page's own storage, and no rebuild is left marked as running.
    const keys = await page.evaluate(() => Object.keys(localStorage).sort());
    assert.ok(keys.includes('streamlab.embed.sandbox'), keys.join(', '));
    assert.equal(keys.filter((k) => k.startsWith('streamlab.embed.')).length, 2, keys.join(', '));
    assert.deepEqual(keys.filter((k) => k.endsWith(' loading')), []);
  });
});

test('the course page at 1400, 1024 and 390 px', { timeout: 180_000 }, async () => {
  const url = coursePage();
  for (const [width, name] of [[1400, 'wide'], [1024, 'laptop'], [390, 'phone']]) {
    await withBrowser({ width, height: 900, random: 0 }, async (page) => {
      await page.goto(url);
      await page.waitForFunction(() => window.seen.filter(([, t]) => t === 'ready').length >= 5);
      await answerFirst(page, 'quiz');
      await inFrame(page, 'quiz').getByText('which is what acknowledging means').waitFor();
      // No widget is wider than the page.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(overflow <= 0, `${width} px: the page scrolls sideways by ${overflow} px`);
      // A browser paints a cross-origin frame only while it is in view (a whole-page shot
      // leaves the others blank): each widget is taken on its own, in view, once it has drawn.
      // A widget taller than the window is taken in a window as tall as it, so it is all in view.
      for (const id of ['sandbox', 'lesson', 'quiz']) {
        const widget = page.locator(`#${id}`);
        const tall = Math.ceil((await widget.boundingBox()).height) + 40;
        if (tall > 900) await page.setViewportSize({ width, height: tall });
        await widget.scrollIntoViewIfNeeded();
        await settle(await drawn(page, id));
        await widget.screenshot({ path: join(shots, `embed-cross-origin-${name}-${id}.png`) });
        if (tall > 900) await page.setViewportSize({ width, height: 900 });
      }
      // The page's top as a reader first sees it (the sandbox frame has drawn, above).
      await page.evaluate(() => scrollTo(0, 0));
      await drawn(page, 'sandbox');
      await screenshot(page, `embed-cross-origin-${name}.png`, { fullPage: false });
    });
  }
});

test('a frame its host refuses to be framed, and bad options, fail with their cause', async () => {
  files.set('/refused.html', {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><title>refused</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js"></script>
<script>window.seen = []; document.addEventListener('error', (e) => window.seen.push([e.target.id, e.detail.message]));</script>
<stream-lab id="refused" loading="eager"></stream-lab>
<stream-lab id="bad" mode="arcade" loading="eager"></stream-lab>
<div id="gone"></div>
<script>window.gone = StreamLab.create(document.getElementById('gone'), { loading: 'eager' });</script>`,
  });
  await withBrowser({ ignore: /X-Frame-Options|refused to connect/ }, async (page) => {
    // The host sends X-Frame-Options: DENY on embed.html, as some hosts do by default.
    await page.route(`${dist.url}embed.html?**`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'x-frame-options': 'DENY' } });
    });
    // The page's clock stands still but where the test moves it: the 10 s the kit waits for
    // a frame pass at once. The waits the page asks for are recorded (on the paused clock).
    await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
    await page.clock.pauseAt(new Date('2026-01-01T00:00:01Z'));
    await page.addInitScript(() => {
      window.waits = [];
      const later = window.setTimeout;
      window.setTimeout = function (fn, ms, ...rest) { window.waits.push(ms); return later.call(this, fn, ms, ...rest); };
    });
    await page.goto(courseUrl('/refused.html'));
    await page.waitForFunction(() => window.seen.length >= 1);
    assert.deepEqual(await page.evaluate(() => window.seen.map(([id]) => id)), ['bad'], 'a bad option fails at once');
    // Each refused frame loads an error page, and from then the kit waits 10 s for it.
    await page.waitForFunction(() => window.waits.filter((ms) => ms === 10_000).length >= 2);
    // One is destroyed while it waits: nothing is said of it later.
    await page.evaluate(() => window.gone.destroy());
    await page.clock.runFor(9_900);
    assert.equal(await page.evaluate(() => window.seen.length), 1, 'no verdict before 10 s');
    await page.clock.runFor(200);
    await page.waitForFunction(() => window.seen.length >= 2);
    await page.clock.runFor(1_000);
    assert.deepEqual(await page.evaluate(() => window.seen.map(([id]) => id)), ['bad', 'refused'], 'the destroyed widget stays silent');
    assert.equal(await page.evaluate(() => document.getElementById('gone').shadowRoot.querySelector('.sl-error')), null);
    const errors = Object.fromEntries(await page.evaluate(() => window.seen));
    assert.match(errors.refused, /embed\.html did not answer/);
    assert.match(errors.refused, /X-Frame-Options/);
    assert.match(errors.bad, /^Bad options:\nmode must be one of/);
    assert.match(await page.locator('#refused .sl-error').innerText(), /StreamLab could not start/);
  });
});

test('an internal error stops only its frame, which shows the panel and restarts; the element hears it', async () => {
  files.set('/panic.html', {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><title>panic</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js"></script>
<script>window.seen = []; document.addEventListener('error', (e) => window.seen.push([e.target.id, e.detail]));</script>
<stream-lab id="w1" loading="eager" layout="console"></stream-lab>
<stream-lab id="w2" loading="eager" layout="console"></stream-lab>`,
  });
  await withBrowser({ ignore: /unreachable|cloneNode refused/ }, async (page) => {
    await page.goto(courseUrl('/panic.html'));
    const run = (id, line) => page.evaluate(([i, l]) => document.getElementById(i).run(l).then((r) => r.reply, (e) => e.message), [id, line]);
    assert.equal(await run('w1', 'XADD before 1-0 f v'), '"1-0"');
    assert.equal(await run('w2', 'XADD other 1-0 f v'), '"1-0"');
    // As hostile.test.mjs does in a page: yew panics when cloneNode throws (here in w1's frame).
    const frame = await (await page.locator('#w1 iframe').elementHandle()).contentFrame();
    await frame.evaluate(() => {
      window.realCloneNode = Node.prototype.cloneNode;
      Node.prototype.cloneNode = function () { throw new Error('test: cloneNode refused'); };
    });
    assert.match(await run('w1', 'XADD after 2-0 f v'), /^StreamLab hit an internal error: .*couldn't clone cached element/s);
    await frame.evaluate(() => { Node.prototype.cloneNode = window.realCloneNode; });
    const panel = inFrame(page, 'w1').getByRole('alert');
    assert.match(await panel.innerText(), /StreamLab hit an internal error[\s\S]*rest of the page is not affected/);
    await page.waitForFunction(() => window.seen.length > 0);
    const [[id, error]] = await page.evaluate(() => window.seen);
    assert.deepEqual([id, error.internal], ['w1', true]);
    assert.equal(await run('w2', 'XLEN other'), '(integer) 1', 'the other widget never noticed');
    await inFrame(page, 'w1').getByRole('button', { name: 'Restart this console' }).click();
    await inFrame(page, 'w1').locator('#console-input').waitFor();
    assert.equal(await run('w1', 'EXISTS before after'), '(integer) 1', 'the session before the panic is back');
  });
});

test("README's iframe snippet follows its quiz's height on another origin; README lists every lesson id", async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const snippet = readme.match(/```html embed-iframe\n([\s\S]*?)```/)[1]
    .replaceAll('https://streamlab.example/', dist.url).replace('https://course.example', encodeURIComponent(courseUrl('')));
  files.set('/iframe.html', { type: 'text/html; charset=utf-8', body: `<!doctype html><html lang="en"><title>iframe</title><link rel="icon" href="data:,">
<script>window.got = []; addEventListener('message', (e) => window.got.push(e.data));</script>
<main>${snippet}</main></html>` });
  await withBrowser({}, async (page) => {
    await page.goto(courseUrl('/iframe.html'));
    await page.waitForFunction(() => window.got.some((m) => m.type === 'ready'));
    // The iframe is as tall as the frame last said.
    const fits = () => {
      const last = window.got.filter((m) => m.type === 'resize').at(-1);
      return last && document.querySelector('iframe').getBoundingClientRect().height === last.payload.height;
    };
    await page.waitForFunction(fits);
    const before = await page.evaluate(() => document.querySelector('iframe').getBoundingClientRect().height);
    const quiz = page.frameLocator('iframe');
    await quiz.locator('.quiz .option input').first().check();
    await quiz.getByRole('button', { name: 'Answer' }).click();
    await page.waitForFunction(() => window.got.some((m) => m.type === 'quiz-answer'));
    await page.waitForFunction((h) => document.querySelector('iframe').getBoundingClientRect().height > h, before);
    await page.waitForFunction(fits);
    const frame = page.frames().find((f) => f.url().includes('embed.html'));
    const [inner, outer] = await frame.evaluate(() => [document.documentElement.scrollHeight, innerHeight]);
    assert.ok(inner <= outer, `the frame shows all of its ${inner} px in ${outer} px`);
  });
  // The lesson ids README promises are the lessons' own, all of them.
  const ids = [];
  for (const file of (await readdir(join(root, 'lessons'))).filter((f) => f.endsWith('.toml') && f !== 'index.toml')) {
    ids.push((await readFile(join(root, 'lessons', file), 'utf8')).match(/^id = "([^"]*)"/m)[1]);
  }
  const listed = [...readme.split('| Section | Lessons |')[1].split('\n\n')[0].matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]);
  assert.deepEqual(listed.toSorted(), ids.toSorted());
});

test('state, profile, theme and height reach the frame, a bad profile and a lesson on a third site are named; destroy() removes it', async () => {
  // The browser logs the refused fetch of the third site's lesson.
  await withBrowser({ ignore: /^Access to fetch at 'http:\/\/127\.0\.0\.1:\d+\/lessons\/tiny\.toml' .* blocked by CORS policy|^Failed to load resource: net::ERR_FAILED$/ }, async (page) => {
    // A first widget on another server profile; its token starts a second, dark, 300 px high.
    files.set('/options.html', { type: 'text/html; charset=utf-8', body: `<!doctype html><title>options</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js"></script>
<script>window.seen = []; for (const t of ['ready', 'error']) document.addEventListener(t, (e) => window.seen.push([e.target.id, t, e.detail]));</script>
<stream-lab id="first" loading="eager" layout="console" profile="redis-7.4" setup="XADD kept 1-0 a 1"></stream-lab>
<div id="later"></div>
<stream-lab id="bad-profile" profile="redis-6.0" loading="eager"></stream-lab>
<stream-lab id="third-site" mode="quiz" lesson="${thirdOrigin()}/lessons/tiny.toml" loading="eager"></stream-lab>` });
    await page.goto(courseUrl('/options.html'));
    await page.waitForFunction(() => window.seen.length >= 3);
    // A lesson on a third origin, sent without CORS.
    const third = await page.evaluate(() => window.seen.find(([id]) => id === 'third-site'));
    assert.equal(third[1], 'error');
    assert.match(third[2].message, /^the lesson "http:\/\/127\.0\.0\.1:\d+\/lessons\/tiny\.toml" could not be loaded \(.*http:\/\/127\.0\.0\.1:\d+ must send Access-Control-Allow-Origin\)$/);
    // What only the engine knows is wrong shows in the frame, in the same words as on the page.
    const bad = await page.evaluate(() => window.seen.find(([id]) => id === 'bad-profile'));
    assert.equal(bad[1], 'error');
    assert.match(bad[2].message, /^Bad options: unknown profile 'redis-6.0'/);
    await inFrame(page, 'bad-profile').getByText('StreamLab could not start').waitFor();
    await page.evaluate(() => { window.seen = window.seen.filter(([id]) => id === 'first'); });
    const token = await page.evaluate(() => document.getElementById('first').getState());
    await page.evaluate((state) => {
      window.later = StreamLab.create(document.getElementById('later'), { state, theme: 'dark', height: 300, loading: 'eager' });
    }, token);
    await page.waitForFunction(() => window.seen.length >= 2);
    assert.deepEqual(await page.evaluate(() => window.seen.map(([id, type, d]) => [id, type, d.profile])),
      [['first', 'ready', 'redis-7.4'], ['later', 'ready', 'redis-7.4']], 'the token carries its profile');
    assert.equal((await page.evaluate(() => window.later.run('XLEN kept'))).reply, '(integer) 1', 'the state came along');
    const frame = await drawnIn(page.locator('#later'));
    assert.equal(await frame.evaluate(() => getComputedStyle(document.getElementById('widget')).getPropertyValue('--bg').trim()), '#14161a');
    // A fixed height: the iframe keeps it, and the widget scrolls inside.
    assert.equal(await page.evaluate(() => document.querySelector('#later').shadowRoot.querySelector('iframe').getBoundingClientRect().height), 300);
    assert.equal(await frame.evaluate(() => Math.round(document.getElementById('widget').getBoundingClientRect().height)), 300);
    await page.evaluate(() => window.later.destroy());
    assert.equal(await page.evaluate(() => document.querySelector('#later').shadowRoot.querySelector('iframe')), null);
  });
});

test("the frame protocol's edges: state before each event, autoresize=false, destroy while loading, a reloaded frame, stray message types, a page with no origin", async () => {
  files.set('/lessons/tiny.toml', { type: 'text/plain; charset=utf-8', body: tinyLesson('tiny-file') });
  files.set('/edges.html', { type: 'text/html; charset=utf-8', body: `<!doctype html><title>edges</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js"></script>
<script>
  window.seen = [];
  for (const t of [...StreamLab.events, 'resize', 'state', 'click', 'bogus']) document.addEventListener(t, (e) => window.seen.push([e.target.id || e.target.className, t, e.detail]));
  // What a listener of each command reads from the element.
  window.heard = [];
  document.addEventListener('command', (e) => { if (e.target.id === 'listened') window.heard.push([e.detail.input, e.target.getState(), e.target.exportScript()]); });
</script>
<stream-lab id="listened" loading="eager" layout="console"></stream-lab>
<stream-lab id="kept" persist="local" loading="eager" layout="console"></stream-lab>
<stream-lab id="fixed" mode="quiz" lesson="lessons/tiny.toml" autoresize="false" loading="eager"></stream-lab>
<div id="here"><div class="moved"></div></div><div id="there"></div>
<script>window.moved = StreamLab.create(document.querySelector('.moved'), { layout: 'console', loading: 'eager' });</script>` });
  // A frame posted to while it reloads has no StreamLab document to take the message yet.
  await withBrowser({ ignore: /^Failed to execute 'postMessage' on 'DOMWindow'/ }, async (page) => {
    await page.goto(courseUrl('/edges.html'));
    await page.waitForFunction(() => window.seen.filter(([, t]) => t === 'ready').length >= 4);

    // Each command's listener reads the state and the script with that command in them.
    await typeIn(inFrame(page, 'listened'), 'XADD typed 1-0 a 1');
    await page.waitForFunction(() => window.heard.length >= 1);
    await page.evaluate(() => document.getElementById('listened').run('XADD called 1-0 a 1'));
    const heard = await page.evaluate(() => window.heard);
    assert.deepEqual(heard.map(([input, state, script]) => [input, /XADD%20typed/.test(state), script.includes('XADD typed 1-0 a 1'), script.includes('XADD called 1-0 a 1')]),
      [['XADD typed 1-0 a 1', true, true, false], ['XADD called 1-0 a 1', true, true, true]]);

    // autoresize=false and no height: the iframe keeps the height it had at ready, while the
    // answered question grows inside it, scrolling.
    const frameHeight = () => page.evaluate(() => document.getElementById('fixed').shadowRoot.querySelector('iframe').getBoundingClientRect().height);
    const fixedBefore = await frameHeight();
    await answerFirst(page, 'fixed');
    await inFrame(page, 'fixed').getByText('which is what acknowledging means').waitFor();
    const fixedFrame = await drawn(page, 'fixed');
    const [content, shown] = await fixedFrame.evaluate(() => {
      const box = document.getElementById('widget').shadowRoot.querySelector('.sl-frame');
      return [box.scrollHeight, box.clientHeight];
    });
    assert.equal(await frameHeight(), fixedBefore, 'the iframe kept its height');
    assert.ok(content > shown, `the answer scrolls inside (${content} px in ${shown} px)`);

    // A stray message from a frame, of a type that is no event, raises nothing; a known one does.
    const listened = await drawn(page, 'listened');
    await listened.evaluate(() => {
      for (const type of ['click', 'bogus', 'state']) parent.postMessage({ source: 'stream-lab', v: 1, type, payload: {} }, '*');
      parent.postMessage({ source: 'stream-lab', v: 1, type: 'progress', payload: { stray: true } }, '*');
    });
    await page.waitForFunction(() => window.seen.some(([id, t]) => id === 'listened' && t === 'progress'));
    assert.deepEqual(await page.evaluate(() => window.seen.filter(([, t]) => ['click', 'bogus', 'state'].includes(t))), []);
    // A frame's `store` writes only its own widget's save, and only a string or null.
    await page.evaluate(() => document.getElementById('kept').run('XADD kept 1-0 a 1'));
    const saved = await page.evaluate(() => localStorage.getItem('streamlab.embed.kept'));
    assert.match(saved, /XADD%20kept/);
    const kept = await drawn(page, 'kept');
    await kept.evaluate(() => {
      const store = (payload) => parent.postMessage({ source: 'stream-lab', v: 1, type: 'store', payload }, '*');
      store({ key: 'streamlab.embed.listened', value: 'not its own' });
      store({ key: 'streamlab.embed.kept', value: 5 });
      store({ key: 'streamlab.embed.kept' });
      parent.postMessage({ source: 'stream-lab', v: 1, type: 'progress', payload: { after: 'store' } }, '*');
    });
    await page.waitForFunction(() => window.seen.some(([id, t]) => id === 'kept' && t === 'progress'));
    assert.deepEqual(await page.evaluate(() => [localStorage.getItem('streamlab.embed.listened'), localStorage.getItem('streamlab.embed.kept')]), [null, saved]);

    // A created widget whose box moves reloads its frame: the call it had is refused, and it
    // comes back with the session it had, and answers again.
    assert.equal((await page.evaluate(() => window.moved.run('XADD before 1-0 a 1'))).reply, '"1-0"');
    const dropped = await page.evaluate(() => {
      const answer = window.moved.run('XADD lost 1-0 a 1').then((r) => `answered ${r.reply}`, (e) => e.message);
      document.getElementById('there').append(document.querySelector('.moved'));
      return answer;
    });
    assert.equal(dropped, 'the StreamLab frame reloaded before it answered');
    await page.waitForFunction(() => window.seen.filter(([id, t]) => id === 'moved' && t === 'ready').length >= 2);
    assert.equal((await page.evaluate(() => window.moved.run('EXISTS before lost'))).reply, '(integer) 1', 'the session came back, without the refused call');

  });

  // Destroyed before its frame answered: its calls are refused, the frame is gone, and the
  // frame's silence is no error 10 s later (on a clock the test moves; no engine runs here).
  files.set('/early.html', { type: 'text/html; charset=utf-8', body: `<!doctype html><title>early</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js"></script>
<script>window.seen = []; for (const t of [...StreamLab.events, 'resize']) document.addEventListener(t, (e) => window.seen.push(t));</script>
<div id="early"></div>` });
  await withBrowser({}, async (page) => {
    await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
    await page.clock.pauseAt(new Date('2026-01-01T00:00:01Z'));
    await page.goto(courseUrl('/early.html'));
    const early = await page.evaluate(() => {
      window.early = StreamLab.create(document.getElementById('early'), { loading: 'eager' });
      const answer = window.early.run('PING').then(() => 'answered', (e) => e.message);
      window.early.destroy();
      return answer;
    });
    assert.equal(early, 'this StreamLab widget was destroyed');
    assert.equal(await page.evaluate(() => document.getElementById('early').shadowRoot.querySelector('iframe')), null);
    await page.clock.runFor(11_000);
    assert.deepEqual(await page.evaluate(() => window.seen), []);
  });

  // A page with no origin of its own (a sandboxed frame here) is told at once, with no frame
  // made and no time waited: a StreamLab frame could never answer it.
  files.set('/opaque.html', { type: 'text/html; charset=utf-8', body: `<!doctype html><title>opaque</title><link rel="icon" href="data:,">
<iframe sandbox="allow-scripts" title="A sandboxed page" srcdoc="${`<script src='${dist.url}embed.js'></script>
<script>document.addEventListener('error', (e) => parent.postMessage(e.detail.message, '*'));</script>
<stream-lab loading='eager'></stream-lab>`.replaceAll('"', '&quot;')}"></iframe>
<script>window.got = []; addEventListener('message', (e) => window.got.push(e.data));</script>` });
  await withBrowser({}, async (page) => {
    await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
    await page.clock.pauseAt(new Date('2026-01-01T00:00:01Z'));
    await page.goto(courseUrl('/opaque.html'));
    await page.waitForFunction(() => window.got.length >= 1);
    assert.match((await page.evaluate(() => window.got))[0], /^this page has no origin \(a file:\/\/ page or a sandboxed frame\)/);
    const sandboxed = page.frames().find((f) => f !== page.mainFrame());
    assert.equal(await sandboxed.evaluate(() => document.querySelector('stream-lab').shadowRoot.querySelectorAll('iframe').length), 0);
  });
});
