"""A name the caller's list repeats has its candidates once (audit of the private interface).

``resolve_companies(["Aeraer", "Aeraer"])`` gave a candidates frame holding the same block of
candidates twice, so ``matches.merge(candidates, on="query")`` gave each row of ``matches``
its candidates twice (four times the rows of one name's block for two copies). Now there is
one block per distinct name; ``matches`` keeps one row per name given, in order.
"""

from __future__ import annotations

from typing import Any

import pytest

import dealframe


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.mark.parametrize("entity", ["companies", "investors"])
def test_a_repeated_ambiguous_name_has_one_block_of_candidates(client, entity):
    private = client.private
    resolve = private.resolve_companies if entity == "companies" else private.resolve_investors
    name = getattr(private, entity)(limit=1)["name"][0][:-1]  # "Acme Capita": ambiguous
    alone = resolve([name]).candidates
    assert len(alone) > 0
    matches, candidates = resolve([name, "Zzyzx Nothing", name, name])
    assert matches["query"].tolist() == [name, "Zzyzx Nothing", name, name]
    assert matches["match_type"].tolist() == ["ambiguous", "no_match", "ambiguous", "ambiguous"]
    assert candidates.reset_index(drop=True).equals(alone.reset_index(drop=True))
    assert not candidates.duplicated(["query", "rank"]).any()
    merged = matches.merge(candidates, on="query")
    assert len(merged) == 3 * len(alone)  # each of the three rows, its candidates once


def test_best_still_picks_for_every_copy(client):
    name = client.private.investors(limit=1)["name"][0][:-1]
    matches, candidates = client.private.resolve_investors([name, name], on_ambiguous="best")
    assert matches["id"].notna().all() and matches["id"].nunique() == 1
    assert not candidates.duplicated(["query", "rank"]).any()
