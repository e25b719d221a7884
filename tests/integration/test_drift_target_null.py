"""A deal whose ``target`` is null or absent, over real HTTP through the drift proxy.

The interface document (section 2.2) gives every deal a ``target`` object (only its
``country`` is nullable). A deal without one has lost its link to its company: it falls out of
every ``target_id``, ``target_country`` or ``target_region`` cohort and every join on the
company, and a median the client computes then differs from the service's. Before, such a
deal became a row with a null ``target_id`` and no finding at all, while a null ``deal_date``
was a ``null_field`` warning. Now it is the same ``null_field`` finding, naming the field and
the deals' ids; the rows are kept, and ``strict=True`` raises it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    assert_same,
    direct,
    drop_field,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    set_field,
    via,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
DEALS = {"deal_type": ["M&A", "Venture"]}  # more than one page at the session scale

SPOILS = {
    "target null": lambda n: set_field("target", None, first=n),
    "target absent": lambda n: drop_field("target", first=n),
    "target without its id": lambda n: set_field("target", {"name": "Somebody"}, first=n),
}


def _findings(frame: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for finding in frame.attrs.get("findings", []):
        out.setdefault(finding["kind"], []).append(finding["message"])
    return out


@pytest.fixture(scope="module")
def deals_ref(direct: Any) -> Any:
    return direct.private.deals(**DEALS)


@pytest.mark.parametrize("spoil", SPOILS)
def test_a_deal_list_row_without_its_target_is_kept_and_warned(spoil, deals_ref, via, proxy):
    proxy.add(f"^{P}/transactions$", SPOILS[spoil](3), page=2)
    got = outcome(lambda: via.private.deals(**DEALS))
    assert got.error is None, repr(got.error)
    frame = got.value
    assert len(frame) == len(deals_ref)  # never dropped
    lost = frame.loc[frame["target_id"].isna(), "id"].tolist()
    assert len(lost) == 3
    said = _findings(frame).get("null_field", [])
    assert said and "target (target_id) in 3 of" in said[0], said
    assert all(ident in said[0] for ident in lost)  # the deals are named
    warnings = [s for s in got.warned(ServiceContractWarning) if "target (target_id)" in s]
    assert len(warnings) == 1 and all(ident in warnings[0] for ident in lost)
    rest = frame[frame["target_id"].notna()].reset_index(drop=True)
    kept = deals_ref[~deals_ref["id"].isin(lost)].reset_index(drop=True)
    assert_same(rest[["id", "target_id", "deal_date"]], kept[["id", "target_id", "deal_date"]])


def test_strict_raises_a_deal_without_its_target(via, proxy):
    proxy.add(f"^{P}/transactions$", set_field("target", None, first=2), page=1)
    got = outcome(lambda: via.private.deals(**DEALS, strict=True))
    assert isinstance(got.error, ServiceContractError), repr(got.error)
    assert "target (target_id) in 2 of" in str(got.error)


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("sellside", "companies/[0-9a-f-]+/sellside"),
        ("investments", "investors/[0-9a-f-]+/investments"),  # deals with a ``role``
    ],
)
def test_a_sub_collection_deal_without_its_target_is_kept_and_warned(
    name, path, deals_ref, direct, via, proxy
):
    """Sub-collection deals (and those with a ``role``) are checked alike."""
    if name == "investments":  # an investor that led a round
        leads = deals_ref.loc[deals_ref["deal_type"] == "Venture", "lead_investors"]
        owner = next(orjson.loads(text)[0]["id"] for text in leads if text != "[]")
    else:  # a company sold
        owner = deals_ref.loc[deals_ref["deal_type"] == "M&A", "target_id"].iloc[0]
    ref = getattr(direct.private, name)(owner)
    assert len(ref) >= 1
    proxy.add(f"^{P}/{path}$", set_field("target", None, first=1))
    got = outcome(lambda: getattr(via.private, name)(owner))
    assert got.error is None, repr(got.error)
    assert len(got.value) == len(ref) and got.value["target_id"].isna().sum() == 1
    said = _findings(got.value).get("null_field", [])
    lost = got.value.loc[got.value["target_id"].isna(), "id"].iloc[0]
    assert said and "target (target_id) in 1 of" in said[0] and lost in said[0], said


def test_a_target_absent_from_every_deal_is_said_once_as_missing(via, proxy):
    """Absent from every item: ``missing_field`` names ``target``; not said twice."""
    proxy.add(f"^{P}/transactions$", drop_field("target"))
    got = outcome(lambda: via.private.deals(deal_type=["Secondary"]))
    assert got.error is None, repr(got.error)
    found = _findings(got.value)
    assert "target" in found["missing_field"][0]
    assert not any("target" in s for s in found.get("null_field", []))


def test_a_null_cut_away_by_limit_is_not_counted_or_named(via, proxy):
    """Counted and named over the rows returned: with ``limit=1001`` one row of page 2 is
    kept, so of three deals without their target on it, one is the user's to look for (the
    check ran before the cut, counting 3 of 2,000 and naming deals not in the frame)."""
    proxy.add(f"^{P}/transactions$", set_field("target", None, first=3), page=2)
    got = outcome(lambda: via.private.deals(**DEALS, limit=1001))
    assert got.error is None, repr(got.error)
    frame = got.value
    assert len(frame) == 1001
    lost = frame.loc[frame["target_id"].isna(), "id"].tolist()
    assert len(lost) == 1
    said = _findings(frame).get("null_field", [])
    assert said and "target (target_id) in 1 of 1,001 rows: id " + lost[0] in said[0], said


@pytest.mark.parametrize("spoil", ["target null", "target without its id"])
def test_a_deal_profile_without_its_target_is_kept_and_warned(spoil, deals_ref, via, proxy):
    """A single deal (``deal(ids)``) is checked as list rows are: before, a profile whose
    ``target`` was null became a row with a null ``target_id`` and no finding."""
    ids = deals_ref["id"].head(3).tolist()
    proxy.add(f"^{P}/transactions/{ids[1]}$", SPOILS[spoil](None))
    got = outcome(lambda: via.private.deal(ids))
    assert got.error is None, repr(got.error)
    frame = got.value
    assert frame["id"].tolist() == ids  # kept, in order
    assert frame["target_id"].isna().tolist() == [False, True, False]
    said = _findings(frame).get("null_field", [])
    assert said and f"target (target_id) in 1 of 3 rows: id {ids[1]}" in said[0], said
    warned = [s for s in got.warned(ServiceContractWarning) if "target (target_id)" in s]
    assert len(warned) == 1


def test_a_deal_profile_asked_without_its_target_is_not_warned(deals_ref, via):
    """``fields=`` that leave ``target`` out: its null column is not the service's fault."""
    ids = deals_ref["id"].head(2).tolist()
    got = outcome(lambda: via.private.deal(ids, fields=["deal_date", "deal_type"]))
    assert got.error is None, repr(got.error)
    assert not _findings(got.value).get("null_field"), got.value.attrs.get("findings")
    assert not got.warned(ServiceContractWarning)
