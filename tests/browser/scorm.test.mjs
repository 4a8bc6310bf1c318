// StreamLab as SCORM packages (README, "SCORM"): `streamlab package scorm` writes each form
// (self-contained, thin) for each version (1.2, 2004 4th edition); the zip is unpacked and
// served from a course platform's origin, where a parent page holds scorm-again's real
// Scorm12API / Scorm2004API as the LMS's API and frames the SCO's launch page, as an LMS
// does. The thin form's StreamLab host is another origin. A learner plays a three-task lesson
// by typing and clicking; then the cmi.* values scorm-again holds are checked (score, status,
// interactions, location, session time, exit). A relaunch mid-lesson (a task done, a question
// answered, lines typed in the next) restores suspend_data with cmi.entry "resume", and the
// widget shows the attempt again; opened once more in review mode it records nothing. A 1.2
// attempt past 4,096 characters is warned of. Nothing waits on a clock: each step waits for a
// condition.
// Needs dist/ (cargo xtask dist) and the streamlab binary ($STREAMLAB, else cargo run).
// Run: node --test tests/browser/scorm.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, readFile, readdir } from 'node:fs/promises';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, extname } from 'node:path';
import { root, serveDist, withBrowser, tinyLesson, filesServer, screenshot, gzipKB, lessonHost, groupTask } from './harness.mjs';

const { open } = await import(join(root, 'dist', 'grader', 'receipt.js'));

// The tiny lesson (a group to make, a question) and a third task, done in the console.
const LESSON = `${tinyLesson('three')}

[[task]]
kind = "reach-state"
title = "An entry"
prompt = "Add one entry to \`s\`."
solution = ["XADD s * f v"]
  [[task.check]]
  kind = "length"
  stream = "s"
  equals = 1
  message = "The stream should hold one entry; it holds {actual}."
`;

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.css': 'text/css; charset=utf-8', '.toml': 'text/plain; charset=utf-8', '.xml': 'application/xml' };
const AGAIN = join(root, 'tests', 'browser', 'node_modules', 'scorm-again', 'dist');

let dist;
let host;
let lms;
let lessons;
/** The course platform's files: its player page, scorm-again, and the unpacked packages. */
const files = new Map();
const built = {};

/** `streamlab package scorm ARGS`: the binary xtask built, else cargo's. Its stderr (sizes,
 * warnings) is returned. */
function streamlab(args) {
  const [command, pre] = process.env.STREAMLAB ? [process.env.STREAMLAB, []] : ['cargo', ['run', '--quiet', '-p', 'streamlab', '--']];
  const run = spawnSync(command, [...pre, 'package', 'scorm', ...args], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`streamlab package scorm ${args.join(' ')} failed: ${run.stderr}`);
  return run.stderr;
}

/** Writes a package, unpacks it with Python's zipfile (which checks each CRC), and serves
 * its files under /NAME/ on the course platform. */
async function pack(name, args) {
  const zip = join(lessons, `${name}.zip`);
  const said = streamlab([...args, '--lessons', lessons, '-o', zip, 'three']);
  const out = join(lessons, name);
  execFileSync('python3', ['-m', 'zipfile', '-t', zip]);
  execFileSync('python3', ['-m', 'zipfile', '-e', zip, out]);
  const names = [];
  const walk = async (dir, prefix) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) await walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else names.push(`${prefix}${entry.name}`);
    }
  };
  await walk(out, '');
  for (const file of names) files.set(`/${name}/${file}`, { type: TYPES[extname(file)] ?? 'application/octet-stream', body: await readFile(join(out, file)) });
  built[name] = { zip: (await readFile(zip)).length, names: names.sort(), manifest: await readFile(join(out, 'imsmanifest.xml'), 'utf8'), said };
}

