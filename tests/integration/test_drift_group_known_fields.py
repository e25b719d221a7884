"""A flat groups/current key is split at the longest Family A field the client knows: the
document's current-data fields (section 2.1: marketCap ... rateToUsd), their ``Lcu``
variants, and those the sandbox serves. ``revenueLtmWeightedMedian`` beside the sums and
medians is the ``weightedMedian`` of ``revenueLtm`` (it was the median of a field
``revenueLtmWeighted``, which no document names: a false row per field, the statistic lost).
A key naming no known field either way is read as before: ``peWeightedMedian`` is the median
of a field ``peWeighted``, a row of its own (said, not dropped)."""

from __future__ import annotations

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
