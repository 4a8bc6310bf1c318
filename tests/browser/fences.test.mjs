// Code fences as consoles on real docs sites (README, "Docs sites: live consoles from code
// fences"): the mdBook and MkDocs (Material) sites of tests/docs-sites, built here by the real
// generators ($MDBOOK and $MKDOCS, which `cargo xtask test` passes; else the ones on PATH),
// each served on its own origin (localhost) while dist/ is on another (127.0.0.1), as a docs
// site and StreamLab's host are. The opt-in tag (embed.js with data-fences) comes from each
// site's own template. Checked: every fence became a console that answers what is typed and
// ran its setup lines, a lesson fence plays, a bad option shows embed.js's error, a page with
// the opt-in and no fences and a page without the opt-in are left as they were (the latter
// never asks StreamLab's host for anything), fences brought in by Material's instant navigation
// are upgraded too; axe in the widgets and their frames; at 1280 and 390 px, with
// screenshots. Also: the markup Docusaurus, Quarto, pandoc, markdown-it and Pygments' line
// numbers write (copied, not built here), a fence added to a page later, and README's recipes
// against the sites' own files. Needs dist/ (cargo xtask dist).
// Run: node --test tests/browser/fences.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, serveDist, serveDir, withBrowser, screenshot, axe, type, lastEntry, lessonTasks, drawnIn, filesServer } from './harness.mjs';

const sites = join(root, 'tests', 'docs-sites');
/** Where the fixtures' opt-in tags say StreamLab is, as README's recipes write it. */
const EXAMPLE_HOST = 'https://streamlab.example/';

let dist;
let out;
let mdbook;
let mkdocs;
before(async () => {
  dist = await serveDist();
  out = await mkdtemp(join(tmpdir(), 'streamlab-docs-sites-'));
  // Each site is served before it is built: MkDocs must know its own address (Material's
  // instant navigation only follows links into site_url).
  mdbook = await serveDir(join(out, 'mdbook'));
  mkdocs = await serveDir(join(out, 'mkdocs'));
  // mdBook's templates read no environment: a copy of the book gets StreamLab's address.
  const book = join(out, 'book-source');
  await cp(join(sites, 'mdbook'), book, { recursive: true });
  const head = join(book, 'theme', 'head.hbs');
  await writeFile(head, (await readFile(head, 'utf8')).replaceAll(EXAMPLE_HOST, dist.url));
  generate(process.env.MDBOOK ?? 'mdbook', ['build', book, '--dest-dir', join(out, 'mdbook')]);
  generate(process.env.MKDOCS ?? 'mkdocs', ['build', '--strict', '--quiet', '-f', join(sites, 'mkdocs', 'mkdocs.yml'), '-d', join(out, 'mkdocs')],
    { DOCS_URL: docsUrl(mkdocs), STREAMLAB_HOST: dist.url, NO_MKDOCS_2_WARNING: '1' });
});

/** Runs a site generator (its output is in the error when it fails). */
function generate(program, args, env = {}) {
  try {
    execFileSync(program, args, { stdio: 'pipe', env: { ...process.env, ...env } });
  } catch (error) {
    if (error.code === 'ENOENT') throw new Error(`${program} is not installed: \`cargo xtask setup\` installs mdBook and MkDocs, and \`cargo xtask test\` passes their paths as MDBOOK and MKDOCS`);
    throw error;
  }
}
after(async () => {
  await Promise.all([dist, mdbook, mkdocs].map((server) => server.close()));
  await rm(out, { recursive: true, force: true });
});

/** A docs site's address: localhost, another site than StreamLab's 127.0.0.1. */
const docsUrl = (server) => `http://localhost:${server.port}/`;

// axe reads the widgets' cross-origin style sheets by XHR, which no CORS header allows (as in
// embed-cross-origin.test.mjs).
const IGNORE = /^Access to XMLHttpRequest at '[^']*\.css' from origin .* blocked by CORS policy|^Failed to load resource: net::ERR_FAILED$/;
const WIDTHS = [[1280, 900], [390, 844]];

