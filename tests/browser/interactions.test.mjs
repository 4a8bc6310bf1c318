// The playground's motion, big-rail blocks, server profiles and the touch palette, in headless
// Chromium (Debian's) through playwright-core. Needs dist/ (cargo xtask dist).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, type, lastEntry, screenshot, withPage as withPageAt, runAll, axe, shots, SCENARIO } from './harness.mjs';
import { join } from 'node:path';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

const withPage = (options, body) => withPageAt(server.url, options, body);

const lane = (page, name) => page.locator('.lane').filter({ has: page.locator('.who strong', { hasText: new RegExp(`^${name}$`) }) });

/** A stream `t` of three two-entry nodes. */
const NODES = ['CONFIG SET stream-node-max-entries 2', ...[1, 2, 3, 4, 5, 6].map((i) => `XADD t ${i}-0 f v${i}`)];

/** Whether the page has a CSS animation of this name (under `freeze`, one that has started). */
const running = (page, name) => page.evaluate((n) => document.getAnimations().some((a) => a.animationName === n), name);

/**
 * Holds every animation the page starts from now on at its first frame, CSS ones (a paused
 * play state) and script ones (`Element.animate`, paused as it returns): what a step animates
 * is then looked at without racing its end, however slow the machine (an animation of 0.8 s
 * had finished before the check at load average 5).
 */
const freeze = (page) => page.evaluate(() => {
  const style = document.createElement('style');
  style.textContent = '*, *::before, *::after { animation-play-state: paused !important; }';
  document.head.append(style);
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    const animation = animate.apply(this, args);
    animation.pause();
    return animation;
  };
});

const MOTION = '.pel-ghost, .rail-ghost, .entry.tombstoning, .entry.added, .pel-card.delivered, .pel-card.orphaned, .pel-card.claimed';

test('acks, deletes, trims and deliveries animate from the snapshot diff', async () => {
  await withPage({}, async (page) => {
    await runAll(page, SCENARIO);
    await freeze(page);
    // A delivery: the card comes from its entry on the rail into bob's lane.
    await type(page, 'XREADGROUP GROUP workers bob COUNT 1 STREAMS jobs >');
    const delivered = lane(page, 'bob').locator('.pel-card.delivered');
    assert.equal(await delivered.getAttribute('data-key'), 'jobs/workers/4-0');
    assert.ok(await delivered.evaluate((e) => e.getAnimations().some((a) => a.id === 'slide')), 'slides from the rail');
    // An ack: the card leaves bob's lane, shown leaving where it was.
    await type(page, 'XACK jobs workers 3-0');
    const acked = lane(page, 'bob').locator('.pel-ghost.acked');
    assert.equal(await acked.locator('.id').innerText(), '3-0');
    assert.equal(await acked.getAttribute('aria-hidden'), 'true');
    assert.ok(await running(page, 'acked'));
    assert.deepEqual(await lane(page, 'bob').locator('.pel-card .id').allInnerTexts(), ['4-0'], 'the real cards are what is pending');
    // A delete: the entry turns into a tombstone, and alice's pending card into the dashed one.
    await type(page, 'XDEL jobs 2-0');
    assert.equal(await page.locator('.rail .entry.tombstoning').innerText(), '2-0');
    assert.match(await page.locator('.rail .entry.tombstoning').getAttribute('class'), /deleted/);
    const orphan = lane(page, 'alice').locator('.pel-card.orphaned');
    assert.equal(await orphan.getAttribute('data-key'), 'jobs/workers/2-0');
    assert.match(await orphan.getAttribute('class'), /deleted/);
    assert.ok(await running(page, 'tombstone') && await running(page, 'orphan'));
    assert.equal(await page.locator('.pel-ghost').count(), 0, 'only the last step animates');
    // A trim: the head's nodes fade away where they were.
    await runAll(page, NODES);
    await type(page, 'XTRIM t MAXLEN 2');
    const t = page.locator('.stream[data-key="t"]');
    assert.equal(await t.locator('.rail-ghost.leaving').count(), 2);
    assert.deepEqual(await t.locator('.rail-ghost .entry').allInnerTexts(), ['1-0', '2-0', '3-0', '4-0']);
    assert.deepEqual(await t.locator('.rail .entry:not(.rail-ghost .entry)').allInnerTexts(), ['5-0', '6-0']);
    assert.ok(await running(page, 'leave-rail'));
    // Halfway through, for the record.
    await page.evaluate(() => document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 450; }));
    await page.locator('.stream[data-key="t"]').screenshot({ path: join(shots, 'trim-midway.png') });
    await page.evaluate(() => document.getAnimations().forEach((a) => a.play()));
    // Undo animates too: the entries come back (no leaving), a fresh step has no ghosts.
    await page.click('button[aria-label="Undo the last step"]');
    assert.equal(await t.locator('.rail-ghost').count(), 0);
    await type(page, 'XADD t 7-0 f v7');
    assert.equal(await t.locator('.rail .entry.added').innerText(), '7-0');
    // Mid-way through an ack, for the record.
    await type(page, 'XACK jobs workers 4-0');
    await page.evaluate(() => document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 400; }));
    await page.locator('.stream[data-key="jobs"]').screenshot({ path: join(shots, 'ack-midway.png') });
    await page.evaluate(() => document.getAnimations().forEach((a) => a.play()));
    assert.deepEqual(await axe(page), []);
  });
});

