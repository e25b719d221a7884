"""Mirror pieces without a server: the keyset walk over an in-memory feed that changes while it
is read, the staging schema round trip, commits to the Delta table (one per sync with its
checkpoint; load and status equal to a model after random upserts through both paths; unchanged
re-reads not written; plain strings), the retention of compact, the schema check, recovery, the
marker file, the lock."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

from dealframe.errors import ServiceContractError
from dealframe.mirror import commit, durable, store
from dealframe.mirror import table as table_mod
from dealframe.mirror.ahead import read_ahead
from dealframe.mirror.compact import kept_versions
from dealframe.mirror.durable import mirror_lock
from dealframe.mirror.errors import (
    MirrorLockedError,
    MirrorPathError,
    MirrorStateError,
    MirrorVersionError,
)
from dealframe.mirror.feed import FeedWalk
from dealframe.mirror.read import files, load, status
from dealframe.mirror.schema import SCHEMA_VERSION, arrow_schema, schema_problem, to_arrow, to_frame
from dealframe.mirror.state import STATE_NAME, MirrorState, parse_state, write_state
from dealframe.mirror.sync import open_folder
from dealframe.mirror.table import last_info

T0 = pd.Timestamp("2026-01-01", tz="UTC")


class Feed:
    """An in-memory change feed: investors with ``updated_at``; the clock moves only when told."""

    def __init__(self, n: int, *, same_stamp: int = 0, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        offsets = np.sort(rng.integers(0, 10 * n, n))
        offsets[:same_stamp] = 5  # a tie bigger than a page
        self.rows = {
            f"{i:08d}-0000-4000-8000-000000000000": {
                "ts": T0 + pd.Timedelta(seconds=int(s)),
                "v": 0,
            }
            for i, s in enumerate(offsets)
        }
        self.clock = T0 + pd.Timedelta(seconds=10 * n + 1)
        self.on_request = None
        self.requests = 0

    def change(self, ident: str, advance: int = 1) -> None:
        self.clock += pd.Timedelta(seconds=advance)
        self.rows[ident] = {"ts": self.clock, "v": self.rows[ident]["v"] + 1}

    def _sorted(self, since):
        items = [(r["ts"], i) for i, r in self.rows.items() if since is None or r["ts"] >= since]
        return sorted(items)

    def fetch(self, page_size, *, cap=None, meta=None, ignore_page=False):
        """Pages of ``page_size`` rows, or of ``cap`` when the service serves fewer than asked
        (``meta``: the pagination meta it reports, as ``client.private.page`` keeps it)."""
        served = min(page_size, cap or page_size)

        def fetch(since, page):
            if self.on_request is not None:
                self.on_request(self)
            self.requests += 1
            rows = self._sorted(since)
            page = 1 if ignore_page else page
            chosen = rows[(page - 1) * served : page * served]
            frame = pd.DataFrame(
                {
                    "id": [i for _, i in chosen],
                    "updated_at": [t for t, _ in chosen],
                    "v": [self.rows[i]["v"] for _, i in chosen],
                }
            )
            frame.attrs.update(meta(page, served, len(rows)) if meta else {})
            return frame, len(rows)

        return fetch

    def latest(self) -> dict[str, int]:
        return {i: r["v"] for i, r in self.rows.items()}


def _collect(walk: FeedWalk) -> dict[str, int]:
    seen: dict[str, int] = {}
    for frame in walk:
        seen.update(zip(frame["id"], frame["v"]))
    return seen


@pytest.mark.parametrize(
    "meta",
    [
        lambda page, served, total: {"limit": served},  # says the page size it served
        lambda page, served, total: {"has_more": page * served < total},  # or has_more
        lambda page, served, total: {"limit": 20},  # or neither: the total shows the rest
        None,
    ],
    ids=["meta.limit", "has_more", "total", "no meta"],
)
def test_walk_reads_everything_from_a_service_that_serves_fewer_rows_than_asked(meta):
    """The interface document gives POST lists no upper bound of ``limit``: a service that
    serves 7 rows of the 20 asked must not look finished after its first page."""
    feed = Feed(237, seed=3)
    walk = FeedWalk(feed.fetch(20, cap=7, meta=meta), None, 20)
    assert _collect(walk) == feed.latest()
    assert walk.rows == 237 and walk.checkpoint == max(r["ts"] for r in feed.rows.values())


def test_a_tie_on_a_service_that_ignores_page_is_an_error_not_an_endless_walk():
    """More rows on one timestamp than a page holds are read by offset; a service that
    answers every page with page 1 would keep the walk going forever."""
    feed = Feed(120, same_stamp=70)
    walk = FeedWalk(feed.fetch(25, ignore_page=True), None, 25)
    with pytest.raises(ServiceContractError, match="ignores page"):
        _collect(walk)
    assert feed.requests == 2


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
    feed.rows = {
        f"{i:08d}-0000-4000-8000-000000000000": {"ts": T0 + pd.Timedelta(seconds=i // 10), "v": 0}
        for i in range(200)
    }
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
    return pd.DataFrame(
        {
            "id": pd.array(ids, dtype="str"),
            "name": pd.array([f"Firm {i}" if i % 5 else None for i in range(n)], dtype="str"),
            "short_name": pd.array([f"F{i}" for i in range(n)], dtype="str"),
            "website": pd.array([None] * n, dtype="str"),
            "country": pd.array(["GBR"] * n, dtype="str"),
            "updated_at": pd.array(
                T0 + pd.to_timedelta(np.arange(n), unit="s"), dtype=pd.DatetimeTZDtype("us", "UTC")
            ),
            "deleted": pd.array([i % deleted_every == 0 for i in range(n)], dtype="boolean"),
        }
    )


def test_schema_round_trip_through_parquet(tmp_path):
    # the staging files
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


def _commit(root, frame, *, full=None, reread=None, checkpoint=T0, ahead=False):
    """Stage ``frame`` and commit it as one sync would (a first sync when there is no table);
    ``ahead``: with the table's rows read ahead, as a sync reads them while it walks the feed."""
    folder = root / "investors"
    current = DeltaTable(str(folder)) if (folder / "_delta_log").exists() else None
    staged = store.StagedRows(
        root / store.STAGING / "s" / "investors",
        "investors",
        "part",
        rows_per_file=100,
        reread_until=None,
    )
    staged.add(frame)
    if reread is not None:
        staged.reread = set(reread)
    parts = staged.close()
    full = current is None if full is None else full
    with read_ahead(folder, None if full or not ahead else current, "investors") as rows:
        assert (rows is not None) == (ahead and not full)
        written = commit.commit_entity(
            root,
            "investors",
            staged,
            parts,
            table=current,
            full=full,
            checkpoint=checkpoint.isoformat(),
            sync=1,
            received=len(frame),
            ahead=rows,
        )
    store.recover(root)
    return written


