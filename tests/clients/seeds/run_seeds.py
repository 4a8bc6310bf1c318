#!/usr/bin/env python3
"""Runs the Python blocks of seed articles 000 and 002, unmodified, against a server binary.

The articles live outside the repository (`../shared/seeds/` from its root; they are not
ours, so nothing extracted from them is ever written inside the repository). Each article's
"Check it quickly" block starts its own private server from `$REDIS_SERVER` with
`--port 0 --unixsocket ... --save "" --appendonly no --dir ... --maxmemory-policy noeviction`,
asserts on the replies, prints one summary line per checked claim, stops the server with
SIGTERM and asserts it exited with status 0. This script extracts every such block at run
time into a temporary directory, runs it with `REDIS_SERVER` pointing at the binary under test
and checks that it exits 0 having printed each of its summary lines.

A block that is not valid Python as published cannot pass against any server; it is
reported as skipped with the compiler's reason (seed 002's blocks lost their indentation:
every indented line starts with exactly one space).

    run_seeds.py --server target/release/streamlab-server [--seeds DIR] [--also PATH]

`--also PATH` runs the same blocks against another server too (Redis 8.2.3), to show that a
failure or a skip is the article's and not StreamLab's. The last line is
`seeds: N passed, N failed, N skipped`; the exit status is 1 if anything failed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ARTICLES = ("000_*.txt", "002_*.txt")
# A block runs from its first import to the first prose line after it: a capitalised
# sentence at the start of a line (no Python statement in these blocks starts that way).
BLOCK_START = re.compile(r"^from contextlib import contextmanager\s*$")
PROSE = re.compile(r"^[A-Z][a-z]+(?: [a-zA-Z’'-]+)+[ ,.;:]")


def blocks(text):
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if BLOCK_START.match(lines[i]):
            j = i + 1
            while j < len(lines) and not PROSE.match(lines[j]):
                j += 1
            yield i + 1, "\n".join(lines[i:j]).rstrip() + "\n"
            i = j
        else:
            i += 1


def expected_prints(source):
    return re.findall(r'^\s*print\("([^"\\]*)"\)\s*$', source, re.M)


def run_block(source, server, workdir, name):
    """Returns (status, detail) with status 'passed', 'failed' or 'skipped'."""
    try:
        compile(source, name, "exec")
    except SyntaxError as error:
        return "skipped", f"not valid Python as published: {error.msg} (line {error.lineno}: {error.text!r})"
    script = Path(workdir) / f"{name}.py"
    script.write_text(source)
    env = dict(os.environ, REDIS_SERVER=str(server))
    try:
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, timeout=120,
                              cwd=workdir, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "failed", "timed out after 120 s"
    out = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        return "failed", f"exit status {done.returncode}\n{out}{done.stderr.decode(errors='replace')}"
    missing = [line for line in expected_prints(source) if line not in out.splitlines()]
    if missing:
        return "failed", f"summary lines missing: {missing}\n{out}"
    return "passed", out.rstrip()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="the server binary under test")
    parser.add_argument("--seeds", default=str(ROOT.parent / "shared" / "seeds"), help="the seed articles' folder")
    parser.add_argument("--also", help="another server binary to run the same blocks against")
    args = parser.parse_args()
    seeds = Path(args.seeds)
    articles = [path for pattern in ARTICLES for path in sorted(seeds.glob(pattern))]
    if len(articles) != len(ARTICLES):
        print(f"seeds: cannot find {', '.join(ARTICLES)} in {seeds}", file=sys.stderr)
        return 2
    servers = [("StreamLab", Path(args.server).resolve())]
    if args.also:
        servers.append(("other", Path(args.also).resolve()))
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    with tempfile.TemporaryDirectory(prefix="streamlab-seeds-") as workdir:
        for article in articles:
            for line, source in blocks(article.read_text()):
                name = f"{article.name.split('_')[0]}_line{line}"
                for label, server in servers:
                    status, detail = run_block(source, server, workdir, name)
                    if label == "StreamLab":
                        counts[status] += 1
                    print(f"{status.upper():7} {article.name} block at line {line} [{label}]")
                    for text in detail.splitlines():
                        print(f"        {text}")
    print(f"seeds: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
