"""The cache's in-memory front: bounded by bytes, least recently used out, expiry obeyed."""

from __future__ import annotations

import datetime as dt
import threading

from dealframe.transport.memory import MemoryEntry, MemoryTier, ResultMemo

NOW = dt.datetime.now(dt.timezone.utc)
LATER = NOW + dt.timedelta(hours=1)


def test_least_recently_used_entries_leave_first_when_over_the_bound():
    tier = MemoryTier(max_bytes=400)
    for key in "abcd":
        tier.put(key, bytes(100), {}, LATER)
    assert tier.get("a") is not None  # a is now the most recently used
    tier.put("e", bytes(100), {}, LATER)
    assert tier.get("b") is None
    assert [k for k in "acde" if tier.get(k) is not None] == list("acde")
    assert tier.nbytes == 400


def test_a_body_over_a_quarter_of_the_bound_is_not_held():
    tier = MemoryTier(max_bytes=400)
    tier.put("big", bytes(101), {}, None)
    tier.put("ok", bytes(100), {}, None)
    assert tier.get("big") is None and tier.get("ok") is not None


def test_expired_entries_are_dropped_when_asked_for():
    tier = MemoryTier(max_bytes=1000)
    tier.put("old", b"x", {}, NOW - dt.timedelta(seconds=1))
    tier.put("naive-old", b"y", {}, (NOW - dt.timedelta(seconds=1)).replace(tzinfo=None))
    tier.put("never", b"z", {}, None)
    assert tier.get("old") is None and tier.get("naive-old") is None
    assert tier.get("never").content == b"z"
    assert len(tier) == 1 and tier.nbytes == 1


def test_replacing_a_key_keeps_the_byte_count_right():
    tier = MemoryTier(max_bytes=1000)
    tier.put("k", bytes(10), {}, None)
    tier.put("k", bytes(30), {}, None)
    assert len(tier) == 1 and tier.nbytes == 30
    tier.delete("k")
    assert tier.nbytes == 0 and tier.get("k") is None


def test_zero_bound_disables_the_tier():
    tier = MemoryTier(max_bytes=0)
    tier.put("k", b"x", {}, None)
    assert tier.get("k") is None and len(tier) == 0


def test_entries_are_copies_the_caller_cannot_change():
    headers = {"Content-Type": "application/json"}
    body = bytearray(b"abc")
    tier = MemoryTier(max_bytes=1000)
    tier.put("k", body, headers, None)
    body[0:1] = b"z"
    headers["Content-Type"] = "text/plain"
    entry = tier.get("k")
    assert isinstance(entry, MemoryEntry)
    assert entry.content == b"abc" and entry.headers["Content-Type"] == "application/json"


def test_concurrent_puts_and_gets_keep_the_bound():
    tier = MemoryTier(max_bytes=5_000)

    def work(offset: int) -> None:
        for i in range(500):
            tier.put(f"{offset}-{i % 40}", bytes(100 + i % 7), {}, LATER)
            tier.get(f"{offset}-{(i * 7) % 40}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert tier.nbytes <= 5_000
    assert tier.nbytes == sum(len(tier.get(k).content) for k in list(tier._entries))


def test_put_hands_out_new_serials_and_a_refresh_gets_a_new_one():
    tier = MemoryTier(max_bytes=1000)
    first = tier.put("k", b"x", {}, None)
    again = tier.put("k", b"x", {}, None)
    other = tier.put("j", b"y", {}, None)
    assert len({first.serial, again.serial, other.serial}) == 3
    assert tier.get("k").serial == again.serial


def test_result_memo_hands_out_copies_and_keeps_its_bounds():
    memo = ResultMemo(max_items=2, max_bytes=100)
    value = [1, 2]
    memo.put("a", value, copy=list, size=10)
    value.append(3)  # the memo holds its own copy
    got = memo.get("a", copy=list)
    assert got == [1, 2]
    got.append(4)  # and hands out copies
    assert memo.get("a", copy=list) == [1, 2]
    memo.put("b", [2], copy=list, size=10)
    memo.get("a", copy=list)  # a is now the most recently used
    memo.put("c", [3], copy=list, size=10)
    assert memo.get("b", copy=list) is None and len(memo) == 2
    memo.put("big", [0], copy=list, size=26)  # over a quarter of max_bytes: not held
    assert memo.get("big", copy=list) is None
    memo.put("d", [4], copy=list, size=25)
    memo.put("e", [5], copy=list, size=25)
    memo.put("f", [6], copy=list, size=25)
    memo.put("g", [7], copy=list, size=25)
    assert len(memo) == 2  # max_items still rules
    memo.clear()
    assert len(memo) == 0 and memo.get("g", copy=list) is None


def test_result_memo_off():
    memo = ResultMemo(max_items=0)
    memo.put("a", [1], copy=list, size=1)
    assert memo.get("a", copy=list) is None
