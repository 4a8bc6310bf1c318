"""Shared pieces of the StreamLab oracle tooling (stdlib only).

- reading command files and transcripts into items,
- splitting a command line the way redis-cli does,
- counting how many lines redis-cli --no-raw prints for a RESP2 reply,
- finding the wall-clock dependent values in redis-cli output, so that
  compare.py can normalise them and record.py can rewrite them into the
  values StreamLab's virtual clock produces,
- `:clock` steps, and the clock files of servers started under faketime.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# StreamLab's virtual clock starts here (milliseconds since the epoch).
VIRTUAL_EPOCH_MS = 1700000000000

SKIP_MARKER = "# oracle: skip"
ORACLE_MARKER = "# oracle:"
DEFAULT_ORACLE = "redis-8.2"
# The servers a transcript can be compared with (tests/oracle/redis.sh KINDs).
ORACLE_KINDS = ("redis-8.2", "redis-7.4", "valkey-9")


# ---------------------------------------------------------------------------
# Transcript / command-file items
# ---------------------------------------------------------------------------

@dataclass
class Item:
    kind: str            # "comment" (comment or blank line), "cmd", "meta"
    text: str            # the input line as written (without "> ")
    expected: list[str] = field(default_factory=list)  # transcript output lines


def is_transcript(lines: list[str]) -> bool:
    return any(line.startswith("> ") or line == ">" for line in lines)


def parse_file_text(text: str) -> list[Item]:
    """Turn a command file or a transcript into a list of items.

    In a transcript only '> ' lines, '#' lines and blank lines are inputs; every
    other line is expected output belonging to the item above it.  In a plain
    command file every line is an input.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    items: list[Item] = []
    transcript = is_transcript(lines)
    for line in lines:
        if line.startswith("#") or line.strip() == "":
            items.append(Item("comment", line))
            continue
        if transcript:
            if line.startswith("> "):
                body = line[2:]
            else:
                if not items:
                    raise ValueError(f"output line before any command: {line!r}")
                items[-1].expected.append(line)
                continue
        else:
            body = line
        kind = "meta" if body.startswith(":") else "cmd"
        items.append(Item(kind, body))
    return items


def is_skipped(text: str) -> bool:
    return oracle_of(text) == "skip"


def oracle_of(text: str) -> str:
    """The server a transcript is compared with: its first line may be
    "# oracle: KIND" (KIND one of ORACLE_KINDS, or "skip" for files no server
    here can check: features newer than 8.2, StreamLab-only meta-commands);
    without one, Redis 8.2."""
    first = text.split("\n", 1)[0].strip()
    if not first.lower().startswith(ORACLE_MARKER):
        return DEFAULT_ORACLE
    words = first[len(ORACLE_MARKER):].split()
    return words[0].lower() if words else DEFAULT_ORACLE


# ---------------------------------------------------------------------------
# The clock: `:clock` steps and faketime clock files
# ---------------------------------------------------------------------------

_CLOCK_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
_CLOCK_STEP = re.compile(r"^\+?([0-9]*\.?[0-9]*)([a-z]*)$")


