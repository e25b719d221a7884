"""A table whose Delta log was deleted, its data files left, is repaired by a plain sync, over HTTP.

``status`` and ``load`` call such a table damaged (``MirrorDamagedError``, "run --repair"), but
a plain sync used to take it for a missing table: a full pull written beside the old data files,
no ``MirrorRepairWarning``, ``report[entity].repaired`` None and a history whose version 0 was
a ``full`` without a reason. It is now treated as every damaged table is: its folder moved
to ``_damaged/``, the table rebuilt from a full pull with a warning, ``repaired`` and the
history's reason saying what was wrong.

A first sync killed between moving its files into the table folder and writing the log leaves
the same folder, and its staging: that is an interrupted sync, not damage. The next sync
deletes those files as it deletes the staging (``recovered_files``), with no warning: the
files that sync listed in its staging before moving them, and only those. Any staging left of
an entity (an incremental sync killed) used to have every data file of a table whose log was
lost deleted, without a word; those files are set aside as damage, with the warning.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.sandbox.changes import Changes

LOST = r"Delta log \(_delta_log\) is missing"


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.02, seed=29) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb: Any) -> Iterator[Client]:
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as c:
        yield c


def test_a_table_whose_log_was_deleted_is_set_aside_and_rebuilt_with_a_warning(client, tmp_path):
    path = tmp_path / "m"
    mirror.sync(client, path, entities=["deals", "investors"], progress=False, rows_per_file=100)
    old = sorted(p.name for p in (path / "deals").glob("*.parquet"))
    assert len(old) > 1
    shutil.rmtree(path / "deals" / "_delta_log")
    with pytest.raises(mirror.MirrorDamagedError, match=LOST):
        mirror.status(path)

    with pytest.warns(mirror.MirrorRepairWarning, match=LOST):
        report = mirror.sync(client, path, entities=["deals", "investors"], progress=False)

    done = report["deals"]
    assert done.full and done.repaired is not None and "_damaged" in done.repaired
    assert not report["investors"].full and report["investors"].repaired is None
    aside = list((path / "_damaged").iterdir())
    assert len(aside) == 1 and sorted(p.name for p in aside[0].glob("*.parquet")) == old
    on_disk = {p.name for p in (path / "deals").glob("*.parquet")}
    assert on_disk == {p.name for p in mirror.files(path, "deals")}  # no old file beside them
    versions = mirror.history(path, "deals")
    assert versions["operation"].tolist() == ["repair"]
    assert "_delta_log" in versions["reason"].iloc[0]
    assert mirror.status(path).set_index("entity").loc["deals", "rows"] == len(
        client.private.deals(include_deleted=True)
    )


_KILLED = textwrap.dedent("""
    import os, sys
    from dealframe import mirror
    from dealframe.client import Client
    from dealframe.mirror import store
    def hook(step):
        if step == sys.argv[5]:  # moved-in: the files in the table folder, no log yet
            os._exit(9)
    store.set_crash_hook(hook)
    with Client(*sys.argv[1:4], progress=False, cache_enabled=False) as c:
        mirror.sync(c, sys.argv[4], entities=["investors"], progress=False)
""")


def test_a_first_sync_killed_before_its_log_is_an_interrupted_sync_not_damage(sb, tmp_path):
    path = tmp_path / "m"
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED,
            sb.url,
            sb.public_token,
            sb.private_key,
            str(path),
            "moved-in",
        ],
        timeout=120,
    )
    assert killed.returncode == 9
    left = sorted((path / "investors").glob("*.parquet"))
    assert left and not (path / "investors" / "_delta_log").exists()
    assert list((path / "_staging").glob("*/investors"))  # the staging of the sync killed

    with Client(sb.url, sb.public_token, sb.private_key, progress=False, cache_enabled=False) as c:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            report = mirror.sync(c, path, entities=["investors"], progress=False)
    assert [str(w.message) for w in said] == []  # no MirrorRepairWarning: nothing was damaged
    done = report["investors"]
    assert done.full and done.repaired is None and report.recovered_files >= len(left)
    assert not (path / "_damaged").exists() and not (path / "_staging").exists()
    on_disk = {p.name for p in (path / "investors").glob("*.parquet")}
    assert on_disk == {p.name for p in mirror.files(path, "investors")}
    assert not on_disk & {p.name for p in left}
    assert mirror.history(path, "investors")["operation"].tolist() == ["full"]


def _client(sb: Any) -> Client:
    return Client(sb.url, sb.public_token, sb.private_key, progress=False, cache_enabled=False)


def test_a_lost_log_beside_an_incremental_syncs_staging_is_set_aside_not_deleted(sb, tmp_path):
    path = tmp_path / "m"
    with _client(sb) as client:  # the same service as the killed sync's
        mirror.sync(client, path, entities=["investors"], progress=False)
    old = sorted(p.name for p in (path / "investors").glob("*.parquet"))
    Changes(sb.state, seed=3).update("investors", 4)
    try:
        killed = subprocess.run(  # an incremental sync killed before its commit
            [
                *(sys.executable, "-c", _KILLED, sb.url, sb.public_token, sb.private_key),
                *(str(path), "before-commit"),
            ],
            timeout=120,
        )
        assert killed.returncode == 9
        assert list((path / "_staging").glob("*/investors"))  # its staging, left
        shutil.rmtree(path / "investors" / "_delta_log")  # then the log lost

        with _client(sb) as client, pytest.warns(mirror.MirrorRepairWarning, match=LOST):
            report = mirror.sync(client, path, entities=["investors"], progress=False)
    finally:
        sb.reset()
    done = report["investors"]
    assert done.full and done.repaired is not None and "_damaged" in done.repaired
    aside = list((path / "_damaged").iterdir())
    assert len(aside) == 1 and sorted(p.name for p in aside[0].glob("*.parquet")) == old
    assert not (path / "_staging").exists()


def test_a_first_sync_killed_after_its_commit_leaves_no_listing_to_delete_its_files(sb, tmp_path):
    """A first sync killed once its commit is written (its staging left, the listing of the
    files it moved in with it), then the log lost: the files are committed data, set aside as
    damage with the warning, never deleted as a dead sync's (the listing used to outlive the
    commit, and the next sync deleted them without a word)."""
    path = tmp_path / "m"
    killed = subprocess.run(
        [
            *(sys.executable, "-c", _KILLED, sb.url, sb.public_token, sb.private_key),
            *(str(path), "committed"),
        ],
        timeout=120,
    )
    assert killed.returncode == 9
    committed = sorted(p.name for p in (path / "investors").glob("*.parquet"))
    assert committed and (path / "investors" / "_delta_log").exists()
    assert list((path / "_staging").glob("*/investors"))  # its staging, left
    shutil.rmtree(path / "investors" / "_delta_log")

    with _client(sb) as client, pytest.warns(mirror.MirrorRepairWarning, match=LOST):
        report = mirror.sync(client, path, entities=["investors"], progress=False)
    assert report["investors"].repaired is not None
    aside = list((path / "_damaged").iterdir())
    assert len(aside) == 1 and sorted(p.name for p in aside[0].glob("*.parquet")) == committed
