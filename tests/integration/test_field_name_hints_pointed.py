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

After fix-fields3, a review of main (fix-fields4):

- A valid name the client had not seen (``evEbitdaNtm``, served but not the document's) over a
  window without data was a ``missing_field`` finding (``strict=True`` raised): a name some item
  holds with no value is missing data, one ``MissingDataWarning``; only a name no item holds at
  all is a finding. An answer holding no data at all (every ``data`` ``{}``, a group's
  ``data: []``) is said once, as missing data.
- ``reconcile_groups`` counted valid fields null in every month as no match ("24 of 30"): only
  a field the group answer's findings say the service does not hold is.
- The note on a 400 pointing by ``fields[i]`` also noted names quoted after "did you mean", and
  trusted a position counted from 0 that a service counting from 1 wrote; lists of allowed names
  ending in a full stop or a ``(see ...)`` lost their last name.
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
    edit,
    fresh,
    fresh_rules,
    proxy,
)

import dealframe
from dealframe.analytics import reconcile_groups
from dealframe.errors import BadRequestError, ServiceContractError
from dealframe.field_names import KnownFields, note_refused_fields
from dealframe.notices import MissingDataWarning, ServiceContractWarning
from dealframe.sandbox import run

SERIES = r"/companies/time-series$"
GROUP = {"regions": ["Southern Europe"]}
WINDOW = {"date_from": "2024-01", "date_to": "2024-06"}


# ---------------------------------------------------------------------------- reconcile


@pytest.fixture(scope="module")
def seven() -> Iterator[Any]:
    """A sandbox at scale 0.05, seed 7, whose Southern Europe series (three companies) has months
    where no member has ``evEbitdaLtm`` nor ``evEbitdaNtm`` (so neither side has a value)."""
    with run(scale=0.05, seed=7) as sb:
        yield sb


@pytest.fixture
def nulls(seven: Any) -> Iterator[Any]:
    """A client of its own of that sandbox (no name seen yet)."""
    with dealframe.Client.for_sandbox(seven, **FAST) as client:
        yield client


def test_reconcile_groups_months_null_on_both_sides_match(nulls: Any) -> None:
    _, ts = reconcile_groups(nulls, **GROUP)
    frame = ts.frame
    assert frame["both_null"].any()  # the case: months neither side has a value for
    assert frame["match"].all(), frame[~frame["match"]]
    assert (
        ts.summary
        == f"group time series: {len(frame):,} of {len(frame):,} month-field values match"
    )


@pytest.mark.parametrize(
    "window",
    [
        {"date_from": "2016-07", "date_to": "2016-09"},  # evEbitdaLtm/Ntm null in every month
        {"date_from": "2030-01", "date_to": "2030-03", "fields": ["marketCap", "evRevenueLtm"]},
    ],
)
def test_reconcile_groups_valid_fields_null_in_every_month_match(
    nulls: Any, window: dict[str, Any]
) -> None:
    """The review's case: valid fields no member has a value for in the window were counted
    no match ("24 of 30 ... match"; past the data, "0 of 6")."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)
        _, ts = reconcile_groups(nulls, **GROUP, **window)
    frame = ts.frame
    assert len(frame) and frame["both_null"].any()
    assert frame["match"].all(), frame[~frame["match"]]
    assert (
        ts.summary
        == f"group time series: {len(frame):,} of {len(frame):,} month-field values match"
    )


def test_reconcile_groups_of_no_member_matches(nulls: Any) -> None:
    """A group with no member: no side has a value, and they agree (the group answer's no
    period is said once, as missing data)."""
    fields = ["evRevenueLtm", "marginEbitdaLtm"]
    with pytest.warns(MissingDataWarning, match="the answer holds no period"):
        _, ts = reconcile_groups(
            nulls, **GROUP, enterprise_value_above=1e12, fields=fields, **WINDOW
        )
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


@pytest.mark.parametrize("window", [WINDOW, {}])
def test_a_name_echoed_as_null_months_is_missing_data_and_not_seen(
    fresh: Any, proxy: Proxy, skus: list[str], window: dict[str, str]
) -> None:
    """Its columns are all null, which one ``MissingDataWarning`` says, with the closest name
    known (the name is not one); it is no service finding (``strict=True`` does not raise), and
    no name seen served. "in this window" only when a date was given."""
    proxy.add(SERIES, echoing_null_months("evRevenueLtn"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = fresh.public.time_series(
            skus, fields=["marketCap", "evRevenueLtn"], strict=True, **window
        )
    said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
    where = " in this window" if window else ""
    assert said == [
        "no value for evRevenueLtn (did you mean 'evRevenueLtm'?) in data of any of the 3 "
        f"items{where}: their columns are all null"
    ]
    assert not [w for w in seen if issubclass(w.category, ServiceContractWarning)]
    assert not frame.attrs.get("findings")
    assert "evRevenueLtn" not in fresh.public._served_fields
    assert frame.xs("evRevenueLtn", axis=1, level="field").isna().all().all()


def test_a_window_without_data_is_missing_data_not_a_service_fault(
    fresh: Any, skus: list[str]
) -> None:
    """Documented names the service answers with no month (a window past its data) are no
    service fault, no finding; but the frame is all null, and that is said as missing data."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = fresh.public.time_series(
            skus, fields=["marketCap", "evRevenueLtm"], date_from="2030-01", date_to="2030-03"
        )
    assert frame.isna().all().all() and frame.shape[0] == 3
    assert not [w for w in seen if issubclass(w.category, ServiceContractWarning)]
    said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
    assert said == [
        "no value for marketCap, evRevenueLtm in data of any of the 3 items in this window: "
        "their columns are all null"
    ], said
    assert not frame.attrs.get("findings")


