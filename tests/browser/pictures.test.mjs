// The pictures explain themselves: what a learner reads off a group with acknowledged, pending
// and undelivered entries, in headless Chromium. Needs dist/ (cargo xtask dist).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, screenshot, withPage as withPageAt, runAll, axe, settle } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

const withPage = (options, body) => withPageAt(server.url, options, body);

/**
 * workers read 1-0..3-0 and acknowledged 2-0 (1-0 and 3-0 pending, 4-0 and 5-0 not yet
 * delivered: lag 2); analytics and billing sit on the neighbouring entries 1-0 and 2-0.
 */
const LINES = [
  'XGROUP CREATE jobs workers $ MKSTREAM',
  'XADD jobs 1-0 type email',
  'XADD jobs 2-0 type sms',
  'XADD jobs 3-0 type push',
  'XADD jobs 4-0 type email',
  'XADD jobs 5-0 type fax',
  'XREADGROUP GROUP workers alice COUNT 3 STREAMS jobs >',
  ':clock +1500',
  'XACK jobs workers 2-0',
  'XGROUP CREATE jobs analytics 1-0',
  'XGROUP CREATE jobs billing 2-0',
];

const entry = (page, id) => page.locator(`.rail button.entry[data-id="${id}"]`);

/** The boxes of every cursor label, and the node box each one is in. */
const cursorBoxes = (page) => page.locator('.rail .cursor').evaluateAll((labels) => labels.map((l) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
  return { text: l.textContent, box: box(l), node: box(l.closest('.node')) };
}));

const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('acknowledged, pending and not yet delivered look different and say so; the lag is a span', async () => {
  await withPage({}, async (page) => {
    // Only workers, first: its three states, one per entry.
    await runAll(page, LINES.slice(0, 9));
    await settle(page);
    const look = (id) => entry(page, id).evaluate((e) => {
      const s = getComputedStyle(e);
      return { cls: e.className, bg: s.backgroundColor, border: s.borderColor, label: e.getAttribute('aria-label') };
    });
    const [acked, pending, unread] = [await look('2-0'), await look('1-0'), await look('4-0')];
    assert.match(acked.cls, /\backed\b/);
    assert.match(pending.cls, /\bpending\b/);
    assert.match(unread.cls, /\bunread\b/);
    assert.equal(new Set([acked.bg, pending.bg, unread.bg]).size, 3, `three fills: ${acked.bg} ${pending.bg} ${unread.bg}`);
    assert.notEqual(unread.border, acked.border, 'not yet delivered has the cursor\'s border');
    assert.match(acked.label, /acknowledged by every group/);
    assert.match(pending.label, /pending in workers/);
    assert.match(unread.label, /still to be delivered to workers/);
    // The same words on hover, with the id's time.
    await entry(page, '4-0').hover();
    const tip = page.locator('.card-wrap:hover .tip');
    assert.ok(await tip.isVisible());
    assert.match(await tip.innerText(), /1970-01-01 00:00:00\.004 UTC: a small id, 4 ms after 1970/);
    assert.match(await tip.innerText(), /still to be delivered to workers/);

    // The lag as a labelled bracket from the cursor to the tail; the entries in it underlined.
    assert.equal(await page.locator('.group .lag-span').innerText(), '▲ 3-0 ⟶ tail 5-0: lag 2: not yet delivered');
    assert.deepEqual(await page.locator('.rail button.entry.unread').allInnerTexts(), ['4-0', '5-0']);
    assert.notEqual(await entry(page, '4-0').evaluate((e) => getComputedStyle(e).boxShadow), 'none', 'underlined');
    await screenshot(page, 'pictures-states-1400.png');

    // The legend explains the colours and every mark.
    const legend = page.locator('.legend');
    assert.match(await legend.locator('summary').innerText(), /acknowledged.*pending.*not yet delivered/s);
    await legend.locator('summary').click();
    const text = await legend.innerText();
    for (const words of [/×N deliveries/, /idle time since the last one/, /tombstone/, /dashed: pending, but its entry was deleted/, /cursor, under its last-delivered-id/]) {
      assert.match(text, words);
    }
    assert.deepEqual(await axe(page), []);
  });
});

