"""A review of the ``fields=`` hints (issue 14) after fix-fields2:

- ``reconcile_groups`` counted a month null on both sides as no match for a valid call (at
  scale 0.05, seed 7, Western Europe: "1188 of 1200 ... match"; a group with no member:
  "0 of 12 match"). A month where neither side has a value agrees; only a field null on both
  sides in every month (one neither side holds) is no match, and named.
- The note on the service's 400 suggested another name for a valid name the 400 lists as
  allowed (``evEbitdaNtm`` was told "did you mean 'evEbitdaLtm'?"): only the names its words
  point at (``fields[i]``, a quoted name) get one, and the names it lists as allowed are known.
- A name a series answer echoes as a map of null months counted as held: no
  ``missing_field`` warning, all-null columns.
- The note did not blank the call's tokens, as every other part of an error does.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    Proxy,
    fresh,
    fresh_rules,
    proxy,
)

import dealframe
from dealframe.analytics import reconcile_groups
from dealframe.errors import BadRequestError
from dealframe.notices import MissingDataWarning, ServiceContractWarning
from dealframe.sandbox import run

SERIES = r"/companies/time-series$"
GROUP = {"regions": ["Western Europe"]}
WINDOW = {"date_from": "2024-01", "date_to": "2024-06"}


# ---------------------------------------------------------------------------- reconcile


@pytest.fixture(scope="module")
def nulls() -> Iterator[Any]:
    """A client of a sandbox at scale 0.05, seed 7, whose Western Europe series has months
    where no member has ``evEbitdaLtm`` nor ``evEbitdaNtm`` (so neither side has a value)."""
    with run(scale=0.05, seed=7) as sb, dealframe.Client.for_sandbox(sb, **FAST) as client:
        yield client


def test_reconcile_groups_months_null_on_both_sides_match(nulls: Any) -> None:
    _, ts = reconcile_groups(nulls, **GROUP)
    frame = ts.frame
    assert frame["both_null"].any()  # the case: months neither side has a value for
    assert frame["match"].all(), frame[~frame["match"]]
    assert ts.summary == f"group time series: {len(frame)} of {len(frame)} month-field values match"


def test_reconcile_groups_of_no_member_matches(nulls: Any) -> None:
    """A group with no member: no side has a value, and they agree."""
    fields = ["evRevenueLtm", "marginEbitdaLtm"]
    _, ts = reconcile_groups(nulls, **GROUP, enterprise_value_above=1e12, fields=fields, **WINDOW)
    assert len(ts.frame) == 12 and ts.frame["both_null"].all()
    assert ts.frame["match"].all()
    assert ts.summary == "group time series: 12 of 12 month-field values match"


# ---------------------------------------------------------------------- the 400's note


@pytest.fixture
def skus(fresh: Any) -> list[str]:
    return fresh.public.search(**GROUP).index[:3].tolist()


def test_a_name_the_400_lists_as_allowed_gets_no_suggestion(fresh: Any, skus: list[str]) -> None:
    """The review's case (fresh client: ``evEbitdaNtm`` is not the document's, nor seen):
    the sandbox's 400 points at ``fields[1]`` and lists ``evEbitdaNtm`` as allowed."""
    with pytest.raises(BadRequestError) as info:
        fresh.public.time_series(skus, fields=["evEbitdaNtm", "evRevenueNtn"])
    assert any("fields[1]: 'evRevenueNtn'" in e for e in info.value.errors)
    assert info.value.note == "fields: 'evRevenueNtn' (did you mean 'evRevenueNtm'?)"


def test_a_name_the_400_lists_as_allowed_is_suggested(fresh: Any, skus: list[str]) -> None:
    """``evEbitdaNtn`` is one letter from ``evEbitdaNtm``, which only the 400 lists (it was
    told the document's ``evEbitdaLtm``)."""
    with pytest.raises(BadRequestError) as info:
        fresh.public.time_series(skus, fields=["evEbitdaNtn"])
    assert info.value.note == "fields: 'evEbitdaNtn' (did you mean 'evEbitdaNtm'?)"


