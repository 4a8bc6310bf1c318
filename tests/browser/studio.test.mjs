// The lesson studio (studio.html) used as an author uses it: by clicking and typing, never
// writing TOML. A two-task lesson is recorded in the console (setup, solutions), given checks
// the studio proposes (one kept as proposed, one edited), a misconception, a must-not-pass
// sequence, a predict quiz made from a console line, hints and a variant; it is play-tested
// in the real player, exported, checked by `streamlab check`, and played from its share link
// in the page and from its embed snippet on a course site of another origin. Then: a built-in
// lesson edited and exported differs from its file only where it was edited; broken input (a
// broken paste, a 5 MB file, a solution that fails) gets a clear message; Redis Insight
// tutorials come in and go out; axe; three widths.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, serveDist, withBrowser, filesServer, screenshot, axe, tinyLesson } from './harness.mjs';

const { readZip, writeZip } = await import(join(root, 'web', 'assets', 'studio', 'insight.js'));
const STREAMLAB = process.env.STREAMLAB ?? join(root, 'target', 'release', 'streamlab');

let dist;
let scratch;
before(async () => {
  dist = await serveDist();
  scratch = await mkdtemp(join(tmpdir(), 'streamlab-studio-'));
});
after(() => dist.close());

async function openStudio(page, width) {
  if (width) await page.setViewportSize({ width, height: width < 700 ? 900 : 1000 });
  page.on('pageerror', (e) => console.log('PAGEERROR', e.message, e.stack));
  await page.goto(`${dist.url}studio.html`);
  await page.locator('#studio').waitFor();
  await page.getByRole('button', { name: 'New', exact: true }).click();
}

const toml = (page) => page.locator('#toml').inputValue();
const tab = (page, name) => page.getByRole('tab', { name, exact: true }).click();

/** Types a line into the recording console and waits for it to be shown. */
async function play(page, line) {
  const before = await page.locator('.rec-log > li').count();
  await page.locator('#rec-input').fill(line);
  await page.locator('#rec-input').press('Enter');
  await page.locator('.rec-log > li').nth(before).waitFor({ timeout: 5000 }).catch(async (e) => {
    await screenshot(page, 'studio-failed.png');
    throw new Error(`${line}: ${e.message}\n${await page.locator('#panel-record').innerText()}\nnotice: ${await page.locator('#notice').innerText()}`);
  });
}

/** Sets a labelled field of the visible panel and leaves it (fields apply on change). */
async function setField(scope, label, value) {
  const input = scope.getByLabel(label, { exact: true });
  await input.fill(value);
  await input.press('Tab');
}

async function clean(page) {
  await page.locator('#problems[data-state="clean"]').waitFor({ state: 'attached', timeout: 20000 }).catch(async () => {
    throw new Error(`problems remain:\n${await page.locator('#problems').innerText()}`);
  });
}

/** Ticks the proposal whose text matches, optionally changing its message; the studio then
 * writes the kept ones into the task. */
async function keep(page, matches, message) {
  const row = page.locator('.proposal').filter({ hasText: matches });
  await row.getByRole('checkbox').check();
  if (message) {
    const input = row.locator('input.message');
    await input.fill(message);
    await input.press('Tab');
  }
}

async function download(page, button) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  const path = join(scratch, file.suggestedFilename());
  await file.saveAs(path);
  return path;
}

/** The recorded lesson's first task, played as a learner in `scope` (a page, a widget or a
 * frame) on the variant that names the stream `stream` and the entry `id`: the goal is
 * reached, with par. */
async function solveFirst(scope, stream, id) {
  await scope.getByText('Make bob its owner').first().waitFor();
  for (const line of [':clock +60s', `bob> XCLAIM ${stream} workers bob 30000 ${id}`]) {
    await scope.locator('#console-input').fill(line);
    await scope.locator('#console-input').press('Enter');
  }
  await scope.getByRole('button', { name: 'Check', exact: true }).click();
  await scope.getByText(/Goal reached with 1 change \(par 1\)/).waitFor();
}

/** The author's session: everything by clicking and typing. Resolves to the exported file's
 * path and the share link and snippet the Export panel gave. */
