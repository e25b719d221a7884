"""The mirror against services whose change feed breaks its contract, over real HTTP.

The feed walk trusts the service on three things: rows come ``updated_at:asc``, the
``updated_at >= cursor`` filter holds, and ``include_deleted`` is honoured. It also takes the
newest stamp as the next checkpoint, and cannot see a record deleted outright. Each test serves
the sandbox with its transactions route changed into one such service (the switch ``SERVE``,
set per test) and asserts that the sync raises a typed error before writing the table, or says
in its report and a :class:`MirrorDivergenceWarning` what it saw: never a silently divergent
mirror, never an endless sync (``no_hang`` fails a test that runs past ``HANG_LIMIT``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe.sandbox
from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import ServiceContractError
from dealframe.mirror.errors import MirrorDivergenceWarning, MirrorRepairWarning
from dealframe.sandbox.changes import Changes
from dealframe.sandbox.profiles import Profile, _after, _edit

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import no_hang  # noqa: F401 - an autouse fixture, used by name

HANG_LIMIT = 60
#: How the transactions route answers in the current test: ``rewrite(request) -> request``
#: before the sandbox reads it, ``change(request, doc) -> doc`` after.
SERVE: dict[str, Callable[..., Any]] = {}


def _switched(handler: Any) -> Any:
    def wrapped(request: Any, models: Any) -> bytes:
        return handler(SERVE.get("rewrite", lambda r: r)(request), models)

    return _after(lambda request, doc: SERVE.get("change", lambda r, d: d)(request, doc))(wrapped)


SWITCHED = Profile(
    name="feed-switch",
    point="the change feed's contract",
    serves="the transactions route, changed by each test",
    urls=_edit("POST", "/api/private/v1/transactions", _switched),
)


@pytest.fixture(scope="module")
def _served() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.02, seed=31, profile=SWITCHED) as sandbox:
        yield sandbox


@pytest.fixture()
def sb(_served: Any) -> Iterator[Any]:
    """The module's sandbox at its generated data, serving as documented unless told."""
    SERVE.clear()
    _served.reset()
    yield _served
    SERVE.clear()
    _served.reset()


@pytest.fixture()
def client(sb: Any) -> Iterator[Client]:
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as c:
        yield c


def _body(request: Any, **changes: Any) -> Any:
    return dataclasses.replace(request, body={**request.body, **changes})


def _filters_without(name: str, only_feed: bool = False) -> Callable[[Any], Any]:
    def rewrite(request: Any) -> Any:
        filters = dict(request.body.get("filters") or {})
        if only_feed and "updated_at" not in filters:
            return request
        filters.pop(name, None)
        return _body(request, filters=filters)

    return rewrite


def _sort(value: str | None) -> Callable[[Any], Any]:
    def rewrite(request: Any) -> Any:
        if not request.body.get("sort"):
            return request
        body = {k: v for k, v in request.body.items() if k != "sort"}
        return dataclasses.replace(request, body=body if value is None else {**body, "sort": value})

    return rewrite


def _sync(client: Client, path: Path, **kw: Any) -> Any:
    kw.setdefault("page_size", 200)
    return mirror.sync(client, path, entities=("deals",), progress=False, **kw)


def _service(client: Client) -> pd.DataFrame:
    return client.private.deals(include_deleted=True).sort_values("id", ignore_index=True)


def _stamp(sb: Any, ident: str, stamp: str) -> None:
    """Give one deal the ``updated_at`` of a clock gone wrong (Changes stamps the right one)."""
    store = sb.state.private.deals
    row = store.row_of[ident]
    record = store.record(row)
    record["updated_at"] = stamp
    store.apply(store.prepare(sb.state.private.spec(store), row, record))
    sb.state.private.refresh()


@pytest.mark.parametrize(
    ("rewrite", "finding", "said"),
    [
        (_sort(None), "unsorted_feed", "not in the updated_at:asc order"),
        (_sort("updated_at:desc"), "unsorted_feed", "not in the updated_at:asc order"),
        (_filters_without("updated_at"), "filter_ignored", "ignores the updated_at filter"),
    ],
    ids=["sort-ignored", "sort-descending", "updated-at-ignored"],
)
def test_a_feed_out_of_order_or_unfiltered_is_refused_before_the_table_is_written(
    sb, client, tmp_path, rewrite, finding, said
):
    """A service ignoring ``sort`` made the walk take a page's last stamp as its cursor and
    skip rows (1,168 of 2,500 lost, silently, for good); one sorting descending, or ignoring
    the ``updated_at`` filter, made it ask for the same rows forever (about 40 requests a
    second). Now the first page that breaks the order or lies below the cursor raises."""
    SERVE["rewrite"] = rewrite
    with pytest.raises(ServiceContractError) as caught:
        _sync(client, tmp_path / "m")
    assert caught.value.finding == finding
    assert said in str(caught.value) and "table is not written" in str(caught.value)
    assert mirror.status(tmp_path / "m")["version"].isna().all()  # no table


