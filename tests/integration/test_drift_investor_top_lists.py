"""Investor profiles whose ``stats`` top lists hold items that are no object or lack their
members, over the drift proxy.

Section 2 types ``stats.top_countries`` as an array of ``{country, count}`` (and
``top_verticals`` of ``{vertical, count}``). ``[null, {"country": "USA"}]`` was read without
a word by ``investor()``, and ``investor_top()`` raised a ``ValidationError`` (the error of a
bad argument) on the null. Both now say it once per call, naming the profiles, and
``investor_top()`` leaves the item that is no object out.

A ``count`` of ``2.5`` made ``investor_top()`` raise a ``ValidationError`` too, one of
``"3"`` gave a plain ``DealframeWarning`` outside ``attrs["findings"]`` (not raised under
``strict=True``), and a country of ``5`` was kept without a word; ``investor()`` said none
of them. Each is now a finding of both calls (``wrong_shape``, ``numbers_as_text``), and
``investor_top()`` reads what it can: ``"3"`` as 3, ``2.5`` and ``5`` as null.
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


def _typed_wrong(doc: Any) -> Any:
    doc["data"]["stats"]["top_countries"] = [
        {"country": "USA", "count": 2.5},
        {"country": 5, "count": 4},
        {"country": "GBR", "count": "3"},
    ]
    return doc


def test_investor_says_top_list_members_of_the_wrong_type(direct, via, proxy):
    ids = _ids(direct)
    proxy.add(PROFILE, edit(_typed_wrong, "typed wrong"))
    o = outcome(lambda: via.private.investor(ids))
    assert o.error is None, repr(o.error)
    found = {(f["kind"], f["message"].split(" (")[0]) for f in o.value.attrs["findings"]}
    assert found == {
        ("wrong_shape", "stats.top_countries holds items whose count is no non-negative integer"),
        ("wrong_shape", "stats.top_countries holds items whose country is no text"),
        ("numbers_as_text", "stats.top_countries holds items whose count is written as text"),
    }, found


def test_investor_top_reads_what_it_can_and_says_the_rest(direct, via, proxy):
    ids = _ids(direct)
    proxy.add(PROFILE, edit(_typed_wrong, "typed wrong"))
    o = outcome(lambda: via.private.investor_top(ids))
    assert o.error is None, repr(o.error)  # before: ValidationError on the count 2.5
    top = o.value
    assert top["country"].isna().tolist() == [False, True, False] * 2
    assert top["country"].dropna().tolist() == ["USA", "GBR"] * 2
    assert top["count"].isna().tolist() == [True, False, False] * 2
    assert top["count"].dropna().tolist() == [4, 3] * 2
    assert top["rank"].tolist() == [1, 2, 3] * 2
    kinds = sorted(f["kind"] for f in top.attrs["findings"])
    assert kinds == ["numbers_as_text", "wrong_shape", "wrong_shape"], kinds


def test_investor_top_strict_raises_a_service_error_on_them(direct, via, proxy):
    from dealframe.errors import ServiceContractError

    ids = _ids(direct)
    proxy.add(PROFILE, edit(_typed_wrong, "typed wrong"))
    o = outcome(lambda: via.private.investor_top(ids, strict=True))
    assert isinstance(o.error, ServiceContractError), repr(o.error)


def test_a_top_list_that_is_no_array_is_a_service_error(direct, via, proxy):
    from dealframe.errors import ServiceContractError

    def _object(doc: Any) -> Any:
        doc["data"]["stats"]["top_countries"] = {"USA": 3}
        return doc

    ids = _ids(direct)
    proxy.add(PROFILE, edit(_object, "object"))
    o = outcome(lambda: via.private.investor(ids))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert "top_countries" in str(o.error), str(o.error)


def test_a_count_written_as_text_is_read_and_said(direct, via, proxy):
    from dealframe.errors import ServiceContractError

    def _text(doc: Any) -> Any:
        doc["data"]["stats"]["top_countries"] = [{"country": "GBR", "count": "3"}]
        return doc

    ids = _ids(direct)
    proxy.add(PROFILE, edit(_text, "text"))
    o = outcome(lambda: via.private.investor_top(ids))
    assert o.error is None, repr(o.error)
    assert o.value["count"].tolist() == [3, 3]
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["numbers_as_text"]
    o = outcome(lambda: via.private.investor_top(ids, strict=True, refresh=True))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
