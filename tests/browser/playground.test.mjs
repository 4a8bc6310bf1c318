// End-to-end tests of the playground in headless Chromium (Debian's), driven by
// playwright-core. Needs dist/ (cargo xtask dist); `cargo xtask test` builds it first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, type, lastEntry, screenshot, withPage as withPageAt, runAll, axe, SCENARIO } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

const withPage = (options, body) => withPageAt(server.url, options, body);


test('the console answers like redis-cli, with errors in red, help, hints, completion and history', async () => {
  await withPage({}, async (page) => {
    await type(page, 'XADD jobs 1-0 type email');
    assert.equal(await lastEntry(page), 'alice> XADD jobs 1-0 type email\n"1-0"');
    await type(page, 'XADD jobs 1-0 type email');
    const error = page.locator('.log .out.error').last();
    assert.equal(await error.innerText(), '(error) ERR The ID specified in XADD is equal or smaller than the target stream top item');
    const color = await error.evaluate((e) => getComputedStyle(e).color);
    const [r, g, b] = color.match(/\d+/g).map(Number);
    assert.ok(r > 200 && g < 160 && b < 160, `errors are red, got ${color}`);
    await type(page, 'XRANGE jobs - +');
    assert.match(await lastEntry(page), /1\) 1\) "1-0"\n   2\) 1\) "type"\n      2\) "email"/);
    await type(page, 'help XACK');
    assert.match(await lastEntry(page), /XACK key group id \[id \.\.\.\]\n  summary: /);

    // The syntax hint follows the typed words.
    await page.fill('#console-input', 'XREADGROUP GROUP workers ');
    assert.match(await page.locator('.ghost .hint').innerText(), /^consumer \[COUNT count\]/);
    await screenshot(page, 'console-hint.png');
    // Tab completes a command name, then a keyword.
    await page.fill('#console-input', 'xreadg');
    await page.press('#console-input', 'Tab');
    assert.equal(await page.inputValue('#console-input'), 'XREADGROUP ');
    await page.fill('#console-input', 'XGROUP CREATE jobs g $ MKST');
    await page.press('#console-input', 'Tab');
    assert.equal(await page.inputValue('#console-input'), 'XGROUP CREATE jobs g $ MKSTREAM ');
    // ↑ recalls the history; Ctrl+L clears the screen.
    await page.fill('#console-input', '');
    await page.press('#console-input', 'ArrowUp');
    assert.equal(await page.inputValue('#console-input'), 'help XACK');
    await page.press('#console-input', 'ArrowUp');
    assert.equal(await page.inputValue('#console-input'), 'XRANGE jobs - +');
    await page.press('#console-input', 'Control+l');
    assert.equal(await page.locator('.log .log-item').count(), 0);

    // Pasting several lines runs them in order (after what is typed already).
    await page.fill('#console-input', 'XADD jobs 2-0 ');
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData('text', 'n 1\nXADD jobs 3-0 n 2\nXLEN jobs');
      const input = document.getElementById('console-input');
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await page.waitForFunction(() => document.querySelectorAll('.log .log-item').length === 3);
    assert.equal(await lastEntry(page), 'alice> XLEN jobs\n(integer) 3');

    // History survives a reload, and so does the session. Both are stored as JSON (as they
    // always were), so what an earlier version saved still reads.
    await page.waitForFunction(() => (localStorage.getItem('streamlab.session') || '').includes('XLEN'));
    const stored = await page.evaluate(() => ['streamlab.history', 'streamlab.session'].map((k) => JSON.parse(localStorage.getItem(k))));
    assert.equal(stored[0].at(-1), 'XLEN jobs');
    assert.match(stored[1], /^profile=.*&log=/);
    await page.reload();
    await page.waitForSelector('#console-input');
    await page.press('#console-input', 'ArrowUp');
    assert.equal(await page.inputValue('#console-input'), 'XLEN jobs');
    await page.fill('#console-input', '');
    assert.equal(await page.locator('.stream .meta').first().innerText().then((t) => t.includes('length\n3') || t.includes('length 3')), true);
  });
});

