// Redis Insight tutorials <-> StreamLab lessons: `importTutorial` turns a tutorial zip into a
// lesson draft (TOML text), `exportTutorial` turns a lesson into a zip Redis Insight uploads.
// Also the small zip reader and writer they need (`readZip`, `writeZip`). No dependencies:
// (de)compression is the platform's CompressionStream / DecompressionStream('deflate-raw').
//
// The tutorial format as relied on here, read in RedisInsight/Tutorials (README.md; src/, the
// built-in tutorials; .github/workflows/release.yml, which zips src/ from inside it) and in
// RedisInsight/RedisInsight (api/src/modules/custom-tutorial/: the upload, its unzipping and
// the manifest model; ui/src/utils/formatters/markdown/: remarkCode, remarkSanitize;
// ui/src/utils/monaco/monacoUtils.ts and utils/commands.ts: how a block becomes commands):
// - A zip of Markdown pages and an optional manifest.json at its root. When the zip holds one
//   folder only, Redis Insight works inside it; __MACOSX entries are never extracted.
// - manifest.json: one root node `{ id, type: "group", label, children }` (the upload validates
//   that id and label are non-empty and type is "group", "internal-link" or "code-button";
//   author, url, industry, description and keywords are optional and not shown). Each child
//   has id, type and label; "group" nodes have children, "internal-link" nodes name their page
//   in args.path ("/ds/strings.md", relative to the root) and may carry a non-empty summary.
//   Pages of one group are chained by Redis Insight's pagination, in manifest order.
// - Without manifest.json, Redis Insight lists the zip's .md files, skipping any path part
//   that starts with "_" or ".": the importer does the same, in the zip's order.
// - A runnable block is a fence whose language starts with `redis` (```redis-cli too), other
//   than redis-upload: ```redis Label, or with options ```redis:[run_confirmation=true;
//   results=single] Label (no spaces in the brackets); the rest of the info string is the Run
//   button's label, put unescaped into a JSX attribute (so exported labels hold no quotes or
//   braces). [executable=false] shows the block without a Run button. ```redis-upload:[path]
//   Label is a bulk-upload button for a file in the zip.
// - A block's commands: a line that starts with a non-space starts a command and indented
//   lines continue it (joined with spaces); `//` outside quotes starts a comment to the end of
//   the line; a leading integer N (`3 INCR c`) runs the command N times.
// - Pages are Markdown (GitHub flavour); raw HTML goes through DOMPurify tag by tag, so a
//   `<details>` on a line of its own, a blank line, then `<summary>…</summary>` survives
//   intact (a `<details><summary>…</summary>` line would be closed early by the sanitiser).
//   This is read from the source, not seen in a running Redis Insight. Images are relative
//   paths or URLs; `redisinsight:` links open places in the app.
//
// Import (a draft: no tasks, no variants, `setup = []`; the author adds them in the studio):
// - id = the root's id when it is a lesson id, else made from its label; title = the label;
//   summary = the root's description, else the first page's summary or first paragraph;
//   `minutes` is an estimate from the words and commands.
// - Each page is split at its `#`/`##` headings; each part becomes one [[intro]] step whose
//   `demo` holds the commands of its ```redis blocks, one a line, quoting as written (after
//   the text: a demo follows what it explains). The first part starts with `## <page label>`
//   unless it has a heading, so page titles stay. A block labelled "… on connection NAME"
//   (what export writes) gives `NAME> COMMAND` lines.
// - Dropped, and each said in `notes`: raw HTML tags, images, `redisinsight:` and relative
//   links (their text stays), block options and labels, redis-upload blocks, manifest nodes of
//   other types. Non-runnable blocks stay in the text as plain code. A node without a type
//   is a group if it has children, else a page. A `${` is noted: lessons read it as a parameter.
// Export (one group, so Next/Previous walk the whole lesson in order):
// - "Overview": the summary, then the lesson's setup under "Set up"; a page per intro step
//   (text, then demo); a page per task, "Task N: title": the prompt, the task's setup, each
//   hint in a `<details>`, then under a rule "## Solution" (reach-state) or "## Answer" (the
//   command to run, each option marked right or wrong with its why, the right order, the
//   explanation). The root's description is the summary, so a re-import finds it.
// - Lines: `name> COMMAND` goes in a block labelled "… on connection name" (the page says
//   once that the Workbench has one connection); `:clock +60s` ends the block and the page
//   asks the reader to wait that long, as Redis Insight has no virtual clock. A bare word
//   holding `//` is double-quoted so that the Workbench does not take it for a comment.

import { tomlArray, tomlString } from './tomltext.js';

/**
 * Limits on what the zip reader accepts (importTutorial uses these): the archive's size, its
 * entries, one entry's size, and all that one archive's reads may inflate together (a manifest
 * may name one big page a thousand times).
 */
