"""A resolver that keeps answering ``EAI_AGAIN`` ("Temporary failure in name resolution")
costs a call two tries, not ``retries + 1``: each try waits out the resolver's own time-out
(seconds), so six of them with their backoff made a call hang about 18 s for a 2 s resolver
before saying anything. One retry is kept (a single failure is a passing hiccup, see
``test_a_temporary_resolver_failure_is_retried_not_taken_for_a_wrong_host``); the error
says what was seen: the resolver's temporary failure, the host, the tries, what to check.

The resolver is played by replacing ``socket.getaddrinfo`` for the name ``localhost`` only;
the sandbox answers over real HTTP once the name resolves. Lookups are counted, not timed.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from _cli import pull

import dealframe
from dealframe.errors import TransportError


@pytest.fixture
def lookups(monkeypatch) -> list[str]:
    """Every lookup of ``localhost``, each failing for the time being (``EAI_AGAIN``)."""
    seen: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name == "localhost":
            seen.append(name)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return seen


def test_a_resolver_that_keeps_failing_costs_two_tries_and_says_so(sandbox, lookups):
    url = sandbox.url.replace("127.0.0.1", "localhost")
    with dealframe.Client(
        url, sandbox.public_token, sandbox.private_key, cache_enabled=False, retries=5
    ) as client:
        with pytest.raises(TransportError) as caught:
            client.public.search(regions=["Western Europe"])
        assert client.stats.snapshot()["retries"] == 1, client.stats
    assert lookups == ["localhost", "localhost"]  # it was 6: retries + 1
    error = caught.value
    assert error.kind == "connection" and error.attempts == 2
    assert str(error).startswith(
        f"cannot connect to {url}: the resolver could not look up its host name localhost "
        "for the time being (temporary failure in name resolution): check DEALFRAME_BASE_URL "
        "and your network ("
    ), str(error)
    assert str(error).endswith(
        "; gave up after 2 attempts; a temporary resolver failure on 2 tries of this call: "
        "not retried further"
    ), str(error)


def test_a_pull_against_a_failing_resolver_stops_after_two_lookups(
    sandbox, lookups, capsys, monkeypatch, tmp_path
):
    url = sandbox.url.replace("127.0.0.1", "localhost")
    code, err = pull(
        ["deals", "-o", str(tmp_path / "d.csv")], url, sandbox.private_key, capsys, monkeypatch
    )
    assert code == 1, err
    assert len(lookups) == 2, lookups
    assert "the resolver could not look up its host name localhost for the time being" in err
    assert "check DEALFRAME_BASE_URL and your network" in err and "2 tries" in err, err
