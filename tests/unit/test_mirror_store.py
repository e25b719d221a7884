"""Mirror pieces without a server: the keyset walk over an in-memory feed that changes while it
is read, the Parquet schema round trip, staged commits and recovery, the state file, the lock."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import pytest

from dealframe.mirror import store
from dealframe.mirror.durable import mirror_lock
from dealframe.mirror.errors import (MirrorLockedError, MirrorPathError, MirrorStateError,
                                     MirrorVersionError)
from dealframe.mirror.feed import FeedWalk
from dealframe.mirror.read import load
from dealframe.mirror.schema import to_arrow, to_frame
from dealframe.mirror.state import STATE_NAME, MirrorState, parse_state, read_state, write_state
from dealframe.mirror.sync import open_folder

T0 = pd.Timestamp("2026-01-01", tz="UTC")


class Feed:
    """An in-memory change feed: investors with ``updated_at``; the clock moves only when told."""

    def __init__(self, n: int, *, same_stamp: int = 0, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        offsets = np.sort(rng.integers(0, 10 * n, n))
        offsets[:same_stamp] = 5  # a tie bigger than a page
        self.rows = {f"{i:08d}-0000-4000-8000-000000000000": {"ts": T0 + pd.Timedelta(seconds=int(s)),
                                                              "v": 0}
                     for i, s in enumerate(offsets)}
        self.clock = T0 + pd.Timedelta(seconds=10 * n + 1)
        self.on_request = None
        self.requests = 0

    def change(self, ident: str, advance: int = 1) -> None:
        self.clock += pd.Timedelta(seconds=advance)
        self.rows[ident] = {"ts": self.clock, "v": self.rows[ident]["v"] + 1}

    def _sorted(self, since):
        items = [(r["ts"], i) for i, r in self.rows.items() if since is None or r["ts"] >= since]
        return sorted(items)

    def fetch(self, page_size):
        def fetch(since, page):
            if self.on_request is not None:
                self.on_request(self)
            self.requests += 1
            rows = self._sorted(since)
            chosen = rows[(page - 1) * page_size: page * page_size]
            frame = pd.DataFrame({"id": [i for _, i in chosen], "updated_at": [t for t, _ in chosen],
                                  "v": [self.rows[i]["v"] for _, i in chosen]})
            return frame, len(rows)
        return fetch

    def latest(self) -> dict[str, int]:
        return {i: r["v"] for i, r in self.rows.items()}


def _collect(walk: FeedWalk) -> dict[str, int]:
    seen: dict[str, int] = {}
    for frame in walk:
        seen.update(zip(frame["id"], frame["v"]))
    return seen


def test_walk_reads_every_row_once_per_version():
    feed = Feed(237)
    walk = FeedWalk(feed.fetch(20), None, 20)
    seen = _collect(walk)
    assert seen == feed.latest()
    assert walk.rows == 237  # boundary rows read twice are yielded once
    assert walk.requests >= 237 // 20 + 1
    assert walk.checkpoint == max(r["ts"] for r in feed.rows.values())


def _mover(feed: Feed, every: int = 1):
    """Between requests, update a row that sorts early (already read), as a live service would."""
    calls = {"n": 0}
    rng = np.random.default_rng(1)

    def on_request(f: Feed) -> None:
        calls["n"] += 1
        if calls["n"] > 1 and calls["n"] % every == 0:
            early = [i for _, i in f._sorted(None)[:40]]
            f.change(early[int(rng.integers(0, len(early)))])
    return on_request


def test_offset_pages_lose_rows_under_change_but_the_walk_does_not():
    # The hazard the walk exists for: offset pages of updated_at:asc skip a row when an earlier
    # row moves to the end between two page reads.
    feed = Feed(300)
    feed.on_request = _mover(feed)
    fetch, seen, page = feed.fetch(25), set(), 1
    while True:
        frame, _ = fetch(None, page)
        seen |= set(frame["id"])
        if len(frame) < 25:
            break
        page += 1
    assert set(feed.rows) - seen, "offset paging should have skipped a row here"

    feed = Feed(300)
    start_ids = set(feed.rows)
    feed.on_request = _mover(feed)
    walk = FeedWalk(feed.fetch(25), None, 25)
    seen_versions = _collect(walk)
    assert set(seen_versions) == start_ids  # nothing skipped
    feed.on_request = None
    # rows changed after they were read come back from the checkpoint on
    again = _collect(FeedWalk(feed.fetch(25), walk.checkpoint, 25))
    assert {**seen_versions, **again} == feed.latest()


def test_a_tie_bigger_than_a_page_is_read_whole():
    feed = Feed(120, same_stamp=70)
    walk = FeedWalk(feed.fetch(10), None, 10)
    assert _collect(walk) == feed.latest()
    assert walk.unstable_from is None


def test_back_to_back_ties_are_emitted_as_they_end():
    # every page holds one timestamp: the walk must not hold rows beyond the current tie
    feed = Feed(10)
    feed.rows = {f"{i:08d}-0000-4000-8000-000000000000": {"ts": T0 + pd.Timedelta(seconds=i // 10),
                                                          "v": 0} for i in range(200)}
    walk = FeedWalk(feed.fetch(10), None, 10)
    biggest = 0
    seen: dict[str, int] = {}
    for frame in walk:
        biggest = max(biggest, len(frame))
        seen.update(zip(frame["id"], frame["v"]))
    assert seen == feed.latest() and walk.rows == 200
    assert biggest <= 20


def test_a_tie_that_changes_while_read_is_flagged_and_reread():
    feed = Feed(120, same_stamp=70)
    tie = [i for _, i in feed._sorted(None)[:70]]
    state = {"n": 0}

    def on_request(f: Feed) -> None:
        state["n"] += 1
        if state["n"] == 3:  # two tie pages read: move a row already read out of the tie
            f.change(tie[2])
    feed.on_request = on_request
    walk = FeedWalk(feed.fetch(10), None, 10)
    first = _collect(walk)
    assert walk.unstable_from == feed.rows[tie[0]]["ts"]
    feed.on_request = None
    second = _collect(FeedWalk(feed.fetch(10), walk.unstable_from, 10))
    assert {**first, **second} == feed.latest()


def _investors(n: int, start: int = 0, deleted_every: int = 7) -> pd.DataFrame:
    ids = [f"{i:08d}-0000-4000-8000-000000000000" for i in range(start, start + n)]
    return pd.DataFrame({
        "id": pd.array(ids, dtype="str"),
        "name": pd.array([f"Firm {i}" if i % 5 else None for i in range(n)], dtype="str"),
        "short_name": pd.array([f"F{i}" for i in range(n)], dtype="str"),
        "website": pd.array([None] * n, dtype="str"),
        "country": pd.array(["GBR"] * n, dtype="str"),
        "updated_at": pd.array(T0 + pd.to_timedelta(np.arange(n), unit="s"),
                               dtype=pd.DatetimeTZDtype("us", "UTC")),
        "deleted": pd.array([i % deleted_every == 0 for i in range(n)], dtype="boolean"),
    })


def test_schema_round_trip_through_parquet(tmp_path):
    frame = _investors(50)
    staged = store.StagedRows(tmp_path / "s", "investors", "p")
    staged.add(frame)
    parts = staged.close()
    import pyarrow.parquet as pq

    back = to_frame(pq.read_table(parts[0].path), "investors")
    pd.testing.assert_frame_equal(back, frame)
    assert to_arrow(frame, "investors").schema.field("updated_at").type.tz == "UTC"


def _commit(root, state, frame, rows_per_file=100):
    staged = store.StagedRows(root / store.STAGING / "x" / "investors", "investors",
                              f"part-{state.syncs:06d}", rows_per_file=rows_per_file)
    state.syncs += 1
    staged.add(frame)
    parts = staged.close()
    store.commit_entity(root, state, "investors", staged, parts, T0.isoformat(), "now",
                        rows_per_file=rows_per_file)
    store.recover(root, state)


def test_upserts_replace_by_id_and_small_files_are_compacted(tmp_path):
    root = open_folder(tmp_path / "m", create=True)
    state = MirrorState()
    write_state(root, state)
    _commit(root, state, _investors(250))
    assert [f.rows for f in state.entities["investors"].files] == [100, 100, 50]
    changed = _investors(30, start=240)  # 10 updates, 20 inserts
    changed["name"] = pd.array(["renamed"] * 30, dtype="str")
    for _ in range(3):
        _commit(root, state, changed)
    got = load(root, "investors", include_deleted=True).sort_values("id", ignore_index=True)
    assert len(got) == 270 and got["id"].is_unique
    assert (got.set_index("id").loc[changed["id"], "name"] == "renamed").all()
    files = state.entities["investors"].files
    assert sum(f.rows < 50 for f in files) <= 1  # small files do not pile up
    on_disk = sorted(p.name for p in (root / "investors").iterdir())
    assert on_disk == sorted(f.name for f in files)
    live = load(root, "investors")
    assert not live["deleted"].any() and len(live) == (~got["deleted"]).sum()


def test_duplicates_within_one_pull_keep_the_later_read(tmp_path):
    root = open_folder(tmp_path / "m", create=True)
    state = MirrorState()
    first = _investors(10)
    later = first.iloc[[3]].copy()
    later["name"] = pd.array(["second read"], dtype="str")
    staged = store.StagedRows(root / store.STAGING / "x" / "investors", "investors", "part-1")
    staged.add(first)
    staged.add(later)
    parts = staged.close()
    store.commit_entity(root, state, "investors", staged, parts, None, "now")
    got = load(root, "investors", include_deleted=True)
    assert len(got) == 10
    assert got.set_index("id").loc[first["id"][3], "name"] == "second read"


def test_recover_removes_what_the_state_does_not_name(tmp_path):
    root = open_folder(tmp_path / "m", create=True)
    state = MirrorState()
    write_state(root, state)
    _commit(root, state, _investors(20))
    stray = root / "investors" / "part-999999-deadbeef-000.parquet"
    stray.write_bytes(b"half a file")
    (root / store.STAGING / "y").mkdir(parents=True)
    removed = store.recover(root, read_state(root))
    assert stray in removed and not stray.exists() and not (root / store.STAGING).exists()
    assert len(load(root, "investors", include_deleted=True)) == 20


def test_state_file_errors_say_what_to_do(tmp_path):
    where = tmp_path / STATE_NAME
    with pytest.raises(MirrorStateError, match="corrupt"):
        parse_state(b"{not json", where)
    with pytest.raises(MirrorStateError, match="not a dealframe mirror"):
        parse_state(b'{"a": 1}', where)
    doc = MirrorState().to_bytes().replace(b'"schema_version": 1', b'"schema_version": 99')
    with pytest.raises(MirrorVersionError, match="version 99"):
        parse_state(doc, where)
    good = parse_state(MirrorState(syncs=4).to_bytes(), where)
    assert good.syncs == 4


def test_open_folder_refuses_files_and_foreign_folders(tmp_path):
    a_file = tmp_path / "f.txt"
    a_file.write_text("keep me")
    with pytest.raises(MirrorPathError, match="is a file"):
        open_folder(a_file, create=True)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(MirrorPathError, match="not empty"):
        open_folder(foreign, create=True)
    assert a_file.read_text() == "keep me" and [p.name for p in foreign.iterdir()] == ["notes.txt"]


def test_lock_refuses_then_waits(tmp_path):
    held, release = threading.Event(), threading.Event()

    def holder():
        with mirror_lock(tmp_path, 1.0):
            held.set()
            release.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    with pytest.raises(MirrorLockedError, match="another sync"):
        with mirror_lock(tmp_path, 0.1):
            pass
    threading.Timer(0.3, release.set).start()
    started = time.monotonic()
    with mirror_lock(tmp_path, 5.0):
        waited = time.monotonic() - started
    t.join()
    assert 0.2 < waited < 5.0