export const ZIP_LIMITS = Object.freeze({ archiveBytes: 64 << 20, entries: 2000, entryBytes: 4 << 20, totalBytes: 32 << 20 });

const MAX_REPEAT = 1000;
const MAX_DEPTH = 32;

// ---------------------------------------------------------------------------------- zip

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (the zip and PNG one) of `bytes`. */
export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const utf8 = new TextEncoder();

function toBytes(input, what) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  throw new TypeError(`${what}: expected a Uint8Array or an ArrayBuffer`);
}

function checkEntryName(name) {
  const parts = name.split('/');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new Error(`zip entry "${name}" has an absolute path`);
  if (parts.includes('..')) throw new Error(`zip entry "${name}" climbs out of the archive with ".."`);
  if (/[\u0000-\u001F]/.test(name)) throw new Error(`zip entry ${JSON.stringify(name)} has a control character in its name`);
}

/**
 * Reads a zip's central directory. Returns `{ names, read }`: `names` the entries' names in
 * the archive's order (folders end in "/"), `read(name)` a Promise of the entry's bytes,
 * checked against its declared size and CRC-32. Anything this reader does not handle is an
 * Error naming it: encryption, zip64, archives split over disks, methods other than stored
 * and deflate, `..` or absolute paths, more entries or bigger ones than `limits` allow.
 */
export function readZip(input, limits = ZIP_LIMITS) {
  const bytes = toBytes(input, 'readZip');
  if (bytes.length > limits.archiveBytes) throw new Error(`the zip is ${bytes.length} bytes; at most ${limits.archiveBytes} are read`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (at) => view.getUint16(at, true);
  const u32 = (at) => view.getUint32(at, true);

  // The end record is the last 22 bytes unless an archive comment (at most 65535 bytes) follows.
  const earliest = Math.max(0, bytes.length - 22 - 0xffff);
  let end = bytes.length - 22;
  while (end >= earliest && u32(end) !== SIG_END) end--;
  if (end < earliest) throw new Error('not a zip file, or a truncated one: no end-of-central-directory record');
  if (end >= 20 && u32(end - 20) === SIG_ZIP64_LOCATOR) throw new Error('zip64 archives are not supported');
  if (u16(end + 4) !== 0 || u16(end + 6) !== 0) throw new Error('zip archives split over several disks are not supported');
  const count = u16(end + 10);
  const dirSize = u32(end + 12);
  const dirStart = u32(end + 16);
  if (count === 0xffff || dirSize === 0xffffffff || dirStart === 0xffffffff) throw new Error('zip64 archives are not supported');
  if (count > limits.entries) throw new Error(`the zip has ${count} entries; at most ${limits.entries} are read`);
  if (dirStart + dirSize > end) throw new Error('the zip is truncated or damaged: its central directory lies outside the file');

  const entries = new Map();
  let budget = limits.totalBytes;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let at = dirStart;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dirStart + dirSize || u32(at) !== SIG_CENTRAL) throw new Error(`the zip's central directory is damaged at entry ${i + 1}`);
    const flags = u16(at + 8);
    const method = u16(at + 10);
    const crc = u32(at + 16);
    const packed = u32(at + 20);
    const size = u32(at + 24);
    const nameLength = u16(at + 28);
    const next = at + 46 + nameLength + u16(at + 30) + u16(at + 32);
    if (next > dirStart + dirSize) throw new Error(`the zip's central directory is damaged at entry ${i + 1}`);
    let name;
    try {
      name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)).replaceAll('\\', '/');
    } catch {
      throw new Error(`zip entry ${i + 1} has a name that is not UTF-8`);
    }
    checkEntryName(name);
    if (flags & 0x0001) throw new Error(`zip entry "${name}" is encrypted`);
    if (packed === 0xffffffff || size === 0xffffffff) throw new Error('zip64 archives are not supported');
    if (method !== 0 && method !== 8) throw new Error(`zip entry "${name}" uses compression method ${method}; only stored (0) and deflate (8) are read`);
    if (entries.has(name)) throw new Error(`the zip holds "${name}" twice`);
    entries.set(name, { name, method, crc, packed, size, local: u32(at + 42) });
    at = next;
  }

  async function read(name) {
    const entry = entries.get(name);
    if (!entry) throw new Error(`the zip has no entry "${name}"`);
    if (entry.size > limits.entryBytes) throw new Error(`zip entry "${name}" declares ${entry.size} bytes; at most ${limits.entryBytes} are read`);
    if (entry.size > budget) throw new Error(`reading "${name}" would take this zip's reads past ${limits.totalBytes} bytes in all`);
    budget -= entry.size;
    const local = entry.local;
    if (local + 30 > dirStart || u32(local) !== SIG_LOCAL) throw new Error(`zip entry "${name}" is damaged: no local header where the directory says`);
    const dataStart = local + 30 + u16(local + 26) + u16(local + 28);
    if (dataStart + entry.packed > dirStart) throw new Error(`zip entry "${name}" is truncated: its data runs into the central directory`);
    const packed = bytes.subarray(dataStart, dataStart + entry.packed);
    if (entry.method === 0 && entry.packed !== entry.size) throw new Error(`zip entry "${name}" is damaged: stored, but its sizes differ`);
    const data = entry.method === 0 ? packed : await inflateRaw(packed, entry.size, name);
    if (crc32(data) !== entry.crc) throw new Error(`zip entry "${name}" is damaged: its CRC-32 does not match`);
    return data;
  }

  return { names: [...entries.keys()], read };
}

