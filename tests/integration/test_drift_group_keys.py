"""Group answers whose keys or ``meta`` a real service spells otherwise, played by the drift
proxy: groups/current statistic names in another case or plural, statistics that cannot be
told apart, and counts of ``meta`` written as text (issue 12, the public interface's groups).

A statistic named ``Sum``, ``SUMS`` or ``medians`` is the same statistic: the frame equals
the undisturbed one. A key that names no statistic where the sum or the median is missing
(``{total, median}``) is refused, naming the keys seen, never read as a field (the frame came
out transposed, 2 x 27) nor left as an all-null ``sum``; beside both a sum and a median, such a
key (``stddev``, ``weighted_median``) is a statistic of the service's own, a column of its own
in every layout (it was refused too). The doctor says ``adapted`` only when the client reads
the sums and medians the document gives, and describes the layout it read. Counts written as
text are integers in ``attrs``, and one warning names every member so written.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Outcome,
    assert_same,
    direct,
    edit,
    fresh_rules,
    meta_set,
    no_hang,
    outcome,
    proxy,
    via,
)

from dealframe import doctor
from dealframe.doctor import ADAPTED, BREAKS
from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

GROUP_CURRENT = "^/api/v2/groups/current$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
SEARCH = "^/api/v2/companies$"
GROUP = {"regions": ["North America"]}
SERIES = {**GROUP, "fields": ["evRevenueLtm"], "date_from": "2024-01", "date_to": "2024-06"}


def _renamed(names: dict[str, str]) -> Callable[[Any], Any]:
    """The sandbox's ``{sum: {...}, median: {...}}`` with its statistics named otherwise."""

    def apply(doc: Any) -> Any:
        doc["data"] = {names.get(k, k): v for k, v in doc["data"].items()}
        return doc

    return apply


def _field_major(names: dict[str, str]) -> Callable[[Any], Any]:
    """``{field: {stat: x}}``, each statistic named as ``names`` says."""

    def apply(doc: Any) -> Any:
        out: dict[str, dict[str, Any]] = {}
        for stat, cells in doc["data"].items():
            for name, value in cells.items():
                out.setdefault(name, {})[names.get(stat, stat)] = value
        doc["data"] = out
        return doc

    return apply