def words_naming_bare(ex: Exchange) -> None:
    """A service whose 400 names the field in bare words, pointing neither by position
    nor by quotes."""
    doc = ex.doc()
    if ex.status == 400 and isinstance(doc, dict):
        ex.set_doc({"error": {"code": "BAD_REQUEST", "message": "unknown field evRevenueNtn"}})


def test_bare_words_count_when_nothing_is_pointed_at(
    fresh: Any, proxy: Proxy, skus: list[str]
) -> None:
    proxy.add(SERIES, Action("bare words", on_response=words_naming_bare))
    with pytest.raises(BadRequestError) as info:
        fresh.public.time_series(skus, fields=["marketCap", "evRevenueNtn"])
    assert info.value.message == "unknown field evRevenueNtn"
    assert info.value.note == "fields: 'evRevenueNtn' (did you mean 'evRevenueNtm'?)"


def test_the_note_blanks_the_calls_token(sandbox: Any, proxy: Proxy) -> None:
    """A private key ``name`` (a profile field): the suggestion quotes it, blanked as the
    service's words are."""
    proxy.auth_map["name"] = sandbox.private_key
    with dealframe.Client(
        proxy.url, sandbox.public_token, "name", cache_enabled=False, **FAST
    ) as client:
        company = str(client.private.companies(limit=1).iloc[0]["id"])
        with pytest.raises(BadRequestError) as info:
            client.private.company(company, fields=["nmae"])
    assert info.value.note == "fields: 'nmae' (did you mean '***'?)"
    assert str(info.value).endswith("; fields: 'nmae' (did you mean '***'?)")


# -------------------------------------------------------------- a name echoed as null


def echoing_null_months(name: str) -> Action:
    """A series service that answers ``name`` with a map of null months in every item."""

    def request(ex: Exchange) -> None:
        if isinstance(ex.body, dict) and isinstance(ex.body.get("fields"), list):
            kept = [f for f in ex.body["fields"] if f != name] or ["marketCap"]
            ex.set_param("fields", kept)

    def response(ex: Exchange) -> None:
        doc = ex.doc()
        for item in (doc or {}).get("data") or []:
            if isinstance(item.get("data"), dict):
                item["data"][name] = {"2024-01": None, "2024-02": None}
        ex.set_doc(doc)

    return Action(f"echoing_null_months({name!r})", on_request=request, on_response=response)


def test_a_name_echoed_as_null_months_is_warned_and_not_seen(
    fresh: Any, proxy: Proxy, skus: list[str]
) -> None:
    """Its columns are all null, which the warning says (the name is one the answer holds, so
    with no other name); and it is no name seen served."""
    proxy.add(SERIES, echoing_null_months("evRevenueLtn"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = fresh.public.time_series(skus, fields=["marketCap", "evRevenueLtn"], **WINDOW)
    said = [str(w.message) for w in seen if "requested field(s)" in str(w.message)]
    assert len(said) == 1 and said[0].endswith(
        "data of all 3 items: evRevenueLtn (no values for them)"
    )
    assert "evRevenueLtn" not in fresh.public._served_fields
    assert frame.xs("evRevenueLtn", axis=1, level="field").isna().all().all()


def test_a_window_without_data_is_missing_data_not_a_service_fault(
    fresh: Any, skus: list[str]
) -> None:
    """Documented names the service answers with no month (a window past its data) are no
    service fault, no finding; but the frame is all null, and that is said as missing data (a
    name the client does not know, echoed so, is a finding: the test above)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = fresh.public.time_series(
            skus, fields=["marketCap", "evRevenueLtm"], date_from="2030-01", date_to="2030-03"
        )
    assert frame.isna().all().all() and frame.shape[0] == 3
    assert not [w for w in seen if issubclass(w.category, ServiceContractWarning)]
    said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
    assert said == [
        "no value for marketCap, evRevenueLtm in data of any of the 3 items (the service holds "
        "none in this window): their columns are all null"
    ], said
    assert not frame.attrs.get("findings")
