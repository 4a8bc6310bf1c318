// Edits of a lesson file in place. The studio's forms never rewrite the file: each edit
// replaces the text of one value, or inserts a key, an array item or a table at a place the
// engine's TOML tree gives (streamlab_studio's `tree`: every key, value and table header with
// its UTF-16 span), so comments, blank lines, key order and quoting the author did not touch
// stay byte for byte. The one exception is a value a form owns whole (a hint list, a
// question's options): changing it writes that value anew, and only that value.

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

/** Every `[header]` and `[[header]]` table of `text`, in the file's order: its dotted name,
 * its path in the tree and its header's span. */
export function headers(tree, text) {
  const isInline = (table) => inline(text, table);
  const out = [];
  const walk = (table, names, path) => {
    for (const key of table.keys) {
      const v = key.v;
      if (v.t === 'table' && v.s[1] > v.s[0] && !isInline(v)) {
        out.push({ name: [...names, key.k].join('.'), path: [...path, key.k], s: v.s });
        walk(v, [...names, key.k], [...path, key.k]);
      } else if (v.t === 'array' && v.items.length && v.items.every((i) => i.t === 'table' && !isInline(i))) {
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

// A header table's span is its `[...]` header; an inline table's is its braces. The tree
// marks neither, but one starts with `[` and the other with `{`.
function inline(text, table) { return text[table.s[0]] === '{'; }

/** An editor of one file's text: each method returns the new text. */
export class Edit {
  constructor(text, tree) {
    this.text = text;
    this.tree = tree;
  }

  /** Sets `key` of the table at `path` to `value`: the value's text replaced where the key
   * exists, else a `key = value` line added after the table's last key, indented like it. */
  set(path, key, value) {
    const table = at(this.tree, path);
    if (!table || table.t !== 'table') throw new Error(`no table ${path.join('.') || '(the file)'}`);
    const written = tomlValue(value);
    const found = table.keys.find((k) => k.k === key);
    if (found) return this.splice(found.v.s[0], found.v.s[1], written);
    if (inline(this.text, table)) {
      const close = table.s[1] - 1;
      const sep = table.keys.length ? ', ' : ' ';
      const before = this.text.slice(0, close).replace(/\s*$/, '');
      return `${before}${sep}${tomlKey(key)} = ${written} ${this.text.slice(close)}`;
    }
    const last = table.keys.filter((k) => !isHeaderTable(this.text, k.v)).at(-1);
    const after = last ? lineEnd(this.text, last.v.s[1]) : table.s[1] > 0 ? lineEnd(this.text, table.s[1]) : 0;
    const indent = last ? lineIndent(this.text, last.s[0]) : path.length ? '  '.repeat(Math.max(0, depth(path) - 1)) : '';
    const line = `${indent}${tomlKey(key)} = ${written}`;
    return after === 0 && !last ? `${line}\n${this.text}` : this.splice(after, after, `\n${line}`);
  }

  /** Appends strings to the array `key` of the table at `path` (made when missing), after
   * its last item, so the items before keep their text. */
  push(path, key, strings) {
    const array = at(this.tree, [...path, key]);
    if (!array) return this.set(path, key, strings);
    if (array.t !== 'array') throw new Error(`${key} is not an array`);
    if (!array.items.length) return this.splice(array.s[0], array.s[1], tomlArray(strings));
    const end = array.items.at(-1).s[1];
    return this.splice(end, end, strings.map((s) => `, ${tomlString(s)}`).join(''));
  }

  /** Adds a `[[name]]` table with `body` (key → value): a task's check or misconception at
   * the end of the task, a variant before the first task, anything else at the end. */
  add(name, body, owner = null) {
    const list = headers(this.tree, this.text);
    let place = this.text.length;
    if (owner) place = this.end(owner);
    else if (name === 'variant') place = list.find((h) => h.name === 'task')?.s[0] ?? place;
    const indent = name.includes('.') ? '  ' : '';
    const lines = [`${indent}[[${name}]]`];
    for (const [k, v] of Object.entries(body)) if (v !== undefined) lines.push(`${indent}${tomlKey(k)} = ${tomlValue(v)}`);
    const block = lines.join('\n');
    if (place >= this.text.length) {
      const text = this.text.replace(/\s*$/, '');
      return `${text}${text ? '\n\n' : ''}${block}\n`;
    }
    // Before the next table: the blank line that parted them stays between the new one and it.
    const start = lineStart(this.text, place);
    return this.splice(start, start, `${block}\n\n`);
  }

  /** Removes the table at `path` with its own subtables (a task with its checks). */
  remove(path) {
    const header = headers(this.tree, this.text).find((h) => same(h.path, path));
    if (!header) throw new Error(`no table ${path.join('.')}`);
    return this.splice(lineStart(this.text, header.s[0]), lineStart(this.text, this.end(path)), '');
  }

  /** Where the table at `path` ends: the next header that is not its own subtable's. */
  end(path) {
    const list = headers(this.tree, this.text);
    const i = list.findIndex((h) => same(h.path, path));
    if (i < 0) throw new Error(`no table ${path.join('.')}`);
    const next = list.slice(i + 1).find((h) => !(h.path.length > path.length && same(h.path.slice(0, path.length), path)));
    return next ? next.s[0] : this.text.length;
  }

  splice(from, to, text) {
    return this.text.slice(0, from) + text + this.text.slice(to);
  }
}

function isHeaderTable(text, v) {
  const header = (t) => t.t === 'table' && t.s[1] > t.s[0] && !inline(text, t);
  return header(v) || (v.t === 'array' && v.items.length > 0 && v.items.every(header));
}
function depth(path) { return path.filter((p) => typeof p === 'string').length; }
function same(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }
function lineEnd(text, at) { const n = text.indexOf('\n', at); return n < 0 ? text.length : n; }
function lineStart(text, at) { return text.lastIndexOf('\n', at - 1) + 1; }
function lineIndent(text, at) { return text.slice(lineStart(text, at), at).match(/^[ \t]*/)[0]; }
