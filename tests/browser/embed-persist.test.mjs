// Embedded widgets that keep their session (persist=local), and the frame's origin parameter:
// two iframes on one course page (different setups, and two identical ones) keep their own
// sessions across a reload; a page of another origin passing the same key sees none of them;
// tags without an id keep their own too; `origin=` given as a URL is the URL's origin, a bad
// one is a visible error; a full storage shows a notice once and keeps the last save.
// Needs dist/ (cargo xtask dist). Run: node --test tests/browser/embed-persist.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { serveDist, withBrowser, screenshot } from './harness.mjs';

let dist;
/** Pages of other origins (other ports of 127.0.0.1), by path. */
const pages = new Map();
const hosts = [];
before(async () => {
  dist = await serveDist();
  // Two course hosts: the loopback frame may not be framed by a routed (public) page.
  for (let i = 0; i < 2; i++) {
    const host = createServer((req, res) => {
      const html = pages.get(`${req.socket.localPort}${new URL(req.url, 'http://x').pathname}`);
      res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html ?? 'not found');
    });
    await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
    hosts.push(host);
  }
});
after(async () => {
  await dist.close();
  await Promise.all(hosts.map((h) => new Promise((ok) => h.close(ok))));
});

const originOf = (host) => `http://127.0.0.1:${host.address().port}`;

/** Serves `body` at `path` on `host`, with helpers to call a frame's methods and see its events. */
function serve(host, path, body) {
  pages.set(`${host.address().port}${path}`, `<!doctype html><title>course</title><link rel="icon" href="data:,">
<script>
  window.events = [];
  addEventListener('message', (e) => {
    const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === e.source);
    if (e.data && e.data.source === 'stream-lab') window.events.push({ frame: frame && frame.id, type: e.data.type, payload: e.data.payload });
  });
  let next = 1;
  window.call = (frame, method, args = []) => new Promise((ok) => {
    const id = next++;
    addEventListener('message', function answer(e) {
      if (e.data && e.data.type === 'result' && e.data.payload.id === id) { removeEventListener('message', answer); ok(e.data.payload); }
    });
    document.getElementById(frame).contentWindow.postMessage({ source: 'stream-lab', v: 1, type: 'call', payload: { id, method, args } }, '*');
  });
</script>
${body}`);
  return `${originOf(host)}${path}`;
}

/** An iframe of the widget with `query` (origin added unless given). */
function frame(id, query, origin) {
  const params = new URLSearchParams(query);
  if (origin && !params.has('origin')) params.set('origin', origin);
  return `<iframe id="${id}" style="width:600px;height:300px;border:0" src="${dist.url}embed.html?${params}"></iframe>`;
}

const ready = (page, id) => page.waitForFunction((f) => window.events.some((e) => e.frame === f && e.type === 'ready'), id);
const state = async (page, id) => (await page.evaluate((f) => window.call(f, 'getState'), id)).value;

test('iframes keep their own sessions on one page, and another origin sees none of them', { timeout: 120_000 }, async () => {
  const [course, other] = hosts;
  const origin = originOf(course);
  const labs = {
    a: 'layout=console&persist=local&setup=XADD a 1-0 f v',
    b: 'layout=console&persist=local&setup=XADD b 1-0 f v',
    // Two identical frames: the same options, told apart by their place in the page.
    c1: 'layout=console&persist=local&setup=XADD c 1-0 f v',
    c2: 'layout=console&persist=local&setup=XADD c 1-0 f v',
    keyed: 'layout=console&persist=local&key=lab',
  };
  const url = serve(course, '/two.html', Object.entries(labs).map(([id, q]) => frame(id, q, origin)).join('\n'));
  await withBrowser({}, async (page) => {
    await page.goto(url);
    for (const id of Object.keys(labs)) {
      await ready(page, id);
      const done = await page.evaluate((f) => window.call(f, 'run', [`SET only-${f} yes`]), id);
      assert.equal(done.value.reply, 'OK', id);
    }
    await page.reload();
    for (const id of Object.keys(labs)) {
      await ready(page, id);
      const token = await state(page, id);
      for (const other of Object.keys(labs)) {
        assert.equal(token.includes(`only-${other}`), other === id, `${id}'s session after a reload: ${token}`);
      }
    }
    await screenshot(page, 'embed-persist-two-frames.png');

    // A page of another origin (same site: the frames share one storage) frames a widget with
    // the course's key: its own origin's namespace is empty.
    const theirs = serve(other, '/attack.html', frame('f', 'layout=console&persist=local&key=lab', originOf(other)));
    await page.goto(theirs);
    await ready(page, 'f');
    assert.doesNotMatch(await state(page, 'f'), /only-keyed/);
    // Claiming the course's origin does not help: the frame sees the page it is in.
    const claim = serve(other, '/claim.html', frame('f', 'layout=console&persist=local&key=lab', origin));
    await page.goto(claim);
    const inFrame = () => page.frames().find((f) => f.url().includes('embed.html'));
    await inFrame().waitForFunction(() => document.getElementById('widget').shadowRoot.querySelector('.sl-error'));
    const error = await inFrame().evaluate(() => document.getElementById('widget').shadowRoot.querySelector('.sl-error').textContent);
    assert.match(error, new RegExp(`this frame was given origin=${origin}, but it is in a page of ${originOf(other)}`));
    assert.doesNotMatch(await inFrame().evaluate(() => document.getElementById('widget').shadowRoot.textContent), /only-keyed/);
  });
});

