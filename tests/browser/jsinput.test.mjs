// StreamLab as an Open edX JSInput problem (README, "Open edX"), and Canvas's lti.frameResize.
// An edX-style parent page on one origin frames embed.html?jsinput=1 from StreamLab's host on
// another and talks to it with the real JSChannel library (npm jschannel), as edX's jsinput.js
// does: getGrade after the lesson is played by typing and clicking in the frame (its receipt
// re-grades in Node to the same score), getState, then a reload and setState bringing the work
// back. A page of a third origin gets nothing. The problem XML's Python check function
// (web/examples/jsinput-problem.xml) runs on a real answer. A frame with lti=1 posts
// lti.frameResize as the widget grows; one without posts none.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/jsinput.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { root, serveDist, withBrowser, screenshot, filesServer, tinyLesson, lessonHost, playTiny } from './harness.mjs';

const { load, verifyReceipt } = await import(join(root, 'dist', 'grader', 'grader.js'));
await load();
const JSCHANNEL = await readFile(join(root, 'tests', 'browser', 'node_modules', 'jschannel', 'src', 'jschannel.js'), 'utf8');
const PROBLEM = await readFile(join(root, 'web', 'examples', 'jsinput-problem.xml'), 'utf8');

let dist;
let host;
let course;
let other;
const url = (server) => `http://127.0.0.1:${server.address().port}`;
const listen = (server) => new Promise((ok) => server.listen(0, '127.0.0.1', ok));

/** A course page framing `src`, with JSChannel to it as `window.call(method, params)`. */
const edxPage = (src, extra = '') => `<!doctype html><html lang="en"><title>Course</title><link rel="icon" href="data:,">
<script src="/jschannel.js"></script>
<h1>Unit 3: consumer groups</h1><iframe id="problem" title="StreamLab problem" src="${src}" style="width:100%;height:700px;border:1px solid #ccc"></iframe>
<script>
  window.heard = [];
  addEventListener('message', (e) => { if (e.source === document.getElementById('problem').contentWindow) window.heard.push(e.data); });
  const channel = Channel.build({ window: document.getElementById('problem').contentWindow, origin: '*', scope: 'JSInput' });
  window.call = (method, params, timeout) => new Promise((ok, fail) => channel.call({ method, params, timeout, success: ok, error: (e, m) => fail(new Error(e + ': ' + m)) }));
</script>${extra}</html>`;

before(async () => {
  dist = await serveDist();
  // StreamLab's host: dist/, with the tiny lesson among its lessons.
  host = lessonHost(dist, { tiny: tinyLesson('tiny') });
  await listen(host);
  const pages = new Map([['/jschannel.js', { type: 'text/javascript', body: JSCHANNEL }]]);
  course = filesServer(pages);
  other = filesServer(pages);
  await Promise.all([listen(course), listen(other)]);
  const problem = (origin, query = '') => `${url(host)}/embed.html?jsinput=1&origin=${encodeURIComponent(origin)}&mode=lesson&lesson=tiny&attempt=0${query}`;
  pages.set('/unit.html', { type: 'text/html', body: edxPage(problem(url(course))) });
  pages.set('/stolen.html', { type: 'text/html', body: edxPage(problem(url(course))) });
  pages.set('/canvas.html', { type: 'text/html', body: edxPage(problem(url(course), '&lti=1')) });
  pages.set('/plain.html', { type: 'text/html', body: edxPage(`${url(host)}/embed.html?origin=${encodeURIComponent(url(course))}&mode=lesson&lesson=tiny&attempt=0`) });
});
after(() => { dist.close(); host.close(); course.close(); other.close(); });

/** The tiny lesson played in the frame as a learner: a console line, Check, a choice. */
async function play(frame) {
  await playTiny(frame);
  await frame.getByText('2 of 2 solved').waitFor();
}