async function author(page) {
  await tab(page, 'Lesson');
  await setField(page, 'Id (the file is id.toml)', 'claim-it');
  await setField(page, 'Title', 'Give a stuck entry to a live worker');
  await setField(page, 'Summary (markdown)', 'Alice stopped while holding `1-0`; bob takes it over.');

  await tab(page, 'Record');
  for (const line of ['XADD jobs 1-0 task resize', 'XADD jobs 2-0 task thumbnail', 'XGROUP CREATE jobs workers 0', 'alice> XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >']) {
    await play(page, line);
  }
  assert.match(await page.locator('.rec-state').innerText(), /alice: 1-0/);

  // Task 1: bob claims 1-0 once alice has been idle a minute.
  await page.getByRole('button', { name: 'New reach-state task' }).click();
  await play(page, ':clock +60s');
  await play(page, 'bob> XCLAIM jobs workers bob 30000 1-0');
  await page.getByRole('button', { name: 'Propose checks from what changed' }).click();
  await keep(page, /owner stream jobs, group workers, id 1-0: alice → bob/);
  await keep(page, /pending stream jobs, group workers, consumer bob: 0 → 1/, 'bob should now hold {expected} entry; he holds {actual}.');
  await screenshot(page, 'studio-proposals-1400.png');
  await page.getByRole('button', { name: 'Add the ticked checks to the task' }).click();
  assert.match(await toml(page), /kind = "owner"[\s\S]*equals = "bob"/);
  assert.match(await toml(page), /message = "bob should now hold \{expected\} entry; he holds \{actual\}\."/);

  // Its wrong path: acknowledging instead of claiming.
  await page.getByLabel('a wrong path').check();
  await play(page, 'bob> XACK jobs workers 1-0');
  await page.getByText('This path fails the checks, as a wrong path should').waitFor();
  await page.getByLabel('What Check tells a learner who did this').fill('Acknowledging drops the job: nobody did it. Claim it so bob does it.');
  await page.getByRole('button', { name: 'Save as a misconception' }).click();
  await page.getByText('Check answers: “Acknowledging drops the job').waitFor();

  // A predict quiz from a reply seen while looking around after the claim.
  await page.getByLabel('nothing (just looking)').check();
  await play(page, 'XPENDING jobs workers - + 10 alice');
  await page.getByRole('button', { name: 'Make a predict quiz of this reply' }).last().click();
  await page.locator('#notice').filter({ hasText: 'the engine prints (empty array)' }).waitFor();

  // Task 2: acknowledge the job alice finished; deleting it is the wrong path, kept silent.
  await page.getByRole('button', { name: 'New reach-state task' }).click();
  await play(page, 'XACK jobs workers 1-0');
  await page.getByRole('button', { name: 'Propose checks from what changed' }).click();
  await keep(page, /pending stream jobs, group workers: 1 → 0/);
  await page.getByRole('button', { name: 'Add the ticked checks to the task' }).click();
  await page.getByLabel('a wrong path').check();
  await play(page, 'XDEL jobs 1-0');
  await page.getByText('This path fails the checks, as a wrong path should').waitFor();
  await page.getByRole('button', { name: 'Save as a must-not-pass sequence' }).click();

  // Words, in the Tasks panel.
  await tab(page, 'Tasks');
  const card = (n) => page.getByRole('article', { name: `Task ${n}` });
  await setField(card(1), 'Title', 'Hand 1-0 to bob');
  await setField(card(1), 'Prompt (markdown)', 'Alice stopped a minute ago holding `1-0`. Make bob its owner so the job gets done.');
  await setField(card(1), 'Hint 1', 'Which command moves a pending entry to another consumer?');
  await card(1).getByRole('button', { name: 'Add a hint' }).click();
  await setField(card(1), 'Hint 2', 'It takes a minimum idle time.');
  // The prompt's preview is the player's own reading of the markdown.
  assert.equal(await card(1).getByRole('region', { name: 'Prompt (markdown): as the player shows it' }).locator('code').innerText(), '1-0');
  await setField(card(2), 'Explanation, shown once answered', 'Once claimed, the entry is bob\'s: alice holds nothing.');
  await setField(card(3), 'Title', 'The job alice finished');
  await setField(card(3), 'Prompt (markdown)', 'Alice did finish `1-0` before she stopped. Tell the group.');
  await setField(card(3), 'Hint 1', 'Only the group forgets the entry; the stream keeps it.');
  // A choice question, options and their whys typed in.
  await page.getByRole('button', { name: 'Add a choice question' }).click();
  await setField(card(4), 'Title', 'When to claim');
  await setField(card(4), 'Prompt (markdown)', 'When should a worker take over another one\'s pending entries?');
  await setField(card(4), 'Option 1', 'When they have been idle longer than the work takes.');
  await setField(card(4), 'Why option 1 is right', 'Idle time tells a stopped worker from a slow one.');
  await setField(card(4), 'Option 2', 'As soon as they are delivered.');
  await setField(card(4), 'Why option 2 is wrong', 'The first worker is still doing the job: it would be done twice.');
  await setField(card(4), 'Option 3', 'Never: wait for the first worker to come back.');
  await setField(card(4), 'Why option 3 is wrong', 'A worker that stopped may never come back, and the job waits for ever.');

  // A variant that renames the stream and moves the ids.
  await tab(page, 'Variants');
  await page.getByLabel('Rename keys and names (old = new, one a line)').fill('jobs = tasks');
  await page.getByLabel('Shift explicit ids by (ms)').fill('5000');
  await page.getByRole('button', { name: 'Add the variant' }).click();
  await page.getByLabel('Show', { exact: true }).selectOption('1');
  const preview = await page.getByRole('region', { name: 'Variant preview' }).innerText();
  assert.match(preview, /XADD tasks 5001-0 task resize/);
  assert.match(preview, /stream tasks: 2 entries, last id 5002-0/);
  await screenshot(page, 'studio-variant-1400.png');
  await clean(page);

  // Play-test the variant in the real player.
  await tab(page, 'Play-test');
  await page.getByLabel('Variant', { exact: true }).selectOption('1');
  await page.getByRole('button', { name: 'Play as a learner' }).click();
  await solveFirst(page.locator('stream-lab'), 'tasks', '5001-0');
  await screenshot(page, 'studio-playtest-1400.png');

  await tab(page, 'Export');
  const file = await download(page, 'Download claim-it.toml');
  await page.getByRole('button', { name: 'Share link' }).click();
  const link = await page.locator('#export-out').inputValue();
  await page.getByRole('button', { name: 'Embed snippet' }).click();
  const snippet = await page.locator('#export-out').inputValue();
  return { file, link, snippet };
}

