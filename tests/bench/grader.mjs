// The grader module's cost at 10k, 100k and 1M steps of the order-event XADD line, each case in
// a fresh Node process (a wasm instance's memory only grows, so cases must not share one):
// lines per second and wasm memory per entry for `Session.execute` one line per call and for
// `Session.run` in batches of 10,000 lines, with the full undo history and with a bounded one
// (`history: 1000`). Prints the targets as met or missed; nothing here fails.
// Needs dist/ (cargo xtask dist). Run: node tests/bench/grader.mjs [--quick]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const line = (n) => `XADD s * type order-created orderId ${n} isbn 9780441013593 quantity 2`;
const BATCH = 10_000;

if (process.argv[2] === '--case') {
  // One measurement, in this process: mode (execute|run), history (all|N), steps.
  const [, , , mode, history, steps] = process.argv;
  const { load, Session } = await import(join(root, 'dist', 'grader', 'grader.js'));
  await load();
  const memory = () => process.memoryUsage().rss;
  const options = history === 'all' ? {} : { history: Number(history) };
  // Warm up first, in a session thrown away: V8 compiles the wasm's busy functions again,
  // optimized, after their first thousands of calls, which would otherwise be counted against
  // the smallest size only.
  const warm = new Session({ history: 100 });
  for (let n = 0; n < 5_000; n++) warm.execute(line(n));
  warm.run(Array.from({ length: 5_000 }, (_, n) => line(n)));
  warm.free();
  const session = new Session(options);
  const before = memory();
  const started = performance.now();
  const count = Number(steps);
  if (mode === 'execute') {
    for (let n = 0; n < count; n++) session.execute(line(n));
  } else {
    for (let n = 0; n < count; n += BATCH) {
      const lines = [];
      for (let k = n; k < Math.min(count, n + BATCH); k++) lines.push(line(k));
      const ran = session.run(lines);
      if (ran.errors.length) throw new Error(`batch failed: ${JSON.stringify(ran.errors[0])}`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const length = session.execute('XLEN s').replies[0];
  if (length !== count) throw new Error(`XLEN ${length}, expected ${count}`);
  console.log(JSON.stringify({ rate: count / seconds, bytes: (memory() - before) / count }));
} else {
  const quick = process.argv.includes('--quick');
  const sizes = quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000];
  const measure = (mode, history, steps) => JSON.parse(execFileSync(process.execPath,
    [fileURLToPath(import.meta.url), '--case', mode, history, String(steps)], { encoding: 'utf8', maxBuffer: 1 << 20 }));
  const results = {};
  for (const history of ['all', '1000']) {
    for (const mode of ['execute', 'run']) {
      const rates = [];
      for (const steps of sizes) {
        const { rate, bytes } = measure(mode, history, steps);
        rates.push(rate);
        results[`${mode} ${history} ${steps}`] = { rate, bytes };
        console.log(`grader ${mode.padEnd(7)} history ${history.padStart(4)} ${String(steps).padStart(8)} lines: ` +
          `${rate.toFixed(0).padStart(8)} lines/s  ${bytes.toFixed(1).padStart(7)} B/entry (process RSS growth)`);
      }
      const share = rates[rates.length - 1] / rates[0];
      console.log(`grader ${mode} history ${history}: throughput at ${sizes[sizes.length - 1]} is ` +
        `${(100 * share).toFixed(0)}% of ${sizes[0]} (target >= 70%: ${share >= 0.7 ? 'met' : 'MISSED'})`);
    }
  }
  const last = sizes[sizes.length - 1];
  const batch = results[`run 1000 ${last}`];
  const single = results[`execute 1000 ${last}`];
  console.log(`grader: a batch runs ${(batch.rate / single.rate).toFixed(1)}x the lines per second of one execute per line; ` +
    `bounded history at ${last}: ${batch.bytes.toFixed(1)} B/entry (target <= 3x the engine's ~31 B: ` +
    `${batch.bytes <= 93 ? 'met' : 'MISSED'})`);
}
