"""Family B answers written another way than the sandbox writes them, over the drift proxy.

Each test rewrites the sandbox's answers into a service that decides a point the interface
document leaves open another way (or breaks it), and asserts that the client reads the same
frame as one talking to the sandbox directly, or says exactly what it saw: never an endless
walk, a flood of warnings, an empty frame or an error that blames the caller.
"""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    assert_same,
    clamp_limit,
    direct,
    edit,
    fresh_rules,
    ignore_page,
    meta_delete,
    meta_set,
    no_hang,
    outcome,
    proxy,
    via,
    wire_rows,
)

from dealframe import analytics, doctor
from dealframe.errors import IncompleteResultError, ServiceContractError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
AGGREGATE = f"^{P}/transactions/aggregate$"
INVESTMENTS = f"^{P}/investors/[^/]+/investments$"
#: A cohort whose reconciliation is cheap (a few hundred deals) and has several year buckets.
VENTURE = {"deal_type": ["Venture"]}


@pytest.fixture(scope="module")
def companies_ref(direct: Any) -> Any:
    frame = direct.private.companies()
    assert 1000 < len(frame) < 3000, "the tests need two pages, and not many more"
    return frame


@pytest.fixture(scope="module")
def wire_companies(sandbox: Any) -> list[dict[str, Any]]:
    """Every company as the sandbox writes it (the rows a shuffling service draws from)."""
    return wire_rows(sandbox, "/companies")


def drawn(rows: list[dict[str, Any]], whole: bool) -> Action:
    """Each answer's rows drawn anew, in another order each time (a query with no ORDER BY):
    the same rows of the page reordered (``whole`` False), or any of ``rows``."""
    seeds = itertools.count()

    def apply(doc: Any) -> Any:
        pick = random.Random(next(seeds))
        doc["data"] = pick.sample(rows if whole else doc["data"], len(doc["data"]))
        return doc

    return edit(apply, "drawn")


def kinds(frame: Any) -> set[str]:
    return {f["kind"] for f in frame.attrs["findings"]}


# ------------------------------------------------------------------------------------ paging


