"""Pub/Sub broadcasts to whoever listens now; a stream keeps entries to replay
(seed 002's first scenario, checked in our own way)."""

import threading
import time

import pytest


def next_message(pubsub, timeout=2.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = pubsub.get_message(timeout=0.05)
        if message is not None:
            return message
    raise AssertionError("no message arrived")


def test_a_publication_with_no_listener_is_gone(r):
    assert r.publish("feed", "early") == 0
    r.xadd("log", {"event": "early"}, id="1-0")
    with r.pubsub() as listener:
        listener.subscribe("feed")
        assert next_message(listener)["type"] == "subscribe"
        assert r.publish("feed", "late") == 1
        message = next_message(listener)
        assert (message["type"], message["data"]) == ("message", b"late")
        assert listener.get_message(timeout=0.2) is None  # "early" never comes
    # The stream still has it.
    assert [fields for _, fields in r.xrange("log")] == [{b"event": b"early"}]


def test_every_subscriber_gets_every_live_message(server):
    r = server.client()
    listeners = [server.client().pubsub() for _ in range(3)]
    for listener in listeners:
        listener.subscribe("feed")
        assert next_message(listener)["type"] == "subscribe"
    assert r.pubsub_numsub("feed") == [(b"feed", 3)]
    assert r.publish("feed", "tick") == 3
    for listener in listeners:
        assert next_message(listener)["data"] == b"tick"
        listener.close()


def test_pattern_subscriptions(server):
    r = server.client()
    with server.client().pubsub() as listener:
        listener.psubscribe("orders.*")
        assert next_message(listener)["type"] == "psubscribe"
        assert r.publish("orders.eu", "x") == 1
        assert r.publish("billing", "y") == 0
        message = next_message(listener)
        assert (message["type"], message["pattern"], message["channel"]) == ("pmessage", b"orders.*", b"orders.eu")


def test_resp3_subscribers_receive_pushes(server):
    r = server.client()
    resp3 = server.client(protocol=3)
    with resp3.pubsub() as listener:
        listener.subscribe("feed")
        assert next_message(listener)["type"] == "subscribe"
        # RESP3 connections may keep running commands while subscribed.
        assert resp3.xadd("log", {"a": 1}, id="1-0") == b"1-0"
        assert r.publish("feed", "push") == 1
        assert next_message(listener)["data"] == b"push"


def test_independent_readers_replay_the_same_history(server):
    writer = server.client()
    writer.xadd("log", {"event": "a"}, id="1-0")
    writer.xadd("log", {"event": "b"}, id="2-0")
    one, two = server.client(), server.client()
    assert one.xread({"log": "0-0"}) == two.xread({"log": "0-0"})
    # Each reader keeps its own position; the server keeps none for them.
    assert [i for i, _ in one.xread({"log": "1-0"})[0][1]] == [b"2-0"]
    assert [i for i, _ in two.xread({"log": "0-0"}, count=1)[0][1]] == [b"1-0"]


def test_groups_split_work_where_plain_reads_do_not(r):
    for n in (1, 2, 3, 4):
        r.xadd("log", {"n": n}, id=f"{n}-0")
    r.xgroup_create("log", "workers", id="0-0")
    got = {c: [i for i, _ in r.xreadgroup("workers", c, {"log": ">"}, count=2)[0][1]] for c in ("a", "b")}
    assert got == {"a": [b"1-0", b"2-0"], "b": [b"3-0", b"4-0"]}
    assert r.xack("log", "workers", "1-0", "2-0", "3-0", "4-0") == 4
    assert r.xlen("log") == 4


def test_exact_and_approximate_trimming(r):
    for n in range(1, 4):
        r.xadd("log", {"n": n}, id=f"{n}-0")
    assert r.xtrim("log", maxlen=2, approximate=False) == 1
    assert [i for i, _ in r.xread({"log": "0-0"})[0][1]] == [b"2-0", b"3-0"]
    assert r.xrange("log", "1-0", "1-0") == []
    # With small nodes, ~ removes whole nodes only and may keep more than asked.
    r.config_set("stream-node-max-entries", 10)
    for n in range(1, 26):
        r.xadd("big", {"n": n}, id=f"{n}-0")
    assert r.xtrim("big", maxlen=7, approximate=True) == 10
    assert r.xlen("big") == 15
    r.xadd("big", {"n": 26}, id="26-0", maxlen=7, approximate=False)
    assert r.xlen("big") == 7


def test_a_blocked_reader_wakes_on_a_write_from_another_client(server):
    writer = server.client()
    reader = server.client()
    result = {}

    def wait():
        result["reply"] = reader.xread({"log": "$"}, block=5000)

    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(0.2)
    writer.xadd("log", {"event": "wake"}, id="9-0")
    thread.join(timeout=5)
    assert result["reply"] == [[b"log", [(b"9-0", {b"event": b"wake"})]]]
    # A timed-out block answers nil.
    assert reader.xread({"log": "$"}, block=50) == []


@pytest.mark.parametrize("protocol", [2, 3])
def test_transactions_and_watch(server, protocol):
    r = server.client(protocol=protocol)
    other = server.client()
    with r.pipeline() as pipe:
        pipe.watch("log")
        other.xadd("log", {"n": 1})
        pipe.multi()
        pipe.xlen("log")
        try:
            pipe.execute()
        except Exception as error:  # WatchError
            assert type(error).__name__ == "WatchError"
        else:
            raise AssertionError("the transaction should have been aborted")
    with r.pipeline(transaction=True) as pipe:
        pipe.xadd("log", {"n": 2}, id="99999999999999-0").xlen("log")
        assert pipe.execute() == [b"99999999999999-0", 2]
