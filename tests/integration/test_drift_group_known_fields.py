"""A flat groups/current key is split at the longest Family A field the client knows: the
document's current-data fields (section 2.1: marketCap ... rateToUsd), their ``Lcu``
variants, and those the sandbox serves. ``revenueLtmWeightedMedian`` beside the sums and
medians is the ``weightedMedian`` of ``revenueLtm`` (it was the median of a field
``revenueLtmWeighted``, which no document names: a false row per field, the statistic lost).
A key naming no known field either way is read as before: ``peWeightedMedian`` is the median
of a field ``peWeighted``, a row of its own (said, not dropped). The statistic split off at a
known field is one of the closed list however written: ``rule_of_40_fy_median`` is the median
of a field ``rule_of_40_fy``, not a ``fy_median`` of ``rule_of_40`` (a false column, the row
lost, without a word)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    direct,
    edit,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    via,
)

from dealframe.notices import ServiceContractWarning

GROUP_CURRENT = "^/api/v2/groups/current$"
GROUP = {"regions": ["North America"]}


def _flat(own: str, extra: dict[str, float] | None = None) -> Callable[[Any], Any]:
    """The sandbox's ``{sum: {...}, median: {...}}`` as one flat camelCase object
    (``marketCapSum``, ``revenueLtmMedian``), plus ``<field><Own>`` per field, valued the
    field's sum (else median) + 1, and the keys of ``extra``."""
    tail = own[0].upper() + own[1:]

    def apply(doc: Any) -> Any:
        stats = doc["data"]
        flat = {f + s.title(): v for s in ("sum", "median") for f, v in stats[s].items()}
        for f in dict.fromkeys(f for s in ("sum", "median") for f in stats[s]):
            v = stats["sum"].get(f, stats["median"].get(f))
            flat[f + tail] = None if v is None else v + 1
        doc["data"] = {**flat, **(extra or {})}
        return doc

    return apply


@pytest.mark.parametrize("own", ["weightedMedian", "weightedMean"])
def test_a_statistic_ending_in_a_statistic_word_is_split_at_the_known_field(
    own, direct, via, proxy
):
    ref = direct.public.group_current(**GROUP)
    proxy.add(GROUP_CURRENT, edit(_flat(own)))
    o = outcome(lambda: via.public.group_current(**GROUP, strict=True))
    assert o.error is None, repr(o.error)
    assert list(o.value.columns) == ["sum", "median", own], list(o.value.columns)
    assert o.value.index.tolist() == ref.index.tolist()  # no revenueLtmWeighted row
    assert_same(o.value[["sum", "median"]], ref)
    want = (ref["sum"].fillna(ref["median"]) + 1).rename(own)
    pd.testing.assert_series_equal(o.value[own], want)
    assert not o.warned(ServiceContractWarning)


def test_a_key_of_no_known_field_is_kept_as_before(direct, via, proxy):
    ref = direct.public.group_current(**GROUP)
    proxy.add(GROUP_CURRENT, edit(_flat("stddev", {"peWeightedMedian": 12.5})))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert o.error is None, repr(o.error)
    assert o.value.index.tolist() == [*ref.index.tolist(), "peWeighted"]
    assert o.value.loc["peWeighted", "median"] == 12.5


def _snake(name: str) -> str:
    """``marketCapLcu`` as ``market_cap_lcu``, ``ruleOf40`` as ``rule_of_40``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[a-z])(?=[0-9])", "_", name).lower()


def _snake_flat(extra: dict[str, float]) -> Callable[[Any], Any]:
    """The sandbox's sums and medians as one flat snake_case object (``market_cap_sum``,
    ``revenue_ltm_median``), plus the keys of ``extra``."""

    def apply(doc: Any) -> Any:
        stats = doc["data"]
        flat = {f"{_snake(f)}_{s}": v for s in ("sum", "median") for f, v in stats[s].items()}
        doc["data"] = {**flat, **extra}
        return doc

    return apply


def test_a_snake_case_field_the_client_does_not_know_keeps_its_own_row(direct, via, proxy):
    """``rule_of_40_fy_median`` is the median of a field ``rule_of_40_fy``, a row of its own,
    not a ``fy_median`` of ``rule_of_40`` (nor ``market_cap_float_median`` a ``float_median``
    of ``market_cap``): after a separator, only a statistic of the closed list camelCase ones
    are is split off at a known field, so ``revenue_ltm_weighted_median`` is still the
    ``weighted_median`` of ``revenue_ltm``."""
    ref = direct.public.group_current(**GROUP)
    extra = {
        "rule_of_40_fy_median": 28.5,
        "market_cap_float_median": 0.62,
        "revenue_ltm_yoy_median": 0.11,
        "revenue_ltm_weighted_median": 9.0,
    }
    proxy.add(GROUP_CURRENT, edit(_snake_flat(extra)))
    o = outcome(lambda: via.public.group_current(**GROUP))  # warned: no documented field
    assert o.error is None, repr(o.error)
    assert list(o.value.columns) == ["sum", "median", "weighted_median"], list(o.value.columns)
    # the snake_case fields the client knows are read as the fields they spell (market_cap
    # as marketCap); the others keep their own rows as served
    known = list(ref.index)
    assert {"ruleOf40", "marketCap", "revenueLtm"} <= set(known), known
    unknown = ["rule_of_40_fy", "market_cap_float", "revenue_ltm_yoy"]
    assert sorted(o.value.index) == sorted([*known, *unknown]), o.value.index.tolist()
    assert o.value.loc[unknown, "median"].tolist() == [28.5, 0.62, 0.11]
    assert o.value.loc[unknown, "sum"].isna().all()
    assert o.value["weighted_median"].dropna().to_dict() == {"revenueLtm": 9.0}
