"""A commit another writer made to a mirror's table after the mirror's last sync (issue 16): one
that changes rows (a ``DELETE`` purging the soft-deleted deals) is noticed, and the table is
rebuilt from a full pull, the reason in its history and a ``MirrorRepairWarning`` naming the
commit; one that changes no row (an ``OPTIMIZE``) is harmless, the next sync incremental."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from deltalake import DeltaTable

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.sandbox.changes import Changes


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=31) as sandbox:
        yield sandbox


def _ids(frame: pd.DataFrame) -> list[str]:
    return sorted(frame["id"].tolist())


def test_a_foreign_delete_is_rebuilt_and_a_foreign_optimize_is_not(sb, tmp_path):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=2)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, page_size=250)
        changes.soft_delete("deals", 5)  # soft-deleted on the service: flagged in the mirror
        mirror.sync(client, path, page_size=250)
        deals = DeltaTable(str(path / "deals"))
        last = deals.version()
        purged = deals.delete("deleted = true")["num_deleted_rows"]
        assert purged >= 5
        DeltaTable(str(path / "investors")).optimize.compact()  # no row changed
        changes.update("deals", 3)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            report = mirror.sync(client, path, page_size=250)
        service = client.private.deals(include_deleted=True)
        investors = client.private.investors(include_deleted=True)

    assert report["deals"].full and not report["investors"].full
    repairs = [str(w.message) for w in seen if issubclass(w.category, mirror.MirrorRepairWarning)]
    assert len(repairs) == 1 and "deals" in repairs[0], repairs
    assert f"version {last + 1} (DELETE" in repairs[0], repairs[0]
    assert not [w for w in seen if issubclass(w.category, mirror.MirrorDivergenceWarning)]
    # the purged rows are back: the table equals the service, flagged rows included
    assert _ids(mirror.load(path, "deals", include_deleted=True)) == _ids(service)
    assert _ids(mirror.load(path, "investors", include_deleted=True)) == _ids(investors)
    newest = mirror.history(path, "deals").iloc[0]
    assert newest["operation"] == "repair"
    assert "another writer changed its rows" in newest["reason"]
