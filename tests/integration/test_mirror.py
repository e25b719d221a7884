"""The mirror against a sandbox whose data changes: equal to a fresh full pull after every round
(status counting unique ids), nothing lost when records change while pages are read, DuckDB
reading the files through the view docs/mirror.md gives equals load (and a plain glob does after
compact), lock, bad input, CLI, and the sandbox's admin endpoint. Each test runs its own small
sandbox (they change data)."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import requests

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.cli import main
from dealframe.errors import ConfigurationError
from dealframe.mirror.durable import mirror_lock
from dealframe.mirror.schema import arrow_schema, to_frame
from dealframe.mirror.state import STATE_NAME
from dealframe.sandbox.changes import Changes

SCALE = 0.02
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def sb():
    with dealframe.sandbox.run(scale=SCALE, seed=11, admin_token="admin-secret") as sandbox:
        yield sandbox


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
    assert_mirror_equals_service(client, path)
    changes = Changes(sb.state, seed=5)
    delta_files = []
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
        delta_files.append(mirror.status(path).set_index("entity")["delta_files"].to_dict())
    # small rounds add deltas; the 450-deal tie (> 10% of the deals) compacts the deals
    assert any(d["companies"] or d["investors"] for d in delta_files)
    assert delta_files[1]["deals"] == 0
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
    assert (status["stored_rows"] >= status["rows"]).all()
    assert status.attrs["syncs"] == 5
    for entity in mirror.ENTITIES:  # the folder holds exactly the committed files
        on_disk = sorted(p.name for p in (path / entity).glob("*.parquet"))
        assert on_disk == sorted(p.name for p in mirror.files(path, entity))


def test_records_updated_while_pages_are_read_are_not_lost(sb, client, tmp_path):
    changes = Changes(sb.state, seed=9)
    touched: list[str] = []

    def meddle(event: dict) -> None:
        # After every page: move the clock and update records that sort early (already read)
        if event["entity"] == "deals" and event["requests"] % 2 == 1:
            changes.advance(1)
            with sb.state.lock:
                early = sorted(sb.state.dataset.deals, key=lambda d: (d["updated_at"], d["id"]))[:30]
            ids = [d["id"] for d in early[:3]]
            changes.edit("deals", ids, lambda d: d.update(deal_synopsis=d["deal_synopsis"] + " (revised)"))
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
    pd.testing.assert_frame_equal(got.reset_index().sort_values("id", ignore_index=True),
                                  expected[["id", *got.columns]])


def documented_view(path, entity: str) -> str:
    """The DuckDB view docs/mirror.md gives (the test checks that exact text), for ``entity``."""
    doc = (ROOT / "docs" / "mirror.md").read_text()
    blocks = re.findall(r"```sql\n(.*?)```", doc, flags=re.S)
    view = next(b for b in blocks if b.startswith("CREATE VIEW deals AS"))
    return view.replace("VIEW deals", f"VIEW {entity}").replace("mirror/deals/", f"{path}/{entity}/")


def duckdb_frame(con, query: str, entity: str) -> pd.DataFrame:
    rel = con.sql(query)
    table = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
    return to_frame(table.cast(arrow_schema(entity)), entity)


def test_duckdb_reads_the_same_rows(sb, client, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "m"
    mirror.sync(client, path)
    changes = Changes(sb.state, seed=8)
    twice = []
    for round_no in range(2):  # a delta per entity and round (few rows: no compaction)
        changes.advance(3600)
        for entity in mirror.ENTITIES:
            changes.update(entity, 2)
            changes.soft_delete(entity, 1)
            changes.insert(entity, 1)
            changes.undelete(entity, 1)
        if round_no == 0:
            twice = changes.update("deals", 3)
        else:  # the same ids change again: the newest delta must win over the older one
            changes.soft_delete("deals", 1)
            changes.edit("deals", twice, lambda d: d.update(deal_synopsis="second change"))
        mirror.sync(client, path)
    status = mirror.status(path).set_index("entity")
    assert (status["delta_files"] >= 1).all() and (status["stored_rows"] > status["rows"]).all()
    con = duckdb.connect()
    for entity in mirror.ENTITIES:
        ours = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        glob = f"read_parquet('{path}/{entity}/*.parquet')"
        raw = con.execute(f"SELECT count(*) FROM {glob}").fetchall()[0][0]
        assert raw > len(ours)  # a plain glob sees superseded versions: the view is needed
        con.execute(documented_view(path, entity))
        theirs = duckdb_frame(con, f"SELECT * FROM {entity} ORDER BY id", entity)
        pd.testing.assert_frame_equal(theirs, ours)  # row for row, value for value
    again = con.execute(f"SELECT DISTINCT deal_synopsis FROM deals WHERE id IN {tuple(twice)}")
    again = again.fetchall()
    assert again == [("second change",)]
    n = con.execute("SELECT count(*) FROM deals WHERE NOT deleted AND len(lead_investors) > 0")
    n = n.fetchall()[0][0]
    deals = mirror.load(path, "deals")
    assert n == int(deals["lead_investors"].map(len).gt(0).sum())
    written = mirror.compact(path)
    assert written == {e: int(status.loc[e, "rows"]) for e in mirror.ENTITIES}
    assert (mirror.status(path)["delta_files"] == 0).all()
    for entity in mirror.ENTITIES:  # after compact, a plain glob is exact
        ours = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        glob = f"SELECT * FROM read_parquet('{path}/{entity}/*.parquet') ORDER BY id"
        pd.testing.assert_frame_equal(duckdb_frame(con, glob, entity), ours)
        on_disk = sorted(p.name for p in (path / entity).glob("*.parquet"))
        assert on_disk == sorted(p.name for p in mirror.files(path, entity))
    assert mirror.compact(path) == {e: 0 for e in mirror.ENTITIES}


def test_second_sync_waits_or_refuses(client, tmp_path):
    path = tmp_path / "m"
    mirror.sync(client, path, ["investors"])
    with mirror_lock(path, 1.0):
        with pytest.raises(mirror.MirrorLockedError, match="another sync"):
            mirror.sync(client, path, ["investors"], lock_timeout=0.2)
    report = mirror.sync(client, path, ["investors"], lock_timeout=0)
    assert not report["investors"].full


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
    for other in (b'"schema_version": 1', b'"schema_version": 3'):  # an older and a newer layout
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


def test_cli_sync_and_status(tmp_path, capsys):
    path = tmp_path / "m"
    assert main(["mirror", "sync", str(path), "--sandbox", "--scale", "0.02", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "deals" in out and "full" in out
    assert main(["mirror", "status", str(path)]) == 0
    out = capsys.readouterr().out
    rows = mirror.status(path).set_index("entity")["rows"]
    assert f"{rows['deals']:,}" in out and "checkpoint" in out and "deltas" in out
    assert main(["mirror", "compact", str(path)]) == 0
    assert capsys.readouterr().out.count("already one generation") == 3
    assert main(["mirror", "status", str(tmp_path / "nowhere")]) == 1
    assert "no mirror" in capsys.readouterr().err


def test_admin_endpoint_is_off_by_default_and_needs_its_token(sb, tmp_path):
    with dealframe.sandbox.run(scale=SCALE) as plain:
        assert requests.get(f"{plain.url}/admin/v1/clock", timeout=10).status_code == 404
    url = f"{sb.url}/admin/v1"
    assert requests.get(f"{url}/clock", timeout=10).status_code == 401
    wrong = {"Authorization": f"Bearer {sb.private_key}"}
    assert requests.get(f"{url}/clock", headers=wrong, timeout=10).status_code == 401
    auth = {"Authorization": "Bearer admin-secret"}
    start = dt.datetime.fromisoformat(requests.get(f"{url}/clock", headers=auth, timeout=10).json()["data"]["now"])
    moved = requests.post(f"{url}/advance", json={"seconds": 90}, headers=auth, timeout=10).json()
    assert dt.datetime.fromisoformat(moved["data"]["now"]) - start == dt.timedelta(seconds=90)
    body = requests.post(f"{url}/changes", json={"operation": "update", "entity": "deals", "n": 4},
                         headers=auth, timeout=10).json()["data"]
    assert len(body["ids"]) == 4
    with Client.for_sandbox(sb) as c:
        changed = c.private.deals(updated_at=moved["data"]["now"], include_deleted=True)
    assert set(body["ids"]) <= set(changed["id"])
    bad = requests.post(f"{url}/changes", json={"operation": "explode", "entity": "deals", "n": 1},
                        headers=auth, timeout=10)
    assert bad.status_code == 400


def test_changes_are_deterministic_from_the_seed(tmp_path):
    runs = []
    for _ in range(2):
        with dealframe.sandbox.run(scale=SCALE, seed=3) as s:
            ch = Changes(s.state, seed=42)
            runs.append((ch.random_round(60), ch.insert("companies", 2),
                         sorted((d["id"], d["updated_at"], d["deal_valuation"]) for d in s.state.dataset.deals)))
    assert runs[0] == runs[1]
    with dealframe.sandbox.run(scale=SCALE, seed=3) as s:  # a new sandbox starts unchanged
        assert sorted((d["id"], d["updated_at"], d["deal_valuation"]) for d in s.state.dataset.deals) != runs[0][2]
