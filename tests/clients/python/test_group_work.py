"""A consumer group as a work queue: delivery position, pending entries, recovery
(seed 000's scenarios, checked in our own way)."""

import redis


def ids(entries):
    return [entry_id for entry_id, _ in entries]


def group_info(r, stream, name):
    return next(g for g in r.xinfo_groups(stream) if g["name"] == name.encode())


def test_unread_backlog_is_not_pending(r):
    for n in (1, 2, 3):
        r.xadd("tasks", {"n": n}, id=f"{n}-0")
    r.xgroup_create("tasks", "crew", id="0-0")
    assert r.xpending("tasks", "crew")["pending"] == 0
    info = group_info(r, "tasks", "crew")
    assert info["lag"] == 3 and info["entries-read"] is None
    # Two consumers share the new entries; the group position moves on delivery.
    [[_, first]] = r.xreadgroup("crew", "ann", {"tasks": ">"}, count=1)
    [[_, second]] = r.xreadgroup("crew", "ben", {"tasks": ">"}, count=1)
    assert ids(first) == [b"1-0"] and ids(second) == [b"2-0"]
    info = group_info(r, "tasks", "crew")
    assert info["last-delivered-id"] == b"2-0" and info["pending"] == 2 and info["lag"] == 1


def test_ack_removes_the_receipt_not_the_entry(r):
    r.xgroup_create("tasks", "crew", id="$", mkstream=True)
    r.xadd("tasks", {"n": 1}, id="1-0")
    r.xadd("tasks", {"n": 2}, id="2-0")
    r.xreadgroup("crew", "ann", {"tasks": ">"})
    assert r.xack("tasks", "crew", "2-0") == 1
    assert r.xack("tasks", "crew", "2-0") == 0
    assert r.xlen("tasks") == 2
    assert group_info(r, "tasks", "crew")["last-delivered-id"] == b"2-0"
    # Acknowledged entries stay readable by plain reads and other groups.
    assert ids(r.xrange("tasks")) == [b"1-0", b"2-0"]
    r.xgroup_create("tasks", "other", id="0")
    assert ids(r.xreadgroup("other", "x", {"tasks": ">"})[0][1]) == [b"1-0", b"2-0"]


def test_history_reads_are_per_consumer(r):
    r.xgroup_create("tasks", "crew", id="$", mkstream=True)
    for n in (1, 2, 3):
        r.xadd("tasks", {"n": n}, id=f"{n}-0")
    r.xreadgroup("crew", "ann", {"tasks": ">"}, count=2)
    assert r.xreadgroup("crew", "ben", {"tasks": "0-0"}) == [[b"tasks", []]]
    assert ids(r.xreadgroup("crew", "ann", {"tasks": "0-0"})[0][1]) == [b"1-0", b"2-0"]
    # Reading new entries again never re-delivers ann's abandoned ones.
    assert ids(r.xreadgroup("crew", "ben", {"tasks": ">"})[0][1]) == [b"3-0"]
    assert r.xreadgroup("crew", "ben", {"tasks": ">"}) == []


def test_xautoclaim_moves_abandoned_work_and_counts_deliveries(r):
    r.xgroup_create("tasks", "crew", id="$", mkstream=True)
    for n in range(1, 6):
        r.xadd("tasks", {"n": n}, id=f"{n}-0")
    r.xreadgroup("crew", "dead", {"tasks": ">"}, count=3)
    # A high threshold finds nothing yet.
    cursor, claimed, deleted = r.xautoclaim("tasks", "crew", "live", min_idle_time=3_600_000, start_id="0-0")
    assert (cursor, claimed, deleted) == (b"0-0", [], [])
    # Scan in pages until the cursor comes back to 0-0.
    taken, start = [], "0-0"
    while True:
        start, claimed, deleted = r.xautoclaim("tasks", "crew", "live", min_idle_time=0, start_id=start, count=1)
        taken += ids(claimed)
        if start == b"0-0":
            break
    assert taken == [b"1-0", b"2-0", b"3-0"]
    detail = r.xpending_range("tasks", "crew", "-", "+", 10)
    assert [(d["message_id"], d["consumer"], d["times_delivered"]) for d in detail] == [
        (b"1-0", b"live", 2), (b"2-0", b"live", 2), (b"3-0", b"live", 2)]
    consumers = {c["name"]: c["pending"] for c in r.xinfo_consumers("tasks", "crew")}
    assert consumers == {b"dead": 0, b"live": 3}


