"""A schema-version-2 mirror (Parquet base and delta files named in ``_mirror.json``) is migrated
in place by the first sync: each id's newest version, the old checkpoints kept (the sync after it
is incremental), the old files gone, equal to a fresh pull; readers meanwhile get a typed error
that says to sync; a migration that dies half way is done again."""

from __future__ import annotations

import warnings
from typing import Any

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import ServerError
from dealframe.mirror import migrate as migrate_mod
from dealframe.mirror.schema import to_arrow
from dealframe.sandbox.changes import Changes
from dealframe.sandbox.faults import FaultPlan


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=41) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb):
    with Client.for_sandbox(sb, progress=False) as c:
        yield c


def write_v2(client, path) -> dict[str, Any]:
    """What a version-2 sync followed by an incremental one left: per entity a base (an older
    version of some rows, written as two files) and a delta (their newer version). Returns the
    names of the files written, and the ids and second column of the changed rows."""
    path.mkdir(mode=0o700)
    entities, names = {}, {}
    for entity in mirror.ENTITIES:
        frame = getattr(client.private, entity)(include_deleted=True)
        table = to_arrow(frame, entity)
        changed = table.slice(0, 7)  # their base row is older: its second column null
        older = changed.set_column(
            1, changed.schema.field(1), pa.nulls(7, changed.schema.field(1).type)
        )
        base = pa.concat_tables([older, table.slice(7)])
        (path / entity).mkdir(mode=0o700)
        files = []
        half = base.num_rows // 2
        for generation, k, part in (
            (1, 0, base.slice(0, half)),
            (1, 1, base.slice(half)),
            (2, 0, changed),
        ):
            name = f"part-{generation:010d}-0a1b2c3d-{k:03d}.parquet"
            pq.write_table(
                part.replace_schema_metadata({b"dealframe.mirror.schema_version": b"2"}),
                path / entity / name,
            )
            files.append(
                {
                    "name": name,
                    "rows": part.num_rows,
                    "deleted": int(pa.compute.sum(part.column("deleted")).as_py() or 0),
                    "bytes": (path / entity / name).stat().st_size,
                    "generation": generation,
                }
            )
        checkpoint = pa.compute.max(table.column("updated_at")).as_py().isoformat()
        entities[entity] = {
            "checkpoint": checkpoint,
            "last_sync": "2026-11-01T00:00:00+00:00",
            "files": files,
            "rows": table.num_rows,
            "deleted": int(pa.compute.sum(table.column("deleted")).as_py() or 0),
        }
        names[entity] = {f["name"] for f in files}
        names[f"{entity}:changed"] = (
            changed.column("id").to_pylist(),
            changed.column(1).to_pandas().tolist(),
        )
    doc = {
        "format": "dealframe-mirror",
        "schema_version": 2,
        "created_at": "2026-10-01T00:00:00+00:00",
        "source": client.settings.base_url,
        "syncs": 2,
        "generation": 2,
        "entities": entities,
    }
    (path / "_mirror.json").write_bytes(orjson.dumps(doc))
    return names


def assert_equals_service(client, path) -> None:
    for entity in mirror.ENTITIES:
        expected = getattr(client.private, entity)(include_deleted=True).sort_values(
            "id", ignore_index=True
        )
        got = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        pd.testing.assert_frame_equal(got, expected[list(got.columns)])


def test_the_first_sync_migrates_a_version_2_mirror(sb, client, tmp_path):
    path = tmp_path / "m"
    old = write_v2(client, path)
    for read in (
        lambda: mirror.load(path, "deals"),
        lambda: mirror.status(path),
        lambda: mirror.compact(path),
    ):
        with pytest.raises(mirror.MirrorVersionError, match="version 2.*mirror sync.*migrates"):
            read()
    Changes(sb.state, seed=12).update("deals", 5)
    report = mirror.sync(client, path)
    assert not any(r.full for r in report.entities.values())  # the old checkpoints went on
    assert report["deals"].rows_written >= 5
    assert_equals_service(client, path)
    assert mirror.status(path).attrs["schema_version"] == mirror.SCHEMA_VERSION
    history = mirror.history(path, "deals")
    assert list(history["operation"]) == ["sync", "migrate"]
    migrated = mirror.load(path, "deals", include_deleted=True, as_of=0).set_index("id")
    assert migrated.index.is_unique  # each id's newest version only, not the superseded one
    ids, dates = old["deals:changed"]  # the base held them with a null deal_date, the delta not
    assert [d.date() for d in migrated.loc[ids, "deal_date"]] == dates
    for entity in mirror.ENTITIES:
        on_disk = {p.name for p in (path / entity).glob("*.parquet")}
        assert on_disk
        assert not on_disk & old[entity]


