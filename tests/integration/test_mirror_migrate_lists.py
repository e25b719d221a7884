"""A schema-version-2 mirror as the version-2 writer really left it: list fields (``verticals``,
``buyers`` ...) stored as Arrow ``list<string>`` and ``list<struct<id, name, short_name, country,
website>>`` columns, not the JSON text version 3 holds. The first sync migrated only investors:
Arrow cannot cast a list to text, so companies and deals were pulled again in full, with a
warning holding a whole Python traceback. They are migrated in place now, their lists written
as the frames' canonical JSON text, and the tables equal a fresh mirror's."""

from __future__ import annotations

import warnings
from typing import Any

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.frames.nested import to_lists
from dealframe.frames.schemas import PARTICIPANT_FIELDS
from dealframe.mirror.schema import columns, to_arrow
from dealframe.notices import DealframeWarning
from dealframe.sandbox.changes import Changes

#: How version 2 typed list columns: participants as structs (fields in this order), the
#: others as lists of strings.
_PARTICIPANT = pa.struct([(name, pa.string()) for name in PARTICIPANT_FIELDS])
#: Columns the version-2 deals files had and version 3 dropped (the single-deal frame's).
_V2_ONLY = {"target_verticals": pa.list_(pa.string()), "investors": pa.list_(_PARTICIPANT)}
#: Rows whose base (generation 1) holds an older version, superseded by the delta (generation 2).
_CHANGED = 7


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=43) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb):
    with Client.for_sandbox(sb, progress=False) as c:
        yield c


def _v2_type(entity: str, name: str) -> pa.DataType | None:
    """The version-2 Arrow type of a list column of ``entity`` (None: not a list column)."""
    col = next(c for c in columns(entity) if c.name == name)
    if col.kind != "list":
        return None
    return pa.list_(_PARTICIPANT if col.fields is not None else pa.string())


def v2_table(frame: pd.DataFrame, entity: str) -> pa.Table:
    """A client frame as a version-2 file held it: list columns as Arrow lists, the deals'
    version-2-only columns too, and the version-2 schema metadata."""
    table = to_arrow(frame, entity)
    for i, name in enumerate(table.column_names):
        type_ = _v2_type(entity, name)
        if type_ is not None:
            values = to_lists(frame[name]).tolist()
            table = table.set_column(i, pa.field(name, type_), pa.array(values, type=type_))
    if entity == "deals":
        for name, type_ in _V2_ONLY.items():
            source = "buyers" if name == "investors" else None
            values = to_lists(frame[source]).tolist() if source else [["AI"]] * len(frame)
            table = table.append_column(pa.field(name, type_), pa.array(values, type=type_))
    return table.replace_schema_metadata(
        {b"dealframe.mirror.schema_version": b"2", b"dealframe.mirror.entity": entity.encode()}
    )


def _older(table: pa.Table) -> pa.Table:
    """The rows as an older version: every list column holding ``[]`` (participants) or
    ``["Older"]``."""
    for i, field in enumerate(table.schema):
        if pa.types.is_list(field.type):
            value = [] if pa.types.is_struct(field.type.value_type) else ["Older"]
            table = table.set_column(i, field, pa.array([value] * table.num_rows, field.type))
    return table


def write_v2(client: Client, path) -> dict[str, Any]:
    """A version-2 mirror after a full sync and an incremental one: per entity a base file
    (generation 1, an older version of the first rows) and a delta file (generation 2, their
    newer version), ``_mirror.json`` naming them with the checkpoints. Returns each entity's
    table as written (its newest versions)."""
    path.mkdir(mode=0o700)
    entities, tables = {}, {}
    for entity in mirror.ENTITIES:
        frame = getattr(client.private, entity)(include_deleted=True)
        table = v2_table(frame, entity)
        changed = table.slice(0, _CHANGED)
        base = pa.concat_tables([_older(changed), table.slice(_CHANGED)])
        (path / entity).mkdir(mode=0o700)
        files = []
        for generation, part in ((1, base), (2, changed)):
            name = f"part-{generation:010d}-5e6f7a8b-packed-000.parquet"
            pq.write_table(part, path / entity / name)
            files.append(
                {
                    "bytes": (path / entity / name).stat().st_size,
                    "deleted": int(pc.sum(part.column("deleted")).as_py() or 0),
                    "generation": generation,
                    "name": name,
                    "rows": part.num_rows,
                }
            )
        entities[entity] = {
            "checkpoint": pc.max(table.column("updated_at")).as_py().isoformat(),
            "deleted": int(pc.sum(table.column("deleted")).as_py() or 0),
            "files": files,
            "last_sync": "2026-11-01T00:00:00+00:00",
            "rows": table.num_rows,
        }
        tables[entity] = table
    doc = {
        "created_at": "2026-10-01T00:00:00+00:00",
        "entities": entities,
        "format": "dealframe-mirror",
        "generation": 2,
        "schema_version": 2,
        "source": client.settings.base_url,
        "syncs": 2,
    }
    (path / "_mirror.json").write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    (path / ".lock").touch(mode=0o600)
    return tables


