// StreamLab as a cmi5 assignable unit (README, "cmi5"): cmi5.html on StreamLab's host, launched
// as an LMS launches an AU, with a stub LMS on another origin in this test: the one-time fetch
// URL (an error the second time), LMS.LaunchData in the State API, and a statements resource
// that records what it receives, answers queries, and answers CORS preflights. The tiny
// lesson is played by clicking and typing. Checked: initialized → completed → passed →
// terminated, no score on completed, the cmi5 categories and the context template on every
// statement, the receipt on passed, one completed and one passed per registration across a
// reload and a second launch, a Browse launch recording no result, returnURL followed, and
// problems said in the page. Every statement received is validated by xapi-validation.
// Nothing waits on a clock: each step waits for a condition.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/cmi5.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import validation from 'xapi-validation';
import { root, shots, serveDist, withBrowser, tinyLesson, lessonHost, playTiny } from './harness.mjs';

const validate = validation.default;
const ADL = 'http://adlnet.gov/expapi/verbs/';
const CMI5 = 'https://w3id.org/xapi/cmi5/context/';
const SESSION = `${CMI5}extensions/sessionid`;
const ACTIVITY = 'https://lms.example/courses/streams/au/tiny';
const ACTOR = { objectType: 'Agent', account: { homePage: 'https://lms.example', name: 'ann' }, name: 'Ann' };

let dist;
let host;
let lmsServer;
/** The LMS: its launches by fetch id ({ token, used, data }), and the statements it took. */
const lms = { launches: new Map(), statements: [], posts: [], reject: false };
const recorded = new EventEmitter();

before(async () => {
  dist = await serveDist();
  // StreamLab's host: dist/, with the test's tiny lesson among its lessons.
  host = lessonHost(dist, { tiny: tinyLesson('tiny') });
  lmsServer = createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': req.headers.origin ?? '*',
      'access-control-allow-headers': 'Authorization, Content-Type, X-Experience-API-Version',
      'access-control-allow-methods': 'GET, POST, PUT, OPTIONS',
    };
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return; }
    const url = new URL(req.url, 'http://x');
    const json = (status, value) => res.writeHead(status, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(value));
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      if (url.pathname === '/return.html') { res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Course</title><link rel="icon" href="data:,"><p>Back in the course.</p>'); return; }
      const fetchId = url.pathname.match(/^\/fetch\/(.+)$/)?.[1];
      if (fetchId && req.method === 'POST') {
        const launch = lms.launches.get(fetchId);
        // cmi5 8.2.3: the fetch URL answers once; after that, an error in its JSON.
        if (!launch || launch.used) { json(200, { 'error-code': '1', 'error-text': 'This launch was already used' }); recorded.emit('fetch'); return; }
        launch.used = true;
        json(200, { 'auth-token': launch.token });
        recorded.emit('fetch');
        return;
      }
      const launch = [...lms.launches.values()].find((l) => req.headers.authorization === `Basic ${l.token}`);
      if (!launch) { json(401, { error: 'no such token' }); return; }
      if (url.pathname === '/xapi/activities/state' && req.method === 'GET') {
        const q = url.searchParams;
        const right = q.get('stateId') === 'LMS.LaunchData' && q.get('activityId') === ACTIVITY && q.get('registration') === launch.registration
          && JSON.stringify(JSON.parse(q.get('agent'))) === JSON.stringify(ACTOR);
        if (right) json(200, launch.data);
        else json(404, { error: 'no such document' });
        return;
      }
      if (url.pathname === '/xapi/statements' && req.method === 'GET') {
        const q = url.searchParams;
        const found = lms.statements.filter((s) => s.verb.id === q.get('verb') && s.object.id === q.get('activity')
          && s.context.registration === q.get('registration') && s.actor.account?.name === JSON.parse(q.get('agent')).account.name);
        json(200, { statements: found.slice(0, Number(q.get('limit')) || undefined), more: '' });
        return;
      }
      if (url.pathname === '/xapi/statements' && req.method === 'POST') {
        const statements = [].concat(JSON.parse(body));
        lms.posts.push({ headers: req.headers, statements, session: launch.session });
        if (lms.reject) { res.writeHead(400, cors).end('statement refused: no such verb here'); recorded.emit('post'); return; }
        lms.statements.push(...statements);
        json(200, statements.map((s) => s.id));
        recorded.emit('post');
        return;
      }
      json(404, { error: 'not here' });
    });
  });
  await Promise.all([host, lmsServer].map((s) => new Promise((ok) => s.listen(0, '127.0.0.1', ok))));
});
after(async () => {
  await dist.close();
  await Promise.all([host, lmsServer].map((s) => new Promise((ok) => s.close(ok))));
});