async function inflateRaw(packed, size, name) {
  const reader = new Blob([packed]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const out = new Uint8Array(size);
  let length = 0;
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (e) {
      throw new Error(`zip entry "${name}" is damaged: its deflate data does not inflate (${e.message})`);
    }
    if (chunk.done) break;
    // Stop at the declared size rather than trusting it: a small entry may inflate to gigabytes.
    if (length + chunk.value.length > size) {
      reader.cancel().catch(() => {});
      throw new Error(`zip entry "${name}" is damaged: it inflates to more than its declared ${size} bytes`);
    }
    out.set(chunk.value, length);
    length += chunk.value.length;
  }
  if (length !== size) throw new Error(`zip entry "${name}" is damaged: it inflates to ${length} bytes, not the declared ${size}`);
  return out;
}

async function deflateRaw(data) {
  const stream = new Blob([data]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Writes a zip of `files`, `[{ name, data }]` (data a string, written as UTF-8, or bytes), in
 * that order. Each entry is deflated unless that does not make it smaller (then stored) or
 * `options.deflate` is false. Names are UTF-8 (flag bit 11) and every entry is dated
 * 1980-01-01 00:00, the zip epoch, so that one lesson always gives the same bytes.
 */
export async function writeZip(files, options = {}) {
  const deflate = options.deflate ?? true;
  if (!Array.isArray(files)) throw new TypeError('writeZip: expected an array of { name, data }');
  if (files.length > 0xfffe) throw new Error('writeZip: more entries than a zip without zip64 holds');
  const locals = [];
  const centrals = [];
  let offset = 0;
  const seen = new Set();
  for (const file of files) {
    const name = file?.name;
    if (typeof name !== 'string' || name === '') throw new TypeError('writeZip: every file needs a name');
    checkEntryName(name);
    if (seen.has(name)) throw new Error(`writeZip: "${name}" is given twice`);
    seen.add(name);
    const data = typeof file.data === 'string' ? utf8.encode(file.data) : toBytes(file.data, `writeZip: data of "${name}"`);
    const nameBytes = utf8.encode(name);
    const crc = crc32(data);
    const squeezed = deflate && data.length > 0 ? await deflateRaw(data) : data;
    const method = squeezed.length < data.length ? 8 : 0;
    const packed = method === 8 ? squeezed : data;
    // Version needed 2.0 (deflate), names in UTF-8, 00:00 on 1980-01-01, no extra field.
    const fields = [[2, 20], [2, 0x0800], [2, method], [2, 0], [2, 0x21], [4, crc], [4, packed.length], [4, data.length], [2, nameBytes.length], [2, 0]];
    const local = header(SIG_LOCAL, fields, nameBytes);
    locals.push(local, packed);
    // Made by 2.0; no comment, disk 0, no attributes; then where the local header is.
    const central = header(SIG_CENTRAL, [[2, 20], ...fields, [2, 0], [2, 0], [2, 0], [4, 0], [4, offset]], nameBytes);
    centrals.push(central);
    offset += local.length + packed.length;
    if (offset > 0xfffffffe) throw new Error('writeZip: the archive would need zip64');
  }
  const dirSize = centrals.reduce((sum, c) => sum + c.length, 0);
  const end = header(SIG_END, [[2, 0], [2, 0], [2, files.length], [2, files.length], [4, dirSize], [4, offset], [2, 0]], new Uint8Array(0));
  return concat([...locals, ...centrals, end]);
}

function header(signature, fields, tail) {
  const size = 4 + fields.reduce((sum, [width]) => sum + width, 0);
  const out = new Uint8Array(size + tail.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, signature, true);
  let at = 4;
  for (const [width, value] of fields) {
    if (width === 2) view.setUint16(at, value, true);
    else view.setUint32(at, value, true);
    at += width;
  }
  out.set(tail, size);
  return out;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

// ------------------------------------------------------------------- redis-cli lines

/**
 * Where a line's first `//` outside quotes is (-1: none). Quotes follow redis-cli: "…" with
 * backslash escapes, '…' with \' only. The Workbench cuts a line there as a comment.
 */
function commentStart(line) {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === '\\' && (quote === '"' || line[i + 1] === "'")) i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '/' && line[i + 1] === '/') return i;
  }
  return -1;
}

