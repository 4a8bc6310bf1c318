#!/usr/bin/env python3
"""Record StreamLab transcripts from a real Redis server through redis-cli.

    record.py --port P FILE...            print the transcript(s) on stdout
    record.py --port P --in-place FILE... rewrite each FILE with its transcript
    record.py --port P --virtual ...      also rewrite wall-clock values into
                                          StreamLab's virtual-clock values
    record.py --port P --faketime FILE .. the server's clock is FILE (found by
                                          itself for a server redis.sh started
                                          with ORACLE_FAKETIME=1)

FILE is a command file (one redis-cli command line, '#' comment, blank line or
':' meta-command per line) or an existing transcript (its '> ' lines are the
inputs, the rest is ignored).

Every connection name gets its own `redis-cli -p PROXY --no-raw` process.  The
process talks to the server through a small in-process TCP relay, which lets
the recorder (a) count the RESP replies the server sends, so it knows exactly
how many lines redis-cli will print, and (b) write commands directly to the
server for a connection whose redis-cli sits in its Pub/Sub read loop (redis-cli
7.0 stops reading its standard input after SUBSCRIBE; it keeps printing every
reply that arrives on the socket, which is what we want to show).

How the end of a reply is found:
  * ordinary command: the line is followed by `ECHO <marker>`; lines are read
    until redis-cli prints the marker;
  * inside MULTI (queued commands, MULTI itself): exactly one line, no marker
    (a marker would be queued); EXEC/DISCARD end the transaction and get one;
  * SUBSCRIBE/PSUBSCRIBE/SSUBSCRIBE and every command of a connection whose
    redis-cli is in its Pub/Sub loop: the relay counts replies; after a short
    quiet period the recorder reads exactly the lines those replies print;
  * XREAD/XREADGROUP with BLOCK: if the server lists the connection as blocked
    (CLIENT LIST flag "b") before it answers, the connection is marked blocked
    and prints nothing; after every later step blocked and subscribed
    connections are polled and whatever they received is printed with a
    "[NAME] " prefix (the marker line dropped).

The clock: `:clock +MS` sleeps MS ms, unless the server runs under faketime
(tests/oracle/redis.sh with ORACLE_FAKETIME=1): its clock is frozen at the time
its clock file holds, which the recorder puts at StreamLab's virtual epoch at
the start of each file and section and moves MS ms on at `:clock +MS`, waiting
until the server reads the new time and then until every blocked read whose
timeout has passed is answered (the server's cron notices, hz 10).
"""

from __future__ import annotations

import argparse
import os
import queue
import select
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle_lib as lib  # noqa: E402

QUIET = 0.05            # s: quiet period after replies on a Pub/Sub connection
POLL_SETTLE = 0.02      # s: let relays pick up bytes before polling
LONG = 10.0             # s: anything slower than this is a recorder failure
TIMEOUT_WAIT = 2.0      # s: a blocked read past its timeout is answered within this
SUBSCRIBE_CMDS = ("subscribe", "psubscribe", "ssubscribe")
REARM = b"SUBSCRIBE __oracle_rearm__\n"
# What redis-cli asks first, for its interactive help and hints only; the relay answers it
# with an empty array: the real reply (about 220 KB) made opening a connection 3x slower.
COMMAND_DOCS = b"*2\r\n$7\r\nCOMMAND\r\n$4\r\nDOCS\r\n"
DEBUG = bool(os.environ.get("ORACLE_DEBUG"))


class RecorderError(Exception):
    pass


# ---------------------------------------------------------------------------
# Relay between one redis-cli and the server
# ---------------------------------------------------------------------------

