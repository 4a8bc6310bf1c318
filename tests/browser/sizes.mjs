// The embedding kit's sizes and a scan for evaluated code. A size over its budget fails the
// run, as evaluated code does: byte counts do not depend on the machine's load, unlike
// budget.mjs's timings. Needs dist/ (cargo xtask dist).
// Run: node tests/browser/sizes.mjs
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dist, gzipKB, budgetLine } from './harness.mjs';

const gz = async (file) => gzipKB(await readFile(join(dist, file)));
const line = (name, value, budget) => budgetLine('size', `${name}, gzipped`, value, budget, 'KB');

// The app's wasm and JS glue are budget.mjs's to report.
const STUDIO = ['studio.html', 'studio/studio.js', 'studio/panels.js', 'studio/record.js', 'studio/edit.js', 'studio/dom.js', 'studio/check-worker.js', 'studio/tomltext.js', 'studio/insight.js', 'studio/studio.css', 'studio/streamlab_studio.js'];
async function studioScripts() {
  let sum = 0;
  for (const file of STUDIO) sum += await gz(file);
  return sum;
}
const embed = await gz('embed.js');
const within = [
  line('embed.js', embed, 10),
  line('embed.js + embed-frame.js (iframe page)', embed + (await gz('embed-frame.js')), 10),
  // Loaded only by pages with an xapi-base widget.
  line('xapi.js (xAPI statements, loaded on demand)', await gz('xapi.js'), 5),
  // Loaded by getReceipt() and the grader; the gradebook page's own script and styles (it
  // loads the grader besides, as a teacher's browser fetches it once).
  line('grader/receipt.js (receipts, loaded on demand)', await gz('grader/receipt.js'), 10),
  line('gradebook.html + gradebook.js + gradebook.css', (await gz('gradebook.html')) + (await gz('gradebook.js')) + (await gz('gradebook.css')), 10),
  // The cmi5 launch page's own script (it also loads embed.js and xapi.js).
  line('cmi5.js (cmi5 AU page)', await gz('cmi5.js'), 5),
  // The SCORM launch page's own script (it also loads embed.js and xapi.js; the page itself
  // is written by streamlab package scorm, about 1 KB gzipped).
  line('scorm.js (SCORM launch page)', await gz('scorm.js'), 5),
  line('jsinput.js (Open edX JSInput, loaded on demand)', await gz('jsinput.js'), 5),
  // Loaded only by pages whose embed.js tag has data-fences.
  line('fences.js (code fences as widgets, loaded on demand)', await gz('fences.js'), 5),
  line('grader wasm (grader/streamlab_grader_bg.wasm)', await gz('grader/streamlab_grader_bg.wasm'), 150),
  // The lesson studio: its own engine and scripts, loaded by studio.html only (the
  // playground's wasm carries none of it).
  line('studio wasm (studio/streamlab_studio_bg.wasm)', await gz('studio/streamlab_studio_bg.wasm'), 200),
  line('studio page and scripts (studio.html, studio/*.js, studio.css)', await studioScripts(), 40),
];
const over = within.filter((ok) => !ok).length;
console.log(`size: grader JS (glue + wrapper) ${((await gz('grader/streamlab_grader.js')) + (await gz('grader/grader.js'))).toFixed(1)} KB gzipped`);

// No eval and no Function constructor in anything the kit ships as script.
const scripts = ['embed.js', 'embed-frame.js', 'fences.js', 'xapi.js', 'cmi5.js', 'scorm.js', 'jsinput.js', 'streamlab.js', 'grader/grader.js', 'grader/receipt.js', 'grader/streamlab_grader.js', 'gradebook.js', 'examples/course.js', ...STUDIO.filter((f) => f.endsWith('.js'))];
const evaluated = /\beval\s*\(|\bnew\s+Function\s*\(|\bFunction\s*\(\s*['"`]|setTimeout\s*\(\s*['"`]|setInterval\s*\(\s*['"`]/;
let bad = 0;
for (const file of scripts) {
  const text = await readFile(join(dist, file), 'utf8');
  const found = text.split('\n').findIndex((l) => evaluated.test(l));
  if (found >= 0) {
    console.error(`size: ${file}:${found + 1} evaluates code: ${text.split('\n')[found].trim()}`);
    bad++;
  }
}
console.log(`size: evaluated code in shipped scripts: ${bad === 0 ? 'none' : bad}`);
if (over > 0) console.error(`size: ${over} size budget(s) missed`);
process.exitCode = bad === 0 && over === 0 ? 0 : 1;
