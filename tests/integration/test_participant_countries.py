"""The ``country`` of deal participants is checked as a top-level country is, over the proxy.

A company's or a deal target's ``country`` that no country filter takes (``GER``, the IOC's
Germany; ``uk``) is said per value with the code meant. The participants of deal rows
(``lead_investors``, ``buyers``; single deals' ``investors``), lists of objects held as JSON
text, were not looked at: ``investors(country=["DEU"])`` does not find an investor the deals
list as ``GER``, silently. They are now said in one finding per call, each value once with
the rows that carry it; a blank is no country (not said), as at the top level.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh_rules,
    items_edit,
    outcome,
    proxy,
    via,
)

from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
KEPT = "(rows kept, the values as they came: a filter naming the code meant does not select them)"
GER = "did you mean 'DEU', Germany? 'GER' is no ISO 3166 code"


def _countries(item: dict[str, Any]) -> None:
    """Every lead investor's country ``GER`` but a second one's, blank; buyers' ``uk``;
    the full investor list's ``GER``."""
    for n, party in enumerate(item.get("lead_investors") or []):
        party["country"] = "GER" if n == 0 else "  "
    for party in item.get("buyers") or []:
        party["country"] = "uk"
    for party in item.get("investors") or []:
        party["country"] = "GER"


def _said(frame: pd.DataFrame) -> list[str]:
    return [
        f["message"]
        for f in frame.attrs["findings"]
        if f["kind"] == "unknown_value" and "participants' country" in f["message"]
    ]


def test_participant_countries_no_filter_takes_are_said_once_per_value(
    via: Any, proxy: Any
) -> None:
    plain = via.private.deals(deal_type=["M&A", "Venture"], limit=200, cache=False)
    leads = plain["lead_investors"].fillna("[]").ne("[]")
    buys = plain["buyers"].fillna("[]").ne("[]")
    assert leads.any() and buys.any()  # both kinds of participant are there
    proxy.add(rf"^{P}/transactions$", items_edit(_countries))
    got = outcome(lambda: via.private.deals(deal_type=["M&A", "Venture"], limit=200, cache=False))
    assert got.error is None, got.error
    said = _said(got.value)
    assert len(said) == 1, said
    assert said[0].startswith(
        "participants' country (lead_investors, buyers) no country filter takes in "
        f"{int((leads | buys).sum())} of 200 rows: "
    ), said
    assert said[0].endswith(KEPT)
    # each value once, with the rows that carry it and the code meant (the more rows first)
    assert said[0].count("'GER' (") == 1 and f"'GER' ({int(leads.sum())}; {GER})" in said[0]
    uk = f"'uk' ({int(buys.sum())}; did you mean 'GBR', United Kingdom?)"
    assert said[0].count("'uk' (") == 1 and uk in said[0]
    assert sum("participants' country" in m for m in got.warned(ServiceContractWarning)) == 1
    assert "'  '" not in said[0]  # a blank is no country: not said
    assert got.value["lead_investors"].str.contains('"GER"').sum() == leads.sum()  # kept


def test_a_single_deals_investor_list_is_checked_too(via: Any, proxy: Any) -> None:
    ident = via.private.deals(deal_type=["Venture"], limit=1, cache=False)["id"].iloc[0]
    proxy.add(rf"^{P}/transactions/[^/]+$", items_edit(_countries))
    got = outcome(lambda: via.private.deal(ident, cache=False))
    assert got.error is None, got.error
    assert _said(got.value) == [
        "participants' country (lead_investors, buyers, investors) no country filter takes "
        f"in 1 of 1 rows: 'GER' (1; {GER}) {KEPT}"
    ], got.value.attrs["findings"]


def test_the_participants_of_a_sub_collection_are_checked_too(via: Any, proxy: Any) -> None:
    deals = via.private.deals(deal_type=["Venture"], limit=50, cache=False)
    investor = deals["lead_investors"].dropna().str.extract(r'"id":"([^"]+)"')[0].dropna()
    proxy.add(rf"^{P}/investors/[^/]+/investments$", items_edit(_countries))
    got = outcome(lambda: via.private.investments(investor.iloc[0], cache=False))
    assert got.error is None, got.error
    said = _said(got.value)
    assert len(said) == 1 and "'GER' (" in said[0] and GER in said[0], said


def test_participant_countries_the_filters_take_or_blank_are_not_said(via: Any, proxy: Any) -> None:
    """The sandbox's own participants (assigned codes, or null), and blanks: no finding."""
    got = outcome(lambda: via.private.deals(deal_type=["M&A", "Venture"], limit=200, cache=False))
    assert got.error is None and not got.caught, got.caught

    def blank(item: dict[str, Any]) -> None:
        for party in [*(item.get("lead_investors") or []), *(item.get("buyers") or [])]:
            party["country"] = ""

    proxy.add(rf"^{P}/transactions$", items_edit(blank))
    got = outcome(lambda: via.private.deals(deal_type=["M&A", "Venture"], limit=200, cache=False))
    assert got.error is None and not _said(got.value), got.value.attrs["findings"]


def test_a_country_that_is_no_text_does_not_silence_the_others(via: Any, proxy: Any) -> None:
    """One participant's ``country`` served as a number (``276``) is said with the ``GER``
    of the others; it used to switch the whole check off without a word."""
    plain = via.private.deals(deal_type=["Venture"], limit=50, cache=False)
    leads = plain["lead_investors"].fillna("[]").ne("[]")
    assert leads.sum() >= 2
    first = plain.loc[leads, "id"].iloc[0]

    def numbered(item: dict[str, Any]) -> None:
        for party in item.get("lead_investors") or []:
            party["country"] = 276 if item["id"] == first else "GER"

    proxy.add(rf"^{P}/transactions$", items_edit(numbered))
    got = outcome(lambda: via.private.deals(deal_type=["Venture"], limit=50, cache=False))
    assert got.error is None, got.error
    said = _said(got.value)
    assert len(said) == 1, got.value.attrs["findings"]
    assert f"'GER' ({int(leads.sum()) - 1}; {GER})" in said[0], said
    assert "276 (1)" in said[0], said
