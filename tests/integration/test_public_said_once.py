"""Family A's missing-data warnings say what the frame holds, once, over the drift proxy.

A review of the fix that made empty Family A answers said found the words too broad: a
``groups/current`` answer whose ``meta.companies`` is 0 beside values warned that every sum
and median is NaN; a window whose months all lie outside it said ``every value is null`` of
values the service did send (outside); ``attrs["item_extras"]`` of a group series kept the
periods dropped as outside the window; ``reconcile_groups`` of a group of no company warned
twice (its group series, its group current) and the industries hint three times; an HTTP
date's wait was echoed as ``asked to wait 2.58255 s``.
"""

from __future__ import annotations

import email.utils
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    edit,
    fresh,
    fresh_rules,
    items_edit,
    meta_set,
    outcome,
    proxy,
    via,
)

from dealframe.analytics.reconcile import reconcile_groups
from dealframe.errors import RateLimitedError, ServiceContractError
from dealframe.notices import MissingDataWarning, ServiceContractWarning

GROUP_CURRENT = r"/groups/current$"
GROUP_SERIES = r"/groups/time-series$"
SERIES = r"/companies/time-series$"


def _missing(got: Any) -> list[str]:
    """The plain missing-data warnings (not the findings, a subclass)."""
    return [
        str(w.message)
        for w in got.caught
        if issubclass(w.category, MissingDataWarning)
        and not issubclass(w.category, ServiceContractWarning)
    ]


def test_a_meta_of_no_company_beside_values_is_a_finding_not_an_empty_group(via, proxy):
    proxy.add(GROUP_CURRENT, meta_set(companies=0))
    got = outcome(lambda: via.public.group_current(countries=["USA"]))
    assert got.error is None, got.error
    frame = got.value
    valued = int(frame.notna().to_numpy().sum())
    assert valued > 0 and frame.attrs["companies"] == 0  # kept as served
    assert _missing(got) == []  # not "every sum and median is NaN"
    said = [m for m in got.warned(ServiceContractWarning) if "meta.companies is 0" in m]
    assert len(said) == 1, got.warned(Warning)
    assert f"yet {valued} sums and medians hold a value: kept as served" in said[0]
    assert "bad_meta" in [f["kind"] for f in frame.attrs["findings"]]
    # a group that matches no company, every value NaN, is still said so
    empty = outcome(lambda: via.public.group_current(countries=["ATA"]))
    assert _missing(empty) == [
        "no value: the group matches no company, every sum and median is NaN"
    ]


def test_under_strict_the_meta_of_no_company_beside_values_is_raised_not_kept(via, proxy):
    """Under ``strict=True`` the finding is raised: its words no longer say the values are
    kept as served (nothing is returned)."""
    proxy.add(GROUP_CURRENT, meta_set(companies=0))
    got = outcome(lambda: via.public.group_current(countries=["USA"], strict=True))
    assert isinstance(got.error, ServiceContractError), got.error
    assert "meta.companies is 0 (the group matches no company), yet" in str(got.error)
    assert "sums and medians hold a value" in str(got.error)
    assert "kept as served" not in str(got.error)


def _with_outside(doc: Any) -> Any:
    """Every period carries an ``extraField``, and one period outside the window is added."""
    data = doc.get("data") if isinstance(doc, dict) else None
    if isinstance(data, list) and data:
        for item in data:
            item["extraField"] = f"of {item['period']}"
        data.append({**data[0], "period": "2001-01", "extraField": "of 2001-01"})
    return doc


def test_item_extras_of_a_group_series_hold_the_periods_in_the_window(via, proxy):
    proxy.add(GROUP_SERIES, edit(_with_outside))
    got = outcome(
        lambda: via.public.group_time_series(
            countries=["USA"], date_from="2024-01", date_to="2024-02"
        )
    )
    assert got.error is None, got.error
    assert any("outside the window sent" in m for m in got.warned(ServiceContractWarning))
    months = ["2024-01", "2024-02"]
    assert [str(p) for p in got.value.index] == months
    assert got.value.attrs["item_extras"] == {m: {"extraField": f"of {m}"} for m in months}


def test_months_all_outside_the_window_are_said_as_null_in_the_window(via, proxy):
    skus = list(via.public.search(countries=["GBR"]).index[:2])
    proxy.add(
        SERIES, items_edit(lambda it: it.update(data={k: {"2001-01": 1.0} for k in it["data"]}))
    )
    got = outcome(lambda: via.public.time_series(skus, date_from="2022-01", date_to="2022-03"))
    assert got.error is None, got.error
    said = _missing(got)
    assert len(said) == 1, said
    assert said[0].endswith("has one, every value in the window is null"), said
    assert "every value is null" not in said[0]  # values were sent, outside the window


@pytest.mark.parametrize(
    ("group", "calls"),
    [
        ({"countries": ["ATA"]}, ["group_time_series", "group_current"]),
        (
            {"countries": ["USA"], "date_from": "1990-01", "date_to": "1990-03"},
            ["group_time_series", "time_series of the"],
        ),
        ({"industries": ["fintech"]}, ["group_time_series", "group_current"]),
    ],
    ids=["no-company", "window-before", "industry-hint"],
)
def test_reconcile_groups_says_missing_data_once(via, group, calls):
    got = outcome(lambda: reconcile_groups(via, **group))
    assert got.error is None, got.error
    said = _missing(got)
    assert len(said) == 1, said
    assert said[0].startswith("reconcile_groups: group_time_series: no value"), said
    for call in calls:  # what each call said is kept, named by the call
        assert f"; {call}" in said[0] or said[0].startswith(f"reconcile_groups: {call}")
    if "industries" in group:  # said by 3 calls, said once naming them
        hint = "group_time_series, search, group_current: industries[0]: no company carries"
        assert said[0].count("no company carries 'fintech'") == 1 and hint in said[0]


def _http_date_429(seconds: float) -> Action:
    def apply(ex: Exchange) -> None:
        ex.forward, ex.status = False, 429
        when = email.utils.formatdate(time.time() + seconds, usegmt=True)
        ex.headers = {"Content-Type": "application/json", "Retry-After": when}
        ex.content = b'{"error": {"code": "RATE_LIMITED", "message": "slow down"}}'

    return Action("http_date_429", on_request=apply)


def test_an_http_date_wait_is_said_to_the_tenth(fresh, proxy):
    proxy.add(r"/companies$", _http_date_429(3.0), times=1)
    got = outcome(lambda: fresh.public.search())
    assert isinstance(got.error, RateLimitedError), got.error
    asked = re.search(r"the service asked to wait ([\d.]+) s", str(got.error))
    assert asked is not None, str(got.error)
    assert re.fullmatch(r"\d+(\.\d)?", asked.group(1)), asked.group(1)
