"""Starts private StreamLab servers the way the seed articles start redis-server.

Each server gets a fresh directory under /tmp, TCP off (`--port 0`), a Unix socket with mode
700 and no persistence. STREAMLAB_SERVER names the binary (any redis-server started with the
same options works too, which is how these tests are checked against Redis 8.2.3).
"""

import os
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis


def server_binary():
    binary = os.environ.get("STREAMLAB_SERVER")
    if not binary:
        pytest.fail("set STREAMLAB_SERVER to the streamlab-server binary")
    return binary


@contextmanager
def private_server(*extra):
    with tempfile.TemporaryDirectory(prefix="streamlab-py-", dir="/tmp") as directory:
        socket_path = str(Path(directory) / "redis.sock")
        process = subprocess.Popen(
            [server_binary(), "--port", "0", "--unixsocket", socket_path, "--unixsocketperm", "700",
             "--save", "", "--appendonly", "no", "--dir", directory, "--maxmemory-policy", "noeviction", *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        probe = redis.Redis(unix_socket_path=socket_path)
        try:
            deadline = time.monotonic() + 5
            while True:
                assert process.poll() is None, "the server exited while starting"
                try:
                    probe.ping()
                    break
                except redis.ConnectionError:
                    assert time.monotonic() < deadline, "the server did not answer PING in time"
                    time.sleep(0.02)
            yield Server(socket_path)
        finally:
            probe.close()
            process.terminate()
            _, errors = process.communicate(timeout=10)
            assert process.returncode == 0, errors.decode()
            assert not os.path.exists(socket_path), "the socket file was left behind"


class Server:
    def __init__(self, socket_path):
        self.socket_path = socket_path
        self._clients = []

    def client(self, **options):
        """A new connection pool on the server's socket (one per simulated process)."""
        client = redis.Redis(unix_socket_path=self.socket_path, socket_timeout=5, **options)
        self._clients.append(client)
        return client

    def close(self):
        for client in self._clients:
            client.close()


@pytest.fixture
def server():
    with private_server() as started:
        yield started
        started.close()


@pytest.fixture
def virtual_server():
    """A server on the virtual clock: time moves only through DEBUG STREAMLAB-CLOCK ADVANCE."""
    if os.path.basename(server_binary()) == "redis-server":
        pytest.skip("needs StreamLab's virtual clock")
    with private_server("--clock", "virtual", "--enable-debug-command", "local") as started:
        yield started
        started.close()


@pytest.fixture
def r(server):
    return server.client()
