"""Family A current data where a real service decides otherwise than the sandbox, played by
the drift proxy: ``Lcu`` fields absent or spelt in another case.

The six ``Lcu`` fields absent were null columns with no word (and the doctor's "exactly the
documented fields"); spelt ``marketCapLCU`` they were extra columns beside null documented
ones, and ``to_usd`` all NaN.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Outcome,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    via,
)

import dealframe
from dealframe import to_usd
from dealframe.doctor import ADAPTED, BREAKS
from dealframe.notices import MissingDataWarning, ServiceContractWarning

CURRENT = "^/api/v2/companies/current$"
#: Companies quoted in GBP, EUR and USD (a rate of 1 cannot tell which way it goes).
COUNTRIES = ["GBR", "DEU", "USA"]


@pytest.fixture(scope="module")
def skus(direct: Any) -> list[str]:
    """Two companies of each of :data:`COUNTRIES`."""
    return [sku for c in COUNTRIES for sku in direct.public.search(countries=[c]).index[:2]]


def each_item(fn: Callable[[dict[str, Any]], None]) -> Any:
    """An ``edit`` that applies ``fn`` to every item of ``data`` (an error body passes)."""

    def apply(doc: Any) -> Any:
        for item in doc.get("data") or []:
            fn(item)
        return doc

    return edit(apply)


def kinds(frame: pd.DataFrame) -> list[str]:
    return [f["kind"] for f in frame.attrs.get("findings", [])]


def ok(o: Outcome) -> pd.DataFrame:
    assert o.error is None, f"raised {o.error!r}"
    assert isinstance(o.value, pd.DataFrame)
    return o.value


def _current_check(client: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = dealframe.doctor(client, family="A")
    return next(c for c in diagnosis.checks if c.name == "A.current")


def _same_numbers(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.index) == list(want.index) and list(got.columns) == list(want.columns)
    assert np.allclose(got.to_numpy(float), want.to_numpy(float), rtol=1e-9, equal_nan=True)


# ------------------------------------------------------ 2. Lcu fields absent or respelt


def test_lcu_fields_absent_are_a_documented_field_missing(fresh, proxy, skus):
    proxy.add(CURRENT, each_item(lambda it: [it.pop(k) for k in list(it) if k.endswith("Lcu")]))
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    assert got["marketCapLcu"].isna().all()
    assert kinds(got) == ["missing_field"], o.caught
    [said] = [m for m in o.warned(MissingDataWarning) if "absent" in m]
    assert "marketCapLcu" in said and "ebitdaNtmLcu" in said, said
    check = _current_check(fresh)
    assert check.verdict == BREAKS and "marketCapLcu" in check.observed, check


@pytest.mark.parametrize(
    "spell",
    [lambda k: k[:-3] + "LCU", lambda k: "".join(f"_{c.lower()}" if c.isupper() else c for c in k)],
    ids=["marketCapLCU", "market_cap_lcu"],
)
def test_lcu_fields_in_another_case_are_read_as_the_documented_ones(
    direct, fresh, proxy, skus, spell
):
    ref = direct.public.current(skus)

    def respell(item: dict[str, Any]) -> None:
        for key in [k for k in item if k.endswith("Lcu")]:
            item[spell(key)] = item.pop(key)

    proxy.add(CURRENT, each_item(respell))
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    assert_same(got, ref)
    _same_numbers(to_usd(got), to_usd(ref))
    assert kinds(got) == ["respelled_field"], o.caught
    said = [m for m in o.warned(ServiceContractWarning) if "another case" in m]
    assert len(said) == 1 and f"{spell('marketCapLcu')} as marketCapLcu" in said[0], said
    check = _current_check(fresh)
    assert check.verdict == ADAPTED and "marketCapLcu" in check.observed, check


def test_a_respelt_member_beside_the_documented_one_stays_an_extra_column(direct, via, proxy):
    sku = direct.public.search(countries=["GBR"]).index[:1].tolist()
    ref = direct.public.current(sku)
    proxy.add(CURRENT, each_item(lambda it: it.update(marketCapLCU=1.0)))
    got = ok(o := outcome(lambda: via.public.current(sku)))
    assert got["marketCapLcu"].tolist() == ref["marketCapLcu"].tolist()
    assert got["marketCapLCU"].tolist() == [1.0]
    assert "respelled_field" not in kinds(got), o.caught
