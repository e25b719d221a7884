"""One exit-status rule for every ``dealframe`` sub-command (docs/errors.md, "In the command
line"): 0 done, 1 the run failed (the service, the network, the data), 2 the command cannot
work as given (bad usage or configuration), the doctor keeping its own meaning; every error
is one line ``dealframe COMMAND: error: ...`` on standard error."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import warnings
from collections.abc import Iterator

import pytest

from dealframe.cli import main

INSECURE = {
    "DEALFRAME_BASE_URL": "http://example.com",
    "DEALFRAME_PUBLIC_TOKEN": "some-public-token",
    "DEALFRAME_PRIVATE_KEY": "some-private-key",
}
NONE: dict[str, str] = {}
WRONG_KEY = "wrong-key-0123456789"

USAGE = [  # (argv, prefix): refused before anything starts
    (["sandbox", "serve", "--port", "x"], "dealframe sandbox serve"),
    (["sandbox", "serve", "--profile", "nope"], "dealframe sandbox serve"),
    (["doctor", "--max-requests", "x"], "dealframe doctor"),
    (["mirror", "sync", "m", "--entities", "x"], "dealframe mirror sync"),
    (["mirror", "status", "nowhere"], "dealframe mirror status"),
    (["mirror", "history", "nowhere"], "dealframe mirror history"),
    (["mirror", "compact", "nowhere"], "dealframe mirror compact"),
    (["mirror", "snapshot-public", "m", "--sandbox"], "dealframe mirror snapshot-public"),
    (["mirror", "sync", "afile/m", "--sandbox"], "dealframe mirror sync"),
    (["report", "--top", "x"], "dealframe report"),
    (["report", "--sandbox"], "dealframe report"),
    (["pull", "deals", "-o", "x.cvs"], "dealframe pull"),
    (["pull", "deals", "-o", "afile/x.csv", "--sandbox"], "dealframe pull"),
    (["nonsense"], "dealframe"),
]
if os.path.isdir("/proc/self"):  # a folder the system refuses to create in, whatever the rights
    USAGE.append(
        (["mirror", "sync", "/proc/dealframe-mirror", "--sandbox"], "dealframe mirror sync")
    )
NEEDS_A_SERVICE = [  # (argv, prefix): run against the service of the environment
    (["pull", "deals", "-o", "x.csv", "--quiet"], "dealframe pull"),
    (["report", "--out", "r", "--quiet"], "dealframe report"),
    (["mirror", "sync", "m", "--no-progress"], "dealframe mirror sync"),
    (["mirror", "snapshot-public", "m", "--region", "Oceania"], "dealframe mirror snapshot-public"),
]


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    """``dealframe ARGV`` in this process, in an empty folder holding one file ``afile``,
    with only the given DEALFRAME_* variables: (status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder")

    def go(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
        for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
            if key != "DEALFRAME_SANDBOX_CACHE":
                monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("DEALFRAME_CACHE", "off")
        capsys.readouterr()
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse
            status = int(exc.code or 0)
        out, err = capsys.readouterr()
        return status, out, err

    return go


def _one_error_line(err: str, prefix: str) -> str:
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prefix}: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(("argv", "prefix"), USAGE)
def test_bad_usage_is_status_2_in_one_line(run, tmp_path, argv, prefix):
    status, out, err = run(argv, NONE)
    assert status == 2
    _one_error_line(err, prefix)
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing made


@pytest.mark.parametrize(("argv", "prefix"), NEEDS_A_SERVICE)
@pytest.mark.parametrize("env", [INSECURE, NONE], ids=["insecure-url", "no-service"])
def test_bad_configuration_is_status_2_in_one_line(run, tmp_path, argv, prefix, env):
    status, out, err = run(argv, env)
    assert status == 2
    line = _one_error_line(err, prefix)
    assert ("plain http://" in line) if env else ("no service configured" in line)
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize(("argv", "prefix"), NEEDS_A_SERVICE)
def test_a_failed_run_is_status_1_in_one_line(run, sandbox, argv, prefix):
    env = {
        "DEALFRAME_BASE_URL": sandbox.url,
        "DEALFRAME_PUBLIC_TOKEN": WRONG_KEY,
        "DEALFRAME_PRIVATE_KEY": WRONG_KEY,
    }
    status, _, err = run(argv, env)
    assert status == 1
    assert "401" in _one_error_line(err, prefix)
    assert WRONG_KEY not in err


def test_the_doctor_keeps_its_own_meaning(run, sandbox):
    env = {"DEALFRAME_BASE_URL": sandbox.url, "DEALFRAME_PUBLIC_TOKEN": sandbox.public_token}
    status, out, _ = run(["doctor"], {**env, "DEALFRAME_PRIVATE_KEY": WRONG_KEY})
    assert status == 2 and "private key was rejected" in out  # its checks cannot run
    status, out, err = run(["doctor"], INSECURE)  # the checks cannot run
    assert status == 2 and out == ""
    assert "cannot run" in _one_error_line(err, "dealframe doctor")


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        yield taken.getsockname()[1]


def test_a_sandbox_that_cannot_listen_is_status_1(run, busy_port):
    status, out, err = run(["sandbox", "serve", "--port", str(busy_port), "--scale", "0.02"], NONE)
    assert status == 1 and "export" not in out
    assert f"cannot listen on 127.0.0.1:{busy_port}" in _one_error_line(
        err, "dealframe sandbox serve"
    )


def test_warnings_are_one_line_and_the_settings_are_restored(run, sandbox):
    env = {
        "DEALFRAME_BASE_URL": sandbox.url,
        "DEALFRAME_PUBLIC_TOKEN": sandbox.public_token,
        "DEALFRAME_PRIVATE_KEY": sandbox.private_key,
    }
    shown, filters = warnings.showwarning, list(warnings.filters)
    status, out, err = run(["pull", "current", "--sku", "NOPE-USA", "-o", "c.csv"], env)
    assert status == 0 and out.strip() == "c.csv"
    said = [line for line in err.splitlines() if "NOPE-USA" in line]
    assert said == [
        "dealframe pull: warning: 1 of 1 SKUs were not returned by the service: NOPE-USA "
        "(see df.attrs['missing_skus'])"
    ]
    assert "Warning:" not in err and ".py:" not in err
    assert warnings.showwarning is shown and warnings.filters == filters


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["mirror", "sync", "m", "--no-progress"], "dealframe mirror sync: interrupted (each"),
        (["report", "--out", "r", "--quiet"], "dealframe report: interrupted"),
    ],
)
def test_ctrl_c_is_status_130_in_one_line(tmp_path, argv, line):
    """SIGINT while the command waits for the service: one line, exit status 130."""
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
        env |= {
            "DEALFRAME_BASE_URL": f"http://127.0.0.1:{silent.getsockname()[1]}",
            "DEALFRAME_PUBLIC_TOKEN": "some-public-token",
            "DEALFRAME_PRIVATE_KEY": "some-private-key",
            "DEALFRAME_CACHE": "0",
            "PYTHONPATH": os.pathsep.join(sys.path),
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "dealframe", *argv],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            silent.settimeout(120)
            conn, _ = silent.accept()  # the command is running: its first request is waiting
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
            conn.close()
        finally:
            proc.kill()
    assert proc.returncode == 130
    assert err.startswith(line) and len(err.splitlines()) == 1, err
    assert "Traceback" not in err and out == ""
