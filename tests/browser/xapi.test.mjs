// xAPI 1.0.3 statements from widgets on a course page of another origin (README, "Statements
// for a learning record store"): dist/ on one server, the course page on a second (localhost,
// another site, so every widget is a frame of embed.html) and a recording LRS on a third
// origin, which answers CORS preflights, records each POST and can refuse, fail or drop
// requests. A lesson and a quiz of every question kind are played by clicking and typing; the
// statements' verbs, order, scores, IRIs and context are checked, and every statement the LRS
// receives is validated by xapi-validation. The queue: statements made while the LRS is
// unreachable wait in the course page's storage and arrive once, by id, after a reload; a
// failing LRS gets them again on `online`; a refusing one has them dropped with an `error`.
// On StreamLab's own origin (no frame) the same statements go out from the page.
// Nothing waits on a clock: each step waits for a condition.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/xapi.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import validation from 'xapi-validation';
import { root, shots, serveDist, withBrowser, tinyLesson, filesServer } from './harness.mjs';

const validate = validation.default;
const RICH = await readFile(join(root, 'tests', 'browser', 'fixtures', 'rich.toml'), 'utf8');
const BASE = 'https://course.example/streams/';
const ADL = 'http://adlnet.gov/expapi/';
const REGISTRATION = '6f1c2a4e-9b3d-4c5e-8f7a-1b2c3d4e5f60';
const AUTH = 'Basic bGVhcm5lcjpzZWNyZXQ=';

let dist;
let course;
let lrsServer;
/** The course server's files, by path. */
const files = new Map();
/** The LRS's behaviour (`mode`: up | down, which drops the connection | reject, with 400;
 * `failing`: how many of the next POSTs get 503) and what it saw. */
const lrs = { mode: 'up', failing: 0, posts: [], accepted: [] };
/** Emits `post` once a POST is recorded and answered. */
const recorded = new EventEmitter();

before(async () => {
  dist = await serveDist();
  course = filesServer(files);
  lrsServer = createServer((req, res) => {
    if (lrs.mode === 'down') { req.socket.destroy(); return; }
    const cors = {
      'access-control-allow-origin': req.headers.origin ?? '*',
      'access-control-allow-headers': 'Authorization, Content-Type, X-Experience-API-Version',
      'access-control-allow-methods': 'POST, OPTIONS',
    };
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return; }
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const post = { path: req.url, headers: req.headers, origin: req.headers.origin, statements: JSON.parse(body) };
      lrs.posts.push(post);
      if (lrs.failing > 0) {
        lrs.failing--;
        post.status = 503;
        res.writeHead(503, cors).end('busy');
      } else if (lrs.mode === 'reject') {
        post.status = 400;
        res.writeHead(400, cors).end('statement 1 has no verb we take');
      } else {
        post.status = 200;
        lrs.accepted.push(...post.statements);
        res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(post.statements.map((s) => s.id)));
      }
      recorded.emit('post');
    });
  });
  await Promise.all([course, lrsServer].map((s) => new Promise((ok) => s.listen(0, '127.0.0.1', ok))));
  files.set('/lessons/tiny.toml', { type: 'text/plain; charset=utf-8', body: tinyLesson('tiny') });
  files.set('/lessons/rich.toml', { type: 'text/plain; charset=utf-8', body: RICH });
});
after(async () => {
  await dist.close();
  await Promise.all([course, lrsServer].map((s) => new Promise((ok) => s.close(ok))));
});

function resetLrs(mode = 'up') {
  Object.assign(lrs, { mode, failing: 0, posts: [], accepted: [] });
}
// localhost: another site than StreamLab's 127.0.0.1; the LRS on 127.0.0.1 is a third origin.
const courseUrl = (path) => `http://localhost:${course.address().port}${path}`;
// Without its slash: the widget adds it before `statements`.
const endpoint = () => `http://127.0.0.1:${lrsServer.address().port}/xapi`;

