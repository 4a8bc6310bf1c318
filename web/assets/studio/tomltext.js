// Writing TOML 1.0 values and keys for lesson files: the studio writes drafts and edited
// lessons with these, and the Redis Insight importer builds its drafts with them.
//
// Every string comes out as a basic string ("..."), or, when it holds a line break, as a
// multi-line basic string ("""...""") so that Markdown stays readable in the file. Either way
// a TOML 1.0 parser reads back exactly the JavaScript string that went in.
//
// A lone surrogate (half of a UTF-16 pair, which a JavaScript string can hold) is no Unicode
// scalar value: UTF-8 cannot encode it and TOML's \u escapes may not name it. Rather than
// write a U+FFFD that would silently change the text, these functions throw a RangeError
// naming its place, so the author sees where a paste went wrong.

// Control characters TOML does not allow raw in a basic string (all of U+0000-U+001F but
// tab, and U+007F), with the short escapes TOML has for some of them.
const SHORT_ESCAPES = new Map([
  ['\b', '\\b'],
  ['\t', '\\t'],
  ['\n', '\\n'],
  ['\f', '\\f'],
  ['\r', '\\r'],
  ['"', '\\"'],
  ['\\', '\\\\'],
]);

function escapeChar(ch) {
  const short = SHORT_ESCAPES.get(ch);
  if (short) return short;
  return '\\u' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
}

function checkScalarValues(s) {
  // The `u` flag makes a well-formed pair one code point, so only a lone half matches.
  const lone = /\p{Surrogate}/u.exec(s);
  if (lone) {
    const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw new RangeError(
      `TOML cannot hold the lone surrogate U+${code} at index ${lone.index} of ${JSON.stringify(s.slice(0, 40))}: ` +
        'it is half of a UTF-16 pair, not a character',
    );
  }
}

function requireString(s, what) {
  if (typeof s !== 'string') throw new TypeError(`${what} must be a string, not ${s === null ? 'null' : typeof s}`);
}

/** A one-line basic string: every character TOML forbids raw is escaped, tab included. */
function basicString(s) {
  return '"' + s.replace(/[\u0000-\u001F\u007F"\\]/g, escapeChar) + '"';
}

/**
 * A multi-line basic string. Line feeds stay raw; a carriage return is escaped even before a
 * line feed, because TOML lets a parser normalise a raw CRLF to LF and the text would change.
 * Quotes stay raw except where three would meet (TOML's delimiter): every third quote of a
 * run is escaped, and a run at the very end is escaped whole so that it cannot merge with the
 * closing delimiter. The line break after the opening delimiter is one TOML drops, so a text
 * that itself starts with a line break keeps it.
 */
function multilineString(s) {
  let body = s.replace(/[\u0000-\u0009\u000B-\u001F\u007F\\]/g, escapeChar);
  body = body.replace(/"+/g, (run, offset) => {
    if (offset + run.length === body.length) return '\\"'.repeat(run.length);
    let out = '';
    for (let i = 0; i < run.length; i++) out += i % 3 === 2 ? '\\"' : '"';
    return out;
  });
  return '"""\n' + body + '"""';
}

/** A TOML string for `s`: multi-line basic when it holds a line feed, else basic. */
export function tomlString(s) {
  requireString(s, 'tomlString: the value');
  checkScalarValues(s);
  return s.includes('\n') ? multilineString(s) : basicString(s);
}

/**
 * A TOML array of strings. It stays on one line while that line is short (80 characters)
 * and no element spans lines; otherwise one element a line, indented, with a trailing comma
 * (TOML 1.0 allows both), which keeps a diff of an edited list to the lines that changed.
 */
export function tomlArray(strings) {
  if (!Array.isArray(strings)) throw new TypeError('tomlArray: expected an array of strings');
  const items = strings.map((s, i) => {
    requireString(s, `tomlArray: element ${i}`);
    return tomlString(s);
  });
  const inline = '[' + items.join(', ') + ']';
  if (inline.length <= 80 && !inline.includes('\n')) return inline;
  return '[\n' + items.map((item) => '  ' + item + ',\n').join('') + ']';
}

/** A TOML key: bare when TOML allows it (A-Z a-z 0-9 _ -), else a quoted basic string. */
export function tomlKey(k) {
  requireString(k, 'tomlKey: the key');
  if (/^[A-Za-z0-9_-]+$/.test(k)) return k;
  // A key is never a multi-line string in TOML, so a line break in it is escaped.
  checkScalarValues(k);
  return basicString(k);
}
