// Shared by the browser tests and the budget script: serves dist/ on a loopback port and
// starts Debian's headless Chromium through playwright-core.
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { readFile, mkdtemp, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize, extname, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const dist = join(root, 'dist');
export const shots = join(root, 'tests', 'browser', 'screenshots');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.toml': 'text/plain; charset=utf-8',
  // The docs sites' (tests/docs-sites) besides.
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.xml': 'application/xml',
};

/** An unstarted http server of `files` (path to {type, body}, a map the test may change): a
 * course site of another origin than dist's. */
export function filesServer(files) {
  return createServer((req, res) => {
    const file = files.get(new URL(req.url, 'http://x').pathname);
    res.writeHead(file ? 200 : 404, { 'content-type': file?.type ?? 'text/plain' });
    res.end(file?.body ?? 'not found');
  });
}

/** Serves dist/ on 127.0.0.1 (a free port); resolves to { url, port, close }. */
export async function serveDist() {
  if (!existsSync(join(dist, 'index.html'))) {
    throw new Error('dist/ is missing: run `cargo xtask dist` first');
  }
  return serveDir(dist);
}

/** Serves the directory `dir` as a static host does (`a/` is `a/index.html`) on 127.0.0.1, a
 * free port; resolves to { url, port, close }. Files are read when asked for, so a site may be
 * written after its server started (where the site must know its own address). */
export async function serveDir(dir) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path.endsWith('/') ? path + 'index.html' : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, port, close: () => new Promise((ok) => server.close(ok)) };
}

/**
 * Starts headless Chromium with a fresh profile (so local storage starts empty); resolves to
 * { context, page, errors } with page errors and console errors collected. `random`, when
 * given, is what Math.random returns in every page (the player picks a first attempt with
 * it), so a test knows which variant it plays.
 */
export async function launch({ width = 1400, height = 1000, colorScheme = 'light', reducedMotion = 'no-preference', touch = false, random } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'streamlab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width, height },
    colorScheme,
    reducedMotion,
    // A phone: touch events and a coarse pointer.
    hasTouch: touch,
    isMobile: touch,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  if (random !== undefined) await context.addInitScript((value) => { Math.random = () => value; }, random);
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { page, context, errors };
}

/**
 * Opens the playground in a fresh browser (see `launch`), optionally at a fragment; waits for
 * the console. Close with `context.close()`.
 */
export async function open(url, { fragment = '', ...options } = {}) {
  const { page, context, errors } = await launch(options);
  await page.goto(url + (fragment ? '#' + fragment : ''));
  await page.waitForSelector('#console-input');
  return { page, context, errors };
}

/** A queue with a group: alice reads two jobs, then, 1.5 s later, bob one. */
export const SCENARIO = [
  'XGROUP CREATE jobs workers $ MKSTREAM',
  'XADD jobs 1-0 type email to ann',
  'XADD jobs 2-0 type sms to bob',
  'XADD jobs 3-0 type push to cy',
  'XADD jobs 4-0 type email to dee',
  'XREADGROUP GROUP workers alice COUNT 2 STREAMS jobs >',
  ':clock +1500',
  'XREADGROUP GROUP workers bob COUNT 1 STREAMS jobs >',
];

/** Types a console line and presses Enter. */
export async function type(page, line) {
  await page.fill('#console-input', line);
  await page.press('#console-input', 'Enter');
}

/** The text of the console's last entry. */
export async function lastEntry(page) {
  return page.locator('.log .log-item').last().innerText();
}

/** Waits for the finite animations (cards arriving) to end, embedded widgets' included
 * (a document's list leaves out what runs in its shadow roots). */
export async function settle(page) {
  await page.evaluate(() => {
    const roots = [document, ...[...document.querySelectorAll('*')].map((e) => e.shadowRoot).filter(Boolean)];
    return Promise.all(roots.flatMap((root) => root.getAnimations())
      .filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished));
  });
}

/**
 * Saves a screenshot once animations have settled: the whole page, or with `fullPage: false`
 * the viewport only (a full-page shot of an emulated phone drops its touch emulation for the
 * shot, so the page redraws for a mouse).
 */
export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir(shots, { recursive: true });
  const path = join(shots, name);
  await settle(page);
  await page.screenshot({ path, fullPage });
  return path;
}

/** The frame of a widget embedded from another origin (`widget`, a locator of its element),
 * scrolled into view and once it has drawn (two animation frames in it: a browser renders a
 * cross-origin frame only while it is in view). */