test('group cursors and PEL lanes follow reads, claims, acks and deletes', async () => {
  await withPage({}, async (page) => {
    await runAll(page, SCENARIO);
    const cursorUnder = () => page.locator('.rail .card-wrap').filter({ has: page.locator('.cursor') }).locator('.entry').innerText();
    assert.equal(await cursorUnder(), '3-0');
    const lane = (name) => page.locator('.lane').filter({ has: page.locator('.who strong', { hasText: new RegExp(`^${name}$`) }) });
    const cards = async (name) => (await lane(name).locator('.pel-card .id').allInnerTexts());
    assert.deepEqual(await cards('alice'), ['1-0', '2-0']);
    assert.deepEqual(await cards('bob'), ['3-0']);
    assert.match(await lane('alice').locator('.pel-card').first().innerText(), /×1\s+1\.5 s/);
    assert.match(await page.locator('.group-facts').innerText(), /last-delivered-id 3-0.*entries-read 3.*lag 1.*pending 3/s);

    // Script animations are recorded as they start: a 450 ms slide may be over before a look
    // at the page's running animations, on a loaded machine.
    await page.evaluate(() => {
      window.slid = [];
      const animate = Element.prototype.animate;
      Element.prototype.animate = function (frames, options) {
        window.slid.push(`${options?.id} ${this.dataset.key}`);
        return animate.call(this, frames, options);
      };
    });
    await type(page, 'XCLAIM jobs workers bob 1000 1-0');
    // The claimed card slides from alice's lane to bob's.
    await lane('bob').locator('.pel-card[data-key="jobs/workers/1-0"]').waitFor();
    await page.waitForFunction(() => window.slid.length > 0);
    assert.deepEqual(await page.evaluate(() => window.slid), ['slide jobs/workers/1-0']);
    assert.deepEqual(await cards('alice'), ['2-0']);
    assert.deepEqual(await cards('bob'), ['1-0', '3-0']);
    assert.match(await lane('bob').locator('.pel-card').first().innerText(), /×2/);
    await type(page, 'XACK jobs workers 3-0');
    assert.deepEqual(await cards('bob'), ['1-0']);
    await type(page, 'XDEL jobs 2-0');
    assert.match(await lane('alice').locator('.pel-card').first().getAttribute('class'), /deleted/);
    assert.match(await page.locator('.stream .meta').innerText(), /max-deleted-id\s+2-0/);
    // Reading the rest moves the cursor to the end: a deleted entry before it makes lag nil? No —
    // the cursor passes max-deleted, so lag is known again.
    await type(page, 'XREADGROUP GROUP workers alice STREAMS jobs >');
    assert.equal(await cursorUnder(), '4-0');
    assert.match(await page.locator('.group-facts').innerText(), /lag 0/);
    // A group placed before a tombstone cannot know its lag, and says why.
    await type(page, 'XGROUP CREATE jobs audit 0');
    const audit = page.locator('.group', { hasText: 'group audit' });
    assert.match(await audit.locator('.group-facts').innerText(), /lag nil/);
    assert.match(await audit.locator('.why').innerText(), /Why is lag nil\?.*max-deleted-entry-id 2-0/s);
    const changes = await page.locator('.step.current .changes').innerText();
    assert.match(changes, /group audit created at 0-0/);
    await screenshot(page, 'desktop-light-groups.png');

    // The table view mirrors the pictures.
    await page.click('button:has-text("Tables")');
    const pel = page.locator('table', { has: page.locator('caption', { hasText: 'Pending entries' }) });
    assert.equal(await pel.locator('tbody tr').count(), 3);
    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'desktop-tables.png');
  });
});