/** What each <stream-lab> of the page stands for: the block it replaced (the next element,
 * hidden) with its first line, and its error if any. */
const widgets = (page) => page.evaluate(() => [...document.querySelectorAll('stream-lab')].map((lab) => {
  const block = lab.nextElementSibling;
  return {
    block: [block.tagName, block.className, getComputedStyle(block).display, block.textContent.trim().split('\n')[0]],
    error: lab.shadowRoot.querySelector('.sl-error')?.textContent ?? null,
  };
}));

/** The frame of the page's `n`th widget (StreamLab's embed.html: the page is of another
 * origin), scrolled to (a lazy widget starts then) and drawn. */
async function frameOf(page, n) {
  const frame = await drawnIn(page.locator('stream-lab').nth(n));
  assert.ok(frame.url().startsWith(`${dist.url}embed.html?`), frame.url());
  return frame;
}

/** The console of the page's `n`th widget, ready for typing. */
async function consoleOf(page, n) {
  const frame = await frameOf(page, n);
  await frame.waitForSelector('#console-input');
  return frame;
}

/** Types `line` into a console and resolves to what its entry shows. */
async function answer(frame, line) {
  await type(frame, line);
  await frame.locator('.log .log-item').filter({ hasText: line }).last().waitFor();
  return lastEntry(frame);
}

/** A screenshot of the window with the page's `n`th widget in its middle, once its frame has
 * drawn (a browser paints a cross-origin frame only while it is in view, so a whole-page shot
 * would leave the frames blank). */
async function shoot(page, n, name) {
  const lab = page.locator('stream-lab').nth(n);
  await lab.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  if (await lab.locator('iframe').count()) await drawnIn(lab);
  await screenshot(page, name, { fullPage: false });
}

/** Clicks a link as a reader does, once it is in view and painted there: a click right after
 * the scroll that brings it into view can go to a widget's frame, by where the browser last
 * painted the frame (the frame gets the click, the link does not). */
async function follow(page, link) {
  await link.scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await link.click();
}

/** Axe's serious findings in the page's widgets and in their frames. The themes' own pages
 * are not StreamLab's to judge (mdBook's sidebar toggle and Material's search dialog have
 * findings of their own). */
async function axeAll(page) {
  const found = [...await axe(page, 'stream-lab')];
  for (let n = 0; n < await page.locator('stream-lab').count(); n++) {
    const lab = page.locator('stream-lab').nth(n);
    if (await lab.locator('iframe').count()) found.push(...(await axe(await drawnIn(lab))).map((v) => `widget ${n}: ${v}`));
  }
  return found;
}

/** Requests made to StreamLab's host (dist/), by path. */
function hostRequests(page) {
  const seen = [];
  page.on('request', (r) => { if (r.url().startsWith(dist.url)) seen.push(new URL(r.url()).pathname); });
  return seen;
}

