"""The candidates frame of a resolve carries the call's provenance, as ``matches`` does.

``client.private.resolve_companies(["aer", "Aerbri Motors"])`` gave ``candidates.attrs == {}``
while ``matches.attrs`` held the endpoint, the requests, ``from_cache`` and ``fetched_at``:
every frame the client returns says where it came from (issue 3).
"""

from __future__ import annotations

from typing import Any

import pytest

import dealframe

PROVENANCE = ("endpoint", "requests", "from_cache", "fetched_at", "findings")


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.mark.parametrize("entity", ["companies", "investors"])
def test_candidates_carry_the_provenance_of_the_call(client, entity):
    private = client.private
    resolve = private.resolve_companies if entity == "companies" else private.resolve_investors
    name = getattr(private, entity)(limit=1)["name"][0]
    matches, candidates = resolve([name[:-1], name])
    assert len(candidates) > 0
    for key in PROVENANCE:
        assert candidates.attrs[key] == matches.attrs[key], key
    assert candidates.attrs["endpoint"] == f"POST /api/private/v1/{entity}/resolve"
    assert candidates.attrs["requests"] == 1
    assert candidates.attrs["rows_received"] == len(candidates)


def test_candidates_attrs_are_their_own(client):
    """A change to one frame's ``attrs`` (a list in them) leaves the other's as it was."""
    name = client.private.companies(limit=1)["name"][0]
    matches, candidates = client.private.resolve_companies([name[:-1]])
    candidates.attrs["findings"].append("x")
    assert "x" not in matches.attrs["findings"]


@pytest.mark.parametrize("on_ambiguous", ["none", "best"])
def test_candidates_carry_what_attach_writes_but_a_count_nothing_announced(client, on_ambiguous):
    """The candidates' provenance is written as the matches' is, by the same ``attach``
    (every key it writes, none hand-listed), but for ``rows_expected``: the service announces
    how many names it answers, not how many candidates (a count equal to the rows received
    by definition would say nothing)."""
    name = client.private.companies(limit=1)["name"][0]
    matches, candidates = client.private.resolve_companies(
        [name[:-1], name], on_ambiguous=on_ambiguous
    )
    assert "rows_expected" not in candidates.attrs
    assert matches.attrs["rows_expected"] == 2
    assert candidates.attrs["rows_received"] == len(candidates)
    # of the matches' rows: ids their match_type denies; on_ambiguous="best"'s ties
    said_of_matches = {"ids_denied", "tied", "unscored"}
    assert set(candidates.attrs) == set(matches.attrs) - {"rows_expected"} - said_of_matches