class Relay:
    def __init__(self, port: int) -> None:
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.server = socket.create_connection(("127.0.0.1", port))
        self.server.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # the server lists this connection in CLIENT LIST as addr=127.0.0.1:<local_port>
        self.local_port = self.server.getsockname()[1]
        self.client: socket.socket | None = None
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()            # both threads may write to the client
        self.replies: list[tuple[int, bool]] = []   # (printed lines, top-level error)
        self.drop_client_bytes = False               # Pub/Sub loop: cli writes go nowhere
        self.counter = lib.RespCounter()
        self.closed = False

    def accept(self) -> None:
        self.listener.settimeout(LONG)
        self.client, _ = self.listener.accept()
        self.client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.listener.close()
        threading.Thread(target=self._up, daemon=True).start()
        threading.Thread(target=self._down, daemon=True).start()

    def _up(self) -> None:
        assert self.client is not None
        first = True
        try:
            while True:
                data = self.client.recv(65536)
                if not data:
                    break
                if first and data.startswith(COMMAND_DOCS):
                    with self.send_lock:
                        self.client.sendall(b"*0\r\n")
                    data = data[len(COMMAND_DOCS):]
                first = False
                if data and not self.drop_client_bytes:
                    self.server.sendall(data)
        except OSError:
            pass

    def _down(self) -> None:
        assert self.client is not None
        try:
            while True:
                data = self.server.recv(65536)
                if not data:
                    break
                with self.lock:
                    self.replies.extend(self.counter.feed(data))
                with self.send_lock:
                    self.client.sendall(data)
        except OSError:
            pass

    def reply_count(self) -> int:
        with self.lock:
            return len(self.replies)

    def replies_since(self, base: int) -> list[tuple[int, bool]]:
        with self.lock:
            return list(self.replies[base:])

    def inject(self, args: list[bytes]) -> None:
        self.server.sendall(lib.encode_command(args))

    def close(self) -> None:
        self.closed = True
        for s in (self.server, self.client):
            if s is None:
                continue
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


# ---------------------------------------------------------------------------
# One named connection = one redis-cli process + relay
# ---------------------------------------------------------------------------

