"""Arguments of ``run``/``start``/``serve``/``embedded`` a sandbox cannot use are refused first.

Before: ``faults=True`` (or any object) and ``admin_token=True``/``b"x"``/``nan`` started a
sandbox whose every request (every admin request) was a 500; ``admin_token=""`` turned the
admin endpoints on with no token that opens them; ``latency=1e30`` and
``FaultPlan(slow_seconds=10**30, retry_after=10**30)`` were taken, and every answer hung;
``embedded(say=True)`` was a bare ``TypeError`` once the start began. Each is now a
:class:`~dealframe.sandbox.SandboxArgumentError` naming the argument, before any data is
built; the values at the documented bounds still serve.
"""

from __future__ import annotations

import math

import pytest
import requests

import dealframe.sandbox
from dealframe.sandbox import FaultPlan, SandboxArgumentError, SandboxConfig
from dealframe.sandbox import server as server_module


@pytest.fixture
def nothing_built(monkeypatch):
    """Fails a test whose call builds sandbox data."""

    def build(*args, **kwargs):
        raise AssertionError("data was built before the arguments were checked")

    monkeypatch.setattr(server_module.SandboxState, "build", build)


@pytest.mark.parametrize("faults", [True, object(), {"a": 1}, "slow", 0.1])
@pytest.mark.parametrize("call", ["run", "start", "serve"])
def test_faults_that_are_no_fault_plan_are_refused(nothing_built, call, faults):
    with pytest.raises(SandboxArgumentError) as caught:
        if call == "run":
            with dealframe.sandbox.run(scale=0.02, faults=faults):
                pass
        else:
            getattr(dealframe.sandbox, call)(scale=0.02, port=0, faults=faults)
    assert caught.value.argument == "faults" and "FaultPlan" in str(caught.value)


@pytest.mark.parametrize("token", [True, object(), b"x", math.nan, 1, "", "   "])
@pytest.mark.parametrize("call", ["run", "start", "serve"])
def test_an_admin_token_that_is_no_text_or_empty_is_refused(nothing_built, call, token):
    with pytest.raises(SandboxArgumentError) as caught:
        if call == "run":
            with dealframe.sandbox.run(scale=0.02, admin_token=token):
                pass
        else:
            getattr(dealframe.sandbox, call)(scale=0.02, port=0, admin_token=token)
    assert caught.value.argument == "admin_token"
    assert "a non-empty string" in str(caught.value)


@pytest.mark.parametrize("latency", [1e30, 10**30, 60.5])
def test_a_latency_past_a_minute_is_refused(nothing_built, latency):
    with pytest.raises(SandboxArgumentError, match="invalid latency: .* to 60") as caught:
        with dealframe.sandbox.run(scale=0.02, latency=latency):
            pass
    assert caught.value.argument == "latency"
    with pytest.raises(SandboxArgumentError, match="invalid latency"):
        SandboxConfig(scale=0.02, latency=latency)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"slow_seconds": 10**30}, "slow_seconds"),
        ({"slow_seconds": 600.5}, "slow_seconds"),
        ({"retry_after": 10**30}, "retry_after"),
        ({"retry_after": 86_401}, "retry_after"),
        ({"retry_after_503": 1e9}, "retry_after_503"),
    ],
)
def test_fault_durations_past_their_bounds_are_refused(kwargs, argument):
    with pytest.raises(SandboxArgumentError) as caught:
        FaultPlan(**kwargs)
    assert caught.value.argument == argument


@pytest.mark.parametrize("say", [True, "x", 0])
def test_embedded_refuses_a_say_it_cannot_call(nothing_built, say):
    with pytest.raises(SandboxArgumentError) as caught:
        with dealframe.sandbox.embedded(scale=0.02, say=say):
            pass
    assert caught.value.argument == "say"


def test_the_bounds_themselves_serve():
    plan = FaultPlan(slow_seconds=600, retry_after=86_400, retry_after_503=86_400)
    path = "/api/private/v1/lookup/transactions"
    plan.script(f"^{path}$", ["429", "503"])
    with dealframe.sandbox.run(scale=0.02, faults=plan, admin_token="adm", latency=0) as sb:
        key = {"Authorization": f"Bearer {sb.private_key}"}
        limited = requests.get(f"{sb.url}{path}", headers=key, timeout=10)
        unavailable = requests.get(f"{sb.url}{path}", headers=key, timeout=10)
        answered = requests.get(f"{sb.url}{path}", headers=key, timeout=10)
        admin = f"{sb.url}/admin/v1/clock"
        opened = requests.get(admin, headers={"Authorization": "Bearer adm"}, timeout=10)
        closed = requests.get(admin, headers={"Authorization": "Bearer x"}, timeout=10)
    assert (limited.status_code, limited.headers["Retry-After"]) == (429, "86400")
    assert (unavailable.status_code, unavailable.headers["Retry-After"]) == (503, "86400")
    assert answered.status_code == 200
    assert (opened.status_code, closed.status_code) == (200, 401)
    assert SandboxConfig(scale=0.02, latency=60).latency == 60
