"""Everything the sandbox raises on purpose is a ``dealframe.DealframeError`` (docs/errors.md):
one ``except`` clause catches a bad argument, an unknown profile, a bad change, a call its
signature does not take, a port in use and a missing extra, as it catches the client's.

The sandbox's errors were ``ValueError``s, a ``RuntimeError`` and an ``ImportError`` of its own
that ``except dealframe.DealframeError`` let through; ``Changes.insert(..., nn=1)`` and
``sb.reset(1)`` were Python's bare ``TypeError``, and ``Changes(None)`` was accepted.
"""

from __future__ import annotations

import pickle
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

import dealframe
import dealframe.sandbox
from dealframe.sandbox import (
    ChangeInputError,
    Changes,
    FaultPlan,
    SandboxArgumentError,
    SandboxCallError,
    SandboxConfig,
    SandboxExtraMissing,
    SandboxStartError,
    UnknownProfileError,
)

B = "/api/private/v1"
ADMIN = "admin-token-for-tests"


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.02, seed=7, admin_token=ADMIN) as sandbox:
        yield sandbox


def _deals_page(sandbox: Any, limit: int) -> dict[str, Any]:
    """The first page of deals, as the sandbox serves it over HTTP."""
    answer = requests.post(
        f"{sandbox.url}{B}/transactions",
        json={"limit": limit},
        headers={"Authorization": f"Bearer {sandbox.private_key}"},
        timeout=30,
    )
    assert answer.status_code == 200
    return answer.json()


def _total(sandbox: Any) -> int:
    return int(_deals_page(sandbox, 1)["meta"]["total"])


def _caught(call: Callable[[], object]) -> dealframe.DealframeError:
    try:
        call()
    except dealframe.DealframeError as error:
        return error
    raise AssertionError("nothing was raised")  # pragma: no cover


@pytest.mark.parametrize(
    "call, cls, argument",
    [
        (lambda: dealframe.sandbox.run(scale=-1).__enter__(), SandboxArgumentError, "scale"),
        (lambda: dealframe.sandbox.start(profile="nope"), UnknownProfileError, "profile"),
        (lambda: FaultPlan(rate=2), SandboxArgumentError, "rate"),
        (lambda: SandboxConfig(seed=-1), SandboxArgumentError, "seed"),
        (lambda: dealframe.sandbox.run(scal=0.1).__enter__(), SandboxCallError, "scal"),
    ],
)
def test_a_bad_sandbox_argument_is_a_validation_error(
    call: Callable[[], object], cls: type, argument: str
) -> None:
    error = _caught(call)
    assert type(error) is cls
    assert isinstance(error, dealframe.ValidationError) and isinstance(error, ValueError)
    assert error.argument == argument and error.expected
    assert argument in str(error)
    again = pickle.loads(pickle.dumps(error))  # crosses a process as itself
    assert (type(again), str(again), again.argument) == (cls, str(error), argument)