// The LMS's player page: the API on the window, the SCO in a frame. `launch` starts an
// attempt or, given what the last session left, a return to it (entry "resume" after exit
// "suspend", as SCORM's RTE says); it resolves once the frame is asked to load. `leave`
// unloads the SCO (its pagehide commits and terminates) and resolves to the API's cmi.
const PLAYER = `
  window.calls = [];
  window.texts = [];
  let api = null;
  const frame = () => document.getElementById('sco');
  window.launch = (version, url, last, review) => {
    const Api = version === '1.2' ? Scorm12API : Scorm2004API;
    api = new Api({ logLevel: 5, autocommit: false });
    const prefix = version === '1.2' ? 'LMS' : '';
    for (const m of ['Initialize', version === '1.2' ? 'Finish' : 'Terminate', 'Commit']) api.on(prefix + m, () => window.calls.push(m));
    api.on(prefix + 'SetValue.cmi.suspend_data', (element, value) => { readReceipt(value).then((t) => window.texts.push(t)); });
    if (last) {
      const core = version === '1.2' ? last.core : last;
      const data = version === '1.2'
        ? { suspend_data: last.suspend_data, core: { entry: core.exit === 'suspend' ? 'resume' : '', lesson_location: core.lesson_location, lesson_status: core.lesson_status, score: core.score, student_name: 'Lee, Ann' } }
        : { suspend_data: last.suspend_data, entry: last.exit === 'suspend' ? 'resume' : '', location: last.location, completion_status: last.completion_status, success_status: last.success_status, score: last.score, learner_name: 'Ann Lee' };
      if (review) Object.assign(version === '1.2' ? data.core : data, version === '1.2' ? { lesson_mode: 'review' } : { mode: 'review' });
      api.loadFromJSON(data);
    } else if (version === '1.2') api.loadFromJSON({ core: { student_name: 'Lee, Ann', entry: 'ab-initio' }, student_data: { mastery_score: '80' } });
    else api.loadFromJSON({ learner_name: 'Ann Lee', entry: 'ab-initio', scaled_passing_score: '0.8' });
    window[version === '1.2' ? 'API' : 'API_1484_11'] = api;
    window.calls = [];
    window.texts = [];
    frame().src = url;
  };
  window.cmi = () => api.renderCMIToJSONObject().cmi;
  window.leave = () => new Promise((done) => {
    frame().addEventListener('load', () => done(api.renderCMIToJSONObject().cmi), { once: true });
    frame().src = 'about:blank';
  });
  async function readReceipt(token) {
    const bytes = Uint8Array.from(atob(token.slice(4).replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'))).text();
  }
`;
const PAGE = (version) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course platform</title><link rel="icon" href="data:,">
<style>body{margin:0;font:15px system-ui,sans-serif;background:#eef1f5} nav{background:#243447;color:#fff;padding:.6rem 1rem} iframe{display:block;width:100%;height:calc(100vh - 2.6rem);border:0;background:#fff}</style>
<script src="/scorm-again/${version === '1.2' ? 'scorm12' : 'scorm2004'}.js"></script><script src="/player.js"></script></head>
<body><nav>Course platform · StreamLab: Redis Streams</nav><iframe id="sco" title="Lesson"></iframe></body></html>`;

before(async () => {
  dist = await serveDist();
  lessons = await mkdtemp(join(tmpdir(), 'streamlab-scorm-'));
  await writeFile(join(lessons, 'three.toml'), LESSON);
  // StreamLab's host (the thin form's): dist/ with the test's lesson among its lessons.
  host = lessonHost(dist, { three: LESSON });
  lms = filesServer(files);
  await Promise.all([host, lms].map((s) => new Promise((ok) => s.listen(0, '127.0.0.1', ok))));
  files.set('/player.js', { type: TYPES['.js'], body: PLAYER });
  for (const v of ['1.2', '2004']) {
    files.set(`/lms-${v}.html`, { type: TYPES['.html'], body: PAGE(v) });
    files.set(`/scorm-again/${v === '1.2' ? 'scorm12' : 'scorm2004'}.js`, { type: TYPES['.js'], body: await readFile(join(AGAIN, `${v === '1.2' ? 'scorm12' : 'scorm2004'}.min.js`)) });
  }
  const base = `http://127.0.0.1:${host.address().port}/`;
  for (const v of ['1.2', '2004']) {
    await pack(`self-${v}`, ['--scorm', v, '--site', join(root, 'dist')]);
    await pack(`thin-${v}`, ['--scorm', v, '--form', 'thin', '--base', base]);
  }
});
after(async () => {
  await dist.close();
  await Promise.all([host, lms].map((s) => new Promise((ok) => s.close(ok))));
});

// localhost: another origin than StreamLab's 127.0.0.1 (the thin form's host).
const lmsUrl = (path) => `http://localhost:${lms.address().port}${path}`;

/** The SCO's frame and, in it, the widget's (the thin form's widget is one frame deeper). */
function frames(page, form) {
  const sco = page.frameLocator('#sco');
  return { sco, lab: form === 'thin' ? sco.frameLocator('iframe') : sco };
}

/** Does task 1 (the group, read from the prompt the variant shows) and answers the question
 * wrong, then right; resolves to the stream's name. */