test('connection tabs keep their own state; a blocked read waits and completes when served', async () => {
  await withPage({}, async (page) => {
    await type(page, 'XGROUP CREATE jobs workers $ MKSTREAM');
    await page.click('.tabs button:has-text("bob")');
    await type(page, 'XREADGROUP GROUP workers bob BLOCK 0 STREAMS jobs >');
    await page.waitForSelector('.log .waiting');
    assert.match(await page.locator('.tabs .tab', { hasText: 'bob' }).innerText(), /waiting/);
    await page.click('button[aria-label="Open a new connection"]');
    assert.match(await page.locator('.tabs .tab.selected').innerText(), /carol/);
    await type(page, 'SUBSCRIBE news');
    assert.match(await page.locator('.tabs .tab', { hasText: 'carol' }).innerText(), /subscribed 1/);
    await page.click('.tabs button:has-text("alice")');
    await type(page, 'MULTI');
    await type(page, 'XADD jobs 1-0 type email');
    assert.equal(await lastEntry(page), 'alice> XADD jobs 1-0 type email\nQUEUED');
    assert.match(await page.locator('.tabs .tab', { hasText: 'alice' }).innerText(), /MULTI 1 queued/);
    await screenshot(page, 'tabs-waiting-multi.png');
    await type(page, 'EXEC');
    const served = await lastEntry(page);
    assert.match(served, /\[bob\] 1\) 1\) "jobs"/);
    assert.equal(await page.locator('.log .waiting').count(), 0);
    await type(page, 'PUBLISH news hello');
    assert.match(await lastEntry(page), /\(integer\) 1\n\[carol\] 1\) "message"\n\[carol\] 2\) "news"\n\[carol\] 3\) "hello"/);
    assert.match(await page.locator('.pubsub').innerText(), /news → carol[\s\S]*carol received[\s\S]*news: hello/);
    // A blocked read with a timeout is answered by the clock.
    await page.click('.tabs button:has-text("bob")');
    await type(page, 'XREAD BLOCK 1000 STREAMS jobs $');
    await page.click('button:has-text("+1 s")');
    assert.match(await lastEntry(page), /\[bob\] \(nil\)/);
  });
});

test('undo, redo, the scrubber and the clock move the pictures through time', async () => {
  await withPage({}, async (page) => {
    await runAll(page, SCENARIO);
    const idle = () => page.locator('.lane').first().locator('.pel-card .idle').first().innerText();
    assert.equal(await idle(), '1.5 s');
    await page.click('button:has-text("+1 min")');
    assert.equal(await idle(), '1 min 1 s');
    await page.click('button:has-text("+100 ms")');
    assert.match(await page.locator('.clock .time').innerText(), /\+01:01\.600$/);
    await page.click('button[aria-label="Undo the last step"]');
    await page.click('button[aria-label="Undo the last step"]');
    assert.equal(await idle(), '1.5 s');
    await page.click('button[aria-label="Undo the last step"]');
    assert.equal(await page.locator('.lane').count(), 1, 'bob is gone before his read');
    assert.equal(await page.locator('.position').innerText(), '7/10');
    // The list scrolls to the current step.
    await page.waitForFunction(() => {
      const list = document.querySelector('.steps').getBoundingClientRect();
      const current = document.querySelector('.step.current').getBoundingClientRect();
      return current.top >= list.top && current.bottom <= list.bottom;
    });
    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'timeline-undone.png');
    await page.click('button[aria-label="Redo the next step"]');
    assert.equal(await page.locator('.lane').count(), 2);
    // The scrubber seeks anywhere; the step list says what the step did.
    await page.locator('.scrub input').fill('1');
    assert.equal(await page.locator('.position').innerText(), '1/10');
    assert.equal(await page.locator('.lane').count(), 0);
    assert.match(await page.locator('.now-step').innerText(), /step 1 of 10: alice> XGROUP CREATE jobs workers \$ MKSTREAM/);
    await page.locator('.scrub input').fill('10');
    assert.equal(await page.locator('.lane').count(), 2);
    // Running the clock grows one step.
    await page.click('button:has-text("▶ Run")');
    // Its first tick grows it; later ticks amend the same step.
    await page.waitForFunction(() => document.querySelector('.position')?.textContent === '11/11');
    await page.click('button:has-text("Pause")');
    assert.equal(await page.locator('.position').innerText(), '11/11');
    assert.match(await page.locator('.step.current code').innerText(), /^:clock \+\d+$/);
  });
});

