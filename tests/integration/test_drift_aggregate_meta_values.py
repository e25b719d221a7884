"""Aggregate ``meta`` values of the wrong type and buckets whose statistics do not hold
together, over the drift proxy.

Section 4.3 types ``total_deals`` and ``outliers_trimmed`` as integers and the methodology's
``date_range`` as ``{from: date, to: date}``; section 2 gives each bucket ``median``, ``q1``
and ``q3`` (all null when suppressed). A ``total_deals`` of ``"lots"``, a ``date_range`` of
``{"from": "soon", "to": null}``, a bucket with a null median beside its quartiles, or with
``q1`` above ``q3``, were read without a word; each is now said (``bad_meta``,
``null_field``, ``inverted_quartiles``), the values kept as served.
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
    meta_set,
    outcome,
    proxy,
    via,
)

from dealframe.notices import ServiceContractWarning

AGGREGATE = "^/api/private/v1/transactions/aggregate$"
VENTURE = {"deal_type": ["Venture"]}


def _call(client: Any) -> Any:
    return outcome(lambda: client.private.aggregate("valuation", "quarter", **VENTURE))


def _kinds(frame: Any) -> list[str]:
    return [f["kind"] for f in frame.attrs["findings"]]


def test_counts_that_are_no_integer_are_said(via, proxy):
    proxy.add(AGGREGATE, meta_set(total_deals="lots", outliers_trimmed=-2))
    o = _call(via)
    assert o.error is None, repr(o.error)
    assert o.value.attrs["total_deals"] == "lots"  # kept as served, not trusted
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "meta.total_deals is 'lots', meta.outliers_trimmed is -2" in said[0]
    assert "not a non-negative integer" in said[0]
    assert _kinds(o.value) == ["bad_meta"]


def test_a_date_range_that_is_no_pair_of_dates_is_said(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "quarter", **VENTURE)

    def soon(doc: Any) -> Any:
        doc["meta"]["methodology"]["date_range"] = {"from": "soon", "to": None}
        return doc

    proxy.add(AGGREGATE, edit(soon, "soon"))
    o = _call(via)
    assert o.error is None, repr(o.error)
    assert o.value[["bucket", "n"]].equals(ref[["bucket", "n"]])
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "meta.methodology.date_range is not {from: date, to: date}" in said[0]
    assert "from is 'soon', to is null" in said[0]


def test_bucket_statistics_that_do_not_hold_together_are_said(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "quarter", **VENTURE)
    shown = ref.loc[ref["median"].notna(), "bucket"].tolist()
    assert len(shown) >= 3
    first, second, third = shown[:3]

    def damage(doc: Any) -> Any:
        stated = [b for b in doc["data"] if b.get("median") is not None]
        stated[0]["median"] = None
        stated[1]["q1"], stated[1]["q3"] = stated[1]["q3"] + 1, stated[1]["q1"]
        stated[2]["median"] = stated[2]["q3"] + 5
        return doc

    proxy.add(AGGREGATE, edit(damage, "damage"))
    o = _call(via)
    assert o.error is None, repr(o.error)
    assert o.value["n"].tolist() == ref["n"].tolist()
    said = o.warned(ServiceContractWarning)
    nulls = [m for m in said if "median null in 1 of" in m]
    assert len(nulls) == 1 and f"({first})" in nulls[0], said
    order = [m for m in said if "quartiles out of order" in m]
    assert len(order) == 1, said
    assert f"q1 above q3 in {second}" in order[0]
    assert f"median outside q1..q3 in {second}, {third}" in order[0]
    assert sorted(_kinds(o.value)) == ["inverted_quartiles", "null_field"]


def test_the_sandbox_answer_says_nothing(direct):
    o = _call(direct)
    assert o.error is None, repr(o.error)
    assert not o.warned(ServiceContractWarning)


def test_a_null_total_and_a_null_date_range_are_said(direct, via, proxy):
    ref = direct.private.aggregate("valuation", "quarter", **VENTURE)

    def nulls(doc: Any) -> Any:
        doc["meta"]["total_deals"] = None
        doc["meta"]["methodology"]["date_range"] = None
        return doc

    proxy.add(AGGREGATE, edit(nulls, "nulls"))
    o = _call(via)
    assert o.error is None, repr(o.error)
    assert o.value[["bucket", "n"]].equals(ref[["bucket", "n"]])
    said = o.warned(ServiceContractWarning)
    assert len(said) == 2, said
    assert any("meta.total_deals is null: not a non-negative integer" in m for m in said), said
    assert any(
        "meta.methodology.date_range is not {from: date, to: date}: it is null" in m for m in said
    ), said
    assert _kinds(o.value) == ["bad_meta", "bad_meta"]
