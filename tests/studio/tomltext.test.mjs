// tomltext.js against a real TOML 1.0 parser (smol-toml): whatever the studio writes must
// read back as exactly the string, array or key that went in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'smol-toml';
import { tomlArray, tomlKey, tomlString } from '../../web/assets/studio/tomltext.js';

const readBack = (value) => parse(`v = ${value}\n`).v;

const CONTROLS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007F';
const HOSTILE = [
  '',
  'plain',
  'say "hi"',
  'back\\slash',
  'trailing backslash\\',
  'backslash before newline\\\nnext',
  '\\u0041 is not an escape here',
  CONTROLS,
  'tab\there',
  'cr\ronly',
  'crlf\r\nline',
  '\n',
  '\n\nstarts with blank lines',
  'ends with a newline\n',
  '"',
  '""',
  '"""',
  '""""',
  '"""""""',
  'a"',
  'a""',
  'a"""',
  'line one\n"""\nline three',
  'line one\nends with quotes"""',
  'line one\n""quoted""',
  'three """ then " then """"',
  '\'single\' and \'\'\'triple\'\'\'',
  'emoji 🚀 and 👩‍👩‍👧 and é and ß',
  'U+2028\u2028U+2029\u2029 BOM\uFEFF NEL\u0085',
  '${not_an_expression} {{braces}}',
  '```redis\nXADD s * a 1\n```',
  '# not a comment\nkey = "not a key"\n[not.a.table]',
];

test('tomlString round-trips hostile strings', () => {
  for (const s of HOSTILE) assert.equal(readBack(tomlString(s)), s, JSON.stringify(s));
});

test('tomlString: one line without a line feed, """ with one', () => {
  assert.equal(tomlString('a "b" \\ c\td'), '"a \\"b\\" \\\\ c\\td"');
  assert.ok(!tomlString('cr\ronly').includes('\r'), 'a carriage return is always escaped');
  assert.ok(tomlString('two\nlines').startsWith('"""\n'));
  assert.ok(!tomlString('no\nraw """ delimiter').slice(3, -3).includes('"""'));
});

test('tomlString round-trips random strings of tricky characters', () => {
  const alphabet = ['"', '"', '"', '\\', '\n', '\r', '\t', 'a', ' ', "'", '\u0000', '\u001F', '\u007F', 'é', '🚀', '#', '=', '[', 'u'];
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let n = 0; n < 3000; n++) {
    let s = '';
    const length = next() % 24;
    for (let i = 0; i < length; i++) s += alphabet[next() % alphabet.length];
    assert.equal(readBack(tomlString(s)), s, JSON.stringify(s));
    assert.deepEqual(readBack(tomlArray([s, s])), [s, s], JSON.stringify(s));
  }
});

test('a lone surrogate is a RangeError naming its place; a pair is fine', () => {
  assert.throws(() => tomlString('\uD800'), { name: 'RangeError', message: /lone surrogate U\+D800 at index 0/ });
  assert.throws(() => tomlString('ab\uDC00'), { name: 'RangeError', message: /U\+DC00 at index 2/ });
  assert.throws(() => tomlString('x\n\uDBFF'), RangeError);
  assert.throws(() => tomlArray(['ok', '\uD83D']), RangeError);
  assert.throws(() => tomlKey('k\uDFFF'), RangeError);
  assert.equal(readBack(tomlString('\uD83D\uDE80')), '🚀');
});

test('non-strings are TypeErrors', () => {
  assert.throws(() => tomlString(5), TypeError);
  assert.throws(() => tomlString(null), /not null/);
  assert.throws(() => tomlArray('abc'), TypeError);
  assert.throws(() => tomlArray(['a', 2]), /element 1/);
  assert.throws(() => tomlKey(undefined), TypeError);
});

test('tomlArray: inline when short, one element a line otherwise', () => {
  assert.equal(tomlArray([]), '[]');
  assert.equal(tomlArray(['XPENDING mail senders', 'XINFO GROUPS mail']), '["XPENDING mail senders", "XINFO GROUPS mail"]');
  const long = ['XADD mail 1-0 to ada subject welcome', 'XADD mail 2-0 to bo subject welcome', 's1> XREADGROUP GROUP senders s1 STREAMS mail >'];
  const written = tomlArray(long);
  assert.equal(written, '[\n' + long.map((l) => `  ${JSON.stringify(l)},\n`).join('') + ']');
  assert.deepEqual(readBack(written), long);
  const multi = ['one\ntwo', 'three "quoted"'];
  assert.ok(tomlArray(multi).startsWith('[\n'));
  assert.deepEqual(readBack(tomlArray(multi)), multi);
  assert.deepEqual(readBack(tomlArray(HOSTILE)), HOSTILE);
});

test('tomlKey: bare when TOML allows it, quoted otherwise', () => {
  for (const k of ['id', 'o-100', 'under_score', 'A9', '123']) assert.equal(tomlKey(k), k);
  for (const k of ['a b', 'a.b', '', 'ключ', 'a"b', 'line\nbreak', 'tab\t', '=', '#', '[x]', '🚀']) {
    const written = tomlKey(k);
    assert.ok(written.startsWith('"') && !written.includes('\n'), `${JSON.stringify(k)} is written as a one-line quoted key`);
    assert.deepEqual(Object.keys(parse(`${written} = 1\n`)), [k]);
  }
});

test('a table written with the helpers parses back', () => {
  const values = { orders: 'parcels', 'o-100': 'o-512', 'with space': 'x "y"', 'dotted.name': 'z' };
  const line = `values = { ${Object.entries(values).map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`).join(', ')} }`;
  assert.deepEqual({ ...parse(line).values }, values);
});
