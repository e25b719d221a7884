"""The mirror against a sandbox whose data changes: equal to a fresh full pull after every round
(status counting unique ids), one commit per table and sync, nothing lost when records change
while pages are read, every earlier sync read back with ``as_of``, every engine (deltalake,
polars, DuckDB over the Arrow dataset, pyarrow) reading the tables as they are and equal to
``load``, compaction keeping the history asked for, lock, bad input, CLI, and the sandbox's admin
endpoint. The tests share one small sandbox, reset to its generated data around each test
(they change data)."""

from __future__ import annotations

import datetime as dt
import json
import stat
import threading

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import requests

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.cli import main
from dealframe.client import Client
from dealframe.errors import ConfigurationError, DealframeError, ValidationError
from dealframe.mirror.durable import mirror_lock
from dealframe.mirror.schema import arrow_schema, to_frame
from dealframe.mirror.state import STATE_NAME
from dealframe.sandbox.changes import Changes

SCALE = 0.02


@pytest.fixture(scope="module")
def _served():
    with dealframe.sandbox.run(scale=SCALE, seed=11, admin_token="admin-secret") as sandbox:
        yield sandbox


@pytest.fixture()
def sb(_served):
    """The module's sandbox, back to its generated data and clock after each test."""
    _served.reset()
    yield _served
    _served.reset()


@pytest.fixture()
def client(sb):
    with Client.for_sandbox(sb, progress=False) as c:
        yield c


def fresh(client: Client, entity: str) -> pd.DataFrame:
    frame = getattr(client.private, entity)(include_deleted=True)
    return frame.sort_values("id", ignore_index=True)


def assert_mirror_equals_service(client: Client, path) -> None:
    status = mirror.status(path).set_index("entity")
    for entity in mirror.ENTITIES:
        expected = fresh(client, entity)
        got = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        pd.testing.assert_frame_equal(got, expected[list(got.columns)])
        live = mirror.load(path, entity)
        assert len(live) == int((~expected["deleted"]).sum()) and not live["deleted"].any()
        counts = status.loc[entity, ["rows", "live", "deleted"]].tolist()  # unique ids, not rows
        assert counts == [len(expected), len(live), int(expected["deleted"].sum())]


def test_rounds_of_random_changes(sb, client, tmp_path):
    path = tmp_path / "m"
    report = mirror.sync(client, path, page_size=200, rows_per_file=400)
    assert all(r.full for r in report.entities.values())
    assert {r.version for r in report.entities.values()} == {0}
    assert_mirror_equals_service(client, path)
    first_count = len(fresh(client, "deals"))
    changes = Changes(sb.state, seed=5)
    versions = [report.entities["deals"].version]
    for round_no in range(3):
        done = changes.random_round(120)
        if round_no == 1:
            changes.insert("deals", 450)  # one timestamp for more rows than a page: a tie
            changes.advance(60)
            changes.undelete("companies", 3)
        report = mirror.sync(client, path, page_size=200, rows_per_file=400)
        assert not any(r.full for r in report.entities.values())
        assert_mirror_equals_service(client, path)
        deals = mirror.load(path, "deals", include_deleted=True).set_index("id")
        gone = [i for i in set(done["soft_delete"]) - set(done["undelete"]) if i in deals.index]
        assert gone and deals.loc[gone, "deleted"].all()
        versions.append(report["deals"].version)
    assert versions == [0, 1, 2, 3]  # one commit per table and sync
    # changes stamped with the checkpoint's own timestamp (the clock did not move) are not taken
    # for unchanged re-reads of the overlap
    same_stamp = changes.update("deals", 5) + changes.update("companies", 5)
    report = mirror.sync(client, path, page_size=200, rows_per_file=400)
    assert report["deals"].rows_written > 0
    assert_mirror_equals_service(client, path)
    assert len(same_stamp) == 10
    status = mirror.status(path)
    assert list(status["entity"]) == list(mirror.ENTITIES)
    assert (status["rows"] == status["live"] + status["deleted"]).all()
    assert status.attrs["syncs"] == 5 and status.attrs["schema_version"] == 3
    history = mirror.history(path)
    syncs = history[history["operation"].isin(["full", "sync"])]
    assert (
        syncs.groupby("entity")["version"].apply(lambda v: sorted(v) == list(range(len(v)))).all()
    )
    last = syncs.groupby("entity")["sync"].max()
    # the fifth sync changed deals and companies; investors only when one of those companies
    # is also an investor (the same organisation changes in both lists)
    assert last["deals"] == last["companies"] == 5 and last["investors"] in (4, 5)
    deals = history[history["entity"] == "deals"].set_index("version")
    assert deals.loc[0, "rows_changed"] == deals.loc[0, "rows_received"] == first_count
    assert (
        deals.loc[4, "checkpoint"]
        == mirror.status(path).set_index("entity").loc["deals", "checkpoint"]
    )
    for entity in mirror.ENTITIES:  # every data file of the latest version is there, each id once
        listed = mirror.files(path, entity)
        assert listed and all(p.exists() for p in listed)


