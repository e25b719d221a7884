"""A command's errors name where its user set the base URL and tokens: a refused key says
to check ``DEALFRAME_PRIVATE_KEY`` (and the command's option for it, if it has one), never
the Python argument ``private_key=`` that a command's user has no way to pass; an unreachable
service says to check ``--base-url`` when the URL came from that option, the variable when
it came from there. The Python API's messages keep naming the ``Client`` argument."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
from _cli import pull, run

import dealframe
from dealframe.cli import main
from dealframe.errors import AuthenticationError


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_pull_names_the_variable_of_a_refused_key(sandbox, capsys, monkeypatch, tmp_path):
    out = str(tmp_path / "deals.parquet")
    code, err = pull(["deals", "-o", out], sandbox.url, "not-the-key", capsys, monkeypatch)
    assert code == 1
    assert "401" in err and "refused the Family B key; check DEALFRAME_PRIVATE_KEY;" in err, err
    assert "private_key=" not in err


def test_mirror_names_the_variable_of_a_refused_token(sandbox, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", "not-the-token")
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    code, err = run(
        ["mirror", "snapshot-public", str(tmp_path / "m"), "--region", "Oceania"], capsys
    )
    assert code == 1
    assert "refused the Family A token; check DEALFRAME_PUBLIC_TOKEN;" in err, err
    assert "public_token=" not in err


def test_the_python_api_still_names_the_argument(sandbox):
    with dealframe.Client(sandbox.url, "p", "not-the-key", cache_enabled=False) as client:
        with pytest.raises(AuthenticationError) as caught:
            client.private.deals(limit=1)
    assert "check DEALFRAME_PRIVATE_KEY (or private_key=);" in str(caught.value)


@pytest.fixture
def tokens(monkeypatch):
    monkeypatch.delenv("DEALFRAME_BASE_URL", raising=False)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", "p")
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", "k")


def test_doctor_names_the_base_url_option_it_was_given(tokens, capsys):
    url = _closed_port_url()
    code, err = run(["doctor", "--base-url", url], capsys)
    assert code == 2
    assert f"cannot connect to {url} (connection refused): check --base-url and" in err, err
    assert "DEALFRAME_BASE_URL" not in err


def test_doctor_names_the_variable_when_the_url_came_from_it(tokens, capsys, monkeypatch):
    url = _closed_port_url()
    monkeypatch.setenv("DEALFRAME_BASE_URL", url)
    code, err = run(["doctor"], capsys)
    assert code == 2
    assert "(connection refused): check DEALFRAME_BASE_URL and" in err, err


@pytest.mark.parametrize(
    ("family", "option", "var"),
    [
        ("A", "--public-token", "DEALFRAME_PUBLIC_TOKEN"),
        ("B", "--private-key", "DEALFRAME_PRIVATE_KEY"),
    ],
)
def test_doctor_names_where_a_refused_token_is_set(
    family, option, var, sandbox, capsys, monkeypatch
):
    """The doctor's verdict on a refused token says to check it where its user set it
    (docs/errors.md, "In the command line"), in the text and in ``--json``: the option when
    given so, else the variable and the option."""
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    capsys.readouterr()
    assert main(["doctor", "--family", family, option, "not-the-token"]) == 2
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    assert f"was rejected (401 INVALID_TOKEN), check {option}:" in verdict, verdict
    assert var not in verdict and "not-the-token" not in verdict
    monkeypatch.setenv(var, "not-the-token")
    assert main(["doctor", "--family", family, "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert f"check {var} (or {option}):" in report["verdict"], report["verdict"]
    assert report["rejected_from"] == [f"{var} (or {option})"]


@pytest.fixture
def invalid_names(monkeypatch) -> list[str]:
    """The system resolver as RFC 6761 (section 6.4) asks of it: a name under ``.invalid``
    gets an immediate negative answer (``EAI_NONAME``), with no query that a machine without
    DNS access would wait on until its resolver times out; any other name is looked up as
    usual. Our transport is left as it is (urllib3 calls ``socket.getaddrinfo``). Returns the
    ``.invalid`` names looked up, in order."""
    looked_up: list[str] = []
    lookup = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name.rstrip(".").lower().endswith(".invalid"):
            looked_up.append(name)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


@pytest.mark.parametrize("given", [True, False], ids=["option", "variable"])
def test_doctor_cannot_run_where_the_host_name_does_not_resolve(
    given, tokens, invalid_names, capsys, monkeypatch
):
    """A host name that does not resolve is a service the doctor cannot reach, as a refused
    connection is: one line ``cannot run: ...`` naming the base URL and where it was set,
    exit 2, after one lookup; not every check a break (exit 1) blaming the service."""
    url = "https://nonexistent.invalid"
    if given:
        argv, where = ["doctor", "--base-url", url], "--base-url"
    else:
        monkeypatch.setenv("DEALFRAME_BASE_URL", url)
        argv, where = ["doctor"], "DEALFRAME_BASE_URL"
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), (code, out)
    assert err.count("\n") == 1, err
    assert err.startswith(
        f"dealframe doctor: error: cannot run: cannot connect to {url} (its host name "
        f"nonexistent.invalid does not resolve): check {where} and your network ("
    ), err
    assert invalid_names == ["nonexistent.invalid"]  # the run stopped at its first request
    refused = _closed_port_url()
    monkeypatch.setenv("DEALFRAME_BASE_URL", refused)
    code, err = run(["doctor"], capsys)
    assert code == 2 and err.startswith(
        f"dealframe doctor: error: cannot run: cannot connect to {refused} ("
    )


def test_a_temporary_resolver_failure_is_retried_not_taken_for_a_wrong_host(sandbox, monkeypatch):
    """``EAI_AGAIN`` ("Temporary failure in name resolution") says nothing of the name: the
    call is retried and answers, where a name that does not exist fails at once."""
    failures: list[str] = []
    lookup = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name == "localhost" and not failures:
            failures.append(name)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    url = sandbox.url.replace("127.0.0.1", "localhost")
    with dealframe.Client(url, sandbox.public_token, sandbox.private_key, cache_enabled=False) as c:
        found = c.public.search(regions=["Western Europe"])
    assert failures == ["localhost"] and len(found) > 0
    assert found.attrs["requests"] >= 1