def test_a_migration_that_died_is_done_again(sb, client, tmp_path, monkeypatch):
    path = tmp_path / "m"
    write_v2(client, path)
    real = migrate_mod._migrate_entity
    calls = []

    def dies_on_the_second(root, entity, entry, syncs):
        calls.append(entity)
        real(root, entity, entry, syncs)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process stops: the marker is still version 2

    monkeypatch.setattr(migrate_mod, "_migrate_entity", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        mirror.sync(client, path)
    monkeypatch.undo()
    assert (path / "companies" / "_delta_log").is_dir()
    with pytest.raises(mirror.MirrorVersionError):
        mirror.load(path, "companies")
    mirror.sync(client, path)
    assert_equals_service(client, path)
    assert list(mirror.history(path, "companies")["operation"]) == ["migrate"]


def test_unreadable_version_2_files_are_pulled_in_full(client, tmp_path):
    path = tmp_path / "m"
    old = write_v2(client, path)
    (path / "deals" / sorted(old["deals"])[0]).write_bytes(b"garbage")
    with pytest.warns(mirror.MirrorRepairWarning, match="deals.*in full"):
        report = mirror.sync(client, path)
    assert report["deals"].full and not report["investors"].full
    assert_equals_service(client, path)


def test_warnings_made_errors_come_after_the_whole_migration(client, tmp_path):
    """With warnings turned into errors (``-W error``), the first unreadable entity's warning
    was raised inside the migration's loop: the entities after it were not migrated and the
    marker stayed at version 2. Now it is raised after the sync, every entity done."""
    path = tmp_path / "m"
    old = write_v2(client, path)
    for entity in ("companies", "deals"):
        (path / entity / sorted(old[entity])[0]).write_bytes(b"garbage")
    with warnings.catch_warnings(), pytest.raises(mirror.MirrorRepairWarning, match="companies"):
        warnings.simplefilter("error")
        mirror.sync(client, path, progress=False)
    status = mirror.status(path).set_index("entity")  # a version-2 marker raises here
    assert status.attrs["schema_version"] == mirror.SCHEMA_VERSION
    assert list(mirror.history(path, "investors")["operation"]) == ["migrate"]
    assert_equals_service(client, path)


@pytest.mark.parametrize("as_errors", [False, True])
def test_a_migrations_warning_is_said_when_the_sync_fails_after_it(tmp_path, as_errors):
    """The migration deletes the old files and writes version 3 before the sync pulls: a
    sync that then failed never said that companies could not be migrated (and nothing
    would later). It is said all the same; filtered into an error, it is a note on the
    sync's own error instead of replacing it."""
    plan = FaultPlan()
    path = tmp_path / "m"
    with (
        dealframe.sandbox.run(scale=0.02, seed=41, faults=plan) as sb,
        Client.for_sandbox(sb, progress=False, retries=0) as client,
    ):
        old = write_v2(client, path)
        (path / "companies" / sorted(old["companies"])[0]).write_bytes(b"garbage")
        plan.script("transactions", ["503"] * 3)  # the deals' pull, after the migration
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("error" if as_errors else "always")
            with pytest.raises(ServerError) as failed:
                mirror.sync(client, path, progress=False)
    assert mirror.status(path).attrs["schema_version"] == mirror.SCHEMA_VERSION  # migrated
    if as_errors:
        notes = getattr(failed.value, "__notes__", [])
        assert any(n.startswith("MirrorRepairWarning: the companies files") for n in notes), notes
    else:
        said = [w for w in seen if issubclass(w.category, mirror.MirrorRepairWarning)]
        assert len(said) == 1 and "companies" in str(said[0].message), seen
        assert said[0].filename == __file__


def test_a_migrated_mirror_records_the_clients_source_and_syncs_again(client, tmp_path):
    """Version 2 recorded the base URL (a sandbox's with the port of its run); the migration
    kept it, so the next sync from the same sandbox was refused as another source."""
    path = tmp_path / "m"
    write_v2(client, path)
    mirror.sync(client, path, progress=False)
    assert mirror.status(path).attrs["source"] == client.source
    report = mirror.sync(client, path, progress=False)  # raised MirrorStateError
    assert not any(r.full for r in report.entities.values())


def test_a_version_2_mirror_of_another_service_is_refused_before_it_is_migrated(client, tmp_path):
    """The migrating sync checked no source: another service's records were merged in."""
    path = tmp_path / "m"
    write_v2(client, path)
    marker = path / "_mirror.json"
    doc = orjson.loads(marker.read_bytes())
    marker.write_bytes(orjson.dumps({**doc, "source": "https://api.example.com/v/"}))
    with pytest.raises(mirror.MirrorStateError, match="synced from https://api.example.com/v,"):
        mirror.sync(client, path, progress=False)
    with pytest.raises(mirror.MirrorVersionError):  # not migrated
        mirror.status(path)
    mirror.sync(client, path, progress=False, allow_other_source=True)
    assert mirror.status(path).attrs["source"] == client.source