/** The commands of a ```redis block, as the Workbench would run them (see the top comment). */
function blockCommands(body, note) {
  const commands = [];
  for (const piece of body.split(/\n(?=\S)/)) {
    const parts = piece.split('\n').map((line) => {
      const cut = commentStart(line);
      return (cut < 0 ? line : line.slice(0, cut)).trim();
    });
    let command = parts.filter((p) => p !== '').join(' ');
    if (command === '') continue;
    const repeat = /^(\d+) +(\S.*)$/.exec(command);
    // The Workbench repeats only for a count of at least 1; `0 X` goes to Redis as written.
    if (repeat && Number(repeat[1]) >= 1) {
      let times = Number(repeat[1]);
      command = repeat[2];
      if (times > MAX_REPEAT) {
        note(`"${repeat[0].slice(0, 60)}" repeats ${times} times; the draft runs it once`);
        times = 1;
      }
      for (let i = 1; i < times; i++) commands.push(command);
    }
    commands.push(command);
  }
  return commands;
}

const CONNECTION_LINE = /^\s*([A-Za-z0-9._-]+)> (.*)$/;
const CLOCK_LINE = /^\s*:clock\s+(\S+)\s*$/;
const CONNECTION_LABEL = / on connection ([A-Za-z0-9._-]+)$/;
const LESSON_ID = /^[a-z0-9][a-z0-9-]*$/;

// ---------------------------------------------------------------------------- import

/** Splits Markdown into text and fenced code blocks (CommonMark fences, ``` or ~~~). */
function fencedBlocks(markdown) {
  const lines = markdown.split('\n');
  const segments = [];
  let text = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open || (open[2][0] === '`' && open[3].includes('`'))) {
      text.push(lines[i]);
      continue;
    }
    const [, indent, fence, info] = open;
    const body = [];
    let j = i + 1;
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    for (; j < lines.length && !close.test(lines[j]); j++) body.push(lines[j].replace(new RegExp(`^ {0,${indent.length}}`), ''));
    if (text.length) segments.push({ text: text.join('\n') });
    text = [];
    const [lang = '', ...meta] = info.trim().split(/\s+/);
    segments.push({ code: { lang, label: meta.join(' '), body: body.join('\n'), source: lines.slice(i, j + 1).join('\n') } });
    i = j;
  }
  if (text.length) segments.push({ text: text.join('\n') });
  return segments;
}

/** Calls `fn` on the parts of `text` outside inline code spans and joins the results. */
function outsideCodeSpans(text, fn) {
  let out = '';
  let from = 0;
  const run = /`+/g;
  for (let m; (m = run.exec(text)); ) {
    const closing = new RegExp(`(?<!\`)${m[0]}(?!\`)`, 'g');
    closing.lastIndex = m.index + m[0].length;
    const end = closing.exec(text);
    if (!end) continue;
    out += fn(text.slice(from, m.index)) + text.slice(m.index, end.index + m[0].length);
    from = run.lastIndex = end.index + m[0].length;
  }
  return out + fn(text.slice(from));
}

/** Markdown prose without raw HTML, images, or links that lead nowhere outside Redis Insight. */
function cleanProse(text, dropped) {
  return outsideCodeSpans(text, (prose) =>
    prose
      .replace(/<!--[\s\S]*?-->/g, () => (dropped.html.add('<!-- comments -->'), ''))
      .replace(/<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/g, (tag, name) => {
        dropped.html.add(`<${name.toLowerCase()}>`);
        return name.toLowerCase() === 'br' ? ' ' : '';
      })
      .replace(/!\[([^\]]*)\](\(([^)]*)\)|\[[^\]]*\])/g, (image, alt, link, url) => {
        dropped.images.push(url ? url.trim().split(/\s+/)[0] : alt || image);
        return '';
      })
      .replace(/\[([^\]]*)\]\(([^)\s]*)[^)]*\)/g, (link, label, url) => {
        if (/^(https?|mailto):/i.test(url) || url.startsWith('#')) return link;
        dropped.links.push(url);
        return label;
      }),
  ).replace(/\n{3,}/g, '\n\n');
}

function decodePage(bytes, path) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/\r\n?/g, '\n');
  } catch {
    throw new Error(`${path} is not UTF-8 text`);
  }
}

