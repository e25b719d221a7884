"""Requests whose retries serve nobody are one attempt.

Two reads had the transport's full retries and backoff though no answer of theirs was waited
for:

- A Family B filter value the interface document's types refuse (``date_from="2024-13-45"``)
  was refused only after the service's discovery document was read. Against an unreachable
  service (or a failing gateway) that read went through every retry, and the user waited
  seconds for the ``ValidationError`` naming their typo. It then became one attempt; now no
  request at all is sent for it (test_filters_offline.py): a refused connection, a 5xx or a
  429 (whatever its ``Retry-After``) is never met. A value the precheck passes keeps the
  client's retries.
- The open-vocabulary hint after an empty answer reads a page of companies: a mere hint, so
  one attempt; a 503 or a 429 there leaves the hint out, silently.

The transport's way to say so: ``Transport.request(..., retries=0)``. The counts are read at
the drift proxy (or in the client's statistics for a closed port), never from timings.
"""

from __future__ import annotations

import socket
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _cli import pull
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    fresh_rules,
    html,
    no_hang,
    outcome,
    proxy,
)

import dealframe
from dealframe.errors import ApiError, ServerError, TransportError, ValidationError
from dealframe.notices import MissingDataWarning
from dealframe.transport.session import REFUSED_RETRIES

P = "/api/private/v1"
LOOKUP = f"^{P}/lookup/"
COMPANIES = f"^{P}/companies$"
DEALS = f"^{P}/transactions$"

#: Retried settings: old code sent ``1 + retries`` discovery reads (backoff kept short so a
#: run against the old code fails on its counts, not on a hang).
RETRIED: dict[str, Any] = {**FAST, "retries": 2, "retry_after_max": 5.0}


def too_many_requests(retry_after: str = "0") -> Action:
    """A 429 with ``Retry-After`` instead of the answer (the request is not forwarded)."""

    def apply(ex: Exchange) -> None:
        ex.forward, ex.status, ex._doc = False, 429, None
        ex.headers = {"Content-Type": "application/json", "Retry-After": retry_after}
        ex.content = orjson.dumps({"error": {"code": "RATE_LIMITED", "message": "slow down"}})

    return Action(f"too_many_requests({retry_after})", on_request=apply)


FAILURES: dict[str, Callable[[], Action]] = {
    "gateway-503": lambda: html(503),
    "429-retry-after-0": lambda: too_many_requests("0"),
    "429-retry-after-1": lambda: too_many_requests("1"),
}


@pytest.fixture
def closed_port() -> str:
    """The URL of a loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def client(sandbox: Any, proxy: Any) -> Iterator[dealframe.Client]:
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **RETRIED
    ) as c:
        yield c


# ------------------------------------------------------------------ the refused filter value


def test_a_refused_value_against_a_closed_port_sends_nothing(closed_port):
    """Connection refused: the typo is named without an attempt (old code: ``retries`` more,
    each after a backoff; then one attempt)."""
    with dealframe.Client(closed_port, "p", "k", cache_enabled=False, **RETRIED) as c:
        o = outcome(lambda: c.private.deals(date_from="2024-13-45"))
        stats = c.stats.snapshot()
    assert type(o.error) is ValidationError and o.error.argument == "date_from", repr(o.error)
    assert stats["calls"] == stats["attempts"] == stats["retries"] == 0, stats
    assert not stats["faults"], stats


def test_a_passing_value_against_a_closed_port_keeps_its_retries(closed_port):
    """A well-formed value: the discovery read is the call's own, retried as the transport
    retries a refused connection of a client the service never answered (once:
    ``REFUSED_RETRIES``), where a refused value's read is never retried."""
    with dealframe.Client(closed_port, "p", "k", cache_enabled=False, **RETRIED) as c:
        o = outcome(lambda: c.private.deals(date_from="2024-12-01"))
        stats = c.stats.snapshot()
    assert isinstance(o.error, TransportError) and o.error.kind == "connection", repr(o.error)
    assert stats["retries"] == min(RETRIED["retries"], REFUSED_RETRIES) == 1, stats