for (const [width, height] of WIDTHS) {
  test(`mdBook at ${width} px: each fence is a console in a frame of StreamLab's host, a lesson plays, a bad option says so`, { timeout: 180_000 }, async () => {
    await withBrowser({ width, height, random: 0, ignore: IGNORE }, async (page) => {
      const requests = hostRequests(page);
      // A page with the opt-in and no fence: nothing changes, and no engine is loaded.
      await page.goto(`${docsUrl(mdbook)}index.html`);
      await page.waitForFunction(() => window.StreamLab);
      await page.waitForLoadState('networkidle');
      assert.equal(await page.locator('stream-lab').count(), 0);
      assert.ok(requests.includes('/fences.js'), requests.join(' '));
      assert.ok(!requests.includes('/streamlab_bg.wasm'), 'no fence, no engine');

      await page.goto(`${docsUrl(mdbook)}appending.html`);
      await page.waitForFunction(() => document.querySelectorAll('stream-lab').length === 3);
      assert.deepEqual(await widgets(page), [
        { block: ['PRE', '', 'none', 'XADD temps * room kitchen celsius 21'], error: null },
        { block: ['PRE', '', 'none', '# layout: console'], error: null },
        { block: ['PRE', '', 'none', '# layout: sideways'], error: 'StreamLab could not startBad options:\nlayout must be one of both, console, pictures, not "sideways"' },
      ]);
      // The setup ran before the learner types; what the learner types is answered.
      const first = await consoleOf(page, 0);
      assert.match(await answer(first, 'XLEN temps'), /\(integer\) 2/);
      assert.match(await answer(first, 'XADD temps * room attic celsius 15'), /"\d+-\d+"/);
      assert.match(await answer(first, 'XLEN temps'), /\(integer\) 3/);
      // The pictures (their legend) are shown by default, and not with `# layout: console`.
      await first.locator('details.legend').waitFor();
      const second = await consoleOf(page, 1);
      assert.equal(await second.locator('details.legend').count(), 0, 'layout: console shows no pictures');
      assert.match(await answer(second, 'XRANGE orders - +'), /item[\s\S]*cake/);
      for (let n = 0; n < 3; n++) await shoot(page, n, `fences-mdbook-${width}-${n}.png`);
      if (width === WIDTHS[0][0]) assert.deepEqual(await axeAll(page), [], 'axe on the upgraded page');

      // The lesson fence plays the lesson: its first task, done as its solution says, passes.
      await page.goto(`${docsUrl(mdbook)}groups.html`);
      await page.waitForFunction(() => document.querySelectorAll('stream-lab').length === 1);
      const task = lessonTasks(await readFile(join(root, 'lessons', 'where-a-group-starts.toml'), 'utf8'))[0];
      const lesson = await consoleOf(page, 0);
      await lesson.getByText(task.title).first().waitFor();
      for (const line of task.solution) await answer(lesson, line);
      await lesson.getByRole('button', { name: 'Check', exact: true }).click();
      await lesson.locator('p.pass').filter({ hasText: 'Goal reached' }).waitFor();
      // The other code block stays as it was.
      assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('main pre')].map((pre) => [pre.textContent.includes('XINFO GROUPS'), getComputedStyle(pre).display])),
        [[false, 'none'], [true, 'block']]);
      await shoot(page, 0, `fences-mdbook-lesson-${width}.png`);
    });
  });

  test(`MkDocs Material at ${width} px: fences become consoles, on load and after instant navigation; a page without the opt-in is untouched`, { timeout: 180_000 }, async () => {
    await withBrowser({ width, height, ignore: IGNORE }, async (page) => {
      const requests = hostRequests(page);
      await page.goto(docsUrl(mkdocs));
      await page.waitForFunction(() => document.querySelectorAll('stream-lab').length === 2);
      assert.deepEqual(await widgets(page), [
        { block: ['DIV', 'language-streamlab highlight', 'none', '# layout: console'], error: null },
        { block: ['DIV', 'language-streamlab highlight', 'none', '# height: 420'], error: null },
      ]);
      const sensors = await consoleOf(page, 0);
      assert.match(await answer(sensors, 'XLEN sensors'), /\(integer\) 2/);
      assert.match(await answer(sensors, 'XADD sensors * reading 7'), /"\d+-\d+"/);
      const capped = await consoleOf(page, 1);
      assert.match(await answer(capped, 'XLEN capped'), /\(integer\) 2/);
      assert.equal(await page.locator('stream-lab').nth(1).evaluate((lab) => lab.getBoundingClientRect().height), 420);
      for (let n = 0; n < 2; n++) await shoot(page, n, `fences-mkdocs-${width}-${n}.png`);
      if (width === WIDTHS[0][0]) assert.deepEqual(await axeAll(page), [], 'axe on the upgraded page');

      // Instant navigation: the next page's content replaces this one's, without a reload.
      await page.evaluate(() => { window.stayed = true; });
      await follow(page, page.locator('article').getByRole('link', { name: 'pending entries' }));
      // Material changes the address before the content.
      await page.waitForFunction(() => location.pathname === '/pending/' && document.querySelector('article h1').textContent === 'Pending entries'
        && document.querySelectorAll('stream-lab').length === 2);
      assert.equal(await page.evaluate(() => window.stayed), true, 'no reload');
      const jobs = await consoleOf(page, 0);
      assert.match(await answer(jobs, 'XPENDING jobs workers'), /1-0[\s\S]*ann/);
      const quiz = await frameOf(page, 1);
      // Quiz mode plays only the lesson's questions: the first is a number to give.
      await quiz.getByText('Lag after acknowledging').first().waitFor();
      for (let n = 0; n < 2; n++) await shoot(page, n, `fences-mkdocs-pending-${width}-${n}.png`);
      assert.ok(requests.includes('/fences.js'));

      // Without the opt-in: StreamLab's host is never asked, and the article is the built
      // file's, byte for byte but for the ids Material's own script gives code blocks.
      requests.length = 0;
      const plain = `${docsUrl(mkdocs)}plain/`;
      await page.goto(plain);
      await page.waitForLoadState('networkidle');
      const file = await readFile(join(out, 'mkdocs', 'plain', 'index.html'), 'utf8');
      const [live, built, blocks] = await page.evaluate((html) => [
        document.querySelector('article').outerHTML,
        new DOMParser().parseFromString(html, 'text/html').querySelector('article').outerHTML,
        [...document.querySelectorAll('.language-streamlab')].map((b) => [getComputedStyle(b).display, b.textContent]),
      ], file);
      assert.deepEqual(requests, []);
      assert.equal(await page.evaluate(() => [document.querySelectorAll('stream-lab').length, typeof window.StreamLab].join()), '0,undefined');
      assert.equal(live.replace(/ id="__code_\d+"/g, ''), built);
      assert.deepEqual(blocks, [['block', 'XADD sensors * reading 9\nXLEN sensors\n']]);
      await screenshot(page, `fences-mkdocs-plain-${width}.png`, { fullPage: false });
    });
  });
}

