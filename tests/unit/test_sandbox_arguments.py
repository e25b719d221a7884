"""The sandbox refuses bad arguments before it builds anything, naming them
(:class:`dealframe.sandbox.SandboxArgumentError`, a ``ValueError``)."""

from __future__ import annotations

import datetime as dt
import math
import socket

import numpy as np
import pytest
import requests

import dealframe.sandbox
from dealframe.sandbox import (
    FaultPlan,
    SandboxArgumentError,
    SandboxConfig,
    SandboxStartError,
    SandboxState,
)
from dealframe.sandbox.models.data import generate
from dealframe.sandbox.profiles import UnknownProfileError


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"scale": 0}, "scale"),
        ({"scale": -1.0}, "scale"),
        ({"scale": math.nan}, "scale"),
        ({"scale": "big"}, "scale"),
        ({"seed": "x"}, "seed"),
        ({"seed": True}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": None}, "seed"),
        ({"scale": 10**400}, "scale"),
        ({"latency": -0.1}, "latency"),
        ({"rate_limit": 0}, "rate_limit"),
        ({"public_token": ""}, "public_token"),
    ],
)
def test_a_bad_config_is_refused_naming_the_argument(kwargs, argument):
    with pytest.raises(SandboxArgumentError) as caught:
        SandboxConfig(**kwargs)
    assert caught.value.argument == argument
    assert str(caught.value).startswith(f"invalid {argument}: expected ")


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"rate": 2}, "rate"),
        ({"rate": -0.5}, "rate"),
        ({"kinds": ("503", "teapot")}, "kinds"),
        ({"retry_after": -1}, "retry_after"),
        ({"slow_seconds": math.inf}, "slow_seconds"),
    ],
)
def test_a_bad_fault_plan_is_refused_naming_the_argument(kwargs, argument):
    with pytest.raises(SandboxArgumentError) as caught:
        FaultPlan(**kwargs)
    assert caught.value.argument == argument
    with pytest.raises(SandboxArgumentError, match="teapot"):
        FaultPlan().script("x", ["teapot"])


def test_run_refuses_a_bad_scale_before_building_data():
    with pytest.raises(SandboxArgumentError, match="invalid scale"):
        with dealframe.sandbox.run(scale=0):
            pass
    with pytest.raises(SandboxArgumentError, match="invalid scale"):
        generate(seed=1, scale=-2)
    assert isinstance(SandboxArgumentError("a", "b", 1), ValueError)  # catchable as before


@pytest.mark.parametrize("port", [80000, -1, True, "8765", 2.0])
def test_run_refuses_a_bad_port_before_building_data(port):
    with pytest.raises(SandboxArgumentError, match="invalid port") as caught:
        with dealframe.sandbox.run(scale=0.02, port=port):
            pass
    assert caught.value.argument == "port"


@pytest.mark.parametrize("host", [1, None, "", b"127.0.0.1"])
def test_run_and_serve_refuse_a_host_that_is_not_text_naming_it(host):
    """A host of another type was a bare TypeError from getaddrinfo."""
    with pytest.raises(SandboxArgumentError, match="invalid host") as caught:
        with dealframe.sandbox.run(scale=0.02, host=host):
            pass
    assert caught.value.argument == "host"
    with pytest.raises(SandboxArgumentError, match="invalid host") as caught:
        dealframe.sandbox.serve(scale=0.02, host=host, port=0)  # refused: it never serves
    assert caught.value.argument == "host"


@pytest.mark.parametrize("profile", [5, True, 2.5, {"limit-100": 1}])
def test_run_refuses_a_profile_that_is_no_name_or_list_naming_it(profile):
    """A number or a flag as ``profile`` was a bare TypeError ('int' object is not iterable)."""
    with pytest.raises(UnknownProfileError, match="^profile: a profile name"):
        with dealframe.sandbox.run(scale=0.02, profile=profile):
            pass


