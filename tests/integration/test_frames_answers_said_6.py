"""What the frames say of the data they are built from, over HTTP (sixth review of the frames).

- A call failed under ``strict=True`` (and counted, and named) because of a number written as
  text in a row ``limit`` cut away: only the rows returned are counted and named.
- ``attrs["labels_as_served"]`` did not follow the rows when a bucket came twice: one label a
  row, in the frame's order.
- Empty strings and text that is no finite number in a number field, and timestamps without
  an offset, were warned of directly: they are findings of the call (named by the endpoint,
  once per call and field, in ``attrs["findings"]``, raised under ``strict=True``).
- In items a user built, numbers written as text (and the other values above) were said as a
  ``ServiceContractWarning``: no service answered them; a ``DealframeWarning`` (exactly).
- numpy booleans were read as 1 or 0 in number fields of user items: refused, as Python's.
- ``pd.NA`` beside numpy numbers in an extra field of user items was refused: it is null.
- Deals read with their single forms, deleted ones included, said one finding twice, and
  never raised it under ``strict=True``.
- The ``unsorted`` finding named the labels rewritten, not as served; buckets keyed by label in
  a JSON object (whose members have no order) were said to be unsorted.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    direct,
    edit,
    fresh_rules,
    items_edit,
    outcome,
    proxy,
    via,
)
from _private_api import first_items

from dealframe import DealframeWarning, ServiceContractWarning
from dealframe.errors import ServiceContractError, ValidationError
from dealframe.frames import deals_frame, list_frame, list_page_columns

P = "/api/private/v1"
AGGREGATE = f"^{P}/transactions/aggregate$"
DEALS = f"^{P}/transactions$"
DEAL = f"^{P}/transactions/[^/]+$"


def _kinds(frame: pd.DataFrame) -> list[str]:
    return [f["kind"] for f in frame.attrs["findings"]]


def company_list(items: list[dict[str, Any]]) -> pd.DataFrame:
    """Company list items as ``client.private.companies()`` shapes a page of them."""
    return list_frame("companies", [list_page_columns("companies", items)])


# ------------------------------------------------------------ 1. rows cut by limit


def _last_valuation_as_text(doc: Any) -> Any:
    """The last deal with a valuation of the page holds it as text."""
    item = [i for i in doc["data"] if i.get("deal_valuation") is not None][-1]
    item["deal_valuation"] = str(item["deal_valuation"])
    return doc


def _first_valuation_as_text(doc: Any) -> Any:
    item = next(i for i in doc["data"] if i.get("deal_valuation") is not None)
    item["deal_valuation"] = str(item["deal_valuation"])
    return doc


def test_a_number_as_text_in_a_row_limit_cuts_is_no_finding(direct, via, proxy):
    want = direct.private.deals(limit=2500)
    proxy.add(DEALS, edit(_last_valuation_as_text), method="POST", page=3)
    o = outcome(lambda: via.private.deals(limit=2500, strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, want)
    assert "numbers_as_text" not in _kinds(o.value)
    assert o.caught == [], [str(w.message) for w in o.caught]


def test_numbers_as_text_count_and_name_the_rows_returned_only(direct, via, proxy):
    want = direct.private.deals(limit=2500)
    proxy.add(DEALS, edit(_last_valuation_as_text), method="POST", page=3)
    proxy.add(DEALS, edit(_first_valuation_as_text), method="POST", page=3)
    o = outcome(lambda: via.private.deals(limit=2500))
    assert o.error is None, repr(o.error)
    assert_same(o.value, want)
    listed = [f for f in o.value.attrs["findings"] if f["kind"] == "numbers_as_text"]
    assert len(listed) == 1, o.value.attrs["findings"]
    first = want.iloc[2000:]
    shown = first.loc[first["deal_valuation"].notna(), "id"].iloc[0]
    assert "in 1 of 2,500 values" in listed[0]["message"], listed
    assert f"id {shown})" in listed[0]["message"], listed


# ------------------------------------------------------------ 3. labels of a repeated bucket


def test_labels_as_served_follow_the_rows_when_a_bucket_is_repeated(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "year", deal_type=["Venture"])
    assert len(ref) > 3
    proxy.add(AGGREGATE, edit(lambda d: {**d, "data": [d["data"][0], *d["data"]][::-1]}))
    o = outcome(lambda: via.private.aggregate("valuation", "year", deal_type=["Venture"]))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert o.value.attrs["labels_as_served"] == ref.attrs["labels_as_served"]
    assert {"repeated_rows", "unsorted"} <= set(_kinds(o.value))


def _quarters_written_out(doc: Any) -> Any:
    """Buckets newest first, labelled ``Q1 2024`` (a form the document's readers take)."""
    for bucket in doc["data"]:
        year, quarter = bucket["bucket"].split("-")
        bucket["bucket"] = f"{quarter} {year}"
    doc["data"] = doc["data"][::-1]
    return doc


def test_labels_as_served_follow_rewritten_labels_of_a_repeated_bucket(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "quarter", deal_type=["Venture"])

    def doubled(doc: Any) -> Any:
        doc = _quarters_written_out(doc)
        doc["data"].insert(1, dict(doc["data"][0]))
        return doc

    proxy.add(AGGREGATE, edit(doubled))
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", deal_type=["Venture"]))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    served = [f"{b.split('-')[1]} {b.split('-')[0]}" for b in ref["bucket"]]
    assert o.value.attrs["labels_as_served"] == served


# ------------------------------------------------------------ 10. unsorted, as served


def test_unsorted_names_the_labels_as_served(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "quarter", deal_type=["Venture"])
    proxy.add(AGGREGATE, edit(_quarters_written_out))
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", deal_type=["Venture"]))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    unsorted = [f for f in o.value.attrs["findings"] if f["kind"] == "unsorted"]
    assert len(unsorted) == 1, o.value.attrs["findings"]
    last = ref["bucket"].iloc[-1].split("-")
    assert f"(first {last[1] + ' ' + last[0]!r}" in unsorted[0]["message"], unsorted
    assert o.warned(ServiceContractWarning) == [f"{unsorted[0]['where']}: {unsorted[0]['message']}"]


def _keyed(doc: Any, order: Any) -> Any:
    """The buckets as a JSON object keyed by label, its members in ``order``."""
    buckets = {b["bucket"]: {k: v for k, v in b.items() if k != "bucket"} for b in doc["data"]}
    doc["data"] = {label: buckets[label] for label in order(list(buckets))}
    return doc


@pytest.mark.parametrize(
    "order",
    [lambda labels: labels[::-1], lambda labels: sorted(labels, key=lambda b: b[::-1])],
    ids=["newest first", "sorted by quarter"],
)
def test_buckets_keyed_by_label_have_no_order_to_say(direct, via, proxy, order):
    ref = direct.private.aggregate("valuation", "quarter", deal_type=["Venture"])
    proxy.add(AGGREGATE, edit(lambda doc: _keyed(doc, order)))
    o = outcome(
        lambda: via.private.aggregate("valuation", "quarter", deal_type=["Venture"], strict=True)
    )
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert "unsorted" not in _kinds(o.value)
    assert o.value.attrs["labels_as_served"] == ref.attrs["labels_as_served"]


# ------------------------------------------------------------ 4. the other values, findings


def _odd_values(doc: Any) -> Any:
    """A blank valuation, an ``"Infinity"`` one, and a stamp without its offset."""
    data = [i for i in doc["data"] if i.get("deal_valuation") is not None]
    data[0]["deal_valuation"] = ""
    data[1]["deal_valuation"] = "Infinity"
    data[2]["updated_at"] = data[2]["updated_at"][:19]
    return doc


ODD_KINDS = {"empty_numbers", "not_finite", "no_offset"}


def test_blanks_infinity_and_stamps_without_offset_are_findings_of_the_call(via, proxy):
    proxy.add(DEALS, edit(_odd_values), method="POST")
    o = outcome(lambda: via.private.deals(limit=50))
    assert o.error is None, repr(o.error)
    found = [f for f in o.value.attrs["findings"] if f["kind"] in ODD_KINDS]
    assert sorted(f["kind"] for f in found) == sorted(ODD_KINDS), o.value.attrs["findings"]
    assert {f["where"] for f in found} == {f"POST {P}/transactions"}
    said = o.warned(ServiceContractWarning)
    assert sorted(said) == sorted(f"{f['where']}: {f['message']}" for f in found), said
    assert all(w.category is ServiceContractWarning for w in o.caught)


def test_blanks_infinity_and_stamps_without_offset_raise_under_strict(via, proxy):
    proxy.add(DEALS, edit(_odd_values), method="POST")
    o = outcome(lambda: via.private.deals(limit=50, strict=True))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert {f["kind"] for f in o.error.details["findings"]} == ODD_KINDS
    assert o.caught == [], [str(w.message) for w in o.caught]


# ------------------------------------------------------------ 5. user items: DealframeWarning


def test_what_is_said_of_user_items_is_a_dealframe_warning_exactly(sandbox):
    items = first_items(sandbox, "transactions", 4)
    items[0]["deal_valuation"] = "12.5"
    items[1]["deal_valuation"] = ""
    items[2]["deal_valuation"] = "Infinity"
    items[3]["updated_at"] = items[3]["updated_at"][:19]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        frame = deals_frame(items)
    assert frame["deal_valuation"].iloc[0] == 12.5 and "findings" not in frame.attrs
    texts = [str(w.message) for w in said]
    assert len(said) == 4, texts
    assert [w.category for w in said] == [DealframeWarning] * 4, texts
    assert any(t.startswith("deal_valuation: numbers written as text") for t in texts), texts
    assert any(t.startswith("updated_at: no offset") for t in texts), texts


# ------------------------------------------------------------ 6. numpy booleans in numbers


@pytest.mark.parametrize("flag", [True, np.bool_(True)], ids=["python", "numpy"])
def test_a_boolean_in_a_number_field_of_user_items_is_refused(sandbox, flag):
    items = first_items(sandbox, "transactions", 2)
    items[0]["deal_valuation"] = flag
    with pytest.raises(ValidationError, match="deal_valuation: expected numbers"):
        deals_frame(items)
    companies = first_items(sandbox, "companies", 2)
    companies[1]["founded"] = flag
    with pytest.raises(ValidationError, match="founded: expected numbers"):
        company_list(companies)


# ------------------------------------------------------------ 7. pd.NA beside numbers


@pytest.mark.parametrize(
    "number", [np.int64(3), 3, np.float64(2.5)], ids=["np.int64", "int", "np.float64"]
)
def test_pd_na_beside_numbers_in_an_extra_field_of_user_items_is_null(sandbox, number):
    items = first_items(sandbox, "companies", 3)
    items[0]["score"] = number
    items[1]["score"] = pd.NA
    items[2]["score"] = pd.NaT if isinstance(number, np.generic) else np.nan
    frame = company_list(items)
    assert str(frame["score"].dtype) == "float64"
    assert frame["score"].iloc[0] == float(number)
    assert frame["score"].iloc[1:].isna().all()


def test_pd_na_in_a_known_number_field_of_user_items_is_null(sandbox):
    items = first_items(sandbox, "companies", 3)
    items[0]["founded"] = np.int64(1999)
    items[1]["founded"] = pd.NA
    frame = company_list(items)
    assert frame["founded"].iloc[0] == 1999 and pd.isna(frame["founded"].iloc[1])


# ------------------------------------------------------------ 9. profiles of live and deleted


def _founded_as_text(item: dict[str, Any]) -> None:
    target = item.get("target")
    if isinstance(target, dict) and target.get("founded") is not None:
        target["founded"] = str(target["founded"])


def _live_and_deleted(client: Any) -> list[str]:
    rows = client.private.deals(include_deleted=True, limit=1000)
    live = rows.loc[~rows["deleted"].fillna(False).astype(bool), "id"].head(2).tolist()
    gone = rows.loc[rows["deleted"].fillna(False).astype(bool), "id"].head(2).tolist()
    assert len(live) == 2 and len(gone) == 2
    return live + gone


def test_profiles_of_live_and_deleted_deals_say_one_finding_per_field(direct, via, proxy):
    ids = _live_and_deleted(direct)
    want = direct.private.deals(id=ids, include_deleted=True, with_investors=True)
    proxy.add(DEAL, items_edit(_founded_as_text), method="GET")
    o = outcome(lambda: via.private.deals(id=ids, include_deleted=True, with_investors=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, want)
    listed = [f for f in o.value.attrs["profiles"]["findings"] if f["kind"] == "numbers_as_text"]
    assert len(listed) == 1, o.value.attrs["profiles"]["findings"]
    assert "in 4 of 4 values" in listed[0]["message"], listed
    said = o.warned(ServiceContractWarning)
    assert said == [f"{listed[0]['where']}: {listed[0]['message']}"], said


def test_profile_findings_of_deals_raise_under_strict(direct, via, proxy):
    ids = _live_and_deleted(direct)
    proxy.add(DEAL, items_edit(_founded_as_text), method="GET")
    o = outcome(
        lambda: via.private.deals(id=ids, include_deleted=True, with_investors=True, strict=True)
    )
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert "founded: numbers written as text" in str(o.error)
    assert o.caught == [], [str(w.message) for w in o.caught]