class Conn:
    def __init__(self, name: str, port: int) -> None:
        self.name = name
        self.relay = Relay(port)
        self.proc = subprocess.Popen(
            ["redis-cli", "-h", "127.0.0.1", "-p", str(self.relay.port), "--no-raw"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.relay.accept()
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._reader, daemon=True).start()
        self.state = "normal"          # normal | blocked | pubsub
        self.in_multi = False
        self.sentinel: str | None = None   # marker pending after a blocked command
        self.block_base = 0            # reply count when the connection blocked
        self.block_deadline: int | None = None   # server ms its BLOCK times out (faketime)
        self.consumed = 0              # replies already printed (pubsub state)
        self.order = 0                 # when it blocked / entered the pubsub loop
        # redis-cli asks for COMMAND DOCS when it starts (the relay answers);
        # a first marker makes sure that is behind us before any reply is counted.
        self.write(b"ECHO __oracle_hello__\n")
        self.read_until('"__oracle_hello__"')

    def _reader(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
            if DEBUG:
                print(f"  <{self.name}> {line!r}", file=sys.stderr)
            if lib.is_noise(line):
                continue
            self.lines.put(line)
        self.lines.put(None)

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_line(self, timeout: float = LONG) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise RecorderError(f"[{self.name}] redis-cli printed nothing for {timeout}s") from None
        if line is None:
            raise RecorderError(f"[{self.name}] redis-cli exited")
        return line

    def read_until(self, marker_line: str) -> list[str]:
        out = []
        while True:
            line = self.read_line()
            if line == marker_line:
                return out
            out.append(line)

    def wait_replies(self, base: int, timeout: float = LONG) -> None:
        """Wait for at least one reply after `base`, then for a quiet period."""
        deadline = time.monotonic() + timeout
        while self.relay.reply_count() <= base:
            if time.monotonic() > deadline:
                raise RecorderError(f"[{self.name}] no reply from the server")
            time.sleep(0.002)
        seen = self.relay.reply_count()
        quiet_until = time.monotonic() + QUIET
        while time.monotonic() < quiet_until:
            time.sleep(0.005)
            now = self.relay.reply_count()
            if now != seen:
                seen = now
                quiet_until = time.monotonic() + QUIET

    def read_replies(self, base: int) -> tuple[list[str], int, bool]:
        """Read the printed lines of every reply after `base`.

        Returns (lines, new reply count, whether the last reply was a
        top-level error)."""
        replies = self.relay.replies_since(base)
        out = []
        for nlines, _ in replies:
            for _ in range(nlines):
                out.append(self.read_line())
        last_err = bool(replies) and replies[-1][1]
        return out, base + len(replies), last_err

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.relay.close()


# ---------------------------------------------------------------------------
# Recorder
# ---------------------------------------------------------------------------

def raw_command(port: int, *args: str) -> bytes:
    """Run one command on a throw-away socket (setup, not part of transcripts)."""
    with socket.create_connection(("127.0.0.1", port), timeout=LONG) as s:
        s.sendall(lib.encode_command([a.encode() for a in args]))
        buf = b""
        counter = lib.RespCounter()
        while True:
            data = s.recv(65536)
            if not data:
                raise RecorderError("server closed the setup connection")
            buf += data
            if counter.feed(data):
                return buf


class Control:
    """A connection of the recorder's own (not a transcript's): CLIENT LIST to
    see whether a connection is blocked, INFO to read the server's clock."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=LONG)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.counter = lib.RespCounter()
        self.buf = b""

    def call(self, *args: str) -> bytes:
        """Send one command; return its raw reply (the payload of a bulk
        string starts after the first CRLF)."""
        self.sock.sendall(lib.encode_command([a.encode() for a in args]))
        while True:
            data = self.sock.recv(65536)
            if not data:
                raise RecorderError("server closed the recorder's control connection")
            self.buf += data
            if self.counter.feed(data):
                reply, self.buf = self.buf, b""
                return reply

    def blocked(self, local_port: int) -> bool:
        """Whether the server lists the client at 127.0.0.1:local_port as blocked."""
        listing = self.call("CLIENT", "LIST").split(b"\r\n", 1)[1]
        addr = f"addr=127.0.0.1:{local_port}".encode()
        for line in listing.split(b"\n"):
            fields = line.split(b" ")
            if addr in fields:
                flags = next((f[6:] for f in fields if f.startswith(b"flags=")), b"")
                return b"b" in flags
        return False

    def server_ms(self) -> int:
        """The server's clock (INFO server's server_time_usec), in ms."""
        info = self.call("INFO", "server")
        for line in info.split(b"\r\n"):
            if line.startswith(b"server_time_usec:"):
                return int(line.split(b":", 1)[1]) // 1000
        raise RecorderError("INFO server has no server_time_usec")

    def close(self) -> None:
        self.sock.close()


class FakeClock:
    """The frozen clock of a server started under faketime (redis.sh with
    ORACLE_FAKETIME=1): its time is what `path` holds, and it moves only here.

    Each file and each section (`:profile`) starts with the clock at StreamLab's
    virtual epoch, after FLUSHALL and with no client left, so the server's time
    is the virtual clock's throughout and lessons may name virtual times
    (`XTRIM s MINID 1700000060000-0`). Within a section it only moves forward;
    going back across a FLUSHALL is safe, since a stream's ids depend on its
    own last id, not on the clock's history, and the server's timers run on
    the monotonic clock, which faketime leaves alone."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self.ms = lib.read_faketime(path)
        except (OSError, ValueError) as e:
            raise RecorderError(str(e)) from None

    def set(self, control: Control, ms: int, port: int) -> None:
        """Put the clock at ms, and wait until the server reads it: Valkey 9
        runs a command at a time it read up to a few ms earlier, so the first
        command after a move may still see the old time."""
        self.ms = ms
        lib.write_faketime(self.path, ms)
        deadline = time.monotonic() + 2.0
        while (got := control.server_ms()) != ms:
            if time.monotonic() > deadline:
                raise RecorderError(
                    f"the server on port {port} does not run on the clock in {self.path} "
                    f"(it says {got}, the file {ms}); start it with "
                    f"ORACLE_FAKETIME=1 tests/oracle/redis.sh start {port}")
            time.sleep(0.0005)


def reset_server(port: int) -> None:
    """Make every file independent: no keys, default node limits, no clients
    left over from an earlier file (a stale subscriber would change PUBLISH
    counts)."""
    deadline = time.monotonic() + 5
    while True:
        listing = raw_command(port, "CLIENT", "LIST")
        # a bulk string with one line per client, this connection included
        payload = listing.split(b"\r\n", 1)[1]
        if payload.count(b"\n") <= 2:
            break
        if time.monotonic() > deadline:
            clients = payload.decode("utf-8", "replace").strip()
            raise RecorderError(f"clients of an earlier file or section are still connected:\n{clients}")
        time.sleep(0.01)
    for args in (("FLUSHALL",),
                 ("CONFIG", "SET", "stream-node-max-entries", "100"),
                 ("CONFIG", "SET", "stream-node-max-bytes", "4096")):
        reply = raw_command(port, *args)
        if not reply.startswith(b"+OK"):
            raise RecorderError(f"setup {args} failed: {reply!r}")


class Step:
    """Server time window of one input item, the virtual clock during it, and
    the section (from one `:profile` to the next) it belongs to."""

    def __init__(self, start: float, vclock: int, section: int) -> None:
        self.start = start
        self.end = start
        self.vclock = vclock
        self.section = section


class Recorder:
    def __init__(self, port: int, faketime: str | None = None) -> None:
        self.port = port
        self.conns: dict[str, Conn] = {}
        self.marker_seq = 0
        self.order_seq = 0
        self.vclock = lib.VIRTUAL_EPOCH_MS
        self.section = 0
        self.steps: list[Step] = []
        # output: list of (line, step index, command name for the block)
        self.out: list[tuple[str, int | None, str]] = []
        self._control: Control | None = None
        self.clock = FakeClock(faketime) if faketime else None

    # -- connections --------------------------------------------------------
    def conn(self, name: str) -> Conn:
        if name not in self.conns:
            self.conns[name] = Conn(name, self.port)
        return self.conns[name]

    @property
    def control(self) -> Control:
        if self._control is None:
            self._control = Control(self.port)
        return self._control

    def close(self) -> None:
        for c in self.conns.values():
            c.close()
        self.conns.clear()
        if self._control is not None:
            self._control.close()
            self._control = None

    def server_now(self) -> float:
        """The server's time in ms: the frozen clock, or the wall clock."""
        return float(self.clock.ms) if self.clock else time.time() * 1000.0

    def next_marker(self) -> str:
        self.marker_seq += 1
        return f"__oracle_{os.getpid()}_{self.marker_seq}__"

    # -- output -------------------------------------------------------------
    def emit(self, line: str, step: int | None = None, cmd: str = "") -> None:
        self.out.append((line, step, cmd))

    # -- running one command on one connection ------------------------------
    def run_command(self, c: Conn, line: str) -> list[str]:
        try:
            args = lib.split_args(line)
        except ValueError as e:
            raise RecorderError(f"cannot split {line!r}: {e}") from None
        if not args:
            raise RecorderError("empty command")
        name = args[0].decode("latin-1").lower()
        if c.state == "blocked":
            raise RecorderError(f"connection {c.name} is blocked; cannot send {line!r}")

        if c.state == "pubsub":
            base = c.relay.reply_count()
            c.relay.inject(args)
            c.wait_replies(base)
            lines, c.consumed, last_err = c.read_replies(base)
            if last_err:
                # redis-cli leaves its Pub/Sub loop on an error reply: put it
                # back (the relay drops the re-arming SUBSCRIBE).
                c.write(REARM)
            return lines

        data = line.encode("utf-8") + b"\n"
        if c.in_multi:
            if name in ("exec", "discard") and len(args) == 1:
                c.in_multi = False
                marker = self.next_marker()
                c.write(data + b"ECHO " + marker.encode() + b"\n")
                return c.read_until(f'"{marker}"')
            if name in SUBSCRIBE_CMDS:
                return self.enter_pubsub(c, data)
            c.write(data)
            reply = c.read_line()
            if reply.startswith("(error) EXECABORT"):
                # e.g. EXEC with extra arguments: the transaction is over
                c.in_multi = False
            return [reply]

        if name == "multi":
            c.write(data)
            reply = c.read_line()
            if reply == "OK":
                c.in_multi = True
            return [reply]

        if name in SUBSCRIBE_CMDS:
            return self.enter_pubsub(c, data)

        marker = self.next_marker()
        base = c.relay.reply_count()
        c.write(data + b"ECHO " + marker.encode() + b"\n")
        timeout = block_timeout(args) if name in ("xread", "xreadgroup") else None
        if timeout is not None and self.wait_blocked(c, base):
            c.state = "blocked"
            c.sentinel = f'"{marker}"'
            c.block_base = base
            c.block_deadline = int(self.server_now()) + timeout if self.clock and timeout else None
            self.order_seq += 1
            c.order = self.order_seq
            return []
        return c.read_until(f'"{marker}"')

    def wait_blocked(self, c: Conn, base: int) -> bool:
        """After a command that may block: True once the server lists the
        connection as blocked, False once it has answered."""
        deadline = time.monotonic() + LONG
        while c.relay.reply_count() <= base:
            if self.control.blocked(c.relay.local_port):
                return True
            if time.monotonic() > deadline:
                raise RecorderError(f"[{c.name}] neither answered nor blocked")
            time.sleep(0.001)
        return False

    def serve_timeouts(self) -> None:
        """After the frozen clock moved: wait until each blocked read whose
        timeout has passed is answered (the server notices in its cron)."""
        assert self.clock is not None
        for c in self.conns.values():
            if c.state != "blocked" or c.block_deadline is None or c.block_deadline > self.clock.ms:
                continue
            deadline = time.monotonic() + TIMEOUT_WAIT
            while c.relay.reply_count() <= c.block_base and time.monotonic() < deadline:
                time.sleep(0.002)

    def enter_pubsub(self, c: Conn, data: bytes) -> list[str]:
        """Send a SUBSCRIBE-like command through redis-cli (which then stays
        in its read loop unless the reply is an error)."""
        base = c.relay.reply_count()
        c.write(data)
        c.wait_replies(base)
        lines, consumed, last_err = c.read_replies(base)
        if not last_err:
            c.state = "pubsub"
            c.relay.drop_client_bytes = True
            c.consumed = consumed
            self.order_seq += 1
            c.order = self.order_seq
        return lines

    # -- deliveries to other connections ------------------------------------
    def poll_others(self, step: int) -> None:
        waiting = [c for c in self.conns.values() if c.state in ("blocked", "pubsub")]
        if not waiting:
            return
        time.sleep(POLL_SETTLE)
        for c in sorted(waiting, key=lambda c: c.order):
            if c.state == "blocked":
                if c.relay.reply_count() > c.block_base:
                    assert c.sentinel is not None
                    lines = c.read_until(c.sentinel)
                    c.state = "normal"
                    c.sentinel = None
                    for ln in lines:
                        self.emit(f"[{c.name}] {ln}", step, "")
            else:
                if c.relay.reply_count() > c.consumed:
                    c.wait_replies(c.consumed)
                    lines, c.consumed, _ = c.read_replies(c.consumed)
                    for ln in lines:
                        self.emit(f"[{c.name}] {ln}", step, "")

    # -- a whole file ---------------------------------------------------------
    def reset(self) -> None:
        """A fresh server (no clients, keys, changed limits) at the virtual epoch."""
        reset_server(self.port)
        self.vclock = lib.VIRTUAL_EPOCH_MS
        if self.clock:
            self.clock.set(self.control, self.vclock, self.port)

    def record_items(self, items: list[lib.Item]) -> None:
        self.reset()
        current = self.conn("default")
        for it in items:
            if it.kind == "comment":
                self.emit(it.text)
                continue
            step_idx = len(self.steps)
            step = Step(self.server_now(), self.vclock, self.section)
            self.steps.append(step)
            self.emit("> " + it.text)
            if it.kind == "meta":
                parts = it.text.split()
                step_ms = lib.parse_clock(parts[1]) if parts[0] == ":clock" and len(parts) == 2 else None
                if parts[0] == ":as" and len(parts) == 2:
                    current = self.conn(parts[1])
                elif parts[0] == ":profile" and len(parts) == 2:
                    # StreamLab starts a fresh session: no keys, no connections, the
                    # virtual clock back at its epoch. Which server answers is the
                    # file's "# oracle:" header's business, not this line's.
                    self.close()
                    self.reset()
                    self.section += 1
                    step.start = self.server_now()
                    step.vclock = self.vclock
                    step.section = self.section
                    current = self.conn("default")
                elif step_ms is not None:
                    if self.clock:
                        self.clock.set(self.control, self.clock.ms + step_ms, self.port)
                        self.serve_timeouts()
                    else:
                        time.sleep(step_ms / 1000.0)
                    self.vclock += step_ms
                    step.start = self.server_now()
                    step.vclock = self.vclock
                else:
                    raise RecorderError(f"unknown meta-command {it.text!r}")
            else:
                cmd = lib.command_name(it.text)
                for ln in self.run_command(current, it.text):
                    self.emit(ln, step_idx, cmd)
            self.poll_others(step_idx)
            step.end = self.server_now()

    # -- virtual clock ------------------------------------------------------
    def virtualise(self) -> list[str]:
        """Rewrite wall-clock values into what StreamLab's virtual clock gives.

        A real timestamp is mapped to the virtual time of the step (of the
        same section) during which it was taken; an idle time to the virtual
        distance between the step that printed it and the step in which its
        event happened. Values that match no step (e.g. XCLAIM IDLE/TIME given
        by hand) are left alone and reported on stderr for a manual fix. Not
        needed under faketime, where the server's clock is the virtual clock.
        """
        steps = self.steps
        tol = 2.0
        section = 0

        def step_of(real_ms: float, width: float = 0.0) -> Step | None:
            hits = [s for s in steps if s.section == section
                    and s.start - tol - width <= real_ms <= s.end + tol]
            if not hits:
                return None
            if len({s.vclock for s in hits}) != 1:
                return None
            return hits[0]

        lines = [ln for ln, _, _ in self.out]
        # group consecutive output lines of the same step and prefix
        i = 0
        while i < len(self.out):
            _, st, _ = self.out[i]
            if st is None:
                i += 1
                continue
            j = i
            while j < len(self.out) and self.out[j][1] == st:
                j += 1
            block = lines[i:j]
            cmd = self.out[i][2]
            section = steps[st].section
            own, others = lib.split_prefixed(block)
            groups = [("", own, cmd)] + [(p, idx, "") for p, idx in others.items()]
            for prefix, idx, c in groups:
                body = [block[k][len(prefix):] for k in idx]
                fields = lib.find_time_fields(body, c)
                for f in sorted(fields, key=lambda f: (f.line, -f.start)):
                    text = body[f.line]
                    value = text[f.start:f.end]
                    new = None
                    if f.kind == "ts":
                        s = step_of(float(value))
                        new = str(s.vclock) if s else None
                    elif f.kind == "id":
                        ms, seq = value.split("-")
                        s = step_of(float(ms))
                        if s:
                            new = f"{s.vclock}-{seq}"
                            print(f"record: check the sequence of *-id {value} -> {new} "
                                  f"(line {text!r})", file=sys.stderr)
                    elif f.kind == "idle":
                        now = steps[st]
                        ev = step_of(now.start - float(value), now.end - now.start)
                        if ev:
                            new = str(now.vclock - ev.vclock)
                    if new is None:
                        print(f"record: cannot map {f.kind} value {value} (line {text!r}); "
                              "fix it by hand", file=sys.stderr)
                        continue
                    body[f.line] = text[:f.start] + new + text[f.end:]
                for k, text in zip(idx, body):
                    lines[i + k] = prefix + text
            i = j
        return lines


def block_timeout(args: list[bytes]) -> int | None:
    """The BLOCK timeout (ms) of an XREAD/XREADGROUP, None without BLOCK."""
    for i, a in enumerate(args[1:-1], start=1):
        if a.lower() == b"block":
            try:
                return max(0, int(args[i + 1]))
            except ValueError:
                return 0
    return None


def record_text(port: int, text: str, virtual: bool = False, faketime: str | None = "auto") -> str:
    """Record `text` (a command file or transcript) against the server on
    `port`. faketime: the server's clock file; "auto" finds it (redis.sh's run
    directory), None means the server runs on the real clock."""
    if faketime == "auto":
        faketime = lib.faketime_file(port)
    items = lib.parse_file_text(text)
    rec = Recorder(port, faketime)
    try:
        rec.record_items(items)
    finally:
        rec.close()
    # Under faketime the server's clock was the virtual clock: nothing to rewrite.
    lines = rec.virtualise() if virtual and not rec.clock else [ln for ln, _, _ in rec.out]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--in-place", action="store_true",
                    help="overwrite each FILE with its transcript")
    ap.add_argument("--virtual", action="store_true",
                    help="rewrite wall-clock values into virtual-clock values")
    ap.add_argument("--faketime", metavar="FILE", default="auto",
                    help="the server's faketime clock file (default: the one redis.sh "
                         "made for the port, if any)")
    ap.add_argument("files", nargs="+")
    opts = ap.parse_args()
    status = 0
    for path in opts.files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            out = record_text(opts.port, text, opts.virtual, opts.faketime)
        except RecorderError as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 1
            continue
        if opts.in_place:
            with open(path, "w", encoding="utf-8") as f:
                f.write(out)
        else:
            if len(opts.files) > 1:
                sys.stdout.write(f"# ==> {path} <==\n")
            sys.stdout.write(out)
    return status


if __name__ == "__main__":
    sys.exit(main())