def test_records_updated_while_pages_are_read_are_not_lost(sb, client, tmp_path):
    changes = Changes(sb.state, seed=9)
    touched: list[str] = []

    def meddle(event: dict) -> None:
        # After every page: move the clock and update records that sort early (already read)
        if event["entity"] == "deals" and event["requests"] % 2 == 1:
            changes.advance(1)
            with sb.state.lock:
                early = sorted(sb.state.dataset.deals, key=lambda d: (d["updated_at"], d["id"]))[
                    :30
                ]
            ids = [d["id"] for d in early[:3]]
            changes.edit(
                "deals", ids, lambda d: d.update(deal_synopsis=d["deal_synopsis"] + " (revised)")
            )
            touched.extend(ids)

    before = {d["id"] for d in sb.state.dataset.deals}
    mirror.sync(client, tmp_path / "m", ["deals"], page_size=50, progress=meddle)
    assert len(touched) >= 6
    got = mirror.load(tmp_path / "m", "deals", include_deleted=True)
    assert set(got["id"]) == before  # nothing skipped on a page boundary
    mirror.sync(client, tmp_path / "m", ["deals"], page_size=50)
    got = mirror.load(tmp_path / "m", "deals", include_deleted=True).set_index("id")
    assert got.loc[touched, "deal_synopsis"].str.endswith("(revised)").all()
    expected = fresh(client, "deals")
    pd.testing.assert_frame_equal(
        got.reset_index().sort_values("id", ignore_index=True), expected[["id", *got.columns]]
    )


def _as_frame(table, entity: str) -> pd.DataFrame:
    """An engine's Arrow result as the client's typed frame (types only: no query, no filter)."""
    table = pa.table(table)
    return to_frame(table.select(arrow_schema(entity).names).cast(arrow_schema(entity)), entity)


def _changed_twice(sb, changes) -> list[str]:
    """Two rounds of every kind of change; some deals change in both (the newer one must win)."""
    twice: list[str] = []
    for round_no in range(2):
        changes.advance(3600)
        for entity in mirror.ENTITIES:
            changes.update(entity, 2)
            changes.soft_delete(entity, 1)
            changes.insert(entity, 1)
            changes.undelete(entity, 1)
        if round_no == 0:
            twice = changes.update("deals", 3)
        else:  # the same ids change again: the newest change must win
            changes.edit("deals", twice, lambda d: d.update(deal_synopsis="second change"))
        yield twice


def test_every_engine_reads_the_tables_as_they_are(sb, client, tmp_path):
    deltalake = pytest.importorskip("deltalake")
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "m"
    mirror.sync(client, path)
    twice: list[str] = []
    for twice in _changed_twice(sb, Changes(sb.state, seed=8)):  # noqa: B007 (read below)
        mirror.sync(client, path)
    con = duckdb.connect()
    for entity in mirror.ENTITIES:
        ours = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        folder = str(path / entity)
        table = deltalake.DeltaTable(folder)
        assert table.version() == 2
        reads = {
            "deltalake": table.to_pyarrow_table(),
            "polars": pl.read_delta(folder).to_arrow(),
            "pyarrow": pq.read_table([str(p) for p in mirror.files(path, entity)]),
        }
        con.register(f"{entity}_delta", table.to_pyarrow_dataset())
        rel = con.sql(f"SELECT * FROM {entity}_delta")
        reads["duckdb"] = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
        for engine, got in reads.items():
            frame = _as_frame(got, entity).sort_values("id", ignore_index=True)
            assert len(frame) == len(ours) == frame["id"].nunique(), engine
            pd.testing.assert_frame_equal(frame, ours, obj=f"{engine} {entity}")
    again = con.execute(
        f"SELECT DISTINCT deal_synopsis FROM deals_delta WHERE id IN {tuple(twice)}"
    )
    assert again.fetchall() == [("second change",)]
    # lists are JSON text: DuckDB's JSON functions read them as they are
    n = con.execute(
        "SELECT count(*) FROM deals_delta "
        "WHERE NOT deleted AND json_array_length(lead_investors) > 0"
    )
    deals = mirror.load(path, "deals")
    led = int(dealframe.to_lists(deals["lead_investors"]).map(len).gt(0).sum())
    assert n.fetchall()[0][0] == led > 0
    names = con.execute(
        "SELECT DISTINCT json_extract_string(lead_investors, '$[0].name') "
        "FROM deals_delta WHERE NOT deleted AND json_array_length(lead_investors) > 0"
    )
    assert {r[0] for r in names.fetchall()} == {
        people[0]["name"] for people in dealframe.to_lists(deals["lead_investors"]) if people
    }


