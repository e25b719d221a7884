"""Booleans of ``meta`` written as text, over the drift proxy.

The interface document types the aggregate's ``meta.methodology.empty_buckets_returned``
(section 4.3) and a collection's ``has_more`` as booleans. A service (or a gateway) writing
them as text (``"true"``, ``"FALSE"``) is read as a list page's ``has_more`` is: each read as
the boolean it says and said in one ``bad_meta`` warning for the call, with the counts written
as text. The aggregate's used to be kept as the text in ``attrs`` without a word, and Family
A's ``has_more`` (search, current data, group series) was ignored as "not a boolean". A value
that says no boolean (``"maybe"``) is a ``bad_meta`` finding, a ``ServiceContractError``
under ``strict=True``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    direct,
    drop_rows,
    edit,
    fresh_rules,
    meta_set,
    outcome,
    proxy,
    recount,
    via,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import MissingDataWarning, ServiceContractWarning

AGGREGATE = "^/api/private/v1/transactions/aggregate$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
SEARCH = "^/api/v2/companies$"
VENTURE = {"deal_type": ["Venture"]}
GROUP = {"regions": ["North America"], "fields": ["evRevenueLtm"]}
AS_WRITTEN = "written as text (or a float), not as a JSON integer or boolean: read as the value"


def _empty_buckets(value: Any) -> Any:
    """The aggregate answer with ``meta.methodology.empty_buckets_returned`` set to ``value``."""

    def apply(doc: Any) -> Any:
        doc["meta"]["methodology"]["empty_buckets_returned"] = value
        return doc

    return edit(apply, f"empty_buckets_returned={value!r}")


@pytest.mark.parametrize(("written", "read"), [("true", True), (" FALSE ", False)])
def test_aggregate_empty_buckets_returned_written_as_text_is_read_and_said_once(
    written, read, direct, via, proxy
):
    ref = direct.private.aggregate("valuation", "quarter", **VENTURE)
    assert ref.attrs["methodology"]["empty_buckets_returned"] is True  # the sandbox's own
    proxy.add(AGGREGATE, _empty_buckets(written))
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", **VENTURE))
    assert o.error is None, repr(o.error)
    assert o.value.attrs["methodology"]["empty_buckets_returned"] is read
    assert_same(o.value[["bucket", "n", "median"]], ref[["bucket", "n", "median"]])
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert f"meta.methodology.empty_buckets_returned {AS_WRITTEN}" in said[0], said
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["bad_meta"]


def test_aggregate_empty_buckets_returned_that_says_no_boolean_is_said_and_strict_raises(
    via, proxy
):
    proxy.add(AGGREGATE, _empty_buckets("maybe"))
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", **VENTURE))
    assert o.error is None, repr(o.error)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "meta.methodology.empty_buckets_returned is 'maybe', not a boolean" in said[0], said
    o = outcome(lambda: via.private.aggregate("valuation", "quarter", strict=True, **VENTURE))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert "empty_buckets_returned is 'maybe', not a boolean" in str(o.error)


def test_group_series_has_more_written_as_text_is_read_and_said(direct, via, proxy):
    """``"false"`` is read (the answer is whole) and said once; it was "not a boolean"."""
    ref = direct.public.group_time_series(**GROUP)
    proxy.add(GROUP_SERIES, meta_set(has_more="false"))
    o = outcome(lambda: via.public.group_time_series(**GROUP))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and f"meta.has_more {AS_WRITTEN}" in said[0], said
    assert len(o.warned(Warning)) == 1  # no count_mismatch: "false" says the answer is whole


def test_group_series_cut_short_with_has_more_written_as_text_is_warned(direct, via, proxy):
    """``"TRUE"`` says there are more periods: the cut answer is a ``count_mismatch``, as
    with ``true`` (it was ignored, and the cut answer taken for whole)."""
    ref = direct.public.group_time_series(**GROUP)
    proxy.add(GROUP_SERIES, drop_rows(5), recount(), meta_set(has_more="TRUE"))
    o = outcome(lambda: via.public.group_time_series(**GROUP))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref.iloc[:-5])
    missing = o.warned(MissingDataWarning)
    assert any("meta.has_more is true" in m and "periods" in m for m in missing), missing


def test_search_has_more_that_says_no_boolean_is_still_said_and_ignored(direct, via, proxy):
    ref = direct.public.search()
    proxy.add(SEARCH, meta_set(has_more="perhaps"))
    o = outcome(lambda: via.public.search())
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = o.warned(ServiceContractWarning)
    assert any("meta.has_more is 'perhaps', not a boolean: ignored" in m for m in said), said
