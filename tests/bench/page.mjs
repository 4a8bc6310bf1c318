// The playground page after a long history: a share link whose log is 10,000 and 100,000
// scripted steps (XADDs to a stream among INCRs, each its own step, not one `:fill`) is opened
// in headless Chromium; then commands are typed and Enter pressed, timed until the page has
// re-rendered and laid out (harness.mjs `timeCommand`), as are Undo, Redo and seeks with the
// timeline's scrubber.
// A link carries at most 100,000 lines (the page's MAX_LOG_LINES), so there is no 1M column
// here; `cargo bench -p streamlab --bench session` measures the same history natively at 1M.
// Prints the medians beside the 16 ms target; nothing here fails.
// Needs dist/ (cargo xtask dist). Run: node tests/bench/page.mjs [--quick]
import { loadavg, cpus } from 'node:os';
import { serveDist, open, budgetLine, timeCommand } from '../browser/harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quick = process.argv.includes('--quick');
const sizes = quick ? [1_000, 10_000] : [10_000, 100_000];
// One XADD in four keeps a 100,000-line link under the 2 MB a Chromium URL may have.
const log = (steps) => Array.from({ length: steps }, (_, n) => (n % 4 === 0 ? `XADD s * n ${n}` : 'INCR c')).join('\n');
const commands = ['XADD s * n x', 'XLEN s', 'INCR c', 'XRANGE s + - COUNT 2', 'XADD s * n y', 'GET c'];

const server = await serveDist();
try {
  console.log(`page: measured on ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const steps of sizes) {
    const started = Date.now();
    const { page, context, errors } = await open(server.url, { fragment: `log=${encodeURIComponent(log(steps))}` });
    await page.waitForFunction((n) => document.querySelector('.timeline .position')?.textContent === `${n}/${n}`, steps);
    const loaded = Date.now() - started;
    const times = [];
    for (let round = 0; round < 4; round++) {
      for (const command of commands) times.push((await timeCommand(page, command))[0]);
    }
    // Undo and Redo (the timeline's buttons) and seeks (its scrubber, to the start, the middle
    // and the end), each timed until the timeline shows the position it went to (the app may
    // render in a later task than the click's) and the page is laid out.
    const end = steps + times.length;
    const frame = (act, arg, to) => page.evaluate(async ([what, value, shown]) => {
      const position = () => document.querySelector('.timeline .position')?.textContent;
      // The last change's save runs after its paint (a frame, then a task); let it finish.
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
      const start = performance.now();
      if (what === 'seek') {
        const scrub = document.querySelector('.timeline input[type=range]');
        const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
        setValue.call(scrub, String(value));
        scrub.dispatchEvent(new InputEvent('input', { bubbles: true }));
      } else {
        document.querySelector(`.timeline button[aria-label="${what}"]`).click();
      }
      // Woken by the change itself, as timeCommand is: waiting a frame at a time would count
      // whole frames.
      await new Promise((done) => {
        const seen = () => position() === shown && (observer.disconnect(), done());
        const observer = new MutationObserver(seen);
        observer.observe(document.querySelector('.timeline'), { subtree: true, characterData: true, childList: true });
        seen();
      });
      void document.body.offsetHeight;
      return performance.now() - start;
    }, [act, arg, `${to}/${end}`]);
    const history = [];
    for (let round = 0; round < 6; round++) {
      history.push(await frame('Undo the last step', null, end - 1));
      history.push(await frame('Redo the next step', null, end));
    }
    const seeks = [];
    for (const to of [0, Math.floor(end / 2), end, 0, end]) seeks.push(await frame('seek', to, to));
    const position = await page.evaluate(() => document.querySelector('.timeline .position')?.textContent);
    await context.close();
    if (errors.length) console.log(`page: errors in the page: ${errors.join('; ')}`);
    console.log(`page: ${steps} scripted steps ready in ${loaded} ms (the page replays the link's log); at the end the timeline shows ${position}`);
    budgetLine('page', `command + re-render + layout after ${steps} steps (median)`, median(times), 16, 'ms');
    console.log(`page: after ${steps} steps: ${times.length} commands, best ${Math.min(...times).toFixed(1)} ms, worst ${Math.max(...times).toFixed(1)} ms`);
    budgetLine('page', `undo or redo + re-render + layout after ${steps} steps (median)`, median(history), 50, 'ms');
    budgetLine('page', `seek (scrubber) + re-render + layout after ${steps} steps (slowest)`, Math.max(...seeks), 50, 'ms');
    console.log(`page: seeks to the start, the middle, the end, the start and the end: ${seeks.map((t) => t.toFixed(1)).join(', ')} ms`);
  }
} finally {
  await server.close();
}
