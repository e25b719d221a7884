"""The mirror's change feed against services that read its open points another way, over HTTP.

The interface document says only: the filter ``updated_at`` with a timestamp and
``include_deleted: true`` return the records changed at or after it. A real service may sort,
compare, stamp and delete otherwise than the sandbox. Each test puts the drift proxy between the
client and a sandbox of this module's own (its data is changed by the tests) and checks that
:func:`dealframe.mirror.sync` loses and doubles no row, or says what it saw.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import ServiceContractError
from dealframe.mirror.errors import MirrorDivergenceWarning
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    fresh_rules,
    no_hang,
    proxy,
)
from _own_sandbox import client, sandbox, sb  # noqa: F401 - fixtures are used by name

HANG_LIMIT = 60
FEED = r"/api/private/v1/transactions$"
OWN_SANDBOX = {"scale": 0.02, "seed": 41}  # the tests change its data


def _feed(ex: Exchange) -> bool:
    return isinstance(ex.body, dict) and "updated_at" in (ex.body.get("filters") or {})


def _request(fn: Callable[[dict[str, Any]], None], name: str) -> Action:
    def apply(ex: Exchange) -> None:
        if isinstance(ex.body, dict):
            fn(ex.body)
            ex.raw_body = orjson.dumps(ex.body)

    return Action(name, on_request=apply)


def _rows(
    fn: Callable[[list[dict[str, Any]], Exchange], list[dict[str, Any]]], name: str
) -> Action:
    def apply(ex: Exchange) -> None:
        doc = ex.doc()
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            doc["data"] = fn(doc["data"], ex)
            ex.set_doc(doc)

    return Action(name, on_response=apply)


def _sync(client: Client, path: Path, **kw: Any) -> Any:
    kw.setdefault("page_size", 100)
    return mirror.sync(client, path, entities=("deals",), progress=False, **kw)


def _service(sb: Any) -> pd.DataFrame:
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as direct:
        got = direct.private.deals(include_deleted=True)
    return got.sort_values("id", ignore_index=True)


def _mirror(path: Path) -> pd.DataFrame:
    got = mirror.load(path, "deals", include_deleted=True)
    return got.sort_values("id", ignore_index=True)


def _same(path: Path, sb: Any) -> None:
    got, want = _mirror(path), _service(sb)
    assert got["id"].tolist() == want["id"].tolist()
    assert (got["updated_at"] == want["updated_at"]).all()


def _strictly_after(body: dict[str, Any]) -> None:
    """Serve ``updated_at`` as ``gt``: the sandbox's stamps are whole seconds, so ``>=`` one
    microsecond after the time sent is ``>`` the time sent."""
    filters = body.get("filters") or {}
    if isinstance(filters.get("updated_at"), str):
        later = pd.Timestamp(filters["updated_at"]) + pd.Timedelta(microseconds=1)
        filters["updated_at"] = later.isoformat()


def test_a_service_reading_updated_at_as_strictly_after_loses_no_row(sb, client, proxy, tmp_path):
    """300 deals changed in one second (more than a page of 100): the walk read the first page
    of that second, then asked for ``updated_at >= that second`` page 2, which a service reading
    the filter as ``gt`` answered empty. 200 changes were lost, nothing said, and the checkpoint
    moved past them for good. Now page 1 of the cursor's second lacking the rows just served
    at it shows the ``gt``: the walk asks from 1 µs before each cursor and says so."""
    proxy.add(FEED, _request(_strictly_after, "gt"))
    first = _sync(client, tmp_path / "m")["deals"]
    _same(tmp_path / "m", sb)
    changes = Changes(sb.state, seed=2)
    changes.advance(60)
    changed = changes.update("deals", 300)
    second = _sync(client, tmp_path / "m")["deals"]
    _same(tmp_path / "m", sb)
    assert second.rows_written >= len(set(changed)) == 300
    assert "reads the filter as strictly after" in (second.filter_strict or "")
    assert first.filter_strict is None or "strictly after" in first.filter_strict


def test_a_service_reading_updated_at_as_documented_is_not_taken_for_strict(sb, client, tmp_path):
    """The check for ``gt`` costs nothing on a service that reads ``>=``: no report, no loss."""
    _sync(client, tmp_path / "m")
    changes = Changes(sb.state, seed=2)
    changes.advance(60)
    changes.update("deals", 300)
    again = _sync(client, tmp_path / "m")["deals"]
    assert again.filter_strict is None and again.passes == 1
    _same(tmp_path / "m", sb)


def _without_updated_at_sort(doc: Any) -> Any:
    keys = doc["data"]["sort_fields"]
    doc["data"]["sort_fields"] = [k for k in keys if k != "updated_at"]
    return doc


def _refuse_sort(ex: Exchange) -> None:
    if isinstance(ex.body, dict) and ex.body.get("sort"):
        ex.forward, ex.status = False, 400
        errors = [f"sort: unknown key {ex.body['sort'].partition(':')[0]!r}"]
        ex.content = orjson.dumps(
            {
                "error": {
                    "code": "BAD_REQUEST",
                    "message": "Invalid request",
                    "details": {"errors": errors},
                }
            }
        )
        ex.headers["Content-Type"] = "application/json"


@pytest.mark.parametrize(
    ("where", "action", "finding", "said"),
    [
        (
            r"/lookup/transactions$",
            Action(
                "no updated_at sort key",
                on_response=lambda ex: ex.set_doc(_without_updated_at_sort(ex.doc())),
            ),
            "sort_unlisted",
            "lists no updated_at among the sort keys (a sort key among deal_date",
        ),
        (
            FEED,
            Action("sort refused", on_request=_refuse_sort),
            "sort_refused",
            "unknown key 'updated_at'",
        ),
    ],
    ids=["not-in-discovery", "refused"],
)
def test_a_service_without_the_updated_at_sort_is_said(
    sb, client, proxy, tmp_path, where, action, finding, said
):
    """A discovery document without ``updated_at`` among the sort keys raised a
    ``ValidationError`` of ``sort`` as if the caller had passed a wrong one (the caller passes
    none), and a 400 refusing the sort came out as the service's bare ``BadRequestError``. Both
    are now a ``ServiceContractError`` saying what the service did and that the walk needs that
    order; no table is written."""
    proxy.add(where, action)
    with pytest.raises(ServiceContractError) as caught:
        _sync(client, tmp_path / "m")
    assert caught.value.finding == finding
    assert said in str(caught.value) and "table is not written" in str(caught.value)
    assert mirror.status(tmp_path / "m")["version"].isna().all()


def _by_id(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: str(r.get("id")))


def test_a_feed_sorted_by_id_is_refused_before_the_table_is_written(sb, client, proxy, tmp_path):
    """Held: rows in id order (the sort ignored for the service's key order) break the
    ascending stamps the walk checks on every page."""
    proxy.add(FEED.replace("$", ""), _rows(_by_id, "by id"))
    with pytest.raises(ServiceContractError, match="not in the updated_at:asc order") as caught:
        _sync(client, tmp_path / "m")
    assert caught.value.finding == "unsorted_feed"
    assert mirror.status(tmp_path / "m")["version"].isna().all()


def _kolkata(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
    for row in rows:
        if isinstance(row.get("updated_at"), str):
            row["updated_at"] = (
                pd.Timestamp(row["updated_at"]).tz_convert("Asia/Kolkata").isoformat()
            )
    return rows


def _zulu(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
    for row in rows:
        if isinstance(row.get("updated_at"), str):
            row["updated_at"] = pd.Timestamp(row["updated_at"]).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return rows


@pytest.mark.parametrize("served", [_kolkata, _zulu], ids=["+05:30", "Z"])
def test_stamps_served_in_another_form_lose_and_double_nothing(sb, client, proxy, tmp_path, served):
    """Held: stamps served in another offset, or in ``Z`` with microseconds: a full pull then
    an incremental one over a tie larger than a page hold every record once, at its stamp (the
    same instant, in UTC). (Stamps cut to whole seconds are what the sandbox serves already.)"""
    proxy.add(FEED.replace("$", ""), _rows(served, served.__name__))
    _sync(client, tmp_path / "m")
    changes = Changes(sb.state, seed=3)
    changes.advance(60)
    changes.update("deals", 250)
    report = _sync(client, tmp_path / "m")["deals"]
    assert report.rows_differ is None and report.rows_received >= 250
    _same(tmp_path / "m", sb)


def test_a_row_without_updated_at_is_refused_naming_it(sb, client, proxy, tmp_path):
    """Held: a row whose ``updated_at`` is null cannot be placed by a walk over that stamp (and
    no later ``updated_at >=`` would return it): the sync says so and writes no table."""

    def null(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
        if rows:
            rows[0]["updated_at"] = None
        return rows

    proxy.add(FEED.replace("$", ""), _rows(null, "null"))
    with pytest.raises(ServiceContractError, match="row 1 has no updated_at") as caught:
        _sync(client, tmp_path / "m")
    assert caught.value.finding == "missing_field"
    assert mirror.status(tmp_path / "m")["version"].isna().all()


def test_a_record_changed_during_the_walk_is_held_once_at_its_newest(sb, client, proxy, tmp_path):
    """Held: a record read on page 1 is changed before page 2 (it comes twice in one walk,
    with two stamps): the table holds it once, at the newer version."""
    changes = Changes(sb.state, seed=4)
    first_page: list[str] = []

    def change_after_page_1(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
        if not first_page and rows:
            first_page.extend(r["id"] for r in rows[:3])
            changes.advance(60)
            changes.edit("deals", first_page, lambda d: d.update(deal_synopsis="Revised."))
        return rows

    proxy.add(FEED.replace("$", ""), _rows(change_after_page_1, "change"), times=1)
    report = _sync(client, tmp_path / "m")["deals"]
    got = _mirror(tmp_path / "m")
    assert len(first_page) == 3 and got["id"].is_unique
    assert report.table_rows == len(_service(sb)) and report.rows_received == report.table_rows
    assert (got.set_index("id").loc[first_page, "deal_synopsis"] == "Revised.").all()
    _same(tmp_path / "m", sb)


def _live_only(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
    return [r for r in rows if not r.get("deleted")]


def _feed_without_deleted(ex: Exchange) -> None:
    """The change feed answered without its deleted records, ``meta`` counting what is left."""
    doc = ex.doc()
    if not _feed(ex) or not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
        return
    kept = _live_only(doc["data"], ex)
    meta = doc.get("meta") or {}
    meta["total"] = meta.get("total", 0) - (len(doc["data"]) - len(kept))
    meta["returned"] = len(kept)
    doc["data"] = kept
    ex.set_doc(doc)


def test_soft_deletes_a_feed_leaves_out_are_said(sb, client, proxy, tmp_path):
    """A service that ignores ``include_deleted`` in the change feed: records soft-deleted after
    the first sync never arrive, and stayed live in the table. The counts with deleted records
    do not move on a soft delete, so nothing was said. The service's count of live records
    against the table's live rows now says it."""
    first = _sync(client, tmp_path / "m")["deals"]
    assert first.rows_differ is None
    changes = Changes(sb.state, seed=7)
    changes.advance(60)
    gone = changes.soft_delete("deals", 5)
    proxy.add(FEED, Action("include_deleted ignored", on_response=_feed_without_deleted))
    with pytest.warns(MirrorDivergenceWarning, match="rows not deleted") as caught:
        second = _sync(client, tmp_path / "m")["deals"]
    assert second.service_rows == second.table_rows  # the counts with deleted ones agree
    assert not _mirror(tmp_path / "m").set_index("id").loc[gone, "deleted"].any()
    live = len(_service(sb).query("not deleted"))
    said = f"holds {live + 5} rows not deleted and the service counts {live}"
    assert said in (second.rows_differ or "") and said in str(caught[0].message)


def test_records_deleted_after_the_last_page_are_not_taken_for_a_divergence(
    sb, client, proxy, tmp_path
):
    """Records soft-deleted while the sync runs, after its last page, are live in the table and
    not in the service's live count: the records changed since the checkpoint are read, and
    when those deleted explain the difference nothing is warned of."""
    _sync(client, tmp_path / "m")
    changes = Changes(sb.state, seed=8)
    deleted: list[str] = []

    def delete_before_the_count(ex: Exchange) -> None:
        if ex.body.get("limit") == 1 and not deleted:
            changes.advance(60)
            deleted.extend(changes.soft_delete("deals", 2))

    proxy.add(FEED, Action("delete", on_request=delete_before_the_count))
    with warnings.catch_warnings():
        warnings.simplefilter("error", MirrorDivergenceWarning)
        report = _sync(client, tmp_path / "m")["deals"]
    assert len(deleted) == 2 and report.rows_differ is None
    proxy.reset()
    _sync(client, tmp_path / "m")
    assert _mirror(tmp_path / "m").set_index("id").loc[deleted, "deleted"].all()


@pytest.mark.parametrize("served", ["absent", None, ""], ids=["absent", "null", "empty"])
def test_a_row_without_an_id_is_refused_before_anything_is_committed(
    sb, client, proxy, tmp_path, served
):
    """Held: a change-feed row without an ``id`` cannot be merged into the table by id. The
    sync raised a bare ``KeyError: None`` from its staging; now the page reader refuses the
    page with a typed error naming the entity and the page, and the table stays as it was
    (none on a first sync, its previous version on a later one)."""
    path = tmp_path / "m"
    _sync(client, path)
    before = mirror.status(path).set_index("entity").loc["deals", "version"]

    def no_id(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
        if rows:
            if served == "absent":
                rows[0].pop("id", None)
            else:
                rows[0]["id"] = served
        return rows

    proxy.add(FEED.replace("$", ""), _rows(no_id, "no_id"))
    for folder in (tmp_path / "new", path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the list call's own missing_identity warning
            with pytest.raises(ServiceContractError, match=r"deals.*page \d+.*have no id") as got:
                _sync(client, folder)
        assert got.value.finding == "missing_identity"
    assert mirror.status(tmp_path / "new")["version"].isna().all()
    assert mirror.status(path).set_index("entity").loc["deals", "version"] == before


def _unflag(changed: list[str], served: Any) -> Action:
    """The feed's rows of ``changed`` with ``deleted`` absent (``served`` "absent") or null."""

    def unflag(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
        for row in rows:
            if row.get("id") in changed:
                if served == "absent":
                    row.pop("deleted", None)
                else:
                    row["deleted"] = served
        return rows

    return _rows(unflag, "unflag")


@pytest.mark.parametrize("served", ["absent", None], ids=["absent", "null"])
def test_a_row_without_a_deleted_flag_is_refused_before_anything_is_committed(
    sb, client, proxy, tmp_path, served
):
    """Held: a change-feed row whose ``deleted`` is absent or null was stored as null without a
    word, and then ``status`` counted it live while ``load`` left it out. Now the page reader
    refuses the page with a typed error naming the entity, the page and the first ids, and the
    table stays at its previous version."""
    path = tmp_path / "m"
    _sync(client, path)
    before = mirror.status(path).set_index("entity").loc["deals", "version"]
    changes = Changes(sb.state, seed=9)
    changes.advance(3600)
    changed = changes.update("deals", 3)
    proxy.add(FEED.replace("$", ""), _unflag(changed, served))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the list call's own warnings, if any
        with pytest.raises(ServiceContractError, match=r"deals.*page \d+.*no deleted flag") as got:
            _sync(client, path)
    assert got.value.finding == "missing_field"
    assert any(ident in str(got.value) for ident in changed)
    assert mirror.status(path).set_index("entity").loc["deals", "version"] == before
    assert not mirror.load(path, "deals", include_deleted=True)["deleted"].isna().any()


def test_status_counts_live_rows_as_load_returns_them(sb, client, proxy, tmp_path, monkeypatch):
    """A table holding rows whose ``deleted`` is null (written before the feed's pages were
    checked for it; the check is switched off here to write one): ``status`` said
    ``live = rows - deleted`` (991 of 1000 with 9 deleted) while ``load`` returned 988. Now
    the live count is the rows ``load`` returns."""
    from dealframe.mirror.feed import ClientFetch

    monkeypatch.setattr(ClientFetch, "_check_deleted", lambda *a: None, raising=False)
    path = tmp_path / "m"
    _sync(client, path)
    changes = Changes(sb.state, seed=9)
    changes.advance(3600)
    changed = changes.update("deals", 3)
    proxy.add(FEED.replace("$", ""), _unflag(changed, None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _sync(client, path)
    stored = mirror.load(path, "deals", include_deleted=True)
    assert int(stored["deleted"].isna().sum()) == 3, "the test needs rows of unknown state"
    row = mirror.status(path).set_index("entity").loc["deals"]
    assert row["live"] == len(mirror.load(path, "deals"))
    assert row["deleted"] == int(stored["deleted"].eq(True).sum())


def _said_of_spelt_feed(
    client: Client,
    proxy: Any,
    path: Path,
    spell: Callable[[list[dict[str, Any]], Exchange], list[dict[str, Any]]],
    words: str,
) -> list[str]:
    """Sync deals through a feed whose rows ``spell`` rewrites, over several pages: the one
    warning holding ``words`` (asserted one: not one per page)."""
    proxy.add(FEED.replace("$", ""), _rows(spell, "spell"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = _sync(client, path)["deals"]
    assert report.requests > 2, "the test needs several pages"
    said = [str(w.message) for w in caught if words in str(w.message)]
    assert len(said) == 1, said
    return said


def test_numbers_written_as_text_in_the_feed_are_said_once_per_entity(sb, client, proxy, tmp_path):
    """A feed whose first deal of every page holds ``"deal_valuation": "123.5"``: the table
    holds 123.5 there, and the sync says it once for the entity (not once per page), naming
    the field; it was read without a word."""

    def spell(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
        if rows:
            rows[0]["deal_valuation"] = "123.5"
        return rows

    said = _said_of_spelt_feed(client, proxy, tmp_path / "m", spell, "written as text")
    assert said[0].startswith("the change feed of deals: deal_valuation: numbers written as text")
    assert (_mirror(tmp_path / "m")["deal_valuation"] == 123.5).sum() >= 2


def test_deleted_flags_written_as_text_in_the_feed_are_read_and_said_once(
    sb, client, proxy, tmp_path
):
    """A feed writing every ``deleted`` flag as text (``"true"``/``"false"``): the table holds
    the booleans they say, and the sync says so once for the entity, naming the field, as it
    says numbers written as text; they were read without a word."""

    def spell(rows: list[dict[str, Any]], ex: Exchange) -> list[dict[str, Any]]:
        for row in rows:
            row["deleted"] = str(row["deleted"]).lower()
        return rows

    said = _said_of_spelt_feed(client, proxy, tmp_path / "m", spell, "booleans written as text")
    assert said[0].startswith("the change feed of deals: deleted: booleans written as text")
    got, want = _mirror(tmp_path / "m"), _service(sb)
    assert got["id"].tolist() == want["id"].tolist()
    assert got["deleted"].tolist() == want["deleted"].tolist()
    assert want["deleted"].any() and not want["deleted"].all(), "the test needs both flags"