test("README's mdBook and MkDocs recipes are the test sites' own", async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const snippet = (name) => readme.match(new RegExp('```\\w+ ' + name + '\\n([\\s\\S]*?)```'))?.[1];
  assert.equal(snippet('mdbook-head'), await readFile(join(sites, 'mdbook', 'theme', 'head.hbs'), 'utf8'));
  assert.equal(snippet('fences-tag'), snippet('mdbook-head'));
  // The site's mkdocs.yml says more, and explains itself: README's lines are among its own, in
  // their order.
  const site = (await readFile(join(sites, 'mkdocs', 'mkdocs.yml'), 'utf8')).split('\n').filter((line) => !/^\s*#/.test(line));
  let at = 0;
  for (const line of snippet('mkdocs-yml').trimEnd().split('\n')) {
    at = site.indexOf(line, at) + 1;
    assert.ok(at > 0, `mkdocs.yml has README's line ${JSON.stringify(line)} where README has it`);
  }
  // The site's template adds the per-page opt-out and reads the host from mkdocs.yml.
  const main = await readFile(join(sites, 'mkdocs', 'overrides', 'main.html'), 'utf8');
  for (const line of snippet('mkdocs-main').trimEnd().split('\n')) {
    assert.ok(main.includes(line.trim().replace(EXAMPLE_HOST, '{{ config.extra.streamlab }}')), `main.html has ${JSON.stringify(line)}`);
  }
});

/** The markup other generators write for a fence, copied from their output (no real build of
 * them runs here), each with its own setup lines. */
