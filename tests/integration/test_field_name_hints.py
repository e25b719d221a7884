"""A ``fields=`` name gets a did-you-mean only when it may be a typo, and a typo gets one
wherever it fails (issue 14, after names were sent as given).

- A name the client knows (the document's, or one seen with a value in its answers) that an
  answer leaves out gets no suggestion: a service may leave out a field no company has a value
  for (``evRevenueLtm`` was told "did you mean 'evRevenueNtm'?").
- A name the service refuses (its 400) keeps the service's words as the message, with the
  closest known name in the error's note (it had none since names are sent as given).
- Profile names seen with a value in earlier answers (``extra_field``) are suggested; a name a
  service echoed only as null is no name seen.
- ``reconcile_groups``: a month-field value null on both sides of a field the service does not
  hold (the group answer's ``missing_field`` finding) is no match, said apart; the group time
  series is sent first, so a name the service refuses fails before other requests.

The default sandbox refuses a name it does not serve (400); a service that ignores such a
name, leaves out a documented one, or echoes one as null is the drift proxy's.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
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
from dealframe.errors import BadRequestError, ValidationError
from dealframe.notices import ServiceContractWarning
from dealframe.sandbox import run

SERIES = r"/(companies|groups)/time-series$"
PROFILE = r"^/api/private/v1/companies/[0-9a-f-]{36}$"
WINDOW = {"date_from": "2024-01", "date_to": "2024-03"}
GROUP = {"regions": ["Western Europe"]}


def ignoring(*names: str) -> Action:
    """A service that ignores the ``fields`` names it does not serve (answers without them),
    in a time-series body or a profile's query alike."""

    def request(ex: Exchange) -> None:
        sent = ex.body.get("fields") if isinstance(ex.body, dict) else None
        if isinstance(sent, list):
            ex.body = {**ex.body, "fields": [f for f in sent if f not in names] or ["marketCap"]}
            ex.raw_body = orjson.dumps(ex.body)
        if ex.query.get("fields"):
            ex.query["fields"] = ",".join(
                f for f in ex.query["fields"].split(",") if f not in names
            )

    return Action(f"ignoring{names!r}", on_request=request)


def echoing_null(name: str) -> Action:
    """A series service that answers a name it does not serve with null in every item."""

    def response(ex: Exchange) -> None:
        doc = ex.doc()
        for item in (doc or {}).get("data") or []:
            if isinstance(item.get("data"), dict):
                item["data"][name] = None
        ex.set_doc(doc)

    return Action(
        f"echoing_null({name!r})", on_request=ignoring(name).on_request, on_response=response
    )


def said(seen: list[warnings.WarningMessage], words: str) -> list[str]:
    return [str(w.message) for w in seen if words in str(w.message)]


# ------------------------------------------------------------------------- time series


@pytest.mark.parametrize("method", ["time_series", "group_time_series"])
def test_a_documented_name_left_out_gets_no_other_name(
    fresh: Any, proxy: Proxy, method: str
) -> None:
    """The audit's case: a service that leaves out ``evRevenueLtm`` and ``ruleOf40`` (no
    company has a value) was said to mean ``evRevenueNtm`` and ``ruleOf40Ltm``."""
    proxy.add(SERIES, ignoring("evRevenueLtm", "ruleOf40", "evRevenueNtn"))
    fields = ["marketCap", "evRevenueLtm", "ruleOf40", "evRevenueNtn"]
    if method == "time_series":
        skus = fresh.public.search(**GROUP).index[:3].tolist()
        call = lambda: fresh.public.time_series(skus, fields=fields, **WINDOW)  # noqa: E731
    else:
        call = lambda: fresh.public.group_time_series(**GROUP, fields=fields, **WINDOW)  # noqa: E731
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    [message] = said(seen, "requested field(s)")
    assert "evRevenueLtm, ruleOf40, evRevenueNtn (did you mean 'evRevenueNtm'?)" in message
    assert "marketCap" not in message


@pytest.mark.parametrize("method", ["time_series", "group_time_series"])
def test_a_name_the_service_refuses_has_the_closest_name_in_the_note(
    fresh: Any, proxy: Proxy, method: str
) -> None:
    """The sandbox's 400: its words are the message, the did-you-mean the note."""
    if method == "time_series":
        skus = fresh.public.search(**GROUP).index[:3].tolist()
        call = lambda: fresh.public.time_series(skus, fields=["marketCap", "evRevenueNtn"])  # noqa: E731
    else:
        call = lambda: fresh.public.group_time_series(**GROUP, fields=["evRevenueNtn"])  # noqa: E731
    with pytest.raises(BadRequestError) as info:
        call()
    assert any("evRevenueNtn" in e for e in info.value.errors)  # the service's words
    assert info.value.note == "fields: 'evRevenueNtn' (did you mean 'evRevenueNtm'?)"
    assert str(info.value).endswith("; fields: 'evRevenueNtn' (did you mean 'evRevenueNtm'?)")