/** A course page at `path` with `body`, recording every widget's events. */
function coursePage(path, body) {
  files.set(path, {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>A course that records to an LRS</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js"></script>
<script>
  window.seen = [];
  for (const type of ['ready', 'xapi', 'error', 'lesson-complete']) document.addEventListener(type, (e) => window.seen.push([e.target.id, type, e.detail]));
</script>
<style>body { font: 16px/1.5 sans-serif; max-width: 1100px; margin: 0 auto; padding: 1rem; }</style>
</head><body><main>${body}</main></body></html>`,
  });
  return courseUrl(path);
}

const events = (page, id, type) => page.evaluate(([i, t]) => window.seen.filter(([w, k]) => w === i && k === t).map(([, , d]) => d), [id, type]);
async function waitEvents(page, id, type, count) {
  await page.waitForFunction(([i, t, n]) => window.seen.filter(([w, k]) => w === i && k === t).length >= n, [id, type, count]);
  return events(page, id, type);
}
/** Waits until the LRS has accepted `count` statements. */
async function accepted(count) {
  while (lrs.accepted.length < count) await once(recorded, 'post');
  return lrs.accepted;
}
/** The course page's queue for the test LRS. */
const queued = (page) => page.evaluate((key) => JSON.parse(localStorage.getItem(key) || '[]'), `streamlab.xapi.queue ${endpoint()}/`);

const inFrame = (page, id) => page.frameLocator(`#${id} iframe`);
async function typeIn(widget, line) {
  const input = widget.locator('#console-input');
  await input.fill(line);
  await input.press('Enter');
}

/** Plays the tiny lesson in lesson mode: the group made in the console, then XACK chosen. */
async function playTiny(page, id) {
  const w = inFrame(page, id);
  await typeIn(w, 'XGROUP CREATE s g 0 MKSTREAM');
  await w.getByRole('button', { name: 'Check', exact: true }).click();
  await w.getByRole('button', { name: 'Next →' }).click();
  await w.getByLabel('XACK', { exact: true }).check();
  await w.getByRole('button', { name: 'Answer' }).click();
  await waitEvents(page, id, 'lesson-complete', 1);
}

/** Plays rich.toml's six questions in quiz mode, variant 0: the first and the fifth wrong at
 * first, so they score 0. */
async function playRich(page, id) {
  const w = inFrame(page, id);
  const answer = () => w.getByRole('button', { name: 'Answer' }).click();
  const next = () => w.getByRole('button', { name: 'Next →' }).click();
  await w.getByLabel('XCLAIM', { exact: true }).check();
  await answer();
  await w.getByRole('button', { name: 'Try again' }).click();
  await w.getByLabel('XAUTOCLAIM', { exact: true }).check();
  await answer();
  await next();
  await w.getByLabel('(integer) 5', { exact: true }).check();
  await answer();
  await next();
  await w.locator('.typed-reply').fill('(integer) 1');
  await answer();
  await next();
  await w.getByLabel('A whole number').fill('2');
  await w.getByLabel('A whole number').press('Enter');
  await next();
  await w.getByLabel('Acknowledging before the work').check();
  await answer();
  await w.getByRole('button', { name: 'Try again' }).click();
  await w.getByLabel('Reading with NOACK').check();
  await answer();
  await next();
  const steps = ['Create the group', 'Read new entries with >', 'Do the work', 'Acknowledge the entry'];
  for (let place = 0; place < steps.length; place++) {
    for (;;) {
      const at = (await w.locator('.order-steps .step-text').allInnerTexts()).indexOf(steps[place]);
      if (at <= place) break;
      await w.locator('.order-step').nth(at).getByRole('button', { name: 'Move up' }).click();
    }
  }
  await answer();
  await waitEvents(page, id, 'lesson-complete', 1);
}

/** Every statement valid by xapi-validation, and with what each of ours carries. */
function valid(statements) {
  for (const s of statements) {
    assert.deepEqual(validate(s), [], `valid xAPI: ${JSON.stringify(s)}`);
    assert.match(s.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(!Number.isNaN(Date.parse(s.timestamp)));
    assert.match(s.result.duration, /^PT(\d+H)?(\d+M)?\d+(\.\d+)?S$/);
  }
}
const verbs = (statements) => statements.map((s) => [s.verb.id.replace(`${ADL}verbs/`, ''), s.object.id.replace(BASE, '')]);
/** Asserts each statement id arrived exactly once. */
function exactlyOnce(statements, ids) {
  const counts = new Map();
  for (const s of statements) counts.set(s.id, (counts.get(s.id) ?? 0) + 1);
  assert.deepEqual([...counts.keys()].sort(), [...ids].sort(), 'the LRS got these statements');
  assert.ok([...counts.values()].every((n) => n === 1), 'each exactly once');
}

const LESSON = `<h1>Consumer groups, recorded</h1>
<p>Make a group, then say what acknowledges. Your progress goes to the course's learning record store.</p>
<stream-lab id="lesson" mode="lesson" lesson="lessons/tiny.toml" attempt="0" layout="console" loading="eager"
  xapi-base="${BASE}" lrs-endpoint="ENDPOINT" lrs-auth="${AUTH}" registration="${REGISTRATION}"
  actor='{"mbox": "mailto:ann@course.example", "name": "Ann"}'></stream-lab>`;

test('a lesson and a quiz on a course page of another origin send valid statements, in order, to the LRS', { timeout: 180_000 }, async (t) => {
  resetLrs();
  const url = coursePage('/course.html', `${LESSON.replace('ENDPOINT', endpoint())}
<h2>Every kind of question</h2>
<stream-lab id="quiz" mode="quiz" lesson="lessons/rich.toml" attempt="0" loading="eager" mastery="0.9"
  xapi-base="${BASE}" lrs-endpoint="${endpoint()}/" lrs-auth="${AUTH}"></stream-lab>`);
  await withBrowser({}, async (page) => {
    await page.goto(url);
    await waitEvents(page, 'lesson', 'ready', 1);
    await waitEvents(page, 'quiz', 'ready', 1);
    await playTiny(page, 'lesson');
    const lesson = await waitEvents(page, 'lesson', 'xapi', 5);
    await playRich(page, 'quiz');
    const quiz = await waitEvents(page, 'quiz', 'xapi', 15);
    assert.deepEqual(await events(page, 'lesson', 'error'), []);
    assert.deepEqual(await events(page, 'quiz', 'error'), []);

    // The lesson: its task, its question, the lesson, passed (4 of 4 against 0.8).
    assert.deepEqual(verbs(lesson), [
      ['completed', 'lessons/tiny/tasks/0'], ['answered', 'lessons/tiny/tasks/1'], ['completed', 'lessons/tiny/tasks/1'],
      ['completed', 'lessons/tiny'], ['passed', 'lessons/tiny'],
    ]);
    const [task, answered, question, done, passed] = lesson;
    assert.deepEqual(task.object.definition, { type: `${ADL}activities/performance`, name: { 'en-US': 'tiny, task 1' } });
    assert.deepEqual(task.result.score, { raw: 3, min: 0, max: 3, scaled: 1 });
    assert.deepEqual(answered.object.definition, { type: `${ADL}activities/cmi.interaction`, interactionType: 'choice', name: { 'en-US': 'tiny, task 2' } });
    assert.deepEqual([answered.result.success, answered.result.response], [true, 'option-0']);
    assert.deepEqual(question.result.score, { raw: 1, min: 0, max: 1, scaled: 1 });
    assert.deepEqual(done.result.score, { raw: 4, min: 0, max: 4, scaled: 1 });
    assert.deepEqual([done.result.completion, passed.result.success, passed.result.completion], [true, true, true]);
    assert.deepEqual(done.object.definition, { type: `${ADL}activities/lesson`, name: { 'en-US': 'tiny' } });
    for (const s of lesson) {
      assert.deepEqual(s.actor, { objectType: 'Agent', mbox: 'mailto:ann@course.example', name: 'Ann' });
      assert.equal(s.context.registration, REGISTRATION);
      assert.deepEqual(s.context.extensions, { [`${BASE}extensions/variant`]: 0, [`${BASE}extensions/profile`]: 'redis-8.2', [`${BASE}extensions/attempt`]: 0 });
    }
    for (const s of [task, answered, question]) assert.deepEqual(s.context.contextActivities, { parent: [{ objectType: 'Activity', id: `${BASE}lessons/tiny` }] });
    for (const s of [done, passed]) assert.equal(s.context.contextActivities, undefined);
    const times = lesson.map((s) => Date.parse(s.timestamp));
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'timestamps in order');

    // The quiz: each kind of question as its interaction, by the lesson's own numbers; two
    // wrong first, so 4 of 6, failed against 0.9.
    const answers = quiz.filter((s) => s.verb.id.endsWith('/answered'));
    assert.deepEqual(answers.map((s) => [s.object.id.replace(`${BASE}lessons/rich-fixture/tasks/`, ''), s.object.definition.interactionType, s.result.response, s.result.success]), [
      ['2', 'choice', 'option-1', false], ['2', 'choice', 'option-0', true],
      ['3', 'choice', 'option-0', true],
      ['4', 'fill-in', '(integer) 1', true],
      ['5', 'numeric', '2', true],
      ['6', 'choice', 'option-0', false], ['6', 'choice', 'option-0[,]option-1', true],
      ['7', 'sequencing', 'step-0[,]step-1[,]step-2[,]step-3', true],
    ]);
    assert.deepEqual(verbs(quiz.slice(-2)), [['completed', 'lessons/rich-fixture'], ['failed', 'lessons/rich-fixture']]);
    assert.deepEqual(quiz.at(-1).result.score, { raw: 4, min: 0, max: 6, scaled: 0.6667 });
    assert.equal(quiz.at(-1).result.success, false);
    // No actor given: this device's anonymous account, the same for each statement.
    const anonymous = quiz[0].actor;
    assert.equal(anonymous.account.homePage, BASE);
    assert.ok(quiz.every((s) => JSON.stringify(s.actor) === JSON.stringify(anonymous) && s.context.registration === undefined));

    // The LRS got each statement once, as POSTs from the course's origin, with xAPI's headers.
    const got = await accepted(20);
    exactlyOnce(got, [...lesson, ...quiz].map((s) => s.id));
    valid(got);
    assert.deepEqual(got.filter((s) => s.object.id.includes('/tiny')), lesson, 'the LRS got what the events carried, in order');
    for (const post of lrs.posts) {
      assert.equal(post.path, '/xapi/statements');
      assert.equal(post.origin, courseUrl(''));
      assert.equal(post.headers['x-experience-api-version'], '1.0.3');
      assert.equal(post.headers.authorization, AUTH);
      assert.match(post.headers['content-type'], /^application\/json/);
    }
    await page.waitForFunction((key) => localStorage.getItem(key) === '[]', `streamlab.xapi.queue ${endpoint()}/`);

    // The receipt on the lesson's completed and passed: an LRS's statement re-grades to its score.
    const receipt = done.result.extensions[`${BASE}extensions/receipt`];
    assert.match(receipt, /^SL1\./);
    assert.equal(passed.result.extensions[`${BASE}extensions/receipt`], receipt);
    const { load, verifyReceipt } = await import(join(root, 'dist', 'grader', 'grader.js'));
    await load();
    const check = await verifyReceipt(receipt, tinyLesson('tiny'));
    assert.deepEqual(check.problems, []);
    assert.equal(check.score / check.max, done.result.score.scaled);
    // A cross-origin frame is painted only while in view: each widget is shot on its own,
    // scrolled to and drawn.
    await page.setViewportSize({ width: 1400, height: 1400 });
    await mkdir(shots, { recursive: true });
    for (const id of ['lesson', 'quiz']) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      const frame = await (await page.locator(`#${id} iframe`).elementHandle()).contentFrame();
      await frame.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      await page.locator(`#${id}`).screenshot({ path: join(shots, `xapi-course-${id}.png`) });
    }
  });
});

test('statements made while the LRS is unreachable wait in the course page and arrive once after a reload', { timeout: 120_000 }, async () => {
  resetLrs('down');
  const url = coursePage('/offline.html', LESSON.replace('ENDPOINT', endpoint()));
  await withBrowser({ ignore: /net::ERR_(EMPTY_RESPONSE|CONNECTION_RESET|FAILED)/ }, async (page) => {
    await page.goto(url);
    await waitEvents(page, 'lesson', 'ready', 1);
    await playTiny(page, 'lesson');
    const made = await waitEvents(page, 'lesson', 'xapi', 5);
    await page.waitForFunction((key) => JSON.parse(localStorage.getItem(key) || '[]').length === 5, `streamlab.xapi.queue ${endpoint()}/`);
    assert.deepEqual((await queued(page)).map((s) => s.id), made.map((s) => s.id), 'kept in order, as made');
    assert.equal(lrs.accepted.length, 0);

    // Away from the page, the LRS comes back; the course page opened again sends the queue.
    await page.goto('about:blank');
    lrs.mode = 'up';
    await page.goto(url);
    const got = await accepted(5);
    await page.waitForFunction((key) => localStorage.getItem(key) === '[]', `streamlab.xapi.queue ${endpoint()}/`);
    exactlyOnce(got, made.map((s) => s.id));
    assert.deepEqual(got, made);
    valid(got);
    assert.ok(lrs.posts.every((p) => p.status === 200), 'nothing sent twice');
  });
});

test('a failing LRS (503) gets the statements again; a refusing one (400) has them dropped with an error', { timeout: 120_000 }, async () => {
  resetLrs();
  // Failing until every statement is queued: then `online` has them all to send.
  lrs.failing = Infinity;
  const url = coursePage('/flaky.html', `<stream-lab id="quiz" mode="quiz" lesson="lessons/tiny.toml" attempt="0" loading="eager"
  xapi-base="${BASE}" lrs-endpoint="${endpoint()}"></stream-lab>
<stream-lab id="bad" mode="quiz" lesson="lessons/tiny.toml" loading="eager" xapi-base="course" mastery="2" registration="nope"></stream-lab>
<div id="made"></div>`);
  await withBrowser({ ignore: /status of (503|400)|rejected \d xAPI statement/ }, async (page) => {
    await page.goto(url);
    await waitEvents(page, 'quiz', 'ready', 1);
    const answer = async (w) => {
      await w.getByLabel('XACK', { exact: true }).check();
      await w.getByRole('button', { name: 'Answer' }).click();
    };
    await answer(inFrame(page, 'quiz'));
    const made = await waitEvents(page, 'quiz', 'xapi', 4);
    assert.deepEqual(verbs(made), [['answered', 'lessons/tiny/tasks/1'], ['completed', 'lessons/tiny/tasks/1'], ['completed', 'lessons/tiny'], ['passed', 'lessons/tiny']]);
    await page.waitForFunction((key) => JSON.parse(localStorage.getItem(key) || '[]').length === 4, `streamlab.xapi.queue ${endpoint()}/`);
    assert.ok(lrs.posts.length >= 1 && lrs.posts.every((p) => p.status === 503));
    lrs.failing = 0;
    await page.evaluate(() => dispatchEvent(new Event('online')));
    const got = await accepted(4);
    exactlyOnce(got, made.map((s) => s.id));
    valid(got);
    assert.deepEqual(await events(page, 'quiz', 'error'), []);

    // Wrong xAPI options are named like any bad option.
    const [bad] = await waitEvents(page, 'bad', 'error', 1);
    assert.match(bad.message, /^Bad options:\nxapi-base must be an http\(s\) URL/);
    assert.match(bad.message, /registration must be a UUID, not "nope"/);
    assert.match(bad.message, /mastery must be a number from 0 to 1, not "2"/);

    // A widget made by script (create's options in camelCase), its LRS refusing: its
    // statements are dropped, and its `error` events say so; nothing stays queued.
    lrs.mode = 'reject';
    await page.evaluate(([base, lrsUrl]) => StreamLab.create(document.getElementById('made'), {
      mode: 'quiz', lesson: 'lessons/tiny.toml', loading: 'eager', xapiBase: base, lrsEndpoint: lrsUrl, actor: { account: { homePage: 'https://course.example/', name: 'ann' } },
    }), [BASE, endpoint()]);
    await waitEvents(page, 'made', 'ready', 1);
    await answer(inFrame(page, 'made'));
    const statements = await waitEvents(page, 'made', 'xapi', 4);
    assert.deepEqual(statements[0].actor, { objectType: 'Agent', account: { homePage: 'https://course.example/', name: 'ann' } });
    await page.waitForFunction(() => window.seen.filter(([w, k, d]) => w === 'made' && k === 'error').reduce((n, [, , d]) => n + Number(d.message.match(/rejected (\d+)/)[1]), 0) >= 4);
    for (const { message } of await events(page, 'made', 'error')) {
      assert.match(message, /^the LRS at http:\/\/127\.0\.0\.1:\d+\/xapi\/ rejected \d xAPI statement\(s\), which were dropped: HTTP 400 statement 1 has no verb we take$/);
    }
    assert.deepEqual(await queued(page), []);
  });
});

test('on StreamLab\'s own origin the widget runs in the page and sends the same statements', { timeout: 120_000 }, async () => {
  resetLrs();
  // StreamLab's files and the page from one server: one origin, so no frame. (A page
  // fulfilled by page.route would be no address space's, and Chromium would refuse its
  // requests to the loopback LRS.)
  const html = `<!doctype html><html lang="en"><title>same origin</title><link rel="icon" href="data:,">
<script src="/embed.js"></script>
<script>window.seen = []; for (const t of ['ready', 'xapi', 'error']) document.addEventListener(t, (e) => window.seen.push([e.target.id, t, e.detail]));</script>
<stream-lab id="quiz" mode="quiz" loading="eager" xapi-base="${BASE}" lrs-endpoint="${endpoint()}" registration="${REGISTRATION}"><script type="application/toml">${tinyLesson('tiny-inline')}</script></stream-lab>
</html>`;
  const host = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/xapi.html') { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html); return; }
    const upstream = await fetch(new URL(path.slice(1), dist.url));
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${host.address().port}`;
  try {
    await withBrowser({}, async (page) => {
      await page.goto(`${origin}/xapi.html`);
      await waitEvents(page, 'quiz', 'ready', 1);
      assert.equal(await page.locator('#quiz iframe').count(), 0, 'no frame');
      await page.locator('#quiz').getByLabel('XACK', { exact: true }).check();
      await page.locator('#quiz').getByRole('button', { name: 'Answer' }).click();
      const made = await waitEvents(page, 'quiz', 'xapi', 4);
      assert.deepEqual(verbs(made), [['answered', 'lessons/tiny-inline/tasks/1'], ['completed', 'lessons/tiny-inline/tasks/1'], ['completed', 'lessons/tiny-inline'], ['passed', 'lessons/tiny-inline']]);
      const got = await accepted(4);
      exactlyOnce(got, made.map((s) => s.id));
      valid(got);
      assert.ok(lrs.posts.every((p) => p.origin === origin && p.headers.authorization === undefined));
      assert.deepEqual(await events(page, 'quiz', 'error'), []);
    });
  } finally {
    await new Promise((ok) => host.close(ok));
  }
});