def test_a_list_ignoring_page_and_reordering_its_rows_ends_after_its_total(
    via, proxy, companies_ref, wire_companies
):
    """Every request gets 1000 of the companies in a new order, page ignored, has_more always
    true: past meta.total, a page mostly of rows read before ends the walk (it used to walk
    on for 100,000 pages). The rows that arrived are kept, once each; strict says how many
    are missing."""
    proxy.add(COMPANIES, ignore_page(), drawn(wire_companies, whole=True))
    o = outcome(lambda: via.private.companies())
    assert o.error is None, repr(o.error)
    # pages 1 and 2 (meta.total), then past it until a page mostly of rows read before (on
    # page 1 or past the total: the planned pages are not hashed): one or two more
    assert 3 <= proxy.count(COMPANIES) <= 4
    got = o.value
    assert got["id"].is_unique and set(got["id"]) < set(companies_ref["id"])
    assert {"repeated_page", "count_mismatch"} <= kinds(got)
    assert any("past the" in m and "earlier pages" in m for m in o.warned(ServiceContractWarning))
    error = outcome(lambda: via.private.companies(strict=True)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.expected == len(companies_ref) > error.received


def test_a_list_ignoring_page_that_reorders_page_1_stops_past_its_total(via, proxy):
    """Every page holds page 1's rows in another order, has_more always true: page 3, past
    meta.total, brings no new row and the walk stops (only an exact repeat of an earlier
    page used to stop it: it walked on for 100,000 pages)."""
    proxy.add(COMPANIES, ignore_page(), drawn([], whole=False))
    o = outcome(lambda: via.private.companies())
    assert o.error is None, repr(o.error)
    assert proxy.count(COMPANIES) == 3
    assert len(o.value) == 1000 and "repeated_page" in kinds(o.value)
    assert any("page 3 repeats" in m for m in o.warned(ServiceContractWarning))


def test_a_list_without_total_ignoring_page_and_reordering_stops_at_page_2(via, proxy):
    """Without meta.total every page is checked against the rows read before: page 2, page
    1's rows in another order, ends the walk."""
    proxy.add(COMPANIES, ignore_page(), drawn([], whole=False), meta_delete("total"))
    o = outcome(lambda: via.private.companies())
    assert o.error is None, repr(o.error)
    assert proxy.count(COMPANIES) == 2
    assert len(o.value) == 1000 and "repeated_page" in kinds(o.value)


def test_a_clamp_that_repeats_the_limit_asked_is_read_at_the_size_served(via, proxy, companies_ref):
    """100 rows a page while meta.limit says the 1000 asked, meta.returned 100: the walk reads
    pages of 100 from page 2 on, each once, and says 100 in attrs (it said 1000)."""
    proxy.add(COMPANIES, clamp_limit(100), meta_set(limit=1000))
    o = outcome(lambda: via.private.companies(strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert o.value.attrs["page_size"] == 100
    assert sorted(proxy.pages(COMPANIES)) == list(range(1, -(-len(companies_ref) // 100) + 1))


def as_text() -> Action:
    """Every ``meta`` value written as text: ``{"total": "15", "has_more": "false"}``."""

    def apply(doc: Any) -> Any:
        doc["meta"] = {k: str(v).lower() for k, v in doc["meta"].items()}
        return doc

    return edit(apply, "meta as text")


def test_meta_written_as_text_is_read_and_said_once_per_call(direct, via, proxy):
    """Sub-collection answers whose meta is all text: one request per investor (has_more
    "false" is read), the same rows, and one warning for the call (it was five per page,
    and a second request for each investor)."""
    ids = direct.private.investors()["id"].tolist()[:40]
    ref = direct.private.investments(ids)
    proxy.add(INVESTMENTS, as_text())
    o = outcome(lambda: via.private.investments(ids))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert proxy.count(INVESTMENTS) == len(ids)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "meta.total, meta.returned" in said[0] and "as text" in said[0]


def test_list_meta_written_as_text_is_read(via, proxy, companies_ref):
    proxy.add(COMPANIES, as_text())
    o = outcome(lambda: via.private.companies())
    assert_same(o.value, companies_ref, ignore_index=True)
    assert proxy.count(COMPANIES) == 2
    assert len(o.warned(ServiceContractWarning)) == 1


# ---------------------------------------------------------------------------------- resolve


def test_resolve_results_in_another_order_are_paired_without_a_warning(direct, via, proxy):
    names = direct.private.companies(limit=40)["name"].tolist()
    ref = direct.private.resolve_companies(names).matches

    def reverse(doc: Any) -> Any:
        doc["data"] = doc["data"][::-1]
        return doc

    proxy.add(f"^{P}/companies/resolve$", edit(reverse))
    o = outcome(lambda: via.private.resolve_companies(names))
    assert o.error is None, repr(o.error)
    assert_same(o.value.matches, ref)
    assert not o.warned(Warning) and o.value.matches.attrs["findings"] == []


# -------------------------------------------------------------------------------- aggregate


def _buckets(edit_doc: Any) -> Action:
    return edit(edit_doc, "aggregate")


def test_aggregate_buckets_keyed_by_label_are_read_and_reconcile(direct, via, proxy):
    """``data: {"2022": {n, median, ...}, ...}``: the same frame as the list of buckets
    (it was an empty frame, and a reconciliation of nothing)."""
    ref = direct.private.aggregate("ev_revenue", "year", VENTURE)

    def keyed(doc: Any) -> Any:
        doc["data"] = {bucket.pop("bucket"): bucket for bucket in doc["data"]}
        return doc

    proxy.add(AGGREGATE, _buckets(keyed))
    o = outcome(lambda: via.private.aggregate("ev_revenue", "year", VENTURE))
    assert o.error is None and not o.warned(Warning), (o.error, o.warned(Warning))
    assert_same(o.value, ref)
    rec = analytics.reconcile(via, "ev_revenue", "year", VENTURE, progress=False)
    assert rec.frame["match"].all() and len(rec.frame) == len(ref) > 2, rec.summary


def test_the_doctor_reads_aggregate_buckets_keyed_by_label(via, proxy):
    """The doctor's label and suppression checks read the buckets as the client does: keyed
    by label they are adapted to, not reported as breaking."""

    def keyed(doc: Any) -> Any:
        doc["data"] = {bucket.pop("bucket"): bucket for bucket in doc["data"]}
        return doc

    proxy.add(AGGREGATE, _buckets(keyed))
    diagnosis = doctor(via)
    checks = {c.name: c for c in diagnosis.checks}
    for name in ("B.aggregate.labels.quarter", "B.aggregate.labels.month"):
        assert checks[name].verdict == "adapted", checks[name]
        assert "keyed by label" in checks[name].observed
    assert checks["B.aggregate.suppression"].verdict == "holds"


def test_aggregate_data_object_of_no_buckets_is_said_and_not_reconciled(via, proxy):
    """An object that is neither buckets by label nor one bucket: its keys are named, and
    reconcile refuses to compare the local buckets with none."""

    def wrapped(doc: Any) -> Any:
        doc["data"] = {"buckets": doc["data"], "total": len(doc["data"])}
        return doc

    proxy.add(AGGREGATE, _buckets(wrapped))
    o = outcome(lambda: via.private.aggregate("ev_revenue", "year", VENTURE))
    assert o.error is None and o.value.empty
    assert any("'buckets', 'total'" in m for m in o.warned(ServiceContractWarning))
    refused = outcome(lambda: analytics.reconcile(via, "ev_revenue", "year", VENTURE))
    assert isinstance(refused.error, ServiceContractError), repr(refused.error)
    assert "nothing to reconcile against" in str(refused.error)
    assert "'buckets', 'total'" in str(refused.error)


def test_aggregate_window_with_times_and_threshold_as_text_reconcile(direct, via, proxy):
    """``date_range`` written with times of day and ``small_n_threshold`` as "5": read (it
    raised a ValidationError about a date_from the user never passed, or said the
    methodology was absent)."""
    ref = analytics.reconcile(direct, "ev_revenue", "year", VENTURE, progress=False)

    def timed(doc: Any) -> Any:
        methodology = doc["meta"]["methodology"]
        methodology["date_range"]["from"] += "T00:00:00Z"
        methodology["date_range"]["to"] += "T23:59:59.999+00:00"
        methodology["small_n_threshold"] = str(methodology["small_n_threshold"])
        return doc

    proxy.add(AGGREGATE, _buckets(timed))
    rec = analytics.reconcile(via, "ev_revenue", "year", VENTURE, progress=False)
    assert rec.summary == ref.summary and rec.frame["match"].all()
    window = rec.frame.attrs["service_meta"]["date_range"]
    assert window == ref.frame.attrs["service_meta"]["date_range"]


def test_aggregate_window_that_is_no_date_names_the_meta_field(via, proxy):
    def undated(doc: Any) -> Any:
        doc["meta"]["methodology"]["date_range"]["from"] = "the beginning"
        return doc

    proxy.add(AGGREGATE, _buckets(undated))
    with pytest.raises(ServiceContractError) as caught:
        analytics.reconcile(via, "ev_revenue", "year", VENTURE, progress=False)
    assert "meta.methodology.date_range.from is 'the beginning'" in str(caught.value)
    assert "expected a date YYYY-MM-DD" in str(caught.value)


def test_aggregate_without_meta_says_what_is_unknown_not_paging(direct, via, proxy):
    ref = direct.private.aggregate("ev_revenue", "year", VENTURE)

    def no_meta(doc: Any) -> Any:
        del doc["meta"]
        return doc

    proxy.add(AGGREGATE, _buckets(no_meta))
    o = outcome(lambda: via.private.aggregate("ev_revenue", "year", VENTURE))
    assert o.error is None
    assert o.value[["bucket", "n", "median"]].equals(ref[["bucket", "n", "median"]])
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "no meta" in said[0] and "total_deals" in said[0]
    assert "paged" not in said[0]


def test_aggregate_warning_objects_are_json_text(direct, via, proxy):
    """A bucket ``warning`` sent as an object is JSON in the column (it was Python's repr);
    an empty list is no warning."""
    ref = direct.private.aggregate("ev_revenue", "quarter", VENTURE)
    assert ref["warning"].isna().any() and ref["warning"].notna().any()

    def objects(doc: Any) -> Any:
        for bucket in doc["data"]:
            warning = bucket["warning"]
            bucket["warning"] = [] if warning is None else {"code": warning, "n": bucket["n"]}
        return doc

    proxy.add(AGGREGATE, _buckets(objects))
    got = via.private.aggregate("ev_revenue", "quarter", VENTURE)
    want = [
        None if pd.isna(w) else f'{{"code":"{w}","n":{n}}}'
        for w, n in zip(*ref[["warning", "n"]].T.values)
    ]
    assert [None if pd.isna(w) else w for w in got["warning"]] == want
