#!/usr/bin/env python3
"""Replay golden transcripts against real servers and diff the replies.

    compare.py --port P [--server KIND=PORT ...] [--exact-clock] FILE...

Each FILE is a transcript: one of tests/transcripts/, or a lesson's golden
trace (lessons/golden/, sections starting with `:profile`).  A server started
under faketime (redis.sh with ORACLE_FAKETIME=1) is found by its port, and
`:clock` moves its clock; on the real clock record.py sleeps, and a file with
more than MAX_SLEEP_S of `:clock` fails instead.  --exact-clock keeps the
wall-clock values of files run under faketime (the server's clock is then the
virtual clock) instead of normalising them.  Its first line may name the server it was recorded
from, "# oracle: redis-7.4" or "# oracle: valkey-9"; without one it is Redis
8.2, the server on port P (--port).  --server gives the port of another kind.
Its inputs are re-recorded with record.py against that server; both the stored
and the fresh transcript are normalised (values that depend on the wall clock,
see oracle_lib.find_time_fields, and the connection id in HELLO replies) and
compared line by line.  A unified diff is printed for every mismatching file.
Files whose first line is "# oracle: skip", and files whose server was not
given, are not replayed.  The last line printed is
"N passed, M failed, K skipped"; the exit status is 1 when anything failed.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle_lib as lib  # noqa: E402
import record  # noqa: E402


# Above this much `:clock` time a file needs a server under faketime: on the real
# clock record.py would sleep through it.
MAX_SLEEP_S = 120


def compare_file(ports: dict[str, int], path: str, exact_clock: bool = False) -> tuple[str, list[str]]:
    """Return ("pass"|"fail"|"skip", diff lines)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    kind = lib.oracle_of(text)
    if kind == "skip":
        return "skip", []
    if kind not in lib.ORACLE_KINDS:
        return "fail", [f"{path}: unknown oracle '{kind}' (use one of {', '.join(lib.ORACLE_KINDS)} or skip)\n"]
    if kind not in ports:
        return "skip", [f"{path}: no {kind} server given (--server {kind}=PORT)\n"]
    port = ports[kind]
    expected_items = lib.parse_file_text(text)
    if not lib.is_transcript(text.split("\n")):
        return "fail", [f"{path}: not a transcript (no '> ' lines)\n"]
    clock_s = lib.clock_steps_ms(expected_items) / 1000
    if clock_s > MAX_SLEEP_S and lib.faketime_file(port) is None:
        return "fail", [f"{path}: its :clock lines add up to {clock_s:.0f} s; the {kind} server on "
                        f"port {port} runs on the real clock (start it with ORACLE_FAKETIME=1 "
                        "tests/oracle/redis.sh start)\n"]
    try:
        fresh = record.record_text(port, text)
    except record.RecorderError as e:
        return "fail", [f"{path}: recorder failed: {e}\n"]
    actual_items = lib.parse_file_text(fresh)
    clock = not (exact_clock and lib.faketime_file(port))
    want = lib.normalise_items(expected_items, clock)
    got = lib.normalise_items(actual_items, clock)
    if want == got:
        return "pass", []
    diff = difflib.unified_diff(
        [ln + "\n" for ln in want], [ln + "\n" for ln in got],
        fromfile=f"{path} (stored)", tofile=f"{path} (redis)")
    return "fail", list(diff)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True, help="port of the Redis 8.2 server")
    ap.add_argument("--server", action="append", default=[], metavar="KIND=PORT",
                    help="port of another server kind (redis-7.4, valkey-9)")
    ap.add_argument("--exact-clock", action="store_true",
                    help="on servers under faketime, compare timestamps and idle times as they are")
    ap.add_argument("files", nargs="+")
    opts = ap.parse_args()
    ports = {lib.DEFAULT_ORACLE: opts.port}
    for spec in opts.server:
        kind, _, port = spec.partition("=")
        if kind not in lib.ORACLE_KINDS or not port.isdigit():
            ap.error(f"bad --server {spec!r}: use KIND=PORT with KIND in {', '.join(lib.ORACLE_KINDS)}")
        ports[kind] = int(port)
    passed = failed = skipped = 0
    for path in opts.files:
        verdict, diff = compare_file(ports, path, opts.exact_clock)
        if verdict == "pass":
            passed += 1
        elif verdict == "skip":
            skipped += 1
            print(f"skip {path}")
            sys.stdout.writelines(diff)
        else:
            failed += 1
            print(f"FAIL {path}")
            sys.stdout.writelines(diff)
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
