"""The messages a notebook or shell user meets, over real HTTP against the sandbox: one plain
line naming what failed and what to do, never a Python exception's class name or repr.

Network failures (a closed port, a cut body, a dropped connection, a read timeout), an
exhausted ``call_budget``, a refused token of either family, a client used after ``close()``,
an item of the wrong shape (``broken`` profile), and ``EnumValueError`` importable where
docs/errors.md says.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import warnings
from collections.abc import Iterator

import pytest

import dealframe
import dealframe.errors
import dealframe.private.filters
import dealframe.sandbox
from dealframe.errors import AuthenticationError, ServiceContractError, TransportError
from dealframe.sandbox.faults import FaultPlan

#: What no message may hold: Python exception class names, errno text, a repr's parenthesis.
PYTHON = re.compile(
    r"[A-Z][A-Za-z]+(Error|Exception|Disconnected|Exceeded|Read)\b|gaierror|\[Errno|\w+\(\d+ bytes"
)
SEARCH = "POST /api/v2/companies"
CLOSED = (
    "this Client is closed (its with block ended, or close() was called): "
    "create a new dealframe.Client"
)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _plain(text: str) -> None:
    assert PYTHON.search(text) is None, text
    assert "\n" not in text


#: One fault plan for the module's sandbox: each fault test scripts the next search's fault.
PLAN = FaultPlan(slow_seconds=1.0)


@pytest.fixture(scope="module")
def sandbox_url() -> Iterator[dealframe.sandbox.Sandbox]:
    with dealframe.sandbox.run(scale=0.02, faults=PLAN) as sb:
        yield sb


def _search_error(sb: dealframe.sandbox.Sandbox, kind: str, **settings: object) -> TransportError:
    PLAN.script(r"^/api/v2/companies$", [kind])
    with dealframe.Client.for_sandbox(sb, cache_enabled=False, **settings) as client:
        with pytest.raises(TransportError) as caught:
            client.public.search(regions=["Western Europe"])
    return caught.value


# D1 ----------------------------------------------------------------------------------------


def test_a_refused_connection_names_the_base_url_and_what_to_check() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with dealframe.Client(url, "pt", "pk", retries=1, backoff_base=0.01, cache_enabled=False) as c:
        with pytest.raises(TransportError) as caught:
            c.public.search(regions=["Western Europe"])
    assert caught.value.kind == "connection"
    assert str(caught.value) == (
        f"cannot connect to {url} (connection refused): check DEALFRAME_BASE_URL and that the "
        f"service is running ({SEARCH}); gave up after 2 attempts"
    )


def test_a_body_cut_short_says_how_much_arrived(sandbox_url) -> None:
    error = _search_error(sandbox_url, "truncate", retries=0)
    assert error.kind == "truncated"
    assert re.fullmatch(
        rf"the answer was cut short after [\d,]+ of [\d,]+ bytes \({SEARCH}\)", str(error)
    ), str(error)
    _plain(str(error))


def test_a_dropped_connection_says_the_service_closed_it(sandbox_url) -> None:
    error = _search_error(sandbox_url, "drop", retries=0)
    assert error.kind == "connection"
    assert str(error) == f"the service closed the connection without answering ({SEARCH})"


def test_a_read_timeout_names_the_setting_and_its_value(sandbox_url) -> None:
    error = _search_error(sandbox_url, "slow", retries=0, read_timeout=0.2, cut_stragglers=False)
    assert error.kind == "timeout"
    assert str(error) == f"no answer within read_timeout (0.2 s) ({SEARCH})"


def test_the_cli_says_the_same_plain_sentence_for_a_refused_connection() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    done = subprocess.run(
        [sys.executable, "-m", "dealframe", "doctor", "--base-url", url]
        + ["--public-token", "pubtok123", "--private-key", "privkey456"],
        env={**env, "DEALFRAME_CACHE": "off"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(lines) == 1, done.stderr
    # the URL came from --base-url: the sentence names it (test_cli_settings_named.py)
    assert f"cannot connect to {url} (connection refused): check --base-url" in lines[0]
    _plain(lines[0])


# D2 ----------------------------------------------------------------------------------------


def test_an_exhausted_call_budget_is_kind_budget_said_once(sandbox_url) -> None:
    with dealframe.Client.for_sandbox(sandbox_url, call_budget=0.001, cache_enabled=False) as c:
        with pytest.raises(TransportError) as caught:
            c.private.deals()
    text = str(caught.value)
    assert caught.value.kind == "budget", text
    assert text.startswith("call_budget (0.001 s) exhausted "), text
    assert text.endswith("; raise call_budget or narrow the call"), text
    assert text.count("exhausted") == 1, text
    _plain(text)


# D3 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "call", "hint"),
    [
        (
            ("good", "wrong-private-key"),
            lambda c: c.private.deals(limit=5),
            "the service refused the Family B key; check DEALFRAME_PRIVATE_KEY "
            "(or private_key=); each family accepts only its own token",
        ),
        (
            ("wrong-public-token", "good"),
            lambda c: c.public.search(regions=["Western Europe"]),
            "the service refused the Family A token; check DEALFRAME_PUBLIC_TOKEN "
            "(or public_token=); each family accepts only its own token",
        ),
        (
            ("swapped", "swapped"),
            lambda c: c.private.deals(limit=5),
            "the service refused the Family B key; check DEALFRAME_PRIVATE_KEY",
        ),
    ],
    ids=["private", "public", "swapped"],
)
def test_a_refused_token_names_the_token_to_fix(sandbox_url, tokens, call, hint) -> None:
    sb = sandbox_url
    public, private = tokens
    if tokens == ("swapped", "swapped"):
        public, private = sb.private_key, sb.public_token
    public = sb.public_token if public == "good" else public
    private = sb.private_key if private == "good" else private
    with dealframe.Client(sb.url, public, private, cache_enabled=False) as client:
        with pytest.raises(AuthenticationError) as caught:
            call(client)
    text = str(caught.value)
    assert text.startswith("401 INVALID_TOKEN: Invalid or expired token (")
    assert f"): {hint}" in text
    assert public not in text and private not in text


def test_the_cli_names_the_private_key_when_it_is_refused(sandbox_url, tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    env.update(
        DEALFRAME_CACHE="off",
        DEALFRAME_BASE_URL=sandbox_url.url,
        DEALFRAME_PUBLIC_TOKEN=sandbox_url.public_token,
        DEALFRAME_PRIVATE_KEY="wrong-private-key",
    )
    done = subprocess.run(
        [sys.executable, "-m", "dealframe", "pull", "deals", "-o", str(tmp_path / "d.csv")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("dealframe pull: error: 401 INVALID_TOKEN: ")
    assert lines[0].endswith(
        # a command's user has no private_key= to pass: the variable alone
        "the service refused the Family B key; check DEALFRAME_PRIVATE_KEY; each family "
        "accepts only its own token"
    )


# D5 ----------------------------------------------------------------------------------------


def test_enum_value_error_is_importable_where_the_docs_say(sandbox_url) -> None:
    cls = dealframe.errors.EnumValueError
    assert dealframe.EnumValueError is cls
    assert dealframe.private.filters.EnumValueError is cls
    assert "EnumValueError" in dealframe.__all__ and "EnumValueError" in dealframe.errors.__all__
    with dealframe.Client.for_sandbox(sandbox_url, cache_enabled=False) as client:
        with pytest.raises(dealframe.EnumValueError) as caught:
            client.private.deals(deal_type=["Seed round"])
    assert caught.value.argument == "deal_type"
    assert isinstance(caught.value, dealframe.ValidationError)


# D6 ----------------------------------------------------------------------------------------


def test_a_closed_client_says_so_and_what_to_do(sandbox_url) -> None:
    with dealframe.Client.for_sandbox(sandbox_url, cache_enabled=False) as client:
        pass
    for call in (
        lambda: client.public.search(regions=["Western Europe"]),
        lambda: client.private.deals(limit=5),
    ):
        with pytest.raises(TransportError) as caught:
            call()
        assert caught.value.kind == "closed"
        assert str(caught.value) == CLOSED


# D11 ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def broken() -> Iterator[dealframe.Client]:
    with (
        dealframe.sandbox.run(scale=0.02, profile="broken") as sb,
        dealframe.Client.for_sandbox(sb, retries=0, cache_enabled=False) as client,
    ):
        yield client


def test_an_unreadable_item_names_its_endpoint_once(broken) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ServiceContractError) as caught:
            broken.private.deals(limit=5)
    # the page and the item are named (page 1: nothing arrived before it, no partial)
    assert re.fullmatch(
        r"200 SERVICE_CONTRACT: page 1, item 1 of 5 \(id [0-9a-f-]+\): an item does not have "
        r"the documented shape: created_at: expected ISO 8601 timestamps \(strings\), got "
        r"1782777599 \(POST /api/private/v1/transactions\)",
        str(caught.value),
    ), str(caught.value)


def test_an_unreadable_item_quotes_the_services_json(broken) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ServiceContractError) as caught:
            broken.public.group_current(regions=["Western Europe"])
    text = str(caught.value)
    assert text.count("POST /api/v2/groups/current") == 1, text
    assert re.search(r', got \["marketCap", [\d.]+, null\] \(POST /api/v2/groups/current\)$', text)
    assert "None" not in text and "'" not in text.split("got ", 1)[1]
