"""Issue 12's mirror cases: whatever happens to the files, no foreign exception leaves a public
mirror function, the typed error says what is wrong and how to repair it, and the repair it
gives works (the table equals a fresh pull again, its history kept where it can be read).

Cases: a data file overwritten with garbage, a data file missing, a data page corrupted under an
intact footer (found by ``--repair``, or by an incremental sync reading it), a table holding another entity's table, a table folder or its log deleted, a log
entry corrupted, and the disk refusing writes during a sync (a real ``EFBIG`` from a file size
limit in a subprocess, during staging and during the Delta write)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.sandbox.changes import Changes

SYNC_ARGS = dict(page_size=250, rows_per_file=100)


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=31) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb):
    with Client.for_sandbox(sb, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def base(sb, client, tmp_path_factory):
    """A mirror with two versions per table."""
    path = tmp_path_factory.mktemp("repair") / "base"
    mirror.sync(client, path, **SYNC_ARGS)
    ch = Changes(sb.state, seed=2)
    for entity in mirror.ENTITIES:
        ch.update(entity, 4)
    mirror.sync(client, path, **SYNC_ARGS)
    return path


@pytest.fixture()
def path(base, tmp_path):
    copy = tmp_path / "m"
    shutil.copytree(base, copy)
    return copy


def assert_equals_service(client, path) -> None:
    for entity in mirror.ENTITIES:
        expected = getattr(client.private, entity)(include_deleted=True)
        expected = expected.sort_values("id", ignore_index=True)
        got = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        pd.testing.assert_frame_equal(got, expected[list(got.columns)])


def data_file(path, entity="deals"):
    return mirror.files(path, entity)[0]


def refused_everywhere(path, match: str, entity: str = "deals") -> str:
    """load and status give the typed error; its message names the repair command."""
    with pytest.raises(mirror.MirrorDamagedError, match=match) as info:
        mirror.load(path, entity)
    assert f"dealframe mirror sync {path} --repair" in str(info.value)
    with pytest.raises(mirror.MirrorDamagedError, match=match):
        mirror.status(path)
    return str(info.value)


def repaired_by(client, path, *, repair: bool = False, entity: str = "deals") -> None:
    """The advice works: a sync rebuilds the table (with a warning) and it equals the service."""
    with pytest.warns(mirror.MirrorRepairWarning, match=entity):
        report = mirror.sync(client, path, repair=repair, **SYNC_ARGS)
    assert report[entity].repaired and report[entity].full
    others = [e for e in mirror.ENTITIES if e != entity]
    assert not any(report[e].repaired or report[e].full for e in others)
    assert_equals_service(client, path)
    again = mirror.sync(client, path, **SYNC_ARGS)  # and the next sync is incremental again
    assert not any(r.full for r in again.entities.values())


def test_a_data_file_overwritten_with_garbage(client, path):
    data_file(path).write_bytes(b"this is not parquet" * 100)
    refused_everywhere(path, "cannot be read|not readable Parquet")
    repaired_by(client, path)
    history = mirror.history(path, "deals")
    assert history.loc[0, "operation"] == "repair" and "the log says" in history.loc[0, "reason"]


def test_a_missing_data_file(client, path):
    data_file(path).unlink()
    refused_everywhere(path, "missing")
    repaired_by(client, path)  # sync: it used to fail with a FileNotFoundError


def test_a_corrupt_page_under_an_intact_footer(client, path):
    target = data_file(path)
    raw = bytearray(target.read_bytes())
    for k in range(200, len(raw) // 2, 97):  # scribble over the column chunks, not the footer
        raw[k] ^= 0x5A
    target.write_bytes(bytes(raw))
    with pytest.raises(mirror.MirrorDamagedError, match="--repair"):
        mirror.load(path, "deals", include_deleted=True)
    repaired_by(client, path, repair=True)  # --repair reads every row, finds it and rebuilds


def test_a_corrupt_page_found_by_an_incremental_sync(sb, client, path):
    # no --repair: the cheap checks pass; the upsert reads every row (ahead of the commit, on
    # its own thread, while the feed is walked), fails on the page, and the table is rebuilt
    target = data_file(path)
    raw = bytearray(target.read_bytes())
    for k in range(200, len(raw) // 2, 97):
        raw[k] ^= 0x5A
    target.write_bytes(bytes(raw))
    ch = Changes(sb.state, seed=90)
    ch.advance(60)
    ch.update("deals", 3)
    repaired_by(client, path)
    assert "cannot be read" in mirror.history(path, "deals").loc[0, "reason"]


def test_a_table_holding_another_entity(client, path):
    shutil.rmtree(path / "deals")
    shutil.copytree(path / "investors", path / "deals")  # e.g. a copy gone wrong
    message = refused_everywhere(path, "holds the investors table")
    assert "not the deals table" in message
    repaired_by(client, path)  # detected by its schema; it used to be a bare KeyError


def test_a_deleted_table_or_log(client, path):
    shutil.rmtree(path / "deals" / "_delta_log")
    refused_everywhere(path, "Delta log")
    with pytest.warns(mirror.MirrorRepairWarning, match="_delta_log"):
        report = mirror.sync(client, path, **SYNC_ARGS)  # damaged: set aside, pulled in full
    assert report["deals"].full and not report["investors"].full
    assert_equals_service(client, path)
    shutil.rmtree(path / "companies")
    with pytest.raises(mirror.MirrorStateError, match="run a sync"):
        mirror.load(path, "companies")
    assert mirror.sync(client, path, **SYNC_ARGS)["companies"].full
    assert_equals_service(client, path)


def test_a_corrupt_log_entry(client, path):
    log = sorted((path / "deals" / "_delta_log").glob("*.json"))[-1]
    log.write_bytes(b"{not json")
    refused_everywhere(path, "Delta log cannot be read")
    with pytest.warns(mirror.MirrorRepairWarning, match="moved to"):
        report = mirror.sync(client, path, **SYNC_ARGS)
    assert report["deals"].full and "moved to" in report["deals"].repaired
    assert_equals_service(client, path)
    aside = list((path / "_damaged").iterdir())
    assert len(aside) == 1 and (aside[0] / "_delta_log").is_dir()  # kept for inspection


_CHILD = textwrap.dedent("""
    import json, resource, signal, sys
    from types import SimpleNamespace
    from dealframe.client import Client
    import dealframe.mirror as mirror
    url, key, path, limit, rows_per_file = sys.argv[1:6]
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(limit), int(limit)))
    # the parent's sandbox, as Client.for_sandbox knows it (the mirror's recorded source)
    from dealframe.sandbox.models.data import AS_OF
    config = SimpleNamespace(seed=31, scale=0.02, as_of=AS_OF)
    served = SimpleNamespace(url=url, public_token=key, private_key=key,
                             state=SimpleNamespace(config=config))
    with Client.for_sandbox(served, progress=False) as c:
        try:
            mirror.sync(c, path, page_size=250, rows_per_file=int(rows_per_file))
            print(json.dumps({"error": None}))
        except BaseException as exc:
            print(json.dumps({"error": type(exc).__module__ + "." + type(exc).__name__,
                              "message": str(exc)}))
""")


@pytest.mark.parametrize("where, rows_per_file", [("staging", 1000), ("delta write", 50)])
def test_the_disk_refusing_writes_during_a_sync(sb, client, path, where, rows_per_file):
    ch = Changes(sb.state, seed=70 + rows_per_file)  # its own seed: new ids, not a repeat
    ch.advance(60)
    ch.insert("deals", 600)  # enough new rows to pass the limit in one file
    before = mirror.status(path).set_index("entity")["version"].to_dict()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            sb.url,
            sb.private_key,
            str(path),
            str(60_000),
            str(rows_per_file),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["error"] == "dealframe.mirror.errors.MirrorWriteError", (
        result,
        out.stderr[-800:],
    )
    assert "free space" in result["message"] and "previous version" in result["message"]
    assert mirror.status(path).set_index("entity")["version"].to_dict() == before  # unchanged
    report = mirror.sync(client, path, **SYNC_ARGS)  # space again: the sync completes
    assert report["deals"].rows_written >= 600
    assert_equals_service(client, path)