async function firstTwo(sco, lab, recording) {
  await sco.getByText(recording).waitFor();
  const stream = await groupTask(lab);
  await sco.getByText(/^1 of 3 tasks done\./).waitFor();
  await lab.getByRole('button', { name: 'Next →' }).click();
  await lab.getByLabel('XDEL', { exact: true }).check();
  await lab.getByRole('button', { name: 'Answer' }).click();
  await lab.getByRole('button', { name: 'Try again' }).click();
  await lab.getByLabel('XACK', { exact: true }).check();
  await lab.getByRole('button', { name: 'Answer' }).click();
  await sco.getByText(/^2 of 3 tasks done\./).waitFor();
  await lab.getByRole('button', { name: 'Next →' }).click();
  return stream;
}

/** The interactions' fields scorm-again holds, in order. */
const interactions = (cmi) => Object.values(cmi.interactions ?? {}).filter((i) => i && typeof i === 'object' && 'id' in i);

for (const version of ['1.2', '2004']) {
  for (const form of ['self', 'thin']) {
    const name = `${form}-${version}`;
    const v12 = version === '1.2';
    const recording = 'Your work is recorded by your course for Ann Lee.';

    test(`SCORM ${version}, ${form}: a lesson played to the end leaves score, status, interactions, location, session time and exit`, { timeout: 180_000 }, async () => {
      await withBrowser({}, async (page) => {
        await page.goto(lmsUrl(`/lms-${version}.html`));
        await page.evaluate(([v, url]) => window.launch(v, url), [version, lmsUrl(`/${name}/three.html`)]);
        const { sco, lab } = frames(page, form);
        const stream = await firstTwo(sco, lab, recording);
        if (form === 'thin') {
          // The hosted frame answers the launch page's origin only, as every embed's does.
          const src = new URL(await sco.locator('iframe').getAttribute('src'));
          assert.equal(src.origin, `http://127.0.0.1:${host.address().port}`);
          assert.equal(src.searchParams.get('origin'), new URL(lmsUrl('/')).origin);
        }
        await lab.locator('#console-input').fill(`XADD ${stream} * f v`);
        await lab.locator('#console-input').press('Enter');
        await lab.locator('.log .log-item').filter({ hasText: /"\d+-\d+"/ }).waitFor();
        await lab.getByRole('button', { name: 'Check', exact: true }).click();
        await sco.getByText('Done: 6 of 7, passed (80% needed). Recorded by your course.').waitFor();
        // The commit after the last task, with its receipt in suspend_data.
        await page.waitForFunction(() => window.calls.filter((c) => c === 'Commit').length >= 3 && window.texts.some((t) => /^task 2 done 3/m.test(t)));
        if (form === 'self' && version === '2004') for (const width of [1400, 1024, 390]) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
          await screenshot(page, `scorm-${width}.png`, { fullPage: false });
        }
        const during = await page.evaluate(() => window.cmi());
        const cmi = await page.evaluate(() => window.leave());
        const calls = await page.evaluate(() => window.calls);
        assert.equal(calls[0], 'Initialize');
        assert.deepEqual(calls.slice(-2), ['Commit', v12 ? 'Finish' : 'Terminate'], 'pagehide commits, then terminates once');
        assert.equal(calls.filter((c) => c === (v12 ? 'Finish' : 'Terminate')).length, 1);
        const answers = interactions(cmi);
        assert.equal(answers.length, 2, 'one interaction per answer');
        if (v12) {
          assert.equal(cmi.core.lesson_status, 'passed');
          assert.deepEqual({ ...cmi.core.score }, { raw: '85.71', min: '0', max: '100' });
          assert.equal(cmi.core.lesson_location, 'task 3 of 3');
          assert.equal(cmi.core.exit, '');
          assert.match(cmi.core.session_time, /^\d{2,4}:[0-5]\d:[0-5]\d(\.\d{1,2})?$/);
          assert.deepEqual(answers.map((i) => [i.id, i.type, i.student_response, i.result, i.weighting]), [
            ['three.task-1', 'choice', '1', 'wrong', '1'], ['three.task-1', 'choice', '0', 'correct', '1']]);
          for (const i of answers) assert.match(i.time, /^\d\d:\d\d:\d\d$/);
        } else {
          assert.equal(cmi.completion_status, 'completed');
          assert.equal(cmi.success_status, 'passed');
          assert.deepEqual({ raw: cmi.score.raw, min: cmi.score.min, max: cmi.score.max, scaled: cmi.score.scaled }, { raw: '6', min: '0', max: '7', scaled: '0.8571' });
          assert.equal(cmi.progress_measure, '1');
          assert.equal(cmi.location, 'task 3 of 3');
          assert.equal(cmi.exit, 'normal');
          assert.match(cmi.session_time, /^PT(\d+H)?(\d+M)?\d+(\.\d{1,2})?S$/);
          assert.deepEqual(answers.map((i) => [i.id, i.type, i.learner_response, i.result, i.weighting]), [
            ['urn:streamlab:three:task-1', 'choice', 'option-1', 'incorrect', '1'], ['urn:streamlab:three:task-1', 'choice', 'option-0', 'correct', '1']]);
          for (const i of answers) assert.ok(!Number.isNaN(Date.parse(i.timestamp)), i.timestamp);
        }
        // The package's estimate (1.2 prints it) is near the receipt this attempt made.
        console.log(`scorm: ${name}: the receipt in suspend_data is ${cmi.suspend_data.length} characters`);
        if (v12) {
          const estimate = Number(built[name].said.match(/its receipt is about (\d+) characters/)[1]);
          assert.ok(Math.abs(cmi.suspend_data.length - estimate) < estimate / 4, `${cmi.suspend_data.length} vs ${estimate}`);
        }
        // suspend_data is the attempt's receipt, whole.
        assert.equal(cmi.suspend_data, during.suspend_data);
        const text = await open(cmi.suspend_data);
        assert.match(text, /^lesson three 1 /m);
        assert.match(text, /^task 0 done 3 /m);
        assert.match(text, /^task 2 done 3 /m);
      });
    });

    test(`SCORM ${version}, ${form}: a relaunch mid-lesson resumes from suspend_data${form === 'self' ? '; review mode shows the attempt and records nothing' : ''}`, { timeout: 180_000 }, async () => {
      await withBrowser({}, async (page) => {
        await page.goto(lmsUrl(`/lms-${version}.html`));
        const url = lmsUrl(`/${name}/three.html`);
        await page.evaluate(([v, u]) => window.launch(v, u), [version, url]);
        const { sco, lab } = frames(page, form);
        const stream = await firstTwo(sco, lab, recording);
        for (const line of [`XLEN ${stream}`, `XADD ${stream} 5-0 half done`]) {
          await lab.locator('#console-input').fill(line);
          await lab.locator('#console-input').press('Enter');
        }
        await lab.locator('.log .log-item').filter({ hasText: '"5-0"' }).waitFor();
        // The typed lines are in the LMS's suspend_data before the learner leaves.
        await page.waitForFunction((s) => window.texts.some((t) => t.includes(`> XADD ${s} 5-0 half done\n`)), stream);
        const left = await page.evaluate(() => window.leave());
        assert.equal(v12 ? left.core.exit : left.exit, 'suspend', 'unfinished: exit suspend, so the LMS keeps the attempt');
        assert.equal(v12 ? left.core.lesson_status : left.completion_status, 'incomplete');

        await page.evaluate(([v, u, last]) => window.launch(v, u, last), [version, url, left]);
        await sco.getByText(`${recording} Resumed: 2 of 3 tasks done.`).waitFor();
        assert.equal(await page.evaluate((v) => (v === '1.2' ? window.API.cmi.core.entry : window.API_1484_11.cmi.entry), version), 'resume');
        // The console of the task being played shows the lines typed before.
        await lab.locator('.log .log-item').filter({ hasText: `XADD ${stream} 5-0 half done` }).waitFor();
        await lab.getByText('Add one entry to').waitFor();
        const now = await page.evaluate(() => window.cmi());
        if (v12) assert.deepEqual({ ...now.core.score }, { ...left.core.score });
        else assert.deepEqual([now.score.raw, now.score.max], [left.score.raw, left.score.max]);
        if (form === 'self' && version === '1.2') await screenshot(page, 'scorm-resumed.png', { fullPage: false });
        // The earlier tasks stay done with their scores: finishing gives the whole lesson's.
        await lab.getByRole('button', { name: 'Check', exact: true }).click();
        await sco.getByText('Done: 6 of 7, passed (80% needed). Recorded by your course.').waitFor();
        if (form === 'self') {
          // Opened again in review mode: the attempt is shown as it ended, and nothing is set.
          const ended = await page.evaluate(() => window.leave());
          await page.evaluate(([v, u, last]) => window.launch(v, u, last, true), [version, url, ended]);
          await sco.getByText('Done: 6 of 7, passed (80% needed).', { exact: true }).waitFor();
          await lab.getByText('3 of 3 solved').waitFor();
          const reviewed = await page.evaluate(() => window.leave());
          assert.equal(reviewed.suspend_data, ended.suspend_data);
          assert.equal(v12 ? reviewed.core.lesson_status : reviewed.completion_status, v12 ? 'passed' : 'completed');
          assert.deepEqual(await page.evaluate(() => window.calls), ['Initialize', v12 ? 'Finish' : 'Terminate'], 'no commit in review');
        }
      });
    });
  }
}

