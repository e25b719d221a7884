"""A data file that is not its table's: another table's Parquet file copied over one of a table's
data files (or one without the table's key columns) is damage, found by the file's own schema.

pyarrow reads a data file under the Delta log's schema whatever the file holds, so before the
check ``load(path, "deals")`` over the investors' file returned the investors' ids as deals,
every deal column null, and ``status`` counted them as deal rows, with no error and no warning.
Now ``load``, ``status`` and ``load_public`` raise ``MirrorDamagedError`` naming the table, the
file, what it holds and what was expected, with the repair (for an entity, a sync with
``repair=True``, which then gives back a table equal to a fresh pull). The check reads footers
only, so tables written the ordinary way (incremental syncs, a Family A field the service adds
later) still load."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import Proxy, set_field

SYNC_ARGS = dict(page_size=250, rows_per_file=100)


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=41) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb):
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as c:
        yield c


@pytest.fixture(scope="module")
def base(sb, client, tmp_path_factory):
    """A mirror synced twice (a full pull, then an incremental sync of a few changes)."""
    path = tmp_path_factory.mktemp("foreign") / "base"
    mirror.sync(client, path, **SYNC_ARGS)
    changes = Changes(sb.state, seed=4)
    for entity in mirror.ENTITIES:
        changes.update(entity, 3)
    mirror.sync(client, path, **SYNC_ARGS)
    return path


@pytest.fixture()
def path(base, tmp_path):
    copy = tmp_path / "m"
    shutil.copytree(base, copy)
    return copy


def fresh_pull(client, entity: str) -> pd.DataFrame:
    frame = getattr(client.private, entity)(include_deleted=True)
    return frame.sort_values("id", ignore_index=True)


def test_an_investors_file_copied_over_a_deals_file_is_damage_and_repaired(client, path):
    target = mirror.files(path, "deals")[0]
    shutil.copyfile(mirror.files(path, "investors")[0], target)
    for read in (
        lambda: mirror.load(path, "deals"),
        lambda: mirror.load(path, "deals", include_deleted=True, columns=["id", "deal_date"]),
        lambda: mirror.status(path),
    ):
        with pytest.raises(mirror.MirrorDamagedError) as info:
            read()  # it used to return investor ids as deals, every deal column null
        message = str(info.value)
        assert f"table at {path / 'deals'} is damaged" in message
        assert f"the data file {target.name} holds the investors table's 7 columns" in message
        assert "not the deals table's 21 columns (id, deal_date" in message
        assert f"dealframe mirror sync {path} --repair" in message
        assert "sync(client, path, repair=True)" in message
    assert mirror.load(path, "investors").shape[0] > 0  # the other tables still read
    assert len(mirror.history(path, "deals")) == 2  # the log is whole: its history reads

    with pytest.warns(mirror.MirrorRepairWarning, match="deals"):
        report = mirror.sync(client, path, repair=True, **SYNC_ARGS)
    assert report["deals"].repaired and report["deals"].full
    for entity in mirror.ENTITIES:
        got = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        pd.testing.assert_frame_equal(got, fresh_pull(client, entity)[list(got.columns)])
    assert mirror.status(path).set_index("entity").loc["deals", "rows"] == len(
        fresh_pull(client, "deals")
    )


def test_a_file_without_the_key_column_is_damage(client, path):
    target = mirror.files(path, "deals")[-1]
    pq.write_table(pq.read_table(target).drop_columns(["id"]), target)
    with pytest.raises(mirror.MirrorDamagedError, match=f"{target.name} holds 20 columns") as info:
        mirror.load(path, "deals")
    assert "without id" in str(info.value)
    with pytest.raises(mirror.MirrorDamagedError, match="without id"):
        mirror.status(path)
    with pytest.warns(mirror.MirrorRepairWarning, match="deals"):
        mirror.sync(client, path, repair=True, **SYNC_ARGS)
    got = mirror.load(path, "deals", include_deleted=True).sort_values("id", ignore_index=True)
    pd.testing.assert_frame_equal(got, fresh_pull(client, "deals"))


def public_files(path: Path, table: str) -> list[Path]:
    folder = path / "public" / table
    actions = DeltaTable(str(folder)).get_add_actions(flatten=True)
    return sorted(folder / p for p in pa.table(actions).column("path").to_pylist())


def test_research_store_files_of_another_table_are_damage(sb, tmp_path):
    """load_public: a time-series file over a snapshot's, an investors file over the series'.
    A snapshot taken before the service added a field lacks that column: not damage."""
    path = tmp_path / "store"
    with (
        Proxy(sb.url) as proxy,
        Client(proxy.url, sb.public_token, sb.private_key, cache_enabled=False) as client,
    ):
        mirror.snapshot_public(client, path, regions=["Western Europe"], date="2026-01-05")
        proxy.add(r"/current", set_field("analystScore", 4.5))  # a field the service adds
        mirror.snapshot_public(client, path, regions=["Western Europe"], date="2026-02-05")
        mirror.sync(client, path, ["investors"], **SYNC_ARGS)
    both = mirror.load_public(path, "current")
    assert both.groupby("snapshot_date")["analystScore"].count().tolist() == [0, len(both) // 2]
    assert mirror.load_public(path, "time_series").shape[0] > 0

    current = public_files(path, "current")[0]
    shutil.copyfile(public_files(path, "time_series")[0], current)
    with pytest.raises(mirror.MirrorDamagedError) as info:
        mirror.load_public(path, "current")  # it used to return the series' SKUs as comps
    message = str(info.value)
    assert f"table at {path / 'public' / 'current'} is damaged" in message
    assert "holds 5 columns (sku, field, month, value, fetched_on)" in message
    assert "with columns the public/current table has not (field, month, value" in message
    assert "snapshot-public" in message and "--repair" not in message  # a sync cannot rebuild it

    shutil.copyfile(mirror.files(path, "investors")[0], public_files(path, "time_series")[0])
    with pytest.raises(mirror.MirrorDamagedError, match="the investors table's 7 columns") as info:
        mirror.load_public(path, "time_series")
    assert "without sku, field, month, value, fetched_on" in str(info.value)


def test_an_unreadable_research_store_file_names_the_repair_that_works(sb, client, tmp_path):
    """A garbage data file of a Family A table: the error says to restore it or snapshot anew,
    not ``sync --repair``, which never rebuilds ``public/...`` tables."""
    path = tmp_path / "store"
    mirror.snapshot_public(client, path, regions=["Western Europe"], date="2026-01-05")
    public_files(path, "current")[0].write_bytes(b"not parquet at all")
    with pytest.raises(mirror.MirrorDamagedError) as info:
        mirror.load_public(path, "current")
    message = str(info.value)
    assert "snapshot-public" in message and "--repair" not in message, message
