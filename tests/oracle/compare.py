#!/usr/bin/env python3
"""Replay golden transcripts against a real Redis and diff the replies.

    compare.py --port P FILE...

Each FILE is a transcript.  Its inputs are re-recorded with record.py against
the server on port P; both the stored and the fresh transcript are normalised
(values that depend on the wall clock, see oracle_lib.find_time_fields, and
the connection id in HELLO replies) and compared line by line.  A unified diff
is printed for every mismatching file.  Files whose first line is
"# oracle: skip" are not replayed.  The last line printed is
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


def compare_file(port: int, path: str) -> tuple[str, list[str]]:
    """Return ("pass"|"fail"|"skip", diff lines)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if lib.is_skipped(text):
        return "skip", []
    expected_items = lib.parse_file_text(text)
    if not lib.is_transcript(text.split("\n")):
        return "fail", [f"{path}: not a transcript (no '> ' lines)\n"]
    try:
        fresh = record.record_text(port, text)
    except record.RecorderError as e:
        return "fail", [f"{path}: recorder failed: {e}\n"]
    actual_items = lib.parse_file_text(fresh)
    want = lib.normalise_items(expected_items)
    got = lib.normalise_items(actual_items)
    if want == got:
        return "pass", []
    diff = difflib.unified_diff(
        [ln + "\n" for ln in want], [ln + "\n" for ln in got],
        fromfile=f"{path} (stored)", tofile=f"{path} (redis)")
    return "fail", list(diff)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("files", nargs="+")
    opts = ap.parse_args()
    passed = failed = skipped = 0
    for path in opts.files:
        verdict, diff = compare_file(opts.port, path)
        if verdict == "pass":
            passed += 1
        elif verdict == "skip":
            skipped += 1
            print(f"skip {path}")
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