def test_status_and_history_keep_their_dtypes_for_0_and_n_rows(client, tmp_path, capsys):
    """No dtype left to pandas' guess: an all-null ``reason``, a table not yet synced and a
    mirror holding only the public snapshot give the same columns and dtypes as N rows
    (``status`` has a row per entity, in ``ENTITIES`` order, all NA where there is no table)."""
    path, public_only = tmp_path / "m", tmp_path / "p"
    mirror.sync(client, path, ["investors"])
    mirror.snapshot_public(client, public_only, skus=list(client.public.search().index[:2]))
    frames = {
        "history": [mirror.history(path), mirror.history(path, "deals")],
        "status": [mirror.status(path), mirror.status(public_only)],
    }
    history, status = frames["history"][1], frames["status"][1]
    assert len(history) == 0
    assert status["entity"].tolist() == list(mirror.ENTITIES)
    assert status["version"].isna().all() and status["rows"].isna().all(), status
    for name, (many, none) in frames.items():
        assert len(many) > 0, name
        assert many.dtypes.to_dict() == none.dtypes.to_dict(), name
        assert "object" not in {str(d) for d in many.dtypes}, many.dtypes
        assert str(many["entity"].dtype) == "str", name
    assert many["rows"].dtype == "Int64" and frames["history"][0]["reason"].isna().all()
    assert str(frames["history"][0]["time"].dtype) == "datetime64[us, UTC]"
    capsys.readouterr()
    for action in ("history", "status"):
        assert main(["mirror", action, str(path)]) == 0
        out = capsys.readouterr().out
        assert "investors" in out and "nan" not in out, out


def test_a_sync_reports_frame_has_typed_columns_for_0_and_n_entities(client, tmp_path):
    """``SyncReport.frame()`` leaves no dtype to pandas' guess: fields that are often None
    (``since``, ``repaired``) are text with NA, not object columns, with or without rows."""
    report = mirror.sync(client, tmp_path / "m", ["investors"])
    many = report.frame()
    none = mirror.SyncReport(report.path, {}).frame()
    assert len(many) == 1 and len(none) == 0
    assert many.dtypes.to_dict() == none.dtypes.to_dict()
    assert "object" not in {str(d) for d in many.dtypes}, many.dtypes
    assert (
        many["since"].isna().all()
        and many["rows_written"].iloc[0] == report["investors"].rows_written
    )


def test_every_earlier_sync_is_read_back_with_as_of(sb, client, tmp_path):
    path = tmp_path / "m"
    seen = [mirror.load(path, "deals", include_deleted=True) if mirror.sync(client, path) else None]
    times = [pd.Timestamp.now(tz="UTC")]
    for _ in _changed_twice(sb, Changes(sb.state, seed=3)):
        mirror.sync(client, path)
        seen.append(mirror.load(path, "deals", include_deleted=True))
        times.append(pd.Timestamp.now(tz="UTC"))
    assert len(seen) == 3 and not seen[0].equals(seen[2])
    for version, expected in enumerate(seen):
        got = mirror.load(path, "deals", include_deleted=True, as_of=version)
        assert got.attrs["version"] == version
        pd.testing.assert_frame_equal(
            got.sort_values("id", ignore_index=True), expected.sort_values("id", ignore_index=True)
        )
        at_time = mirror.load(path, "deals", include_deleted=True, as_of=times[version])
        assert at_time.attrs["version"] == version
        naive = times[version].tz_convert(None).isoformat()  # a time without a zone is UTC
        assert mirror.load(path, "deals", columns=["id"], as_of=naive).attrs["version"] == version
    for bad in (3, -1, True, "not a time", "1999-01-01"):
        with pytest.raises(ValidationError, match="as_of"):
            mirror.load(path, "deals", as_of=bad)
    history = mirror.history(path, "deals")
    assert list(history["version"]) == [2, 1, 0]
    assert list(history["operation"]) == ["sync", "sync", "full"]
    assert (history["rows_changed"].iloc[:2] > 0).all() and history["checkpoint"].notna().all()