def test_a_feed_ignoring_the_filter_on_a_later_sync_is_refused_too(sb, client, tmp_path):
    """The first sync reads everything; the next one, from its checkpoint, meets a service
    that ignores ``updated_at``: its first page is below the cursor, and the sync stops at
    once, leaving the table as it was."""
    _sync(client, tmp_path / "m")
    Changes(sb.state, seed=2).update("deals", 3)
    SERVE["rewrite"] = _filters_without("updated_at")
    with (
        warnings.catch_warnings(record=True) as seen,
        pytest.raises(ServiceContractError, match="below the cursor") as caught,
    ):
        warnings.simplefilter("always")
        _sync(client, tmp_path / "m")
    assert caught.value.finding == "filter_ignored"
    assert mirror.status(tmp_path / "m")["version"].dropna().tolist() == [0]
    # said once, by the error: not also by page()'s finding of the rows it kept
    assert not [w for w in seen if "the filters sent" in str(w.message)], [
        str(w.message) for w in seen
    ]


def test_a_row_stamped_in_the_future_does_not_move_the_checkpoint(sb, client, tmp_path):
    """One record stamped years ahead (a clock gone wrong) used to become the checkpoint: every
    later change, stamped by the right clock, was below it and never read. Now the checkpoint
    stays at the newest stamp not after the sync's start, the report and a warning say so,
    and the next sync reads the later changes (and that row again)."""
    changes = Changes(sb.state, seed=3)
    _stamp(sb, changes.update("deals", 1)[0], "2099-01-01T00:00:00Z")
    with pytest.warns(MirrorDivergenceWarning, match="1 row.s. stamped after"):
        first = _sync(client, tmp_path / "m")["deals"]
    assert "2099-01-01" in (first.stamped_ahead or "")
    assert pd.Timestamp(first.checkpoint) <= pd.Timestamp(changes.now())
    changes.advance(3600)
    later = changes.update("deals", 4)
    with pytest.warns(MirrorDivergenceWarning):
        second = _sync(client, tmp_path / "m")["deals"]
    assert "2099-01-01" in (second.stamped_ahead or "")  # read again, said again
    assert pd.Timestamp(second.checkpoint) <= pd.Timestamp(changes.now())
    got = mirror.load(tmp_path / "m", "deals", include_deleted=True).sort_values(
        "id", ignore_index=True
    )
    want = _service(client)
    assert got["updated_at"].equals(want["updated_at"])
    assert set(later) <= set(got["id"])


def test_warnings_made_errors_come_after_every_entity_is_synced(sb, client, tmp_path):
    """With warnings turned into errors (``-W error``), the first entity's divergence warning
    was raised inside the sync's loop: the entities after it were never synced and the
    staging folder stayed. Now the warnings are emitted after the loop, the sync complete."""
    _stamp(sb, Changes(sb.state, seed=5).update("deals", 1)[0], "2099-01-01T00:00:00Z")
    with warnings.catch_warnings(), pytest.raises(MirrorDivergenceWarning, match="stamped after"):
        warnings.simplefilter("error")
        mirror.sync(client, tmp_path / "m", ("deals", "companies"), progress=False)
    status = mirror.status(tmp_path / "m").set_index("entity")
    assert status.loc[["deals", "companies"], "version"].tolist() == [0, 0]
    assert status.loc["companies", "rows"] == len(client.private.companies(include_deleted=True))
    assert not (tmp_path / "m" / "_staging").exists()


def test_a_checkpoint_already_past_the_clock_is_rebuilt_from_a_full_pull(sb, client, tmp_path):
    """A mirror whose checkpoint a row stamped ahead had moved into the future (as earlier
    versions did; here: an overlap of a century lets it) read nothing of what changed after:
    the next sync sees the checkpoint after this machine's clock and pulls everything again."""
    changes = Changes(sb.state, seed=4)
    _stamp(sb, changes.update("deals", 1)[0], "2099-01-01T00:00:00Z")
    century = dt.timedelta(days=36600)
    assert _sync(client, tmp_path / "m", overlap=century)["deals"].checkpoint.startswith("2099")
    changes.advance(3600)
    changes.update("deals", 4)
    with (
        pytest.warns(MirrorDivergenceWarning, match="stamped after"),  # the row is still ahead
        pytest.warns(MirrorRepairWarning, match="after this machine's clock"),
    ):
        again = _sync(client, tmp_path / "m")["deals"]
    assert again.full and again.checkpoint is not None and again.checkpoint < "2099"
    assert "2099-01-01" in (again.stamped_ahead or "")
    got = mirror.load(tmp_path / "m", "deals", include_deleted=True)
    assert got.sort_values("id", ignore_index=True)["updated_at"].equals(
        _service(client)["updated_at"]
    )