def test_a_valid_name_not_yet_seen_over_a_window_without_data_is_missing_data(
    nulls: Any,
) -> None:
    """The review's case: ``evEbitdaNtm`` (served by the sandbox, not the document's, not yet
    seen) over a window with no value raised ``ServiceContractError`` under ``strict=True``."""
    skus = nulls.public.search(**GROUP).index[:3].tolist()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = nulls.public.time_series(
            skus, fields=["evEbitdaNtm"], date_from="2016-07", date_to="2016-08", strict=True
        )
    said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
    assert said == [
        "no value for evEbitdaNtm (did you mean 'evEbitdaLtm'?) in data of any of the 3 items "
        "in this window: their columns are all null"
    ]
    assert not frame.attrs.get("findings") and frame.isna().all().all()
    assert "evEbitdaNtm" not in nulls.public._served_fields


def emptied(doc: Any) -> Any:
    """A service that leaves empty maps out: no item's ``data`` holds a field."""
    for item in doc.get("data") or []:
        item["data"] = {}
    return doc


@pytest.mark.parametrize("fields", [["marketCap", "evRevenueNtn"], None])
def test_an_answer_with_no_data_at_all_is_said_once_as_missing_data(
    fresh: Any, proxy: Proxy, skus: list[str], fields: list[str] | None
) -> None:
    """Every item's ``data`` ``{}``: said once, as missing data (it was a ``null_field`` and a
    ``missing_field`` finding, ``strict=True`` raising)."""
    unserved = echoing_null_months("evRevenueNtn").on_request  # not sent on: no 400
    proxy.add(SERIES, Action("emptied", on_request=unserved, on_response=edit(emptied).on_response))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = fresh.public.time_series(skus, fields=fields, strict=True, **WINDOW)
    said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
    if fields:
        end = "marketCap, evRevenueNtn (did you mean 'evRevenueNtm'?) in data of any of the 3 items"
        assert said == [f"no value for {end} in this window: their columns are all null"]
    else:
        assert said == [  # a client served no field before: the document's are the columns
            "no value in data of any of the 3 items in this window: the answer holds no field, "
            "and no earlier answer told which fields the service serves: the columns are the "
            "document's time-series fields (evRevenueLtm, evRevenueNtm, marginEbitdaLtm), all "
            "null (name fields for fixed columns)"
        ]
        fields_seen = frame.columns.get_level_values("field").unique().tolist()
        assert fields_seen == ["evRevenueLtm", "evRevenueNtm", "marginEbitdaLtm"]
    assert not [w for w in seen if issubclass(w.category, ServiceContractWarning)]
    assert not frame.attrs.get("findings")


