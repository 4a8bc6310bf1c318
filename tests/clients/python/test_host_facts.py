"""What only the server process knows (its port, process id, executable, listeners; each
connection's address and descriptor) answers the same inside a transaction as outside it."""

import redis

from conftest import private_server
from test_redis_cli import free_port


def test_info_and_client_list_inside_multi_answer_as_outside():
    port = free_port()
    with private_server("--port", str(port), "--bind", "127.0.0.1"):
        r = redis.Redis(port=port, socket_timeout=5)
        try:
            # redis-py parses INFO into a dict of its fields.
            outside_info = r.execute_command("INFO", "server")
            outside = r.client_info()
            with r.pipeline(transaction=True) as pipe:
                pipe.execute_command("INFO", "server")
                pipe.execute_command("CLIENT", "LIST")
                inside_info, inside_list = pipe.execute()
            for name in ("tcp_port", "process_id", "executable", "config_file", "listener0"):
                assert inside_info[name] == outside_info[name], name
            assert inside_info["tcp_port"] == port
            assert inside_info["process_id"] > 1 and inside_info["executable"].startswith("/")
            inside = dict(f.split("=", 1) for f in inside_list.decode().split() if "=" in f)
            for name in ("id", "addr", "laddr", "fd"):
                assert inside[name] == str(outside[name]), name
            assert inside["laddr"] == f"127.0.0.1:{port}"
            # EXEC runs with the connection still in its transaction, as Redis lists it.
            assert inside["flags"] == "x" and inside["multi"] == "2"
        finally:
            r.close()
