"""Group answers whose keys or ``meta`` a real service spells otherwise, played by the drift
proxy: groups/current statistic names in another case or plural, statistics that cannot be
told apart, and counts of ``meta`` written as text (issue 12, the public interface's groups).

A statistic named ``Sum``, ``SUMS`` or ``medians`` is the same statistic: the frame equals
the undisturbed one. A key that names no statistic where the sum or the median is missing
(``{total, median}``) is refused, naming the keys seen, never read as a field (the frame came
out transposed, 2 x 27) nor left as an all-null ``sum``; beside both a sum and a median, such a
key (``stddev``, ``weighted_median``) is a statistic of the service's own, a column of its own
in every layout (it was refused too), the flat ``{marketCap_sum, ..., marketCap_stddev}`` among
them (written in any of the four ways the sums and medians are; it made the whole call a
ServiceContractError), while a flat key that splits into no field read and statistic, or into
more than one, is still refused, as is a known field written without its statistic
(``marketCapLcu``, ``ruleOf40Ltm``: it was read as an ``lcu`` of marketCap, an ``ltm`` of
ruleOf40, the field's row gone); a camelCase statistic is one of a closed list. The doctor says ``adapted`` only when the client reads
the sums and medians the document gives, and describes the layout it read. Counts written as
text are integers in ``attrs``, and one warning names every member so written.
"""

from __future__ import annotations

import re
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


# ------------------------------------------- the flat layout, with statistics of the service's own

#: The four ways a flat key names its statistic, for a statistic ``stat`` of field ``field``.
FLAT_WAYS: dict[str, Callable[[str, str], str]] = {
    "field_stat": lambda stat, field: f"{field}_{stat}",  # marketCap_stddev
    "field.stat": lambda stat, field: f"{field}.{stat}",  # marketCap.stddev
    "fieldStat": lambda stat, field: field + stat[0].upper() + stat[1:],  # marketCapStddev
    "stat_field": lambda stat, field: f"{stat}_{field}",  # stddev_marketCap
    "statField": lambda stat, field: stat + field[0].upper() + field[1:],  # stddevMarketCap
    # marketCap_sum beside marketCapStddev (or marketCap.stddev): the statistic written otherwise
    "field_sum,fieldStat": lambda stat, field: (
        f"{field}_{stat}" if stat in ("sum", "median") else field + stat[0].upper() + stat[1:]
    ),
    "field_sum,field.stat": lambda stat, field: (
        f"{field}{'_' if stat in ('sum', 'median') else '.'}{stat}"
    ),
}


def _flat(way: Callable[[str, str], str], own: str | None = "stddev") -> Callable[[Any], Any]:
    """The sandbox's ``{sum: {...}, median: {...}}`` as one flat object, each key naming its
    field and statistic ``way``, plus (``own``) one key per field for a statistic of the
    service's own: the field's sum (else its median) plus 1, so each value is told apart."""

    def apply(doc: Any) -> Any:
        stats = doc["data"]
        flat = {way(s, f): v for s in ("sum", "median") for f, v in stats[s].items()}
        if own is not None:
            fields = dict.fromkeys(f for s in ("sum", "median") for f in stats[s])
            for f in fields:
                v = stats["sum"].get(f, stats["median"].get(f))
                flat[way(own, f)] = None if v is None else v + 1
        doc["data"] = flat
        return doc

    return apply


def _own_values(ref: pd.DataFrame, name: str) -> pd.Series:
    """What :func:`_flat` serves as statistic ``name``: each field's sum (else median) + 1."""
    return (ref["sum"].fillna(ref["median"]) + 1).rename(name)


@pytest.mark.parametrize("way", FLAT_WAYS.values(), ids=FLAT_WAYS.keys())
def test_a_flat_statistic_of_the_services_own_beside_sum_and_median_is_a_column(
    way, direct, via, proxy
):
    """``{marketCap_sum, ..., revenueLtm_median, ..., marketCap_stddev, ...}``: the sandbox's
    sums and medians per field, and a ``stddev`` column, as the other layouts read it, without
    a warning. A flat key naming a statistic other than sum, median, mean, min or max made the
    whole call a ServiceContractError, though every sum and median was there."""
    ref = direct.public.group_current(**GROUP)
    proxy.add(GROUP_CURRENT, edit(_flat(way)))
    o = outcome(lambda: via.public.group_current(**GROUP, strict=True))
    assert o.error is None, repr(o.error)
    assert list(o.value.columns) == ["sum", "median", "stddev"], list(o.value.columns)
    assert o.value.index.tolist() == ref.index.tolist()
    assert_same(o.value[["sum", "median"]], ref)
    pd.testing.assert_series_equal(o.value["stddev"], _own_values(ref, "stddev"))
    assert o.value.attrs["companies"] == ref.attrs["companies"]
    assert not _contract_warnings(o)


