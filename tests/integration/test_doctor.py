"""``dealframe doctor`` against the sandbox: everything holds under the default decisions, the
run is read-only and bounded, and no token is printed (issue 14)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import dealframe
from dealframe.cli import main
from dealframe.doctor import BREAKS, HOLDS, MAX_REQUESTS, diagnose


@pytest.fixture(scope="module")
def diagnosis(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        before = client.stats.snapshot()["network"]
        found = dealframe.doctor(client)
        sent = client.stats.snapshot()["network"] - before
    return found, sent


def test_everything_holds_under_the_default_decisions(diagnosis):
    found, _ = diagnosis
    not_holding = [(c.name, c.observed) for c in found.checks if c.verdict != HOLDS]
    assert not not_holding
    assert found.ok and "0 adapted, 0 break" in found.verdict()
    names = {c.name for c in found.checks}
    for expected in (
        "A.auth",
        "B.auth",
        "A.groups.current",
        "B.paging.limit",
        "B.paging.page",
        "B.errors",
        "B.resolve.batch",
        "B.aggregate.labels.quarter",
        "B.aggregate.labels.month",
        "B.aggregate.methodology",
        "B.timestamps",
        "B.vocabulary.region",
        "B.sub_resources",
    ):
        assert expected in names


def test_the_run_is_bounded_and_counts_its_requests(diagnosis):
    found, sent = diagnosis
    assert 0 < found.requests == sent <= MAX_REQUESTS


def test_a_smaller_budget_stops_and_says_so(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        found = dealframe.doctor(client, max_requests=5)
    assert found.requests == 5 and found.budget_reached
    assert found.ok  # the service broke nothing: running out is not its fault
    assert "the checks after request 5 (the budget ran out)" in found.verdict()
    assert all(c.verdict != BREAKS for c in found.checks)


def _env(sandbox, env_tokens: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    if env_tokens:
        env.update(
            DEALFRAME_BASE_URL=sandbox.url,
            DEALFRAME_PUBLIC_TOKEN=sandbox.public_token,
            DEALFRAME_PRIVATE_KEY=sandbox.private_key,
        )
    return env


def _shell(sandbox, *args: str, env_tokens: bool = True) -> subprocess.CompletedProcess[str]:
    """``python -m dealframe doctor ...`` in a child process (the exit status a shell sees)."""
    return subprocess.run(
        [sys.executable, "-m", "dealframe", "doctor", *args],
        env=_env(sandbox, env_tokens),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def cli(sandbox, monkeypatch, capsys):
    """``dealframe doctor ...`` through :func:`dealframe.cli.main` in this process, with the
    environment a shell would give it: returns (exit status, stdout, stderr)."""

    def run(*args: str, env_tokens: bool = True) -> tuple[int, str, str]:
        for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
            monkeypatch.delenv(key)
        for key, value in _env(sandbox, env_tokens).items():
            if key.startswith("DEALFRAME_"):
                monkeypatch.setenv(key, value)
        capsys.readouterr()
        code = main(["doctor", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_the_command_prints_a_table_and_a_verdict_and_exits_0(sandbox):
    done = _shell(sandbox)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[1].split()[:4] == ["check", "assumption", "observed", "verdict"]
    assert lines[-1].startswith("dealframe doctor:") and "0 break" in lines[-1]
    for secret in (sandbox.public_token, sandbox.private_key):
        assert secret not in done.stdout + done.stderr


def test_json_output_and_tokens_from_flags(sandbox, cli):
    code, out, err = cli(
        "--json",
        "--base-url",
        sandbox.url,
        "--public-token",
        sandbox.public_token,
        "--private-key",
        sandbox.private_key,
        env_tokens=False,
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["ok"] is True and report["requests"] <= 60
    assert {c["verdict"] for c in report["checks"]} == {"holds"}
    for secret in (sandbox.public_token, sandbox.private_key):
        assert secret not in out + err


def test_a_wrong_key_is_said_rejected_and_exits_2(sandbox, cli):
    env_args = (
        "--base-url",
        sandbox.url,
        "--public-token",
        sandbox.public_token,
        "--private-key",
        "not-the-key",
    )
    code, out, err = cli(*env_args, env_tokens=False)
    assert code == 2, err
    verdict = out.strip().splitlines()[-1]
    assert "Family B: the private key was rejected (401 INVALID_TOKEN)" in verdict
    assert "the checks could not run" in verdict and "0 break" in verdict
    assert "not-the-key" not in out + err
    rows = [line.split()[0] for line in out.splitlines()[2:-1]]
    assert "A.search" in rows and "B.auth" in rows  # Family A ran; B's own probe of auth too
    assert not [r for r in rows if r.startswith("B.") and r != "B.auth"]  # nothing else of B


def test_rotated_tokens_are_said_rejected_not_blamed_on_the_service(sandbox, cli):
    code, out, err = cli(
        "--json",
        "--base-url",
        sandbox.url,
        "--public-token",
        "rotated-token",
        "--private-key",
        "rotated-key",
        env_tokens=False,
    )
    assert code == 2, err
    report = json.loads(out)
    assert report["ok"] is False
    assert report["rejected"] == [
        "Family A: the public token was rejected (401 INVALID_TOKEN)",
        "Family B: the private key was rejected (401 INVALID_TOKEN)",
    ]
    assert {c["name"] for c in report["checks"]} == {"A.auth", "B.auth"}
    assert {c["verdict"] for c in report["checks"]} == {"holds"}
    assert "could not run" in report["verdict"]
    assert "rotated-token" not in out + err and "rotated-key" not in out + err


def test_no_service_is_exit_2_on_one_line(cli):
    code, out, err = cli(
        "--base-url", "http://127.0.0.1:9", "--public-token", "x", env_tokens=False
    )
    assert code == 2
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "cannot run" in err and "connection" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--public-token", "x"), "base_url is not set"),
        (("--base-url", "http://127.0.0.1:9"), "no token"),
    ],
)
def test_a_missing_base_url_or_token_is_exit_2_on_one_line(cli, args, said):
    code, out, err = cli(*args, env_tokens=False)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and said in err


def test_a_family_without_its_token_is_said_not_checked(sandbox, monkeypatch):
    monkeypatch.delenv("DEALFRAME_PRIVATE_KEY", raising=False)
    with dealframe.Client(
        sandbox.url, public_token=sandbox.public_token, cache_enabled=False, progress=False
    ) as client:
        found = dealframe.doctor(client)
    assert found.ok and not any(c.name.startswith("B.") for c in found.checks)
    assert found.skipped == ["Family B (no private key)"]
    assert found.verdict().endswith("not checked: Family B (no private key)")
    assert found.to_dict()["skipped"] == found.skipped


def test_json_output_into_a_closed_pipe_is_no_traceback(sandbox):
    done = subprocess.run(
        f"{sys.executable} -m dealframe doctor --json | true",  # the reader has gone
        shell=True,
        env=_env(sandbox, env_tokens=True),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_a_family_without_its_token_is_exit_2_naming_it(sandbox, cli):
    """No public token: Family A's checks did not run, so the run is not all it should be:
    exit 2, as when --max-requests runs out (it was exit 0, "works with this service")."""
    code, out, err = cli(
        "--base-url", sandbox.url, "--private-key", sandbox.private_key, env_tokens=False
    )
    assert code == 2, err
    verdict = out.strip().splitlines()[-1]
    assert "0 break" in verdict and verdict.endswith("not checked: Family A (no public token)")
    assert len(err.strip().splitlines()) == 1 and "--family B" in err


def test_family_checks_one_family_alone_and_exits_0(sandbox, cli):
    code, out, err = cli(
        "--family",
        "b",
        "--base-url",
        sandbox.url,
        "--private-key",
        sandbox.private_key,
        env_tokens=False,
    )
    assert code == 0, err
    rows = [line.split()[0] for line in out.splitlines()[3:-1]]
    assert rows and all(r.startswith("B.") for r in rows)
    assert "not checked" not in out and err == ""


def test_family_asked_for_without_its_token_is_exit_2_before_any_request(sandbox, cli):
    code, out, err = cli(
        "--family",
        "A",
        "--base-url",
        sandbox.url,
        "--private-key",
        sandbox.private_key,
        env_tokens=False,
    )
    assert code == 2 and out == ""
    assert "Family A asked for, but the public token is not set" in err


def test_an_unknown_family_is_a_usage_error_with_did_you_mean(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["doctor", "--family", "AA"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--family" in err and "'AA' is not one of A, B (did you mean 'A'?)" in err


def test_family_is_checked_by_the_python_call(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        with pytest.raises(dealframe.errors.ValidationError, match="invalid family"):
            dealframe.doctor(client, family="C")
        found = dealframe.doctor(client, family="a")
    assert found.ok and found.skipped == []
    assert found.checks and all(c.name.startswith("A.") for c in found.checks)


def test_a_misspelt_keyword_names_the_function_the_user_called(sandbox):
    with dealframe.Client.for_sandbox(sandbox) as client:
        before = client.stats.snapshot()["calls"]
        for function in (dealframe.doctor, diagnose):
            with pytest.raises(dealframe.errors.UnknownArgumentError) as refused:
                function(client, max_request=5)
            assert "a keyword of doctor (did you mean 'max_requests'?)" in str(refused.value)
        assert client.stats.snapshot()["calls"] == before  # refused before any request
