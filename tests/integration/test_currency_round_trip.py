"""``to_local(to_usd(current))`` gives back every ``Lcu`` field of a service that sends fields
the document does not name (the sandbox's ``extra-fields`` profile: ``netDebt`` and
``netDebtLcu``), over HTTP. ``to_local`` used to take, by default, only the document's monetary
fields and those with an ``Lcu`` twin, which a ``to_usd`` result never has: ``netDebtLcu`` was
lost on the way back."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe import Client
from dealframe.sandbox import run


@pytest.fixture(scope="module")
def current() -> Iterator[pd.DataFrame]:
    with (
        run(scale=0.03, seed=5, profile="extra-fields") as served,
        Client.for_sandbox(served, progress=False) as client,
    ):
        yield client.public.current(client.public.search().index[:20])


def test_an_undocumented_lcu_field_converts_back(current):
    assert "netDebtLcu" in current.columns  # the profile serves it
    usd = dealframe.to_usd(current)
    assert "netDebt" in usd.columns
    back = dealframe.to_local(usd)
    lcu = sorted(c for c in current.columns if c.endswith("Lcu"))
    assert sorted(c for c in back.columns if c.endswith("Lcu")) == lcu
    both = current["netDebtLcu"].notna() & back["netDebtLcu"].notna()
    assert both.sum() > 5
    np.testing.assert_allclose(
        back.loc[both, "netDebtLcu"], current.loc[both, "netDebtLcu"], rtol=1e-9
    )
    assert back.attrs["lcu_from_usd"] == [f"{c}Lcu" for c in usd.attrs["usd_from_lcu"]]


def test_a_local_result_is_not_taken_as_usd(current):
    """A ``to_local`` result converted again is refused as before (no ``Lcu`` column is a USD
    amount): the records of the two directions are apart."""
    back = dealframe.to_local(dealframe.to_usd(current))
    with pytest.raises(dealframe.ValidationError, match="USD monetary columns"):
        dealframe.to_local(back)


@pytest.mark.parametrize("record", [True, "marketCap,netDebt", ["netDebtLcu"], None])
def test_a_record_not_of_ours_is_ignored(current, record):
    """``attrs["usd_from_lcu"]`` that is no list of USD names converts nothing more, raising
    no error of Python's (``True``) and matching no part of a name (text)."""
    usd = dealframe.to_usd(current)
    usd.attrs["usd_from_lcu"] = record
    usd["Cap"] = 1.0
    local = dealframe.to_local(usd)
    assert "CapLcu" not in local.columns and "netDebtLcu" not in local.columns
    assert "marketCapLcu" in local.columns


def test_a_plain_frame_still_takes_only_monetary_fields(current):
    """Without a conversion's ``attrs``, ``netDebt`` (no ``Lcu`` twin in the frame, not a
    documented field) is no known USD amount: not converted by default, as before."""
    plain = dealframe.to_usd(current).copy()
    plain.attrs = {}
    assert "netDebtLcu" not in dealframe.to_local(plain).columns