@pytest.mark.parametrize("way", ["field_stat", "field.stat", "stat_field"])
def test_a_flat_statistic_whose_name_holds_a_separator_is_a_column(way, direct, via, proxy):
    """``revenueLtm_weighted_median``: the ``weighted_median`` of ``revenueLtm``, as the other
    layouts read it, not the median of a field ``revenueLtm_weighted`` (a row more each)."""
    ref = direct.public.group_current(**GROUP)
    proxy.add(GROUP_CURRENT, edit(_flat(FLAT_WAYS[way], own="weighted_median")))
    o = outcome(lambda: via.public.group_current(**GROUP, strict=True))
    assert o.error is None, repr(o.error)
    assert list(o.value.columns) == ["sum", "median", "weighted_median"], list(o.value.columns)
    assert o.value.index.tolist() == ref.index.tolist()
    assert_same(o.value[["sum", "median"]], ref)
    want = _own_values(ref, "weighted_median")
    pd.testing.assert_series_equal(o.value["weighted_median"], want)


@pytest.mark.parametrize("way", ["field_stat", "fieldStat"])
def test_the_doctor_adapts_to_a_flat_layout_with_a_statistic_of_its_own(way, via, proxy):
    proxy.add(GROUP_CURRENT, edit(_flat(FLAT_WAYS[way])))
    check = _group_check(via)
    assert check.verdict == ADAPTED, check
    assert "statistic in each key" in check.observed and "stddev" in check.observed, check


def _snake(name: str) -> str:
    """``marketCapLcu`` as ``market_cap_lcu``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _snake_flat(doc: Any) -> Any:
    """The sandbox's sums and medians as one flat object of snake_case keys, each naming its
    statistic after its field: ``market_cap_sum``, ``revenue_ltm_lcu_median``."""
    stats = doc["data"]
    doc["data"] = {f"{_snake(f)}_{s}": v for s in ("sum", "median") for f, v in stats[s].items()}
    return doc


def _plus_flat(extra: dict[str, Any], own: str | None = "stddev") -> Callable[[Any], Any]:
    """:func:`_flat` (``field_stat``), then the keys ``extra`` too."""
    return lambda doc: {
        **doc,
        "data": {**_flat(FLAT_WAYS["field_stat"], own)(doc)["data"], **extra},
    }


FLAT_REFUSED = {
    # a key that cannot be split into a field and a statistic: a field without its statistic
    "no-statistic": (_plus_flat({"evRevenueLtm": 4.2}), ("evRevenueLtm", "name no statistic")),
    # a statistic named as a field read (the pe of marketCap?): no statistic
    "field-as-statistic": (
        _plus_flat({"marketCap_revenueLtm": 1.0}),
        ("marketCap_revenueLtm", "name no statistic"),
    ),
    # beside snake_case keys, a spread of revenue_ltm_lcu, or an lcu_spread of revenue_ltm?
    "two-readings": (
        lambda doc: {**doc, "data": {**_snake_flat(doc)["data"], "revenue_ltm_lcu_spread": 1.0}},
        ("data.revenue_ltm_lcu_spread", "more than one way", "spread of revenue_ltm_lcu"),
    ),
    # beside camelCase keys, a camelCase tail is a statistic only when it is one of the list:
    # Spread is none (a spread of revenueLtmLcu, or the rest of a field's name?)
    "camel-unlisted": (
        lambda doc: {
            **doc,
            "data": {**_flat(FLAT_WAYS["fieldStat"])(doc)["data"], "revenueLtmLcuSpread": 1.0},
        },
        ("revenueLtmLcuSpread", "name no statistic"),
    ),
    # a field written without its statistic, beside camelCase keys: a field, not an ev of
    # revenueLtm nor an lcu of revenueLtm
    "camel-fields": (
        lambda doc: {
            **doc,
            "data": {
                **_flat(FLAT_WAYS["fieldStat"])(doc)["data"],
                "evRevenueLtm": 1.0,
                "revenueLtmLcu": 2.0,
            },
        },
        ("evRevenueLtm, revenueLtmLcu", "name no statistic"),
    ),
    # the median missing: the key that names no statistic may be it
    "no-median": (
        lambda doc: {
            **doc,
            "data": {
                **{f"{f}_sum": v for f, v in doc["data"]["sum"].items()},
                **{f"{f}_middle": v for f, v in doc["data"]["median"].items()},
            },
        },
        ("revenueLtm_middle", "name no statistic"),
    ),
}


@pytest.mark.parametrize(("rewrite", "said"), FLAT_REFUSED.values(), ids=FLAT_REFUSED.keys())
def test_a_flat_key_that_cannot_be_read_one_way_is_still_refused(rewrite, said, via, proxy):
    """Beside sums and medians, a flat key that splits into no field read and statistic, or into
    two, is a ServiceContractError naming it, never guessed; as is any where the median is
    missing (such a key may be it)."""
    proxy.add(GROUP_CURRENT, edit(rewrite))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    message = str(o.error)
    assert "/groups/current" in message and all(s in message for s in said), message


#: Fields the client knows (the document's ``Lcu`` variants, ``ruleOf40Ltm``) that are another
#: field it knows plus a camelCase tail: each, written without its statistic, was read as a
#: statistic column named by that tail (``lcu`` of marketCap, ``ltm`` of ruleOf40).
LONGER_FIELDS = [
    "marketCapLcu",
    "enterpriseValueLcu",
    "revenueLtmLcu",
    "revenueNtmLcu",
    "ebitdaLtmLcu",
    "ebitdaNtmLcu",
    "ruleOf40Ltm",
]


def _alone(field: str, way: Callable[[str, str], str], own: str | None) -> Callable[[Any], Any]:
    """:func:`_flat` in ``way`` (with statistic ``own`` per field but ``field``), then
    ``field``'s median written as the bare field name: a field whose class has one statistic,
    served without it."""

    def apply(doc: Any) -> Any:
        median = doc["data"]["median"][field]
        flat = _flat(way, own)(doc)["data"]
        del flat[way("median", field)]
        if own is not None:
            del flat[way(own, field)]
        doc["data"] = {**flat, field: median}
        return doc

    return apply


ALONE_WAYS = {
    "fieldStat": ("fieldStat", None),
    "field_stat": ("field_stat", None),
    "statField": ("statField", None),
    "fieldStat+stddev": ("fieldStat", "stddev"),
    "field_stat+stddev": ("field_stat", "stddev"),
}


@pytest.mark.parametrize("field", LONGER_FIELDS)
@pytest.mark.parametrize(("way", "own"), ALONE_WAYS.values(), ids=ALONE_WAYS.keys())
def test_a_flat_field_written_without_its_statistic_is_refused_not_split(
    field, way, own, via, proxy
):
    """``{marketCapSum, ..., revenueLtmMedian, ..., marketCapLcu: x}``: a
    ServiceContractError naming ``marketCapLcu`` as a field without its statistic, as before
    flat keys could name a statistic of the service's own. It gave a frame with an ``lcu``
    column holding x as marketCap's, the row marketCapLcu gone, and no warning."""
    proxy.add(GROUP_CURRENT, edit(_alone(field, FLAT_WAYS[way], own)))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert isinstance(o.error, ServiceContractError), (
        repr(o.error) if o.error else list(o.value.columns)
    )
    message = str(o.error)
    assert "/groups/current" in message and "name no statistic" in message, message
    assert f"{field}: a field written without its statistic" in message, message


