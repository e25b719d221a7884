"""The list helpers, currency helpers and participant functions take any argument and answer
with a result or a ValidationError naming it: never a foreign exception (hypothesis)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import dealframe
from dealframe.errors import ValidationError

anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=8),
    st.binary(max_size=8),
    st.lists(st.text(max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(pd.DataFrame({"a": [1]})),
    st.just(np.arange(3)),
)
cells = st.lists(
    st.one_of(
        st.none(),
        st.text(max_size=12),
        st.sampled_from(['["a","b"]', "[]", '[{"id":"x"}]', "{", "null", '"a"', "3", '[{"id":1}]']),
    ),
    max_size=6,
)
rate_frames = st.builds(
    lambda values, rates, extra: pd.DataFrame(
        {"marketCapLcu": values, "rateToUsd": rates, "name": extra}
    ),
    st.lists(st.floats(allow_nan=True), min_size=3, max_size=3),
    st.lists(
        st.one_of(st.floats(allow_nan=True), st.just(0.0), st.just(-1.0)), min_size=3, max_size=3
    ),
    st.lists(st.text(max_size=3), min_size=3, max_size=3),
)


def _calls_fine(fn, *args, **kwargs) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dealframe.MissingDataWarning)
        try:
            fn(*args, **kwargs)
        except ValidationError:
            pass


@settings(max_examples=80, deadline=None)
@given(anything, cells)
def test_list_helpers(arg, texts):
    column = pd.Series(texts, dtype="str")
    _calls_fine(dealframe.to_lists, arg)
    _calls_fine(dealframe.to_lists, column)
    _calls_fine(dealframe.contains_any, column, arg)
    _calls_fine(dealframe.contains_any, arg, ["a"])
    _calls_fine(dealframe.contains_any, column, ["a", "b"])


@settings(max_examples=60, deadline=None)
@given(rate_frames, anything)
def test_currency_helpers(frame, arg):
    for fn in (dealframe.to_usd, dealframe.to_local):
        _calls_fine(fn, frame)
        _calls_fine(fn, frame, arg)
        _calls_fine(fn, frame, rate=arg)
        _calls_fine(fn, arg)
        _calls_fine(fn, frame, ["name"])


@settings(max_examples=60, deadline=None)
@given(anything, cells)
def test_participant_functions(arg, texts):
    deals = pd.DataFrame(
        {
            "id": [f"d{i}" for i in range(len(texts))],
            "lead_investors": pd.Series(texts, dtype="str"),
        }
    )
    _calls_fine(dealframe.explode_participants, deals, roles=arg)
    _calls_fine(dealframe.explode_participants, deals, roles=["lead_investor"])
    _calls_fine(dealframe.explode_participants, arg)
    _calls_fine(dealframe.co_investment_edges, arg)