test('a nil lag is drawn as unknown, a lag of 0 as caught up', async () => {
  await withPage({}, async (page) => {
    await runAll(page, [...LINES.slice(0, 7), 'XDEL jobs 4-0', 'XGROUP CREATE jobs late 0', 'XREADGROUP GROUP workers alice STREAMS jobs >']);
    const span = (group) => page.locator('.group', { has: page.locator('h4', { hasText: new RegExp(`group ${group}$`) }) }).locator('.lag-span');
    assert.match(await span('late').getAttribute('class'), /\bnil\b/);
    assert.match(await span('late').innerText(), /lag nil: unknown, Redis cannot count it/);
    assert.match(await span('workers').innerText(), /lag 0: caught up/);
  });
});

test('PEL cards: described on focus and hover, arrows move between them, and they light their entry', async () => {
  await withPage({}, async (page) => {
    await runAll(page, LINES.slice(0, 9));
    const cards = page.locator('.lane .pel-card');
    assert.deepEqual(await cards.evaluateAll((c) => c.map((e) => e.tabIndex)), [0, -1], 'one tab stop per lane');
    await cards.first().focus();
    assert.match(await cards.first().getAttribute('aria-label'),
      /^1-0 \(1970-01-01 00:00:00\.001 UTC: a small id.*\): pending for alice, delivered ×1, idle 1\.5 s since its last delivery$/);
    // The description shows as a tooltip from the same words.
    const shown = await cards.first().evaluate((e) => getComputedStyle(e, '::after').content);
    assert.match(shown, /pending for alice/);
    assert.match(await entry(page, '1-0').getAttribute('class'), /\blinked\b/, 'focus lights the entry on the rail');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.id), '3-0');
    assert.match(await entry(page, '3-0').getAttribute('class'), /\blinked\b/);
    assert.doesNotMatch(await entry(page, '1-0').getAttribute('class'), /\blinked\b/);
    await screenshot(page, 'pictures-pel-focus-1400.png', { fullPage: false });
    // Hover does the same, and leaving the card for something else puts the light out.
    await cards.first().hover();
    assert.match(await entry(page, '1-0').getAttribute('class'), /\blinked\b/);
    await page.locator('.stream h3').hover();
    assert.equal(await page.locator('.rail .entry.linked').count(), 0);
  });
});

test('cursor labels of groups on neighbouring entries never overlap and stay in their node', async () => {
  for (const width of [1400, 1024, 390]) {
    await withPage({ width, height: 900 }, async (page) => {
      await runAll(page, [...LINES, 'XGROUP CREATE jobs a-group-with-a-long-name 3-0']);
      const boxes = await cursorBoxes(page);
      assert.deepEqual(boxes.map((b) => b.text).sort(), ['▲ a-group-with-a-long-name', '▲ analytics', '▲ billing', '▲ workers']);
      for (const [i, a] of boxes.entries()) {
        assert.ok(a.box.left >= a.node.left && a.box.right <= a.node.right && a.box.bottom <= a.node.bottom, `${a.text} inside its node at ${width} px`);
        for (const b of boxes.slice(i + 1)) assert.ok(!overlap(a.box, b.box), `${a.text} and ${b.text} overlap at ${width} px`);
      }
      if (width === 390) {
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(scrollWidth <= 390, `no sideways scrolling, got ${scrollWidth}`);
      }
      await page.locator('.stream').first().scrollIntoViewIfNeeded();
      await screenshot(page, `pictures-cursors-${width}.png`);
      assert.deepEqual(await axe(page), []);
    });
  }
});