def test_compact_keeps_the_history_asked_for(sb, client, tmp_path):
    path = tmp_path / "m"
    mirror.sync(client, path, ["deals"])
    for _ in _changed_twice(sb, Changes(sb.state, seed=4)):
        mirror.sync(client, path, ["deals"])
    latest = mirror.load(path, "deals", include_deleted=True)
    v1 = mirror.load(path, "deals", include_deleted=True, as_of=1)
    stray = path / "deals" / "part-00000-left-by-a-dead-write-c000.zstd.parquet"
    stray.write_bytes(b"half a file")  # a crashed write's file that no version names
    done = mirror.compact(path, ["deals"], keep_versions=2)
    assert set(done) == {"deals"} and done["deals"]["files_deleted"] >= 2
    assert not stray.exists()
    pd.testing.assert_frame_equal(mirror.load(path, "deals", include_deleted=True), latest)
    pd.testing.assert_frame_equal(mirror.load(path, "deals", include_deleted=True, as_of=1), v1)
    with pytest.raises(ValidationError, match="compact removed"):
        mirror.load(path, "deals", as_of=0)
    floor = mirror.compact(path, ["deals"], retain_hours=0)["deals"]["oldest_kept"]
    with pytest.raises(ValidationError, match="compact removed"):
        mirror.load(path, "deals", as_of=1)
    again = mirror.compact(path, ["deals"])["deals"]  # versions removed stay removed
    assert again["oldest_kept"] == floor
    pd.testing.assert_frame_equal(
        mirror.load(path, "deals", include_deleted=True, as_of=floor), latest
    )
    pd.testing.assert_frame_equal(mirror.load(path, "deals", include_deleted=True), latest)
    for bad in (
        {"keep_versions": 0},
        {"retain_hours": -1},
        {"keep_versions": 1, "retain_hours": 1},
    ):
        with pytest.raises(ValidationError):
            mirror.compact(path, **bad)
    with pytest.raises(ValidationError, match=r"at most 9223372036854775807"):
        mirror.compact(path, keep_versions=2**64)  # the bound refused is the one said
    report = mirror.sync(client, path, ["deals"])  # the checkpoint survived the compactions
    assert not report["deals"].full


def test_second_sync_waits_or_refuses(client, tmp_path):
    path = tmp_path / "m"
    mirror.sync(client, path, ["investors"])
    with mirror_lock(path, 1.0):
        with pytest.raises(mirror.MirrorLockedError, match="another sync.*--lock-timeout"):
            mirror.sync(client, path, ["investors"], lock_timeout=0.2)
    report = mirror.sync(client, path, ["investors"], lock_timeout=0)
    assert not report["investors"].full


def test_another_source_is_refused_unless_allowed(sb, client, tmp_path, capsys):
    path = tmp_path / "m"
    mirror.sync(client, path, ["investors"])
    # the sandbox's data, not its port (which changes every run), and no token
    assert (
        mirror.status(path).attrs["source"]
        == "dealframe-sandbox (seed 11, scale 0.02, as of 2026-06-30T00:00:00+00:00)"
    )
    assert sb.private_key not in (path / STATE_NAME).read_text()
    before = (path / STATE_NAME).read_bytes()
    port = sb.url.rsplit(":", 1)[1]
    with Client(
        f"http://localhost:{port}", sb.public_token, sb.private_key, cache_enabled=False
    ) as other:
        with pytest.raises(mirror.MirrorStateError) as refused:
            mirror.sync(other, path, ["investors"])
        assert (
            f"(seed 11, scale 0.02, as of 2026-06-30T00:00:00+00:00), not from http://localhost:{port}"
            in str(refused.value)
        )
        assert (path / STATE_NAME).read_bytes() == before  # nothing changed
        report = mirror.sync(other, path, ["investors"], allow_other_source=True)
    assert not report["investors"].full
    assert mirror.status(path).attrs["source"] == f"http://localhost:{port}"
    assert mirror.status(path).attrs["syncs"] == 2
    argv = ["mirror", "sync", str(path), "--sandbox", "--scale", "0.02", "--no-progress"]
    assert main([*argv, "--entities", "investors"]) == 1
    err = capsys.readouterr().err
    assert (
        f"from http://localhost:{port}, not from dealframe-sandbox (seed 7, scale 0.02, as of 2026-06-30T00:00:00+00:00)"
        in err
    )
    assert main([*argv, "--entities", "investors", "--allow-other-source"]) == 0
    assert (
        mirror.status(path).attrs["source"]
        == "dealframe-sandbox (seed 7, scale 0.02, as of 2026-06-30T00:00:00+00:00)"
    )