test('a share link rebuilds the same session in a fresh browser, and export writes a redis-cli script', async () => {
  let url;
  let pictures;
  await withPage({}, async (page) => {
    await runAll(page, SCENARIO);
    await page.click('.tabs button:has-text("bob")');
    await type(page, 'XACK jobs workers 3-0');
    await page.click('button:has-text("Share")');
    url = await page.inputValue('#share-url');
    assert.ok(url.includes('#profile=redis-8.10&clock=1700000000000&log='), url);
    assert.equal(await page.evaluate(() => location.href), url);
    // The panel's link follows the session; the address bar lets go of it once it changes
    // (and the change is saved, after its paint).
    await type(page, 'XLEN jobs');
    await page.waitForFunction(() => location.hash === '');
    await page.click('button[aria-label="Undo the last step"]');
    pictures = await page.locator('.pictures').innerText();
    await page.click('button:has-text("Export")');
    const script = await page.inputValue('#export-text');
    assert.match(script, /XGROUP CREATE jobs workers \$ MKSTREAM\n/);
    // A redis-cli script: no comment lines (redis-cli has none), bob's XACK where it ran.
    assert.match(script, /\nXACK jobs workers 3-0\n/);
    assert.ok(!/^#/m.test(script), script);
    assert.match(await page.locator('.export, #export-text').first().evaluate((e) => e.closest('section, div').innerText), /redis-cli --no-raw < session\.redis/);
  });
  const fragment = url.split('#')[1];
  await withPage({ fragment }, async (page) => {
    assert.equal(await page.locator('.pictures').innerText(), pictures);
    assert.equal(await page.locator('.tabs .tab.selected').innerText(), 'bob');
    assert.equal(await page.locator('.position').innerText(), '9/9');
    // The link is consumed (once it is saved): work done after it survives a reload.
    await page.waitForFunction(() => location.hash === '');
    await type(page, 'XACK jobs workers 1-0');
    await page.reload();
    await page.waitForSelector('#console-input');
    assert.equal(await page.locator('.position').innerText(), '10/10');
  });
});

test('keyboard only: skip link, console, rail arrows, visible focus; no serious axe violations in both themes', async () => {
  await withPage({ colorScheme: 'dark' }, async (page) => {
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to the console');
    await page.keyboard.press('Enter');
    for (const line of SCENARIO) {
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
    }
    await page.keyboard.type('XLEN jobs');
    await page.keyboard.press('Enter');
    assert.equal(await lastEntry(page), 'alice> XLEN jobs\n(integer) 4');
    await page.focus('.rail .entry >> nth=0');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), '2-0');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.equal(outline, 'solid', 'focus is visible');
    assert.ok(await page.locator('.rail .card-wrap:focus-within .tip').isVisible(), 'fields show on focus');
    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'desktop-dark-focus.png');
  });
  await withPage({ colorScheme: 'light' }, async (page) => {
    await runAll(page, SCENARIO);
    assert.deepEqual(await axe(page), []);
  });
});

test('a phone-width screen stacks the console over the pictures', async () => {
  await withPage({ width: 390, height: 844, reducedMotion: 'reduce' }, async (page) => {
    await runAll(page, SCENARIO);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= 390, `no sideways scrolling, got ${scrollWidth}`);
    const animation = await page.locator('.pel-card').first().evaluate((e) => getComputedStyle(e).animationName);
    assert.equal(animation, 'none', 'reduced motion turns the card animation off');
    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'phone.png');
  });
});

test('a 100,000-entry stream collapses into blocks and stays responsive', async () => {
  const log = 'XGROUP CREATE big workers 0\nXREADGROUP GROUP workers alice COUNT 5 STREAMS big >';
  const fragment = `fill=big%3A100000&log=${encodeURIComponent(log)}`;
  await withPage({ fragment }, async (page) => {
    assert.match(await page.locator('.stream .meta').innerText(), /length\s+100,000/);
    assert.ok(await page.locator('.rail .block').count() >= 1);
    assert.ok(await page.locator('.rail .entry').count() <= 300);
    // The fill's order events took the first millisecond's sequence numbers 0..99999.
    await type(page, 'XADD big * n x');
    assert.match(await lastEntry(page), /"1700000000000-100000"/);
    // A huge reply is cut for display, not pasted whole into the page (nine lines an entry).
    await type(page, 'XRANGE big - + COUNT 20000');
    assert.match(await lastEntry(page), /… 179500 more lines not shown$/);
    await screenshot(page, 'big-stream.png');
  });
});
