"""A refused connection (nothing listens at the base URL's port) fails a new client's call
after one retry, saying what to check; once the service has answered the client, a refused
connection is a restart and the call's ``retries`` apply (docs/reliability.md).

A wrong port cost about 10 s of retries with backoff before the error said to check the base
URL, where a host name that does not resolve fails at once.
"""

from __future__ import annotations

import socket

import pytest

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import TransportError

#: Quick backoff: the waits are not what is tested.
QUICK = dict(cache_enabled=False, progress=False, backoff_base=0.01, backoff_cap=0.02)


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_new_client_refused_gives_up_after_one_retry_naming_what_to_check():
    url = f"http://127.0.0.1:{_closed_port()}"
    with Client(url, "t", "k", retries=5, **QUICK) as client:
        with pytest.raises(TransportError) as caught:
            client.private.company("00000000-0000-0000-0000-000000000001")
        stats = client.stats.snapshot()
    error = caught.value
    assert error.kind == "connection"
    assert error.attempts == 2 and stats["attempts"] == 2 and stats["retries"] == 1
    text = str(error)
    assert "connection refused" in text and "check DEALFRAME_BASE_URL" in text
    assert "the service has not answered this client yet" in text


def test_a_service_that_answered_then_refuses_is_retried_with_the_calls_retries():
    served = dealframe.sandbox.run(scale=0.01)
    sandbox = served.__enter__()
    try:
        client = Client(sandbox.url, sandbox.public_token, sandbox.private_key, retries=3, **QUICK)
        first = client.private.companies(limit=1)
        assert len(first) == 1  # the service answered this client
    finally:
        served.__exit__(None, None, None)  # stopped: its port now refuses
    try:
        before = client.stats.snapshot()
        with pytest.raises(TransportError) as caught:
            client.private.companies(limit=1)
        after = client.stats.snapshot()
    finally:
        client.close()
    assert caught.value.kind == "connection"
    assert after["attempts"] - before["attempts"] == 4  # retries=3: every one of them made
    assert "has not answered" not in str(caught.value)
