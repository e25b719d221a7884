"""Mirror pieces without a server: the keyset walk over an in-memory feed that changes while it
is read, the Parquet schema round trip, commits (a delta, merged deltas, a compaction; load and
status equal to a model after random commits), recovery, the state file, the lock."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from dealframe.mirror import commit, merge, store
from dealframe.mirror.durable import mirror_lock
from dealframe.mirror.errors import (MirrorLockedError, MirrorPathError, MirrorStateError,
                                     MirrorVersionError)
from dealframe.mirror.feed import FeedWalk
from dealframe.mirror.read import files, load, status
from dealframe.mirror.schema import SCHEMA_VERSION, to_arrow, to_frame
from dealframe.mirror.state import (STATE_NAME, FileEntry, MirrorState, parse_state, read_state,
                                    write_state)
from dealframe.mirror.sync import new_generation, open_folder

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
    writer = store.PartWriter(tmp_path, "investors", "p", row_group_rows=16)
    writer.write(to_arrow(frame, "investors"))
    parts = writer.close()
    import pyarrow.parquet as pq

    assert [p.rows for p in parts] == [50] and parts[0].deleted == int(frame["deleted"].sum())
    assert pq.ParquetFile(parts[0].path).metadata.num_row_groups == 4  # 16, 16, 16, 2
    back = to_frame(pq.read_table(parts[0].path), "investors")
    pd.testing.assert_frame_equal(back, frame)
    assert to_arrow(frame, "investors").schema.field("updated_at").type.tz == "UTC"


def _commit(root, state, frame, rows_per_file=100, reread=None):
    prefix = new_generation(state)
    staged = store.StagedRows(root / store.STAGING / prefix / "investors", "investors",
                              f"part-{prefix}", rows_per_file=rows_per_file)
    staged.add(frame)
    parts = staged.close()
    written = commit.commit_entity(root, state, "investors", staged, parts, T0.isoformat(), "now",
                                   rows_per_file=rows_per_file, reread=reread)
    store.recover(root, state)
    return written


def _new_mirror(tmp_path):
    root = open_folder(tmp_path / "m", create=True)
    state = MirrorState()
    write_state(root, state)
    return root, state


def _changed(frame: pd.DataFrame, stamp: int, name: str) -> pd.DataFrame:
    out = frame.copy()
    out["name"] = pd.array([name] * len(out), dtype="str")
    out["updated_at"] = pd.array([T0 + pd.Timedelta(seconds=stamp)] * len(out),
                                 dtype=pd.DatetimeTZDtype("us", "UTC"))
    return out


def _check(root, model: pd.DataFrame) -> None:
    """load equals the model (one row per id, newest version), and status counts unique ids."""
    got = load(root, "investors", include_deleted=True).sort_values("id", ignore_index=True)
    pd.testing.assert_frame_equal(got, model.sort_values("id", ignore_index=True))
    live = load(root, "investors")
    assert len(live) == int((~model["deleted"]).sum()) and not live["deleted"].any()
    row = status(root).set_index("entity").loc["investors"]
    assert (row["rows"], row["deleted"]) == (len(model), int(model["deleted"].sum()))
    assert row["live"] == len(live) and row["stored_rows"] >= row["rows"]
    on_disk = sorted(p.name for p in (root / "investors").iterdir())
    assert on_disk == sorted(p.name for p in files(root, "investors"))


def _upsert(model: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    kept = model[~model["id"].isin(rows["id"])]
    return pd.concat([kept, rows], ignore_index=True)


def test_small_changes_go_to_a_delta_and_the_base_is_not_rewritten(tmp_path):
    root, state = _new_mirror(tmp_path)
    model = _investors(1000)
    _commit(root, state, model, rows_per_file=400)
    base = {p.name: p.stat().st_mtime_ns for p in (root / "investors").iterdir()}
    assert len(base) == 3
    change = _changed(_investors(30, start=985), 5000, "renamed")  # 15 updates, 15 inserts
    change["deleted"] = pd.array([True, False] * 15, dtype="boolean")
    assert _commit(root, state, change, rows_per_file=400) == 30
    model = _upsert(model, change)
    after = {p.name: p.stat().st_mtime_ns for p in (root / "investors").iterdir()}
    assert {k: after[k] for k in base} == base and len(after) == 4  # base untouched, one delta
    es = state.entities["investors"]
    assert [f.name for f in es.deltas] == [n for n in sorted(after) if n not in base]
    assert min(f.generation for f in es.deltas) > max(f.generation for f in es.base)
    assert sorted(after) == [p.name for p in files(root, "investors")]  # name order = generation order
    _check(root, model)
    assert status(root).loc[0, "stored_rows"] == 1030 and status(root).loc[0, "delta_files"] == 1


def test_deltas_are_merged_when_they_pile_up(tmp_path, monkeypatch):
    monkeypatch.setattr(commit, "MAX_DELTA_FILES", 3)
    root, state = _new_mirror(tmp_path)
    model = _investors(1000)
    _commit(root, state, model, rows_per_file=400)
    base = sorted(f.name for f in state.entities["investors"].base)
    for k in range(5):  # the same ids changing again, and new ones
        change = _changed(_investors(10, start=100 * k % 300 + 995), 6000 + k, f"round {k}")
        _commit(root, state, change, rows_per_file=400)
        model = _upsert(model, change)
        _check(root, model)
        es = state.entities["investors"]
        assert len(es.deltas) <= 3 and sorted(f.name for f in es.base) == base
    assert len(es.deltas) < 5  # merged at least once


def test_deltas_past_a_fraction_of_the_base_are_compacted(tmp_path):
    root, state = _new_mirror(tmp_path)
    model = _investors(250)
    _commit(root, state, model)
    assert [f.rows for f in state.entities["investors"].files] == [100, 100, 50]
    change = _changed(_investors(30, start=240), 7000, "renamed")  # 10 updates, 20 inserts: > 10%
    written = _commit(root, state, change)
    model = _upsert(model, change)
    es = state.entities["investors"]
    assert written == 270 and len({f.generation for f in es.files}) == 1
    assert [f.rows for f in es.files] == [100, 100, 70] and es.stored_rows == es.rows == 270
    _check(root, model)


def test_random_commits_equal_a_model(tmp_path, monkeypatch):
    # small thresholds so that deltas, merges and compactions all happen
    monkeypatch.setattr(commit, "MAX_DELTA_FILES", 2)
    monkeypatch.setattr(commit, "COMPACT_FRACTION", 0.25)
    rng = np.random.default_rng(3)
    root, state = _new_mirror(tmp_path)
    model = _investors(300)
    _commit(root, state, model, rows_per_file=128)
    kinds = set()
    for k in range(12):
        ids = rng.choice(400, size=int(rng.integers(1, 40)), replace=False)
        change = pd.concat([_investors(1, start=int(i)) for i in ids], ignore_index=True)
        change = _changed(change, 8000 + k, f"v{k}")
        change["deleted"] = pd.array(rng.random(len(change)) < 0.3, dtype="boolean")
        before = {f.name for f in state.entities["investors"].files}
        _commit(root, state, change, rows_per_file=128)
        model = _upsert(model, change)
        _check(root, model)
        after = {f.name for f in state.entities["investors"].files}
        kinds.add("compact" if not before & after else "delta" if before <= after else "merge")
    assert kinds == {"delta", "merge", "compact"}


def test_unchanged_rereads_are_not_written_again(tmp_path):
    root, state = _new_mirror(tmp_path)
    model = _investors(200)
    _commit(root, state, model)
    again = model.iloc[150:170].reset_index(drop=True)  # read again by the overlap, unchanged
    same_stamp = again.iloc[:3].copy()  # changed without a new timestamp: must be written
    same_stamp["name"] = pd.array(["same stamp"] * 3, dtype="str")
    pull = pd.concat([same_stamp, again.iloc[3:]], ignore_index=True)
    reread = pa.array(pull["id"].tolist(), pa.string())
    base = [f.name for f in state.entities["investors"].files]
    assert _commit(root, state, pull, reread=reread) == 3  # only the three changed rows
    model = _upsert(model, same_stamp)
    _check(root, model)
    names = [f.name for f in state.entities["investors"].files]
    assert names[:2] == base and len(names) == 3
    unchanged = again.iloc[3:]
    assert _commit(root, state, unchanged, reread=pa.array(unchanged["id"].tolist())) == 0
    assert [f.name for f in state.entities["investors"].files] == names  # nothing new written
    assert state.entities["investors"].checkpoint == T0.isoformat()
    _check(root, model)


def test_duplicates_within_one_pull_keep_the_later_read(tmp_path):
    root, state = _new_mirror(tmp_path)
    first = _investors(10)
    later = first.iloc[[3]].copy()
    later["name"] = pd.array(["second read"], dtype="str")
    _commit(root, state, pd.concat([first, later], ignore_index=True))
    got = load(root, "investors", include_deleted=True)
    assert len(got) == 10 and status(root).loc[0, "rows"] == 10
    assert got.set_index("id").loc[first["id"][3], "name"] == "second read"


def test_newest_generation_wins():
    base = pa.table({"id": ["a", "b", "c", "d"], "v": [0, 0, 0, 0]})
    g2 = [pa.table({"id": ["b"], "v": [2]}), pa.table({"id": ["c"], "v": [2]})]
    g3 = [pa.table({"id": ["c", "e"], "v": [3, 3]})]
    merged = pa.concat_tables(merge.newest_wins([[base], g2, g3]))
    assert dict(zip(merged["id"].to_pylist(), merged["v"].to_pylist())) == \
        {"a": 0, "b": 2, "c": 3, "d": 0, "e": 3}
    assert merged.num_rows == 5
    last = merge.last_per_id(pa.table({"id": ["x", "y", "x", "z", "y"], "v": [1, 2, 3, 4, 5]}))
    assert last.to_pydict() == {"id": ["x", "z", "y"], "v": [3, 4, 5]}


def test_commit_plans():
    def entry(gen, rows):
        return FileEntry(f"part-{gen:010d}-x-000.parquet", rows, 0, 1, gen)
    base = [entry(1, 1000), entry(1, 500)]
    assert commit.plan([], 0).kind == "none" and commit.plan([], 5).kind == "base"
    assert commit.plan(base, 150).kind == "delta" and commit.plan(base, 151).kind == "compact"
    assert commit.plan(base, 0).kind == "none"
    assert commit.plan(base, 0, compact=True).kind == "none"  # one generation already
    deltas = [entry(g, 5) for g in range(2, 2 + commit.MAX_DELTA_FILES)]
    merged = commit.plan(base + deltas, 5)
    assert merged.kind == "merge" and merged.keep == base and merged.merge == deltas
    assert commit.plan(base + deltas[:1], 0, compact=True).kind == "compact"


def test_recover_removes_what_the_state_does_not_name(tmp_path):
    root, state = _new_mirror(tmp_path)
    _commit(root, state, _investors(20))
    stray = root / "investors" / "part-9999999999-deadbeef-000.parquet"
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
    current = f'"schema_version": {SCHEMA_VERSION}'.encode()
    for other in (99, 1):  # 1: one row per id per folder, before base and delta files
        doc = MirrorState().to_bytes().replace(current, f'"schema_version": {other}'.encode())
        with pytest.raises(MirrorVersionError, match=f"version {other}.*new folder"):
            parse_state(doc, where)
    good = parse_state(MirrorState(syncs=4, generation=6).to_bytes(), where)
    assert (good.syncs, good.generation) == (4, 6)
    state = MirrorState()
    state.entity("deals").rows = 5  # more ids than rows in the files
    with pytest.raises(MirrorStateError, match="inconsistent"):
        parse_state(state.to_bytes(), where)


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