def test_a_snake_case_field_written_without_its_statistic_is_refused_not_split(via, proxy):
    """``{market_cap_sum, ..., market_cap_lcu: x}``: ``market_cap_lcu`` spells marketCapLcu,
    a field, not an ``lcu`` of market_cap (it was read as one)."""

    def rewrite(doc: Any) -> Any:
        median = doc["data"]["median"]["marketCapLcu"]
        flat = _snake_flat(doc)["data"]
        del flat["market_cap_lcu_median"]
        doc["data"] = {**flat, "market_cap_lcu": median}
        return doc

    proxy.add(GROUP_CURRENT, edit(rewrite))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert isinstance(o.error, ServiceContractError), (
        repr(o.error) if o.error else list(o.value.columns)
    )
    assert "market_cap_lcu: a field written without its statistic" in str(o.error), o.error


def test_a_snake_case_flat_answer_with_a_statistic_of_its_own_is_read(direct, via, proxy):
    """Beside snake_case sums and medians, ``market_cap_stddev`` is the stddev of market_cap
    (a separated statistic is any name), and ``revenue_ltm_lcu_stddev`` the stddev of
    revenue_ltm_lcu, not an ``lcu_stddev`` of revenue_ltm: the other keys' statistic."""
    ref = direct.public.group_current(**GROUP)

    def rewrite(doc: Any) -> Any:
        fields = dict.fromkeys(f for s in ("sum", "median") for f in doc["data"][s])
        stddev = {f"{_snake(f)}_stddev": float(len(f)) for f in fields}
        return {**doc, "data": {**_snake_flat(doc)["data"], **stddev}}

    proxy.add(GROUP_CURRENT, edit(rewrite))
    o = outcome(lambda: via.public.group_current(**GROUP))  # warned: no documented field
    assert o.error is None, repr(o.error)
    assert list(o.value.columns) == ["sum", "median", "stddev"], list(o.value.columns)
    # the snake_case fields are read as the fields they spell (market_cap as marketCap)
    assert o.value["stddev"].to_dict() == {f: float(len(f)) for f in ref.index}


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