test('persist=local in a frame needs an origin; an origin given as a URL is its origin', { timeout: 120_000 }, async () => {
  const [course] = hosts;
  const origin = originOf(course);
  const url = serve(course, '/origins.html', [
    frame('slash', 'layout=console', `${origin}/`),
    frame('page', 'layout=console', `${origin}/some/page.html?x=1#y`),
    frame('bad', 'layout=console', 'course.example'),
    frame('none', 'layout=console&persist=local'),
  ].join('\n'));
  await withBrowser({}, async (page) => {
    await page.goto(url);
    // The review's `origin=https://x/`: events arrived but every call was dropped.
    for (const id of ['slash', 'page']) {
      await ready(page, id);
      assert.equal((await page.evaluate((f) => window.call(f, 'run', ['PING']), id)).value.reply, 'PONG', id);
    }
    const text = async (id) => {
      const src = await page.getAttribute(`#${id}`, 'src');
      const f = page.frames().find((fr) => fr.url() === src);
      await f.waitForFunction(() => document.getElementById('widget').shadowRoot.querySelector('.sl-error'));
      return f.evaluate(() => document.getElementById('widget').shadowRoot.querySelector('.sl-error').textContent);
    };
    assert.match(await text('bad'), /origin must be the embedding page's origin, such as https:\/\/course\.example, not "course\.example"/);
    assert.match(await text('none'), /persist=local needs origin=/);
  });
});

test('tags without an id keep their own sessions', { timeout: 120_000 }, async () => {
  const tag = (setup) => `<stream-lab layout="console" loading="eager" persist="local" setup="${setup}"></stream-lab>`;
  // A tag's module and wasm come from the widget's host: a page of another origin would need
  // CORS headers from it (README), which the test's dist server does not send, so the page is
  // one of dist's own (its storage is its own origin's anyway).
  await withBrowser({}, async (page) => {
    const local = `${dist.url}examples/tags-test.html`;
    await page.route(local, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><title>tags</title><script src="../embed.js"></script>
        ${tag('XADD a 1-0 f v')}${tag('XADD b 1-0 f v')}${tag('XADD c 1-0 f v')}${tag('XADD c 1-0 f v')}` }));
    await page.goto(local);
    const labs = () => page.evaluate(() => [...document.querySelectorAll('stream-lab')].map((w) => w.getState()));
    await page.waitForFunction(() => [...document.querySelectorAll('stream-lab')].every((w) => w.getState()));
    await page.evaluate(() => Promise.all([...document.querySelectorAll('stream-lab')].map((w, n) => w.run(`SET only-${n} yes`))));
    await page.reload();
    await page.waitForFunction(() => [...document.querySelectorAll('stream-lab')].every((w) => w.getState()));
    const tokens = await labs();
    tokens.forEach((token, n) => {
      for (let m = 0; m < tokens.length; m++) assert.equal(token.includes(`only-${m}`), m === n, `widget ${n}: ${token}`);
    });
  });
});

test('a full storage: the widget says once that work is not saved, and the last save stays', { timeout: 120_000 }, async () => {
  await withBrowser({}, async (page) => {
    const local = `${dist.url}examples/quota-test.html`;
    await page.route(local, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><title>quota</title><script src="../embed.js"></script>
        <stream-lab id="lab" layout="console" loading="eager" persist="local"></stream-lab>` }));
    await page.goto(local);
    await page.waitForFunction(() => document.getElementById('lab').getState());
    await page.evaluate(() => document.getElementById('lab').run('SET before yes'));
    const saved = await page.evaluate(() => localStorage.getItem('streamlab.embed.lab'));
    assert.match(saved, /before/);
    // Fill the storage to its quota (as the review's probe did): halving chunks until none fits.
    const filled = await page.evaluate(() => {
      let size = 1 << 20;
      let n = 0;
      while (size >= 1) {
        try { localStorage.setItem(`filler-${n}`, 'x'.repeat(size)); n++; } catch { size = Math.floor(size / 2); }
      }
      return n;
    });
    assert.ok(filled > 0);
    for (const line of ['SET after 1', 'SET after 2', 'SET after 3']) await page.evaluate((l) => document.getElementById('lab').run(l), line);
    const notices = await page.evaluate(() => [...document.getElementById('lab').shadowRoot.querySelectorAll('.sl-notice')].map((n) => n.textContent));
    assert.deepEqual(notices, ["Your work here is not being saved: this browser's storage for the site is full or turned off."]);
    assert.equal(await page.evaluate(() => localStorage.getItem('streamlab.embed.lab')), saved, 'the last save is kept');
    // The widget still works.
    assert.equal((await page.evaluate(() => document.getElementById('lab').run('GET after'))).reply, '"3"');
    await screenshot(page, 'embed-persist-quota.png');
  });
});

