// Edits of a lesson file in place. The studio's forms never rewrite the file: each edit
// replaces the text of one value, or inserts a key, an array item or a table at a place the
// engine's TOML tree gives (streamlab_studio's `tree`: every key, value and table header with
// its UTF-16 span, and each table's form), so comments, blank lines, key order and quoting the
// author did not touch stay byte for byte. A comment directly above a table header belongs to
// that table: tables are added before the comment that opens the next one, and removed with
// their own. The exceptions are the values a form owns whole (a task's hints, a question's
// options, a lesson's parameters): changing one writes that value anew, and only that value.
// Tables written with dotted keys (`params.a = 1`) are not edited: the error says so.

import { tomlArray, tomlKey, tomlString } from './tomltext.js';

/** A JavaScript value as TOML: strings, integers, booleans, arrays, and plain objects as
 * inline tables (a variant's `values`, a lesson's `params`, a question's options). */
export function tomlValue(value) {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not an integer a lesson can hold`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return tomlArray(value);
    const items = value.map(tomlValue);
    const inline = `[${items.join(', ')}]`;
    return inline.length <= 80 && !inline.includes('\n') ? inline : `[\n  ${items.join(',\n  ')},\n]`;
  }
  if (value && typeof value === 'object') {
    const pairs = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return pairs.length ? `{ ${pairs.join(', ')} }` : '{}';
  }
  throw new TypeError(`no TOML for ${value}`);
}

/** The node at `path` (keys and array indexes) under the tree's root, or undefined. */
export function at(tree, path) {
  let node = tree;
  for (const step of path) {
    if (!node) return undefined;
    if (typeof step === 'number') node = node.t === 'array' ? node.items[step] : undefined;
    else node = node.t === 'table' ? node.keys.find((k) => k.k === step)?.v : undefined;
  }
  return node;
}

/** A node's value as JavaScript (strings, numbers, arrays, objects). */
export function plain(node) {
  if (!node) return undefined;
  switch (node.t) {
    case 'string': return node.v;
    case 'integer': return node.v;
    case 'other': return node.v === 'true' ? true : node.v === 'false' ? false : node.v;
    case 'array': return node.items.map(plain);
    default: return Object.fromEntries(node.keys.map((k) => [k.k, plain(k.v)]));
  }
}

/** Every `[header]` and `[[header]]` table, in the file's order: its dotted name, its path in
 * the tree and its header's span. */
export function headers(tree) {
  const out = [];
  const walk = (table, names, path) => {
    for (const key of table.keys) {
      const v = key.v;
      if (v.t === 'table' && v.form === 'header') {
        out.push({ name: [...names, key.k].join('.'), path: [...path, key.k], s: v.s });
        walk(v, [...names, key.k], [...path, key.k]);
      } else if (v.t === 'array' && v.items.length && v.items.every((i) => i.t === 'table' && i.form === 'header')) {
        v.items.forEach((item, n) => {
          out.push({ name: [...names, key.k].join('.'), path: [...path, key.k, n], s: item.s });
          walk(item, [...names, key.k], [...path, key.k, n]);
        });
      }
    }
  };
  walk(tree, [], []);
  return out.sort((a, b) => a.s[0] - b.s[0]);
}


/** An editor of one file's text: each method returns the new text. */
export class Edit {
  constructor(text, tree) {
    this.text = text;
    this.tree = tree;
    // The file's own line ends for what is added (the studio keeps LF, a file may not).
    this.newline = text.includes('\r\n') ? '\r\n' : '\n';
    this.headers = headers(tree);
  }

  /** Sets `key` of the table at `path` to `value`: the value's text replaced where the key
   * exists, else a `key = value` line added after the table's last key, indented like it. */
  set(path, key, value) {
    const table = this.table(path);
    const written = tomlValue(value);
    const found = table.keys.find((k) => k.k === key);
    if (found) {
      if (isHeaderTable(found.v)) throw new Error(`\`${key}\` is written as a table of its own here: change it in the file`);
      return this.splice(found.v.s[0], found.v.s[1], written);
    }
    if (table.form === 'inline') {
      const close = table.s[1] - 1;
      // A multi-line inline table (TOML 1.1) may end with a comma already.
      const before = this.text.slice(0, close).replace(/\s*,?\s*$/, '');
      return `${before}${table.keys.length ? ', ' : ' '}${tomlKey(key)} = ${written} ${this.text.slice(close)}`;
    }
    const last = table.keys.filter((k) => !isHeaderTable(k.v)).at(-1);
    const after = last ? lineEnd(this.text, last.v.s[1]) : path.length ? lineEnd(this.text, table.s[1]) : 0;
    const indent = last ? lineIndent(this.text, last.s[0]) : '  '.repeat(Math.max(0, depth(path) - 1));
    const line = `${indent}${tomlKey(key)} = ${written}`;
    return !last && !path.length ? `${line}${this.newline}${this.text}` : this.splice(after, after, `${this.newline}${line}`);
  }

  /** Appends values to the array `key` of the table at `path` (made when missing), after its
   * last item, so the items before keep their text. */
  push(path, key, values) {
    const array = at(this.tree, [...path, key]);
    if (!array) return this.set(path, key, values);
    if (array.t !== 'array') throw new Error(`\`${key}\` is not a list here: change it in the file`);
    if (!array.items.length) return this.splice(array.s[0], array.s[1], tomlValue(values));
    const end = array.items.at(-1).s[1];
    return this.splice(end, end, values.map((v) => `, ${tomlValue(v)}`).join(''));
  }

  /** Adds a `[[name]]` table with `body` (key → value): a task's check or misconception at
   * the end of the task, a variant before the first task, anything else at the end. */
  add(name, body, owner = null) {
    const list = this.headers;
    let place = this.text.length;
    if (owner) place = this.end(owner);
    else if (name === 'variant') {
      const task = list.find((h) => h.name === 'task');
      if (task) place = this.opening(task.s[0]);
    }
    const indent = name.includes('.') ? '  ' : '';
    const lines = [`${indent}[[${name}]]`];
    for (const [k, v] of Object.entries(body)) if (v !== undefined) lines.push(`${indent}${tomlKey(k)} = ${tomlValue(v)}`);
    const block = lines.join(this.newline);
    if (place >= this.text.length) {
      const text = this.text.replace(/\s*$/, '');
      return `${text}${text ? this.newline.repeat(2) : ''}${block}${this.newline}`;
    }
    // Before the next table (and the comment that opens it): the blank line that parted
    // them stays between the new one and it.
    return this.splice(place, place, `${block}${this.newline.repeat(2)}`);
  }

  /** Removes the table at `path` with its own subtables and the comment that opens it. */
  remove(path) {
    const header = this.headers.find((h) => same(h.path, path));
    if (!header) throw new Error(`no table ${path.join('.')}`);
    return this.splice(this.opening(header.s[0]), this.end(path), '');
  }

  /** Where the table at `path` ends: at the comment opening the next table that is not one of
   * its own subtables, or at the end of the file. */
  end(path) {
    const list = this.headers;
    const i = list.findIndex((h) => same(h.path, path));
    if (i < 0) throw new Error(`no table ${path.join('.')}`);
    const next = list.slice(i + 1).find((h) => !(h.path.length > path.length && same(h.path.slice(0, path.length), path)));
    return next ? this.opening(next.s[0]) : this.text.length;
  }

  /** The start of a header's line, or of the comment lines right above it (no blank line
   * between): a table's own introduction. */
  opening(at) {
    // Only lines after the last value before the header can be its comments: a `#` line
    // above that may be the inside of a multi-line string.
    const floor = lastEndBefore(this.tree, at);
    let start = lineStart(this.text, at);
    while (start > 0) {
      const above = lineStart(this.text, start - 1);
      if (above < floor || !/^[ \t]*#/.test(this.text.slice(above, start))) break;
      start = above;
    }
    return start;
  }

  /** The table at `path`, one this editor can add keys to. */
  table(path) {
    const table = at(this.tree, path);
    if (!table || table.t !== 'table') throw new Error(`no table ${path.join('.') || '(the file)'}`);
    if (table.form === 'dotted' || table.form === 'implicit') throw new Error(`\`${path.join('.')}\` is written with dotted keys: change it in the file`);
    return table;
  }

  splice(from, to, text) {
    return this.text.slice(0, from) + text + this.text.slice(to);
  }
}

function isHeaderTable(v) {
  const header = (t) => t.t === 'table' && t.form !== 'inline';
  return header(v) || (v.t === 'array' && v.items.length > 0 && v.items.every(header));
}
/** The end of the last value, key or header that ends at or before `at`. */
function lastEndBefore(tree, at) {
  let best = 0;
  const walk = (node) => {
    if (node.s[1] <= at && node.s[1] > best) best = node.s[1];
    for (const key of node.keys ?? []) {
      if (key.s[1] <= at && key.s[1] > best) best = key.s[1];
      walk(key.v);
    }
    for (const item of node.items ?? []) walk(item);
  };
  walk(tree);
  return best;
}
function depth(path) { return path.filter((p) => typeof p === 'string').length; }
function same(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }
function lineEnd(text, at) {
  const n = text.indexOf('\n', at);
  if (n < 0) return text.length;
  return text[n - 1] === '\r' ? n - 1 : n;
}
function lineStart(text, at) { return text.lastIndexOf('\n', at - 1) + 1; }
function lineIndent(text, at) { return text.slice(lineStart(text, at), at).match(/^[ \t]*/)[0]; }