def test_a_bad_change_is_a_validation_error_and_the_admin_400_still_quotes_it(sb: Any) -> None:
    before = _total(sb)
    error = _caught(lambda: Changes(sb.state, seed=1).insert("dealz", 3))
    assert type(error) is ChangeInputError and isinstance(error, dealframe.ValidationError)
    assert (error.argument, error.got) == ("entity", "dealz")
    assert str(error) == (
        "entity: 'dealz' is not one of companies, investors, deals (did you mean 'deals'?)"
    )
    assert _total(sb) == before  # nothing was changed
    answer = requests.post(
        f"{sb.url}/admin/v1/changes",
        json={"operation": "insert", "entity": "deals", "n": -1},
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=30,
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["details"]["errors"] == [
        "n: must be a non-negative integer, got -1"
    ]


@pytest.mark.parametrize(
    "path, body, said",
    [
        (
            "changes",
            {"operation": "insert", "entity": "deals", "n": 10**15},
            "n: must be at most 100,000 (call again for more), got 1000000000000000",
        ),
        (
            "changes",
            {"operation": "random_round", "n": 2**62},
            "n: must be at most 100,000 (call again for more), got 4611686018427387904",
        ),
        (
            "changes",
            {"operation": "random_round", "n": 2, "advance_seconds": 1e30},
            "advance_seconds: must be a number >= 0 that keeps the clock before the year 10000, "
            "got 1e+30",
        ),
        (
            "advance",
            {"seconds": 1e18},
            "seconds: must be a number >= 0 that keeps the clock before the year 10000, got 1e+18",
        ),
    ],
)
def test_a_count_or_clock_move_beyond_reach_is_a_400_that_changes_nothing(
    sb: Any, path: str, body: dict[str, Any], said: str
) -> None:
    """Each was an ``OverflowError`` or ``MemoryError`` inside the sandbox: a 500."""
    before = _total(sb)
    clock = requests.get(
        f"{sb.url}/admin/v1/clock", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30
    ).json()["data"]["now"]
    answer = requests.post(
        f"{sb.url}/admin/v1/{path}",
        json=body,
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=30,
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["details"]["errors"] == [said]
    assert _total(sb) == before
    after = requests.get(
        f"{sb.url}/admin/v1/clock", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30
    ).json()["data"]["now"]
    assert after == clock


@pytest.mark.parametrize(
    "state, seed, argument",
    [(None, 0, "state"), ("sandbox", 0, "state"), ("state", -1, "seed"), ("state", "x", "seed")],
)
def test_changes_refuses_a_state_or_seed_it_cannot_use_naming_it(
    sb: Any, state: Any, seed: Any, argument: str
) -> None:
    given = {"sandbox": sb, "state": sb.state}.get(state, state)
    error = _caught(lambda: Changes(given, seed=seed))
    assert type(error) is ChangeInputError and error.argument == argument
    assert str(error).startswith(f"{argument}: must be ")


def test_a_call_the_signature_does_not_take_is_a_dealframe_error_and_a_type_error(
    sb: Any,
) -> None:
    changes = Changes(sb.state, seed=1)
    before = _total(sb)
    error = _caught(lambda: changes.insert("deals", nn=1))
    assert type(error) is SandboxCallError and isinstance(error, TypeError)
    assert error.argument == "nn" and "a keyword of Changes.insert (did you mean 'n'?)" in str(
        error
    )
    assert _total(sb) == before
    assert changes.insert("deals", n=2) and _total(sb) == before + 2  # the right call works
    error = _caught(lambda: sb.reset(1))
    assert type(error) is SandboxCallError and error.argument == "arguments"
    assert "Sandbox.reset (too many positional arguments)" in str(error)
    assert _total(sb) == before + 2  # not reset
    sb.reset()
    assert _total(sb) == before


def test_a_port_in_use_is_a_dealframe_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        error = _caught(lambda: dealframe.sandbox.start(scale=0.02, port=busy))
    assert type(error) is SandboxStartError and isinstance(error, RuntimeError)
    assert f"127.0.0.1:{busy}" in str(error)


def test_the_sandbox_without_its_extra_is_an_extra_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "dealframe.sandbox.server", raising=False)
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn fails
    error = _caught(lambda: dealframe.sandbox.launch.http_layer())
    assert type(error) is SandboxExtraMissing
    assert isinstance(error, dealframe.ExtraMissing) and isinstance(error, ImportError)
    assert (error.extra, error.name) == ("sandbox", "uvicorn")
    assert 'pip install "dealframe[sandbox]"' in str(error)


def test_every_public_method_of_changes_and_sandbox_names_an_unknown_keyword(sb: Any) -> None:
    checked = []
    for owner in (Changes(sb.state, seed=1), sb, sb.state, FaultPlan(rate=0.0)):
        for name in dir(type(owner)):
            method = getattr(owner, name)
            if name.startswith("_") or not callable(method):
                continue
            with pytest.raises(SandboxCallError) as caught:
                method(no_such_keyword=1)
            assert caught.value.argument == "no_such_keyword", name
            checked.append(name)
    assert {"insert", "edit", "random_round", "bulk", "reset", "stop"} <= set(checked)
    assert {"build", "close", "script", "draw"} <= set(checked)  # a classmethod too
    assert _total(sb) > 0  # still serving: nothing was stopped or changed


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.update(id="zzz"), "id: must be a UUID string"),
        (lambda d: d.update(deal_type=None), "deal_type: must be one of"),
        (lambda d: d.pop("deal_type"), "deal_type: must be kept"),
    ],
    ids=["id changed", "null", "removed"],
)
def test_an_edit_leaving_a_record_invalid_is_refused_and_changes_nothing(
    sb: Any, change: Callable[[dict], None], said: str
) -> None:
    """It was a bare ValueError or KeyError, after the first record's text was written with
    its new updated_at while its columns kept the old values (served rows and filters
    disagreed)."""
    page = _deals_page(sb, 2)["data"]
    ids = [d["id"] for d in page]
    error = _caught(lambda: Changes(sb.state, seed=1).edit("deals", ids, change))
    assert type(error) is ChangeInputError and error.argument == "change"
    assert said in str(error) and "nothing was changed" in str(error)
    again = _deals_page(sb, 2)["data"]
    assert again == page  # served as before: the text, its updated_at and the filters
