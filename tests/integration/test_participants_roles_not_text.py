"""``explode_participants(deals, roles=...)`` with a role that is not a string: a 2-D numpy
array's row (``np.array([["buyer", "buyer"]])``) was compared with the role names and raised
numpy's ``ValueError`` ("The truth value of an array ... is ambiguous") from ``role_names``;
a role that is not a string is now refused first, naming its place (``roles[i]``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe import Client
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def deals(sandbox: Any) -> pd.DataFrame:
    with Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as client:
        return client.private.deals(limit=200)


@pytest.mark.parametrize(
    ("roles", "argument"),
    [
        (np.array([["buyer", "buyer"]]), "roles[0]"),
        (["lead_investor", ["buyer"]], "roles[1]"),
        ([5], "roles[0]"),
        ((None,), "roles[0]"),
    ],
    ids=["2d-array", "nested-list", "number", "none"],
)
def test_a_role_that_is_not_text_is_refused_naming_its_place(deals, roles, argument):
    with pytest.raises(ValidationError) as caught:
        dealframe.explode_participants(deals, roles=roles)
    assert caught.value.argument == argument, str(caught.value)
    assert "a role name (a string)" in str(caught.value)


def test_roles_given_as_a_numpy_array_of_text_are_read(deals):
    """A 1-D array of role names is a list of strings: read as the same roles."""
    got = dealframe.explode_participants(deals, roles=np.array(["lead_investor", "buyers"]))
    want = dealframe.explode_participants(deals, roles=["lead_investor", "buyer"])
    pd.testing.assert_frame_equal(got, want)
    assert set(got["role"].astype(str)) <= {"lead_investor", "buyer"} and len(got) > 0
