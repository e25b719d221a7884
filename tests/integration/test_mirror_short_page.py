"""The mirror against a change feed whose page holds fewer rows than it says, over real HTTP.

A feed page whose own findings say rows of it are missing (fewer items than
``meta.returned``, items that are not objects, a ``data`` that is not a list) used to be
committed as it was: the lost records were never read again, since the checkpoint moved past
them, and the counts (an update changes none) said nothing. Now such a page is asked once more;
whole then, the sync says so once (no rows missing); still short, the sync raises
:class:`~dealframe.errors.ServiceContractError` before anything of that entity is committed.

The interface document lists ``meta.returned`` without defining it: a service that echoes the
``limit`` asked there, or writes ``meta.total``, serves pages that are whole (full, or the last
page adding up to ``meta.total``), and the mirror syncs them, as the list calls read them, with
a finding that claims no rows lost. The drift proxy, between the client and a sandbox of this
module's own, serves the pages.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import IncompleteResultError, ServiceContractError
from dealframe.notices import ServiceContractWarning
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    clamp_limit,
    data_null,
    drop_rows,
    fresh_rules,
    no_hang,
    non_objects,
    proxy,
)
from _own_sandbox import client, sandbox, sb  # noqa: F401 - fixtures are used by name

HANG_LIMIT = 60
FEED = r"/api/private/v1/investors$"
OWN_SANDBOX = {"scale": 0.05, "seed": 17}  # the tests change its data


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
    assert "asked once more" in said and "the investors table is not written" in said
    if short.name.startswith("drop_rows"):
        assert "meta.returned says 7 rows, the page holds 5" in said
    assert mirror.history(path, "investors").equals(before)  # no version, the checkpoint kept
    assert set(changed) <= set(_stale(sb, path))
    proxy.reset()
    _sync(client, path)  # the service whole again: the next sync reads them
    assert _stale(sb, path) == []


def test_a_page_whole_when_asked_again_is_said_once_as_no_rows_missing(sb, client, proxy, tmp_path):
    path = tmp_path / "m"
    _sync(client, path)
    _changed(sb)
    proxy.add(FEED, drop_rows(2, at="start"), when=_feed, times=1)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        done = mirror.sync(client, path, entities=("investors",), progress=False)["investors"]
    assert done.page_asked_again is not None
    assert "meta.returned says 7 rows, the page holds 5" in done.page_asked_again
    assert "asked once more, it held all 7 rows" in done.page_asked_again
    short = [str(w.message) for w in said if "the page holds 5" in str(w.message)]
    assert len(short) == 1, short  # not the first answer's own warning too
    assert short[0].startswith("the change feed of investors: page 1 of updated_at >= ")
    assert short[0].endswith("no rows are missing")
    assert [w.category for w in said if str(w.message) == short[0]] == [ServiceContractWarning]
    assert _stale(sb, path) == []


def _returned(value: str) -> Action:
    """``meta.returned`` rewritten: the ``limit`` asked ("limit"), or ``meta.total``."""

    def apply(ex: Exchange) -> None:
        doc = ex.doc()
        meta = doc.get("meta") if isinstance(doc, dict) else None
        body = ex.body if isinstance(ex.body, dict) else {}
        if isinstance(meta, dict):
            meta["returned"] = body.get("limit") if value == "limit" else meta.get("total")
            ex.set_doc(doc)

    return Action(f"returned_{value}", on_response=apply)


@pytest.mark.parametrize(("value", "page_size"), [("limit", 40), ("total", 40)])
def test_a_returned_that_echoes_the_limit_or_the_total_is_no_row_lost(
    sb, client, proxy, tmp_path, value, page_size
):
    proxy.add(FEED, _returned(value))
    path = tmp_path / "m"
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        first = mirror.sync(
            client, path, entities=("investors",), progress=False, page_size=page_size
        )["investors"]
        changed = _changed(sb)
        second = mirror.sync(
            client, path, entities=("investors",), progress=False, page_size=page_size
        )["investors"]
    assert first.rows_written == first.service_rows == first.table_rows > page_size
    assert first.page_asked_again is None and second.page_asked_again is None
    assert second.rows_written >= len(set(changed))
    assert _stale(sb, path) == []
    texts = [str(w.message) for w in said if "meta.returned says" in str(w.message)]
    assert texts and all(t.endswith("no rows lost") for t in texts), texts


@pytest.mark.parametrize(
    ("value", "clamp"), [("limit", None), ("total", 40)], ids=["limit", "total"]
)
def test_the_list_calls_read_such_a_returned_as_no_row_lost(sb, client, proxy, value, clamp):
    # one page of every row (the last, whole); or pages of 40 rows (full ones, then the last)
    proxy.add(FEED, *([] if clamp is None else [clamp_limit(clamp)]), _returned(value))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        rows = client.private.investors(include_deleted=True)
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as direct:
        assert len(rows) == len(direct.private.investors(include_deleted=True)) > 0
    counts = [f for f in rows.attrs["findings"] if f["kind"] == "count_mismatch"]
    assert counts and all(f["shortfall"] == 0 for f in counts), counts
    with pytest.raises(ServiceContractError) as caught:  # strict: said, but no rows missing
        client.private.investors(include_deleted=True, strict=True)
    assert not isinstance(caught.value, IncompleteResultError)
    assert "no rows lost" in str(caught.value)


def _ignore_limit(ex: Exchange) -> None:
    """A service that ignores the ``limit`` asked: every row of the query in one page."""
    if isinstance(ex.body, dict) and "limit" in ex.body:
        ex.set_param("limit", 1000)


def _limit_below_rows(ex: Exchange) -> None:
    """A ``meta.limit`` 5 below the rows the page holds (served past its own limit)."""
    doc = ex.doc()
    if isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
        doc["meta"]["limit"] = max(1, len(doc.get("data") or ()) - 5)
        ex.set_doc(doc)


@pytest.mark.parametrize(
    "past",
    [
        Action("ignore_limit", on_request=_ignore_limit),
        Action("limit_below_rows", on_response=_limit_below_rows),
    ],
    ids=["limit ignored", "meta.limit below the rows"],
)
def test_a_page_above_its_size_with_rows_cut_is_no_full_page(sb, client, proxy, tmp_path, past):
    # the first page and its asking again: 5 rows cut first, then served past its size
    # (meta.limit written below what is left, or every row served for the 20 asked)
    proxy.add(FEED, drop_rows(5, at="start"), past, when=_feed, times=2)
    path = tmp_path / "m"
    with pytest.raises(ServiceContractError) as caught:
        mirror.sync(client, path, entities=("investors",), progress=False, page_size=20)
    said = str(caught.value)
    assert caught.value.finding == "count_mismatch", said
    assert "asked once more" in said and "the investors table is not written" in said
    assert "a full page" not in said
    proxy.reset()
    _sync(client, path)  # the service whole again: every record is read
    assert _stale(sb, path) == []