test('clicking an entry, or Enter on it or on a PEL card, shows who holds it in each group', async () => {
  await withPage({}, async (page) => {
    await runAll(page, LINES);
    const holders = page.locator('.stream .holders');
    assert.ok(await holders.isHidden());
    await entry(page, '3-0').click();
    const said = await holders.innerText();
    assert.match(said, /^Entry 3-0, 1970-01-01 00:00:00\.003 UTC/);
    assert.match(said, /analytics: not yet delivered: after its cursor 1-0/);
    assert.match(said, /billing: not yet delivered: after its cursor 2-0/);
    assert.match(said, /workers: pending for alice, delivered ×1, idle 1\.5 s, last delivered at 2023-11-14 22:13:20\.000 UTC/);
    assert.match(said, /Redis keeps a pending entry's delivery count and last delivery, not each one/);
    assert.equal(await holders.getAttribute('aria-live'), 'polite');
    await page.mouse.move(0, 0);
    await screenshot(page, 'pictures-holders-1400.png');
    // Clicking it again closes it; Enter on an entry opens it.
    await entry(page, '3-0').click();
    assert.ok(await holders.isHidden());
    await entry(page, '2-0').focus();
    await page.keyboard.press('Enter');
    assert.match(await holders.innerText(), /workers: acknowledged \(or read with NOACK, or skipped\): behind its cursor 3-0, not pending/);
    assert.match(await holders.innerText(), /analytics: not yet delivered/);
    assert.match(await holders.innerText(), /billing: acknowledged/);
    // Enter on a PEL card opens its entry's holders.
    await page.locator('.lane .pel-card').first().focus();
    await page.keyboard.press('Enter');
    assert.match(await holders.innerText(), /^Entry 1-0/);
    await holders.locator('button', { hasText: 'Close' }).click();
    assert.ok(await holders.isHidden());
    assert.deepEqual(await axe(page), []);
  });
});

test('a 700-entry PEL keeps its consumer name beside its first cards; ids never break', async () => {
  await withPage({ width: 1400, height: 900 }, async (page) => {
    await runAll(page, ['XGROUP CREATE big g $ MKSTREAM', ':fill big 700', 'XREADGROUP GROUP g alice STREAMS big >']);
    await settle(page);
    const lane = page.locator('.lane').first();
    const [name, card] = [await lane.locator('.who .name').boundingBox(), await lane.locator('.pel-card').first().boundingBox()];
    assert.ok(Math.abs(name.y - card.y) < 16, `the name (y ${name.y}) sits by the first card (y ${card.y})`);
    // No PEL card's id is broken over two lines.
    const broken = await page.locator('.pel-card .id').evaluateAll((ids) => ids.filter((e) => e.getClientRects().length > 1 || e.scrollWidth > e.clientWidth + 1).length);
    assert.equal(broken, 0);
    assert.match(await lane.locator('.pel .more').innerText(), /\+500 more/);
  });
});

test('in the Show goal side-by-side no id breaks over two lines', async () => {
  await withPage({ width: 1400, height: 900, random: 0 }, async (page) => {
    await page.getByRole('button', { name: 'Lessons', exact: true }).click();
    await page.locator('[data-lesson="setid"] .lesson-open').click();
    await page.waitForSelector('.lesson .task');
    // A lesson opens with its goal shown.
    assert.equal(await page.getByRole('button', { name: 'Show goal' }).getAttribute('aria-pressed'), 'true');
    await page.waitForSelector('.compare .goal .pel-card');
    // The lines each id's text is laid out on, by the tops of its boxes.
    const broken = await page.locator('.compare .pel-card .id, .compare .group-facts code, .compare .rail .entry, .compare .meta dd')
      .evaluateAll((ids) => ids.filter((e) => {
        const range = document.createRange();
        range.selectNodeContents(e);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
      }).map((e) => e.textContent));
    assert.deepEqual(broken, []);
    assert.ok(await page.locator('.compare .pel-card .id').count() >= 2, 'PEL cards on both sides');
    await page.locator('.compare').scrollIntoViewIfNeeded();
    await screenshot(page, 'pictures-goal-1400.png', { fullPage: false });
  });
});