def _new_mirror(tmp_path):
    root = open_folder(tmp_path / "m", create=True)
    write_state(root, MirrorState())
    return root


def _changed(frame: pd.DataFrame, stamp: int, name: str) -> pd.DataFrame:
    out = frame.copy()
    out["name"] = pd.array([name] * len(out), dtype="str")
    out["updated_at"] = pd.array(
        [T0 + pd.Timedelta(seconds=stamp)] * len(out), dtype=pd.DatetimeTZDtype("us", "UTC")
    )
    return out


def _check(root, model: pd.DataFrame) -> None:
    """load equals the model (one row per id, newest version), and status counts the ids."""
    got = load(root, "investors", include_deleted=True).sort_values("id", ignore_index=True)
    pd.testing.assert_frame_equal(got, model.sort_values("id", ignore_index=True))
    live = load(root, "investors")
    assert len(live) == int((~model["deleted"]).sum()) and not live["deleted"].any()
    row = status(root).set_index("entity").loc["investors"]
    assert (row["rows"], row["deleted"]) == (len(model), int(model["deleted"].sum()))
    assert row["live"] == len(live)
    listed = files(root, "investors")
    assert all(p.exists() for p in listed)
    assert sum(pq.read_metadata(p).num_rows for p in listed) == len(model)  # each id once