def test_a_name_echoed_only_as_null_is_not_taken_as_served(fresh: Any, proxy: Proxy) -> None:
    """A service that echoes ``ev_revenue_ltm`` as null does not serve it: the spelling is still
    refused before any request (a name seen served as written would be sent)."""
    skus = fresh.public.search(**GROUP).index[:3].tolist()
    proxy.add(SERIES, echoing_null("ev_revenue_ltm"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh.public.time_series(skus, **WINDOW)  # every item holds ev_revenue_ltm: null
    before = proxy.count()
    with pytest.raises(ValidationError, match="did you mean 'evRevenueLtm'"):
        fresh.public.time_series(skus, fields=["ev_revenue_ltm"], **WINDOW)
    assert proxy.count() == before


# ---------------------------------------------------------------------------- reconcile


def test_reconcile_groups_counts_no_match_for_values_null_on_both_sides(
    fresh: Any, proxy: Proxy
) -> None:
    """The audit's case: a mistyped name a service ignores is null on both sides; it was
    counted a match ("6 of 6 month-field values match")."""
    proxy.add(SERIES, ignoring("evRevenueLtn"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ServiceContractWarning)  # each side says it is absent
        _, ts = reconcile_groups(fresh, **GROUP, fields=["evRevenueLtm", "evRevenueLtn"], **WINDOW)
    assert ts.summary == (
        "group time series: 3 of 6 month-field values match; "
        "3 month-field values of a field the service does not hold (evRevenueLtn)"
    )
    frame = ts.frame
    typo = frame.index.get_level_values("field") == "evRevenueLtn"
    assert typo.sum() == 3 and not frame.loc[typo, "match"].any()
    assert frame.loc[typo, "both_null"].all()
    assert frame.loc[~typo, "match"].all() and not frame.loc[~typo, "both_null"].any()


def test_reconcile_groups_fails_on_a_refused_name_before_other_requests(
    fresh: Any, proxy: Proxy
) -> None:
    with pytest.raises(BadRequestError) as info:
        reconcile_groups(fresh, **GROUP, fields=["evRevenueLtm", "evRevenueLtn"], **WINDOW)
    assert [(m, p) for m, p, _ in proxy.seen] == [("POST", "/api/v1/groups/time-series")]
    assert info.value.note == "fields: 'evRevenueLtn' (did you mean 'evRevenueLtm'?)"


# ----------------------------------------------------------------------------- profiles


@pytest.fixture(scope="module")
def extra() -> Iterator[tuple[Any, Proxy, str]]:
    """A proxy to a sandbox under ``extra-fields`` (every profile holds ``extra_field``) and
    one company id."""
    with run(scale=0.05, seed=7, profile="extra-fields") as sb, Proxy(sb.url) as served:
        with dealframe.Client.for_sandbox(sb, **FAST) as client:
            company = str(client.private.companies(limit=1).iloc[0]["id"])
        yield sb, served, company


@pytest.fixture
def extra_client(extra: tuple[Any, Proxy, str]) -> Iterator[Any]:
    """A client of its own through the ``extra-fields`` proxy (no rule, nothing seen)."""
    sb, served, _ = extra
    served.reset()
    with dealframe.Client(
        served.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST
    ) as client:
        yield client
    served.reset()


def test_a_profile_name_seen_in_an_earlier_answer_is_suggested(
    extra: tuple[Any, Proxy, str], extra_client: Any
) -> None:
    _, served, company = extra
    assert "extra_field" in extra_client.private.company(company).columns
    served.add(PROFILE, ignoring("extra_fild"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        extra_client.private.company([company], fields=["name", "extra_fild"])
    [message] = said(seen, "fields=")
    assert "extra_fild (did you mean 'extra_field'?)" in message


@pytest.mark.parametrize("ids", ["one", "list"])
def test_a_profile_name_the_service_refuses_has_the_closest_name_in_the_note(
    extra: tuple[Any, Proxy, str], extra_client: Any, ids: str
) -> None:
    """The sandbox's 400 to ``nmae``: its words, and ``did you mean 'name'?`` in the note (a
    ValidationError said it before names were sent as given)."""
    _, _, company = extra
    with pytest.raises(BadRequestError) as info:
        extra_client.private.company(company if ids == "one" else [company], fields=["nmae"])
    assert any("nmae" in e for e in info.value.errors)  # the service's words
    assert info.value.note == "fields: 'nmae' (did you mean 'name'?)"


def test_a_refused_profile_name_close_to_one_seen_is_said(
    extra: tuple[Any, Proxy, str], extra_client: Any
) -> None:
    _, _, company = extra
    extra_client.private.company(company)  # extra_field seen
    with pytest.raises(BadRequestError) as info:
        extra_client.private.company(company, fields=["name", "extra_fild"])
    assert info.value.note == "fields: 'extra_fild' (did you mean 'extra_field'?)"