test('edX calls getGrade, getState and setState across origins; the grade re-grades from its receipt', { timeout: 180_000 }, async () => {
  await withBrowser({ width: 1400, height: 1000 }, async (page) => {
    await page.goto(`${url(course)}/unit.html`);
    const frame = page.frameLocator('#problem');
    await play(frame);
    const answer = JSON.parse(await page.evaluate(() => window.call('getGrade', '')));
    assert.equal(answer.lesson, 'tiny');
    assert.equal(answer.done, 2);
    assert.equal(answer.total, 2);
    const check = await verifyReceipt(answer.receipt, tinyLesson('tiny'));
    assert.deepEqual(check.problems, []);
    assert.equal(check.score, answer.score);
    assert.equal(check.max, answer.max);
    const state = await page.evaluate(() => window.call('getState', ''));
    assert.ok(JSON.parse(state).receipt.startsWith('SL1.'));

    // The problem's check function, as edX runs it on the submitted answer.
    const script = PROBLEM.match(/<script type="loncapa\/python">([\s\S]*?)<\/script>/)[1];
    const submitted = JSON.stringify({ answer: JSON.stringify(answer), state });
    const graded = JSON.parse(execFileSync('python3', ['-c', `${script}\nimport json, sys\nprint(json.dumps(check(None, sys.argv[1])))`, submitted], { encoding: 'utf8' }));
    assert.equal(graded.ok, true);
    assert.equal(graded.grade_decimal, answer.score / answer.max);
    assert.match(graded.msg, /receipt/);
    await screenshot(page, 'jsinput-1400.png');

    // edX reloads the unit and hands the state back.
    await page.reload();
    await frame.getByText('0 of 2 solved').waitFor();
    assert.equal(await page.evaluate((s) => window.call('setState', s), state), null);
    await frame.getByText('2 of 2 solved').waitFor();
    const again = JSON.parse(await page.evaluate(() => window.call('getGrade', '')));
    assert.equal(again.score, answer.score);
    assert.deepEqual((await verifyReceipt(again.receipt, tinyLesson('tiny'))).problems, []);
    await assert.rejects(page.evaluate(() => window.call('setState', '{"receipt": "SL1.AAAA"}')), /runtime_error: .*receipt/);
    await assert.rejects(page.evaluate(() => window.call('exportScript', '')), /method_not_found/);
  });
  for (const [width, height] of [[1024, 800], [390, 844]]) {
    await withBrowser({ width, height }, async (page) => {
      await page.goto(`${url(course)}/unit.html`);
      await page.frameLocator('#problem').getByText('0 of 2 solved').waitFor();
      await screenshot(page, `jsinput-${width}.png`);
    });
  }
});

test('a page of another origin framing the problem gets no answer', { timeout: 60_000 }, async () => {
  await withBrowser({ width: 1024, height: 800 }, async (page) => {
    await page.goto(`${url(other)}/stolen.html`);
    await page.frameLocator('#problem').getByText('0 of 2 solved').waitFor();
    // The frame speaks to the course's origin only: the browser drops its messages to this page,
    // and it ignores this page's calls. The call's timeout cannot fail a right build: a slow
    // machine only makes a wrong answer arrive after it, never a right refusal fail.
    await assert.rejects(page.evaluate(() => window.call('getGrade', '', 3000)), /timeout_error/);
    assert.deepEqual(await page.evaluate(() => window.heard), []);
  });
});

test('with lti=1 the frame posts lti.frameResize as the widget grows; without it, none', { timeout: 60_000 }, async () => {
  await withBrowser({ width: 1024, height: 800 }, async (page) => {
    await page.goto(`${url(course)}/canvas.html`);
    const frame = page.frameLocator('#problem');
    await frame.getByText('0 of 2 solved').waitFor();
    const resizes = () => page.evaluate(() => window.heard.filter((m) => typeof m === 'string' && m.includes('lti.frameResize')).map((m) => JSON.parse(m)));
    await page.waitForFunction(() => window.heard.some((m) => typeof m === 'string' && m.includes('lti.frameResize')));
    const first = (await resizes()).at(-1);
    assert.equal(first.subject, 'lti.frameResize');
    const height = await frame.locator('#widget').evaluate((e) => Math.round(e.getBoundingClientRect().height));
    assert.equal(first.height, height);
    // A hint shown makes the widget taller: the new height is posted.
    await frame.getByRole('button', { name: 'Hint' }).click();
    await frame.getByText('XGROUP CREATE can make the stream too.').waitFor();
    const grown = await frame.locator('#widget').evaluate((e) => Math.round(e.getBoundingClientRect().height));
    assert.ok(grown > height, `the widget grew (${height} → ${grown})`);
    await page.waitForFunction((h) => window.heard.some((m) => typeof m === 'string' && m.includes(`"height":${h}`)), grown);
  });
  await withBrowser({ width: 1024, height: 800 }, async (page) => {
    await page.goto(`${url(course)}/plain.html`);
    await page.frameLocator('#problem').getByText('0 of 2 solved').waitFor();
    await page.frameLocator('#problem').locator('#console-input').fill('XADD t * n 1');
    await page.frameLocator('#problem').locator('#console-input').press('Enter');
    // The frame's own resize message (embed.js's protocol) arrives; no lti message ever does.
    await page.waitForFunction(() => window.heard.some((m) => m && m.type === 'resize'));
    assert.deepEqual(await page.evaluate(() => window.heard.filter((m) => typeof m === 'string')), []);
  });
});
