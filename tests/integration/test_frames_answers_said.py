"""What the frames say of the data they are built from, over HTTP (fifth review of the frames).

- Items a user built, holding numpy's numbers and booleans in fields the schema does not know
  (``np.float64(2.5)``, ``np.int64(3)``, ``np.bool_(True)``, as ``arr[i]``, ``series.iloc[i]``
  and numpy arithmetic give them; ``df.to_dict("records")`` gives Python's with pandas 3),
  became text columns: they are numbers and booleans, as Python's are.
- An extra column named otherwise than it asked, in items the user built, was said as a
  ``ServiceContractWarning``: no service answered them. It is a ``DealframeWarning``; the
  client's answers keep the ``ServiceContractWarning``.
- Aggregate buckets served in another order than time order were kept in the served order
  without a word (the document does not say the order): they are sorted, said (``unsorted``)
  and listed in ``attrs["findings"]``.
- Numbers (and booleans) written as text were warned of but not listed in
  ``attrs["findings"]`` where every other adaptation of an answer is: they are, once per call,
  with no second warning.
"""

from __future__ import annotations

import random
import sys
import warnings
from collections.abc import Callable
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
from dealframe.errors import ServiceContractError
from dealframe.frames import deals_frame, list_frame, list_page_columns

P = "/api/private/v1"
AGGREGATE = f"^{P}/transactions/aggregate$"
DEALS = f"^{P}/transactions$"
PROFILE = f"^{P}/companies/[^/]+$"
CURRENT = "^/api/v2/companies/current$"


def company_list(items: list[dict[str, Any]]) -> pd.DataFrame:
    """Company list items as ``client.private.companies()`` shapes a page of them."""
    return list_frame("companies", [list_page_columns("companies", items)])


# ---------------------------------------------------------------- numpy values in user items


def test_numpy_numbers_and_booleans_in_items_a_user_built_are_numbers_and_booleans(sandbox):
    items = first_items(sandbox, "companies", 4)
    for i, item in enumerate(items):
        item["score"] = np.float64(i + 0.5)
        item["rank"] = np.int64(i)
        item["small"] = np.float32(1.5) if i % 2 else np.uint8(i)
        item["flagged"] = np.bool_(i % 2 == 0)
        item["big"] = np.uint64(2**64 - 1)
    frame = company_list(items)
    assert str(frame["score"].dtype) == "float64"
    assert frame["score"].tolist() == [0.5, 1.5, 2.5, 3.5]
    assert str(frame["rank"].dtype) == "float64" and frame["rank"].tolist() == [0, 1, 2, 3]
    assert frame["small"].tolist() == [0.0, 1.5, 2.0, 1.5]
    assert str(frame["flagged"].dtype) == "boolean"
    assert frame["flagged"].tolist() == [True, False, True, False]
    assert frame["big"].tolist() == [float(2**64 - 1)] * 4  # not read as -1


def test_numpy_numbers_in_a_user_built_deal_and_its_target_are_numbers(sandbox):
    items = first_items(sandbox, "transactions", 3)
    for i, item in enumerate(items):
        item["weight"] = np.float64(i)
        item["target"] = {**item["target"], "employees": np.int64(10 * i)}
    frame = deals_frame(items)
    assert str(frame["weight"].dtype) == "float64" and frame["weight"].tolist() == [0, 1, 2]
    assert str(frame["target_employees"].dtype) == "float64"
    assert frame["target_employees"].tolist() == [0, 10, 20]


# ---------------------------------------------------------- an extra column named otherwise


def _renamed(said: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in said if "free names" in str(w.message)]


def test_a_renamed_extra_of_user_items_is_said_as_the_users_data_not_the_services(sandbox):
    items = first_items(sandbox, "transactions", 3)
    for item in items:
        item["target_7"] = "top"
        item["target"] = {**item["target"], "7": "nested"}
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        frame = deals_frame(items)
    assert frame.attrs["extra_names"] == {"target_7_2": ["target", "7"]}
    renamed = _renamed(said)
    assert [w.category for w in renamed] == [DealframeWarning], [str(w.message) for w in said]
    assert not any(issubclass(w.category, ServiceContractWarning) for w in said)


def test_a_renamed_extra_of_an_answer_is_still_a_service_contract_warning(via, proxy):
    def both(item: dict[str, Any]) -> None:
        item["target_7"] = "top"
        item["target"] = {**(item.get("target") or {}), "7": "nested"}

    proxy.add(DEALS, items_edit(both), method="POST")
    o = outcome(lambda: via.private.deals(limit=3))
    assert o.error is None, repr(o.error)
    assert [w.category for w in _renamed(o.caught)] == [ServiceContractWarning]
    assert o.value.attrs["extra_names"] == {"target_7_2": ["target", "7"]}


# ------------------------------------------------------------ aggregate buckets out of order


def _reordered(order: Callable[[list[Any]], list[Any]]) -> Any:
    return edit(lambda doc: {**doc, "data": order(list(doc["data"]))}, "reordered")


def _shuffled(buckets: list[Any]) -> list[Any]:
    random.Random(7).shuffle(buckets)
    return buckets


