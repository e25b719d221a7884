"""Investor profiles whose ``stats`` top lists hold items that are no object or lack their
members, over the drift proxy.

Section 2 types ``stats.top_countries`` as an array of ``{country, count}`` (and
``top_verticals`` of ``{vertical, count}``). ``[null, {"country": "USA"}]`` was read without
a word by ``investor()``, and ``investor_top()`` raised a ``ValidationError`` (the error of a
bad argument) on the null. Both now say it once per call, naming the profiles, and
``investor_top()`` leaves the item that is no object out.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    via,
)

from dealframe.notices import ServiceContractWarning

PROFILE = r"^/api/private/v1/investors/[0-9a-f-]+$"


def _damaged(doc: Any) -> Any:
    doc["data"]["stats"]["top_countries"] = [None, {"country": "USA"}]
    doc["data"]["stats"]["top_verticals"] = [{"vertical": None, "count": 3}]
    return doc


def _ids(client: Any) -> list[str]:
    return client.private.investors(limit=2)["id"].tolist()


def test_investor_says_top_list_items_null_or_without_their_members(direct, via, proxy):
    ids = _ids(direct)
    proxy.add(PROFILE, edit(_damaged, "damaged"))
    o = outcome(lambda: via.private.investor(ids))
    assert o.error is None, repr(o.error)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 3, said
    where = f"in 2 of 2 profiles ({ids[0]}, {ids[1]})"
    assert any(
        "top_countries holds items that are no {country, count} object (null)" in m and where in m
        for m in said
    ), said
    assert any("top_countries holds items without count" in m and where in m for m in said)
    assert any("top_verticals holds items whose vertical is null" in m for m in said)
    kinds = sorted(f["kind"] for f in o.value.attrs["findings"])
    assert kinds == ["missing_field", "null_field", "wrong_shape"]


def test_investor_top_leaves_items_that_are_no_object_out(direct, via, proxy):
    ids = _ids(direct)
    proxy.add(PROFILE, edit(_damaged, "damaged"))
    o = outcome(lambda: via.private.investor_top(ids))
    assert o.error is None, repr(o.error)
    top = o.value
    assert top["country"].tolist() == ["USA", "USA"]
    assert top["count"].isna().all() and top["rank"].tolist() == [1, 1]
    assert any("left out of investor_top" in m for m in o.warned(ServiceContractWarning))


def test_sandbox_profiles_say_nothing(direct):
    ids = _ids(direct)
    o = outcome(lambda: direct.private.investor_top(ids))
    assert o.error is None, repr(o.error)
    assert not o.warned(ServiceContractWarning)
