"""A value of the wrong type for an argument of a public function is a dealframe error naming
that argument (issue 13: "raises dealframe errors from every argument check"), not Python's
``TypeError`` from hashing or joining it, nor an ``OverflowError``, nor silently unused.

Each case here was a plain ``TypeError`` (``unhashable type: 'list'``, ``sequence item 0:
expected str instance``, ``'int' object is not iterable``), an ``OverflowError`` or no error
at all before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dealframe
import dealframe.plot as pl
from dealframe.analytics import bucket_medians
from dealframe.comparison import measure_side
from dealframe.errors import ValidationError
from dealframe.link import listing_key, name_score
from dealframe.sandbox import ChangeInputError, Changes, FaultPlan, SandboxArgumentError
from dealframe.sandbox.models import SandboxConfig, SandboxState

CURRENT = pd.DataFrame(
    {"evRevenueNtm": [1.0, 2.0], "revenueGrowthNtmLtm": [5.0, 9.0], "evRevenueLtm": [2.0, 3.0]},
    index=pd.Index(["X-USA", "Y-USA"], name="sku"),
)
DEALS = pd.DataFrame(
    {
        "deal_date": pd.to_datetime(["2024-03-01"] * 6),
        "deal_type": ["Venture"] * 6,
        "ev_revenue": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    }
)
HISTORY = pd.DataFrame(
    {"evRevenueNtm": [2.0, 2.5]}, index=pd.period_range("2025-01", periods=2, freq="M")
)
WRONG = [5, 1.5, None, ["evRevenueNtm"], {}, object()]


def _refused(call: Callable[[], Any], argument: str, kind: type = ValidationError) -> Any:
    with pytest.raises(kind) as info:
        call()
    assert isinstance(info.value, dealframe.DealframeError)
    assert info.value.argument == argument, str(info.value)
    return info.value


@pytest.mark.parametrize("wrong", WRONG)
def test_a_chart_column_that_is_no_name_is_refused_naming_its_argument(wrong: Any) -> None:
    """An unhashable one can be no label: refused naming the argument; a hashable one the
    frame lacks (any label may be a column, ``5`` too) is said as the frame's lack."""
    hashable = not isinstance(wrong, (list, dict))
    _refused(lambda: pl.comps_multiples(CURRENT, wrong), "current" if hashable else "column")
    _refused(lambda: pl.growth_vs_multiple(CURRENT, x=wrong), "current" if hashable else "x")
    _refused(lambda: pl.growth_vs_multiple(CURRENT, y=wrong), "current" if hashable else "y")
    _refused(lambda: pl.group_history(HISTORY, column=wrong), "history" if hashable else "column")
    _refused(lambda: pl.private_vs_public(CURRENT, DEALS, metric=wrong), "metric")


def test_a_chart_still_draws_and_a_missing_column_is_still_said() -> None:
    _, ax = pl.figure()
    assert pl.alt_text(pl.comps_multiples(CURRENT, "evRevenueNtm", ax=ax))
    error = _refused(lambda: pl.comps_multiples(CURRENT, "evEbitdaNtm"), "current")
    assert "evEbitdaNtm" in str(error)


@pytest.mark.parametrize("wrong", [{}, [], 5, None])
def test_measure_side_refuses_a_column_or_date_column_that_is_no_name(wrong: Any) -> None:
    _refused(lambda: measure_side(DEALS, wrong, "2024-01-01", "2024-12-31"), "column")
    if wrong is not None:  # None: every row counts once (comps)
        _refused(
            lambda: measure_side(
                DEALS, "ev_revenue", "2024-01-01", "2024-12-31", date_column=wrong
            ),
            "date_column",
        )
    assert measure_side(DEALS, "ev_revenue", "2024-01-01", "2024-12-31").n == 6


@pytest.mark.parametrize("wrong", [5, 1.5, ["ACME"], {}, object(), b"ACME"])
def test_listing_key_and_name_score_take_text_or_a_missing_cell(wrong: Any) -> None:
    if (
        wrong != 5
    ):  # a whole number is a ticker (7203 on TSE): tests/unit/test_labels_tickers_clock.py
        _refused(lambda: listing_key(wrong, "NYSE"), "ticker")
    _refused(lambda: listing_key("ACME", wrong), "exchange")
    _refused(lambda: name_score(wrong, "Acme"), "a")
    _refused(lambda: name_score("Acme", wrong), "b")


