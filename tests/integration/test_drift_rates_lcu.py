"""Family A current data and groups/current where a real service decides otherwise than the
sandbox, played by the drift proxy: which way ``rateToUsd`` goes, ``Lcu`` fields absent or
spelt in another case, and a groups/current ``meta`` that is ``{count}`` alone.

- ``rateToUsd`` written as local currency per USD (the common quote, COP 4000) made
  ``to_usd`` wrong by orders of magnitude, with no word and the doctor saying ``holds``. The
  rows say which way it goes (each holds ``marketCap`` and ``marketCapLcu``): the frame's rate
  is USD per unit whichever way it is served, said once, and the doctor says ``adapted``; a
  rate that agrees with neither way is said naming the SKUs, and the doctor says ``breaks``.
- The six ``Lcu`` fields absent were null columns with no word (and the doctor's "exactly the
  documented fields"); spelt ``marketCapLCU`` they were extra columns beside null documented
  ones, and ``to_usd`` all NaN.
- An empty group (a misspelt industry) whose ``meta`` lacks ``companies`` was an all-NaN frame
  with no word; the sandbox's ``meta`` gives the did-you-mean hint.
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
from dealframe import to_local, to_usd
from dealframe.doctor import ADAPTED, BREAKS, HOLDS
from dealframe.frames.schemas import CURRENT_MONETARY
from dealframe.notices import MissingDataWarning, ServiceContractWarning

CURRENT = "^/api/v2/companies/current$"
GROUP_CURRENT = "^/api/v2/groups/current$"
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


def _rate_times(factor: Callable[[float], float], only: set[str] | None = None) -> Any:
    def apply(item: dict[str, Any]) -> None:
        if item.get("rateToUsd") and (only is None or item["sku"] in only):
            item["rateToUsd"] = factor(item["rateToUsd"])

    return each_item(apply)


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


# ------------------------------------------------------------ 1. which way rateToUsd goes


def test_rate_served_as_local_units_per_usd_is_inverted_and_said_once(direct, fresh, proxy, skus):
    ref = direct.public.current(skus)
    proxy.add(CURRENT, _rate_times(lambda r: 1.0 / r))  # GBP 0.79 per USD, not USD 1.27 per GBP
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    _same_numbers(got[["rateToUsd"]], ref[["rateToUsd"]])
    _same_numbers(to_usd(got), to_usd(ref))
    _same_numbers(to_local(got), to_local(ref))
    assert kinds(got) == ["inverted_rate"], o.caught
    said = [m for m in o.warned(ServiceContractWarning) if "rateToUsd" in m]
    assert len(said) == 1 and "local currency per USD" in said[0], said
    assert got.attrs["rate_direction"] == "units per USD"
    assert got.attrs["rate_inverted"] == skus
    assert ref.attrs["rate_direction"] == "USD per unit" and ref.attrs["rate_inverted"] == []
    check = _current_check(fresh)
    assert check.verdict == ADAPTED and "local currency per USD" in check.observed, check


def test_an_inverted_service_keeps_a_rate_of_0_as_served(direct, fresh, proxy, skus):
    """Rates served as units per USD, one row's rate 0 (and one negative): only finite
    positive rates are inverted; those two are kept as served, named in the warning, and
    ``to_usd`` gives none of their values. The 0 used to become ``rateToUsd = inf`` (the
    negative one -1/r), and both were listed in ``attrs["rate_inverted"]``."""
    ref = direct.public.current(skus)
    zero, negative = skus[0], skus[2]  # a GBP and a EUR company

    def serve(item: dict[str, Any]) -> None:
        if item.get("rateToUsd"):
            item["rateToUsd"] = {zero: 0.0, negative: -4000.0}.get(
                item["sku"], 1.0 / item["rateToUsd"]
            )

    proxy.add(CURRENT, each_item(serve))
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    rates = got["rateToUsd"]
    assert np.isfinite(rates.to_numpy(float)).all(), rates
    assert (rates[zero], rates[negative]) == (0.0, -4000.0)
    others = [s for s in skus if s not in (zero, negative)]
    _same_numbers(got.loc[others, ["rateToUsd"]], ref.loc[others, ["rateToUsd"]])
    assert got.attrs["rate_inverted"] == others
    assert got.attrs["rate_direction"] == "units per USD"
    [said] = [m for m in o.warned(ServiceContractWarning) if "local currency per USD" in m]
    assert f"kept as served ({zero}, {negative})" in said, said
    assert to_usd(got).loc[[zero, negative], "marketCap"].isna().all()


def test_an_inverted_service_keeps_a_row_agreeing_with_neither_way_as_served(
    direct, fresh, proxy, skus
):
    """Rates served as units per USD, one row's agreeing with neither way (3 times the
    inverse): that row's rate is kept as served, as the ``rate_mismatch`` warning says, and
    left out of ``attrs["rate_inverted"]``; the others are inverted. It used to be inverted
    with the rest (every row was), while the warning said "kept as served"."""
    ref = direct.public.current(skus)
    odd = skus[0]

    def serve(item: dict[str, Any]) -> None:
        if item.get("rateToUsd"):
            item["rateToUsd"] = (3.0 if item["sku"] == odd else 1.0) / item["rateToUsd"]

    proxy.add(CURRENT, each_item(serve))
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    assert got.loc[odd, "rateToUsd"] == pytest.approx(3.0 / ref.loc[odd, "rateToUsd"])
    others = [s for s in skus if s != odd]
    _same_numbers(got.loc[others, ["rateToUsd"]], ref.loc[others, ["rateToUsd"]])
    assert got.attrs["rate_inverted"] == others
    assert sorted(kinds(got)) == ["inverted_rate", "rate_mismatch"], o.caught
    [said] = [m for m in o.warned(ServiceContractWarning) if "neither way" in m]
    assert f"({odd}): their rate is kept as served" in said, said


def test_rate_served_both_ways_inverts_the_rows_that_show_it(direct, via, proxy, skus):
    ref = direct.public.current(skus)
    flipped = {skus[0], skus[2]}  # one GBP, one EUR company
    proxy.add(CURRENT, _rate_times(lambda r: 1.0 / r, flipped))
    got = ok(o := outcome(lambda: via.public.current(skus)))
    _same_numbers(to_usd(got), to_usd(ref))
    assert sorted(got.attrs["rate_inverted"]) == sorted(flipped)
    assert got.attrs["rate_direction"] == "mixed"
    said = [m for m in o.warned(ServiceContractWarning) if "both ways" in m]
    assert len(said) == 1 and all(sku in said[0] for sku in flipped), o.caught


def test_rate_agreeing_with_neither_way_is_said_naming_the_skus(direct, fresh, proxy, skus):
    ref = direct.public.current(skus)
    proxy.add(CURRENT, _rate_times(lambda r: 100.0 * r))  # a rate per 100 units, say
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    _same_numbers(got[["rateToUsd"]], 100.0 * ref[["rateToUsd"]])  # kept as served
    assert kinds(got) == ["rate_mismatch"], o.caught
    said = [m for m in o.warned(ServiceContractWarning) if "neither way" in m]
    assert len(said) == 1 and all(sku in said[0] for sku in skus[:4]), said
    check = _current_check(fresh)
    assert check.verdict == BREAKS and "neither way" in check.observed, check


def test_amounts_rounded_to_one_decimal_are_no_rate_mismatch(direct, fresh, proxy, skus):
    """A service serving amounts to one decimal, one company a micro-cap whose largest USD
    amount is 0.44 (served 0.4): its rate is right, the amounts are rounded. No
    ``rate_mismatch``, the rate as served, the doctor's reading unchanged. The tolerance was
    2% of the USD value alone (0.008 here, less than the rounding): the row read as agreeing
    with neither way, a ``rate_mismatch`` warning (``strict=True`` raised)."""
    ref = direct.public.current(skus)
    small = skus[0]

    def serve(item: dict[str, Any]) -> None:
        names = [n for n in CURRENT_MONETARY if item.get(n) is not None]
        if item["sku"] == small:  # scaled down to a largest USD amount of 0.44
            scale = 0.44 / max(abs(item[n]) for n in names)
            for n in names:
                item[n] *= scale
                if item.get(f"{n}Lcu") is not None:
                    item[f"{n}Lcu"] *= scale
        for n in names:
            item[n] = round(item[n], 1)
            if item.get(f"{n}Lcu") is not None:
                item[f"{n}Lcu"] = round(item[f"{n}Lcu"], 1)

    proxy.add(CURRENT, each_item(serve))
    got = ok(o := outcome(lambda: fresh.public.current(skus, strict=True)))
    assert got.loc[small, "marketCap"] <= 0.5
    assert "rate_mismatch" not in kinds(got), o.caught
    assert not [m for m in o.warned(ServiceContractWarning) if "neither way" in m], o.caught
    _same_numbers(got[["rateToUsd"]], ref[["rateToUsd"]])
    assert got.attrs["rate_direction"] == "USD per unit"


def test_a_wrong_rate_on_round_amounts_is_still_a_mismatch(direct, fresh, proxy, skus):
    """Amounts served to four decimals (the sandbox's), one company's written ``2.0`` and
    ``2.5`` (JSON drops the trailing zeros) with a rate 20% off: a ``rate_mismatch`` naming
    it. The rounding was guessed per value, so ``2.0`` read as rounded to units (room of
    0.5) and the wrong rate agreed."""
    odd = skus[0]

    def serve(item: dict[str, Any]) -> None:
        if item["sku"] == odd:
            for n in CURRENT_MONETARY:
                item[n] = item[f"{n}Lcu"] = None
            item.update(marketCap=2.0, marketCapLcu=2.5, rateToUsd=0.96)  # 0.8 is right

    proxy.add(CURRENT, each_item(serve))
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    assert "rate_mismatch" in kinds(got), o.caught
    assert [m for m in o.warned(ServiceContractWarning) if odd in m], o.caught
    assert got.loc[odd, "rateToUsd"] == 0.96  # kept as served


def test_the_doctor_says_which_way_the_sandbox_rate_goes(fresh):
    check = _current_check(fresh)
    assert check.verdict == HOLDS and "rateToUsd: USD per unit" in check.observed, check


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


def test_two_spellings_of_one_field_leave_only_that_field_unread(direct, fresh, proxy, skus):
    """The ``Lcu`` fields spelt ``marketCapLCU`` etc., and one item also carrying
    ``market_cap_lcu``: for that item only ``marketCapLcu`` is left unread (both spellings
    kept as served, named in the warning with the item); its five other ``Lcu`` fields are
    read, and ``to_usd`` gives them. Every respelt member of that item used to be dropped:
    six null ``Lcu`` columns and ``to_usd`` NaN, with no word of the item."""
    ref = direct.public.current(skus)
    both = skus[0]

    def respell(item: dict[str, Any]) -> None:
        for key in [k for k in item if k.endswith("Lcu")]:
            item[key[:-3] + "LCU"] = item.pop(key)
        if item["sku"] == both:
            item["market_cap_lcu"] = item["marketCapLCU"]

    proxy.add(CURRENT, each_item(respell))
    got = ok(o := outcome(lambda: fresh.public.current(skus)))
    lcu = [c for c in ref.columns if c.endswith("Lcu") and c != "marketCapLcu"]
    assert len(lcu) == 5
    _same_numbers(got[lcu], ref[lcu])
    assert np.isnan(got.loc[both, "marketCapLcu"])
    others = [s for s in skus if s != both]
    _same_numbers(got.loc[others, ["marketCapLcu"]], ref.loc[others, ["marketCapLcu"]])
    assert got.loc[both, "market_cap_lcu"] == ref.loc[both, "marketCapLcu"]
    _same_numbers(to_usd(got, lcu), to_usd(ref, lcu))
    [said] = [m for m in o.warned(ServiceContractWarning) if "another case" in m]
    assert "marketCapLCU and market_cap_lcu both spell marketCapLcu, kept as served" in said
    assert f"(in 1 of {len(skus)} items: {both})" in said, said


def test_a_respelt_member_beside_the_documented_one_stays_an_extra_column(direct, via, proxy):
    sku = direct.public.search(countries=["GBR"]).index[:1].tolist()
    ref = direct.public.current(sku)
    proxy.add(CURRENT, each_item(lambda it: it.update(marketCapLCU=1.0)))
    got = ok(o := outcome(lambda: via.public.current(sku)))
    assert got["marketCapLcu"].tolist() == ref["marketCapLcu"].tolist()
    assert got["marketCapLCU"].tolist() == [1.0]
    assert "respelled_field" not in kinds(got), o.caught


# -------------------------------------------- 3. groups/current meta without `companies`


@pytest.mark.parametrize(
    "meta",
    [lambda m: {"count": m["companies"]}, lambda m: {"count": 27}, lambda m: {}],
    ids=["count_of_companies", "count_of_fields", "no_meta_counts"],
)
def test_an_empty_group_without_meta_companies_gets_the_hint(direct, fresh, proxy, meta):
    group = {"industries": ["fintech"]}  # no company carries it: 'Fintech' does
    ref = outcome(lambda: direct.public.group_current(**group))
    [hint] = [m for m in ref.warned(MissingDataWarning) if "did you mean" in m]

    def rewrite(doc: Any) -> Any:
        doc["meta"] = meta(doc["meta"])
        return doc

    proxy.add(GROUP_CURRENT, edit(rewrite))
    got = ok(o := outcome(lambda: fresh.public.group_current(**group)))
    assert got.attrs.get("companies") is None
    assert hint in o.warned(MissingDataWarning), o.caught


def test_a_group_with_companies_and_meta_count_alone_gets_no_hint(fresh, proxy):
    proxy.add(GROUP_CURRENT, edit(lambda doc: {**doc, "meta": {"count": doc["meta"]["companies"]}}))
    got = ok(o := outcome(lambda: fresh.public.group_current(industries=["Fintech"])))
    assert got["median"].notna().any()
    assert not [m for m in o.warned(MissingDataWarning) if "did you mean" in m], o.caught
