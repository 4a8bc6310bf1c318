#!/usr/bin/env python3
"""Regenerates tests/golden_format.rs from a real Redis and a real redis-cli.

Usage: capture.py [PORT] > ../golden_format.rs   (default port 6390; the server's data under
`golden:*` is reset).

For every case the raw reply bytes are read from the real server over a socket. The expected
text is what the real `redis-cli --no-raw` prints for exactly those bytes: they are replayed to
it by a tiny fake server, so replies holding timestamps or idle times (XINFO, CLIENT INFO)
still match. For cases whose reply does not change between runs, redis-cli is also run against
the real server and must print the same text, which checks that the replay is faithful.
"""
import socket, subprocess, sys, threading, time

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 6390


def cmd(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def reply_len(buf, pos=0):
    """Length of the RESP2/RESP3 reply starting at buf[pos], or None if incomplete."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return None
    kind, line, nxt = buf[pos:pos + 1], buf[pos + 1:end], end + 2
    if kind in b"$=!":
        n = int(line)
        if n < 0:
            return nxt - pos
        return nxt + n + 2 - pos if len(buf) >= nxt + n + 2 else None
    if kind in b"*~>%|":
        n = int(line)
        n = n * 2 if kind in b"%|" else n
        p = nxt
        for _ in range(max(n, 0)):
            l = reply_len(buf, p)
            if l is None:
                return None
            p += l
        if kind == b"|":
            l = reply_len(buf, p)
            return None if l is None else p + l - pos
        return p - pos
    return nxt - pos


class Conn:
    def __init__(self, resp3):
        self.s = socket.create_connection(("127.0.0.1", PORT))
        self.buf = b""
        if resp3:
            self.call(cmd("HELLO", 3))

    def call(self, req):
        self.s.sendall(req)
        while True:
            n = reply_len(self.buf) if self.buf else None
            if n is not None:
                out, self.buf = self.buf[:n], self.buf[n:]
                return out
            self.buf += self.s.recv(65536)


def replay(raw, resp3):
    """What redis-cli prints when a server answers its command with `raw`."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    port = ls.getsockname()[1]

    def serve():
        c, _ = ls.accept()
        buf = b""
        while True:
            d = c.recv(65536)
            if not d:
                break
            buf += d
            while True:
                n = reply_len(buf)  # requests are RESP arrays too
                if n is None:
                    break
                req, buf = buf[:n], buf[n:]
                if b"HELLO" in req.upper():
                    c.sendall(b"%1\r\n+proto\r\n:3\r\n")
                else:
                    c.sendall(raw)
        c.close()

    threading.Thread(target=serve, daemon=True).start()
    out = cli(["-p", str(port)], ["X"], resp3)
    ls.close()
    return out


def cli(conn, args, resp3):
    a = ["redis-cli", *conn, "--no-raw"] + (["-3"] if resp3 else []) + list(args)
    p = subprocess.run(a, capture_output=True, timeout=10)
    if p.returncode != 0 or p.stderr:
        raise SystemExit("redis-cli failed: %r %r" % (args, p.stderr))
    assert p.stdout.endswith(b"\n")
    return p.stdout[:-1].decode()


def setup():
    c = Conn(False)
    for k in (b"golden:*",):
        for key in c.call(cmd("KEYS", k)).split(b"\r\n")[2::2]:
            c.call(cmd("DEL", key))
    c.call(cmd("SET", "golden:k", "v"))
    c.call(cmd("SET", "golden:bin", bytes(range(256)) + b"\"quoted\" \\ end"))
    c.call(cmd("RPUSH", "golden:list", *[f"item-{i}" for i in range(1, 13)]))
    c.call(cmd("RPUSH", "golden:big", *range(1, 121)))
    c.call(cmd("HSET", "golden:h", *sum(([f"field{i}", f"value{i}"] for i in range(1, 12)), [])))
    c.call(cmd("SADD", "golden:set", *range(1, 111)))
    c.call(cmd("ZADD", "golden:z", 1.5, "a", 0.1, "b", 3, "c", "inf", "d", 1e300, "e"))
    for i in range(1, 6):
        c.call(cmd("XADD", "golden:s", f"{i}-0", "sensor", i, "temp", 20 + i / 2))
    c.call(cmd("XGROUP", "CREATE", "golden:s", "g", "0"))
    c.call(cmd("XGROUP", "CREATE", "golden:s", "g2", "$"))
    c.call(cmd("XREADGROUP", "GROUP", "g", "alice", "COUNT", 2, "STREAMS", "golden:s", ">"))
    c.call(cmd("XREADGROUP", "GROUP", "g", "bob", "COUNT", 1, "STREAMS", "golden:s", ">"))
    c.call(cmd("XACK", "golden:s", "g", "1-0"))


# (name, resp3, args, stable) - stable replies are also checked against the live redis-cli.
CASES = [
    ("status", False, ["PING"], True),
    ("ok", False, ["SET", "golden:tmp", "x"], True),
    ("integer", False, ["STRLEN", "golden:bin"], True),
    ("binary_bulk", False, ["GET", "golden:bin"], True),
    ("nil", False, ["GET", "golden:missing"], True),
    ("error", False, ["NOSUCHCOMMAND", "a"], True),
    ("wrongtype_error", False, ["LPUSH", "golden:k", "x"], True),
    ("empty_array", False, ["LRANGE", "golden:missing", "0", "-1"], True),
    ("nil_array", False, ["XREAD", "COUNT", "1", "STREAMS", "golden:s", "$"], True),
    ("nil_in_array", False, ["MGET", "golden:k", "golden:missing", "golden:list"], True),
    ("array_12", False, ["LRANGE", "golden:list", "0", "-1"], True),
    ("array_120", False, ["LRANGE", "golden:big", "0", "-1"], True),
    ("nested_3_levels", False,
     ["EVAL", "return {1, {2, {3, 'x'}, {}}, 'y'}", "0"], True),
    ("nested_in_wide_array", False,
     ["EVAL", "return {1,2,3,4,5,6,7,8,9,10,{'a',{'b','c'}},12}", "0"], True),
    ("status_and_error_in_array", False,
     ["EVAL", "return {redis.status_reply('FINE'), redis.error_reply('ERR inner'), false}", "0"],
     True),
    ("hgetall_resp2", False, ["HGETALL", "golden:h"], True),
    ("zrange_withscores_resp2", False, ["ZRANGE", "golden:z", "0", "-1", "WITHSCORES"], True),
    ("zscore_resp2", False, ["ZSCORE", "golden:z", "b"], True),
    ("xrange", False, ["XRANGE", "golden:s", "-", "+"], True),
    ("xread", False, ["XREAD", "COUNT", "2", "STREAMS", "golden:s", "0"], True),
    ("xreadgroup", False,
     ["XREADGROUP", "GROUP", "g2", "carol", "COUNT", "1", "STREAMS", "golden:s", "0"], False),
    ("xpending_summary", False, ["XPENDING", "golden:s", "g"], True),
    ("xpending_extended", False, ["XPENDING", "golden:s", "g", "-", "+", "10"], False),
    ("xinfo_stream_full", False, ["XINFO", "STREAM", "golden:s", "FULL"], False),
    ("xinfo_groups", False, ["XINFO", "GROUPS", "golden:s"], False),
    ("xinfo_consumers", False, ["XINFO", "CONSUMERS", "golden:s", "g"], False),
    ("debug_map_resp2", False, ["DEBUG", "PROTOCOL", "map"], True),
    ("debug_double_resp2", False, ["DEBUG", "PROTOCOL", "double"], True),
    ("debug_true_resp2", False, ["DEBUG", "PROTOCOL", "true"], True),
    ("debug_verbatim_resp2", False, ["DEBUG", "PROTOCOL", "verbatim"], True),
    ("hello_resp3", True, ["HELLO", "3"], False),
    ("hgetall_map_11", True, ["HGETALL", "golden:h"], True),
    ("smembers_set_110", True, ["SMEMBERS", "golden:set"], True),
    ("zscore_double", True, ["ZSCORE", "golden:z", "a"], True),
    ("zscore_inf", True, ["ZSCORE", "golden:z", "d"], True),
    ("zrange_withscores_resp3", True, ["ZRANGE", "golden:z", "0", "-1", "WITHSCORES"], True),
    ("nil_resp3", True, ["GET", "golden:missing"], True),
    ("nil_array_resp3", True, ["XREAD", "COUNT", "1", "STREAMS", "golden:s", "$"], True),
    ("error_resp3", True, ["NOSUCHCOMMAND"], True),
    ("empty_array_resp3", True, ["LRANGE", "golden:missing", "0", "-1"], True),
    ("empty_map", True, ["EVAL", "redis.setresp(3); return {map={}}", "0"], True),
    ("empty_set", True, ["EVAL", "redis.setresp(3); return {set={}}", "0"], True),
    ("lua_map_nested", True,
     ["EVAL", "redis.setresp(3); return {map={a={1,{2,3}}, b={map={x=1}}, c={set={z=true}}}}", "0"],
     True),
    ("lua_double_bool", True,
     ["EVAL", "redis.setresp(3); return {{double=-0.0}, {double=1e17}, true, false}", "0"], True),
    ("debug_map", True, ["DEBUG", "PROTOCOL", "map"], True),
    ("debug_set", True, ["DEBUG", "PROTOCOL", "set"], True),
    ("debug_double", True, ["DEBUG", "PROTOCOL", "double"], True),
    ("debug_true", True, ["DEBUG", "PROTOCOL", "true"], True),
    ("debug_false", True, ["DEBUG", "PROTOCOL", "false"], True),
    ("debug_null", True, ["DEBUG", "PROTOCOL", "null"], True),
    ("debug_verbatim", True, ["DEBUG", "PROTOCOL", "verbatim"], True),
    ("client_info_verbatim", True, ["CLIENT", "INFO"], False),
    ("config_get_map", True, ["CONFIG", "GET", "maxmemory-*"], True),
    ("xread_resp3", True, ["XREAD", "COUNT", "2", "STREAMS", "golden:s", "0"], True),
    ("xpending_resp3", True, ["XPENDING", "golden:s", "g"], True),
    ("xinfo_stream_full_resp3", True, ["XINFO", "STREAM", "golden:s", "FULL"], False),
    ("xinfo_groups_resp3", True, ["XINFO", "GROUPS", "golden:s"], False),
]


def rust_bytes(raw):
    out, start_of_line, line_len = ['b"'], False, 0
    for i, b in enumerate(raw):
        ch = bytes([b])
        if start_of_line and b == 0x20:
            out.append("\\x20")
        elif ch == b"\\":
            out.append("\\\\")
        elif ch == b'"':
            out.append('\\"')
        elif ch == b"\r":
            out.append("\\r")
        elif ch == b"\n":
            out.append("\\n")
        elif ch == b"\t":
            out.append("\\t")
        elif 0x20 <= b < 0x7f:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
        start_of_line = False
        line_len += len(out[-1])
        # Break the literal after a CRLF once the line is long enough.
        if raw[i - 1:i + 1] == b"\r\n" and i + 1 < len(raw) and line_len > 60:
            out.append("\\\n            ")
            start_of_line, line_len = True, 0
    out.append('"')
    return "".join(out)


def rust_text(text):
    hashes = "#"
    while '"' + hashes in text:
        hashes += "#"
    return "r" + hashes + '"' + text + '"' + hashes


def main():
    setup()
    print("// @generated by tests/golden/capture.py against Redis 8.2.3 and redis-cli 7.0.15.")
    print("// Do not edit by hand: rerun the script (see its docstring).")
    print()
    print("/// (name, resp3, command, raw reply bytes, text redis-cli --no-raw printed)")
    print("pub const CASES: &[(&str, bool, &str, &[u8], &str)] = &[")
    for name, resp3, args, stable in CASES:
        raw = Conn(resp3).call(cmd(*args))
        text = replay(raw, resp3)
        if stable:
            live = cli(["-p", str(PORT)], args, resp3)
            if live != text:
                raise SystemExit(f"{name}: replay and live redis-cli differ:\n{text}\n---\n{live}")
        print("    (")
        print(f"        {name!r},".replace("'", '"'))
        print(f"        {'true' if resp3 else 'false'},")
        print(f"        {rust_text(' '.join(args))},")
        print(f"        {rust_bytes(raw)},")
        print(f"        {rust_text(text)},")
        print("    ),")
    print("];")


main()
