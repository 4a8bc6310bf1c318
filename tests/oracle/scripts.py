#!/usr/bin/env python3
"""Command files run by `streamlab run` against the same files piped into `redis-cli` and a
real Redis 8.2.3 (standard library only).

`redis-cli --no-raw < file` sends each line once the previous one is answered, so a blocked
read with a timeout answers `(nil)` when it runs out and the next line follows. `streamlab
--profile redis-8.2 run file` must print the same replies: the transcript, without its `> `
echo lines, its comments and its `(... waits: the virtual clock moves N ms ...)` lines, is
exactly what redis-cli prints. The reference runs on the real clock, so each file is one
connection and its timeouts are short.

    python3 tests/oracle/scripts.py --port 16382 --streamlab target/release/streamlab \\
        tests/oracle/scripts/*.txt

Exit status 0 when every file matches, 1 otherwise.
"""

import argparse
import re
import subprocess
import sys

WAIT = re.compile(r"^\(\S+'s \S+ BLOCK \d+ waits: the virtual clock moves \d+ ms, to the next deadline\)$")


def replies(transcript):
    """A transcript's reply lines: what redis-cli prints for the same file."""
    kept = []
    for line in transcript.splitlines():
        if line.startswith("> ") or line.startswith("#") or not line.strip() or WAIT.match(line):
            continue
        kept.append(line)
    return kept


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True, help="a Redis 8.2.3 on the real clock")
    parser.add_argument("--streamlab", required=True, help="the streamlab binary")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    failed = 0
    for name in args.files:
        with open(name, "rb") as f:
            text = f.read()
        subprocess.run(["redis-cli", "-p", str(args.port), "FLUSHALL"], check=True, capture_output=True, timeout=20)
        reference = subprocess.run(["redis-cli", "-p", str(args.port), "--no-raw"], input=text,
                                   capture_output=True, timeout=60, check=True).stdout.decode()
        ours = subprocess.run([args.streamlab, "--profile", "redis-8.2", "run", name],
                              capture_output=True, timeout=60)
        transcript = ours.stdout.decode()
        expected, actual = reference.splitlines(), replies(transcript)
        if ours.returncode != 0 or expected != actual or not any(WAIT.match(l) for l in transcript.splitlines()):
            failed += 1
            print(f"FAIL {name} (streamlab exit {ours.returncode})")
            print("redis-cli:", *expected, sep="\n  ")
            print("streamlab run:", *transcript.splitlines(), sep="\n  ")
    print(f"{len(args.files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