test('an author records, words, varies, play-tests and exports a lesson without writing TOML', async () => {
  let snippet;
  // Math.random at 0: a player's first attempt plays the lesson as written (variant 0).
  await withBrowser({ random: 0 }, async (page) => {
    await openStudio(page);
    const out = await author(page);
    snippet = out.snippet;
    const text = await readFile(out.file, 'utf8');
    const checked = execFileSync(STREAMLAB, ['check', out.file], { encoding: 'utf8' });
    assert.match(checked, /^ok {4}claim-it \(4 tasks, 2 variants\)/);
    assert.match(text, /kind = "choice"/);
    assert.match(text, /\[\[task\.misconception\]\]/);
    assert.match(text, /must_not_pass = \[\["XDEL jobs 1-0"\]\]/);
    assert.match(text, /kind = "predict"/);

    // The share link plays in the page's own player.
    await page.goto(out.link);
    await solveFirst(page, 'jobs', '1-0');
  });

  // The snippet, pasted into a course page of another origin.
  const course = filesServer(new Map([['/course.html', { type: 'text/html; charset=utf-8', body: `<!doctype html><html lang="en"><title>Course</title><link rel="icon" href="data:,"><body><h1>Week 3</h1>${snippet}</body></html>` }]]));
  await new Promise((ok) => course.listen(0, 'localhost', ok));
  try {
    await withBrowser({ random: 0 }, async (page) => {
      await page.goto(`http://localhost:${course.address().port}/course.html`);
      await solveFirst(page.frameLocator('stream-lab iframe'), 'jobs', '1-0');
      await screenshot(page, 'studio-embedded-1400.png');
    });
  } finally {
    course.close();
  }
});

