"""Names a resolve service refuses one at a time, over the drift proxy: every other name of
their batches is still resolved.

A service may refuse a whole resolve request for one of its names (``names[7]: must be at
most 200 characters``, ``{"field": "names[7]", ...}``, FastAPI's ``body.names.7``), counting
the position within the request it got, from 0 or from 1. A name is reported refused only when
the service refuses it alone: the client sends each name a position may mean alone (the name at
it and, until it has told how the service counts, the one before it), keeps the answer of one
accepted alone, and sends the batch again without them, as long as each refusal names a name of
the batch still sent (at most ``NAME_REFUSALS`` times per batch). Each name refused alone is
reported by its position in the caller's list (``IncompleteResultError.failed`` ``names[150]``,
its error naming ``names[150]`` and what the service said), and every other name is resolved
with the service's own answers. It used to fail the whole batch with the name: up to 999 names
the service would have resolved; then to report good names as refused (a service counting from
1 whose lone refusals name no position, two refused names side by side, a duplicate refused
within the request).
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

from dealframe.errors import AuthenticationError, BadRequestError, IncompleteResultError
from dealframe.private.resolve import NAME_REFUSALS

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


def listing_service(sizes: list[int], refused: set[str]) -> Action:
    """A resolve that records each request's size in ``sizes`` and refuses one holding names
    of ``refused`` by listing every such name's position (counted from 0), as a validator
    reporting all its problems does."""

    def apply(ex: Exchange) -> None:
        names = ex.body.get("names") if isinstance(ex.body, dict) else None
        if not isinstance(names, list):
            return
        sizes.append(len(names))
        said = [f"names[{i}]: {TOO_LONG}" for i, name in enumerate(names) if name in refused]
        if said:
            body = {"error": {"code": "BAD_REQUEST", "message": "Invalid", "details": {}}}
            body["error"]["details"]["errors"] = said
            _answer(ex, 400, body)

    return Action("refuse_all_named", on_request=apply)


def _long(i: int) -> str:
    return f"Company {i} " + "x" * 200


@pytest.fixture(scope="module")
def listed(direct: Any) -> dict[str, list[str]]:
    """300 names of each entity, each once (a repeated name is sent once): the sandbox's
    investors, fewer, are followed by names of none."""
    got = {}
    for entity in ("companies", "investors"):
        names = list(dict.fromkeys(getattr(direct.private, entity)(limit=1000)["name"]))[:300]
        assert names
        got[entity] = [*names, *(f"no such {entity} {i}" for i in range(300 - len(names)))]
    return got


@pytest.fixture(scope="module")
def unique(direct: Any) -> list[str]:
    """300 company names, each once."""
    names = list(dict.fromkeys(direct.private.companies(limit=1000)["name"]))[:300]
    assert len(names) == 300
    return names


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
    # names[5] and names[4] sent alone (names[4] accepted: how the service counts, from 0, is
    # told), then names[150], names[299] and names[160] alone
    tail = [1, 1, 1, 1, 1, 98, 98, 99, 99, 100, 100, 100]
    assert sizes[0] == 300 and sorted(sizes[1:]) == tail, sizes


def test_a_service_naming_a_name_of_every_request_is_not_asked_forever(listed, fresh, proxy):
    """A service that refuses every request naming its ``names[0]``: the batch is sent again
    at most ``NAME_REFUSALS`` times (one name left out each time), then the rest of it failed
    whole with the last refusal: a bounded number of requests, never one per name (each name
    left out sent alone first, and refused alone)."""
    names = listed["companies"][:50]
    sizes: list[int] = []
    proxy.add(f"^{P}/companies/resolve$", service(sizes, set(names), SHAPES["error-body"]))
    error = outcome(lambda: fresh.private.resolve_companies(names)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert sizes == [n for i in range(NAME_REFUSALS) for n in (50 - i, 1)] + [30], sizes
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


UNIQUE = "must be unique within the request"


def judging(sizes: list[int], refused: set[str], *, base: int, every: bool, lone: bool) -> Action:
    """A resolve taking at most 100 names that records the size of every request in
    ``sizes`` and refuses a request holding a name of ``refused`` or a name that repeats an
    earlier one of the request (a duplicate: accepted alone), naming the positions counted from
    ``base``: ``every`` one, or the first only. A request of one name is refused naming its
    position when ``lone``, else as ``name: ...`` (no position)."""

    def apply(ex: Exchange) -> None:
        names = ex.body["names"]
        sizes.append(len(names))
        if len(names) > 100:
            said = f"names: at most 100 names per request, got {len(names)}"
            _answer(ex, 400, {"error": {"code": "BAD_REQUEST", "message": said}})
            return
        bad = [
            f"names[{i + base}]: {TOO_LONG if name in refused else UNIQUE}"
            for i, name in enumerate(names)
            if name in refused or name in names[:i]
        ]
        if len(names) == 1 and bad and not lone:
            bad = [f"name: {TOO_LONG}"]
        if bad:
            details = {"errors": bad if every else bad[:1]}
            error = {"code": "BAD_REQUEST", "message": "Invalid request", "details": details}
            _answer(ex, 400, {"error": error})

    return Action("resolve_judging_names", on_request=apply)


#: Services: (count from, every position named, a lone refusal names its position), the
#: sizes of the requests a fresh client sends for the 300 names below after the first and
#: its three batches (299 distinct names, too many; 100, 100, 99), and those a later call of
#: the first 100 sends.
SERVICES = {
    # review2's case: the client took the first name refused alone (names[5] as counted from
    # 0: the second refused name) for how the service counts, then left out 20 good names
    # per batch, on that call and every later one
    "from-1-every-lone-unnamed": ((1, True, False), [1] * 4 + [97, 98], [100, 1, 1, 98]),
    "from-1-first-lone-named": ((1, False, True), [1] * 3 + [98, 98], [100, 1, 99, 1, 98]),
    "from-0-first-lone-unnamed": ((0, False, False), [1] * 4 + [97, 98, 98], [100, 1, 99, 1, 98]),
    "from-0-every-lone-named": ((0, True, True), [1] * 4 + [97, 98], [100, 1, 1, 98]),
}


@pytest.mark.parametrize("kind", list(SERVICES), ids=list(SERVICES))
def test_only_names_the_service_refuses_alone_are_reported_refused(
    kind, unique, direct, fresh, proxy
):
    """300 names, at most 100 per request: the caller's ``names[3]`` and ``names[4]`` (side
    by side) and ``names[299]`` are refused alone; ``names[170]`` repeats ``names[120]`` (sent
    once: a service refusing a name repeated within a request has none to refuse; sent twice,
    it was refused there and accepted alone). Only the three are reported refused, at
    their positions, each with the service's refusal of it alone; the 297 others (the
    duplicate too) are resolved as the sandbox resolves them, whether the service counts from
    0 or from 1, names every refused position or the first, and names a position when it
    refuses a name alone or not. A later call of the same client is right too. The client
    used to report good names as refused: the name after each refused one (up to 20 per
    batch, for the client's life, once a lone refusal naming no position had been taken for
    the count), and the duplicate."""
    (base, every, lone), tail, later = SERVICES[kind]
    bad = [3, 4, 299]
    sent = [_long(i) if i in bad else name for i, name in enumerate(unique)]
    sent[170] = sent[120]
    sizes: list[int] = []
    refusing = judging(sizes, {sent[i] for i in bad}, base=base, every=every, lone=lone)
    proxy.add(f"^{P}/companies/resolve$", refusing)
    error = outcome(lambda: fresh.private.resolve_companies(sent)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == [f"names[{i}]" for i in bad]
    assert error.expected == 300 and error.received == 297
    for i, refused in zip(bad, error.errors):
        assert isinstance(refused, BadRequestError), repr(refused)
        words = f"names[{i}]: {TOO_LONG}" if lone else f"name: {TOO_LONG}"
        assert refused.errors == [words], refused.errors
        assert f"names[{i}] of your 300 was sent alone and refused" in str(refused)
    others = [name for i, name in enumerate(sent) if i not in bad]
    assert_same(error.partial.matches, _resolve(direct, "companies", others).matches)
    assert error.partial.matches["query"].tolist() == others
    assert error.partial.matches["match_type"].notna().all()
    # 299 (too many), batches of 100, 100 and 99, names sent alone, the batches sent again
    assert sizes[0] == 299 and sorted(sizes[1:]) == sorted([100, 100, 99, *tail]), sizes
    # how the service counts was told: each position names one name, sent alone
    sizes.clear()
    again = outcome(lambda: fresh.private.resolve_companies(sent[:100])).error
    assert isinstance(again, IncompleteResultError), repr(again)
    assert again.failed == ["names[3]", "names[4]"] and again.received == 98
    assert sorted(sizes) == sorted(later), sizes


def test_a_duplicate_is_sent_once_and_never_refused_as_one(unique, direct, fresh, proxy):
    """A service refusing a name that repeats an earlier one of the request
    (``names[30]: must be unique``): the caller's ``names[30]`` repeats ``names[5]``, and a
    name the list repeats is sent once, so one request of 39 names is accepted and every
    position (the repeat too) has its name's result, on every call. (Sent twice, the
    duplicate was refused, then sent alone with the name before it.)"""
    names = [*unique[:30], unique[5], *unique[30:39]]
    sizes: list[int] = []
    proxy.add(f"^{P}/companies/resolve$", judging(sizes, set(), base=0, every=True, lone=True))
    for _ in range(2):
        sizes.clear()
        matches = fresh.private.resolve_companies(names).matches
        assert_same(matches, _resolve(direct, "companies", names).matches)
        assert matches["query"].tolist() == names
        assert sizes == [39], sizes


def test_a_repeated_name_refused_is_reported_at_its_positions(unique, direct, fresh, proxy):
    """A list repeating names, one of them refused (the caller's ``names[7]``, repeated at
    ``names[12]``): its request holds each name once, so the service names its position
    within that request (``names[5]``); the refusal is reported at ``names[7]``, the label
    saying the repeat at ``names[12]``, and every other position resolves as the sandbox
    resolves its name."""
    bad = _long(7)
    names = [*unique[:3], unique[0], unique[1], unique[3], unique[4], bad, *unique[5:9]]
    names += [bad, unique[2], unique[9]]  # 15 names: 10 distinct ones and the bad one
    sizes: list[int] = []
    proxy.add(f"^{P}/companies/resolve$", service(sizes, {bad}, SHAPES["error-body"]))
    error = outcome(lambda: fresh.private.resolve_companies(names)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == ["names[7] (repeated at names[12])"], error.failed
    assert error.expected == 15 and error.received == 13
    (refused,) = error.errors
    assert refused.errors == [f"names[7]: {TOO_LONG}"], refused.errors
    others = [name for name in names if name != bad]
    assert_same(error.partial.matches, _resolve(direct, "companies", others).matches)
    assert error.partial.matches["query"].tolist() == others
    assert sizes[0] == 11 and sorted(sizes) == [1, 1, 9, 11], sizes  # names[5] and [4] alone


def test_a_name_that_cannot_be_sent_alone_fails_with_what_its_request_got(
    listed, direct, fresh, proxy
):
    """A service counting from 1 whose requests of one name fail (503): the two names its
    refusal may mean (``names[4]``, ``names[3]``) are each sent alone (with its one retry) and
    fail with the 503, not as refused; the 38 others are resolved."""
    names = [*listed["companies"][:3], _long(3), *listed["companies"][3:39]]
    sizes: list[int] = []

    def down(ex: Exchange) -> None:
        if len(ex.body["names"]) == 1:
            _answer(ex, 503, {"error": {"code": "SERVICE_UNAVAILABLE", "message": "down"}})

    refusing = service(sizes, {names[3]}, SHAPES["error-body"], base=1)
    proxy.add(f"^{P}/companies/resolve$", refusing, Action("alone_down", on_request=down))
    error = outcome(lambda: fresh.private.resolve_companies(names)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == ["names[3]", "names[4]"] and error.received == 38
    assert all(e.status == 503 for e in error.errors), error.errors
    others = [name for i, name in enumerate(names) if i not in (3, 4)]
    assert_same(error.partial.matches, _resolve(direct, "companies", others).matches)
    assert sorted(sizes) == [1, 1, 1, 1, 38, 40], sizes


def test_a_refusal_naming_many_names_sends_a_bounded_number_alone_a_round(unique, fresh, proxy):
    """One refusal naming 30 names of a batch (every problem listed, counted from 0): the names
    are sent alone at most ``2 * LONE_POSITIONS`` a round (both readings while the counting is
    not known, then one), never 30 or 60 requests at once, and every other name resolves."""
    from dealframe.private.resolve import LONE_POSITIONS

    bad = set(range(10, 70, 2))  # 30 names of the first batch of 100
    sent = [_long(i) if i in bad else name for i, name in enumerate(unique[:100])]
    refused = {sent[i] for i in bad}
    sizes: list[int] = []

    proxy.add(f"^{P}/companies/resolve$", listing_service(sizes, refused))
    error = outcome(lambda: fresh.private.resolve_companies(sent)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == [f"names[{i}]" for i in sorted(bad)]
    assert error.received == 70
    rounds, run = [], 0
    for size in sizes:
        if size == 1:
            run += 1
        elif run:
            rounds, run = [*rounds, run], 0
    rounds += [run] if run else []
    assert rounds and max(rounds) <= 2 * LONE_POSITIONS, sizes
    assert sum(rounds) < 2 * len(bad), sizes  # the counting, once told, halves the checks


def test_a_token_expiring_during_the_lone_checks_keeps_what_arrived(unique, fresh, proxy):
    """Two batches; the first is refused for a name, the second answered; then every request
    is a 401 (a token that expired meanwhile). The call raises the ``AuthenticationError``
    part-way, as other calls do (docs/errors.md), whose ``.partial`` holds the second
    batch's names: the 401 of a lone check was raised bare, and all that arrived was lost."""
    names = [*unique[:60], _long(0), *unique[60:120]]  # 121 names: batches of 100 and 21
    sizes: list[int] = []

    def apply(ex: Exchange) -> None:
        got = ex.body.get("names") if isinstance(ex.body, dict) else None
        if not isinstance(got, list):
            return
        sizes.append(len(got))
        if len(sizes) > 3:  # the two batches of the first round, then anything: 401
            _answer(ex, 401, {"error": {"code": "INVALID_TOKEN", "message": "token expired"}})
        elif len(got) > 100:
            _answer(ex, 400, {"error": {"code": "BAD_REQUEST", "message": "names: at most 100"}})
        elif names[60] in got:
            _answer(ex, *SHAPES["error-body"](got.index(names[60])))

    proxy.add(f"^{P}/companies/resolve$", Action("expire", on_request=apply))
    error = outcome(lambda: fresh.private.resolve_companies(names)).error
    assert isinstance(error, AuthenticationError), repr(error)
    assert error.partial is not None, "what arrived was lost"
    partial = error.partial.matches
    assert partial["match_type"].notna().sum() == 21, sizes
    assert partial["query"].tolist() == names[100:]  # the second batch, as sent
    assert error.received == 21 and error.expected == 121


def test_a_batch_whose_refusals_name_hundreds_of_names_resolves_every_good_one(
    unique, fresh, proxy
):
    """200 bad names among 300 in one batch (every problem listed): rounds that find names
    refused alone do not count towards ``NAME_REFUSALS``, so every good name resolves (the
    bound cut the batch after 20 rounds of 8 positions, failing the good names left)."""
    bad = set(range(0, 300, 3)) | set(range(1, 300, 3))  # 200 names
    sent = [_long(i) if i in bad else name for i, name in enumerate(unique[:300])]
    refused = {sent[i] for i in bad}

    proxy.add(f"^{P}/companies/resolve$", listing_service([], refused))
    error = outcome(lambda: fresh.private.resolve_companies(sent)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == [f"names[{i}]" for i in sorted(bad)]
    assert error.received == 100
