"""Small things of issue 15: options checked before anything starts (with did-you-mean),
``--version``, the sandbox's export lines, whole-token redaction, DNS failures fail fast."""

from __future__ import annotations

import os

import pytest

import dealframe
import dealframe.sandbox
from dealframe.cli import main
from dealframe.errors import RequestInfo, TransportError, _scrub, error_from_response
from dealframe.transport import retry


def _usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str], sandbox_starts: list[str]
) -> str:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert sandbox_starts == [] and "starting the embedded sandbox" not in err  # none started
    return err.strip().splitlines()[-1]


def test_version(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"dealframe {dealframe.__version__}"


@pytest.mark.parametrize(
    "argv, says",
    [
        (["mirror", "sync", "m", "--sandbox", "--entities", "deal"], "did you mean 'deals'?"),
        (
            ["mirror", "sync", "m", "--sandbox", "--lock-timout", "3"],
            "did you mean '--lock-timeout'?",
        ),
        (
            ["mirror", "sync", "m", "--sandbox", "--overlap", "-1"],
            "'-1' is not a number of 0 or more",
        ),
        (["mirror", "sync", "m", "--sandbox", "--scale", "0"], "'0' is not a number above 0"),
        (
            ["mirror", "snapshot-public", "m", "--sandbox", "--region", "westen europe"],
            "did you mean 'Western Europe'?",
        ),
        (
            ["mirror", "snapshot-public", "m", "--sandbox", "--country", "US"],
            "invalid --country: expected an upper-case ISO 3166 alpha-3 code such as 'USA' "
            "(did you mean 'USA', United States? 'US' is its ISO 3166 alpha-2 code), got 'US'",
        ),
        (
            ["mirror", "snapshot-public", "m", "--sandbox", "--country", "gbr"],
            "invalid --country: expected an upper-case ISO 3166 alpha-3 code such as 'USA' "
            "(did you mean 'GBR'?), got 'gbr'",
        ),
        (["mirror", "snapshot-public", "m", "--sandbox", "--sku", "acme usa"], "not a SKU"),
        (
            [
                "mirror",
                "snapshot-public",
                "m",
                "--sandbox",
                "--region",
                "Oceania",
                "--date",
                "2026-13-01",
            ],
            "not a date YYYY-MM-DD",
        ),
        (["mirror", "history", "m", "--entity", "dels"], "did you mean 'deals'?"),
        (
            ["mirror", "compact", "m", "--entities", "public/curent"],
            "did you mean 'public/current'?",
        ),
        (["mirror", "compact", "m", "--keep-versions", "0"], "not a whole number of 1 or more"),
        (["mirorr", "sync", "m"], "did you mean 'mirror'?"),
    ],
)
def test_mirror_options_are_checked_before_anything_starts(
    argv, says, capsys, tmp_path, monkeypatch, sandbox_starts
):
    monkeypatch.chdir(tmp_path)
    assert says in _usage_error(argv, capsys, sandbox_starts)
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "--sandbox", "--out", "r"],
        ["pull", "deals", "--sandbox"],
        ["mirror", "sync", "m", "--sandbox"],
        ["mirror", "snapshot-public", "m", "--sandbox", "--region", "Oceania"],
    ],
)
@pytest.mark.parametrize(
    "option, value, says",
    [
        *[("--scale", v, "is not a number above 0") for v in ("-1", "0", "nan", "big")],
        *[("--seed", v, "is not a whole number of 0 or more") for v in ("-1", "1.5")],
    ],
)
def test_every_command_checks_its_sandbox_options_alike(
    argv, option, value, says, capsys, tmp_path, monkeypatch, sandbox_starts
):
    # one --sandbox/--scale/--seed for every command (dealframe.clitools.add_sandbox_options)
    monkeypatch.chdir(tmp_path)
    assert f"{value!r} {says}" in _usage_error([*argv, option, value], capsys, sandbox_starts)
    assert not list(tmp_path.iterdir())


def test_mirror_checks_path_and_universe_before_the_sandbox(tmp_path, capsys, sandbox_starts):
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["mirror", "sync", str(afile), "--sandbox"]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["mirror", "sync", str(afile / "sub"), "--sandbox"]) == 2  # under a file
    assert "is a file" in capsys.readouterr().err
    assert main(["mirror", "snapshot-public", str(tmp_path / "m"), "--sandbox"]) == 2
    assert "not neither" in capsys.readouterr().err
    assert (
        main(
            [
                "mirror",
                "snapshot-public",
                str(tmp_path / "m"),
                "--sandbox",
                "--sku",
                "ACME-USA",
                "--region",
                "Oceania",
            ]
        )
        == 2
    )
    assert "not both" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing made
    assert sandbox_starts == []  # no sandbox was started for any of them


