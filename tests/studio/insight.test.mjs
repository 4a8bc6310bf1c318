// insight.js: the zip reader and writer, importing a Redis Insight tutorial into a lesson
// draft, exporting a lesson as a tutorial, and the round trip between the two.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { parse } from 'smol-toml';
import { crc32, exportTutorial, importTutorial, readZip, writeZip } from '../../web/assets/studio/insight.js';

const FIXTURE = new URL('./fixtures/streams-tutorial/', import.meta.url).pathname;
const decode = (bytes) => new TextDecoder().decode(bytes);
const has = (tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).error === undefined;
// Hostile input must fail fast: a hang would show as this timeout.
const quick = { timeout: 10000 };

function fixtureFiles(dir = FIXTURE, prefix = '') {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? fixtureFiles(path, prefix) : [{ name: prefix + relative(FIXTURE, path), data: readFileSync(path) }];
    });
}

function withTemp(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'streamlab-studio-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Offsets into a zip this module wrote: its first central directory header and a field in it.
function centralAt(zip, index = 0) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let at = view.getUint32(zip.length - 22 + 16, true);
  for (let i = 0; i < index; i++) at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  return at;
}
const patch32 = (zip, at, value) => new DataView(zip.buffer, zip.byteOffset).setUint32(at, value, true);
const patch16 = (zip, at, value) => new DataView(zip.buffer, zip.byteOffset).setUint16(at, value, true);

// ------------------------------------------------------------------------------ zip

test('crc32 agrees with zlib', () => {
  const data = new Uint8Array(100000).map((_, i) => (i * 7919) & 0xff);
  for (const bytes of [new Uint8Array(0), new TextEncoder().encode('123456789'), data]) assert.equal(crc32(bytes), zlibCrc32(bytes));
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
});

test('writeZip output reads back here, in unzip and in Python', async () => {
  const files = [
    { name: 'manifest.json', data: '{"label": "x"}' },
    { name: 'pages/long.md', data: 'XADD stream * field value\n'.repeat(500) },
    { name: 'pages/ünïcode name.md', data: 'é 🚀' },
    { name: 'empty.txt', data: new Uint8Array(0) },
    { name: 'random.bin', data: new Uint8Array(4096).map((_, i) => (i * 2654435761) >>> 24) },
  ];
  for (const deflate of [true, false]) {
    const zip = await writeZip(files, { deflate });
    const read = readZip(zip);
    assert.deepEqual(read.names, files.map((f) => f.name));
    for (const f of files) {
      const want = typeof f.data === 'string' ? new TextEncoder().encode(f.data) : f.data;
      assert.deepEqual(await read.read(f.name), want);
    }
    withTemp((dir) => {
      const path = join(dir, 'out.zip');
      writeFileSync(path, zip);
      if (has('unzip')) {
        const out = execFileSync('unzip', ['-t', path], { encoding: 'utf8' });
        assert.match(out, /No errors detected/);
      }
      if (has('python3')) {
        const script = 'import sys, zipfile, json\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(json.dumps([[i.filename, i.file_size, i.compress_type] for i in z.infolist()]))';
        const listing = JSON.parse(execFileSync('python3', ['-c', script, path], { encoding: 'utf8' }));
        assert.deepEqual(listing.map(([name]) => name), files.map((f) => f.name));
        assert.equal(listing[1][2], deflate ? 8 : 0, 'the repetitive page is deflated when asked');
      }
    });
  }
  assert.deepEqual(await writeZip(files), await writeZip(files), 'the same files give the same bytes');
});

test('readZip reads a zip made by the zip tool', { skip: !has('zip') && 'no zip tool' }, async () => {
  const zipped = withTemp((dir) => {
    execFileSync('zip', ['-q', '-r', join(dir, 'fixture.zip'), '.'], { cwd: FIXTURE });
    return new Uint8Array(readFileSync(join(dir, 'fixture.zip')));
  });
  const read = readZip(zipped);
  assert.ok(read.names.includes('basics/adding.md'));
  assert.equal(decode(await read.read('groups.md')), readFileSync(join(FIXTURE, 'groups.md'), 'utf8'));
  const { toml } = await importTutorial(zipped);
  assert.equal(parse(toml).title, 'First steps with Redis Streams');
});

