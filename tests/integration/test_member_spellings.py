"""Served members and ``fields=`` names in other spellings (a review of the public field-name
audit): how a finding writes a spelling it cannot show, the one rule for groups/current keys,
and the cases the rule was documented with, pinned over HTTP through the drift proxy.

- A respelled member holding a zero-width character was written as is: ``market​Cap as
  marketCap`` reads as ``marketCap as marketCap``. It is written in quotes with escapes.
- A flat groups/current key spelt with a space (``market cap_lcu`` beside ``market cap_sum``)
  was split into an ``lcu`` of ``market cap``: ``_spells_a_field`` folded only ``_ . -``, not
  the separators of every other spelling rule. It is a field written without its statistic.
- Pinned: ``ev revenue ltm`` alone is read as ``evRevenueLtm``; ``Market Cap`` and
  ``market_cap`` without ``marketCap`` are neither read; a profile's ``short name`` is
  refused before sending.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    Proxy,
    direct,
    edit,
    fresh,
    fresh_rules,
    outcome,
    proxy,
    via,
)

from dealframe.errors import AuthenticationError, ServiceContractError, ValidationError
from dealframe.notices import ServiceContractWarning

CURRENT = "^/api/v2/companies/current$"
GROUP_CURRENT = "^/api/v2/groups/current$"
GROUP = {"regions": ["North America"]}


@pytest.fixture(scope="module")
def skus(direct: Any) -> list[str]:
    return direct.public.search(countries=["GBR"]).index[:3].tolist()


def each_item(fn: Callable[[dict[str, Any]], None]) -> Action:
    def apply(doc: Any) -> Any:
        for item in doc.get("data") or []:
            fn(item)
        return doc

    return edit(apply)


def _renamed(old: str, *new: str) -> Action:
    """Every item with member ``old`` served under each of ``new`` instead."""

    def apply(item: dict[str, Any]) -> None:
        value = item.pop(old)
        item.update(dict.fromkeys(new, value))

    return each_item(apply)


def test_a_respelling_with_an_unseen_character_is_written_with_escapes(
    direct: Any, via: Any, proxy: Proxy, skus: list[str]
) -> None:
    ref = direct.public.current(skus)
    proxy.add(CURRENT, _renamed("marketCap", "market\u200bCap"))
    o = outcome(lambda: via.public.current(skus))
    assert o.error is None, repr(o.error)
    assert o.value["marketCap"].tolist() == ref["marketCap"].tolist()
    [said] = [m for m in o.warned(ServiceContractWarning) if "another case" in m]
    assert "'market\\u200bCap' as marketCap" in said, said


def test_a_spaced_member_alone_is_read_as_the_field(
    direct: Any, via: Any, proxy: Proxy, skus: list[str]
) -> None:
    ref = direct.public.current(skus)
    proxy.add(CURRENT, _renamed("evRevenueLtm", "ev revenue ltm"))
    o = outcome(lambda: via.public.current(skus))
    assert o.error is None, repr(o.error)
    assert o.value["evRevenueLtm"].equals(ref["evRevenueLtm"])  # nulls (NaN) where ref has them
    assert "ev revenue ltm" not in o.value.columns
    kinds = [f["kind"] for f in o.value.attrs["findings"]]
    assert kinds == ["respelled_field"], kinds
    [said] = [m for m in o.warned(ServiceContractWarning) if "another case" in m]
    assert f"ev revenue ltm as evRevenueLtm (in {len(skus)} of {len(skus)} items)" in said, said


def test_two_spellings_without_the_field_are_neither_read(
    direct: Any, via: Any, proxy: Proxy, skus: list[str]
) -> None:
    ref = direct.public.current(skus)
    proxy.add(CURRENT, _renamed("marketCap", "Market Cap", "market_cap"))
    o = outcome(lambda: via.public.current(skus))
    assert o.error is None, repr(o.error)
    assert o.value["marketCap"].isna().all()
    for kept in ("Market Cap", "market_cap"):
        assert o.value[kept].tolist() == ref["marketCap"].tolist(), kept
    [said] = [m for m in o.warned(ServiceContractWarning) if "two spellings" in m]
    assert "Market Cap and market_cap both spell marketCap, kept as served" in said, said
    assert f"(in {len(skus)} of {len(skus)} items: {skus[0]}" in said, said


def test_a_profile_field_with_a_space_is_refused_before_sending(
    direct: Any, fresh: Any, proxy: Proxy
) -> None:
    company = str(direct.private.companies(limit=1)["id"].iloc[0])
    with pytest.raises(ValidationError) as typo:
        fresh.private.company(company, fields=["short name"])
    assert "did you mean 'short_name'?" in str(typo.value), str(typo.value)
    assert proxy.count() == 0, proxy.seen


def _spaced_flat(doc: Any) -> Any:
    """groups/current's sums and medians as one flat object whose keys write each field with
    spaces (``market cap_sum``), and ``market cap_lcu``: a field written without its
    statistic, not an ``lcu`` of ``market cap``."""
    stats = doc["data"]
    spaced = {"marketCap": "market cap", "marketCapLcu": "market cap lcu"}
    flat = {
        f"{spaced.get(f, f)}_{s}": v
        for s in ("sum", "median")
        for f, v in stats[s].items()
        if f != "marketCapLcu"
    }
    doc["data"] = {**flat, "market cap_lcu": stats["median"]["marketCapLcu"]}
    return doc


def test_a_spaced_group_key_spelling_a_field_is_no_statistic_of_another(
    via: Any, proxy: Proxy
) -> None:
    proxy.add(GROUP_CURRENT, edit(_spaced_flat))
    o = outcome(lambda: via.public.group_current(**GROUP))
    assert isinstance(o.error, ServiceContractError), (
        repr(o.error) if o.error else list(o.value.columns)
    )
    assert "market cap_lcu: a field written without its statistic" in str(o.error), o.error


def test_a_token_expired_part_way_keeps_the_chunk_labels(fresh: Any, proxy: Proxy) -> None:
    """A chunk of SKUs refused with a 401 stops the call with that error: it carries the
    chunks' labels as the incomplete result would (it had none), and its own wait."""
    many = [f"T{i:04d}-USA" for i in range(250)]

    def expired(ex: Exchange) -> None:
        ex.forward, ex.status, ex._doc = False, 401, None
        ex.headers = {"Content-Type": "application/json"}
        ex.content = b'{"error": {"code": "INVALID_TOKEN", "message": "Token expired"}}'

    proxy.add(CURRENT, Action("expired", on_request=expired), times=1)
    with pytest.raises(AuthenticationError) as info:
        fresh.public.current(many)
    error = info.value
    # the refused chunk, and those not yet asked when the call stopped (how many depends on
    # the workers' timing): each named by its label
    assert error.partial is not None and 1 <= len(error.failed) <= 3, str(error)
    expected = []
    for chunk in error.failed:
        start = many.index(chunk[0])
        expected.append(f"SKUs {start + 1}-{start + len(chunk)} ({chunk[0]} ... {chunk[-1]})")
    assert error.labels == expected
    assert all(label in str(error) for label in error.labels)
    assert error.retry_after is None
