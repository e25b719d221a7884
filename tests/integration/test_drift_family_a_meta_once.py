"""Family A's ``meta`` said once per call, over the drift proxy.

- A search (or group series) answer writing ``count`` and ``has_more`` as text was said in
  two ``bad_meta`` warnings, one per member; a list page's, the aggregate's and now these
  name every member so written in one.
- Current data of 100 SKUs, sent 25 a time (the service refuses more), with ``has_more:
  true`` on every answer got four identical ``count_mismatch`` warnings, and under
  ``strict=True`` an ``IncompleteResultError`` "received 100 of 100 SKUs" although every SKU
  arrived: an answer holding every SKU its request asked for cannot be short. Answers really
  short by their own ``meta`` are one finding of the call, not one per chunk.
- A ``meta`` value that is no count or no boolean is quoted in its first 100 characters: a
  100,000-character ``has_more`` made a finding (and an error) as long.
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
    fresh,
    fresh_rules,
    meta_set,
    outcome,
    proxy,
    refuse,
    via,
)

from dealframe.errors import IncompleteResultError, ServiceContractError
from dealframe.notices import MissingDataWarning, ServiceContractWarning

SEARCH = "^/api/v2/companies$"
CURRENT = "^/api/v2/companies/current$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
GROUP = {"regions": ["North America"], "fields": ["evRevenueLtm"]}
AS_WRITTEN = "written as text (or a float), not as a JSON integer or boolean: read as the value"
AT_MOST_25 = {"error": {"code": "BAD_REQUEST", "message": "skus: at most 25 SKUs per request"}}


def _counts_as_text(*names: str) -> Any:
    """The answer with its ``meta`` members ``names`` written as text."""

    def apply(doc: Any) -> Any:
        for name in names:
            doc["meta"][name] = str(doc["meta"][name])
        return doc

    return edit(apply, f"as text: {', '.join(names)}")


def _kinds(frame: Any) -> list[str]:
    return [f["kind"] for f in frame.attrs["findings"]]


def test_search_count_and_has_more_written_as_text_are_one_warning(direct, via, proxy):
    ref = direct.public.search()
    proxy.add(SEARCH, _counts_as_text("count"), meta_set(has_more="false"))
    o = outcome(lambda: via.public.search())
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = o.warned(Warning)
    assert said == [f"POST /api/v2/companies: meta.count, meta.has_more {AS_WRITTEN} written"]
    assert _kinds(o.value) == ["bad_meta"]


def test_group_series_counts_and_has_more_written_as_text_are_one_warning(direct, via, proxy):
    ref = direct.public.group_time_series(**GROUP)
    proxy.add(GROUP_SERIES, _counts_as_text("count", "companies"), meta_set(has_more="false"))
    o = outcome(lambda: via.public.group_time_series(**GROUP))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = o.warned(Warning)
    assert len(said) == 1, said
    assert f"meta.count, meta.companies, meta.has_more {AS_WRITTEN}" in said[0], said
    assert o.value.attrs["has_more"] is False  # read as the boolean it says, not the text
    assert o.value.attrs["companies"] == ref.attrs["companies"]


@pytest.mark.parametrize("more", ["true", True], ids=["text", "json"])
def test_has_more_on_chunks_that_hold_every_sku_is_not_a_shortfall(more, direct, fresh, proxy):
    skus = direct.public.search().index.tolist()[:100]
    ref = direct.public.current(skus)
    proxy.add(CURRENT, refuse(400, lambda sent: AT_MOST_25, 25, "skus"), meta_set(has_more=more))
    o = outcome(lambda: fresh.public.current(skus))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert proxy.count(CURRENT) == 1 + 4  # refused once, then four chunks of 25
    assert o.value.attrs["missing_skus"] == []
    assert not any("has_more is true" in m for m in o.warned(Warning)), o.warned(Warning)
    assert "count_mismatch" not in _kinds(o.value)
    strict = outcome(lambda: fresh.public.current(skus, strict=True))
    if more is True:  # nothing wrong with the answers at all
        assert strict.error is None, repr(strict.error)
    else:  # has_more written as text: the contract broken, no row lost
        assert isinstance(strict.error, ServiceContractError), repr(strict.error)
        assert not isinstance(strict.error, IncompleteResultError)


def test_chunks_short_by_their_meta_are_one_finding_of_the_call(direct, fresh, proxy):
    """Each answer drops its last row and keeps ``meta.count``: one ``count_mismatch``."""
    skus = direct.public.search().index.tolist()[:100]
    proxy.add(CURRENT, refuse(400, lambda sent: AT_MOST_25, 25, "skus"), drop_rows(1))
    o = outcome(lambda: fresh.public.current(skus))
    assert o.error is None, repr(o.error)
    assert len(o.value) == 96 and len(o.value.attrs["missing_skus"]) == 4
    mismatches = [f for f in o.value.attrs["findings"] if f["kind"] == "count_mismatch"]
    assert len(mismatches) == 1, mismatches
    assert mismatches[0]["message"].startswith(
        "4 of 4 answers hold fewer items than their meta says; the first: meta.count says 25 "
        "items, data holds 24"
    ), mismatches
    assert mismatches[0]["shortfall"] == 4
    said = o.warned(ServiceContractWarning)
    assert len([m for m in said if "meta.count says" in m]) == 1, said
    assert any("4 of 100 SKUs were not returned" in m for m in o.warned(MissingDataWarning))


@pytest.mark.parametrize(
    ("member", "kind"), [("has_more", "not a boolean"), ("count", "not a count")]
)
def test_a_long_bad_meta_value_is_quoted_in_its_first_100_characters(member, kind, via, proxy):
    proxy.add(SEARCH, meta_set(**{member: "x" * 100_000}))
    o = outcome(lambda: via.public.search())
    assert o.error is None, repr(o.error)
    said = [m for m in o.warned(ServiceContractWarning) if f"meta.{member} is" in m]
    assert len(said) == 1, [m[:200] for m in said]
    assert said[0].endswith(f"{kind}: ignored"), said[0][-200:]
    assert len(said[0]) < 200, len(said[0])
    strict = outcome(lambda: via.public.search(strict=True))
    assert isinstance(strict.error, ServiceContractError), repr(strict.error)[:300]
    assert len(str(strict.error)) < 400, len(str(strict.error))