test('with reduced motion nothing moves: no animation classes, no leaving cards', async () => {
  await withPage({ reducedMotion: 'reduce' }, async (page) => {
    await runAll(page, SCENARIO);
    const seen = [];
    for (const line of ['XREADGROUP GROUP workers bob COUNT 1 STREAMS jobs >', 'XCLAIM jobs workers bob 0 1-0', 'XACK jobs workers 3-0', 'XDEL jobs 2-0', ...NODES, 'XTRIM t MAXLEN 2']) {
      await type(page, line);
      seen.push(await page.locator(MOTION).count());
    }
    assert.deepEqual(seen, seen.map(() => 0));
    assert.equal(await page.evaluate(() => document.getAnimations().length), 0, 'claims do not slide, nothing moves');
    assert.deepEqual(await lane(page, 'bob').locator('.pel-card .id').allInnerTexts(), ['1-0', '4-0']);
  });
});

test('a collapsed block of a 100,000-entry stream opens a page at a time, by keyboard, and closes', async () => {
  const log = 'XGROUP CREATE big workers 0\nXREADGROUP GROUP workers alice COUNT 5 STREAMS big >';
  await withPage({ fragment: `fill=big%3A100000&log=${encodeURIComponent(log)}` }, async (page) => {
    const rail = page.locator('.stream[data-key="big"] .rail');
    const block = rail.locator('.block:not(.opened)').first();
    const fold = block.locator('.fold');
    assert.equal(await fold.getAttribute('aria-expanded'), 'false');
    const range = await fold.locator('.range').innerText();
    const [first, last] = range.split(' … ');
    const before = await rail.locator('.entry').count();
    assert.equal(await rail.locator(`.entry[data-id="${first}"]`).count(), 0, 'collapsed entries are not drawn');
    // Keyboard: focus the block's button, Enter opens it.
    await fold.focus();
    await page.keyboard.press('Enter');
    const opened = rail.locator('.block.opened');
    await opened.waitFor();
    const closer = opened.locator('.fold');
    assert.equal(await closer.getAttribute('aria-expanded'), 'true');
    // The focus is put back by the pictures' effect after the redraw, which may come after the
    // block is drawn: waited for, not raced.
    await page.waitForFunction(() => document.activeElement?.matches('.block.opened .fold'), null, { timeout: 5000 })
      .catch(() => {});
    assert.ok(await closer.evaluate((e) => e === document.activeElement), 'the button keeps the focus');
    const shown = await opened.locator('.entry').allInnerTexts();
    assert.equal(shown[0], first);
    assert.ok(shown.length > 0 && shown.length <= 300, `a page of entries, got ${shown.length}`);
    assert.equal(await rail.locator('.entry').count(), before + shown.length);
    // The rest of the block stays collapsed after the page, up to the same last id.
    const rest = await rail.locator('.block:not(.opened) .fold .range').first().innerText();
    assert.ok(rest.endsWith(last), `${rest} ends at ${last}`);
    // The fields show on focus, like any entry; a command keeps the block open.
    await type(page, 'XADD big * n x');
    assert.equal(await rail.locator('.block.opened .entry').count(), shown.length);
    await screenshot(page, 'big-stream-opened.png');
    assert.deepEqual(await axe(page), []);
    // Space on the button closes it again.
    const drawn = await rail.locator('.entry').count();
    await closer.focus();
    await page.keyboard.press('Space');
    assert.equal(await rail.locator('.block.opened').count(), 0);
    assert.equal(await rail.locator('.entry').count(), drawn - shown.length);
    assert.equal(await rail.locator('.block .fold').first().getAttribute('aria-expanded'), 'false');
    assert.ok(await rail.locator('.block .fold').first().evaluate((e) => e === document.activeElement));
  });
  // The blocks read well in the dark theme too.
  await withPage({ colorScheme: 'dark', fragment: `fill=big%3A5000&log=${encodeURIComponent(log)}` }, async (page) => {
    await page.click('.rail .block .fold');
    await page.locator('.rail .block.opened').waitFor();
    assert.deepEqual(await axe(page), []);
  });
});

