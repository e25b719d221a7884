"""Resolve results that contradict their ``match_type``, over the drift proxy.

The interface document: "For ``exact``, ``id`` is set. For ``ambiguous`` and ``no_match``,
``id`` is null", and "For ``ambiguous``, a ``candidates`` array of ``{id: uuid, ...}`` is
added". A service that answers otherwise (an ambiguous name without candidates, an exact one
without an id, an id on a name it says it could not match, candidates without an id) is said,
as every other finding is (a warning, ``ServiceContractError`` under ``strict``): never a bare
``TypeError`` (``on_ambiguous="best"`` raised one for an ambiguous name without candidates),
never a silent null id or an id the ``match_type`` denies.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    direct,
    fresh_rules,
    items_edit,
    no_hang,
    outcome,
    proxy,
    via,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

RESOLVE = "^/api/private/v1/companies/resolve$"
NO_MATCH = "Qxzqv Zzyzx Holdings"


@pytest.fixture(scope="module")
def names(direct: Any) -> dict[str, str]:
    """One name of each ``match_type`` as the sandbox resolves it, the ambiguous one with
    candidates (each with an id)."""
    counts = direct.private.companies()["name"].value_counts()
    shared, single = counts[counts > 1].index[0], counts[counts == 1].index[0]
    matches, candidates = direct.private.resolve_companies([shared, single, NO_MATCH])
    assert matches["match_type"].tolist() == ["ambiguous", "exact", "no_match"], matches
    assert matches["id"].isna().tolist() == [True, False, True], matches
    assert len(candidates) > 1 and candidates["id"].notna().all(), candidates
    return {"ambiguous": shared, "exact": single, "no_match": NO_MATCH}


def _when(kind: str, change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    """``change`` applied to the results of ``match_type`` ``kind`` only."""

    def apply(item: dict[str, Any]) -> None:
        if item.get("match_type") == kind:
            change(item)

    return apply


def _candidates(written: str) -> Callable[[dict[str, Any]], None]:
    """An ambiguous result's ``candidates`` written ``empty``, ``null`` or ``absent``."""

    def change(item: dict[str, Any]) -> None:
        if written == "absent":
            item.pop("candidates", None)
        else:
            item["candidates"] = [] if written == "empty" else None

    return change


@pytest.mark.parametrize("on_ambiguous", ["best", "none"])
@pytest.mark.parametrize("written", ["empty", "null", "absent"])
def test_an_ambiguous_name_without_candidates_is_said_not_a_type_error(
    via, proxy, names, written, on_ambiguous
):
    """An ambiguous result whose ``candidates`` are ``[]``, null or absent: the name keeps a
    null id, said as a ``missing_field`` naming it (``on_ambiguous="best"`` raised a bare
    ``TypeError``; ``"none"`` said nothing)."""
    proxy.add(RESOLVE, items_edit(_when("ambiguous", _candidates(written))))
    asked = [names["ambiguous"], names["exact"]]
    got = outcome(lambda: via.private.resolve_companies(asked, on_ambiguous=on_ambiguous))
    assert got.error is None, repr(got.error)
    matches, candidates = got.value
    assert matches["id"].isna().tolist() == [True, False], matches
    assert len(candidates) == 0
    said = got.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert f"candidates {written} where match_type is 'ambiguous'" in said[0], said
    assert repr(names["ambiguous"]) in said[0]
    assert [f["kind"] for f in matches.attrs["findings"]] == ["missing_field"]
    with pytest.raises(ServiceContractError, match=f"candidates {written}"):
        via.private.resolve_companies(asked, on_ambiguous=on_ambiguous, strict=True)


def test_an_exact_name_without_an_id_is_said(via, proxy, names):
    """An exact result with a null id: a ``null_field`` naming the name (it read as a silent
    null id, as if resolved)."""
    proxy.add(RESOLVE, items_edit(_when("exact", lambda item: item.update(id=None))))
    got = outcome(lambda: via.private.resolve_companies([names["exact"], names["no_match"]]))
    assert got.error is None, repr(got.error)
    assert got.value.matches["id"].isna().all()
    said = got.warned(ServiceContractWarning)
    assert len(said) == 1 and "where match_type is 'exact'" in said[0], said
    assert repr(names["exact"]) in said[0]
    assert [f["kind"] for f in got.value.matches.attrs["findings"]] == ["null_field"]
    with pytest.raises(ServiceContractError, match="match_type is 'exact'"):
        via.private.resolve_companies([names["exact"]], strict=True)


@pytest.mark.parametrize("kind", ["no_match", "ambiguous"])
def test_an_id_the_match_type_denies_is_said_and_not_taken(via, proxy, names, kind):
    """A ``no_match`` or ``ambiguous`` result with an id: said (``wrong_shape``) and the id
    left null, as the document has it (it was returned as the name's id, as if matched)."""
    served = str(uuid.uuid4())
    proxy.add(RESOLVE, items_edit(_when(kind, lambda item: item.update(id=served))))
    asked = [names[kind], names["exact"]]
    got = outcome(lambda: via.private.resolve_companies(asked, on_ambiguous="none"))
    assert got.error is None, repr(got.error)
    matches = got.value.matches
    assert matches["id"].isna().tolist() == [True, False], matches
    assert served not in matches["id"].tolist()
    said = got.warned(ServiceContractWarning)
    assert len(said) == 1 and f"id set where match_type is '{kind}'" in said[0], said
    assert repr(names[kind]) in said[0]
    assert [f["kind"] for f in matches.attrs["findings"]] == ["wrong_shape"]
    with pytest.raises(ServiceContractError, match=f"match_type is '{kind}'"):
        via.private.resolve_companies(asked, strict=True)


def test_candidates_without_an_id_are_said(via, proxy, names):
    """Candidates without ``id``: said (``missing_field``), and ``on_ambiguous="best"``
    leaves the name's id null (it was a silent null id)."""

    def idless(item: dict[str, Any]) -> None:
        for candidate in item.get("candidates") or []:
            candidate.pop("id", None)

    proxy.add(RESOLVE, items_edit(_when("ambiguous", idless)))
    got = outcome(lambda: via.private.resolve_companies([names["ambiguous"]], on_ambiguous="best"))
    assert got.error is None, repr(got.error)
    matches, candidates = got.value
    assert matches["id"].isna().all() and candidates["id"].isna().all()
    assert len(candidates) > 1
    said = got.warned(ServiceContractWarning)
    assert len(said) == 1 and "candidates[].id missing or null" in said[0], said
    assert repr(names["ambiguous"]) in said[0]
    assert [f["kind"] for f in matches.attrs["findings"]] == ["missing_field"]
