"""The mirror against a change feed whose page holds fewer rows than it says, over real HTTP.

A feed page whose own findings say rows of it are missing (fewer items than
``meta.returned``, items that are not objects, a ``data`` that is not a list) used to be
committed as it was: the lost records were never read again, since the checkpoint moved past
them, and the counts (an update changes none) said nothing. Now such a page is asked once more;
still short, the sync raises :class:`~dealframe.errors.ServiceContractError` before anything
of that entity is committed. The drift proxy, between the client and a sandbox of this
module's own, serves the short pages.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealframe.sandbox
from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import ServiceContractError
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Exchange,
    data_null,
    drop_rows,
    fresh_rules,
    no_hang,
    non_objects,
    proxy,
)

HANG_LIMIT = 60
FEED = r"/api/private/v1/investors$"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """A sandbox of this module's own: the tests change its data."""
    with dealframe.sandbox.run(scale=0.05, seed=17) as served:
        yield served


@pytest.fixture()
def sb(sandbox: Any) -> Iterator[Any]:
    sandbox.reset()
    yield sandbox
    sandbox.reset()


@pytest.fixture()
def client(sb: Any, proxy: Any) -> Iterator[Client]:
    with Client(proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST) as c:
        yield c


def _feed(ex: Exchange) -> bool:
    """A page of the change feed (not the one-row count requests that follow it)."""
    body = ex.body if isinstance(ex.body, dict) else {}
    return "updated_at" in (body.get("filters") or {}) and body.get("limit") != 1


def _sync(client: Client, path: Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the short page's own ServiceContractWarning
        return mirror.sync(client, path, entities=("investors",), progress=False)


def _stale(sb: Any, path: Path) -> list[str]:
    """Ids whose stamp in the mirror differs from the service's."""
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as direct:
        want = direct.private.investors(include_deleted=True).set_index("id")["updated_at"]
    got = mirror.load(path, "investors", include_deleted=True).set_index("id")["updated_at"]
    assert sorted(got.index) == sorted(want.index)
    return [i for i in want.index if got[i] != want[i]]


def _changed(sb: Any) -> list[str]:
    """Records changed at two times: the next sync's first feed page holds them all."""
    changes = Changes(sb.state, seed=2)
    ids = changes.update("investors", 3)
    changes.advance(3600)
    return ids + changes.update("investors", 3)


def test_a_page_short_once_is_asked_again_and_no_record_is_lost(sb, client, proxy, tmp_path):
    path = tmp_path / "m"
    _sync(client, path)
    _changed(sb)
    proxy.add(FEED, drop_rows(2, at="start"), when=_feed, times=1)
    pages, every = proxy.add(FEED, when=_feed), proxy.add(FEED)  # they count the requests
    done = _sync(client, path)["investors"]
    assert done.rows_received == done.rows_written == 6 + 1  # 3 + 3 changed, 1 re-read
    assert pages.used == 2  # page 1 twice: whole the second time, and the last
    assert done.requests == every.used  # the page asked again among them
    assert _stale(sb, path) == []


@pytest.mark.parametrize(
    "short",
    [drop_rows(2, at="start"), non_objects(("oops",)), data_null()],
    ids=["rows dropped", "not objects", "data null"],
)
def test_a_page_short_twice_stops_the_sync_before_anything_is_committed(
    sb, client, proxy, tmp_path, short
):
    path = tmp_path / "m"
    _sync(client, path)
    before = mirror.history(path, "investors")
    changed = _changed(sb)
    proxy.add(FEED, short, when=_feed)
    with pytest.raises(ServiceContractError) as caught:
        _sync(client, path)
    said = str(caught.value)
    assert caught.value.finding in ("count_mismatch", "wrong_shape")
    assert "the change feed of investors" in said and "page 1 of updated_at >= " in said
    assert "asked once more" in said and "nothing of investors is committed" in said
    if short.name.startswith("drop_rows"):
        assert "meta.returned says 7 rows, the page holds 5" in said
    assert mirror.history(path, "investors").equals(before)  # no version, the checkpoint kept
    assert set(changed) <= set(_stale(sb, path))
    proxy.reset()
    _sync(client, path)  # the service whole again: the next sync reads them
    assert _stale(sb, path) == []