def test_a_feed_ignoring_include_deleted_is_said(sb, client, tmp_path):
    """A service that leaves deleted records out of the change feed (``include_deleted``
    ignored when ``updated_at`` filters) used to give a mirror short of its deleted records,
    silently. The service's count against the table's rows now says it."""
    SERVE["rewrite"] = _filters_without("include_deleted", only_feed=True)
    with pytest.warns(MirrorDivergenceWarning, match="include_deleted") as caught:
        report = _sync(client, tmp_path / "m")["deals"]
    want = _service(client)
    deleted = int(want["deleted"].sum())
    assert deleted > 0
    assert report.service_rows == len(want)
    # the first page (no updated_at filter) had them: the pages after it did not
    assert len(want) - deleted <= report.table_rows < len(want)
    said = f"holds {report.table_rows} rows and the service counts {len(want)}"
    assert said in (report.rows_differ or "") and said in str(caught[0].message)


def test_records_deleted_outright_are_said(sb, client, tmp_path):
    """A record deleted outright never appears in the change feed: it stayed live in the
    mirror forever, nothing said. The next sync compares the counts and says so."""
    first = _sync(client, tmp_path / "m")["deals"]
    assert first.rows_differ is None and first.service_rows == first.table_rows > 200
    gone = set(_service(client)["id"].head(2))

    def hide(request: Any, doc: Any) -> Any:
        doc["data"] = [d for d in doc["data"] if d["id"] not in gone]
        doc["meta"]["total"] -= len(gone)  # the service's count drops with them
        doc["meta"]["returned"] = len(doc["data"])
        return doc

    SERVE["change"] = hide
    with pytest.warns(MirrorDivergenceWarning, match="deleted outright"):
        second = _sync(client, tmp_path / "m")["deals"]
    assert (second.table_rows, second.service_rows) == (first.table_rows, first.table_rows - 2)
    assert "deleted outright" in (second.rows_differ or "")


def test_records_created_after_the_last_page_are_not_taken_for_a_divergence(sb, client, tmp_path):
    """Records created while a sync runs, after its last page, made the service count more
    than the table: a MirrorDivergenceWarning, though nothing was wrong. The records changed
    since the checkpoint are now read and looked up in the table: a difference they explain is
    said in ``rows_differ``, without a warning, and the next sync reads them."""
    changes = Changes(sb.state, seed=9)
    created: list[str] = []

    def create_before_the_count(request: Any) -> Any:
        filters = request.body.get("filters") or {}
        if request.body.get("limit") == 1 and "updated_at" not in filters and not created:
            changes.advance(60)
            created.extend(changes.insert("deals", 3))
        return request

    SERVE["rewrite"] = create_before_the_count
    with warnings.catch_warnings():
        warnings.simplefilter("error", MirrorDivergenceWarning)
        first = _sync(client, tmp_path / "m")["deals"]
    assert len(created) == 3
    assert first.service_rows == first.table_rows + 3
    assert "3 more than the table's" in (first.rows_differ or "")
    assert "the next sync reads them" in (first.rows_differ or "")
    SERVE.clear()
    second = _sync(client, tmp_path / "m")["deals"]
    assert second.rows_differ is None and second.table_rows == second.service_rows
    assert set(created) <= set(mirror.load(tmp_path / "m", "deals", include_deleted=True)["id"])


def test_a_shortfall_the_late_records_do_not_explain_is_still_warned_of(sb, client, tmp_path):
    """Records created after the last page, and one the change feed leaves out: the late
    records explain part of the difference only, so the warning stands."""
    changes = Changes(sb.state, seed=10)
    assert _sync(client, tmp_path / "m")["deals"].rows_differ is None
    changes.advance(60)
    hidden = set(changes.insert("deals", 1))
    created: list[str] = []

    def create_before_the_count(request: Any) -> Any:
        filters = request.body.get("filters") or {}
        if request.body.get("limit") == 1 and "updated_at" not in filters and not created:
            changes.advance(60)
            created.extend(changes.insert("deals", 2))
        return request

    def leave_out(request: Any, doc: Any) -> Any:
        if "updated_at" in (request.body.get("filters") or {}):
            kept = [d for d in doc["data"] if d["id"] not in hidden]
            doc["meta"]["total"] -= len(doc["data"]) - len(kept)
            doc["data"], doc["meta"]["returned"] = kept, len(kept)
        return doc

    SERVE["rewrite"], SERVE["change"] = create_before_the_count, leave_out
    with pytest.warns(MirrorDivergenceWarning, match="records created while the sync ran"):
        second = _sync(client, tmp_path / "m")["deals"]
    assert len(created) == 2
    assert second.service_rows is not None and second.table_rows is not None
    assert second.service_rows - second.table_rows == 3  # 2 late, 1 the feed left out
