"""Time-series ``fields=`` names as the caller writes them (issue 3's audit):

- A respelled documented name is refused naming its own position in the list as given:
  ``['evRevenueLtm', 'evRevenueLtm', 'ev_revenue_ltm']`` is ``fields[2]`` (it was
  ``fields[1]``: the list was made unique before it was checked).
- The did-you-mean of a name the service refuses ranks the names seen served and those its
  400 lists as allowed ahead of documented names never seen served (``revenue`` was told
  ``revenueNtm``, which the sandbox does not serve as a series); an ``Lcu`` name of the
  document is known (``marketCapLcu`` gets no suggestion) and ``market_cap_lcu`` spells it,
  never ``marketCap``.
- Whitespace, full-width letters and zero-width characters are separators of another
  spelling like ``_ . -`` (``EV Revenue LTM`` was sent); a name holding a comma is refused
  before any request, with the list to pass (it was sent as one name).
- A review of those: any name seen served that cleared difflib's cutoff beat a much closer
  documented one (``evRevenueNtn`` was told ``evRevenueLtm``); a full-width comma was sent; a
  single string respelled was ``fields[0]``, not ``fields``; and the comma check of every
  name ran before the respelling check of any, so a later name could be named first.

Requests are counted at the drift proxy; the sandbox's 400 lists the names it serves, and a
service whose 400 lists none is the proxy's (:func:`unlisted`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    Proxy,
    direct,
    fresh,
    fresh_rules,
    proxy,
)

from dealframe.analytics import reconcile_groups
from dealframe.errors import BadRequestError, ValidationError

SERIES = r"/companies/time-series$"
WINDOW = {"date_from": "2024-01", "date_to": "2024-06"}
GROUP = {"regions": ["Western Europe"]}


@pytest.fixture(scope="module")
def skus(direct: Any) -> list[str]:
    return direct.public.search().index[:3].tolist()


def unlisted() -> Action:
    """A service whose 400 names the refused field but lists no allowed names."""

    def apply(ex: Exchange) -> None:
        doc = ex.doc()
        if ex.status == 400 and isinstance(doc, dict) and isinstance(doc.get("error"), dict):
            doc["error"]["message"] = "Invalid request: fields[0]: unknown field"
            doc["error"].pop("details", None)
            ex.set_doc(doc)

    return Action("unlisted", on_response=apply)


@pytest.mark.parametrize("method", ["time_series", "group_time_series", "reconcile_groups"])
def test_a_respelled_name_after_repeats_is_refused_at_its_own_position(
    fresh: Any, proxy: Proxy, skus: list[str], method: str
) -> None:
    given = ["evRevenueLtm", "evRevenueLtm", "ev_revenue_ltm"]
    with pytest.raises(ValidationError) as typo:
        if method == "time_series":
            fresh.public.time_series(skus, fields=given, **WINDOW)
        elif method == "group_time_series":
            fresh.public.group_time_series(**GROUP, fields=given, **WINDOW)
        else:
            reconcile_groups(fresh, **GROUP, fields=given, **WINDOW)
    assert typo.value.argument == "fields[2]", str(typo.value)
    assert "did you mean 'evRevenueLtm'?" in str(typo.value)
    assert proxy.count() == 0, proxy.seen


@pytest.mark.parametrize(
    "given, meant, not_meant",
    [("revenue", "revenueLtm", "revenueNtm"), ("ebitda", "evEbitdaLtm", "ebitdaNtm")],
)
@pytest.mark.parametrize("listed", [True, False], ids=["400 lists", "400 lists none"])
def test_a_refused_name_is_told_a_name_the_service_serves(
    fresh: Any, proxy: Proxy, skus: list[str], given: str, meant: str, not_meant: str, listed: bool
) -> None:
    fresh.public.time_series(skus, **WINDOW)  # every field: the names served are seen
    if not listed:
        proxy.add(SERIES, unlisted())
    with pytest.raises(BadRequestError) as refused:
        fresh.public.time_series(skus, fields=[given], **WINDOW)
    assert f"'{given}' (did you mean {meant!r}?)" in (refused.value.note or ""), str(refused.value)
    assert not_meant not in (refused.value.note or "")
    assert listed == ("is not one of" in str(refused.value))  # the proxy's words when unlisted


def test_a_documented_lcu_name_is_known_and_its_respelling_folds_to_it(
    fresh: Any, proxy: Proxy, skus: list[str]
) -> None:
    fresh.public.time_series(skus, **WINDOW)
    with pytest.raises(BadRequestError) as refused:  # the sandbox serves no Lcu series
        fresh.public.time_series(skus, fields=["marketCapLcu"], **WINDOW)
    assert "did you mean" not in str(refused.value), str(refused.value)
    sent = proxy.count()
    for given in ("market_cap_lcu", "marketcaplcu", "Market Cap LCU"):
        with pytest.raises(ValidationError) as typo:
            fresh.public.time_series(skus, fields=[given], **WINDOW)
        assert "did you mean 'marketCapLcu'?" in str(typo.value), str(typo.value)
    assert proxy.count() == sent, proxy.seen  # refused before any request


@pytest.mark.parametrize(
    "given",
    [
        "EV Revenue LTM",
        "ev revenue ltm",
        "ev\tRevenue\u00a0Ltm",
        "ev\u200bRevenueLtm",
        "ｅｖRevenueLtm",
    ],
)
def test_whitespace_and_unseen_characters_are_separators(
    fresh: Any, proxy: Proxy, skus: list[str], given: str
) -> None:
    with pytest.raises(ValidationError) as typo:
        fresh.public.time_series(skus, fields=["marketCap", given], **WINDOW)
    assert typo.value.argument == "fields[1]" and "did you mean 'evRevenueLtm'?" in str(typo.value)
    assert proxy.count() == 0, proxy.seen


@pytest.mark.parametrize(
    "fields, argument",
    [
        ("evRevenueLtm,marginEbitdaLtm", "fields"),
        (["marketCap", "evRevenueLtm, marginEbitdaLtm"], "fields[1]"),
        ("evRevenueLtm，marginEbitdaLtm", "fields"),  # a full-width comma is a comma
        (["marketCap", "evRevenueLtm，marginEbitdaLtm"], "fields[1]"),
    ],
)
def test_a_name_holding_a_comma_is_refused_with_the_list_to_pass(
    fresh: Any, proxy: Proxy, skus: list[str], fields: Any, argument: str
) -> None:
    with pytest.raises(ValidationError) as comma:
        fresh.public.time_series(skus, fields=fields, **WINDOW)
    assert comma.value.argument == argument
    assert "pass a list: ['evRevenueLtm', 'marginEbitdaLtm']" in str(comma.value)
    with pytest.raises(ValidationError):
        fresh.public.group_time_series(**GROUP, fields=fields)
    assert proxy.count() == 0, proxy.seen


@pytest.mark.parametrize(
    "given, meant",
    [("evRevenueNtn", "evRevenueNtm"), ("revenueGrowthLtn", "revenueGrowthNtmLtm")],
)
def test_a_name_is_told_the_closest_name_not_any_seen_one(
    fresh: Any, proxy: Proxy, skus: list[str], given: str, meant: str
) -> None:
    """After only ``evRevenueLtm`` was served, a name much closer to a documented name is
    told that one: ``evRevenueLtm`` (seen, clearing difflib's cutoff) was told instead."""
    fresh.public.time_series(skus, fields=["evRevenueLtm"], **WINDOW)  # the one name seen
    proxy.add(SERIES, unlisted())
    with pytest.raises(BadRequestError) as refused:
        fresh.public.time_series(skus, fields=[given], **WINDOW)
    assert f"'{given}' (did you mean {meant!r}?)" in (refused.value.note or ""), str(refused.value)


def test_a_single_string_respelled_is_named_fields(
    fresh: Any, proxy: Proxy, skus: list[str]
) -> None:
    """A single string is ``fields``, as the comma and space errors name it (the respelling's
    error said ``fields[0]``)."""
    with pytest.raises(ValidationError) as typo:
        fresh.public.time_series(skus, fields="ev_revenue_ltm", **WINDOW)
    assert typo.value.argument == "fields", str(typo.value)
    assert str(typo.value).startswith("invalid fields: ") and "'evRevenueLtm'" in str(typo.value)
    assert proxy.count() == 0, proxy.seen


@pytest.mark.parametrize(
    "given, argument",
    [
        (["ev_revenue_ltm", "a,b"], "fields[0]"),  # the respelling first: it was the comma
        (["a,b", "ev_revenue_ltm"], "fields[0]"),
        (["marketCap", " marketCap", "ev_revenue_ltm"], "fields[1]"),
    ],
)
def test_the_first_bad_name_in_the_callers_order_is_named(
    fresh: Any, proxy: Proxy, skus: list[str], given: list[str], argument: str
) -> None:
    with pytest.raises(ValidationError) as bad:
        fresh.public.time_series(skus, fields=given, **WINDOW)
    assert bad.value.argument == argument, str(bad.value)
    assert proxy.count() == 0, proxy.seen
