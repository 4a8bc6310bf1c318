"""redis-cli (Debian's redis-tools) against the server: one-shot commands with --no-raw, piped
input, and an interactive session driven through a pseudo-terminal."""

import os
import pty
import select
import shutil
import socket
import subprocess
import time

import pytest

from conftest import private_server

pytestmark = pytest.mark.skipif(shutil.which("redis-cli") is None, reason="redis-cli is not installed")


def cli(server, *args, stdin=None):
    done = subprocess.run(["redis-cli", "-s", server.socket_path, "--no-raw", *args],
                          input=stdin, capture_output=True, timeout=20)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def test_one_shot_replies_print_as_redis_prints_them(server):
    assert cli(server, "XADD", "s", "1-1", "type", "email", "to", "ada") == '"1-1"\n'
    assert cli(server, "XADD", "s", "2-0", "n", "42") == '"2-0"\n'
    assert cli(server, "XLEN", "s") == "(integer) 2\n"
    assert cli(server, "XRANGE", "s", "-", "+") == (
        '1) 1) "1-1"\n'
        '   2) 1) "type"\n'
        '      2) "email"\n'
        '      3) "to"\n'
        '      4) "ada"\n'
        '2) 1) "2-0"\n'
        '   2) 1) "n"\n'
        '      2) "42"\n')
    assert cli(server, "XREAD", "STREAMS", "nosuch", "0") == "(nil)\n"
    assert cli(server, "XRANGE", "nosuch", "-", "+") == "(empty array)\n"
    assert cli(server, "XADD", "s", "1-0", "a", "b") == (
        "(error) ERR The ID specified in XADD is equal or smaller than the target stream top item\n")
    assert cli(server, "XGROUP", "CREATE", "s", "g", "0") == "OK\n"
    assert cli(server, "XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">").startswith('1) 1) "s"\n')
    assert cli(server, "XPENDING", "s", "g") == (
        '1) (integer) 1\n2) "1-1"\n3) "1-1"\n4) 1) 1) "c"\n      2) "1"\n')


def test_one_shot_resp3(server):
    cli(server, "XADD", "s", "1-0", "a", "b")
    assert cli(server, "-3", "XINFO", "STREAM", "s").startswith(' 1# "length" => (integer) 1\n')
    assert cli(server, "-3", "XREAD", "STREAMS", "s", "0") == (
        '1# "s" => \n'
        '   1) 1) "1-0"\n'
        '      2) 1) "a"\n'
        '         2) "b"\n')
    assert cli(server, "-3", "XREAD", "STREAMS", "nosuch", "0") == "(nil)\n"


def test_a_blocking_read_times_out(server):
    start = time.monotonic()
    assert cli(server, "XREAD", "BLOCK", "200", "STREAMS", "s", "$") == "(nil)\n"
    assert time.monotonic() - start >= 0.19


def test_commands_piped_on_standard_input(server):
    out = cli(server, stdin=b"XADD s 1-0 k v\nXADD s 2-0 k w\nXLEN s\nXDEL s 1-0\nXLEN s\n")
    assert out == '"1-0"\n"2-0"\n(integer) 2\n(integer) 1\n(integer) 1\n'


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_over_tcp_on_loopback():
    port = free_port()
    with private_server("--port", str(port)):
        done = subprocess.run(["redis-cli", "-p", str(port), "--no-raw", "INFO", "server"],
                              capture_output=True, timeout=20)
        info = done.stdout.decode()
        assert f"tcp_port:{port}" in info and "redis_version:8.2.3" in info
        done = subprocess.run(["redis-cli", "-p", str(port), "PING"], capture_output=True, timeout=20)
        assert done.stdout == b"PONG\n"


class Terminal:
    """redis-cli in a pseudo-terminal, TERM=dumb so it prints plain lines."""

    def __init__(self, *args):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            os.environ["TERM"] = "dumb"
            os.execvp("redis-cli", ["redis-cli", *args])
        self.screen = b""

    def expect(self, text, timeout=5.0):
        """Waits until `text` appears after what was already matched; returns what came before."""
        wanted = text.encode()
        deadline = time.monotonic() + timeout
        while wanted not in self.screen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never came; screen: {self.screen.decode(errors='replace')!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                assert chunk, f"redis-cli exited before {text!r}; screen: {self.screen!r}"
                self.screen += chunk.replace(b"\r\n", b"\n")
        before, _, self.screen = self.screen.partition(wanted)
        return before.decode(errors="replace")

    def type(self, line):
        os.write(self.fd, line.encode() + b"\n")

    def exit_status(self, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            if select.select([self.fd], [], [], 0.02)[0]:
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    pass
        os.kill(self.pid, 9)
        raise AssertionError("redis-cli did not exit")


def test_an_interactive_session(server):
    prompt = f"redis {server.socket_path}> "
    tty = Terminal("-s", server.socket_path)
    tty.expect(prompt)
    tty.type("XGROUP CREATE jobs workers $ MKSTREAM")
    assert tty.expect(prompt) == "XGROUP CREATE jobs workers $ MKSTREAM\nOK\n"
    tty.type("XADD jobs 1-0 type email")
    assert tty.expect(prompt) == 'XADD jobs 1-0 type email\n"1-0"\n'
    tty.type("XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >")
    assert tty.expect(prompt) == (
        "XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >\n"
        '1) 1) "jobs"\n'
        '   2) 1) 1) "1-0"\n'
        '         2) 1) "type"\n'
        '            2) "email"\n')
    tty.type("XACK jobs workers 1-0 9-0")
    assert tty.expect(prompt) == "XACK jobs workers 1-0 9-0\n(integer) 1\n"
    tty.type("xlen")
    assert tty.expect(prompt) == "xlen\n(error) ERR wrong number of arguments for 'xlen' command\n"
    # A transaction shows in the prompt.
    tty.type("MULTI")
    tx_prompt = f"redis {server.socket_path}(TX)> "
    assert tty.expect(tx_prompt) == "MULTI\nOK\n"
    tty.type("XLEN jobs")
    assert tty.expect(tx_prompt) == "XLEN jobs\nQUEUED\n"
    tty.type("EXEC")
    assert tty.expect(prompt) == "EXEC\n1) (integer) 1\n"
    # A blocked read in the terminal is served by another client.
    tty.type("XREAD BLOCK 0 STREAMS jobs $")
    tty.expect("XREAD BLOCK 0 STREAMS jobs $\n")
    time.sleep(0.2)
    assert cli(server, "XADD", "jobs", "2-0", "type", "sms") == '"2-0"\n'
    assert tty.expect(prompt) == (
        '1) 1) "jobs"\n'
        '   2) 1) 1) "2-0"\n'
        '         2) 1) "type"\n'
        '            2) "sms"\n')
    tty.type("HELLO 3")
    tty.expect(prompt)
    tty.type("XPENDING jobs workers")
    assert tty.expect(prompt) == "XPENDING jobs workers\n1) (integer) 0\n2) (nil)\n3) (nil)\n4) (nil)\n"
    tty.type("QUIT")
    assert tty.exit_status() == 0


def test_an_interactive_subscription(server):
    tty = Terminal("-s", server.socket_path)
    tty.expect(f"redis {server.socket_path}> ")
    tty.type("SUBSCRIBE alerts")
    tty.expect("Reading messages...")
    tty.expect('1) "subscribe"\n2) "alerts"\n3) (integer) 1\n')
    assert cli(server, "PUBLISH", "alerts", "disk full") == "(integer) 1\n"
    tty.expect('1) "message"\n2) "alerts"\n3) "disk full"\n')
    os.write(tty.fd, b"\x03")  # Ctrl-C ends the subscription mode
    tty.expect(f"redis {server.socket_path}> ")
    tty.type("PING")
    assert tty.expect(f"redis {server.socket_path}> ") == "PING\nPONG\n"
    tty.type("QUIT")
    assert tty.exit_status() == 0