/** The pages `root` lists, in its order: `[{ label, path, summary }]` (paths as in `files`). */
function manifestPages(root, files, notes) {
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw new Error('manifest.json must hold one object, the tutorial\'s root node');
  if (!Array.isArray(root.children)) throw new Error('manifest.json: the root node has no "children" list');
  const pages = [];
  const walk = (nodes, where, depth) => {
    if (depth > MAX_DEPTH) throw new Error(`manifest.json nests groups deeper than ${MAX_DEPTH} levels`);
    nodes.forEach((node, i) => {
      const at = `${where}[${i}]`;
      if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new Error(`manifest.json: ${at} is not a node object`);
      const type = node.type ?? (Array.isArray(node.children) ? 'group' : 'internal-link');
      const label = typeof node.label === 'string' ? node.label : '';
      if (type === 'group') {
        if (!Array.isArray(node.children)) throw new Error(`manifest.json: the group ${at} ("${label}") has no "children" list`);
        walk(node.children, `${at}.children`, depth + 1);
      } else if (type === 'internal-link') {
        const raw = node.args?.path;
        if (typeof raw !== 'string' || raw.trim() === '') throw new Error(`manifest.json: the page ${at} ("${label}") has no args.path`);
        const path = raw.trim().replace(/^\.?\/+/, '').replaceAll('\\', '/');
        if (path.split('/').includes('..')) throw new Error(`manifest.json: ${at} ("${label}") points outside the tutorial: ${raw}`);
        if (!files.includes(path)) throw new Error(`manifest.json: ${at} ("${label}") points at ${raw}, which is not in the zip`);
        pages.push({ label: label || path, path, summary: typeof node.summary === 'string' ? node.summary : '' });
      } else {
        notes.push(`manifest.json: ${at} ("${label}") is of type "${type}", which has no lesson equivalent; left out`);
      }
    });
  };
  walk(root.children, 'children', 0);
  return pages;
}