def _stored(path, entity: str) -> pa.Table:
    """The rows of ``entity``'s Delta table as any Delta reader sees them, sorted by id."""
    table = DeltaTable(str(path / entity)).to_pyarrow_table()
    return table.replace_schema_metadata(None).sort_by("id")


def test_list_columns_of_a_version_2_mirror_are_migrated_in_place(sb, client, tmp_path):
    path = tmp_path / "old"
    written = write_v2(client, path)
    for entity in ("companies", "deals"):  # the fixture is the version-2 layout
        schema = pq.read_schema(path / entity / "part-0000000001-5e6f7a8b-packed-000.parquet")
        assert any(pa.types.is_list(t) for t in schema.types), schema
    Changes(sb.state, seed=5).update("deals", 5)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = mirror.sync(client, path, progress=False)
    said = [str(w.message) for w in seen if issubclass(w.category, DealframeWarning)]
    assert not said, said  # was: "the companies files ... could not be read (DeltaError: ..."
    for entity in mirror.ENTITIES:  # no full pull: the old checkpoints went on
        assert not report[entity].full, entity
        assert report[entity].rows_received < written[entity].num_rows, entity
        operations = list(mirror.history(path, entity)["operation"])
        assert operations[-1] == "migrate" and "full" not in operations, (entity, operations)
    assert report["deals"].rows_written >= 5

    fresh = tmp_path / "fresh"
    mirror.sync(client, fresh, progress=False)
    for entity in mirror.ENTITIES:  # the stored text is the text a fresh sync writes
        got, expected = _stored(path, entity), _stored(fresh, entity)
        assert got.schema.equals(expected.schema), entity
        assert got.equals(expected), entity
        loaded = mirror.load(path, entity, include_deleted=True).sort_values("id")
        service = getattr(client.private, entity)(include_deleted=True).sort_values("id")
        pd.testing.assert_frame_equal(
            loaded.reset_index(drop=True), service[list(loaded.columns)].reset_index(drop=True)
        )


def test_migrated_list_fields_read_back_as_todays_frames(client, tmp_path):
    """Version 0 (the migration itself) holds each id's newest list values, as JSON text."""
    path = tmp_path / "old"
    written = write_v2(client, path)
    mirror.sync(client, path, progress=False)
    for entity, names in (
        ("companies", ["verticals", "themes", "client_focus"]),
        ("deals", ["buyers", "lead_investors"]),
    ):
        assert list(mirror.history(path, entity)["operation"]) == ["migrate"], entity
        migrated = mirror.load(path, entity, include_deleted=True, as_of=0).set_index("id")
        table = written[entity]
        ids = table.column("id").to_pylist()
        assert migrated.index.is_unique and sorted(migrated.index) == sorted(ids)
        frame = getattr(client.private, entity)(include_deleted=True).set_index("id")
        for name in names:
            assert migrated[name].dtype == frame[name].dtype, name  # str, not object
            want = [[] if v is None else v for v in table.column(name).to_pylist()]
            got = [[] if v is None else v for v in to_lists(migrated.loc[ids, name]).tolist()]
            assert got == want, name  # the newer versions, not the base's "Older"
            assert all(t.startswith("[") for t in migrated[name].dropna()), name
        assert not set(_V2_ONLY) & set(migrated.columns)


def test_an_unreadable_version_2_file_is_said_in_one_line(client, tmp_path):
    """The warning for files that really cannot be read names the file and what was seen,
    on one line: it held the whole Python traceback the Delta writer wrapped."""
    path = tmp_path / "old"
    write_v2(client, path)
    bad = "part-0000000002-5e6f7a8b-packed-000.parquet"
    (path / "deals" / bad).write_bytes(b"garbage")
    with pytest.warns(mirror.MirrorRepairWarning) as seen:
        report = mirror.sync(client, path, progress=False)
    said = [str(w.message) for w in seen if issubclass(w.category, mirror.MirrorRepairWarning)]
    message = next(m for m in said if m.startswith("the deals files of the version-2 mirror"))
    assert "\n" not in message and "Traceback" not in message, message
    assert f"({bad}: ArrowInvalid: " in message and message.endswith("in full instead"), message
    assert said == [message]  # companies' lists were migrated
    assert report["deals"].full and not report["companies"].full
    assert list(mirror.history(path, "companies")["operation"])[-1] == "migrate"
