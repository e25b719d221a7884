"""Resolve batches a service refuses, over the drift proxy: a refusal about one name
(``names[7]: contains forbidden characters``) against one about how many names a request holds.

A refusal naming a position is about that name: a smaller batch holding it would be refused
alike, so the batch is not split; the names it may mean are sent alone, the batch is sent again
without them, the name refused alone has an error naming its position in the caller's list,
every other name is resolved (``IncompleteResultError.partial``), and no batch size is
remembered from it (more in ``test_resolve_name_refusals.py``). A refusal about the count (its
words name ``names`` and no position, speak
of a count or a size, ``Error: too many items in request``, or name no field at all) is split,
and the size is kept once a batch of it was accepted.
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

P = "/api/private/v1"
RESOLVE = f"^{P}/companies/resolve$"
#: A name the services below refuse on its own (whatever else the batch holds).
FORBIDDEN = "Forbidden ~ name"

#: A refusal of the name at position ``i`` of the request, in two services' words.
POSITIONED = {
    "error-body": lambda i: {
        "error": {
            "code": "BAD_REQUEST",
            "message": "Invalid request",
            "details": {"errors": [f"names[{i}]: contains forbidden characters"]},
        }
    },
    "fastapi": lambda i: {
        "detail": [{"loc": ["body", "names", i], "msg": "string contains forbidden characters"}]
    },
}


def _answer(ex: Exchange, status: int, body: Any) -> None:
    ex.forward, ex.status, ex._doc = False, status, None
    ex.headers = {"Content-Type": "application/json"}
    ex.content = b"" if body is None else orjson.dumps(body)


def service(
    sizes: list[int], *, bound: int | None = None, refusal: Any = POSITIONED["error-body"]
) -> Action:
    """A resolve that records the size of every request in ``sizes``, refuses more than
    ``bound`` names (``names: at most ...``), and refuses a batch holding :data:`FORBIDDEN`
    with ``refusal(its position in the batch)`` (422 for FastAPI's body, else 400)."""

    def apply(ex: Exchange) -> None:
        names = ex.body.get("names") if isinstance(ex.body, dict) else None
        if not isinstance(names, list):
            return
        sizes.append(len(names))
        if bound is not None and len(names) > bound:
            said = f"names: at most {bound} names per request, got {len(names)}"
            _answer(ex, 400, {"error": {"code": "BAD_REQUEST", "message": said}})
        elif FORBIDDEN in names:
            body = refusal(names.index(FORBIDDEN))
            _answer(ex, 422 if "detail" in body else 400, body)

    return Action("resolve_service", on_request=apply)


@pytest.fixture(scope="module")
def names(direct: Any) -> list[str]:
    """300 company names, each once (a repeated name is sent once)."""
    names = list(dict.fromkeys(direct.private.companies(limit=1000)["name"]))[:300]
    assert len(names) == 300
    return names


@pytest.mark.parametrize("words", list(POSITIONED), ids=list(POSITIONED))
def test_a_name_refused_by_position_fails_alone_and_nothing_is_remembered(
    words, names, direct, fresh, proxy
):
    """One request of 300 names, the caller's ``names[7]`` refused: ``names[7]`` (refused)
    and ``names[6]`` (accepted, its answer kept) are sent alone, the batch is sent again
    without them (298 names, all resolved), the error names ``names[7]`` (it used to split
    the batch down to single names, 50 requests, raise ``names[0]``, and keep one name per
    request for the client's life; then to fail the 299 others with it)."""
    sent = [*names[:7], FORBIDDEN, *names[8:]]
    sizes: list[int] = []
    proxy.add(RESOLVE, service(sizes, refusal=POSITIONED[words]))
    error = outcome(lambda: fresh.private.resolve_companies(sent)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert sorted(sizes) == [1, 1, 298, 300], sizes
    assert error.failed == ["names[7]"]
    assert error.expected == 300 and error.received == 299
    (refused,) = error.errors
    assert isinstance(refused, BadRequestError)
    said = str(refused)
    assert "names[7]" in said or "names.7" in said, said
    assert "names[0]" not in said and "names.0" not in said, said
    kept = [i for i in range(300) if i != 7]
    ref = direct.private.resolve_companies([names[i] for i in kept]).matches
    assert_same(error.partial.matches, ref)
    sizes.clear()
    matches = fresh.private.resolve_companies(names[10:]).matches
    assert sizes == [290]  # one request: no batch size was learnt from that refusal
    assert matches.attrs["batch_size"] == 1000
    assert matches["match_type"].notna().all()


def test_a_name_refused_in_a_later_batch_keeps_the_other_names(names, direct, fresh, proxy):
    """A service taking at most 100 names that refuses the caller's ``names[150]`` as
    ``names[50]`` of its batch: the batch of 300 is split to 100s (the bound is read), the
    batch holding that name is not split further: ``names[150]`` and ``names[149]`` are sent
    alone and the batch again without them, the error names ``names[150]``, the other 299
    names are on ``.partial`` and the bound of 100 is kept."""
    sent = [*names[:150], FORBIDDEN, *names[151:]]
    sizes: list[int] = []
    proxy.add(RESOLVE, service(sizes, bound=100))
    got = outcome(lambda: fresh.private.resolve_companies(sent))
    error = got.error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert sizes[0] == 300 and sorted(sizes[1:]) == [1, 1, 98, 100, 100, 100], sizes
    assert error.failed == ["names[150]"]
    assert error.expected == 300 and error.received == 299
    (refused,) = error.errors
    assert isinstance(refused, BadRequestError)
    assert refused.errors == ["names[150]: contains forbidden characters"], refused.errors
    assert "names[50]" not in str(refused)
    assert "names[150] of your 300 was sent alone and refused" in str(refused)  # the note
    kept = [i for i in range(300) if i != 150]
    ref = direct.private.resolve_companies([names[i] for i in kept]).matches
    assert_same(error.partial.matches, ref)
    assert error.partial.matches.attrs["batch_size"] == 100
    sizes.clear()
    again = fresh.private.resolve_companies(names)
    assert sizes == [100, 100, 100]  # the bound a batch of 100 was accepted at is kept
    assert_same(again.matches, direct.private.resolve_companies(names).matches)


def test_no_size_is_remembered_when_no_batch_of_it_was_accepted(names, fresh, proxy):
    """A service taking at most 100 names whose batches of 100 then all fail (503): the call
    is incomplete, and the next call starts again at 1,000 names (the client used to keep 100,
    a size no batch had been accepted at)."""
    sizes: list[int] = []

    def down(ex: Exchange) -> None:
        if len(ex.body.get("names", [])) <= 100:
            _answer(ex, 503, {"error": {"code": "SERVICE_UNAVAILABLE", "message": "down"}})

    proxy.add(RESOLVE, service(sizes, bound=100), Action("down", on_request=down))
    error = outcome(lambda: fresh.private.resolve_companies(names)).error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.received == 0 and len(error.failed) == 3
    proxy.reset()
    sizes.clear()
    proxy.add(RESOLVE, service(sizes, bound=100))
    matches = fresh.private.resolve_companies(names).matches
    assert sizes[0] == 300, sizes  # asked at the full batch again, then split
    assert matches.attrs["batch_size"] == 100


@pytest.mark.parametrize("status", [413, 400])
def test_a_refusal_with_an_empty_body_is_halved(status, names, direct, fresh, proxy):
    """A refusal naming no field at all (an empty body) above 100 names: halved (300, 150,
    then 75s) until a batch is accepted; that size is kept."""
    sizes: list[int] = []

    def empty(ex: Exchange) -> None:
        names_sent = ex.body.get("names", [])
        sizes.append(len(names_sent))
        if len(names_sent) > 100:
            _answer(ex, status, None)

    proxy.add(RESOLVE, Action("empty_refusal", on_request=empty))
    matches = fresh.private.resolve_companies(names).matches
    assert_same(matches, direct.private.resolve_companies(names).matches)
    assert sizes[0] == 300 and sorted(sizes[1:]) == [75, 75, 75, 75, 150, 150]
    assert matches.attrs["batch_size"] == 75


#: Refusals of a batch as too large in words that put a ``word:`` before the size.
SIZE_WORDS = {
    "too-many-items": "Error: too many items in request",
    "payload-too-big": "Validation failed: payload too big",
}


@pytest.mark.parametrize("words", SIZE_WORDS.values(), ids=SIZE_WORDS.keys())
def test_a_refusal_speaking_of_a_size_after_a_word_and_colon_is_halved(
    words, names, direct, fresh, proxy
):
    """A 400 above 100 names whose words speak of the size (``too many``, ``too big``) after
    ``Error:`` or ``Validation failed:``: halved as a refusal of the count (300, 150, then
    75s), not raised as a refusal naming a field other than ``names``."""
    sizes: list[int] = []

    def too_many(ex: Exchange) -> None:
        names_sent = ex.body.get("names", [])
        sizes.append(len(names_sent))
        if len(names_sent) > 100:
            _answer(ex, 400, {"error": {"code": "BAD_REQUEST", "message": words}})

    proxy.add(RESOLVE, Action("size_refusal", on_request=too_many))
    matches = fresh.private.resolve_companies(names).matches
    assert_same(matches, direct.private.resolve_companies(names).matches)
    assert sizes[0] == 300 and sorted(sizes[1:]) == [75, 75, 75, 75, 150, 150]
    assert matches.attrs["batch_size"] == 75