@pytest.mark.parametrize("order", [lambda b: b[::-1], _shuffled], ids=["newest first", "shuffled"])
def test_aggregate_buckets_out_of_time_order_are_sorted_and_said(direct, via, proxy, order):
    ref = direct.private.aggregate("valuation", "quarter", deal_type=["Venture"])
    assert len(ref) > 3 and ref["period_start"].is_monotonic_increasing
    assert "unsorted" not in [f["kind"] for f in ref.attrs["findings"]]
    proxy.add(AGGREGATE, _reordered(order))
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", deal_type=["Venture"]))
    assert o.error is None, repr(o.error)
    got = o.value
    assert_same(got, ref)  # the buckets in time order, the index 0..n-1
    assert got.attrs["labels_as_served"] == ref.attrs["labels_as_served"]  # they follow the rows
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "another order than time order" in said[0], said
    unsorted = [f for f in got.attrs["findings"] if f["kind"] == "unsorted"]
    assert len(unsorted) == 1 and unsorted[0]["shortfall"] == 0
    assert said[0] == f"{unsorted[0]['where']}: {unsorted[0]['message']}"
    first = order(list(ref["bucket"]))[0]
    assert f"first {first!r}" in said[0]


def test_aggregate_buckets_in_time_order_are_not_said(via):
    o = outcome(lambda: via.private.aggregate("valuation", "year", deal_type=["Venture"]))
    assert o.error is None, repr(o.error)
    assert o.caught == [], [str(w.message) for w in o.caught]
    assert o.value.attrs["findings"] == []


# ------------------------------------------------------------ numbers written as text


def _first_valuation_as_text(doc: Any) -> Any:
    """The first deal with a valuation, on each page, holds it as text."""
    item = next(i for i in doc["data"] if i.get("deal_valuation") is not None)
    item["deal_valuation"] = str(item["deal_valuation"])
    return doc


def _founded_as_text(item: dict[str, Any]) -> None:
    if item.get("founded") is not None:
        item["founded"] = str(item["founded"])


def _value_as_text(doc: Any) -> Any:
    item = next(i for i in doc["data"] if i.get("enterpriseValue") is not None)
    item["enterpriseValue"] = str(item["enterpriseValue"])
    return doc


def _active_as_text(item: dict[str, Any]) -> None:
    item["active"] = str(item["active"]).lower()


def _company(client: Any) -> Any:
    return client.private.company(client.private.companies(limit=1)["id"].iloc[0])


#: (rule: path, action, method), the call, the finding's kind, its field
CASES = {
    "deal list of three pages": (
        (DEALS, edit(_first_valuation_as_text), "POST"),
        lambda c, **kw: c.private.deals(limit=2500, **kw),
        "numbers_as_text",
        "deal_valuation",
    ),
    "company profile": (
        (PROFILE, items_edit(_founded_as_text), "GET"),
        lambda c, **kw: c.private.company(c.private.companies(limit=2)["id"].tolist(), **kw),
        "numbers_as_text",
        "founded",
    ),
    "current data": (
        (CURRENT, edit(_value_as_text), "POST"),
        lambda c, **kw: c.public.current(["BRI-GBR", "GRO-GBR"], **kw),
        "numbers_as_text",
        "enterpriseValue",
    ),
    "booleans of a company list": (
        (f"^{P}/companies$", items_edit(_active_as_text), "POST"),
        lambda c, **kw: c.private.companies(limit=50, **kw),
        "booleans_as_text",
        "active",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_values_written_as_text_are_a_finding_of_the_call_said_once(direct, via, proxy, case):
    (path, action, method), call, kind, field = CASES[case]
    want = call(direct)
    proxy.add(path, action, method=method)
    o = outcome(lambda: call(via))
    assert o.error is None, repr(o.error)
    got = o.value
    assert_same(got, want)  # read as the values they say
    listed = [f for f in got.attrs["findings"] if f["kind"] == kind]
    assert len(listed) == 1, got.attrs["findings"]
    assert listed[0]["message"].startswith(f"{field}: "), listed
    said = o.warned(ServiceContractWarning)
    assert said == [f"{listed[0]['where']}: {listed[0]['message']}"], said  # one warning


def test_numbers_written_as_text_raise_under_strict_as_every_finding(via, proxy):
    proxy.add(DEALS, edit(_first_valuation_as_text), method="POST")
    with pytest.raises(ServiceContractError, match="deal_valuation: numbers written as text"):
        via.private.deals(limit=50, strict=True)


def test_numbers_written_as_text_in_user_items_are_still_said(sandbox):
    """No call, no findings to record them in: the frame builders given items warn."""
    items = first_items(sandbox, "transactions", 2)
    items[0]["deal_valuation"] = "12.5"
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        frame = deals_frame(items)
    assert frame["deal_valuation"].iloc[0] == 12.5 and "findings" not in frame.attrs
    assert [str(w.message)[:46] for w in said] == ["deal_valuation: numbers written as text in 1 o"]
    assert said[0].category is DealframeWarning  # exactly: no service answered these items