export async function drawnIn(widget) {
  await widget.scrollIntoViewIfNeeded();
  const frame = await (await widget.locator('iframe').elementHandle()).contentFrame();
  await frame.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return frame;
}

/**
 * Runs `body(page)` in a browser `launch` or `open` started, then checks the page logged no errors
 * (but those `ignore` matches: failures a test causes on purpose), closing the browser
 * whatever happens.
 */
async function closing({ page, context, errors }, ignore, body) {
  try {
    await body(page);
    assert.deepEqual(errors.filter((e) => !ignore?.test(e)), [], 'no errors in the page');
  } finally {
    await context.close();
  }
}

/** Runs the test `body(page)` in a fresh browser (see `launch`) on a blank page. */
export async function withBrowser({ ignore, ...options }, body) {
  await closing(await launch(options), ignore, body);
}

/** Runs the page test `body(page)` in a fresh browser with the playground open (see `open`). */
export async function withPage(url, { ignore, ...options }, body) {
  await closing(await open(url, options), ignore, body);
}

/** A file's size gzipped (level 9), in KB. */
export const gzipKB = (bytes) => gzipSync(bytes, { level: 9 }).length / 1000;

/** Prints a measurement beside its budget; returns whether it is within. */
export function budgetLine(label, name, value, budget, unit) {
  const within = value <= budget;
  console.log(`${label}: ${name.padEnd(50)} ${value.toFixed(1).padStart(8)} ${unit}   (budget ${budget} ${unit}${within ? ', within' : ', OVER'})`);
  return within;
}

/**
 * Types `line` into the console and presses Enter inside the page; resolves to
 * `[total, effect]`: ms until the app has re-rendered and the browser has recomputed style and
 * layout (read back through offsetHeight), so the work a frame would have to fit, and ms until
 * the app's effects ran (its `data-command-ms`).
 */
export async function timeCommand(page, line) {
  return page.evaluate(async (text) => {
    const input = document.getElementById('console-input');
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    setValue.call(input, text);
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
    await new Promise((done) => setTimeout(done, 0));
    delete document.body.dataset.commandMs;
    const start = performance.now();
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    // Woken by the attribute write itself: polling with timers would add their 1–4 ms
    // clamping to every measurement.
    await new Promise((done) => {
      const seen = () => document.body.dataset.commandMs && (observer.disconnect(), done());
      const observer = new MutationObserver(seen);
      observer.observe(document.body, { attributes: true, attributeFilter: ['data-command-ms'] });
      seen();
    });
    void document.body.offsetHeight;
    return [performance.now() - start, Number(document.body.dataset.commandMs)];
  }, line);
}

/**
 * Presses Tab (Shift+Tab with `back`) until `matches(element, arg)` holds for the focused
 * element (inside shadow roots too), at most `limit` times; resolves to whether it got
 * there. Keyboard only: nothing is clicked or focused by script. `matches` runs in the page
 * (it is sent as source: no closures), `arg` is passed as JSON.
 */
export async function tabTo(page, matches, { arg = null, back = false, limit = 80 } = {}) {
  const test = () => page.evaluate(`(() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return !!a && (${matches})(a, ${JSON.stringify(arg)});
  })()`);
  for (let i = 0; i < limit; i++) {
    if (await test()) return true;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  return test();
}

/** The focused element's text and attributes (inside shadow roots too). */
export async function focused(page) {
  return page.evaluate(() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a ? { tag: a.tagName, text: a.textContent.trim(), label: a.getAttribute('aria-label'), move: a.dataset.move ?? null } : null;
  });
}

/** Types each line into the console. */
export async function runAll(page, lines) {
  for (const line of lines) await type(page, line);
}

/** Violations of axe-core's rules at serious or critical impact, in the whole page or only in
 * the elements the selector `only` finds (their shadow roots included). */
export async function axe(page, only) {
  // Cards fade in; measure contrast once they have arrived.
  await settle(page);
  await page.evaluate(axeSource);
  const result = await page.evaluate((include) => window.axe.run(include ? { include: [include] } : document, { resultTypes: ['violations'] }), only);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

/** A lesson file's text as variant 0 shows it: `${expr}` over its default params. */
export function renderer(text) {
  const params = Object.fromEntries([...(text.match(/^params = \{([^}]*)\}/m)?.[1] ?? '').matchAll(/(\w+) = (-?\d+)/g)]
    .map(([, name, value]) => [name, Number(value)]));
  // Test code only (the shipped scripts never evaluate code): integer arithmetic over params.
  const value = (expr) => Math.trunc(Function(...Object.keys(params), `return (${expr});`)(...Object.values(params)));
  return (line) => line.replace(/\$\{([^}]*)\}/g, (_, expr) => String(value(expr)));
}