test('writeZip refuses names a reader would refuse', async () => {
  await assert.rejects(writeZip([{ name: '../up.md', data: '' }]), /climbs out/);
  await assert.rejects(writeZip([{ name: '/abs.md', data: '' }]), /absolute path/);
  await assert.rejects(writeZip([{ name: 'a.md', data: '' }, { name: 'a.md', data: '' }]), /given twice/);
  await assert.rejects(writeZip([{ data: '' }]), /needs a name/);
});

// ------------------------------------------------------------------------- import

test('importTutorial turns the fixture tutorial into a draft that parses', async () => {
  const { toml, notes } = await importTutorial(await writeZip(fixtureFiles()));
  const draft = parse(toml);
  assert.equal(draft.id, 'streams-first-steps');
  assert.equal(draft.version, 1);
  assert.equal(draft.title, 'First steps with Redis Streams');
  assert.match(draft.summary, /^Append events to a stream/);
  assert.equal(draft.profile, 'redis-8.2');
  assert.ok(Number.isInteger(draft.minutes) && draft.minutes >= 1);
  assert.deepEqual(draft.setup, []);

  const steps = draft.intro.map((s) => ({ text: s.text, demo: s.demo ?? [] }));
  assert.deepEqual(
    steps.map((s) => s.text.split('\n')[0]),
    ['## Adding events', '## Ids that go backwards', '# Reading a range', '## Consumer groups'],
  );
  assert.deepEqual(steps[0].demo, [
    'XADD signups * user ada plan free',
    'XADD signups * user bo plan pro',
    'XADD audit 1-0 action login who "ada lovelace"',
    'XADD audit 2-0 action logout who ada',
    'XADD audit * action ping',
    'XADD audit * action ping',
  ]);
  assert.deepEqual(steps[1].demo, ['XADD audit 1-5 action late']);
  assert.deepEqual(steps[2].demo, ['XRANGE audit - +', 'XRANGE audit - + COUNT 1']);
  assert.deepEqual(steps[3].demo, [
    'XGROUP CREATE signups mailers 0',
    'XREADGROUP GROUP mailers w1 COUNT 1 STREAMS signups >',
    'XREADGROUP GROUP mailers w2 COUNT 1 STREAMS signups >',
    'XADD notes * text "see http://example.com/a"',
  ]);

  const all = steps.map((s) => s.text).join('\n');
  assert.doesNotMatch(all, /<\/?[a-z]+[ />]/i, 'no raw HTML is left');
  assert.doesNotMatch(all, /!\[|append\.png/, 'no image is left');
  assert.doesNotMatch(all, /```redis/, 'runnable blocks moved to demo');
  assert.doesNotMatch(all, /redisinsight:/);
  assert.match(all, /\[the XRANGE page\]\(https:\/\/redis\.io\/docs\/latest\/commands\/xrange\/\)/, 'web links stay');
  assert.match(all, /See also\nthe Browser and/, 'an app link keeps its text');
  assert.match(all, /```bash\nredis-cli XRANGE audit - \+\n```/, 'other code stays');
  assert.match(all, /```\nXRANGE key start end \[COUNT count\]\n```/, 'a non-runnable block stays as plain code');
  assert.match(all, /Why both ends are included\n\nSo that the last id/, 'text inside removed HTML stays');
  assert.match(steps[0].text, /^## Adding events\n\nA stream is a log that only grows at its end\./);

  const said = notes.join('\n');
  for (const expected of [
    /"A button node"\) is of type "code-button"/,
    /Adding events.*removed 1 image\(s\): \.\.\/_images\/append\.png/,
    /Adding events.*removed raw HTML \(<br>\)/,
    /Reading a range.*removed raw HTML \(<br>, <details>, <summary>\)/,
    /Reading a range.*links to redisinsight:browser/,
    /Reading a range.*non-runnable block "Syntax only"/,
    /Consumer groups.*bulk-upload block "Load many sign-ups"/,
    /ignored the blocks' run options \[run_confirmation=true\]/,
    /dropped the Run buttons' labels: "Append two sign-ups", "Append with explicit ids"/,
    /minutes = \d+ is an estimate/,
    /no tasks and no hidden variant/,
  ]) {
    assert.match(said, expected);
  }
});

test('importTutorial works inside a single top folder and skips __MACOSX', async () => {
  const files = fixtureFiles().map((f) => ({ ...f, name: `My tutorial/${f.name}` }));
  files.push({ name: '__MACOSX/My tutorial/._groups.md', data: new Uint8Array([0, 5, 22, 7, 0xff]) });
  const nested = await importTutorial(await writeZip(files));
  const flat = await importTutorial(await writeZip(fixtureFiles()));
  assert.equal(nested.toml, flat.toml);
});

test('importTutorial without manifest.json takes the Markdown pages in zip order', async () => {
  const files = fixtureFiles().filter((f) => f.name !== 'manifest.json');
  files.push({ name: '_drafts/hidden.md', data: '# Hidden\n' });
  const { toml, notes } = await importTutorial(await writeZip(files));
  const draft = parse(toml);
  assert.deepEqual(
    draft.intro.map((s) => s.text.split('\n')[0]),
    ['## adding', '## Ids that go backwards', '# Reading a range', '## groups'],
  );
  assert.equal(draft.title, 'adding');
  assert.equal(draft.id, 'adding');
  assert.match(notes.join('\n'), /no manifest\.json/);
  assert.match(notes.join('\n'), /the title "adding" is a guess/);
});

test('block commands follow the Workbench: comments, continuations, repeats', async () => {
  const page = [
    'Costs ${price} in a template.',
    '',
    '```redis-cli',
    "XADD s * url 'http://a//b' note \"x // y\" // a comment",
    '  // a comment line inside a command',
    '   field2 value2',
    '',
    '0 XLEN s',
    '3 XLEN s',
    '1001 XLEN big',
    '// only a comment',
    '```',
  ].join('\n');
  const manifest = JSON.stringify({ id: 'Not An Id', label: 'Blocks', children: [{ type: 'internal-link', id: 'p', label: 'Page', args: { path: 'p.md' } }] });
  const { toml, notes } = await importTutorial(await writeZip([{ name: 'manifest.json', data: manifest }, { name: 'p.md', data: page }]));
  const draft = parse(toml);
  assert.equal(draft.id, 'blocks', 'a root id that is no lesson id gives way to the label');
  assert.deepEqual(draft.intro[0].demo, [
    "XADD s * url 'http://a//b' note \"x // y\" field2 value2",
    '0 XLEN s',
    'XLEN s',
    'XLEN s',
    'XLEN s',
    'XLEN big',
  ]);
  assert.match(notes.join('\n'), /"1001 XLEN big" repeats 1001 times; the draft runs it once/);
  assert.match(notes.join('\n'), /the summary, intro step 1: `\$\{` is read as a parameter expression/);
  assert.match(notes.join('\n'), /the summary is the first paragraph/);
  assert.equal(draft.summary, 'Costs ${price} in a template.');
});

test('readZip keeps to its limit on all reads together', async () => {
  const zip = await writeZip([{ name: 'a.md', data: 'x'.repeat(600) }]);
  const read = readZip(zip, { archiveBytes: 1 << 20, entries: 10, entryBytes: 1000, totalBytes: 1000 });
  assert.equal((await read.read('a.md')).length, 600);
  await assert.rejects(read.read('a.md'), /past 1000 bytes in all/);
  await assert.rejects(read.read('b.md'), /no entry "b\.md"/);
});

test('importTutorial refuses hostile zips with a clear Error', quick, async () => {
  const good = await writeZip(fixtureFiles(), { deflate: false });
  const deflated = await writeZip(fixtureFiles());
  const manifestIndex = fixtureFiles().findIndex((f) => f.name === 'manifest.json');
  const copy = (zip) => new Uint8Array(zip);
  const cases = [];
  cases.push(['empty input', new Uint8Array(0), /no end-of-central-directory/]);
  cases.push(['random bytes', new Uint8Array(5000).map((_, i) => (i * 31) & 0xff), /no end-of-central-directory/]);
  cases.push(['truncated at the end', good.subarray(0, good.length - 30), /no end-of-central-directory/]);
  const head = await writeZip([{ name: 'manifest.json', data: '{"label":"x","children":[]}' }]);
  cases.push(['truncated in the middle', concat(head.subarray(0, 20), head.subarray(head.length - 22)), /central directory lies outside the file/]);
  const cut = copy(deflated);
  const packedAt = centralAt(cut, manifestIndex) + 20;
  patch32(cut, packedAt, new DataView(cut.buffer).getUint32(packedAt, true) >> 1);
  cases.push(['a truncated deflate stream', cut, /"manifest.json" is damaged: its deflate data does not inflate/]);

  const dotdot = await writeZip([{ name: 'aa/evil.md', data: 'x' }, ...fixtureFiles()]);
  const name = new TextEncoder().encode('aa/evil.md');
  for (let at = 0; at + name.length <= dotdot.length; at++) {
    if (name.every((b, i) => dotdot[at + i] === b)) dotdot.set(new TextEncoder().encode('..'), at);
  }
  cases.push(['a ../ path', dotdot, /climbs out of the archive/]);

  const huge = copy(good);
  patch32(huge, centralAt(huge, manifestIndex) + 24, 0x7fffffff);
  cases.push(['a huge declared size', huge, /declares 2147483647 bytes; at most \d+ are read/]);

  const small = copy(deflated);
  const pageIndex = fixtureFiles().findIndex((f) => f.name === 'basics/adding.md');
  patch32(small, centralAt(small, pageIndex) + 24, 10);
  cases.push(['a size smaller than the data', small, /inflates to more than its declared 10 bytes/]);

  const encrypted = copy(good);
  patch16(encrypted, centralAt(encrypted, manifestIndex) + 8, 0x0801);
  cases.push(['an encrypted entry', encrypted, /"manifest.json" is encrypted/]);

  const method = copy(good);
  patch16(method, centralAt(method, 0) + 10, 12);
  cases.push(['bzip2 compression', method, /compression method 12/]);

  const zip64 = copy(good);
  patch16(zip64, zip64.length - 22 + 10, 0xffff);
  patch16(zip64, zip64.length - 22 + 8, 0xffff);
  cases.push(['zip64 markers', zip64, /zip64/]);

  const corrupt = copy(good);
  const manifestText = new TextEncoder().encode('"First steps');
  for (let at = 0; at < corrupt.length; at++) {
    if (manifestText.every((b, i) => corrupt[at + i] === b)) {
      corrupt[at + 1] ^= 0x20;
      break;
    }
  }
  cases.push(['a flipped byte', corrupt, /CRC-32 does not match/]);

  const badDeflate = copy(deflated);
  const local = new DataView(badDeflate.buffer).getUint32(centralAt(badDeflate, pageIndex) + 42, true);
  const dataAt = local + 30 + new DataView(badDeflate.buffer).getUint16(local + 26, true);
  badDeflate.fill(0xff, dataAt, dataAt + 8);
  cases.push(['damaged deflate data', badDeflate, /adding\.md" is damaged/]);

  const files = fixtureFiles();
  cases.push(['no manifest and no Markdown', await writeZip([{ name: 'notes.txt', data: 'hello' }]), /no manifest\.json and no Markdown pages/]);
  cases.push(['a manifest pointing at a missing file', await writeZip(files.filter((f) => f.name !== 'groups.md')), /children\[1\] \("Consumer groups"\) points at \.\/groups\.md, which is not in the zip/]);
  cases.push(['a manifest pointing outside', await writeZip(replace(files, 'manifest.json', manifestWith('../secret.md'))), /points outside the tutorial: \.\.\/secret\.md/]);
  cases.push(['a page without a path', await writeZip(replace(files, 'manifest.json', '{"label":"x","children":[{"type":"internal-link","id":"a","label":"A"}]}')), /the page children\[0\] \("A"\) has no args\.path/]);
  cases.push(['a manifest that is not JSON', await writeZip(replace(files, 'manifest.json', '{"label": "x",')), /manifest\.json is not valid JSON/]);
  cases.push(['a manifest without children', await writeZip(replace(files, 'manifest.json', '{"label": "x"}')), /has no "children" list/]);
  cases.push(['a manifest that is a list', await writeZip(replace(files, 'manifest.json', '[]')), /must hold one object/]);
  cases.push(['a manifest nested too deep', await writeZip(replace(files, 'manifest.json', deepManifest(40))), /deeper than 32 levels/]);
  cases.push(['non-UTF-8 Markdown', await writeZip(replace(files, 'groups.md', new Uint8Array([0x41, 0xff, 0xfe, 0x42]))), /groups\.md is not UTF-8 text/]);
  cases.push(['a non-UTF-8 entry name', patchedName(await writeZip([{ name: 'ab.md', data: 'x' }])), /name that is not UTF-8/]);

  for (const [what, zip, message] of cases) {
    await assert.rejects(importTutorial(zip), (e) => e instanceof Error && message.test(e.message), what);
  }
  await assert.rejects(importTutorial('not bytes'), TypeError);
  assert.throws(() => readZip(good, { archiveBytes: 1 << 30, entries: 3, entryBytes: 1 << 20 }), /the zip has \d+ entries; at most 3 are read/);
});

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}
function replace(files, name, data) {
  return files.map((f) => (f.name === name ? { name, data } : f));
}
function manifestWith(path) {
  return JSON.stringify({ label: 'x', children: [{ type: 'internal-link', id: 'a', label: 'A', args: { path } }] });
}
function deepManifest(depth) {
  let node = { type: 'internal-link', id: 'leaf', label: 'Leaf', args: { path: 'groups.md' } };
  for (let i = 0; i < depth; i++) node = { type: 'group', id: `g${i}`, label: `G${i}`, children: [node] };
  return JSON.stringify({ label: 'deep', children: [node] });
}
function patchedName(zip) {
  // "ab.md" becomes 0xC3 0x28 ".md", an invalid UTF-8 sequence, in both headers.
  for (let at = 0; at + 5 <= zip.length; at++) {
    if (decode(zip.subarray(at, at + 5)) === 'ab.md') zip.set([0xc3, 0x28], at);
  }
  return zip;
}

// ------------------------------------------------------------------------- export

// A lesson as the studio hands it over: rendered on variant 0, in our own words.
const LESSON = {
  id: 'ack-demo',
  title: 'XACK does not delete',
  summary: 'An acknowledgement removes the receipt; the entry stays in the stream.',
  setup: [
    'XADD mail 1-0 to ada subject welcome',
    'XADD mail 2-0 to bo subject invoice',
    'XGROUP CREATE mail senders 0',
    's1> XREADGROUP GROUP senders s1 COUNT 2 STREAMS mail >',
    ':clock +60s',
    'XADD links * url http://example.com/a?b=c',
  ],
  intro: [
    { text: 'A group keeps a **receipt** for each entry it hands out.\n\nXACK removes receipts.', demo: ['XPENDING mail senders'] },
    { text: 'The stream keeps every entry: `XLEN mail` does not change.', demo: [] },
  ],
  tasks: [
    {
      kind: 'reach-state',
      title: 'Finish what was sent',
      prompt: '`s1` has sent the mail to **`ada`**. Record that.',
      setup: ['s2> XREADGROUP GROUP senders s2 STREAMS mail >'],
      hints: ['Which id holds the mail to `ada`?', 'Only the finished entry loses its receipt.'],
      solution: ['XACK mail senders 1-0', ':clock +1.5s', 's1> XPENDING mail senders'],
    },
    {
      kind: 'predict',
      title: 'Counting receipts',
      prompt: 'What does `XACK mail senders 1-0 9-0` print?',
      command: 'XACK mail senders 1-0 9-0',
      options: [
        { text: '(integer) 1', correct: true, why: 'Only 1-0 still had a receipt.' },
        { text: '(integer) 2', why: '9-0 was never handed out.' },
        { text: '(error) ERR no such id', why: 'Unknown ids are skipped without an error.' },
      ],
      explain: 'XACK counts the receipts it removed.',
    },
    {
      kind: 'choice',
      title: 'Zero pending',
      prompt: 'A group shows pending 0. What follows?',
      options: [
        { text: 'Nothing delivered waits for an acknowledgement.', correct: true, why: 'Pending counts receipts.' },
        { text: 'Every entry was processed.', correct: false, why: 'Entries after the position were never read.' },
        { text: 'The lag is 0 too.', why: 'Pending and lag are independent.' },
      ],
    },
    { kind: 'numeric', title: 'Lag after acknowledging', prompt: 'What lag does the group show?', explain: 'Acknowledging does not move the position: 4.' },
    { kind: 'order', title: 'A worker loop', prompt: 'Put the steps in order.', steps: ['Read new entries', 'Do the work', 'Acknowledge it', 'Claim what others left'], explain: 'Acknowledge only after the work.' },
  ],
};

async function exported(lesson = LESSON) {
  const zip = await exportTutorial(lesson);
  const read = readZip(zip);
  const files = {};
  for (const name of read.names) files[name] = decode(await read.read(name));
  return { zip, files, manifest: JSON.parse(files['manifest.json']) };
}

test('exportTutorial writes a manifest Redis Insight accepts', async () => {
  const { zip, files, manifest } = await exported();
  // What the upload validates (RootCustomTutorialManifest): id, type and label on every node.
  const check = (node) => {
    assert.ok(typeof node.id === 'string' && node.id !== '');
    assert.ok(['group', 'internal-link'].includes(node.type));
    assert.ok(typeof node.label === 'string' && node.label !== '');
    if ('summary' in node) assert.ok(typeof node.summary === 'string' && node.summary !== '');
    if (node.type === 'internal-link') assert.ok(files[node.args.path.replace(/^\//, '')] !== undefined, node.args.path);
    (node.children ?? []).forEach(check);
  };
  check(manifest);
  assert.equal(manifest.type, 'group');
  assert.equal(manifest.label, LESSON.title);
  assert.equal(manifest.description, LESSON.summary);
  assert.deepEqual(manifest.children.map((c) => c.label), [
    'Overview',
    'Introduction (1 of 2)',
    'Introduction (2 of 2)',
    'Task 1: Finish what was sent',
    'Task 2: Counting receipts',
    'Task 3: Zero pending',
    'Task 4: Lag after acknowledging',
    'Task 5: A worker loop',
  ]);
  assert.equal(new Set(manifest.children.map((c) => c.id)).size, manifest.children.length, 'page ids are unique');
  assert.deepEqual(await exportTutorial(LESSON), zip, 'one lesson always gives the same zip');
});

test('exportTutorial pages say what the Workbench cannot do', async () => {
  const { files } = await exported();
  const overview = files['overview.md'];
  assert.match(overview, /^An acknowledgement removes the receipt/);
  assert.match(overview, /```redis:\[run_confirmation=true\] Set up\nXADD mail 1-0 to ada subject welcome\nXADD mail 2-0 to bo subject invoice\nXGROUP CREATE mail senders 0\n```/);
  assert.match(overview, /Workbench sends everything over one connection[^]*```redis:\[run_confirmation=true\] Set up on connection s1\nXREADGROUP GROUP senders s1 COUNT 2 STREAMS mail >\n```/);
  assert.match(overview, /\*\*Wait 60 s here\.\*\*[^\n]*`:clock \+60s`/);
  assert.match(overview, /XADD links \* url "http:\/\/example\.com\/a\?b=c"/, 'a // is quoted so that it is no comment');

  const task1 = files['task-1.md'];
  assert.equal((task1.match(/one connection/g) ?? []).length, 1, 'the connection note once a page');
  assert.match(task1, /^`s1` has sent the mail/);
  assert.match(task1, /<details>\n\n<summary>Hint 1<\/summary>\n\nWhich id holds the mail to `ada`\?\n\n<\/details>/);
  assert.match(task1, /---\n\n## Solution\n\n```redis:\[run_confirmation=true\] Solution\nXACK mail senders 1-0\n```\n\n\*\*Wait 1\.5 s here\.\*\*/);
  assert.match(task1, /```redis:\[run_confirmation=true\] Solution on connection s1\nXPENDING mail senders\n```/);

  assert.match(files['task-2.md'], /- \*\*A\.\*\* \(integer\) 1\n- \*\*B\.\*\* \(integer\) 2/);
  assert.match(files['task-2.md'], /## Answer\n\nRun the command to see its reply:\n\n```redis Run it\nXACK mail senders 1-0 9-0\n```/);
  assert.match(files['task-2.md'], /- \*\*A\*\* \(right\): Only 1-0 still had a receipt\.\n- \*\*B\*\* \(wrong\)/);
  assert.match(files['task-2.md'], /XACK counts the receipts it removed\.\n$/);
  assert.doesNotMatch(files['task-3.md'], /Select all/);
  assert.match(files['task-4.md'], /## Answer\n\nAcknowledging does not move the position: 4\./);

  const order = files['task-5.md'];
  const shown = [...order.matchAll(/^- \*\*([A-D])\.\*\* (.*)$/gm)].map((m) => m[2]);
  assert.deepEqual([...shown].sort(), [...LESSON.tasks[4].steps].sort());
  assert.notDeepEqual(shown, LESSON.tasks[4].steps, 'the steps are not shown in the right order');
  const answer = [...order.matchAll(/^\d\. (.*) \(\*\*([A-D])\*\*\)$/gm)];
  assert.deepEqual(answer.map((m) => m[1]), LESSON.tasks[4].steps);
  for (const [, step, letter] of answer) assert.equal(shown['ABCD'.indexOf(letter)], step);

  for (const [name, page] of Object.entries(files)) {
    for (const [, label] of page.matchAll(/^`{3,}redis\S* (.*)$/gm)) assert.doesNotMatch(label, /["{}<>]/, `${name}: a label goes into a JSX attribute`);
  }
});

test('exportTutorial refuses what it cannot write', async () => {
  await assert.rejects(exportTutorial(null), TypeError);
  await assert.rejects(exportTutorial({ title: 'x' }), /lesson\.id "" is not lower-case/);
  await assert.rejects(exportTutorial({ id: 'Bad Id', title: 'x' }), /is not lower-case/);
  await assert.rejects(exportTutorial({ id: 'ok' }), /has no title/);
  await assert.rejects(exportTutorial({ id: 'ok', title: 'x', setup: 'XLEN s' }), /lesson\.setup must be an array/);
  await assert.rejects(exportTutorial({ id: 'ok', title: 'x', setup: ['XLEN s\nXLEN t'] }), /lesson\.setup\[0\] must be one line/);
  await assert.rejects(exportTutorial({ id: 'ok', title: 'x', tasks: [{ kind: 'choice', prompt: 5 }] }), /lesson\.tasks\[0\]\.prompt must be a string/);
  const minimal = await exported({ id: 'ok', title: 'Only a title' });
  assert.deepEqual(Object.keys(minimal.files), ['manifest.json', 'overview.md']);
  assert.equal(minimal.manifest.description, undefined, 'no empty description');
});

// ---------------------------------------------------------------------- round trip

test('export then import keeps titles, texts and lines', async () => {
  const { zip } = await exported();
  const { toml, notes } = await importTutorial(zip);
  const draft = parse(toml);
  assert.equal(draft.id, LESSON.id);
  assert.equal(draft.title, LESSON.title);
  assert.equal(draft.summary, LESSON.summary);
  const texts = draft.intro.map((s) => s.text);
  const all = texts.join('\n\n');
  for (const step of LESSON.intro) assert.ok(all.includes(step.text), step.text);
  for (const [i, task] of LESSON.tasks.entries()) {
    assert.ok(texts.some((t) => t.startsWith(`## Task ${i + 1}: ${task.title}\n`)), task.title);
    assert.ok(all.includes(task.prompt), task.prompt);
    for (const hint of task.hints ?? []) assert.ok(all.includes(hint), hint);
    for (const option of task.options ?? []) assert.ok(all.includes(option.text) && all.includes(option.why), option.text);
    if (task.explain) assert.ok(all.includes(task.explain), task.explain);
  }
  const demos = draft.intro.map((s) => s.demo ?? []);
  const withoutClock = (lines) => lines.filter((l) => !l.startsWith(':clock'));
  const quoted = (lines) => lines.map((l) => l.replace('url http://example.com/a?b=c', 'url "http://example.com/a?b=c"'));
  assert.deepEqual(demos.find((d) => d.includes(LESSON.setup[0])), quoted(withoutClock(LESSON.setup)));
  assert.ok(demos.some((d) => JSON.stringify(d) === JSON.stringify(LESSON.intro[0].demo)));
  assert.ok(demos.some((d) => JSON.stringify(d) === JSON.stringify(LESSON.tasks[0].setup)));
  assert.ok(demos.some((d) => JSON.stringify(d) === JSON.stringify(withoutClock(LESSON.tasks[0].solution))));
  assert.ok(demos.some((d) => JSON.stringify(d) === JSON.stringify([LESSON.tasks[1].command])));
  assert.match(notes.join('\n'), /removed raw HTML \(<details>, <summary>\)/);

  // A second round keeps the draft's demos (the texts gain nothing but what the first added).
  const again = parse((await importTutorial(await exportTutorial({ ...LESSON, intro: draft.intro, tasks: [] }))).toml);
  assert.deepEqual(
    again.intro.flatMap((s) => s.demo ?? []),
    [...quoted(withoutClock(LESSON.setup)), ...draft.intro.flatMap((s) => s.demo ?? [])],
  );
});
