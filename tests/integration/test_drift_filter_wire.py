"""The filter wire form over the drift proxy: a service whose discovery document lists
``name`` as ``["eq", "ilike"]`` and reads a plain value with its first operator (section 4.2
leaves the reading of a plain value open; the sandbox reads it with the first operator listed).

``companies(name="labs")`` promises a case-insensitive substring match: the client sent
``{"name": "labs"}`` and such a service matched it exactly, a silent empty frame. It now
writes out the operator it means wherever the field lists more than one, and says so when
the service does not list that operator at all.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    operators_of,
    outcome,
    proxy,
)

from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"


def name_operators(*operators: str) -> Action:
    """Discovery documents that list ``name`` with ``operators``, in that order."""

    def apply(doc: Any) -> Any:
        for entry in doc["data"]["filters"]:
            if entry["field"] == "name":
                entry["operators"] = list(operators)
        return doc

    return edit(apply, f"name operators {operators}")


def plain_read_as_eq() -> Action:
    """A service that reads a plain ``name`` value as an exact match (its first operator)."""

    def apply(ex: Any) -> None:
        filters = ex.body.get("filters") if isinstance(ex.body, dict) else None
        if isinstance(filters, dict) and isinstance(filters.get("name"), str):
            filters["name"] = {"eq": filters["name"]}
            ex.raw_body = orjson.dumps(ex.body)

    return Action("plain name read as eq", on_request=apply)


def _word(frame: Any) -> str:
    """A lower-case fragment of a name that no name equals (an exact match finds nothing)."""
    names = frame["name"].astype(str)
    for name in names:
        word = name.split()[0][:4].lower()
        if len(word) >= 3 and not names.str.lower().eq(word).any():
            return word
    raise AssertionError("the test needs a name fragment")


@pytest.mark.parametrize("entity", ["companies", "investors"])
def test_a_plain_name_is_a_substring_match_whatever_the_service_lists_first(
    entity, direct, fresh, proxy
):
    """D2: the docstring's ilike, not the service's first operator, decides the match."""
    listing = getattr(direct.private, entity)
    word = _word(listing())
    want = listing(name=word)
    assert len(want), "the test needs names holding the fragment"
    proxy.add(f"^{P}/lookup/{entity}$", name_operators("eq", "ilike"))
    proxy.add(f"^{P}/{entity}$", plain_read_as_eq(), method="POST")
    o = outcome(lambda: getattr(fresh.private, entity)(name=word))
    assert o.error is None, repr(o.error)
    assert_same(o.value, want)
    assert o.value.attrs["filters"] == {"name": {"ilike": word}}
    assert not o.warned(ServiceContractWarning), o.warned(ServiceContractWarning)


def test_a_service_without_ilike_for_name_is_said(direct, fresh, proxy):
    """A service that lists ``name`` with ``eq`` only cannot give the substring match the
    docstring promises: the call says so (never a silent empty frame) and matches exactly."""
    word = _word(direct.private.companies())
    proxy.add(f"^{P}/lookup/companies$", name_operators("eq"))
    proxy.add(f"^{P}/companies$", plain_read_as_eq(), method="POST")
    o = outcome(lambda: fresh.private.companies(name=word))
    assert o.error is None, repr(o.error)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "the filter name lists the operators eq, not ilike" in said[0]
    assert "an exact match" in said[0] and "{'eq': ...}" in said[0]
    assert len(o.value) == 0  # the service's exact match of a fragment


def test_one_listed_operator_stays_plain(direct, fresh, proxy):
    """A filter with one operator is sent plain: there is nothing else it can mean."""
    country = direct.private.companies()["country"].dropna().iloc[0]
    frame = fresh.private.companies(country=country, active=True)
    assert frame.attrs["filters"] == {"country": [country], "active": True}


@pytest.mark.parametrize(
    ("bounds", "low"),
    [
        ({"date_from": "2025-01-01", "date_to": "2024-01-01"}, "date_from"),
        ({"date_from": {"gte": "2025-01-01"}, "date_to": "2024-01-01"}, "date_from"),
        ({"valuation_min": 10, "valuation_max": 1}, "valuation_min"),
        ({"valuation_min": 10, "valuation_max": {"lte": 1}}, "valuation_min"),
    ],
)
def test_a_backwards_range_is_refused_whatever_its_wire_form(fresh, proxy, bounds, low):
    """Review 3, D1: a service listing a bound with several operators gets it written out
    (``{"gte": v}``); the range order is still checked, before any list request, not sent to
    match no row (a silent empty frame)."""
    from dealframe.errors import ValidationError

    proxy.add(
        f"^{P}/lookup/transactions$",
        operators_of(
            date_from=["gte", "lte"],
            date_to=["lte", "gte"],
            valuation_min=["gte", "lte"],
            valuation_max=["lte", "gte"],
        ),
    )
    o = outcome(lambda: fresh.private.deals(**bounds))
    assert isinstance(o.error, ValidationError), repr(o.error) if o.error else len(o.value)
    assert o.error.argument == low
    assert "the range would match no row" in str(o.error)
    assert proxy.count(f"^{P}/transactions$") == 0


def test_plot_helpers_read_a_window_sent_written_out(direct, fresh, proxy):
    """Review 3, D2: ``attrs["filters"]`` holds the filters as sent, ``{"gte": ...}`` for a
    bound the service lists with several operators; ``deal_window`` and ``deals_per_quarter``
    read the window from it as from a plain one, not refuse the frame."""
    pytest.importorskip("matplotlib")
    import pandas as pd

    from dealframe.plot import deals_per_quarter, figure
    from dealframe.plot.shaping import deal_window

    window = {"date_from": "2024-02-15", "date_to": "2024-11-20"}
    want = direct.private.deals(**window)
    assert len(want), "the test needs deals in the window"
    proxy.add(
        f"^{P}/lookup/transactions$",
        operators_of(date_from=["gte", "lte"], date_to=["lte", "gte"]),
    )
    got = fresh.private.deals(**window)
    assert_same(got, want)
    assert got.attrs["filters"] == {
        "date_from": {"gte": "2024-02-15"},
        "date_to": {"lte": "2024-11-20"},
    }
    asked = (pd.Timestamp("2024-02-15"), pd.Timestamp("2024-11-20"))
    assert deal_window(want) == asked
    assert deal_window(got) == asked
    import matplotlib.pyplot as plt

    ticks = []
    for frame in (want, got):
        fig, ax = figure()
        ticks.append([t.get_text() for t in deals_per_quarter(frame, ax=ax).get_xticklabels()])
        plt.close(fig)
    assert ticks[0] == ticks[1]
    assert "2024-Q1 (partial)" in ticks[1]