/** A TOML array of strings (one level) written `name = [...]` in `block`. */
function strings(block, name) {
  const found = block.match(new RegExp(`^\\s*${name} = \\[([\\s\\S]*?)\\]\\s*$`, 'm'));
  return found ? [...found[1].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`)) : [];
}

/**
 * A lesson's tasks as the page plays them in variant 0 (read roughly from the TOML, enough for
 * tests): kind, whether it continues, title, the solution lines, the first misconception's
 * path, the right options' texts (code marks dropped), a literal numeric answer, the steps of
 * an order task in the right order.
 */
export function lessonTasks(text) {
  const render = renderer(text);
  const plain = (t) => render(t).replaceAll('`', '');
  return text.split(/^\[\[task\]\]$/m).slice(1).map((block) => ({
    kind: block.match(/^kind = "([^"]*)"/m)[1],
    continues: /^continues = true$/m.test(block),
    title: block.match(/^title = "([^"]*)"/m)?.[1] ?? '',
    solution: strings(block, 'solution').map(render),
    wrong: strings(block.split('[[task.misconception]]')[1] ?? '', 'path').map(render),
    right: [...block.matchAll(/text = "((?:[^"\\]|\\.)*)", correct = true/g)].map((m) => plain(JSON.parse(`"${m[1]}"`))),
    number: render(block.match(/^answer = "?([^"\n]*)"?$/m)?.[1] ?? ''),
    steps: strings(block, 'steps').map(plain),
  }));
}

/** StreamLab's host for a course-platform test (not yet listening): dist/ as served at
 * `dist.url`, with `lessons` (id → the file's text) among its lessons. */
export function lessonHost(dist, lessons) {
  return createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const id = path.match(/^\/lessons\/([a-z0-9-]+)\.toml$/)?.[1];
    if (id && Object.hasOwn(lessons, id)) { res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(lessons[id]); return; }
    const upstream = await fetch(new URL(path.slice(1), dist.url));
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
}

/** The tiny lesson's first task, as a person does it in `scope` (a page or frame): reads the
 * prompt (the attempt's variant names the stream), types the group, sees OK, checks.
 * Resolves to the stream's name. */
export async function groupTask(scope) {
  const prompt = await scope.getByText(/^Create the group g on \S+, and the stream with it\.$/).innerText();
  const stream = prompt.match(/ on (\S+),/)[1];
  await scope.locator('#console-input').fill(`XGROUP CREATE ${stream} g 0 MKSTREAM`);
  await scope.locator('#console-input').press('Enter');
  await scope.locator('.log .log-item').filter({ hasText: 'OK' }).waitFor();
  await scope.getByRole('button', { name: 'Check', exact: true }).click();
  return stream;
}

/** The whole tiny lesson in `scope`: the group task, then the question answered right. */
export async function playTiny(scope) {
  await groupTask(scope);
  await scope.getByRole('button', { name: 'Next →' }).click();
  await scope.getByLabel('XACK', { exact: true }).check();
  await scope.getByRole('button', { name: 'Answer' }).click();
}

/**
 * A lesson of one reach-state task (make the group `g` on `s`) and one question (which
 * command acknowledges), with the id `id`: in quiz mode only the question is played, so
 * answering it completes the lesson.
 */
export const tinyLesson = (id) => `id = "${id}"
version = 1
title = "A one-question lesson"
summary = "For the embedding tests."
profile = "redis-8.2"
minutes = 1

[[variant]]
values = { s = "t" }

[[task]]
kind = "reach-state"
title = "A group"
prompt = "Create the group \`g\` on \`s\`, and the stream with it."
hints = ["XGROUP CREATE can make the stream too."]
solution = ["XGROUP CREATE s g 0 MKSTREAM"]
must_not_pass = [["XADD s 1-0 f v"]]
  [[task.check]]
  kind = "group"
  stream = "s"
  group = "g"
  present = true
  message = "The group g should exist; present: {actual}."

[[task]]
kind = "choice"
title = "What acknowledges"
prompt = "Which command removes an entry from a group's pending list?"
options = [
  { text = "XACK", correct = true, why = "XACK takes the entry out of the group's pending entries list, which is what acknowledging means." },
  { text = "XDEL", why = "XDEL deletes the entry from the stream; the PEL keeps its id." },
  { text = "XTRIM", why = "XTRIM drops old entries from the stream; the PEL keeps their ids." },
]`;
