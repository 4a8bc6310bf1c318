// The playground's budgets, measured and printed. Only the size fails the run; timings on a
// shared machine are information, not a pass/fail test:
//   - the app's wasm, gzipped (budget 350 KB);
//   - first render in headless Chromium after the page starts loading (budget 500 ms);
//   - a command plus re-render with a 100,000-entry stream (budget 16 ms), also with a
//     collapsed block opened;
//   - the memory of ten embedded widgets, each in its own wasm instance (printed only).
// Needs dist/ (cargo xtask dist). Run: node tests/browser/budget.mjs
import { readFile } from 'node:fs/promises';
import { loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { dist, serveDist, open, gzipKB, budgetLine, timeCommand } from './harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (name, value, budget, unit) => budgetLine('budget', name, value, budget, unit);

const wasm = await readFile(join(dist, 'streamlab_bg.wasm'));
const js = await readFile(join(dist, 'streamlab.js'));
const wasmGz = gzipKB(wasm);
const jsGz = gzipKB(js);

const server = await serveDist();
try {
  // First render: performance.now() when the app's first render effect ran (ms since the
  // navigation started), in fresh profiles.
  const firsts = [];
  const afterLoad = [];
  for (let i = 0; i < 5; i++) {
    const { page, context } = await open(server.url);
    await page.waitForFunction(() => document.body.dataset.firstRenderMs && performance.getEntriesByType('navigation')[0].loadEventEnd > 0);
    const [first, load] = await page.evaluate(() => [
      Number(document.body.dataset.firstRenderMs),
      performance.getEntriesByType('navigation')[0].loadEventEnd,
    ]);
    firsts.push(first);
    afterLoad.push(Math.max(0, first - load));
    await context.close();
  }

  // Commands against a 100,000-entry stream with a group and pending entries.
  const log = 'XGROUP CREATE big workers 0\nXREADGROUP GROUP workers alice COUNT 50 STREAMS big >';
  const started = Date.now();
  const { page, context } = await open(server.url, { fragment: `fill=big%3A100000&log=${encodeURIComponent(log)}` });
  const loadBig = Date.now() - started;
  const commands = [
    'XADD big * n x',
    'XREADGROUP GROUP workers bob COUNT 1 STREAMS big >',
    'XACK big workers 1-0',
    'XCLAIM big workers bob 0 2-0',
    'XLEN big',
    'XPENDING big workers',
  ];
  // Each command is typed into the console and Enter pressed inside the page (timeCommand).
  const times = [];
  const effects = [];
  const opened = [];
  // Five rounds as the page starts, then three with the first collapsed block opened (300
  // more entries drawn).
  for (let round = 0; round < 8; round++) {
    if (round === 5) {
      await page.click('.rail .block .fold[aria-expanded="false"]');
      await page.waitForSelector('.rail .block.opened');
    }
    for (const command of commands) {
      const [total, effect] = await timeCommand(page, command);
      if (round < 5) {
        times.push(total);
        effects.push(effect);
      } else {
        opened.push(total);
      }
    }
  }
  await context.close();

  // Ten embedded widgets (embed.test.mjs's page), each with its own wasm instance: every
  // instance's linear memory (read through its glue module, imported under the URL embed.js
  // gave it) and the page's JS heap, beside one widget alone.
  const widgets = async (count) => {
    const { page: p, context: c } = await open(server.url);
    const url = server.url + `test/widgets-${count}.html`;
    await p.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body:
      `<!doctype html><title>widgets</title><script src="../embed.js"></script>
       <script>window.readyCount = 0; document.addEventListener('ready', () => window.readyCount++);</script>
       ${Array.from({ length: count }, (_, i) => `<stream-lab loading="eager" layout="console" setup="XADD only${i} 1-0 n ${i}"></stream-lab>`).join('')}` }));
    await p.goto(url);
    await p.waitForFunction((n) => window.readyCount === n, count);
    const memories = await p.evaluate((n) => Promise.all(Array.from({ length: n }, (_, i) =>
      import(new URL(`streamlab.js#instance-${i}`, location.href.replace(/test\/[^/]*$/, '')).href)
        .then((m) => m.initSync().memory.buffer.byteLength))), count);
    const cdp = await c.newCDPSession(p);
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const heap = metrics.find((m) => m.name === 'JSHeapUsedSize').value;
    await c.close();
    return { memories, heap };
  };
  const one = await widgets(1);
  const ten = await widgets(10);
  const MiB = (bytes) => (bytes / 1048576).toFixed(1);
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);

  console.log(`budget: measured on ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (timings grow with other work on the machine)`);
  console.log(`budget: wasm ${(wasm.length / 1024).toFixed(0)} KiB raw; JS glue ${jsGz.toFixed(1)} KB gzipped`);
  if (!line('app wasm, gzipped', wasmGz, 350, 'KB')) process.exitCode = 1;
  line('first render after the load event (median of 5)', median(afterLoad), 500, 'ms');
  line('first render after navigation start (median of 5)', median(firsts), 500, 'ms');
  console.log(`budget: first renders after navigation start: ${firsts.map((t) => t.toFixed(0)).join(', ')} ms; after load: ${afterLoad.map((t) => t.toFixed(0)).join(', ')} ms`);
  console.log(`budget: page with a 100,000-entry stream ready in ${loadBig} ms (fill runs in the page)`);
  line('command + re-render + layout, 100k stream (median)', median(times), 16, 'ms');
  console.log(`budget: command + re-render, 100k stream: ${times.length} commands, best ${Math.min(...times).toFixed(1)} ms, worst ${Math.max(...times).toFixed(1)} ms; until the app's effects ran: median ${median(effects).toFixed(1)} ms`);
  line('the same with a block opened (median)', median(opened), 16, 'ms');
  console.log(`budget: one widget: wasm memory ${MiB(sum(one.memories))} MiB, JS heap ${MiB(one.heap)} MiB`);
  console.log(`budget: ten widgets: wasm memory ${MiB(sum(ten.memories))} MiB (per instance ${ten.memories.map(MiB).join(', ')}), JS heap ${MiB(ten.heap)} MiB`);
} finally {
  await server.close();
}