/** The intro steps of one page: `[{ text, demo }]`, each note said in `notes`. */
function pageSteps(page, markdown, notes) {
  const say = (what) => notes.push(`${page.label} (${page.path}): ${what}`);
  const dropped = { html: new Set(), images: [], links: [] };
  const labels = new Set();
  const options = new Set();
  const steps = [];
  let step = null;
  const startStep = () => steps.push((step = { text: [], demo: [] }));
  for (const segment of fencedBlocks(markdown)) {
    if (segment.text !== undefined) {
      for (const part of segment.text.split(/\n(?= {0,3}#{1,2}(?:[ \t]|$))/)) {
        if (step === null || /^ {0,3}#{1,2}(?:[ \t]|$)/.test(part)) startStep();
        step.text.push(cleanProse(part, dropped));
      }
      continue;
    }
    const { lang, label, body, source } = segment.code;
    if (step === null) startStep();
    const [kind, params = ''] = lang.split(':');
    if (kind === 'redis-upload') {
      say(`dropped the bulk-upload block "${label}" (${params}): a lesson has no upload button; put its commands in setup`);
    } else if (kind.startsWith('redis') && /\bexecutable=false\b/.test(params)) {
      step.text.push(source.replace(/^( {0,3}(?:`{3,}|~{3,}))\S*.*$/m, '$1'));
      say(`the non-runnable block "${label}" stays in the text as plain code`);
    } else if (kind.startsWith('redis')) {
      const connection = CONNECTION_LABEL.exec(label)?.[1];
      const commands = blockCommands(body, say);
      step.demo.push(...(connection ? commands.map((c) => `${connection}> ${c}`) : commands));
      if (params) options.add(params);
      if (label && !connection) labels.add(label);
    } else {
      step.text.push(source);
    }
  }
  if (dropped.html.size) say(`removed raw HTML (${[...dropped.html].join(', ')}); a lesson's text is Markdown only`);
  if (dropped.images.length) say(`removed ${dropped.images.length} image(s): ${dropped.images.join(', ')}`);
  if (dropped.links.length) say(`links to ${dropped.links.join(', ')} lead nowhere in StreamLab; kept their text only`);
  if (options.size) say(`ignored the blocks' run options ${[...options].join(', ')}`);
  if (labels.size) say(`dropped the Run buttons' labels: ${[...labels].map((l) => `"${l}"`).join(', ')}`);
  // A rule that ends a step (before the next heading) separates nothing any more.
  const tidy = (parts) => parts.join('\n').replace(/\n{3,}/g, '\n\n').trim().replace(/\n+ {0,3}([-*_])(?: *\1){2,} *$/, '');
  const result = steps.map((s) => ({ text: tidy(s.text), demo: s.demo })).filter((s) => s.text || s.demo.length);
  if (!/^#{1,2}[ \t]/.test(result[0]?.text ?? '')) {
    if (result.length === 0) result.push({ text: '', demo: [] });
    result[0].text = `## ${page.label}\n\n${result[0].text}`.trim();
  }
  return result;
}

function slug(label) {
  const id = label.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
  return id || 'imported-tutorial';
}

/** The tutorial's files relative to its root, as Redis Insight unpacks them. */
function tutorialFiles(names) {
  const files = names.filter((n) => !n.split('/').includes('__MACOSX'));
  const tops = new Set(files.map((n) => n.split('/')[0]));
  const [top] = tops;
  const unwrap = tops.size === 1 && files.every((n) => n.startsWith(`${top}/`));
  return files.map((n) => ({ name: n, path: unwrap ? n.slice(top.length + 1) : n })).filter((f) => f.path !== '' && !f.path.endsWith('/'));
}

/**
 * Turns a Redis Insight tutorial zip into a lesson draft: `{ toml, notes }`, the draft as TOML
 * text and what the conversion dropped or guessed, one sentence each. Throws an Error naming
 * the problem for a zip it cannot read or a manifest that points nowhere.
 */
export async function importTutorial(bytes) {
  const zip = readZip(toBytes(bytes, 'importTutorial'));
  const files = tutorialFiles(zip.names);
  const byPath = new Map(files.map((f) => [f.path, f.name]));
  const notes = [];
  let root = null;
  let pages;
  if (byPath.has('manifest.json')) {
    const text = decodePage(await zip.read(byPath.get('manifest.json')), 'manifest.json');
    try {
      root = JSON.parse(text);
    } catch (e) {
      throw new Error(`manifest.json is not valid JSON: ${e.message}`);
    }
    pages = manifestPages(root, [...byPath.keys()], notes);
  } else {
    pages = files
      .filter((f) => f.path.endsWith('.md') && !f.path.split('/').some((p) => p.startsWith('_') || p.startsWith('.')))
      .map((f) => ({ label: f.path.replace(/\.md$/, '').split('/').pop(), path: f.path, summary: '' }));
    if (pages.length === 0) throw new Error('the zip has no manifest.json and no Markdown pages: it is not a Redis Insight tutorial');
    notes.push('the zip has no manifest.json: its Markdown pages were taken in the zip\'s order, as Redis Insight does');
  }
  if (pages.length === 0) throw new Error('manifest.json lists no pages');

  const steps = [];
  for (const page of pages) steps.push(...pageSteps(page, decodePage(await zip.read(byPath.get(page.path)), page.path), notes));

  const title = (typeof root?.label === 'string' && root.label.trim()) || steps[0].text.match(/^#{1,2}[ \t]+(.*)$/m)?.[1].trim() || 'Imported tutorial';
  if (!root?.label) notes.push(`no tutorial label: the title "${title}" is a guess`);
  let summary = typeof root?.description === 'string' ? root.description.trim() : '';
  if (!summary && pages[0].summary.trim()) {
    summary = pages[0].summary.trim();
    notes.push('the summary is the first page\'s summary from manifest.json');
  }
  if (!summary) {
    summary = steps[0].text.split(/\n\n+/).find((p) => p && !p.startsWith('#'))?.trim() ?? '';
    notes.push(summary ? 'the summary is the first paragraph of the first page: shorten it to one or two sentences' : 'there is no summary: write one');
  }
  // A lesson reads `${...}` as a parameter expression anywhere, and has no escape for it.
  const texts = [['the title', title], ['the summary', summary], ...steps.flatMap((s, i) => [s.text, ...s.demo].map((t) => [`intro step ${i + 1}`, t]))];
  const placeholders = new Set(texts.filter(([, t]) => t.includes('${')).map(([where]) => where));
  if (placeholders.size) notes.push(`${[...placeholders].join(', ')}: \`\${\` is read as a parameter expression in a lesson; reword it`);
  const words = steps.reduce((n, s) => n + s.text.split(/\s+/).filter(Boolean).length, 0);
  const commands = steps.reduce((n, s) => n + s.demo.length, 0);
  const minutes = Math.max(1, Math.ceil(words / 200 + commands / 2));
  notes.push(`minutes = ${minutes} is an estimate from ${words} words and ${commands} commands`);
  notes.push('the draft has no tasks and no hidden variant yet; every command is a demo, so move what only prepares state into setup');

  const out = [
    `# Draft imported from the Redis Insight tutorial ${JSON.stringify(title)}: add tasks and a`,
    '# hidden variant in the studio before it can pass the validator.',
    `id = ${tomlString(typeof root?.id === 'string' && LESSON_ID.test(root.id) ? root.id : slug(title))}`,
    'version = 1',
    `title = ${tomlString(title)}`,
    `summary = ${tomlString(summary)}`,
    'profile = "redis-8.2"',
    `minutes = ${minutes}`,
    'setup = []',
  ];
  for (const step of steps) {
    out.push('', '[[intro]]', `text = ${tomlString(step.text)}`);
    if (step.demo.length) out.push(`demo = ${tomlArray(step.demo)}`);
  }
  return { toml: out.join('\n') + '\n', notes };
}

// ---------------------------------------------------------------------------- export

function fenceFor(body) {
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

/**
 * `line` with each bare word that holds `//` double-quoted: the same argument to redis-cli,
 * and no comment to the Workbench. A word quoted in part is left as written.
 */
function protectComments(line) {
  for (let at; (at = commentStart(line)) >= 0; ) {
    const start = line.slice(0, at).search(/\S*$/);
    const end = at + line.slice(at).search(/\s|$/);
    const word = line.slice(start, end);
    if (/["']/.test(word)) break;
    line = `${line.slice(0, start)}"${word.replace(/\\/g, '\\\\')}"${line.slice(end)}`;
  }
  return line;
}

const ONE_CONNECTION =
  'In StreamLab, a block marked *on connection …* runs on a client connection of its own. The Workbench sends everything over one connection, so here those commands share it: the consumer names in the commands still tell the group who is reading, but a blocked read that waits for another client, or a MULTI kept open, behaves differently.';

/** A clock step (`+1500`, `+1.5s`, `+2m`) in words. */
function clockWords(amount) {
  const m = /^\+?(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(amount);
  return m ? `${m[1]} ${{ ms: 'ms', s: 's', m: 'min' }[m[2] ?? 'ms']}` : amount;
}

/**
 * Markdown for console `lines`: ```redis blocks captioned `caption`, split where the
 * connection changes or the clock moves, with the notes a Redis Insight reader needs there.
 * `page.saidConnections` keeps the one-connection note to once a page.
 */
function renderLines(lines, caption, page, where, params = '') {
  const out = [];
  let block = [];
  let connection = '';
  const flush = () => {
    if (block.length === 0) return;
    if (connection && !page.saidConnections) {
      page.saidConnections = true;
      out.push(ONE_CONNECTION);
    }
    const label = connection ? `${caption} on connection ${connection}` : caption;
    const body = block.join('\n');
    const fence = fenceFor(body);
    out.push(`${fence}redis${params} ${label}\n${body}\n${fence}`);
    block = [];
  };
  lines.forEach((line, i) => {
    if (typeof line !== 'string' || line.includes('\n')) throw new TypeError(`exportTutorial: ${where}[${i}] must be one line of text`);
    const clock = CLOCK_LINE.exec(line);
    if (clock) {
      flush();
      out.push(`**Wait ${clockWords(clock[1])} here.** The lesson moves its virtual clock at this point (\`:clock ${clock[1]}\`); Redis Insight has no such clock, so let that much real time pass before you run the next block: idle times, and what they decide, come from the real clock.`);
      return;
    }
    if (/^\s*:/.test(line)) {
      flush();
      out.push(`StreamLab's console runs \`${line.trim()}\` here, which has no equivalent in the Workbench.`);
      return;
    }
    const named = CONNECTION_LINE.exec(line);
    const lineConnection = named ? named[1] : '';
    if (lineConnection !== connection) flush();
    connection = lineConnection;
    const command = (named ? named[2] : line).trim();
    if (command) block.push(protectComments(command));
  });
  flush();
  return out.join('\n\n');
}

const field = (value, where) => {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new TypeError(`exportTutorial: ${where} must be a string`);
  return value.trim();
};
const fieldList = (value, where) => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TypeError(`exportTutorial: ${where} must be an array`);
  return value;
};

/** Hints as a ladder of collapsed `<details>`, laid out as the top comment explains. */
function hintsMarkdown(hints, where) {
  return fieldList(hints, where)
    .map((hint, i) => `<details>\n\n<summary>Hint ${i + 1}</summary>\n\n${field(hint, `${where}[${i}]`)}\n\n</details>`)
    .join('\n\n');
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const optionLabel = (i) => LETTERS[i] ?? String(i + 1);

/** A fixed order of `n` items that is never the right one (for n > 1), drawn from `seed`. */
function shownOrder(n, seed) {
  const order = [...Array(n).keys()];
  let state = [...seed].reduce((h, ch) => (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0, 7);
  for (let i = n - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  if (order.every((v, i) => v === i)) order.push(order.shift());
  return order;
}

function taskMarkdown(task, where, page) {
  const kind = field(task.kind, `${where}.kind`) || 'reach-state';
  const parts = [field(task.prompt, `${where}.prompt`)];
  const setup = fieldList(task.setup, `${where}.setup`);
  if (setup.length) parts.push('### Before this task', renderLines(setup, 'Task setup', page, `${where}.setup`, ':[run_confirmation=true]'));
  const options = fieldList(task.options, `${where}.options`).map((o, i) => ({
    text: field(o?.text, `${where}.options[${i}].text`),
    why: field(o?.why, `${where}.options[${i}].why`),
    correct: o?.correct === true,
  }));
  const right = options.filter((o) => o.correct).length;
  if (options.length) {
    if (right > 1) parts.push('Select all that apply.');
    parts.push(options.map((o, i) => `- **${optionLabel(i)}.** ${o.text}`).join('\n'));
  }
  const steps = fieldList(task.steps, `${where}.steps`).map((s, i) => field(s, `${where}.steps[${i}]`));
  const shown = shownOrder(steps.length, field(task.title, `${where}.title`));
  if (steps.length) parts.push(shown.map((s, i) => `- **${optionLabel(i)}.** ${steps[s]}`).join('\n'));
  const hints = hintsMarkdown(task.hints, `${where}.hints`);
  if (hints) parts.push(hints);
  parts.push('---');
  if (kind === 'reach-state') {
    parts.push('## Solution', renderLines(fieldList(task.solution, `${where}.solution`), 'Solution', page, `${where}.solution`, ':[run_confirmation=true]'));
  } else {
    parts.push('## Answer');
    const command = field(task.command, `${where}.command`);
    if (command) parts.push('Run the command to see its reply:', renderLines([command], 'Run it', page, `${where}.command`));
    if (options.length) {
      parts.push(options.map((o, i) => `- **${optionLabel(i)}** (${o.correct ? 'right' : 'wrong'}): ${o.why || o.text}`).join('\n'));
    }
    if (steps.length) {
      parts.push('The right order:', steps.map((s, i) => `${i + 1}. ${s} (**${optionLabel(shown.indexOf(i))}**)`).join('\n'));
    }
  }
  const explain = field(task.explain, `${where}.explain`);
  if (explain) parts.push(explain);
  return parts.filter(Boolean).join('\n\n');
}

/**
 * A lesson as a Redis Insight tutorial zip (a Uint8Array). `lesson` is the lesson rendered on
 * variant 0: `{ id, title, summary, setup, intro: [{ text, demo }], tasks: [{ kind, title,
 * prompt, setup, solution, hints, command, options: [{ text, correct, why }], steps, explain }] }`,
 * any field but id and title may be absent. The pages are laid out as the top comment says.
 */
export async function exportTutorial(lesson) {
  if (lesson === null || typeof lesson !== 'object') throw new TypeError('exportTutorial: expected a lesson object');
  const id = field(lesson.id, 'lesson.id');
  if (!LESSON_ID.test(id)) throw new Error(`exportTutorial: lesson.id ${JSON.stringify(id)} is not lower-case letters, digits and -`);
  const title = field(lesson.title, 'lesson.title');
  if (!title) throw new Error('exportTutorial: the lesson has no title');
  const summary = field(lesson.summary, 'lesson.summary');
  const page = { saidConnections: false };
  const pages = [];
  // Each page is rendered before it is added; the next one says the connection note anew.
  const addPage = (file, label, markdown, extra = {}) => {
    pages.push({ file, label, markdown, extra });
    page.saidConnections = false;
  };

  const overview = [summary, `This tutorial is the StreamLab lesson \`${id}\`. StreamLab checks each task against the state you reach; here you compare with the Solution and Answer sections yourself.`];
  const setup = fieldList(lesson.setup, 'lesson.setup');
  if (setup.length) {
    overview.push(
      '## Set up',
      'Run this first, on a database you can write to: it creates the keys the lesson starts from. Every task starts from this state, with the introduction\'s commands run and the task\'s own setup: if earlier solutions changed it, delete those keys and run this again.',
      renderLines(setup, 'Set up', page, 'lesson.setup', ':[run_confirmation=true]'),
    );
  }
  addPage('overview.md', 'Overview', overview, summary ? { summary } : {});

  const intro = fieldList(lesson.intro, 'lesson.intro');
  intro.forEach((step, i) => {
    const where = `lesson.intro[${i}]`;
    const parts = [field(step?.text, `${where}.text`)];
    const demo = fieldList(step?.demo, `${where}.demo`);
    if (demo.length) parts.push(renderLines(demo, 'Demo', page, `${where}.demo`));
    addPage(`intro-${i + 1}.md`, intro.length === 1 ? 'Introduction' : `Introduction (${i + 1} of ${intro.length})`, parts);
  });
  fieldList(lesson.tasks, 'lesson.tasks').forEach((task, i) => {
    const where = `lesson.tasks[${i}]`;
    if (task === null || typeof task !== 'object') throw new TypeError(`exportTutorial: ${where} must be an object`);
    const label = `Task ${i + 1}: ${field(task.title, `${where}.title`) || field(task.kind, `${where}.kind`)}`;
    addPage(`task-${i + 1}.md`, label, [taskMarkdown(task, where, page)]);
  });

  const manifest = {
    id,
    type: 'group',
    label: title,
    ...(summary ? { description: summary } : {}),
    children: pages.map((p) => ({
      type: 'internal-link',
      id: `${id}-${p.file.replace(/\.md$/, '')}`,
      label: p.label,
      ...p.extra,
      args: { path: `/${p.file}` },
    })),
  };
  return writeZip([
    { name: 'manifest.json', data: JSON.stringify(manifest, null, 2) + '\n' },
    ...pages.map((p) => ({ name: p.file, data: p.markdown.filter(Boolean).join('\n\n') + '\n' })),
  ]);
}