test('SCORM 1.2: an attempt that outgrows 4,096 characters is warned of, and the last receipt that fit stays', { timeout: 180_000 }, async () => {
  await withBrowser({ ignore: /more than the 4,096/ }, async (page) => {
    await page.goto(lmsUrl('/lms-1.2.html'));
    await page.evaluate((url) => window.launch('1.2', url), lmsUrl('/self-1.2/three.html'));
    const { sco } = frames(page, 'self');
    await sco.getByText('Your work is recorded by your course for Ann Lee.').waitFor();
    // Lines that deflate badly (a fixed pseudo-random sequence), as a learner's would not.
    let seed = 7;
    const noise = () => Array.from({ length: 90 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[(seed = (seed * 1103515245 + 12345) % 2147483648) % 62]).join('');
    const warning = sco.getByRole('alert').getByText(/This attempt's record is now [\d,]+ characters, more than the 4,096 SCORM 1\.2 lets a course platform keep/);
    for (let n = 0; n < 80 && !(await warning.isVisible()); n++) {
      await sco.locator('#console-input').fill(`ECHO ${noise()}`);
      await sco.locator('#console-input').press('Enter');
      await sco.locator('.log .log-item').nth(n).waitFor();
    }
    await warning.waitFor();
    const kept = (await page.evaluate(() => window.cmi())).suspend_data;
    assert.ok(kept.length <= 4096 && kept.length > 3000, `${kept.length}`);
    assert.match(await open(kept), /^live 0$/m, 'a whole receipt');
  });
});

test('the packages: their files and sizes, their manifests, the receipt estimate of a 1.2 package', () => {
  for (const [name, b] of Object.entries(built)) {
    console.log(`scorm: ${name}.zip ${(b.zip / 1000).toFixed(1)} KB (${b.names.length} files)`);
  }
  assert.deepEqual(built['thin-1.2'].names, ['imsmanifest.xml', 'three.html']);
  assert.deepEqual(built['self-2004'].names, ['embed.css', 'embed.js', 'grader/receipt.js', 'imsmanifest.xml', 'lessons/three.toml', 'scorm.js', 'streamlab.js', 'streamlab_bg.wasm', 'style.css', 'three.html', 'xapi.js']);
  assert.match(built['self-1.2'].manifest, /adlcp:scormtype="sco" href="three.html"/);
  assert.match(built['self-1.2'].manifest, /<adlcp:masteryscore>80<\/adlcp:masteryscore>/);
  assert.match(built['self-2004'].manifest, /<schemaversion>2004 4th Edition<\/schemaversion>/);
  assert.match(built['self-2004'].manifest, /<imsss:minNormalizedMeasure>0.8<\/imsss:minNormalizedMeasure>/);
  // The zip of the player: within the app's 350 KB wasm budget plus the kit's scripts.
  assert.ok(built['self-2004'].zip < 400_000, `${built['self-2004'].zip} bytes`);
  assert.ok(built['thin-2004'].zip < 5_000, `${built['thin-2004'].zip} bytes`);
  // The lesson is far from 1.2's limit, and its estimate is near the receipt it makes.
  assert.doesNotMatch(built['self-1.2'].said, /warning/);
  console.log(`scorm: ${built['self-1.2'].said.trim().split('\n').join('; ')}`);
});

test('a launch page without an LMS says so and still plays', { timeout: 120_000 }, async () => {
  await withBrowser({ ignore: /No SCORM 1\.2 course platform/ }, async (page) => {
    await page.goto(lmsUrl('/self-1.2/three.html'));
    await page.getByRole('alert').getByText(/No SCORM 1\.2 course platform \(LMS\) was found around this page, so nothing you do here is saved/).waitFor();
    await page.getByText('Not recording.').waitFor();
    await page.locator('#console-input').fill('XLEN t');
    await page.locator('#console-input').press('Enter');
    await page.locator('.log .log-item').filter({ hasText: '(integer) 0' }).waitFor();
  });
});

test('the launch page\'s own size', async () => {
  const page = await readFile(join(root, 'dist', 'scorm.js'));
  console.log(`scorm: scorm.js ${gzipKB(page).toFixed(1)} KB gzipped; three.html ${gzipKB(files.get('/self-2004/three.html').body).toFixed(1)} KB gzipped`);
});