test('a saved widget whose last load never finished is offered, not replayed: load it again or start without it', { timeout: 120_000 }, async () => {
  await withBrowser({}, async (page) => {
    const local = `${dist.url}examples/stalled-test.html`;
    await page.route(local, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><title>stalled</title><script src="../embed.js"></script>
        <stream-lab id="lab" layout="console" loading="eager" persist="local"></stream-lab>` }));
    await page.goto(local);
    await page.waitForFunction(() => document.querySelector('#lab').getState());
    await page.evaluate(() => document.querySelector('#lab').run('XADD kept 1-0 f v'));
    await page.waitForFunction(() => localStorage.getItem('streamlab.embed.lab'));
    // What a tab that died while rebuilding this widget's save leaves behind.
    await page.evaluate(() => localStorage.setItem('streamlab.embed.lab loading', '1'));
    await page.reload();
    const panel = page.locator('#lab .sl-error');
    await panel.waitFor();
    assert.match(await panel.innerText(), /Your saved work here did not finish loading last time/);
    await screenshot(page, 'embed-stalled-save.png');
    await panel.locator('button:has-text("Load it again")').click();
    await page.waitForFunction(() => document.querySelector('#lab').getState());
    assert.equal((await page.evaluate(() => document.querySelector('#lab').run('XLEN kept'))).reply, '(integer) 1');
    assert.equal(await page.evaluate(() => localStorage.getItem('streamlab.embed.lab loading')), null, 'a load that finished clears the mark');

    await page.evaluate(() => localStorage.setItem('streamlab.embed.lab loading', '1'));
    await page.reload();
    await panel.waitFor();
    await panel.locator('button:has-text("Start without it")').click();
    await page.waitForFunction(() => document.querySelector('#lab').getState());
    assert.equal((await page.evaluate(() => document.querySelector('#lab').run('XLEN kept'))).reply, '(integer) 0');
  });
});

test('identical widgets made by script out of page order keep their own saves', { timeout: 120_000 }, async () => {
  await withBrowser({}, async (page) => {
    const local = `${dist.url}examples/create-order-test.html`;
    // The second box is made first: places count in page order once a widget first saves.
    await page.route(local, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><title>order</title><script src="../embed.js"></script>
        <div></div><div></div>
        <script>
          // No ids: the save names come from the widgets' options and places alone.
          const [one, two] = document.querySelectorAll('div');
          const options = { layout: 'console', loading: 'eager', persist: 'local' };
          window.labs = { two: StreamLab.create(two, options) };
          window.labs.one = StreamLab.create(one, options);
        </script>` }));
    await page.goto(local);
    await page.evaluate(() => Promise.all([labs.one.ready, labs.two.ready]));
    await page.evaluate(() => Promise.all([labs.one.run('SET who one'), labs.two.run('SET who two')]));
    await page.waitForFunction(() => Object.keys(localStorage).filter((k) => k.startsWith('streamlab.embed.')).length === 2);
    await page.reload();
    await page.evaluate(() => Promise.all([labs.one.ready, labs.two.ready]));
    const who = await page.evaluate(() => Promise.all([labs.one.run('GET who'), labs.two.run('GET who')]));
    assert.deepEqual(who.map((r) => r.reply), ['"one"', '"two"']);
  });
});