def test_a_port_in_use_fails_at_once_with_the_reason_and_nothing_on_stderr(capfd, monkeypatch):
    built: list[object] = []

    def tripwire(*args: object, **kwargs: object) -> None:  # where a sandbox loads its data
        built.append(args)
        raise AssertionError("the data was built before the address was taken")

    monkeypatch.setattr(SandboxState, "build", tripwire)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        with pytest.raises(SandboxStartError, match="in use") as caught:
            with dealframe.sandbox.run(scale=1.0, port=busy):  # fails before any data is built
                pass
    assert built == []  # at once: no data was built (scale 1.0 would take seconds)
    assert str(busy) in str(caught.value)
    assert capfd.readouterr().err == ""


def test_numpy_numbers_are_numbers():
    config = SandboxConfig(
        seed=np.int64(3), scale=np.float32(0.5), latency=np.float64(0.0), rate_limit=np.int64(5)
    )
    assert config.seed == 3 and config.scale == 0.5
    assert FaultPlan(rate=np.float32(0.25), retry_after=np.int64(0)).rate == np.float32(0.25)


@pytest.mark.parametrize(
    "as_of, expected",
    [
        ("2026-01-01", dt.datetime(2026, 1, 1, tzinfo=dt.UTC)),
        (dt.date(2026, 1, 1), dt.datetime(2026, 1, 1, tzinfo=dt.UTC)),
        (dt.datetime(2026, 1, 1, 6), dt.datetime(2026, 1, 1, 6, tzinfo=dt.UTC)),
        ("2026-01-01T08:00:00+02:00", dt.datetime(2026, 1, 1, 6, tzinfo=dt.UTC)),
        ("2026-01-01T06:00:00Z", dt.datetime(2026, 1, 1, 6, tzinfo=dt.UTC)),
    ],
)
def test_as_of_takes_a_datetime_a_date_or_an_iso_string_and_keeps_utc(as_of, expected):
    config = SandboxConfig(scale=0.02, as_of=as_of)
    assert config.as_of == expected and config.as_of.utcoffset() == dt.timedelta(0)


def test_a_sandbox_started_with_a_date_string_serves_that_clock():
    with dealframe.sandbox.run(scale=0.02, as_of="2025-12-31") as sb:
        health = requests.get(sb.url + "/health", timeout=30).json()
    assert health["as_of"] == "2025-12-31T00:00:00+00:00"


@pytest.mark.parametrize("as_of", ["yesterday", "2026-13-01", 20260101, True, None, "1066-10-14"])
def test_a_bad_as_of_is_refused_naming_it_before_anything_is_built(as_of):
    with pytest.raises(SandboxArgumentError, match="invalid as_of: expected a datetime") as caught:
        dealframe.sandbox.start(scale=1.0, as_of=as_of)  # refused before a scale-1 build
    assert caught.value.argument == "as_of"
    with pytest.raises(SandboxArgumentError, match="invalid as_of"):
        SandboxConfig(as_of=as_of)


@pytest.mark.parametrize(
    "call, typo, meant",
    [
        (lambda: dealframe.sandbox.start(sede=3), "sede", "seed"),
        (lambda: dealframe.sandbox.run(scal=0.1).__enter__(), "scal", "scale"),
        (lambda: dealframe.sandbox.serve(prot=8765), "prot", "port"),
        (lambda: dealframe.sandbox.embedded(scael=1).__enter__(), "scael", "scale"),
        (lambda: SandboxConfig(as_off="2026-01-01"), "as_off", "as_of"),
        (lambda: FaultPlan(rat=0.5), "rat", "rate"),
    ],
)
def test_a_keyword_typo_is_a_sandbox_argument_error_with_the_closest_keyword(call, typo, meant):
    with pytest.raises(SandboxArgumentError) as caught:
        call()
    assert caught.value.argument == typo
    assert f"(did you mean {meant!r}?)" in str(caught.value)


def test_too_many_positional_arguments_are_a_sandbox_argument_error():
    with pytest.raises(SandboxArgumentError, match="too many positional") as caught:
        dealframe.sandbox.start(0.02, 7, 8765)
    assert caught.value.argument == "arguments"


def test_the_sandbox_socket_says_it_is_tcp_so_its_connections_do_not_wait_on_nagle():
    """asyncio turns Nagle's algorithm off (TCP_NODELAY) only on connections of a socket
    whose protocol is IPPROTO_TCP; the sandbox's said 0, and every small answer on a
    kept-alive connection waited about 40 ms for the client's delayed ACK."""
    from dealframe.sandbox.server import _bind

    sock = _bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