def test_sandbox_serve_prints_export_lines(monkeypatch, capsys):
    def serve(*args, ready, port, **kwargs):  # stands for the server: prints, does not serve
        ready(None, f"http://127.0.0.1:{port}")

    monkeypatch.setattr(dealframe.sandbox, "serve", serve, raising=False)
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    assert main(["sandbox", "serve", "--port", "8123"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "export DEALFRAME_BASE_URL=http://127.0.0.1:8123" in lines
    assert any(line.startswith("export DEALFRAME_PUBLIC_TOKEN=") for line in lines)
    assert any(line.startswith("export DEALFRAME_PRIVATE_KEY=") for line in lines)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", "my-own-secret-key")
    assert main(["sandbox", "serve", "--port", "8123"]) == 0
    mine = capsys.readouterr().out
    assert "my-own-secret-key" not in mine  # a user's own key is never echoed
    assert "# DEALFRAME_PRIVATE_KEY: as set in this environment" in mine


@pytest.mark.parametrize(
    ("host", "bound", "client"),
    [
        ("0.0.0.0", "http://0.0.0.0:8123", "http://127.0.0.1:8123"),
        ("::", "http://[::]:8123", "http://[::1]:8123"),
    ],
)
def test_sandbox_serve_on_every_interface_exports_a_loopback_url(
    monkeypatch, capsys, host, bound, client
):
    def serve(*args, ready, **kwargs):  # stands for the server bound on every interface
        ready(None, bound)

    monkeypatch.setattr(dealframe.sandbox, "serve", serve, raising=False)
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    assert main(["sandbox", "serve", "--host", host, "--port", "8123"]) == 0
    out = capsys.readouterr().out
    assert f"serving on {bound} " in out  # where it listens, as bound
    assert f"export DEALFRAME_BASE_URL={client}\n" in out  # what a client here can use
    monkeypatch.setenv("DEALFRAME_BASE_URL", client)
    with dealframe.Client(public_token="t", private_key="k") as pasted:  # not refused
        assert pasted.settings.base_url == client


def test_sandbox_serve_announces_the_port_it_listens_on(tmp_path):
    import subprocess
    import sys

    import requests

    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    cmd = [sys.executable, "-m", "dealframe", "sandbox", "serve", "--port", "0", "--scale", "0.02"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path) as proc:
        try:
            exports = {}
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith("export "):
                    name, _, value = line[len("export ") :].strip().partition("=")
                    exports[name] = value
                if len(exports) == 3:
                    break
            url = exports["DEALFRAME_BASE_URL"]
            assert not url.endswith(":0"), url  # the real port, not the one asked for
            answer = requests.get(
                f"{url}/api/private/v1/lookup/transactions",
                headers={"Authorization": f"Bearer {exports['DEALFRAME_PRIVATE_KEY']}"},
                timeout=10,
            )
            assert answer.status_code == 200  # it listens as soon as it says so
        finally:
            proc.terminate()


def test_sandbox_serve_on_a_port_in_use_fails_at_once(capsys, monkeypatch):
    import socket

    from dealframe.sandbox import server

    def no_data(*args, **kwargs):
        raise AssertionError("data was built before the address was taken")

    monkeypatch.setattr(server.SandboxState, "build", no_data)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        assert main(["sandbox", "serve", "--port", port, "--scale", "1.0"]) == 1
    err = capsys.readouterr()
    assert f"cannot listen on 127.0.0.1:{port}" in err.err and "export" not in err.out


@pytest.mark.parametrize(
    "option, value, says",
    [
        ("--scale", "-1", "not a number above 0"),
        ("--fault-rate", "2", "not a number from 0 to 1"),
        ("--port", "70000", "not a port from 0 to 65535"),
        ("--latency-ms", "-5", "not a number of 0 or more"),
        ("--rate-limit", "0", "not a number above 0"),
        ("--seed", "-3", "not a whole number of 0 or more"),
    ],
)
def test_sandbox_serve_options_are_checked_before_it_starts(
    option, value, says, capsys, sandbox_starts
):
    assert says in _usage_error(["sandbox", "serve", option, value], capsys, sandbox_starts)


def test_a_short_token_is_redacted_as_a_whole_token_only():
    assert _scrub("Invalid or expired token", ["e"]) == "Invalid or expired token"
    assert _scrub("token e was refused; e", ["e"]) == "token *** was refused; ***"
    assert _scrub('{"token": "e"}', ["e"]) == '{"token": "***"}'
    long = "sk-0123456789abcdef"
    assert _scrub(f"bearer{long}x", [long]) == "bearer***x"  # long secrets: anywhere
    body = b'{"error": {"code": "UNAUTHORIZED", "message": "Invalid or expired token e"}}'
    error = error_from_response(401, body, RequestInfo("GET", "/api/v2/x", "public"), secrets=["e"])
    assert "Invalid or expired token ***" in str(error)


def test_a_host_that_does_not_resolve_fails_at_once(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(retry, "sleep", slept.append)  # every backoff between attempts
    with dealframe.Client(
        "https://no-such-host.invalid", "a", "b", cache_enabled=False, retries=5
    ) as client:
        with pytest.raises(TransportError) as caught:
            client.public.search()
        stats = client.stats.snapshot()
    assert caught.value.kind == "dns"
    assert "check DEALFRAME_BASE_URL" in str(caught.value)
    # at once: one attempt, no retry and no wait before one (not 5 retries with backoff)
    assert caught.value.attempts == 1
    assert stats["retries"] == 0 and slept == [] and client._transport.gate.closures == 0


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["mirror", "sink"], "did you mean 'sync'?"),  # half alike: below did_you_mean's bar
        (["reprot"], "did you mean 'report'?"),
    ],
)
def test_a_misspelt_sub_command_gets_a_did_you_mean(argv, said, capsys):
    from dealframe.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and said in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["current", "--sku", "celz-gbr"], "(did you mean 'CELZ-GBR'?), got 'celz-gbr'"),
        (["deals", "--deal-type", ""], "invalid --deal-type: expected at least one value"),
    ],
)
def test_pull_flags_are_checked_before_the_sandbox_starts(
    argv, said, capsys, tmp_path, sandbox_starts
):
    status = main(["pull", *argv, "--sandbox", "-o", str(tmp_path / "x.parquet")])
    err = capsys.readouterr().err
    assert status == 2 and said in err, err
    assert "starting the embedded sandbox" not in err and "sandbox ready" not in err
    assert sandbox_starts == []