def parse_clock(text: str) -> int | None:
    """Milliseconds of a `:clock` step, as the console reads it: `+1500`, `1500`,
    `+1.5s`, `+2m`, `+1h`, `+250ms` (rounded to the nearest ms, halves up); None
    when it is not one."""
    m = _CLOCK_STEP.match(text)
    if not m or m.group(1) in ("", "."):
        return None
    factor = _CLOCK_UNITS.get(m.group(2) or "ms")
    if factor is None:
        return None
    try:
        ms = Decimal(m.group(1)) * factor
    except InvalidOperation:
        return None
    if not 0 <= ms < Decimal(10) ** 15:
        return None
    return int(ms.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def clock_steps_ms(items: list[Item]) -> int:
    """How far the `:clock` lines of a file move the clock, in total (ms)."""
    total = 0
    for it in items:
        parts = it.text.split()
        if it.kind == "meta" and len(parts) == 2 and parts[0] == ":clock":
            total += parse_clock(parts[1]) or 0
    return total


def run_dir() -> str:
    """Where tests/oracle/redis.sh keeps its state ($ORACLE_RUN_DIR)."""
    return os.environ.get("ORACLE_RUN_DIR") or "/tmp/streamlab-oracle"


def faketime_file(port: int) -> str | None:
    """The clock file of the server redis.sh started on `port` under faketime
    (ORACLE_FAKETIME=1), or None when that server runs on the real clock."""
    path = os.path.join(run_dir(), f"faketime-{port}.txt")
    return path if os.path.isfile(path) else None


def read_faketime(path: str) -> int:
    """The time a faketime clock file holds ("1700000000.000005": Unix seconds
    and microseconds), in whole milliseconds."""
    with open(path, encoding="ascii") as f:
        text = f.read().strip()
    sec, _, frac = text.partition(".")
    if not sec.isdigit() or (frac and not frac.isdigit()):
        raise ValueError(f"{path}: not a faketime clock file ({text!r}); "
                         "start the server with ORACLE_FAKETIME=1 tests/oracle/redis.sh start")
    return int(sec) * 1000 + int((frac + "000")[:3])


def write_faketime(path: str, ms: int) -> None:
    """Set the clock of the server reading `path` to `ms` (atomically: the
    server reads the file at every clock reading). 5 us past the millisecond,
    because libfaketime reads the fraction as a double and .000000 would come
    back as the millisecond before."""
    tmp = path + ".new"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(f"{ms // 1000}.{ms % 1000:03d}005\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# redis-cli argument splitting (the rules of its interactive line parser)
# ---------------------------------------------------------------------------

_ESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", "b": b"\b", "a": b"\a"}
_HEX = set(b"0123456789abcdefABCDEF")


def split_args(line: str) -> list[bytes]:
    """Split a redis-cli command line into arguments.

    Whitespace separates arguments; "double quotes" allow \\n \\r \\t \\b \\a
    \\xHH and \\<any>; 'single quotes' allow \\' only; a closing quote must be
    followed by whitespace or the end.  Raises ValueError on unbalanced quotes.
    """
    data = line.encode("utf-8")
    args: list[bytes] = []
    i, n = 0, len(data)
    while True:
        while i < n and data[i] in b" \n\r\t\f\v":
            i += 1
        if i >= n:
            return args
        cur = bytearray()
        inq = insq = False
        while True:
            if inq:
                if i >= n:
                    raise ValueError("unbalanced quotes")
                c = data[i]
                if (c == ord("\\") and i + 3 < n and data[i + 1] == ord("x")
                        and data[i + 2] in _HEX and data[i + 3] in _HEX):
                    cur.append(int(data[i + 2:i + 4], 16))
                    i += 3
                elif c == ord("\\") and i + 1 < n:
                    i += 1
                    e = chr(data[i])
                    cur += _ESCAPES.get(e, bytes([data[i]]))
                elif c == ord('"'):
                    if i + 1 < n and data[i + 1] not in b" \n\r\t\f\v":
                        raise ValueError("closing quote must be followed by a space")
                    i += 1
                    break
                else:
                    cur.append(c)
            elif insq:
                if i >= n:
                    raise ValueError("unbalanced quotes")
                c = data[i]
                if c == ord("\\") and i + 1 < n and data[i + 1] == ord("'"):
                    i += 1
                    cur.append(ord("'"))
                elif c == ord("'"):
                    if i + 1 < n and data[i + 1] not in b" \n\r\t\f\v":
                        raise ValueError("closing quote must be followed by a space")
                    i += 1
                    break
                else:
                    cur.append(c)
            else:
                if i >= n:
                    break
                c = data[i]
                if c in b" \n\r\t\f\v":
                    break
                if c == ord('"'):
                    inq = True
                elif c == ord("'"):
                    insq = True
                else:
                    cur.append(c)
            i += 1
        args.append(bytes(cur))


def command_name(line: str) -> str:
    try:
        args = split_args(line)
    except ValueError:
        return ""
    return args[0].decode("latin-1").lower() if args else ""


def encode_command(args: list[bytes]) -> bytes:
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


# ---------------------------------------------------------------------------
# RESP2 reply framing: how many lines redis-cli --no-raw prints per reply
# ---------------------------------------------------------------------------

class RespCounter:
    """Incremental RESP2 parser that only measures replies.

    feed() returns a list of (printed_line_count, top_level_error) for every
    reply completed by the new bytes.  redis-cli prints one line per leaf
    value; an empty array prints "(empty array)" and a null array "(nil)",
    one line each.
    """

    def __init__(self) -> None:
        self.buf = b""

    def feed(self, data: bytes) -> list[tuple[int, bool]]:
        self.buf += data
        done = []
        while True:
            res = self._parse(0)
            if res is None:
                break
            end, lines, is_err = res
            self.buf = self.buf[end:]
            done.append((lines, is_err))
        return done

    def _parse(self, pos: int):
        buf = self.buf
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return None
        kind = buf[pos:pos + 1]
        head = buf[pos + 1:eol]
        if kind in (b"+", b"-", b":"):
            return eol + 2, 1, kind == b"-"
        if kind == b"$":
            size = int(head)
            if size < 0:
                return eol + 2, 1, False
            end = eol + 2 + size + 2
            if len(buf) < end:
                return None
            return end, 1, False
        if kind == b"*":
            count = int(head)
            if count <= 0:
                return eol + 2, 1, False
            p, total = eol + 2, 0
            for _ in range(count):
                res = self._parse(p)
                if res is None:
                    return None
                p, lines, _ = res
                total += lines
            return p, total, False
        raise ValueError(f"unexpected RESP type byte {kind!r} (RESP3 is not supported)")


# ---------------------------------------------------------------------------
# redis-cli noise that is not part of a reply
# ---------------------------------------------------------------------------

_NOISE = re.compile(r"^(Reading messages\.\.\. \(press Ctrl-C to quit\)|\(\d+\.\d\ds\))$")


def is_noise(line: str) -> bool:
    """Lines redis-cli prints around replies: the pubsub banner and the
    "(1.23s)" latency note it adds after a command that took >= 0.5 s."""
    return bool(_NOISE.match(line))


# ---------------------------------------------------------------------------
# Wall-clock dependent values
# ---------------------------------------------------------------------------

# A 13-digit millisecond timestamp, alone or as the ms part of a stream id.
_TS_ID = re.compile(r"(?<![0-9])([0-9]{13})-([0-9]+)(?![0-9])")
_TS = re.compile(r"(?<![0-9-])([0-9]{13})(?![0-9])")
# "idle" / "inactive" labels of XINFO CONSUMERS: the value is on the next line.
_TIME_LABEL = re.compile(r'"(idle|inactive)"$')
_INT_LINE = re.compile(r"^(.*\(integer\) )([0-9]+)$")
# XPENDING extended form: the 3rd element of each entry is its idle time.
_XPENDING_IDLE = re.compile(r"^(\s+3\) \(integer\) )([0-9]+)$")
# HELLO's "id" field counts connections since the server started.
_HELLO_ID = re.compile(r'"id"$')

PREFIX_RE = re.compile(r"^(\[[^\]\s]+\] )(.*)$")


@dataclass
class TimeField:
    line: int        # index into the output block
    start: int       # character span of the value in that line
    end: int
    kind: str        # "ts" (timestamp), "id" (ms part of id; seq follows), "idle"


def find_time_fields(lines: list[str], cmd: str) -> list[TimeField]:
    """Locate wall-clock dependent values in one reply block.

    `lines` are the output lines (no "[NAME] " prefix) of one reply of the
    command named `cmd` (lower case; "" when unknown).
    """
    found: list[TimeField] = []
    for i, line in enumerate(lines):
        taken: list[tuple[int, int]] = []
        for m in _TS_ID.finditer(line):
            found.append(TimeField(i, m.start(1), m.end(2), "id"))
            taken.append((m.start(), m.end()))
        for m in _TS.finditer(line):
            if any(a <= m.start(1) < b for a, b in taken):
                continue
            found.append(TimeField(i, m.start(1), m.end(1), "ts"))
        if i > 0 and _TIME_LABEL.search(lines[i - 1]):
            m = _INT_LINE.match(line)
            if m and len(m.group(2)) != 13:
                found.append(TimeField(i, m.start(2), m.end(2), "idle"))
        if cmd == "xpending":
            m = _XPENDING_IDLE.match(line)
            if m and len(m.group(2)) != 13:
                found.append(TimeField(i, m.start(2), m.end(2), "idle"))
    return found


def find_hello_ids(lines: list[str], cmd: str) -> list[TimeField]:
    out = []
    if cmd != "hello":
        return out
    for i, line in enumerate(lines):
        if i > 0 and _HELLO_ID.search(lines[i - 1]):
            m = _INT_LINE.match(line)
            if m:
                out.append(TimeField(i, m.start(2), m.end(2), "clientid"))
    return out


_PLACEHOLDER = {"ts": "<TIMESTAMP>", "id": "<TIMESTAMP>-<SEQ>", "idle": "<IDLE>",
                "clientid": "<CLIENT-ID>"}


def normalise_block(lines: list[str], cmd: str, clock: bool = True) -> list[str]:
    """Replace the values that depend on the server's history: the client id in
    HELLO, and (unless clock is False) the wall-clock dependent ones."""
    fields = (find_time_fields(lines, cmd) if clock else []) + find_hello_ids(lines, cmd)
    out = list(lines)
    # replace right-to-left within each line so spans stay valid
    for f in sorted(fields, key=lambda f: (f.line, -f.start)):
        line = out[f.line]
        out[f.line] = line[:f.start] + _PLACEHOLDER[f.kind] + line[f.end:]
    return out


def split_prefixed(lines: list[str]) -> tuple[list[str], dict[str, list[int]]]:
    """Separate the unprefixed reply lines from "[NAME] " lines.

    Returns (own_line_indexes, {name: [line indexes]}).
    """
    own: list[int] = []
    others: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        m = PREFIX_RE.match(line)
        if m:
            others.setdefault(m.group(1), []).append(i)
        else:
            own.append(i)
    return own, others


def normalise_output(lines: list[str], cmd: str, clock: bool = True) -> list[str]:
    """Normalise the output lines following one input item."""
    out = list(lines)
    own, others = split_prefixed(lines)
    groups = [("", own, cmd)] + [(p, idx, "") for p, idx in others.items()]
    for prefix, idx, c in groups:
        body = [lines[i][len(prefix):] for i in idx]
        norm = normalise_block(body, c, clock)
        for i, text in zip(idx, norm):
            out[i] = prefix + text
    return out


def normalise_items(items: list[Item], clock: bool = True) -> list[str]:
    """Render items (with their expected output) as normalised text lines;
    clock=False keeps wall-clock values (a faketime'd server's clock is the
    virtual clock, so they must match as they are)."""
    out: list[str] = []
    for it in items:
        if it.kind == "comment":
            out.append(it.text)
        else:
            out.append("> " + it.text)
        cmd = command_name(it.text) if it.kind == "cmd" else ""
        out.extend(normalise_output(it.expected, cmd, clock))
    return out
