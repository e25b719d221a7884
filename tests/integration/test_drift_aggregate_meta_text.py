"""Aggregate ``meta`` integers written as text, over the drift proxy.

The interface document types ``meta.total_deals``, ``meta.outliers_trimmed`` and the
methodology's ``small_n_threshold`` and ``default_date_range_years`` as integers (section
4.3). A service (or a gateway) writing them as text (``"4934"``) is read as a list page's
``meta`` is: each read as its integer and said in one warning, so that ``total_deals`` is still
compared with the buckets' ``n`` (that check used to be skipped, and ``attrs`` held the text).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    via,
)

from dealframe.notices import ServiceContractWarning

AGGREGATE = "^/api/private/v1/transactions/aggregate$"
VENTURE = {"deal_type": ["Venture"]}
NAMES = (
    "meta.total_deals, meta.outliers_trimmed, meta.methodology.small_n_threshold, "
    "meta.methodology.default_date_range_years written as text"
)


def _as_text(extra: int = 0) -> Any:
    """The aggregate answer with its meta integers written as text (``total_deals`` plus
    ``extra``)."""

    def apply(doc: Any) -> Any:
        meta, method = doc["meta"], doc["meta"]["methodology"]
        meta["total_deals"] = str(meta["total_deals"] + extra)
        meta["outliers_trimmed"] = str(meta["outliers_trimmed"])
        for name in ("small_n_threshold", "default_date_range_years"):
            method[name] = str(method[name])
        return doc

    return edit(apply, f"as_text({extra})")


def test_meta_integers_written_as_text_are_read_and_said(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "quarter", **VENTURE)
    proxy.add(AGGREGATE, _as_text())
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", **VENTURE))
    assert o.error is None, repr(o.error)
    got = o.value
    for name in ("total_deals", "outliers_trimmed"):
        assert type(got.attrs[name]) is int and got.attrs[name] == ref.attrs[name]
    for name in ("small_n_threshold", "default_date_range_years"):
        value = got.attrs["methodology"][name]
        assert type(value) is int and value == ref.attrs["methodology"][name]
    assert got[["bucket", "n"]].equals(ref[["bucket", "n"]])
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and NAMES in said[0] and "read as the value written" in said[0], said


def test_total_deals_written_as_text_is_still_compared_with_the_buckets(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "quarter", **VENTURE)
    extra = 100_000  # more than any left-out bucket below the threshold can hold
    proxy.add(AGGREGATE, _as_text(extra))
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", **VENTURE))
    assert o.error is None, repr(o.error)
    assert o.value.attrs["total_deals"] == ref.attrs["total_deals"] + extra
    said = [m for m in o.warned(ServiceContractWarning) if "the buckets' n add up to" in m]
    assert len(said) == 1, o.warned(ServiceContractWarning)
    assert f"meta.total_deals is {ref.attrs['total_deals'] + extra}" in said[0]
