"""The shaping functions behind the investor charts (``dealframe.plot.shaping``, named in
docs/report.md) refuse a deals frame, the likely mistake, with a ValidationError naming
``rows`` and the columns it lacks, as their sibling ``co_investment_pairs`` does, instead of a
bare ``KeyError: 'role'``. Deals come from the session sandbox over real HTTP."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

import dealframe
from dealframe.errors import ValidationError
from dealframe.plot import shaping

REGION = "Western Europe"


@pytest.fixture(scope="module")
def frames(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        deals = client.private.deals(target_region=[REGION], date_from="2025-01-01")
    return {"deals": deals}


@pytest.mark.parametrize("function", [shaping.investor_activity, shaping.participant_names])
def test_participant_shaping_refuses_a_deals_frame_by_name(frames, function):
    deals = frames["deals"]
    assert len(deals) > 0
    for wrong in (deals, deals.iloc[:0], "deals"):
        with pytest.raises(ValidationError) as caught:
            function(wrong)
        assert caught.value.argument == "rows", str(caught.value)
        assert "participant_rows(deals)" in str(caught.value)
    with pytest.raises(
        ValidationError, match=r"got 'a DataFrame without deal_id, role, participant_id \.\.\.'"
    ):
        shaping.investor_activity(deals)


def test_participant_shaping_takes_participant_rows_of_the_same_deals(frames):
    rows = shaping.participant_rows(frames["deals"])
    active = shaping.investor_activity(rows, top=5)
    names = shaping.participant_names(rows)
    assert len(active) == 5 and active["deals"].is_monotonic_decreasing
    assert set(names.index) <= set(frames["deals"]["id"])
