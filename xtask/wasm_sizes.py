#!/usr/bin/env python3
"""Where a wasm bundle's bytes go, by function, from its name section.

Read a bundle that kept its names: `STREAMLAB_KEEP_NAMES=1 cargo xtask dist` leaves them in
dist/streamlab_bg.wasm and dist/grader/streamlab_grader_bg.wasm (the same code that ships, after
wasm-bindgen's collection), or the cargo output in target/wasm32-unknown-unknown/wasm-release/.

  python3 xtask/wasm_sizes.py WASM [--top N]        largest function bodies, raw bytes
  python3 xtask/wasm_sizes.py WASM --crates [N]     raw bytes by the crate a name starts with
  python3 xtask/wasm_sizes.py WASM --gzip REGEX...  what the functions matching each REGEX
                                                    cost gzipped

Raw size misleads: identical copies cost little after gzip, unique code about half its size.
`--gzip` measures the real cost: it empties the matching bodies and reports how much smaller
the gzipped bundle (name section dropped, as shipped) gets.
"""
import argparse
import collections
import re
import zlib

MANGLED = [('$LT$', '<'), ('$GT$', '>'), ('$u20$', ' '), ('$RF$', '&'), ('$BP$', '*'), ('$C$', ','),
           ('$u7b$', '{'), ('$u7d$', '}'), ('$u5b$', '['), ('$u5d$', ']'), ('$u27$', "'"), ('$SP$', '@'),
           ('$LP$', '('), ('$RP$', ')'), ('..', '::')]


def leb(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def encode_leb(value):
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return bytes(out)


def demangle(name):
    """Rust's legacy mangling (`_ZN...E`), well enough to read, without the hash."""
    if not name.startswith('_ZN'):
        return re.sub(r'::h[0-9a-f]{16}$', '', name)
    at, parts = 3, []
    while at < len(name) and name[at].isdigit():
        end = at
        while name[end].isdigit():
            end += 1
        length = int(name[at:end])
        parts.append(name[end:end + length])
        at = end + length
    if parts and re.fullmatch(r'h[0-9a-f]{16}', parts[-1]):
        parts.pop()
    text = '::'.join(parts)
    for code, char in MANGLED:
        text = text.replace(code, char)
    return text


class Wasm:
    def __init__(self, path):
        self.data = open(path, 'rb').read()
        self.sections = []  # (id, header start, payload start, payload length)
        at = 8
        while at < len(self.data):
            start, kind = at, self.data[at]
            length, at = leb(self.data, at + 1)
            self.sections.append((kind, start, at, length))
            at += length
        self.imported = self._imported_functions()
        self.bodies = self._bodies()
        self.names = self._names()

    def _payload(self, kind):
        return [(start, length) for k, _, start, length in self.sections if k == kind]

    def _imported_functions(self):
        count = 0
        for start, _ in self._payload(2):
            entries, at = leb(self.data, start)
            for _ in range(entries):
                for _ in range(2):  # module and field names
                    length, at = leb(self.data, at)
                    at += length
                kind = self.data[at]
                at += 1
                if kind == 0:  # function: type index
                    count += 1
                    _, at = leb(self.data, at)
                elif kind in (1, 2):  # table (with its element type) or memory: limits
                    if kind == 1:
                        at += 1
                    flags, at = leb(self.data, at)
                    _, at = leb(self.data, at)
                    if flags & 1:
                        _, at = leb(self.data, at)
                elif kind == 3:  # global: type and mutability
                    at += 2
        return count

    def _bodies(self):
        """(start, end) of each function body entry, its size prefix included."""
        bodies = []
        for start, _ in self._payload(10):
            count, at = leb(self.data, start)
            for _ in range(count):
                length, body = leb(self.data, at)
                bodies.append((at, body + length))
                at = body + length
        return bodies

    def _names(self):
        names = {}
        for start, length in self._payload(0):
            name_length, at = leb(self.data, start)
            if self.data[at:at + name_length] != b'name':
                continue
            at += name_length
            end = start + length
            while at < end:
                sub = self.data[at]
                sub_length, at = leb(self.data, at + 1)
                sub_end = at + sub_length
                if sub == 1:  # function names
                    count, at = leb(self.data, at)
                    for _ in range(count):
                        index, at = leb(self.data, at)
                        size, at = leb(self.data, at)
                        names[index] = demangle(self.data[at:at + size].decode('utf8', 'replace'))
                        at += size
                at = sub_end
        return names

    def functions(self):
        """(raw size, name) of every function body."""
        return [(end - start, self.names.get(self.imported + i, f'function {self.imported + i}'))
                for i, (start, end) in enumerate(self.bodies)]

    def shipped(self, emptied=lambda name: False):
        """The bundle as shipped (no custom sections), with the bodies `emptied` picks replaced
        by `unreachable`."""
        out = bytearray(self.data[:8])
        for kind, header, start, length in self.sections:
            if kind == 0:
                continue
            if kind != 10:
                out += self.data[header:start + length]
                continue
            code = bytearray(encode_leb(len(self.bodies)))
            for i, (body_start, body_end) in enumerate(self.bodies):
                name = self.names.get(self.imported + i, '')
                # Three bytes: no locals, unreachable, end.
                code += b'\x03\x00\x00\x0b' if emptied(name) else self.data[body_start:body_end]
            out += b'\x0a' + encode_leb(len(code)) + code
        return bytes(out)


def gzipped(data):
    # gzip -9 in KB of 1000 bytes, as tests/browser/harness.mjs counts; Node's own zlib reads
    # about 2 KB more on the app's bundle, so compare differences, not totals, with its numbers.
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    return len(deflate.compress(data) + deflate.flush()) / 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('wasm')
    parser.add_argument('--top', type=int, default=60)
    parser.add_argument('--crates', nargs='?', const=40, type=int)
    parser.add_argument('--gzip', nargs='+', metavar='REGEX')
    args = parser.parse_args()
    wasm = Wasm(args.wasm)
    functions = sorted(wasm.functions(), reverse=True)
    if not wasm.names:
        print('no name section: build with STREAMLAB_KEEP_NAMES=1')
    if args.gzip:
        whole = gzipped(wasm.shipped())
        print(f'{whole:8.2f} KB gzipped, as shipped')
        for pattern in args.gzip:
            regex = re.compile(pattern)
            cost = whole - gzipped(wasm.shipped(lambda name: bool(regex.search(name))))
            print(f'{cost:8.2f} KB  {pattern}')
    elif args.crates:
        by_crate = collections.Counter()
        for size, name in functions:
            found = re.search(r'([A-Za-z_][A-Za-z0-9_]*)(\[[0-9a-f]+\])?::', name)
            by_crate[found.group(1) if found else name] += size
        for crate, size in by_crate.most_common(args.crates):
            print(f'{size:8d}  {crate}')
    else:
        for size, name in functions[:args.top]:
            print(f'{size:8d}  {name}')
    print(f'{sum(size for size, _ in functions):8d}  in {len(functions)} function bodies')


if __name__ == '__main__':
    main()