@pytest.mark.parametrize("failure", list(FAILURES), ids=list(FAILURES))
def test_a_refused_value_sends_no_discovery_read(client, proxy, failure):
    """The discovery read would answer 503 or 429 (``Retry-After`` 0 or 1 s, within
    ``retry_after_max``): the typo is named with no request sent; the same read for a
    well-formed value is retried as the settings say."""
    proxy.add(LOOKUP, FAILURES[failure]())
    bad = outcome(lambda: client.private.deals(date_from="2024-13-45"))
    assert type(bad.error) is ValidationError and bad.error.argument == "date_from"
    assert proxy.count() == 0, proxy.seen
    assert client.stats.snapshot()["retries"] == 0
    good = outcome(lambda: client.private.deals(date_from="2024-12-01"))
    assert isinstance(good.error, ApiError) and not isinstance(good.error, ValidationError)
    assert proxy.count(LOOKUP) == 1 + RETRIED["retries"], proxy.seen
    assert proxy.count(DEALS) == 0


def test_pull_names_a_malformed_flag_before_the_discovery_read(
    sandbox, proxy, tmp_path, capsys, monkeypatch
):
    """``dealframe pull deals --date-from bad`` against a gateway answering 503: exit 2
    naming the flag with no request sent (it sent 1 + the default retries, then one)."""
    proxy.add(LOOKUP, html(503))
    argv = ["deals", "--date-from", "bad", "-o", str(tmp_path / "d.csv")]
    code, err = pull(argv, proxy.url, sandbox.private_key, capsys, monkeypatch)
    assert code == 2 and "invalid --date-from: " in err, err
    assert proxy.count() == 0, proxy.seen


# ------------------------------------------------------------------------- the empty-answer hint


@pytest.mark.parametrize("failure", list(FAILURES), ids=list(FAILURES))
def test_the_hint_page_is_one_attempt(client, proxy, failure):
    """The page of companies read for the hint answers 503 or 429: asked once, no hint, no
    warning, the empty answer returned (it was asked ``1 + retries`` times)."""
    client.private.schema("companies")
    hint = proxy.add(
        COMPANIES,
        FAILURES[failure](),
        method="POST",
        when=lambda ex: isinstance(ex.body, dict) and "filters" not in ex.body,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingDataWarning)
        frame = client.private.companies(verticals=["Qqqqzzzz Wwww"])
    assert len(frame) == 0
    assert hint.used == 1, proxy.seen
    assert client.stats.snapshot()["retries"] == 0


@pytest.mark.parametrize("failure", list(FAILURES), ids=list(FAILURES))
def test_the_family_a_hint_search_is_one_attempt(client, proxy, failure):
    """Family A's hint after an empty search filtered by industries (an unfiltered search)
    answers 503 or 429: asked once, no warning, the empty answer returned (it was asked
    ``1 + retries`` times, each after a backoff or the ``Retry-After``)."""
    hint = proxy.add(
        "^/api/v2/companies$",
        FAILURES[failure](),
        method="POST",
        when=lambda ex: ex.body == {},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingDataWarning)
        frame = client.public.search(industries=["Qqqqzzzz Wwww"])
    assert len(frame) == 0
    assert hint.used == 1, proxy.seen
    assert client.stats.snapshot()["retries"] == 0


def test_the_family_a_hint_is_not_sent_while_a_429_holds_the_client_back(client, proxy):
    """Another call's 429 closed the gate: the empty answer stands, the hint sends nothing."""
    client._transport.gate.block_for(30)
    client.public._explain_empty({"industries": ["Qqqqzzzz"]}, True, False, False)
    assert proxy.count() == 0


def test_the_hint_page_is_not_sent_while_a_429_holds_the_client_back(client, proxy):
    """Another call's 429 closed the client's gate: the hint is left out at once, nothing is
    sent (it would have waited at the gate for the rest of its 5 s)."""
    client._transport.gate.block_for(30)  # the client is this test's own
    assert client.private._carried_values(None) is None
    assert proxy.count() == 0
    assert client.stats.snapshot()["gate_wait_seconds"] == 0


# ------------------------------------------------------------------------------ the transport


def test_the_transport_takes_retries_per_request(client, proxy):
    """``retries=0``: one send; None: the settings' retries; anything else is refused before
    sending."""
    proxy.add(LOOKUP, html(503))
    t = client._transport
    path = f"{P}/lookup/companies"
    with pytest.raises(ServerError):
        t.request("private", "GET", path, kind="discovery", retries=0)
    assert proxy.count() == 1
    with pytest.raises(ServerError):
        t.request("private", "GET", path, kind="discovery")
    assert proxy.count() == 1 + 1 + RETRIED["retries"]
    for wrong in (-1, True, 1.5, "0"):
        with pytest.raises(ValidationError) as caught:
            t.request("private", "GET", path, kind="discovery", retries=wrong)
        assert caught.value.argument == "retries"
    assert proxy.count() == 1 + 1 + RETRIED["retries"]