test('a built-in lesson edited in the panels comes back changed only where it was edited', async () => {
  const original = await readFile(join(root, 'lessons', 'ack-before-work.toml'), 'utf8');
  await withBrowser({}, async (page) => {
    await openStudio(page);
    await page.getByLabel('Open a built-in lesson').selectOption('ack-before-work');
    await page.locator('#notice').filter({ hasText: 'Opened the built-in lesson ack-before-work' }).waitFor();
    // The author's own note, typed into the source.
    const source = page.locator('#toml');
    await source.click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await page.keyboard.type('  # the id stays: saved progress is filed under it');
    await page.locator('#problems[data-state="clean"]').waitFor({ state: 'attached' });
    await tab(page, 'Lesson');
    await setField(page, 'Minutes', '12');
    await tab(page, 'Tasks');
    const card = (n) => page.getByRole('article', { name: `Task ${n}` });
    await setField(card(1), 'Title', 'Take the shortcut');
    await setField(card(5), 'Option 2', 'Right after the read, so that no job is done twice.');
    await clean(page);
    await tab(page, 'Export');
    const file = await download(page, 'Download ack-before-work.toml');
    const edited = (await readFile(file, 'utf8')).split('\n');
    const before = original.split('\n');
    assert.equal(edited.length, before.length, 'no line added or lost');
    const changed = before.map((line, n) => [n + 1, line, edited[n]]).filter(([, a, b]) => a !== b);
    // The id line gained the comment; minutes, a title and one option's text changed; the
    // options array the form owns was written anew, and its other lines came out as they were.
    assert.deepEqual(changed.map(([n]) => n), [1, 6, 37, 220]);
    assert.equal(edited[0], 'id = "ack-before-work"  # the id stays: saved progress is filed under it');
    assert.equal(edited[5], 'minutes = 12');
    assert.equal(edited[36], 'title = "Take the shortcut"');
    assert.match(edited[219], /^ {2}\{ text = "Right after the read, so that no job is done twice\.", why = "A crash after that ack/);
    assert.match(execFileSync(STREAMLAB, ['check', file], { encoding: 'utf8' }), /^ok {4}ack-before-work/);
  });
});

test('bad input gets a clear message and changes nothing', async () => {
  await withBrowser({}, async (page) => {
    await openStudio(page);
    const source = page.locator('#toml');
    // A broken paste: the problem at its line and column, the panels say where to look.
    await source.fill('id = "broken"\nversion = [1,\n');
    await page.locator('#problems').getByText(/^lesson\.toml:2:\d+: /).waitFor();
    await tab(page, 'Tasks');
    await page.getByRole('tabpanel', { name: 'Tasks' }).getByText(/The file is not TOML at line 2, column \d+/).waitFor();
    await page.getByRole('button', { name: 'Undo' }).click();
    assert.match(await toml(page), /^id = "my-lesson"/);
    // A 5 MB file is refused before it is read.
    await page.locator('#open-file').setInputFiles({ name: 'huge.toml', mimeType: 'text/plain', buffer: Buffer.alloc(5_000_000, 'a') });
    await page.locator('#notice').filter({ hasText: 'huge.toml is 4.8 MB: a lesson file is at most 1 MiB. Nothing was opened.' }).waitFor();
    // Bytes that are not a zip, named as one.
    await page.locator('#open-file').setInputFiles({ name: 'tutorial.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\x03\x04 not really a zip') });
    await page.locator('#notice').filter({ hasText: /^tutorial\.zip could not be opened: .+ Nothing was changed\.$/ }).waitFor();
    assert.match(await toml(page), /^id = "my-lesson"/);
    // A lesson whose solution does not reach its goal: the validator says so, at its line.
    await page.locator('#open-file').setInputFiles({ name: 'claim-it.toml', mimeType: 'text/plain', buffer: Buffer.from(FAILING) });
    // A task's problems name the line of its kind.
    const line = FAILING.split('\n').indexOf('kind = "reach-state"') + 1;
    await page.locator('#problems').getByText(`claim-it.toml:${line}: task 1 (variant 0): the solution does not pass: The group g should exist; present: absent.`).waitFor();
    await screenshot(page, 'studio-problems-1400.png');
  });
});

/** The embedding tests' tiny lesson with a solution that makes the wrong group. */
const FAILING = tinyLesson('claim-it').replace('solution = ["XGROUP CREATE s g 0 MKSTREAM"]', 'solution = ["XGROUP CREATE s h 0 MKSTREAM"]');

test('a Redis Insight tutorial comes in as a draft, and a lesson goes out as one', async () => {
  const page1 = '# Streams\n\nA stream keeps every entry.\n\n```redis Add two\nXADD jobs * n 1\nXADD jobs * n 2\n```\n\n## Reading\n\n```redis\nXRANGE jobs - +\n```\n';
  const zip = await writeZip([
    { name: 'manifest.json', data: JSON.stringify({ id: 'streams-tour', type: 'group', label: 'A tour of streams', children: [{ id: 'p1', type: 'internal-link', label: 'Streams', args: { path: '/streams.md' } }] }) },
    { name: 'streams.md', data: page1 },
  ]);
  await withBrowser({}, async (page) => {
    await openStudio(page);
    await page.locator('#open-file').setInputFiles({ name: 'tour.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
    await page.locator('#notice').filter({ hasText: 'Imported the Redis Insight tutorial tour.zip as a draft' }).waitFor();
    const draft = await toml(page);
    assert.match(draft, /^id = "streams-tour"/m);
    assert.match(draft, /demo = \["XADD jobs \* n 1", "XADD jobs \* n 2"\]/);
    assert.match(draft, /demo = \["XRANGE jobs - \+"\]/);
    // The draft's steps are in the panels, its demos in the recording console's place.
    await tab(page, 'Lesson');
    await page.getByLabel('Intro step 2 (markdown)', { exact: true }).waitFor();

    await page.getByLabel('Open a built-in lesson').selectOption('ack-is-not-delete');
    await page.locator('#notice').filter({ hasText: 'Opened the built-in lesson ack-is-not-delete' }).waitFor();
    await tab(page, 'Export');
    const out = await download(page, 'Redis Insight tutorial (.zip)');
    const tutorial = readZip(new Uint8Array(await readFile(out)));
    const manifest = JSON.parse(new TextDecoder().decode(await tutorial.read('manifest.json')));
    assert.equal(manifest.type, 'group');
    const pages = manifest.children.map((c) => c.args.path.slice(1));
    assert.ok(pages.every((p) => tutorial.names.includes(p)), 'every page the manifest names is in the zip');
    const lesson = await readFile(join(root, 'lessons', 'ack-is-not-delete.toml'), 'utf8');
    const tasks = lesson.match(/^\[\[task\]\]$/gm).length;
    assert.ok(manifest.children.length >= tasks + 1, `an overview and a page per task: ${manifest.children.length}`);
    const text = (await Promise.all(pages.map(async (p) => new TextDecoder().decode(await tutorial.read(p))))).join('\n');
    assert.match(text, /```redis/);
  });
});

test('the studio at desktop, tablet and phone widths: axe-clean, nothing wider than the screen', async () => {
  for (const width of [1400, 1024, 390]) {
    await withBrowser({}, async (page) => {
      await openStudio(page, width);
      await page.getByLabel('Open a built-in lesson').selectOption('dead-consumer');
      await page.locator('#notice').filter({ hasText: 'Opened the built-in lesson dead-consumer' }).waitFor();
      for (const name of ['Lesson', 'Record', 'Tasks', 'Variants', 'Play-test', 'Export']) {
        await tab(page, name);
        if (name === 'Record') {
          await page.locator('#rec-place').selectOption('0');
          await page.getByRole('button', { name: 'Propose checks from what changed' }).click();
        }
        if (name === 'Play-test') {
          await page.getByRole('button', { name: 'Play as a learner' }).click();
          await page.locator('stream-lab #console-input').waitFor();
        }
        assert.deepEqual(await axe(page), [], `axe at ${width} px, ${name}`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(wide <= 0, `${name} at ${width} px is ${wide} px wider than the screen`);
        if (['Record', 'Tasks', 'Variants'].includes(name)) await screenshot(page, `studio-${name.toLowerCase()}-${width}.png`, { fullPage: width < 700 });
      }
    });
  }
});

test('the draft outlives a reload, and Create in the playground opens the studio', async () => {
  await withBrowser({}, async (page) => {
    await page.goto(dist.url);
    await page.getByRole('link', { name: 'Create' }).click();
    await page.locator('#studio').waitFor();
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await tab(page, 'Lesson');
    await setField(page, 'Title', 'Kept across a reload');
    // A button that redraws its panel keeps the focus where the author was.
    await page.getByRole('button', { name: 'Add an intro step' }).click();
    await page.getByLabel('Intro step 1 (markdown)', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Add an intro step');
    const before = await toml(page);
    await page.reload();
    await page.locator('#notice').filter({ hasText: 'Your draft from last time is back.' }).waitFor();
    assert.equal(await toml(page), before);
    // Replacing it is one more step to undo.
    await page.getByLabel('Open a built-in lesson').selectOption('noack');
    await page.locator('#notice').filter({ hasText: 'Opened the built-in lesson noack' }).waitFor();
    await page.getByRole('button', { name: 'Undo' }).click();
    assert.equal(await toml(page), before);
  });
});
