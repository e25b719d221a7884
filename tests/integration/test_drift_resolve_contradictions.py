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

from dealframe import Client
from dealframe.errors import AmbiguousNameError, ServiceContractError
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


def _shared_names(client: Any) -> list[str]:
    """Names several companies of the sandbox hold (each resolves ``ambiguous``)."""
    counts = client.private.companies()["name"].value_counts()
    return counts[counts > 1].index.tolist()


def _cached(sandbox: Any, proxy: Any, tmp_path: Path) -> Client:
    """A client through the proxy with its HTTP cache on."""
    return Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=True,
        cache_path=tmp_path / "http.sqlite",
        **FAST,
    )


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
def test_an_id_the_match_type_denies_is_said_kept_in_attrs_and_cached(
    sandbox, proxy, names, tmp_path, kind
):
    """A ``no_match`` or ``ambiguous`` result with an id: said (``unknown_value``, quoting the
    id) and the id left null in its row, as the document has it, but kept by name in
    ``matches.attrs["ids_denied"]``; the answer stays in the HTTP cache. (It was thrown away
    without a trace, as a ``wrong_shape`` that dropped the cache entry on every call.)"""
    served = str(uuid.uuid4())
    proxy.add(RESOLVE, items_edit(_when(kind, lambda item: item.update(id=served))))
    asked = [names[kind], names["exact"]]
    with _cached(sandbox, proxy, tmp_path) as client:
        got = outcome(lambda: client.private.resolve_companies(asked, on_ambiguous="none"))
        assert got.error is None, repr(got.error)
        matches = got.value.matches
        assert matches["id"].isna().tolist() == [True, False], matches
        assert matches.attrs["ids_denied"] == {names[kind]: served}
        said = got.warned(ServiceContractWarning)
        assert len(said) == 1 and f"id set where match_type is '{kind}'" in said[0], said
        assert repr(names[kind]) in said[0] and served in said[0]
        assert [f["kind"] for f in matches.attrs["findings"]] == ["unknown_value"]
        again = outcome(lambda: client.private.resolve_companies(asked, on_ambiguous="none"))
        assert again.error is None, repr(again.error)
        assert again.value.matches.attrs["from_cache"] is True
        assert again.value.matches.attrs["ids_denied"] == {names[kind]: served}
        assert proxy.count(RESOLVE) == 1
        with pytest.raises(ServiceContractError, match=f"match_type is '{kind}'"):
            client.private.resolve_companies(asked, strict=True)


def test_no_id_denied_is_an_empty_dict(via, names):
    """``matches.attrs["ids_denied"]`` is there when the service denied none: ``{}``."""
    matches, _ = via.private.resolve_companies(list(names.values()))
    assert matches.attrs["ids_denied"] == {}


@pytest.mark.parametrize("on_ambiguous", ["none", "best", "raise"])
def test_the_services_pick_for_an_ambiguous_name_without_candidates_is_kept(
    via, proxy, names, on_ambiguous
):
    """An ambiguous result with an id and ``candidates: []``: the service's own pick is never
    lost. ``"none"`` and ``"best"`` keep it in ``matches.attrs["ids_denied"]`` (``"none"``
    used to drop it, ``"best"`` too); ``"raise"`` quotes it in the ``AmbiguousNameError``,
    which says the name has no candidate to choose from."""
    served = str(uuid.uuid4())

    def change(item: dict[str, Any]) -> None:
        item.update(id=served, candidates=[])

    proxy.add(RESOLVE, items_edit(_when("ambiguous", change)))
    asked = [names["ambiguous"], names["exact"]]
    got = outcome(lambda: via.private.resolve_companies(asked, on_ambiguous=on_ambiguous))
    said = got.warned(ServiceContractWarning)
    assert len(said) == 2 and any(served in w for w in said), said
    assert any("no candidate to choose from" in w and "ids_denied" in w for w in said), said
    if on_ambiguous == "raise":
        assert isinstance(got.error, AmbiguousNameError), repr(got.error)
        assert got.error.ids == {names["ambiguous"]: served}
        assert got.error.unlisted == [names["ambiguous"]]
        assert served in str(got.error) and "none to choose from" in str(got.error)
        assert "inspect the candidates" not in str(got.error)
        return
    assert got.error is None, repr(got.error)
    matches = got.value.matches
    assert matches["id"].isna().tolist() == [True, False], matches
    assert matches.attrs["ids_denied"] == {names["ambiguous"]: served}


def test_raise_on_a_name_without_candidates_does_not_send_to_them(via, proxy, names):
    """``on_ambiguous="raise"``, one ambiguous name with candidates and one without: the
    error advises inspecting the candidates of the one, and says the other has none (it
    advised "inspect the candidates" of names that have none)."""
    other = next(n for n in _shared_names(via) if n != names["ambiguous"])

    def bare(item: dict[str, Any]) -> None:
        if item.get("query") == other:
            item["candidates"] = None

    proxy.add(RESOLVE, items_edit(_when("ambiguous", bare)))
    with pytest.raises(AmbiguousNameError) as raised, pytest.warns(ServiceContractWarning):
        via.private.resolve_companies([names["ambiguous"], other], on_ambiguous="raise")
    text = str(raised.value)
    assert raised.value.unlisted == [other]
    assert "pass on_ambiguous='best' or inspect the candidates" in text
    assert f"none to choose from (on_ambiguous='best' leaves their id null): {other!r}" in text
    proxy.clear_rules()
    proxy.add(RESOLVE, items_edit(_when("ambiguous", bare)))
    with pytest.raises(AmbiguousNameError) as raised, pytest.warns(ServiceContractWarning):
        via.private.resolve_companies([other], on_ambiguous="raise")
    assert "inspect the candidates" not in str(raised.value)
    assert "none to choose from" in str(raised.value)


@pytest.mark.parametrize("blank", ["", "   "])
def test_an_exact_name_with_a_blank_id_has_a_null_id(via, proxy, names, blank):
    """An exact result whose id is blank text: said as null, and null (``isna``) in the
    frame, as the finding says (the frame kept the blank text)."""
    proxy.add(RESOLVE, items_edit(_when("exact", lambda item: item.update(id=blank))))
    got = outcome(lambda: via.private.resolve_companies([names["exact"]]))
    assert got.error is None, repr(got.error)
    matches = got.value.matches
    assert matches["id"].isna().all(), matches["id"].tolist()
    assert [f["kind"] for f in matches.attrs["findings"]] == ["null_field"]


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