// localhost: another origin than StreamLab's 127.0.0.1.
const lmsUrl = (path) => `http://localhost:${lmsServer.address().port}${path}`;
const RETURN = () => lmsUrl('/return.html');

/** A launch as an LMS makes it: a fresh session and fetch URL; the AU's URL. */
function launchUrl(registration, { launchMode = 'Normal', masteryScore = 0.8, moveOn = 'CompletedAndPassed', returnURL = RETURN(), query = {} } = {}) {
  const session = crypto.randomUUID();
  const fetchId = crypto.randomUUID();
  const data = {
    launchMode, moveOn, masteryScore, returnURL,
    contextTemplate: {
      contextActivities: { grouping: [{ objectType: 'Activity', id: 'https://lms.example/courses/streams' }] },
      extensions: { [SESSION]: session },
    },
  };
  if (masteryScore === null) delete data.masteryScore;
  if (returnURL === null) delete data.returnURL;
  lms.launches.set(fetchId, { token: Buffer.from(`${session}:secret`).toString('base64'), registration, session, data });
  const q = new URLSearchParams({
    lesson: 'tiny', endpoint: lmsUrl('/xapi/'), fetch: lmsUrl(`/fetch/${fetchId}`), actor: JSON.stringify(ACTOR), registration, activityId: ACTIVITY, ...query,
  });
  return { url: `http://127.0.0.1:${host.address().port}/cmi5.html?${q}`, session };
}

const of = (session) => lms.statements.filter((s) => s.context.extensions[SESSION] === session);
const verbs = (statements) => statements.map((s) => s.verb.id.replace(ADL, ''));
async function received(session, count) {
  while (of(session).length < count) await once(recorded, 'post');
  return of(session);
}

/** Plays the tiny lesson as a person would, once the AU page says `ready`. */
async function playTinyAU(page, ready = 'Your work is recorded by your course.') {
  await page.getByText(ready).waitFor();
  await playTiny(page);
}

/** What every cmi5-defined statement carries (spec 9.6), and valid xAPI. */
function cmi5Statement(s, session, registration) {
  assert.deepEqual(validate(s), [], `valid xAPI: ${JSON.stringify(s)}`);
  assert.deepEqual(s.actor, ACTOR);
  assert.deepEqual(s.object, { objectType: 'Activity', id: ACTIVITY });
  assert.equal(s.context.registration, registration);
  assert.equal(s.context.extensions[SESSION], session, 'the context template\'s session');
  assert.deepEqual(s.context.contextActivities.grouping, [{ objectType: 'Activity', id: 'https://lms.example/courses/streams' }], 'the rest of the template');
  const categories = s.context.contextActivities.category.map((c) => c.id);
  const moveOn = ['completed', 'passed', 'failed'].includes(verbs([s])[0]);
  assert.deepEqual(categories, [`${CMI5}categories/cmi5`, ...(moveOn ? [`${CMI5}categories/moveon`] : [])]);
}