const GENERATED = {
  docusaurus: `<div class="language-streamlab codeBlockContainer_Ckt0 theme-code-block" style="--prism-color:#393A34"><div class="codeBlockContent_biex"><pre tabindex="0" class="prism-code language-streamlab codeBlock_bY9V thin-scrollbar"><code class="codeBlockLines_e6Vv"><span class="token-line"><span class="token plain"># loading: eager</span><br></span><span class="token-line"><span class="token plain">XADD docusaurus 1-0 a 1</span><br></span><span class="token-line"><span class="token plain">XADD docusaurus 2-0 a 2</span><br></span></code></pre><div class="buttonGroup__atx"><button type="button" aria-label="Copy code to clipboard" title="Copy" class="clean-btn"><span class="copyButtonIcons_eSgA" aria-hidden="true">Copy</span></button></div></div></div>`,
  quarto: `<div class="code-copy-outer-scaffold"><div class="sourceCode" id="cb1"><pre class="sourceCode streamlab code-with-copy"><code class="sourceCode streamlab"><span id="cb1-1"><a href="#cb1-1" aria-hidden="true" tabindex="-1"></a># loading: eager</span>
<span id="cb1-2"><a href="#cb1-2" aria-hidden="true" tabindex="-1"></a>XADD quarto 1-0 a 1</span></code></pre></div><button title="Copy to Clipboard" class="code-copy-button"><i class="bi"></i></button></div>`,
  pandoc: `<pre class="streamlab"><code># loading: eager
XADD pandoc 1-0 a 1</code></pre>`,
  'markdown-it': `<pre><code class="language-streamlab"># loading: eager

XADD markdown-it 1-0 a 1
</code></pre>`,
  // pymdownx.highlight with linenums, as 13.1 writes it inline and (next) as a table.
  'pygments-inline': `<div class="language-streamlab highlight"><pre><span></span><code><span class="linenos">1</span># loading: eager
<span class="linenos">2</span>XADD pygments-inline 1-0 a 1
</code></pre></div>`,
  'pygments-table': `<div class="language-streamlab highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre><span></span><span class="normal">1</span>
<span class="normal">2</span></pre></div></td><td class="code"><div><pre><span></span><code># loading: eager
XADD pygments-table 1-0 a 1
</code></pre></div></td></tr></table></div>`,
};

test("other generators' markup: Docusaurus, Quarto, pandoc, markdown-it, Pygments' line numbers; a fence added later", { timeout: 120_000 }, async () => {
  const files = new Map();
  const site = filesServer(files);
  await new Promise((ok) => site.listen(0, '127.0.0.1', ok));
  files.set('/generated.html', {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fences as generators write them</title><link rel="icon" href="data:,">
<script src="${dist.url}embed.js" data-fences></script>
<script>window.ready = []; document.addEventListener('ready', (e) => window.ready.push(e.target));</script></head>
<body><main>${Object.entries(GENERATED).map(([name, html]) => `<h2>${name}</h2>\n${html}`).join('\n')}
<p>Not fences: inline <code class="language-streamlab">XLEN s</code>, and another language:</p>
<pre><code class="language-python">print("stays")</code></pre>
<script>setTimeout(() => document.querySelector('main').insertAdjacentHTML('beforeend', '<pre><code class="language-streamlab"># loading: eager\\nXADD later 1-0 a 1</code></pre>'), 200);</script>
</main></body></html>`,
  });
  try {
    await withBrowser({ ignore: IGNORE }, async (page) => {
      await page.goto(`http://localhost:${site.address().port}/generated.html`);
      const names = [...Object.keys(GENERATED), 'later'];
      await page.waitForFunction((n) => window.ready.length === n, names.length);
      // Each fence's widget ran exactly its setup lines (after the script's ECHO header): no
      // button's or gutter's text, one command per line.
      const scripts = await page.evaluate(() => [...document.querySelectorAll('stream-lab')].map((lab) => lab.exportScript()));
      assert.deepEqual(scripts.map((script) => script.split('\n').filter((line) => line && !line.startsWith('ECHO '))),
        names.map((name) => (name === 'docusaurus' ? ['XADD docusaurus 1-0 a 1', 'XADD docusaurus 2-0 a 2'] : [`XADD ${name} 1-0 a 1`])));
      // The whole block went, wrappers and buttons with it; the rest stayed.
      const shown = await page.evaluate(() => [...document.querySelectorAll('main > *')].filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.tagName));
      assert.deepEqual(shown, [...Object.keys(GENERATED).flatMap(() => ['H2', 'STREAM-LAB']), 'P', 'PRE', 'STREAM-LAB']);
      assert.equal(await page.locator('p code.language-streamlab').isVisible(), true);
    });
  } finally {
    await new Promise((ok) => site.close(ok));
  }
});