test('the header picks the server: behaviour changes, a share link carries it, :profile works too', async () => {
  const claim = 'XREADGROUP GROUP g alice CLAIM 0 STREAMS s >';
  const setup = ['XADD s 1-0 f v', 'XGROUP CREATE s g 0'];
  let url;
  await withPage({}, async (page) => {
    const select = page.locator('.profile select');
    assert.equal(await select.inputValue(), 'redis-8.10', 'the console default');
    await runAll(page, setup);
    await type(page, claim);
    assert.match(await lastEntry(page), /1\) 1\) "s"/, 'CLAIM exists on 8.10');
    // A change starts a fresh session at once, without a dialog (an iframe may block one);
    // Undo brings back the session and the select.
    page.once('dialog', (d) => assert.fail(`asked: ${d.message()}`));
    await select.selectOption('redis-8.2');
    assert.equal(await page.locator('.status').innerText(), 'Server changed: a fresh session.');
    assert.equal(await page.locator('.position').innerText(), '0/0');
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    assert.equal(await select.inputValue(), 'redis-8.10');
    assert.equal(await page.locator('.position').innerText(), '3/3');
    await select.selectOption('redis-8.2');
    assert.equal(await lastEntry(page), 'alice> :profile redis-8.2\na fresh session answering as redis-8.2 (redis 8.2.3)');
    assert.equal(await page.locator('.position').innerText(), '0/0');
    assert.equal(await page.locator('.stream').count(), 0);
    await runAll(page, setup);
    await type(page, claim);
    assert.equal(await page.locator('.log .out.error').last().innerText(), '(error) ERR syntax error');
    await page.locator('header.top').screenshot({ path: join(shots, 'profile-select.png') });
    await page.click('button:has-text("Share")');
    url = await page.inputValue('#share-url');
    assert.match(url, /#profile=redis-8\.2&/);
  });
  await withPage({ fragment: url.split('#')[1] }, async (page) => {
    assert.equal(await page.locator('.profile select').inputValue(), 'redis-8.2');
    await type(page, ':profile');
    assert.equal(await lastEntry(page), 'alice> :profile\nredis-8.2');
    await type(page, claim);
    assert.equal(await page.locator('.log .out.error').last().innerText(), '(error) ERR syntax error');
    // Typed in the console, with no question asked; the select follows.
    await type(page, ':profile redis-7.4');
    assert.equal(await page.locator('.profile select').inputValue(), 'redis-7.4');
    await type(page, 'XACKDEL s g IDS 1 1-0');
    assert.match(await page.locator('.log .out.error').last().innerText(), /^\(error\) ERR unknown command 'XACKDEL'/);
    await type(page, ':profile redis-9');
    assert.match(await page.locator('.log .out.error').last().innerText(), /unknown profile 'redis-9'/);
    assert.equal(await page.locator('.profile select').inputValue(), 'redis-7.4');
  });
});

test('on a touch screen the palette composes a command by tapping and runs it', async () => {
  await withPage({ width: 390, height: 844, touch: true }, async (page) => {
    assert.ok(await page.evaluate(() => matchMedia('(pointer: coarse)').matches));
    await runAll(page, SCENARIO);
    const compose = page.locator('.compose');
    assert.ok(await compose.isVisible());
    assert.equal(await page.locator('.palette').count(), 0, 'no mouse templates');
    const tap = async (group, word) => {
      const chip = compose.getByRole('group', { name: group }).getByRole('button', { name: word, exact: true });
      await chip.tap();
    };
    const likely = () => compose.locator('.compose-kind.likely').getAttribute('aria-label');
    const line = () => page.inputValue('#console-input');
    await tap('Commands', 'XACK');
    assert.equal(await line(), 'XACK ');
    assert.equal(await likely(), 'Keys');
    assert.match(await compose.locator('.compose-hint').innerText(), /next:key group id/);
    await tap('Keys', 'jobs');
    assert.equal(await likely(), 'Groups');
    await tap('Groups', 'workers');
    assert.equal(await likely(), 'IDs');
    await tap('IDs', '3-0');
    assert.equal(await line(), 'XACK jobs workers 3-0 ');
    await page.locator('.prompt-line').evaluate((e) => e.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'phone-palette.png', { fullPage: false });
    assert.equal(await page.locator('.palette').count(), 0, 'still a touch screen');
    await compose.getByRole('button', { name: 'Run ⏎' }).tap();
    assert.match(await lastEntry(page), /^alice> XACK jobs workers 3-0\s*\n\(integer\) 1$/);
    assert.equal(await line(), '');
    assert.deepEqual(await lane(page, 'bob').locator('.pel-card .id').allInnerTexts(), []);
    // Options from the command's syntax, consumers from the snapshot; ⌫ takes a word back.
    await tap('Commands', 'XREADGROUP');
    await tap('Options', 'GROUP');
    await tap('Groups', 'workers');
    assert.equal(await likely(), 'Consumers');
    await tap('Consumers', 'bob');
    await compose.getByRole('button', { name: '⌫ word' }).tap();
    await tap('Consumers', 'alice');
    await tap('Options', 'STREAMS');
    await tap('Keys', 'jobs');
    await tap('IDs', '>');
    assert.equal(await line(), 'XREADGROUP GROUP workers alice STREAMS jobs > ');
    await compose.getByRole('button', { name: 'Run ⏎' }).tap();
    assert.match(await lastEntry(page), /1\) 1\) "jobs"\n   2\) 1\) 1\) "4-0"/);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= 390, `no sideways scrolling, got ${scrollWidth}`);
    assert.deepEqual(await axe(page), []);
  });
  // With a mouse, the palette offers templates instead.
  await withPage({}, async (page) => {
    assert.equal(await page.locator('.compose').count(), 0);
    await page.click('.palette button:has-text("XGROUP CREATE")');
    assert.equal(await page.inputValue('#console-input'), 'XGROUP CREATE jobs workers $ MKSTREAM');
  });
});