def _group_check(client: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(client, family="A")
    return next(c for c in diagnosis.checks if c.name == "A.groups.current")


def _contract_warnings(o: Outcome) -> list[str]:
    return o.warned(ServiceContractWarning)


# ------------------------------------------------------------------ statistic names spelt otherwise

SPELLINGS = {
    "Sum-Median": {"sum": "Sum", "median": "Median"},
    "SUM-MEDIAN": {"sum": "SUM", "median": "MEDIAN"},
    "sums-medians": {"sum": "sums", "median": "medians"},
}


@pytest.mark.parametrize("names", SPELLINGS.values(), ids=SPELLINGS.keys())
@pytest.mark.parametrize("layout", [_renamed, _field_major], ids=["stat-major", "field-major"])
def test_statistics_in_another_case_or_plural_are_read(names, layout, direct, via, proxy):
    """``{Sum: {...}, Median: {...}}`` (or ``{field: {SUM, MEDIAN}}``) is the sandbox's frame,
    without a warning: it gave a 2 x 27 frame indexed by the statistics, fields as columns."""
    ref = direct.public.group_current(**GROUP)
    proxy.add(GROUP_CURRENT, edit(layout(names)))
    o = outcome(lambda: via.public.group_current(**GROUP, strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value.sort_index(), ref.sort_index())
    assert not _contract_warnings(o)


@pytest.mark.parametrize("names", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_the_doctor_says_the_statistic_names_it_read(names, via, proxy):
    proxy.add(GROUP_CURRENT, edit(_renamed(names)))
    check = _group_check(via)
    assert check.verdict == ADAPTED, check
    assert f"{{{names['sum']}: {{...}}, {names['median']}: {{...}}}}" in check.observed, check


# ---------------------------------------------------------- statistics that cannot be told apart

UNTOLD = {
    # a sum under a name that is no statistic's, beside the median
    "total-median": (_renamed({"sum": "total"}), ("total", "median")),
    # statistics under names that are none: fields must not be read as statistics
    "somme-mediane": (_renamed({"sum": "somme", "median": "mediane"}), ("somme", "mediane")),
    # field-major, one statistic under a name that is none
    "field-total": (_field_major({"sum": "total"}), ("total",)),
}


@pytest.mark.parametrize(("rewrite", "keys"), UNTOLD.values(), ids=UNTOLD.keys())
def test_a_statistic_that_cannot_be_told_is_refused_naming_the_keys(rewrite, keys, via, proxy):
    """ServiceContractError naming the keys served: it returned a transposed frame, or one
    with its ``sum`` all null, warning of a missing sum without naming what came."""
    proxy.add(GROUP_CURRENT, edit(rewrite))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    said = str(o.error)
    assert "/groups/current" in said and all(k in said for k in keys), said
    assert "statistic" in said, said


def test_the_doctor_breaks_where_the_client_cannot_tell_a_sum(via, proxy):
    proxy.add(GROUP_CURRENT, edit(_renamed({"sum": "total"})))
    check = _group_check(via)
    assert check.verdict == BREAKS and "total" in check.observed, check


def test_the_doctor_breaks_naming_the_statistic_the_client_warns_of(direct, via, proxy):
    """Only medians served (``{median: {...}}``): the client warns of no sum on every call, so
    the doctor says ``breaks`` and names the sum (it said ``adapted``, ``{field: {sum,
    median}}``, a layout not served)."""

    def medians_only(doc: Any) -> Any:
        doc["data"] = {"median": doc["data"]["median"]}
        return doc

    proxy.add(GROUP_CURRENT, edit(medians_only))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert any("no sum" in m for m in _contract_warnings(o)), o.caught
    check = _group_check(via)
    assert check.verdict == BREAKS, check
    assert "no sum" in check.observed and "{median: {...}}" in check.observed, check
    assert "{field:" not in check.observed, check


# ------------------------------------------ statistics of the service's own, beside sum and median


def _rows(doc: Any) -> Any:
    """``[{field, stat: x, ...}]``, one row per field, ``null`` where it has no such statistic."""
    stats = doc["data"]
    fields = dict.fromkeys(f for cells in stats.values() for f in cells)
    doc["data"] = [{"field": f, **{s: cells.get(f) for s, cells in stats.items()}} for f in fields]
    return doc


def _plus(name: str, layout: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The sandbox's statistics and one more, ``name``: half of each median (the medians'
    fields), then served in ``layout``."""

    def apply(doc: Any) -> Any:
        medians = doc["data"]["median"]
        doc["data"][name] = {f: None if v is None else v / 2 for f, v in medians.items()}
        return layout(doc)

    return apply


LAYOUTS = {"stat-major": _renamed({}), "field-major": _field_major({}), "list": _rows}
OWN = ["stddev", "weighted_median"]


@pytest.mark.parametrize("name", OWN)
@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_statistic_of_the_services_own_beside_sum_and_median_is_a_column(
    name, layout, direct, via, proxy
):
    """``{sum, median, stddev}`` (or ``weighted_median``), in each layout: the sums and medians
    of the sandbox's frame, and one more column named as served, without a warning. Any key
    that was not in the list of statistic words made every group call a ServiceContractError."""
    ref = direct.public.group_current(**GROUP)
    proxy.add(GROUP_CURRENT, edit(_plus(name, layout)))
    o = outcome(lambda: via.public.group_current(**GROUP, strict=True))
    assert o.error is None, repr(o.error)
    assert list(o.value.columns) == ["sum", "median", name], list(o.value.columns)
    assert_same(o.value[["sum", "median"]].sort_index(), ref.sort_index())
    half = (ref["median"] / 2).rename(name)
    pd.testing.assert_series_equal(o.value[name].sort_index(), half.sort_index())
    assert not _contract_warnings(o)


def test_the_doctor_holds_beside_a_statistic_of_the_services_own(via, proxy):
    proxy.add(GROUP_CURRENT, edit(_plus("stddev", _renamed({}))))
    check = _group_check(via)
    assert check.verdict != BREAKS, check
    assert "{sum: {...}, median: {...}, stddev: {...}}" in check.observed, check


def _then(first: Callable[[Any], Any], second: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda doc: second(first(doc))


MISSING = {
    # the sum under a name that is none, beside the median and a statistic of the service's own
    "total-median-stddev": (_plus("stddev", _renamed({"sum": "total"})), ("total", "stddev")),
    "field-total-stddev": (_plus("stddev", _field_major({"sum": "total"})), ("total", "stddev")),
    "list-total": (_then(_renamed({"sum": "total"}), _rows), ("total",)),
}


@pytest.mark.parametrize(("rewrite", "keys"), MISSING.values(), ids=MISSING.keys())
def test_a_key_beside_a_missing_sum_is_still_refused(rewrite, keys, via, proxy):
    """Where the sum is missing, a key that names no statistic may be it: refused, naming the
    keys, as ``{total, median}`` is."""
    proxy.add(GROUP_CURRENT, edit(rewrite))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    said = str(o.error)
    assert all(k in said for k in keys) and "no sum" in said, said


# ---------------------------------------------------------------------- meta counts written as text


def test_group_series_counts_written_as_text_are_integers_in_attrs(direct, via, proxy):
    """``meta: {count: "3", companies: "15"}``: ``attrs`` holds 3 and 15 (it held the text, so
    ``attrs["companies"] > 10`` raised TypeError), and the one warning names both."""
    ref = direct.public.group_time_series(**SERIES)

    def as_text(doc: Any) -> Any:
        doc["meta"] = {k: str(v) for k, v in doc["meta"].items()}
        return doc

    proxy.add(GROUP_SERIES, edit(as_text))
    o = outcome(lambda: via.public.group_time_series(**SERIES))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    for name in ("count", "companies"):
        assert type(o.value.attrs[name]) is int and o.value.attrs[name] == ref.attrs[name]
    said = [m for m in _contract_warnings(o) if "written as text" in m]
    assert len(said) == 1 and "meta.count, meta.companies" in said[0], _contract_warnings(o)


def test_a_group_series_count_that_is_none_is_said_and_not_kept(direct, via, proxy):
    ref = direct.public.group_time_series(**SERIES)
    proxy.add(GROUP_SERIES, meta_set(companies="many"))
    o = outcome(lambda: via.public.group_time_series(**SERIES))
    assert o.error is None, repr(o.error)
    assert o.value.attrs["companies"] is None and o.value.attrs["count"] == ref.attrs["count"]
    assert any("meta.companies is 'many', not a count" in m for m in _contract_warnings(o))


def test_group_current_counts_written_as_text_are_integers_in_attrs(direct, via, proxy):
    ref = direct.public.group_current(**GROUP)
    companies = ref.attrs["companies"]
    assert type(companies) is int and companies > 0
    proxy.add(GROUP_CURRENT, meta_set(companies=str(companies), count=float(companies)))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert type(o.value.attrs["companies"]) is int and o.value.attrs["companies"] == companies
    assert type(o.value.attrs["count"]) is int and o.value.attrs["count"] == companies
    said = [m for m in _contract_warnings(o) if "written as text" in m]
    assert len(said) == 1 and "meta.count, meta.companies" in said[0], _contract_warnings(o)


def test_an_empty_group_with_its_count_as_text_is_an_empty_group(via, proxy):
    """``companies: "0"`` is 0: an empty group, whose statistics are all null, is not warned
    of missing sums (the text "0" was not 0, so it was)."""

    def empty(doc: Any) -> Any:
        doc["data"] = {s: dict.fromkeys(cells) for s, cells in doc["data"].items()}
        doc["meta"] = {"count": "0", "companies": "0"}
        return doc

    proxy.add(GROUP_CURRENT, edit(empty))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert o.error is None, repr(o.error)
    assert o.value.attrs["companies"] == 0 and o.value[["sum", "median"]].isna().all().all()
    assert not [m for m in _contract_warnings(o) if "no sum" in m or "no median" in m]


def test_the_other_family_a_calls_put_no_text_count_in_attrs(direct, via, proxy):
    """search, current data and time series: a ``meta.count`` written as text is read (and
    said), and every count their ``attrs`` hold is an integer."""
    skus = direct.public.search(**GROUP).index[:3].tolist()
    proxy.add(
        "^/api/v2/companies(/current|/time-series)?$",
        edit(lambda doc: {**doc, "meta": {"count": str(doc["meta"]["count"])}}),
    )
    calls: dict[str, Callable[[], pd.DataFrame]] = {
        "search": lambda: via.public.search(**GROUP),
        "current": lambda: via.public.current(skus),
        "time_series": lambda: via.public.time_series(skus, fields=["evRevenueLtm"]),
    }
    for name, call in calls.items():
        o = outcome(call)
        assert o.error is None, (name, o.error)
        assert any("meta.count written as text" in m for m in _contract_warnings(o)), name
        counts = {k: v for k, v in o.value.attrs.items() if k in ("count", "companies", "total")}
        counts |= {k: o.value.attrs[k] for k in ("rows_expected", "rows_received")}
        assert all(type(v) is int for v in counts.values()), (name, counts)