def test_idle_thresholds_on_the_virtual_clock(virtual_server):
    r = virtual_server.client()
    r.xgroup_create("tasks", "crew", id="$", mkstream=True)
    r.xadd("tasks", {"n": 1}, id="1-0")
    r.xreadgroup("crew", "dead", {"tasks": ">"})
    assert r.xautoclaim("tasks", "crew", "live", min_idle_time=30_000, start_id="0-0")[1] == []
    r.execute_command("DEBUG", "STREAMLAB-CLOCK", "ADVANCE", 29_999)
    assert r.xpending_range("tasks", "crew", "-", "+", 1)[0]["time_since_delivered"] == 29_999
    assert r.xautoclaim("tasks", "crew", "live", min_idle_time=30_000, start_id="0-0")[1] == []
    r.execute_command("DEBUG", "STREAMLAB-CLOCK", "ADVANCE", 1)
    assert ids(r.xautoclaim("tasks", "crew", "live", min_idle_time=30_000, start_id="0-0")[1]) == [b"1-0"]
    # XCLAIM by id, also subject to the threshold.
    r.execute_command("DEBUG", "STREAMLAB-CLOCK", "ADVANCE", 10)
    assert r.xclaim("tasks", "crew", "third", min_idle_time=60_000, message_ids=["1-0"]) == []
    assert ids(r.xclaim("tasks", "crew", "third", min_idle_time=10, message_ids=["1-0"])) == [b"1-0"]


def test_deleted_payloads_are_reported_not_recovered(r):
    r.xgroup_create("tasks", "crew", id="$", mkstream=True)
    r.xadd("tasks", {"n": 4}, id="4-0")
    r.xadd("tasks", {"n": 5}, id="5-0")
    r.xreadgroup("crew", "ann", {"tasks": ">"})
    assert r.xdel("tasks", "4-0") == 1
    assert r.xpending("tasks", "crew")["pending"] == 2
    cursor, claimed, deleted = r.xautoclaim("tasks", "crew", "ben", min_idle_time=0, start_id="0-0")
    assert cursor == b"0-0" and ids(claimed) == [b"5-0"] and deleted == [b"4-0"]
    assert r.xpending("tasks", "crew")["pending"] == 1
    # Trimming under pending entries (KEEPREF, the default) leaves a dangling reference too.
    assert r.xtrim("tasks", maxlen=0) == 1
    assert r.xpending("tasks", "crew")["pending"] == 1
    # The history read still lists the id, with no fields (redis-py shows them as {}).
    assert r.xreadgroup("crew", "ben", {"tasks": "0-0"}) == [[b"tasks", [(b"5-0", {})]]]


def test_noack_reads_leave_nothing_to_recover(r):
    r.xgroup_create("tasks", "crew", id="$", mkstream=True)
    r.xadd("tasks", {"n": 1}, id="1-0")
    assert ids(r.xreadgroup("crew", "ann", {"tasks": ">"}, noack=True)[0][1]) == [b"1-0"]
    assert r.xpending("tasks", "crew")["pending"] == 0
    assert r.xautoclaim("tasks", "crew", "ben", min_idle_time=0, start_id="0-0")[1] == []


def test_group_errors_come_back_as_redis_errors(r):
    try:
        r.xreadgroup("nogroup", "ann", {"nostream": ">"})
    except redis.ResponseError as error:
        assert str(error).startswith("NOGROUP No such key 'nostream' or consumer group 'nogroup'")
    else:
        raise AssertionError("expected NOGROUP")
    r.xgroup_create("tasks", "crew", id="$", mkstream=True)
    try:
        r.xgroup_create("tasks", "crew", id="$")
    except redis.ResponseError as error:
        assert "BUSYGROUP" in str(error) or str(error) == "Consumer Group name already exists"
    else:
        raise AssertionError("expected BUSYGROUP")