def test_a_group_answer_with_no_period_is_said_once_as_missing_data(fresh: Any) -> None:
    """A window past the data: the sandbox answers ``data: []`` (nothing was said)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = fresh.public.group_time_series(
            **GROUP, fields=["evRevenueLtm"], date_from="2030-01", date_to="2030-03", strict=True
        )
    said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
    assert said == [
        "no value for evRevenueLtm in this window: the answer holds no period, their columns "
        "are all null"
    ]
    assert not [w for w in seen if issubclass(w.category, ServiceContractWarning)]
    assert len(frame) == 3 and frame["evRevenueLtm"].isna().all()


def test_a_name_no_item_holds_stays_a_finding(fresh: Any, proxy: Proxy, skus: list[str]) -> None:
    """No item holds ``evRevenueNtn`` as a key (a service ignoring it): a ``missing_field``
    finding with the closest name known, raised under ``strict=True``."""
    proxy.add(SERIES, Action("ignoring", on_request=echoing_null_months("evRevenueNtn").on_request))
    with pytest.raises(ServiceContractError, match="missing_field|requested field"):
        fresh.public.time_series(skus, fields=["marketCap", "evRevenueNtn"], strict=True, **WINDOW)
    with pytest.warns(ServiceContractWarning) as seen:
        fresh.public.time_series(skus, fields=["marketCap", "evRevenueNtn"], **WINDOW)
    assert [str(w.message) for w in seen if "requested field" in str(w.message)] == [
        "POST /api/v2/companies/time-series: requested field(s) absent from data of all 3 "
        "items: evRevenueNtn (did you mean 'evRevenueNtm'?)"
    ]


# ------------------------------------------------------- the 400's words (no request)


#: Names a client knows (some of the document's).
KNOWN = KnownFields(["marketCap", "evRevenueNtm", "evEbitdaLtm"])


def note(words: str, sent: list[str]) -> str | None:
    """The note the 400 saying ``words`` gets after sending ``sent``."""
    error = BadRequestError(400, "BAD_REQUEST", words)
    note_refused_fields(error, sent, KNOWN)
    return error.note


def test_a_name_quoted_after_did_you_mean_is_allowed_not_pointed() -> None:
    words = "fields[1]: unknown field 'evEbitdaNtn' (did you mean 'evEbitdaNtm'?)"
    assert note(words, ["evEbitdaNtm", "evEbitdaNtn"]) == (
        "fields: 'evEbitdaNtn' (did you mean 'evEbitdaNtm'?)"
    )


def test_a_position_a_service_counts_from_1_notes_no_valid_name() -> None:
    """``fields[2]`` of a service counting from 1 is ``evRevenueNtn``; counted from 0,
    ``evEbitdaNtm`` (valid, but not known to the client) was told another name."""
    sent = ["marketCap", "evRevenueNtn", "evEbitdaNtm"]
    said = note("fields[2]: unknown field", sent)
    assert said is None or "evEbitdaNtm" not in said
    # a quote at the position before tells the count from 1
    assert note("fields[2]: unknown field 'evRevenueNtn'", sent) == (
        "fields: 'evRevenueNtn' (did you mean 'evRevenueNtm'?)"
    )
    # the name at the position quoted: counted from 0
    assert note("fields[1]: unknown field 'evRevenueNtn'", sent) == (
        "fields: 'evRevenueNtn' (did you mean 'evRevenueNtm'?)"
    )
    # no quote, and only one of the two names unknown: that one
    assert note("fields[1]: unknown field", ["marketCap", "evRevenueNtn"]) == (
        "fields: 'evRevenueNtn' (did you mean 'evRevenueNtm'?)"
    )
    # quotes never add a name to the positions
    assert note("fields[0]: 'marketCap' is fine, 'evEbitdaNtm' too", sent) is None


@pytest.mark.parametrize(
    "words",
    [
        "fields[1]: must be one of marketCap, evRevenueNtm, evEbitdaNtm.",
        "fields[1]: unknown; allowed values: marketCap, evEbitdaNtm (see https://x/docs)",
        "fields[1]: unknown. Valid values are: evEbitdaNtm, marketCap",
    ],
)
def test_every_name_of_an_allowed_list_is_allowed(words: str) -> None:
    """``evEbitdaNtm``, listed last before a full stop or a ``(see ...)``, or after ``are:``,
    is allowed: the name to suggest for ``evEbitdaNtn``, not the document's ``evEbitdaLtm``."""
    assert note(words, ["marketCap", "evEbitdaNtn"]) == (
        "fields: 'evEbitdaNtn' (did you mean 'evEbitdaNtm'?)"
    )
