"""Ids in upper case, from the service and from the user: one spelling everywhere.

The interface document says ids are UUIDs; a real service (or a user's input) may spell one
in upper case (``550E8400-E29B-...``). The rule (docs/real-service.md, "Spelling of UUIDs in
answers"): ids are compared and held as canonical UUID text, lower case. The drift proxy
writes every UUID of every answer in upper case; the user gives upper-case ids. The frames
(participant lists included) and the mirror must be those of the sandbox spoken to directly.
The participant lists (``buyers``, ``lead_investors``, ``investors``) kept the ids as served.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    assert_same,
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    via,
)

import dealframe.sandbox
from dealframe import explode_participants, mirror
from dealframe.client import Client
from dealframe.sandbox.changes import Changes

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: A UUID with an upper-case letter, anywhere in a text (a JSON participant list included).
_UPPER_UUID = r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"


def _upper(value: Any) -> Any:
    """``value`` (a parsed answer) with every UUID in it written in upper case."""
    if isinstance(value, str):
        return value.upper() if _UUID.fullmatch(value) else value
    if isinstance(value, list):
        return [_upper(v) for v in value]
    if isinstance(value, dict):
        return {k: _upper(v) for k, v in value.items()}
    return value


def upper_case_ids() -> Any:
    """The drift proxy's action: every UUID of an answer in upper case."""
    return edit(_upper, "upper-case ids")


def _upper_uuids(frame: pd.DataFrame) -> dict[str, int]:
    """The text columns of ``frame`` holding an upper-case UUID, with how many rows do."""
    found = {}
    for name in frame.columns:
        if isinstance(frame[name].dtype, pd.StringDtype):
            n = int(frame[name].str.contains(_UPPER_UUID, regex=True).fillna(False).sum())
            if n:
                found[name] = n
    return found


def test_a_deal_list_asked_and_answered_in_upper_case_is_the_sandbox_s(direct, via, proxy):
    """Upper-case ids given as ``id``, answered in upper case (ids, targets, participants):
    the frame of the sandbox spoken to directly, participant lists included."""
    ids = direct.private.deals(limit=400)["id"].tolist()
    want = direct.private.deals(id=ids, strict=True)
    assert want["buyers"].str.len().gt(2).any() and want["lead_investors"].str.len().gt(2).any()
    proxy.add(".*", upper_case_ids())
    o = outcome(lambda: via.private.deals(id=[i.upper() for i in ids], strict=True))
    assert o.error is None, repr(o.error)
    assert o.caught == [], [str(w.message) for w in o.caught]
    assert _upper_uuids(o.value) == {}
    assert_same(o.value, want)
    assert_same(
        explode_participants(o.value, roles=("lead_investor", "buyer")),
        explode_participants(want, roles=("lead_investor", "buyer")),
    )


def test_sub_collections_and_profiles_of_upper_case_ids_are_the_sandbox_s(direct, via, proxy):
    companies = direct.private.companies(limit=20)["id"].tolist()
    deal = direct.private.deals(limit=1)["id"].iloc[0]
    want_fundings = direct.private.fundings(companies)
    want_deal = direct.private.deal(deal)
    proxy.add(".*", upper_case_ids())
    got_fundings = via.private.fundings([c.upper() for c in companies])
    got_deal = via.private.deal(deal.upper())
    assert _upper_uuids(got_fundings) == {} and _upper_uuids(got_deal) == {}
    assert_same(got_fundings, want_fundings)
    assert_same(got_deal, want_deal)


@pytest.fixture(scope="module")
def small() -> Iterator[Any]:
    """A sandbox of this module's own: the mirror test changes its data."""
    with dealframe.sandbox.run(scale=0.02, seed=43) as sandbox:
        yield sandbox


def test_a_mirror_fed_upper_case_ids_holds_one_spelling(small, tmp_path):
    """A first sync in lower case, then a service writing every id in upper case (updated,
    inserted and deleted records): one row per entity, every id and every participant's id
    in lower case, as a mirror synced from the sandbox itself holds them."""
    target, reference = tmp_path / "mirror", tmp_path / "reference"
    with (
        Proxy(small.url) as served,
        Client(served.url, small.public_token, small.private_key, cache_enabled=False, **FAST) as c,
    ):
        mirror.sync(c, target)
        changes = Changes(small.state, seed=0)
        changes.advance(3600)
        for entity in ("deals", "companies", "investors"):
            changes.update(entity, 10)
            changes.insert(entity, 3)
            changes.soft_delete(entity, 3)
        served.add(".*", upper_case_ids())
        o = outcome(lambda: mirror.sync(c, target))
    try:
        assert o.error is None, repr(o.error)
        assert o.caught == [], [str(w.message) for w in o.caught]
        with Client.for_sandbox(small, **FAST) as plain:
            mirror.sync(plain, reference)
        for entity in ("deals", "companies", "investors"):
            held = mirror.load(target, entity, include_deleted=True)
            want = mirror.load(reference, entity, include_deleted=True)
            assert held["id"].is_unique, entity
            assert _upper_uuids(held) == {}, entity
            key = ["id"]
            columns = [c for c in want.columns if c in held.columns and not c.startswith("_")]
            assert_same(
                held[columns].sort_values(key).reset_index(drop=True),
                want[columns].sort_values(key).reset_index(drop=True),
            )
    finally:
        small.reset()
        shutil.rmtree(target, ignore_errors=True)
        shutil.rmtree(reference, ignore_errors=True)
