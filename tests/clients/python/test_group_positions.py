"""Each group owns its delivery position and pending entries; SETID moves a position on
purpose (seed 002's cursor scenario, checked in our own way)."""


def groups(r, stream):
    return {g["name"].decode(): g for g in r.xinfo_groups(stream)}


def ids(reply):
    return [entry_id for entry_id, _ in reply[0][1]] if reply else []


def seed(r):
    for n in (1, 2, 3):
        r.xadd("events", {"n": n}, id=f"{n}-0")
    for name in ("billing", "analytics"):
        r.xgroup_create("events", name, id="0-0")


def test_groups_progress_independently(r):
    seed(r)
    assert ids(r.xreadgroup("billing", "b1", {"events": ">"}, count=2)) == [b"1-0", b"2-0"]
    assert ids(r.xreadgroup("analytics", "a1", {"events": ">"}, count=1)) == [b"1-0"]
    state = groups(r, "events")
    assert (state["billing"]["last-delivered-id"], state["billing"]["lag"], state["billing"]["pending"]) == (b"2-0", 1, 2)
    assert (state["analytics"]["last-delivered-id"], state["analytics"]["lag"], state["analytics"]["pending"]) == (b"1-0", 2, 1)
    assert r.xack("events", "billing", "2-0") == 1
    state = groups(r, "events")
    assert state["billing"]["pending"] == 1 and state["analytics"]["pending"] == 1


def test_zero_lag_with_work_still_pending(r):
    seed(r)
    r.xreadgroup("billing", "b1", {"events": ">"})
    state = groups(r, "events")["billing"]
    assert state["lag"] == 0 and state["pending"] == 3 and state["entries-read"] == 3


def test_setid_back_replays_acknowledged_entries(r):
    seed(r)
    r.xreadgroup("billing", "b1", {"events": ">"})
    assert r.xack("events", "billing", "1-0", "2-0", "3-0") == 3
    assert r.xreadgroup("billing", "b1", {"events": ">"}) == []
    assert r.xgroup_setid("events", "billing", "0-0") is True
    assert ids(r.xreadgroup("billing", "b2", {"events": ">"}, count=1)) == [b"1-0"]
    # The other group did not move.
    assert groups(r, "events")["analytics"]["last-delivered-id"] == b"0-0"


def test_setid_forward_skips_unread_but_keeps_pending(r):
    seed(r)
    r.xreadgroup("analytics", "a1", {"events": ">"}, count=1)
    r.xgroup_setid("events", "analytics", "$")
    state = groups(r, "events")["analytics"]
    assert (state["last-delivered-id"], state["pending"], state["lag"]) == (b"3-0", 1, 0)
    assert r.xreadgroup("analytics", "a1", {"events": ">"}) == []
    assert ids(r.xreadgroup("analytics", "a1", {"events": "0-0"})) == [b"1-0"]
    assert r.xack("events", "analytics", "1-0") == 1


def test_setid_with_entries_read_and_unknown_lag(r):
    seed(r)
    r.xgroup_setid("events", "billing", "1-0", entries_read=1)
    state = groups(r, "events")["billing"]
    assert (state["entries-read"], state["lag"]) == (1, 2)
    # After a deletion inside the unread range the lag cannot be known: nil, not zero.
    r.xdel("events", "2-0")
    r.xgroup_setid("events", "analytics", "0-0")
    assert groups(r, "events")["analytics"]["lag"] is None