def test_a_missing_cell_is_still_missing_for_listing_key_and_name_score() -> None:
    for missing in (None, float("nan"), pd.NA, np.nan):
        assert listing_key("ACME", missing) is None and listing_key(missing, "NYSE") is None
        assert name_score(missing, "Acme") == 0.0
    assert listing_key("brk-b", "XNYS") == ("BRK.B", "NYSE")


@pytest.mark.parametrize("rng", ["seed", object(), True, [1.5]])
def test_bucket_medians_checks_rng_without_ci(rng: Any) -> None:
    """``ci_resamples=1`` without ``ci`` was refused while ``rng="seed"`` passed unseen."""
    _refused(
        lambda: bucket_medians(DEALS, "ev_revenue", "year", date_to="2024-12-31", rng=rng), "rng"
    )
    assert len(bucket_medians(DEALS, "ev_revenue", "year", date_to="2024-12-31", rng=3))


@pytest.mark.parametrize("kinds", [429, None, 1.5, {"429": 1}, b"429"])
def test_a_fault_script_of_no_kinds_is_a_sandbox_argument_error(kinds: Any) -> None:
    _refused(lambda: FaultPlan().script(r"/x$", kinds), "kinds", SandboxArgumentError)
    _refused(lambda: FaultPlan(kinds=kinds), "kinds", SandboxArgumentError)


def test_a_fault_plan_refuses_a_seed_or_path_it_cannot_use() -> None:
    _refused(lambda: FaultPlan(seed=[1]), "seed", SandboxArgumentError)
    _refused(lambda: FaultPlan(seed=-1), "seed", SandboxArgumentError)
    _refused(lambda: FaultPlan().draw(5), "path", SandboxArgumentError)  # type: ignore[arg-type]
    # a numpy integer is a seed (random.Random refuses one): the same draws as the int
    numpy_seeded, int_seeded = FaultPlan(rate=0.5, seed=np.int64(1)), FaultPlan(rate=0.5, seed=1)
    assert [numpy_seeded.draw("/x") for _ in range(8)] == [int_seeded.draw("/x") for _ in range(8)]


@pytest.fixture(scope="module")
def changes() -> Changes:
    return Changes(SandboxState.build(SandboxConfig(scale=0.02)), seed=1)


@pytest.mark.parametrize("ids", [5, None, {"a": 1}, 1.5])
def test_edit_refuses_ids_that_are_no_ids(changes: Changes, ids: Any) -> None:
    _refused(lambda: changes.edit("deals", ids, lambda d: None), "ids", ChangeInputError)


def test_edit_refuses_an_id_of_another_type_and_a_change_that_is_no_function(
    changes: Changes,
) -> None:
    [known] = changes.update("deals", 1)
    _refused(lambda: changes.edit("deals", [known, 5], lambda d: None), "ids[1]", ChangeInputError)
    stamp = changes.state.private.find("transactions", known)[1]["updated_at"]
    _refused(lambda: changes.edit("deals", [known], "x"), "change", ChangeInputError)
    assert changes.state.private.find("transactions", known)[1]["updated_at"] == stamp
    assert changes.edit("deals", known, lambda d: None) == [known]  # one id as a string


def test_a_count_or_a_clock_move_beyond_reach_is_refused_and_changes_nothing(
    changes: Changes,
) -> None:
    now, deals = changes.now(), len(changes.state.private.deals)
    for n in (10**30, 2**62, 100_001):
        _refused(lambda n=n: changes.insert("deals", n), "n", ChangeInputError)
        _refused(lambda n=n: changes.random_round(n), "n", ChangeInputError)
    for seconds in (10**30, float("inf"), 1e18):
        _refused(lambda s=seconds: changes.advance(s), "seconds", ChangeInputError)
        _refused(
            lambda s=seconds: changes.random_round(1, advance_seconds=s),
            "advance_seconds",
            ChangeInputError,
        )
    assert (changes.now(), len(changes.state.private.deals)) == (now, deals)
    assert len(changes.insert("deals", 2)) == 2
