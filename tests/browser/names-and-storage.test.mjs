// The playground with what a careless or hostile learner gives it: a 10 KB `:as` connection
// name (and consumer name) must not widen the page or push the console under the state pane,
// at desktop, 1024 px and phone widths, with each name in full on hover; a local storage full
// to its quota shows one notice that work is not saved, keeps the last save and keeps working.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/names-and-storage.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, withPage, type, screenshot } from './harness.mjs';

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server.close(); });

const NAME = 'n'.repeat(10 * 1024);
const CONSUMER = 'c'.repeat(10 * 1024);

for (const [label, width] of [['desktop', 1400], ['1024 px', 1024], ['phone', 390]]) {
  test(`a 10 KB connection name keeps the layout (${label})`, async () => {
    await withPage(server.url, { width, height: 900 }, async (page) => {
      for (const line of [`:as ${NAME}`, 'XADD s 1-0 f v', 'XGROUP CREATE s g 0', `XREADGROUP GROUP g ${CONSUMER} STREAMS s >`]) {
        await type(page, line);
      }
      await page.locator('.pel-card').first().waitFor();
      const layout = await page.evaluate(() => {
        const box = (selector) => document.querySelector(selector).getBoundingClientRect().toJSON();
        return {
          viewport: document.documentElement.clientWidth,
          scroll: document.documentElement.scrollWidth,
          console: box('.console'),
          state: box('.right'),
          timeline: box('.timeline'),
        };
      });
      assert.ok(layout.scroll <= layout.viewport, `the page scrolls sideways: ${layout.scroll} > ${layout.viewport}`);
      for (const part of ['console', 'state', 'timeline']) {
        assert.ok(layout[part].right <= layout.viewport + 0.5, `${part} ends at ${layout[part].right}, past ${layout.viewport}`);
      }
      // Side by side or stacked, the console and the state pane do not overlap.
      const { console: c, state: s } = layout;
      const apart = c.right <= s.left + 0.5 || c.bottom <= s.top + 0.5 || s.bottom <= c.top + 0.5;
      assert.ok(apart, `the console ${JSON.stringify(c)} overlaps the state pane ${JSON.stringify(s)}`);
      // Each place the name shows has it in full on hover.
      const titles = await page.evaluate((name) => ({
        tab: !!document.querySelector(`.tab .name[title="${name}"]`),
        prompt: document.querySelector('.prompt-line .prompt').title === name,
        echo: [...document.querySelectorAll('.log .in .name')].some((n) => n.title === name),
        timeline: [...document.querySelectorAll('.timeline .name')].some((n) => n.title === name),
      }), NAME);
      assert.deepEqual(titles, { tab: true, prompt: true, echo: true, timeline: true });
      assert.equal(await page.locator('.lane .name').first().getAttribute('title'), CONSUMER);
      await screenshot(page, `long-name-${width}.png`, { fullPage: false });
    });
  });
}

test('a full local storage: one notice, the last save kept, the console still working', async () => {
  await withPage(server.url, {}, async (page) => {
    await type(page, 'XADD kept 1-0 f v');
    await page.waitForFunction(() => (localStorage.getItem('streamlab.session') || '').includes('kept'));
    const saved = await page.evaluate(() => localStorage.getItem('streamlab.session'));
    // Fill the storage to its quota, as the review's probe did: halving chunks until none fits.
    await page.evaluate(() => {
      let size = 1 << 20;
      let n = 0;
      while (size >= 1) {
        try { localStorage.setItem(`filler-${n}`, 'x'.repeat(size)); n++; } catch { size = Math.floor(size / 2); }
      }
    });
    const NOTICE = "Your work is not being saved on this machine: the browser's storage for this site is full or turned off. Share or Export to keep it.";
    await type(page, 'XADD lost 1-0 f v');
    await page.locator('.status', { hasText: NOTICE }).waitFor();
    await screenshot(page, 'storage-full-notice.png', { fullPage: false });
    // Once: another notice replaces it, and later failed saves do not bring it back.
    await page.getByRole('button', { name: 'Share' }).click();
    await page.locator('.status', { hasText: 'Share link copied' }).waitFor();
    for (const line of ['XADD lost 2-0 f v', 'XLEN lost']) await type(page, line);
    await page.locator('.log .log-item').last().getByText('(integer) 2').waitFor();
    assert.doesNotMatch(await page.locator('.status').innerText(), /not being saved/);
    assert.equal(await page.evaluate(() => localStorage.getItem('streamlab.session')), saved, 'the last save is kept');
  });
});