def test_two_sandboxes_of_other_seeds_are_two_sources(client, tmp_path):
    path = tmp_path / "m"
    mirror.sync(client, path, ["investors"], progress=False)
    with (
        dealframe.sandbox.run(scale=SCALE, seed=12) as other_sb,
        Client.for_sandbox(other_sb, progress=False) as other,
    ):
        with pytest.raises(mirror.MirrorStateError, match=r"\(seed 11, .*not from .*\(seed 12,"):
            mirror.sync(other, path, ["investors"])
    with (  # the same data served again on another port: the same source
        dealframe.sandbox.run(scale=SCALE, seed=11) as again_sb,
        Client.for_sandbox(again_sb, progress=False) as again,
    ):
        assert again_sb.url != client.settings.base_url
        report = mirror.sync(again, path, ["investors"], progress=False)
    assert not report["investors"].full and mirror.status(path).attrs["syncs"] == 2


def test_two_loopback_ports_are_two_sources(sb, client, tmp_path):
    path = tmp_path / "m"
    with Client(sb.url, sb.public_token, sb.private_key, cache_enabled=False) as by_url:
        assert by_url.source == sb.url
        mirror.sync(by_url, path, ["investors"], progress=False)
    with Client(
        "http://127.0.0.1:1", sb.public_token, sb.private_key, retries=0, cache_enabled=False
    ) as elsewhere:
        with pytest.raises(mirror.MirrorStateError, match=f"from {sb.url}, not from"):
            mirror.sync(elsewhere, path, ["investors"], progress=False)


def test_a_sandbox_named_by_its_url_and_by_its_data_is_refused_with_the_reason(
    sb, client, tmp_path
):
    """A client on a URL cannot tell which service answers there: not equated, but said."""
    path = tmp_path / "m"
    with Client(sb.url, sb.public_token, sb.private_key, cache_enabled=False) as by_url:
        mirror.sync(by_url, path, ["investors"], progress=False)
    with pytest.raises(mirror.MirrorStateError, match=r"make both clients the same way"):
        mirror.sync(client, path, ["investors"], progress=False)
    elsewhere = tmp_path / "n"
    mirror.sync(client, elsewhere, ["investors"], progress=False)
    with Client(sb.url, sb.public_token, sb.private_key, cache_enabled=False) as by_url:
        with pytest.raises(mirror.MirrorStateError) as refused:
            mirror.sync(by_url, elsewhere, ["investors"], progress=False)
    assert "Client.for_sandbox(sb)" in str(refused.value)


def test_a_mirror_recorded_without_the_loopback_port_takes_the_sandbox(sb, client, tmp_path):
    path = tmp_path / "m"
    mirror.sync(client, path, ["investors"], progress=False)
    marker = path / STATE_NAME
    legacy = json.loads(marker.read_text())
    legacy["source"] = "http://127.0.0.1"  # what an earlier dealframe recorded for a sandbox
    marker.write_text(json.dumps(legacy))
    report = mirror.sync(client, path, ["investors"], progress=False)
    assert not report["investors"].full
    assert mirror.status(path).attrs["source"] == client.source  # the new identity, recorded


