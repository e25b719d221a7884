"""Every number setting has a largest value, refused when the client is made, before any
request, with a ``ConfigurationError`` naming the setting and its range (issue 8: "every
invalid input raises a dealframe error naming the argument ... nothing else ever escapes").

Before, ``Client`` took any finite number: ``read_timeout=1e10`` or ``connect_timeout=2**64``
failed at the first request with a bare ``OverflowError`` from the socket, a
``cache_expiry`` of ``2**64`` with one from the cache's dates, and ``max_workers=2**64`` (or
``DEALFRAME_MAX_WORKERS=99999999999999999999``) hung the first request while urllib3 filled its
pool with that many slots. The checks run over real HTTP through the drift proxy, which
counts what reached the service.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, fresh_rules, no_hang, proxy  # noqa: F401 - fixtures by name

from dealframe import Client
from dealframe.config import SETTING_MAXIMUMS
from dealframe.errors import ConfigurationError

ANY = "^/api/"

TOO_LARGE = {
    "read_timeout 1e10": ("read_timeout", {"read_timeout": 1e10}),
    "connect_timeout 2**64": ("connect_timeout", {"connect_timeout": 2**64}),
    "read_timeout 1e300": ("read_timeout", {"read_timeout": 1e300}),
    "call_budget 2**64": ("call_budget", {"call_budget": 2**64}),
    "backoff_cap 1e300": ("backoff_cap", {"backoff_cap": 1e300}),
    "retry_after_max 1e10": ("retry_after_max", {"retry_after_max": 1e10}),
    "retries 2**64": ("retries", {"retries": 2**64}),
    "cache_expiry 2**64": ("cache_expiry['list']", {"cache_expiry": {"list": 2**64}}),
    "one past the maximum of max_workers": (
        "max_workers",
        {"max_workers": int(SETTING_MAXIMUMS["max_workers"]) + 1},
    ),
}


def _client(sandbox: Any, proxy: Any, folder: Path, **settings: Any) -> Client:
    return Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_path=folder / "http-cache.sqlite",
        **{**FAST, **settings},
    )


@pytest.mark.parametrize("case", TOO_LARGE)
def test_a_setting_past_its_maximum_is_refused_before_any_request(case, sandbox, proxy, tmp_path):
    name, settings = TOO_LARGE[case]
    with pytest.raises(ConfigurationError) as info:
        with _client(sandbox, proxy, tmp_path, **settings) as client:
            client.public.search(regions=["Oceania"])  # before: OverflowError here
    assert info.value.field == name
    assert f"{name} must be from " in str(info.value) and " to " in str(info.value)
    assert proxy.count(ANY) == 0


@pytest.mark.parametrize("workers", [2**64, 10**6])
def test_a_huge_max_workers_is_refused_when_the_client_is_made(workers, sandbox, proxy, tmp_path):
    """Not called: on the old code the first request hung (``2**64``) or spent seconds
    filling the pool (``10**6``)."""
    with pytest.raises(ConfigurationError, match=r"max_workers must be from 1 to 64") as info:
        _client(sandbox, proxy, tmp_path, max_workers=workers).close()
    assert info.value.field == "max_workers"
    assert proxy.count(ANY) == 0


def test_a_huge_max_workers_from_the_environment_names_the_variable(sandbox, proxy, monkeypatch):
    monkeypatch.setenv("DEALFRAME_MAX_WORKERS", "99999999999999999999")
    with pytest.raises(ConfigurationError) as info:
        Client(proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False).close()
    assert "max_workers (DEALFRAME_MAX_WORKERS) must be from 1 to 64" in str(info.value)
    assert proxy.count(ANY) == 0


def test_the_maximums_themselves_are_taken_and_work(sandbox, proxy, tmp_path):
    top = {
        name: SETTING_MAXIMUMS[name]
        for name in ("connect_timeout", "read_timeout", "call_budget", "max_workers")
    }
    top["cache_expiry"] = {"list": SETTING_MAXIMUMS["cache_expiry"]}
    with _client(sandbox, proxy, tmp_path, **top) as client:
        first = client.public.search(regions=["Oceania"])
        again = client.public.search(regions=["Oceania"])
    assert len(first) > 0 and again.attrs["from_cache"] is True
    assert proxy.count(ANY) == 1