test('a Normal launch: initialized, completed without a score, passed with the receipt, terminated; once per registration across a reload and a second launch', { timeout: 180_000 }, async () => {
  const registration = crypto.randomUUID();
  const first = launchUrl(registration);
  await withBrowser({}, async (page) => {
    await page.goto(first.url);
    await received(first.session, 1);
    await playTinyAU(page);
    await received(first.session, 3);
    await page.getByText(/^Done: 4 of 4, passed/).waitFor();
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'cmi5-au.png'), fullPage: true });
    await page.getByRole('button', { name: 'Exit' }).click();
    await page.waitForURL(RETURN());
    const made = await received(first.session, 4);
    assert.deepEqual(verbs(made), ['initialized', 'completed', 'passed', 'terminated']);
    for (const s of made) cmi5Statement(s, first.session, registration);
    const [, completed, passed, terminated] = made;
    assert.deepEqual(completed.result, { completion: true, duration: completed.result.duration }, 'no score on completed');
    assert.deepEqual(passed.result.score, { scaled: 1, raw: 4, min: 0, max: 4 });
    assert.equal(passed.result.success, true);
    assert.equal(passed.context.extensions[`${CMI5}extensions/masteryscore`], 0.8);
    assert.match(terminated.result.duration, /^PT(\d+H)?(\d+M)?\d+(\.\d+)?S$/);
    const times = made.map((s) => Date.parse(s.timestamp));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
    for (const post of lms.posts.filter((p) => p.session === first.session)) {
      assert.equal(post.headers['x-experience-api-version'], '1.0.3');
      assert.equal(post.headers.origin, `http://127.0.0.1:${host.address().port}`);
    }

    // The receipt on passed re-grades to its score.
    const receipt = passed.result.extensions[`http://127.0.0.1:${host.address().port}/extensions/receipt`];
    assert.match(receipt, /^SL1\./);
    const { load, verifyReceipt } = await import(join(root, 'dist', 'grader', 'grader.js'));
    await load();
    const check = await verifyReceipt(receipt, tinyLesson('tiny'));
    assert.deepEqual(check.problems, []);
    assert.equal(check.score / check.max, passed.result.score.scaled);

    // The same launch again (a reload): the fetch URL refuses, the page says so and sends nothing.
    await page.goto(first.url);
    await page.getByRole('alert').getByText(/refused this launch: This launch was already used/).waitFor();
    await page.screenshot({ path: join(shots, 'cmi5-refused.png') });
    assert.equal(of(first.session).length, 4);

    // A second launch in the registration, played again: no second completed or passed.
    const second = launchUrl(registration);
    await page.goto(second.url);
    await received(second.session, 1);
    await playTinyAU(page);
    await page.getByText(/already has this lesson's result/).waitFor();
    await page.getByRole('button', { name: 'Exit' }).click();
    await page.waitForURL(RETURN());
    assert.deepEqual(verbs(await received(second.session, 2)), ['initialized', 'terminated']);
    const all = lms.statements.filter((s) => s.context.registration === registration);
    assert.deepEqual(verbs(all).sort(), ['completed', 'initialized', 'initialized', 'passed', 'terminated', 'terminated']);
    for (const s of of(second.session)) cmi5Statement(s, second.session, registration);
  });
});

test('a Browse launch records no result; leaving the page terminates the session', { timeout: 120_000 }, async () => {
  const registration = crypto.randomUUID();
  const browse = launchUrl(registration, { launchMode: 'Browse', returnURL: null });
  await withBrowser({}, async (page) => {
    await page.goto(browse.url);
    await playTinyAU(page, 'Browse mode: nothing is recorded.');
    await page.getByText('2 of 2 tasks done.').waitFor();
    await page.goto('about:blank');
    const made = await received(browse.session, 2);
    assert.deepEqual(verbs(made), ['initialized', 'terminated']);
    for (const s of made) cmi5Statement(s, browse.session, registration);
  });
});

test('a page without a launch, and an LRS that refuses, say so in the page', { timeout: 120_000 }, async () => {
  await withBrowser({ ignore: /status of 400/ }, async (page) => {
    await page.goto(`http://127.0.0.1:${host.address().port}/cmi5.html?lesson=tiny`);
    await page.getByRole('alert').getByText(/opened from a course platform \(cmi5\).*lacks endpoint, fetch, actor, registration, activityId/).waitFor();

    lms.reject = true;
    try {
      await page.goto(launchUrl(crypto.randomUUID()).url);
      await page.getByRole('alert').getByText(/refused a request: HTTP 400 statement refused: no such verb here/).waitFor();
      await page.getByText('Not recording').waitFor();
    } finally {
      lms.reject = false;
    }
  });
});