def test_bad_input_is_refused_and_nothing_is_overwritten(sb, client, tmp_path, monkeypatch):
    a_file = tmp_path / "file.parquet"
    a_file.write_bytes(b"precious")
    with pytest.raises(mirror.MirrorPathError, match="is a file"):
        mirror.sync(client, a_file)
    assert a_file.read_bytes() == b"precious"

    path = tmp_path / "m"
    mirror.sync(client, path, ["investors"])
    snapshot = {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}
    state = path / STATE_NAME
    original = state.read_bytes()

    current = f'"schema_version": {mirror.SCHEMA_VERSION}'.encode()
    assert current in original
    for other in (b'"schema_version": 1', b'"schema_version": 4'):  # an older and a newer layout
        state.write_bytes(original.replace(current, other))
        with pytest.raises(mirror.MirrorVersionError, match="new folder"):
            mirror.sync(client, path)
        with pytest.raises(mirror.MirrorVersionError):
            mirror.compact(path)
    state.write_bytes(original[: len(original) // 2])
    with pytest.raises(mirror.MirrorStateError, match="corrupt"):
        mirror.sync(client, path)
    with pytest.raises(mirror.MirrorStateError):
        mirror.load(path, "investors")
    state.write_bytes(original)
    assert {p: p.read_bytes() for p in path.rglob("*") if p.is_file()} == snapshot

    monkeypatch.delenv("DEALFRAME_PRIVATE_KEY", raising=False)  # a keyless client, whatever the env
    with Client(sb.url, cache_enabled=False) as keyless:
        assert keyless.settings.private_key is None
        with pytest.raises(ConfigurationError, match="DEALFRAME_PRIVATE_KEY"):
            mirror.sync(keyless, tmp_path / "other")
    assert not (tmp_path / "other").exists()
    with pytest.raises(mirror.MirrorPathError, match="no mirror"):
        mirror.status(tmp_path / "nowhere")


def test_a_folder_the_system_refuses_is_a_mirror_path_error(client, tmp_path):
    """No exception of the operating system leaves a public mirror function."""
    a_file = tmp_path / "file"
    a_file.write_bytes(b"x")
    for where in (a_file / "sub", tmp_path / "ro" / "sub"):
        if where.parent.name == "ro":
            where.parent.mkdir(mode=0o500)  # root ignores permissions: then it is created
        for call in (
            lambda w=where: mirror.sync(client, w, ["investors"]),
            lambda w=where: mirror.snapshot_public(client, w, regions=["Western Europe"]),
        ):
            try:
                call()
            except mirror.MirrorPathError as exc:
                assert str(where) in str(exc) and exc.__cause__ is None
            else:
                assert where.parent.name == "ro", f"{where} was accepted"


def test_a_path_with_a_percent_escape_is_refused_before_any_request(client, tmp_path):
    """deltalake decodes a local path as a URL ('%20' becomes a space), so the tables written
    under such a folder could not be opened again: refused, naming the path, before a request."""
    closed = Client(
        "http://127.0.0.1:9", private_key="k", cache_enabled=False, retries=0, progress=False
    )
    where = tmp_path / "q3%20deals" / "m"
    with closed:
        for call in (
            lambda: mirror.sync(closed, where, ["investors"]),
            lambda: mirror.snapshot_public(closed, where, regions=["Western Europe"]),
            lambda: mirror.status(where),
            lambda: mirror.load(where, "investors"),
        ):
            with pytest.raises(ValidationError, match="percent escape") as caught:
                call()
            assert caught.value.argument == "path" and "%20" in str(caught.value)
    assert not (tmp_path / "q3%20deals").exists()
    # a '%' that is not an escape is an ordinary character: the mirror works there
    plain = tmp_path / "100%" / "m"
    mirror.sync(client, plain, ["investors"])
    assert len(mirror.load(plain, "investors")) > 0


def test_a_failed_first_sync_leaves_only_owner_only_folders(tmp_path):
    closed = Client(
        "http://127.0.0.1:9", private_key="k", cache_enabled=False, retries=0, progress=False
    )
    with closed, pytest.raises(DealframeError):
        mirror.sync(closed, tmp_path / "m", ["investors"])
    made = [tmp_path / "m", *(tmp_path / "m").rglob("*")]
    assert len(made) > 1
    for path in made:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path.relative_to(tmp_path)


def test_cli_sync_and_status(tmp_path, capsys):
    path = tmp_path / "m"
    assert main(["mirror", "sync", str(path), "--sandbox", "--scale", "0.02", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "deals" in out and "full" in out
    assert main(["mirror", "status", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"{path}: schema version 3, 1 syncs, source ")
    assert "mirror mirror" not in out
    rows = mirror.status(path).set_index("entity")["rows"]
    assert f"{rows['deals']:,}" in out and "checkpoint" in out and "version" in out
    assert main(["mirror", "history", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count(" full ") == 3 and f"{rows['deals']:,}" in out
    assert main(["mirror", "compact", str(path), "--keep-versions", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("1 version kept") == 3
    with pytest.raises(SystemExit):  # one retention or the other
        main(["mirror", "compact", str(path), "--keep-versions", "1", "--retain-hours", "2"])
    capsys.readouterr()
    assert main(["mirror", "history", str(path), "--entity", "deals"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) >= 2 and all(line.startswith("deals ") for line in out[1:])
    assert main(["mirror", "status", str(tmp_path / "nowhere")]) == 2  # a bad PATH
    assert "no mirror" in capsys.readouterr().err


def test_admin_endpoint_is_off_by_default_and_needs_its_token(sb, tmp_path):
    with dealframe.sandbox.run(scale=SCALE) as plain:
        assert requests.get(f"{plain.url}/admin/v1/clock", timeout=10).status_code == 404
    url = f"{sb.url}/admin/v1"
    assert requests.get(f"{url}/clock", timeout=10).status_code == 401
    wrong = {"Authorization": f"Bearer {sb.private_key}"}
    assert requests.get(f"{url}/clock", headers=wrong, timeout=10).status_code == 401
    auth = {"Authorization": "Bearer admin-secret"}
    start = dt.datetime.fromisoformat(
        requests.get(f"{url}/clock", headers=auth, timeout=10).json()["data"]["now"]
    )
    moved = requests.post(f"{url}/advance", json={"seconds": 90}, headers=auth, timeout=10).json()
    assert dt.datetime.fromisoformat(moved["data"]["now"]) - start == dt.timedelta(seconds=90)
    body = requests.post(
        f"{url}/changes",
        json={"operation": "update", "entity": "deals", "n": 4},
        headers=auth,
        timeout=10,
    ).json()["data"]
    assert len(body["ids"]) == 4
    with Client.for_sandbox(sb) as c:
        changed = c.private.deals(updated_at=moved["data"]["now"], include_deleted=True)
    assert set(body["ids"]) <= set(changed["id"])
    bad = requests.post(
        f"{url}/changes",
        json={"operation": "explode", "entity": "deals", "n": 1},
        headers=auth,
        timeout=10,
    )
    assert bad.status_code == 400


def test_changes_are_deterministic_from_the_seed(tmp_path):
    runs = []
    for _ in range(2):
        with dealframe.sandbox.run(scale=SCALE, seed=3) as s:
            ch = Changes(s.state, seed=42)
            runs.append(
                (
                    ch.random_round(60),
                    ch.insert("companies", 2),
                    sorted(
                        (d["id"], d["updated_at"], d["deal_valuation"])
                        for d in s.state.dataset.deals
                    ),
                )
            )
    assert runs[0] == runs[1]
    with dealframe.sandbox.run(scale=SCALE, seed=3) as s:  # a new sandbox starts unchanged
        assert (
            sorted((d["id"], d["updated_at"], d["deal_valuation"]) for d in s.state.dataset.deals)
            != runs[0][2]
        )


@pytest.mark.parametrize("profile", ["limit-100", "limit-500", "page-from-0"])
def test_a_service_serving_smaller_pages_is_mirrored_whole(profile, tmp_path):
    """The document gives POST lists no upper bound of ``limit``, and does not say how they
    count ``page``: a service that serves 100 rows of the 1,000 asked, or counts from 0, is
    mirrored row for row, as the client's own pulls read it. (Counting from 0, the feed's
    first walk read every page 1 as the second page, and lost most rows, silently.)"""
    with (
        dealframe.sandbox.run(scale=0.02, seed=4, profile=profile) as served,
        Client.for_sandbox(served, progress=False, cache_enabled=False) as c,
    ):
        report = mirror.sync(c, tmp_path / "m")
        said = report["companies"].page_from_0  # the first entity finds out, and reads again
        assert (said is not None and "counts page from 0" in said) == (profile == "page-from-0")
        for entity, pull in (("deals", c.private.deals), ("companies", c.private.companies)):
            want = pull(include_deleted=True).sort_values("id", ignore_index=True)
            got = mirror.load(tmp_path / "m", entity, include_deleted=True)
            assert len(want) > 300 and len(got) == len(want), entity
            assert got.sort_values("id", ignore_index=True)["updated_at"].equals(want["updated_at"])


def test_a_list_call_on_another_thread_does_not_renumber_a_walk_half_read(tmp_path):
    """On a service counting ``page`` from 0, a list call on another thread that learns it
    while the feed walks (here: from the progress callback, after the first page) must not
    switch the walk's numbering half way: the walk finds out for itself and reads again.
    (It used to lose the first page's 100 deals, silently.)"""
    with (
        dealframe.sandbox.run(scale=0.02, seed=4, profile="page-from-0,limit-100") as served,
        Client.for_sandbox(served, progress=False, cache_enabled=False) as c,
    ):
        learnt: list[int] = []

        def meanwhile(info: dict) -> None:
            if info["entity"] == "deals" and not learnt:
                # a walk of several pages (of 100): one within a page settles nothing
                worker = threading.Thread(target=lambda: c.private.companies())
                worker.start()
                worker.join()
                learnt.append(c.private._first_page)

        report = mirror.sync(c, tmp_path / "m", entities=("deals",), progress=meanwhile)
        assert learnt == [0]  # the other call did learn it mid-walk
        assert "counts page from 0" in (report["deals"].page_from_0 or "")
        want = c.private.deals(include_deleted=True)
        got = mirror.load(tmp_path / "m", "deals", include_deleted=True)
        assert len(want) > 300 and sorted(got["id"]) == sorted(want["id"])


def test_the_cli_says_a_divergence_once(tmp_path, capsys, monkeypatch):
    """A sandbox whose clock is ahead of this machine's stamps rows "ahead": ``mirror sync``
    says so on the entity's report line, not a second time as a warning on stderr."""
    with dealframe.sandbox.run(scale=0.02, seed=4, as_of="2031-01-01") as served:
        monkeypatch.setenv("DEALFRAME_BASE_URL", served.url)
        monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", served.public_token)
        monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", served.private_key)
        monkeypatch.setenv("DEALFRAME_CACHE", "off")
        argv = ["mirror", "sync", str(tmp_path / "m"), "--no-progress", "--entities", "investors"]
        assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "stamped after" in out and "MirrorDivergenceWarning" not in err
    assert "stamped after" not in err


def test_a_failed_first_sync_does_not_claim_the_folder(sb, client, tmp_path):
    path = tmp_path / "m"
    with Client("http://127.0.0.1:1", sb.public_token, sb.private_key, retries=0) as wrong:
        with pytest.raises(DealframeError):
            mirror.sync(wrong, path, ["investors"], progress=False)
    assert mirror.status(path).attrs["syncs"] == 1  # it started: its number is taken
    report = mirror.sync(client, path, ["investors"], progress=False)  # the corrected retry
    assert report["investors"].full
    attrs = mirror.status(path).attrs
    assert attrs["syncs"] == 2 and attrs["source"] != "http://127.0.0.1:1"
    assert mirror.history(path)["sync"].tolist() == [2]


def test_a_sync_that_fails_after_committing_a_table_keeps_its_own_number(client, tmp_path):
    """Sync 1 commits companies, then fails while investors are read: sync 2, which commits
    investors (companies have not changed: no commit), is numbered 2 (it used to be numbered 1
    again, so history showed the two syncs' commits as one sync)."""
    path = tmp_path / "m"

    def stop_at_investors(progress: dict) -> None:
        if progress["entity"] == "investors":
            raise KeyboardInterrupt  # the user stops the sync

    with pytest.raises(KeyboardInterrupt):
        mirror.sync(client, path, ["companies", "investors"], progress=stop_at_investors)
    assert mirror.status(path).attrs["syncs"] == 1
    mirror.sync(client, path, ["companies", "investors"], progress=False)
    history = mirror.history(path)
    numbers = history.groupby("entity")["sync"].apply(sorted).to_dict()
    assert numbers == {"companies": [1], "investors": [2]}
    assert mirror.status(path).attrs["syncs"] == 2


def test_sandbox_sources_differ_by_clock_as_by_seed():
    """Two sandboxes of one seed and scale with other clocks serve other data: two sources."""
    import datetime as dt
    from types import SimpleNamespace

    def source(**config):
        served = SimpleNamespace(
            url="http://127.0.0.1:1",
            public_token="p",
            private_key="k",
            state=SimpleNamespace(config=SimpleNamespace(seed=7, scale=0.02, **config)),
        )
        with Client.for_sandbox(served, progress=False) as client:
            return client.source

    june = source(as_of=dt.datetime(2026, 6, 30, tzinfo=dt.UTC))
    assert june.endswith("as of 2026-06-30T00:00:00+00:00)")
    assert june != source(as_of=dt.datetime(2025, 1, 1, tzinfo=dt.UTC))


def test_keep_versions_counts_syncs_not_the_commits_of_compaction(sb, client, tmp_path):
    """Nightly "sync, then compact --keep-versions 3": the last 3 syncs stay readable. The
    commits compaction makes (optimize, vacuum: no rows changed) used to count toward N,
    leaving 2."""
    path = tmp_path / "m"
    mirror.sync(client, path, ["deals"], rows_per_file=400)
    changes = Changes(sb.state, seed=8)
    wrote: dict[int, pd.DataFrame] = {}
    for _ in range(4):
        changes.advance(86400)
        changes.update("deals", 10)
        version = mirror.sync(client, path, ["deals"], rows_per_file=400)["deals"].version
        wrote[version] = mirror.load(path, "deals", include_deleted=True)
        done = mirror.compact(path, ["deals"], keep_versions=3)
    history = mirror.history(path, "deals")
    syncs = history.loc[history["operation"].isin(["full", "sync"]), "version"].tolist()
    assert (history["operation"] == "compact").sum() >= 2  # compaction's own commits are there
    assert syncs[:4] == sorted(wrote, reverse=True)
    for version in syncs[:3]:
        got = mirror.load(path, "deals", include_deleted=True, as_of=version)
        pd.testing.assert_frame_equal(got, wrote[version])
    assert done["deals"]["oldest_kept"] == syncs[2]
    with pytest.raises(ValidationError, match="compact removed"):
        mirror.load(path, "deals", as_of=syncs[3])