def _upsert(model: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    kept = model[~model["id"].isin(rows["id"])]
    return pd.concat([kept, rows], ignore_index=True)


def test_a_sync_is_one_commit_carrying_its_checkpoint(tmp_path):
    root = _new_mirror(tmp_path)
    model = _investors(1000)
    assert _commit(root, model) == 1000
    change = _changed(_investors(30, start=985), 5000, "renamed")  # 15 updates, 15 inserts
    change["deleted"] = pd.array([True, False] * 15, dtype="boolean")
    later = T0 + pd.Timedelta(days=1)
    assert _commit(root, change, checkpoint=later) == 30
    model = _upsert(model, change)
    _check(root, model)
    table = DeltaTable(str(root / "investors"))
    assert table.version() == 1
    info = last_info(table)
    assert (info.checkpoint, info.operation, info.rows_written) == (later.isoformat(), "sync", 30)
    before = load(root, "investors", include_deleted=True, as_of=0)
    assert len(before) == 1000 and not before["name"].eq("renamed").any()


@pytest.mark.parametrize("path", ["in memory", "read ahead", "predicate", "streamed"])
def test_random_upserts_equal_a_model(tmp_path, monkeypatch, path):
    # the three upsert paths: in memory (the rows read by the commit or ahead of it), a key
    # IN (...) predicate, a streamed rewrite
    if path not in ("in memory", "read ahead"):
        monkeypatch.setattr(table_mod, "IN_MEMORY_MAX_ROWS", 0)
    if path == "streamed":
        monkeypatch.setattr(table_mod, "IN_LIST_MAX", 3)
    rng = np.random.default_rng(3)
    root = _new_mirror(tmp_path)
    model = _investors(300)
    _commit(root, model)
    for k in range(6):
        ids = rng.choice(400, size=int(rng.integers(1, 40)), replace=False)
        change = pd.concat([_investors(1, start=int(i)) for i in ids], ignore_index=True)
        change = _changed(change, 8000 + k, f"v{k}")
        change["deleted"] = pd.array(rng.random(len(change)) < 0.3, dtype="boolean")
        _commit(root, change, ahead=path == "read ahead")
        model = _upsert(model, change)
        _check(root, model)
    assert DeltaTable(str(root / "investors")).version() == 6


@pytest.mark.parametrize("stored, changed, inserted", [(300, 40, 20), (10, 5, 350)])
def test_an_in_memory_upsert_writes_files_of_even_rows_at_once(
    tmp_path, monkeypatch, stored, changed, inserted
):
    # one file per ROWS_PER_WRITER rows, up to one per CPU (here 3), each about as long: the
    # old rows and the new ones, which may be most of them, cut evenly
    monkeypatch.setattr(table_mod, "ROWS_PER_WRITER", 100)
    monkeypatch.setattr(table_mod, "_writers", lambda: 3)
    root = _new_mirror(tmp_path)
    model = _investors(stored)
    _commit(root, model)
    change = _changed(_investors(changed + inserted, start=stored - changed), 7000, "new")
    assert _commit(root, change) == changed + inserted
    model = _upsert(model, change)
    _check(root, model)
    rows = sorted(pq.read_metadata(p).num_rows for p in files(root, "investors"))
    assert len(rows) == 3 and sum(rows) == len(model)
    assert rows[-1] - rows[0] <= changed + 1  # even cuts, less the replaced rows of each


def test_an_in_memory_upsert_of_every_stored_row_writes_only_the_new_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(table_mod, "ROWS_PER_WRITER", 10)
    monkeypatch.setattr(table_mod, "_writers", lambda: 4)
    root = _new_mirror(tmp_path)
    _commit(root, _investors(30))
    change = _changed(_investors(30), 7000, "all new")  # every stored row replaced
    _commit(root, change)
    _check(root, change)
    assert all(pq.read_metadata(p).num_rows for p in files(root, "investors"))  # no empty file


@pytest.mark.parametrize("ahead", [False, True], ids=["read by the commit", "read ahead"])
def test_an_in_memory_upsert_allocates_from_the_mirror_pool(tmp_path, monkeypatch, ahead):
    # the rewrite's read, filter and write take their buffers from table.memory_pool() (the
    # system allocator), not from pyarrow's default pool
    assert table_mod.memory_pool().backend_name == "system"
    pool = pa.proxy_memory_pool(pa.system_memory_pool())
    monkeypatch.setattr(table_mod, "memory_pool", lambda: pool)
    root = _new_mirror(tmp_path)
    model = _investors(3000)
    _commit(root, model)
    assert pool.max_memory() == 0  # a first sync commits its staged files as they are
    change = _changed(_investors(40, start=100), 7000, "renamed")
    _commit(root, change, ahead=ahead)
    _check(root, _upsert(model, change))
    assert pool.max_memory() >= to_arrow(model, "investors").nbytes  # the whole table read
    assert pool.bytes_allocated() == 0  # and released


def test_files_encode_by_column(tmp_path):
    # the key plain and uncompressed (distinct random ids), other strings with a dictionary,
    # numbers and timestamps plain; staged files (a first sync) and rewritten ones alike
    root = _new_mirror(tmp_path)
    _commit(root, _investors(300))
    first = files(root, "investors")
    _commit(root, _changed(_investors(10, start=5), 7000, "renamed"))
    for path in [*first, *files(root, "investors")]:
        meta = pq.read_metadata(path).row_group(0)
        chunks = {meta.column(i).path_in_schema: meta.column(i) for i in range(meta.num_columns)}
        dictionary = {name: c.has_dictionary_page for name, c in chunks.items()}
        assert dictionary == {
            "id": False,
            "name": True,
            "short_name": True,
            "website": True,
            "country": True,
            "updated_at": False,
            "deleted": False,
        }
        assert chunks["id"].compression == "UNCOMPRESSED"
        assert {c.compression for n, c in chunks.items() if n != "id"} == {"SNAPPY"}


def test_read_ahead_reads_the_rows_an_upsert_would_read(tmp_path, monkeypatch):
    root = _new_mirror(tmp_path)
    model = _investors(120)
    _commit(root, model)
    folder = root / "investors"
    table = DeltaTable(str(folder))
    before = set(threading.enumerate())
    with read_ahead(folder, table, "investors") as ahead:
        assert ahead is not None and ahead.files == table_mod.data_files(folder, table)
        got = to_frame(ahead.rows(), "investors").sort_values("id", ignore_index=True)
    assert set(threading.enumerate()) <= before  # the reading thread has ended
    pd.testing.assert_frame_equal(got, model.sort_values("id", ignore_index=True))
    with read_ahead(folder, None, "investors") as ahead:  # no table (or a full pull)
        assert ahead is None
    monkeypatch.setattr(table_mod, "IN_MEMORY_MAX_ROWS", 119)  # an upsert would stream it
    with read_ahead(folder, table, "investors") as ahead:
        assert ahead is None


def test_read_ahead_raises_its_error_where_the_rows_are_used(tmp_path):
    root = _new_mirror(tmp_path)
    _commit(root, _investors(50))
    folder = root / "investors"
    table = DeltaTable(str(folder))
    table_mod.data_files(folder, table)[0].write_bytes(b"not parquet")
    with read_ahead(folder, table, "investors") as ahead:
        assert ahead is not None
        with pytest.raises((OSError, pa.ArrowException)):
            ahead.rows()


def test_strings_stay_plain_strings_so_pyarrow_can_filter(tmp_path):
    root = _new_mirror(tmp_path)
    _commit(root, _investors(50))
    _commit(root, _changed(_investors(5, start=10), 9000, "renamed"))
    for path in files(root, "investors"):
        assert pq.read_schema(path).field("id").type == pa.string()
    dataset = DeltaTable(str(root / "investors")).to_pyarrow_dataset()
    got = dataset.to_table(filter=ds.field("name") == "renamed")
    assert got.num_rows == 5


@pytest.mark.parametrize("ahead", [False, True], ids=["files", "read ahead"])
def test_unchanged_rereads_are_not_written_again(tmp_path, ahead):
    root = _new_mirror(tmp_path)
    model = _investors(200)
    _commit(root, model)
    again = model.iloc[150:170].reset_index(drop=True)  # read again by the overlap, unchanged
    same_stamp = again.iloc[:3].copy()  # changed without a new timestamp: must be written
    same_stamp["name"] = pd.array(["same stamp"] * 3, dtype="str")
    pull = pd.concat([same_stamp, again.iloc[3:]], ignore_index=True)
    assert _commit(root, pull, reread=pull["id"].tolist(), ahead=ahead) == 3  # the 3 changed
    model = _upsert(model, same_stamp)
    _check(root, model)
    assert DeltaTable(str(root / "investors")).version() == 1
    unchanged = again.iloc[3:]
    assert _commit(root, unchanged, reread=unchanged["id"].tolist(), ahead=ahead) == 0
    assert DeltaTable(str(root / "investors")).version() == 1  # no commit: nothing changed
    _check(root, model)


def test_duplicates_within_one_pull_keep_the_later_read(tmp_path):
    root = _new_mirror(tmp_path)
    first = _investors(10)
    later = first.iloc[[3]].copy()
    later["name"] = pd.array(["second read"], dtype="str")
    _commit(root, pd.concat([first, later], ignore_index=True))
    got = load(root, "investors", include_deleted=True)
    assert len(got) == 10 and status(root).set_index("entity").loc["investors", "rows"] == 10
    assert got.set_index("id").loc[first["id"][3], "name"] == "second read"


def test_recover_removes_the_staging_folder(tmp_path):
    root = _new_mirror(tmp_path)
    _commit(root, _investors(20))
    (root / store.STAGING / "y").mkdir(parents=True)
    (root / store.STAGING / "y" / "part-000.parquet").write_bytes(b"half a file")
    removed = store.recover(root)
    assert len(removed) == 1 and not (root / store.STAGING).exists()
    assert len(load(root, "investors", include_deleted=True)) == 20


def test_kept_versions():
    now = pd.Timestamp("2026-03-01", tz="UTC")
    times = [(v, now - pd.Timedelta(hours=10 * (5 - v))) for v in range(6)]  # 50h ... 0h ago
    assert kept_versions(times, 5, keep_versions=3, retain_hours=None, now=now) == [3, 4, 5]
    assert kept_versions(times, 5, keep_versions=99, retain_hours=None, now=now) == list(range(6))
    # every version current in the last 25 hours: 3 (20h ago), 4, 5, and 2 (current 25h ago)
    assert kept_versions(times, 5, keep_versions=None, retain_hours=25, now=now) == [2, 3, 4, 5]
    assert kept_versions(times, 5, keep_versions=None, retain_hours=0, now=now) == [5]


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
    legacy = MirrorState().to_bytes().replace(current, b'"schema_version": 2')
    with pytest.raises(MirrorVersionError, match="version 2.*sync.*migrates"):  # a sync migrates it
        parse_state(legacy, where)
    good = parse_state(MirrorState(syncs=4).to_bytes(), where)
    assert good.syncs == 4
    with pytest.raises(MirrorStateError, match="inconsistent"):
        parse_state(MirrorState().to_bytes().replace(b'"syncs": 0', b'"syncs": "many"'), where)


def test_a_foreign_schema_is_named():
    assert schema_problem("deals", arrow_schema("deals")) is None
    assert "holds the companies table" in schema_problem("deals", arrow_schema("companies"))
    fewer = pa.schema([f for f in arrow_schema("investors") if f.name != "country"])
    assert "country" in schema_problem("investors", fewer)
    retyped = arrow_schema("investors").set(1, pa.field("name", pa.int64()))
    assert "name" in schema_problem("investors", retyped)


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


def test_lock_refuses_then_waits(tmp_path, monkeypatch):
    held, release = threading.Event(), threading.Event()

    def holder():
        with mirror_lock(tmp_path, 1.0):
            held.set()
            release.wait(30)

    t = threading.Thread(target=holder)
    t.start()
    assert held.wait(30), "the holder never took the lock"
    with pytest.raises(MirrorLockedError, match="another sync"):
        with mirror_lock(tmp_path, 0.1):
            pass
    # The holder lets go only once the waiter has found the lock taken: the waiter took it
    # after waiting, whatever the timing of the threads.
    tries: list[bool] = []
    try_lock = durable._try_lock

    def watched(fd: int) -> bool:
        got = try_lock(fd)
        tries.append(got)
        if not got:
            release.set()
        return got

    monkeypatch.setattr(durable, "_try_lock", watched)
    try:
        with mirror_lock(tmp_path, 30.0):  # 30 s: a guard; the holder lets go at once
            pass
    finally:
        release.set()
        t.join(30)
    # refused while held (it waited), then taken once free
    assert len(tries) >= 2 and tries == [False] * (len(tries) - 1) + [True], tries
