"""Choosing a sandbox profile: ``run(profile=...)``, ``dealframe sandbox serve --profile`` and
the pytest plugin's ``--dealframe-sandbox-profile``, over real HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest
import requests

from dealframe.cli import main
from dealframe.sandbox import UnknownProfileError, run
from dealframe.sandbox.models import state

B = "/api/private/v1"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")} | {
        "DEALFRAME_SANDBOX_CACHE": "0"
    }


def test_run_refuses_an_unknown_profile_before_starting(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []

    def tripwire(*args: object, **kwargs: object) -> None:  # where a sandbox loads its data
        built.append(args)
        raise AssertionError("the data was built before the profile was checked")

    monkeypatch.setattr(state.SandboxState, "build", tripwire)
    with pytest.raises(UnknownProfileError, match="did you mean 'errors-list'"):
        with run(scale=0.02, profile="errors-lst"):
            pass  # pragma: no cover
    assert built == []


def test_run_serves_combined_profiles() -> None:
    with run(scale=0.02, profile="limit-100,quarter-words") as sb:
        headers = {"Authorization": f"Bearer {sb.private_key}"}
        page = requests.post(
            f"{sb.url}{B}/transactions", json={"limit": 1000}, headers=headers, timeout=30
        ).json()
        buckets = requests.post(
            f"{sb.url}{B}/transactions/aggregate",
            headers=headers,
            json={"metric": "raised"},
            timeout=30,
        ).json()["data"]
    assert sb.profile == "limit-100,quarter-words"
    assert page["meta"]["limit"] == 100 and len(page["data"]) == 100
    assert buckets[0]["bucket"].startswith("Q") and " " in buckets[0]["bucket"]


def test_serve_refuses_an_unknown_profile(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In this process, with a tripwire where a sandbox loads its data: a command that served
    the default profile instead of refusing fails there at once instead of serving for ever."""

    def tripwire(**config: object) -> None:
        raise AssertionError(f"a sandbox started loading or generating data: {config}")

    monkeypatch.setattr(state, "load_or_generate", tripwire)
    for name in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DEALFRAME_SANDBOX_CACHE", "0")
    try:
        status = main(["sandbox", "serve", "--profile", "limit-100,quarter-word"])
    except SystemExit as exc:  # an argparse usage error, as ``python -m dealframe`` exits
        status = exc.code
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert "--profile" in err and "did you mean 'quarter-words'" in err


def test_serve_help_lists_the_profiles(capsys: pytest.CaptureFixture[str]) -> None:
    """In this process: ``--help`` prints and exits while parsing, before anything starts."""
    with pytest.raises(SystemExit) as exited:
        main(["sandbox", "serve", "--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--profile" in text and "legacy-subresources" in text and "broken" in text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_with_a_profile() -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dealframe",
            "sandbox",
            "serve",
            "--scale",
            "0.02",
            "--port",
            str(port),
            "--profile",
            "legacy-subresources",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        line = proc.stdout.readline()  # printed once the data is loaded
        assert "profile legacy-subresources" in line, line + proc.stderr.read()
        url = f"http://127.0.0.1:{port}"
        headers = {"Authorization": "Bearer sandbox-private-key"}
        for _ in range(200):
            try:
                doc = requests.get(f"{url}{B}/lookup/companies", headers=headers, timeout=5)
                break
            except requests.ConnectionError:
                time.sleep(0.05)
        assert "/companies/{id}/acquisitions" in doc.json()["data"]["sub_resources"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


def _inner_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment :func:`_env` gives a child process, for a pytest run in this one."""
    for name in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DEALFRAME_SANDBOX_CACHE", "0")


# The plugin's tests run pytest in this process (``runpytest_inprocess``): a new session loads
# the plugins from their entry points and configures them as a child process's would, without
# a new interpreter importing pytest's plugins and dealframe again (seconds per run).


def test_the_pytest_plugin_serves_the_profile_asked_for(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _inner_env(monkeypatch)
    pytester.makepyfile(
        test_mine="""
        import requests

        def test_limit(dealframe_sandbox):
            assert dealframe_sandbox.profile == "limit-100,errors-detail"
            headers = {"Authorization": f"Bearer {dealframe_sandbox.private_key}"}
            url = dealframe_sandbox.url + "/api/private/v1/companies"
            assert requests.post(url, json={"limit": 500}, headers=headers).json()["meta"][
                "limit"] == 100
            assert "detail" in requests.post(url, json={"limit": 0}, headers=headers).json()
    """
    )
    done = pytester.runpytest_inprocess(
        "-q",
        "-p",
        "no:cacheprovider",
        str(pytester.path / "test_mine.py"),
        "--dealframe-sandbox-scale",
        "0.02",
        "--dealframe-sandbox-profile",
        "limit-100,errors-detail",
    )
    assert done.ret == 0, done.stdout.str() + done.stderr.str()
    assert "1 passed" in done.stdout.str()


@pytest.mark.parametrize(
    ("ini", "args", "said"),
    [
        ("dealframe_sandbox_scale = abc", [], "dealframe_sandbox_scale (ini): expected float"),
        ("", ["--dealframe-sandbox-scale", "0"], "expected a number above 0"),
        ("", ["--dealframe-sandbox-profile", "limit-10"], "did you mean 'limit-100'"),
    ],
)
def test_the_plugin_refuses_bad_options_at_start_up(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ini, args, said
) -> None:
    _inner_env(monkeypatch)
    (pytester.path / "pytest.ini").write_text(f"[pytest]\n{ini}\n")
    (pytester.path / "test_mine.py").write_text("def test_x(dealframe_sandbox):\n    pass\n")
    done = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", *args)
    assert done.ret == 4  # pytest's usage error: before any test ran
    assert said in done.stderr.str() and "passed" not in done.stdout.str()
