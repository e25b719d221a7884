"""Deal types and subtypes outside the closed lists, and group fields served twice or in
another spelling, are said over HTTP, never kept without a word.

The interface document closes the deal types and subtypes (section 4.4) as it closes the
regions; a service's discovery document may list more (the lists grow). A ``deal_type`` of
``VENTURE`` or a ``deal_subtype`` of ``Series_A`` was kept as an extra category without a
word: it is now an ``unknown_value`` finding with a did-you-mean (the value kept as served),
in lists, profiles and sub-collections alike, unless the discovery document the client holds
lists it. In the list layout of groups/current, a field listed twice with other statistics (a
doubled sum) was read as the later row: it is refused now (the same row twice is read once,
said), and field keys written in snake_case (``market_cap``) are read as the fields they
spell, as ``current()`` reads them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    direct,
    edit,
    fresh,
    fresh_rules,
    items_edit,
    outcome,
    proxy,
)

import dealframe
from dealframe.errors import ServiceContractError
from dealframe.sandbox import run

DEALS = "^/api/private/v1/transactions$"
LOOKUP = "^/api/private/v1/lookup/transactions$"
GROUP = "groups/current$"


def _said(o: Any) -> list[str]:
    return [str(w.message) for w in o.caught]


def _set(key: str, value: Any) -> Any:
    def change(item: dict[str, Any]) -> None:
        item[key] = value

    return change


def test_a_deal_type_in_upper_case_is_said_with_the_type_meant(fresh, proxy):
    proxy.add(DEALS, items_edit(lambda i: i.update(deal_type=i["deal_type"].upper())))
    o = outcome(lambda: fresh.private.deals(deal_type=["Venture"]))
    assert o.error is None, repr(o.error)
    assert set(o.value["deal_type"].dropna().astype(str)) == {"VENTURE"}  # kept as served
    said = [m for m in _said(o) if "deal_type outside" in m]
    assert len(said) == 1, _said(o)
    assert "'VENTURE'" in said[0] and "did you mean 'Venture'?" in said[0]


def test_a_subtype_with_underscores_is_said(fresh, proxy):
    proxy.add(DEALS, items_edit(lambda i: i.update(deal_subtype="Series_A")))
    o = outcome(lambda: fresh.private.deals())
    assert o.error is None, repr(o.error)
    said = [m for m in _said(o) if "deal_subtype outside" in m]
    assert len(said) == 1 and "did you mean 'Series A'?" in said[0], _said(o)


def _lists(field: str, value: str) -> Any:
    def apply(doc: Any) -> Any:
        for entry in doc["data"]["filters"]:
            if entry["field"] == field and isinstance(entry.get("values"), list):
                entry["values"] = [*entry["values"], value]
        return doc

    return edit(apply, f"{field} lists {value}")


@pytest.mark.parametrize("listed", [False, True])
def test_a_new_deal_type_is_known_only_when_discovery_lists_it(fresh, proxy, listed):
    proxy.add(DEALS, items_edit(_set("deal_type", "Debt")), page=2)
    if listed:
        proxy.add(LOOKUP, _lists("deal_type", "Debt"))
    o = outcome(lambda: fresh.private.deals())
    assert o.error is None, repr(o.error)
    assert proxy.count(LOOKUP) >= 1  # the client holds the service's list
    assert (o.value["deal_type"] == "Debt").any()
    said = [m for m in _said(o) if "deal_type outside" in m]
    if listed:
        assert said == [], said
    else:
        assert len(said) == 1 and "'Debt'" in said[0] and "did you mean" not in said[0]


def test_a_subtype_of_a_sub_collection_is_said(fresh, direct, proxy):
    ids = list(direct.private.deals()["target_id"].value_counts().index[:3])
    proxy.add("/fundings$", items_edit(lambda i: i.update(deal_subtype=i["deal_subtype"].lower())))
    o = outcome(lambda: fresh.private.fundings(ids))
    assert o.error is None, repr(o.error)
    assert len(o.value)
    said = [m for m in _said(o) if "deal_subtype outside" in m]
    assert len(said) == 1 and "did you mean" in said[0], _said(o)


def test_a_profiles_most_common_deal_type_in_upper_case_is_said(fresh, direct, proxy):
    ids = list(direct.private.investors()["id"][:5])

    def upper(item: dict[str, Any]) -> None:
        stats = item.get("stats")
        if isinstance(stats, dict) and isinstance(stats.get("most_common_deal_type"), str):
            stats["most_common_deal_type"] = stats["most_common_deal_type"].upper()

    proxy.add(r"/investors/[0-9a-f-]+$", items_edit(upper))
    o = outcome(lambda: fresh.private.investor(ids))
    assert o.error is None, repr(o.error)
    if o.value["stats_most_common_deal_type"].isna().all():
        pytest.skip("no company of these has a most common deal type")
    said = [m for m in _said(o) if "stats_most_common_deal_type outside" in m]
    assert len(said) == 1 and "did you mean" in said[0], _said(o)


# ------------------------------------------------------------------- groups/current


@pytest.fixture(scope="module")
def group_list() -> Iterator[tuple[Any, Proxy]]:
    """A sandbox answering groups/current as a list of ``{field, sum, median}`` rows, and a
    drift proxy in front of it."""
    with run(scale=0.05, seed=7, profile="group-list") as sb, Proxy(sb.url) as px:
        yield sb, px


def _client(sb: Any, url: str) -> Any:
    return dealframe.Client(url, sb.public_token, sb.private_key, cache_enabled=False, **FAST)


def _repeat(doubled: bool) -> Any:
    def apply(doc: Any) -> Any:
        row = next(r for r in doc["data"] if r["field"] == "revenueLtm")
        again = dict(row)
        if doubled:
            again["sum"] = again["sum"] * 2
        doc["data"].append(again)
        return doc

    return edit(apply, "revenueLtm twice")


def test_a_group_field_listed_twice_with_another_sum_is_refused(group_list):
    sb, px = group_list
    px.reset()
    px.add(GROUP, _repeat(doubled=True))
    with _client(sb, px.url) as client:
        o = outcome(lambda: client.public.group_current(regions=["North America"]))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert "revenueLtm" in str(o.error)


def test_a_group_field_listed_twice_alike_is_read_once_and_said(group_list):
    sb, px = group_list
    px.reset()
    px.add(GROUP, _repeat(doubled=False))
    with _client(sb, sb.url) as client:
        reference = client.public.group_current(regions=["North America"])
    with _client(sb, px.url) as client:
        o = outcome(lambda: client.public.group_current(regions=["North America"]))
    px.reset()
    assert o.error is None, repr(o.error)
    pd.testing.assert_frame_equal(o.value, reference)
    assert any("more than once with the same content" in m for m in _said(o)), _said(o)


def _snake(doc: Any) -> Any:
    import re

    def snake(key: str) -> str:
        return re.sub(r"([A-Z])", lambda m: "_" + m[1].lower(), key)

    doc["data"] = {
        stat: {snake(k): v for k, v in inner.items()} for stat, inner in doc["data"].items()
    }
    return doc


def test_snake_case_group_fields_are_read_as_the_fields_they_spell(fresh, direct, proxy):
    reference = direct.public.group_current(regions=["North America"])
    proxy.add(GROUP, edit(_snake, "snake_case fields"))
    o = outcome(lambda: fresh.public.group_current(regions=["North America"]))
    assert o.error is None, repr(o.error)
    assert "market_cap" not in o.value.index
    pd.testing.assert_frame_equal(o.value, reference)
    assert any("market_cap as marketCap" in m for m in _said(o)), _said(o)


# ------------------------------------------------------------------- nested timestamps


def test_a_nested_timestamp_without_offset_is_said(fresh, direct, proxy):
    """``valuation.updated_at`` without an offset is read as UTC and said, as a top-level
    ``updated_at`` is (a guard: the audit's case read companies holding no valuation)."""
    some = direct.private.company(list(direct.private.companies()["id"][:300]))
    ids = some.loc[some["valuation_updated_at"].notna(), "id"].tolist()[:4]
    assert ids, "no company of these has a valuation"

    def naive(item: dict[str, Any]) -> None:
        valuation = item.get("valuation")
        if isinstance(valuation, dict) and isinstance(valuation.get("updated_at"), str):
            stamp = valuation["updated_at"]
            valuation["updated_at"] = stamp.replace("+00:00", "").replace("Z", "")

    proxy.add(r"/companies/[0-9a-f-]+$", items_edit(naive))
    o = outcome(lambda: fresh.private.company(ids))
    assert o.error is None, repr(o.error)
    expected = some.set_index("id").loc[ids, "valuation_updated_at"]
    assert o.value.set_index("id")["valuation_updated_at"].equals(expected)
    said = [m for m in _said(o) if "valuation_updated_at: no offset in" in m]
    assert len(said) == 1 and f"in {len(ids)} timestamps" in said[0], _said(o)
