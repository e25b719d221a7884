"""Names a resolve service refuses one at a time, over the drift proxy: every other name of
their batches is still resolved.

A service may refuse a whole resolve request for one of its names (``names[7]: must be at
most 200 characters``, ``{"field": "names[7]", ...}``, FastAPI's ``body.names.7``), counting
the position within the request it got. The client sends that batch again without the name,
as long as each refusal names a name of the batch still sent (at most ``NAME_REFUSALS`` times
per batch), reports each refused name alone by its position in the caller's list
(``IncompleteResultError.failed`` ``names[150]``, its error naming ``names[150]`` and what the
service said), and resolves every other name with the service's own answers. It used to fail
the whole batch with the name: up to 999 names the service would have resolved.
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
    Action,
    Exchange,
    assert_same,
    direct,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
)

from dealframe.errors import BadRequestError, IncompleteResultError
from dealframe.private.api import NAME_REFUSALS

P = "/api/private/v1"
TOO_LONG = "must be at most 200 characters"

#: A refusal of the name at position ``i`` of the request, in three services' words.
SHAPES = {
    "error-body": lambda i: (
        400,
        {
            "error": {
                "code": "BAD_REQUEST",
                "message": "Invalid request",
                "details": {"errors": [f"names[{i}]: {TOO_LONG}"]},
            }
        },
    ),
    "field-object": lambda i: (400, {"errors": [{"field": f"names[{i}]", "message": TOO_LONG}]}),
    "fastapi": lambda i: (422, {"detail": [{"loc": ["body", "names", i], "msg": TOO_LONG}]}),
}


def _answer(ex: Exchange, status: int, body: Any) -> None:
    ex.forward, ex.status, ex._doc = False, status, None
    ex.headers = {"Content-Type": "application/json"}
    ex.content = orjson.dumps(body)


def service(
    sizes: list[int], refused: set[str], shape: Any, *, bound: int = 100, base: int = 0
) -> Action:
    """A resolve taking at most ``bound`` names (``names: at most ...``) that records the size
    of every request in ``sizes`` and refuses a request holding a name of ``refused``, by
    content, naming the position of the first such name within that request, counted from
    ``base`` (one name per refusal, as a validator stopping at its first problem does)."""

    def apply(ex: Exchange) -> None:
        names = ex.body.get("names") if isinstance(ex.body, dict) else None
        if not isinstance(names, list):
            return
        sizes.append(len(names))
        if len(names) > bound:
            said = f"names: at most {bound} names per request, got {len(names)}"
            _answer(ex, 400, {"error": {"code": "BAD_REQUEST", "message": said}})
            return
        at = next((i for i, name in enumerate(names) if name in refused), None)
        if at is not None:
            _answer(ex, *shape(at + base))

    return Action("resolve_refusing_names", on_request=apply)


def _long(i: int) -> str:
    return f"Company {i} " + "x" * 200


@pytest.fixture(scope="module")
def listed(direct: Any) -> dict[str, list[str]]:
    """300 names of each entity (the sandbox's investors, fewer, are repeated to 300)."""
    got = {}
    for entity in ("companies", "investors"):
        names = getattr(direct.private, entity)(limit=300)["name"].tolist()
        assert names
        got[entity] = (names * (300 // len(names) + 1))[:300]
    return got


def _resolve(client: Any, entity: str, names: list[str]) -> Any:
    return getattr(client.private, f"resolve_{entity}")(names)


@pytest.mark.parametrize("entity", ["companies", "investors"])
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_names_refused_alone_fail_alone_and_every_other_name_is_resolved(
    shape, entity, listed, direct, fresh, proxy
):
    """300 names, at most 100 per request: the caller's ``names[5]`` (batch 1), ``names[150]``
    and ``names[160]`` (batch 2, refused one after the other) and ``names[299]`` (the last of
    batch 3) are refused. Each batch is sent again without them; the 296 other names are
    resolved as the sandbox resolves them, and the four are reported by their positions."""
    bad = [5, 150, 160, 299]
    sent = [_long(i) if i in bad else name for i, name in enumerate(listed[entity])]
    sizes: list[int] = []
    proxy.add(f"^{P}/{entity}/resolve$", service(sizes, {sent[i] for i in bad}, SHAPES[shape]))
    error = outcome(lambda: _resolve(fresh, entity, sent)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == [f"names[{i}]" for i in bad]
    assert error.expected == 300 and error.received == 296
    for i, refused in zip(bad, error.errors):
        assert isinstance(refused, BadRequestError), repr(refused)
        said = str(refused)
        assert f"names[{i}]" in said or f"names.{i}" in said, said
        assert TOO_LONG in said, said
    # names[50] of batch 2 is the caller's names[150]; after it was left out, names[59]
    # of the batch sent again is the caller's names[160]
    assert "names[50]" not in str(error.errors[1]) and "names.50" not in str(error.errors[1])
    assert "names[59]" not in str(error.errors[2]) and "names.59" not in str(error.errors[2])
    others = [name for i, name in enumerate(sent) if i not in bad]
    ref = _resolve(direct, entity, others).matches
    assert_same(error.partial.matches, ref)
    assert error.partial.matches["query"].tolist() == others
    assert error.partial.matches["match_type"].notna().all()
    # one name sent alone, once: how the service counts positions (from 0) is then known
    assert sizes[0] == 300 and sorted(sizes[1:]) == [1, 98, 99, 99, 99, 100, 100, 100], sizes


def test_a_service_naming_a_name_of_every_request_is_not_asked_forever(listed, fresh, proxy):
    """A service that refuses every request naming its ``names[0]``: the batch is sent again
    at most ``NAME_REFUSALS`` times (one name left out each time), then the rest of it failed
    whole with the last refusal: a bounded number of requests, never one per name (and one
    request of ``names[0]`` alone, to tell how the service counts positions)."""
    names = listed["companies"][:50]
    sizes: list[int] = []
    proxy.add(f"^{P}/companies/resolve$", service(sizes, set(names), SHAPES["error-body"]))
    error = outcome(lambda: fresh.private.resolve_companies(names)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert len(sizes) == NAME_REFUSALS + 2 and sizes[:2] == [50, 1], sizes
    alone = [f"names[{i}]" for i in range(NAME_REFUSALS)]
    assert error.failed == [*alone, f"names {NAME_REFUSALS + 1}..50"]
    assert error.received == 0 and len(error.partial.matches) == 0
    assert f"names[{NAME_REFUSALS}]" in str(error.errors[-1])


def test_a_refusal_naming_a_position_the_batch_lacks_fails_the_batch(listed, fresh, proxy):
    """A refusal naming ``names[500]`` of a request of 300 names names no name of it: the
    batch is not sent again, and the refusal is raised as the service said it."""
    names = listed["companies"]
    sizes: list[int] = []

    def apply(ex: Exchange) -> None:
        sizes.append(len(ex.body["names"]))
        _answer(ex, *SHAPES["error-body"](500))

    proxy.add(f"^{P}/companies/resolve$", Action("beyond", on_request=apply))
    with pytest.raises(BadRequestError, match=r"names\[500\]"):
        fresh.private.resolve_companies(names)
    assert sizes == [300]


def test_the_only_name_refused_is_raised_itself(fresh, proxy):
    """One name, refused: the refusal itself is raised (nothing else was asked)."""
    sizes: list[int] = []
    name = _long(0)
    proxy.add(f"^{P}/companies/resolve$", service(sizes, {name}, SHAPES["field-object"]))
    with pytest.raises(BadRequestError, match=r"names\[0\]: must be at most 200"):
        fresh.private.resolve_companies([name])
    assert sizes == [1]


@pytest.mark.parametrize("base", [0, 1], ids=["counts-from-0", "counts-from-1"])
def test_a_service_counting_positions_from_1_has_the_names_it_refuses_left_out(
    base, listed, direct, fresh, proxy
):
    """A service that counts the positions it refuses from 1 (``names[4]`` for the 4th name)
    or from 0, at most 100 names per request, refusing the caller's ``names[3]``,
    ``names[150]``, ``names[160]`` and ``names[299]``: those four are reported at their
    positions, the 296 others resolved as the sandbox resolves them. How the service counts is
    told once, by names sent alone: ``names[4]`` (accepted, when it counts from 1) then
    ``names[3]`` (refused). The client used to take ``names[4]`` as the refused name and leave
    out the name after each refused one: 21 requests, 20 good names reported refused with
    another name's error, the refused name never singled out."""
    bad = [3, 150, 160, 299]
    sent = [_long(i) if i in bad else name for i, name in enumerate(listed["companies"])]
    sizes: list[int] = []
    refusing = service(sizes, {sent[i] for i in bad}, SHAPES["error-body"], base=base)
    proxy.add(f"^{P}/companies/resolve$", refusing)
    error = outcome(lambda: fresh.private.resolve_companies(sent)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == [f"names[{i}]" for i in bad]
    assert error.expected == 300 and error.received == 296
    for i, refused in zip(bad, error.errors):
        assert isinstance(refused, BadRequestError), repr(refused)
        assert refused.errors == [f"names[{i}]: {TOO_LONG}"], refused.errors
    others = [name for i, name in enumerate(sent) if i not in bad]
    assert_same(error.partial.matches, _resolve(direct, "companies", others).matches)
    assert error.partial.matches["query"].tolist() == others
    assert error.partial.matches["match_type"].notna().all()
    # 300 (too many), three of 100 (refused), the names sent alone (1 from 0, 2 from 1), the
    # three sent again without their refused name, and batch 2 once more without names[160]
    tells = [1] * (1 + base)
    assert sizes[0] == 300 and sorted(sizes[1:]) == [*tells, 98, 99, 99, 99, 100, 100, 100]
    assert len(sizes) == 9 + base, sizes
    # the count is kept for the client's later calls: no name is sent alone again
    sizes.clear()
    again = outcome(lambda: fresh.private.resolve_companies(sent[:100])).error
    assert isinstance(again, IncompleteResultError), repr(again)
    assert again.failed == ["names[3]"] and sizes == [100, 99]


def test_positions_that_match_no_name_refused_alone_fail_the_batch_whole(listed, fresh, proxy):
    """A service refusing a request for a name in it that it accepts alone (``names[6]``
    while it holds ``names[2]``'s name too, as a refusal of duplicates may): sent alone,
    neither ``names[6]`` nor ``names[5]`` is refused, so no name is left out: the batch fails
    whole, its refusal raised as the service wrote it with a note saying its positions could
    not be matched to names (1 + 2 requests, as the client did before it left names out)."""
    names = listed["companies"][:40]
    sizes: list[int] = []

    def apply(ex: Exchange) -> None:
        sent = ex.body["names"]
        sizes.append(len(sent))
        if names[2] in sent and names[6] in sent:
            _answer(ex, *SHAPES["error-body"](sent.index(names[6])))

    proxy.add(f"^{P}/companies/resolve$", Action("in_context", on_request=apply))
    with pytest.raises(BadRequestError) as caught:
        fresh.private.resolve_companies(names)
    refused = caught.value
    assert refused.errors == [f"names[6]: {TOO_LONG}"]
    assert "could not be matched to names" in str(refused), str(refused)
    assert "names[6] was accepted and names[5] was accepted" in str(refused), str(refused)
    assert sizes == [40, 1, 1]
    # nothing was learnt of how it counts: a later call tells again
    sizes.clear()
    with pytest.raises(BadRequestError, match="could not be matched"):
        fresh.private.resolve_companies(names)
    assert sizes == [40, 1, 1]


def test_a_name_that_cannot_be_sent_alone_leaves_no_name_out(listed, fresh, proxy):
    """A service counting from 1 whose requests of one name fail (503): how it counts cannot
    be told, so no name is left out and the batch fails whole with its refusal, positions as
    the service wrote them and a note saying why (one name sent alone, with its one retry)."""
    names = [*listed["companies"][:3], _long(3), *listed["companies"][3:39]]
    sizes: list[int] = []

    def down(ex: Exchange) -> None:
        if len(ex.body["names"]) == 1:
            _answer(ex, 503, {"error": {"code": "SERVICE_UNAVAILABLE", "message": "down"}})

    refusing = service(sizes, {names[3]}, SHAPES["error-body"], base=1)
    proxy.add(f"^{P}/companies/resolve$", refusing, Action("alone_down", on_request=down))
    with pytest.raises(BadRequestError) as caught:
        fresh.private.resolve_companies(names)
    assert caught.value.errors == [f"names[4]: {TOO_LONG}"]
    assert "names[4] could not be sent" in str(caught.value), str(caught.value)
    assert sizes == [40, 1, 1]
