"""``dealframe sandbox serve`` injects the fault set of :class:`dealframe.sandbox.FaultPlan`
from its options (issue 3: "usable from dealframe sandbox serve"), over real HTTP; it offered
only ``--fault-rate``, over the default kinds and every path."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests

from dealframe.cli import main

B = "/api/private/v1"
KEY = {"Authorization": "Bearer sandbox-private-key"}


@contextmanager
def _serving(*options: str) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dealframe", "sandbox", "serve", "--scale", "0.02"]
        + ["--port", str(port), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env | {"DEALFRAME_SANDBOX_CACHE": "0"},
    )
    try:
        line = proc.stdout.readline()  # printed once the data is loaded
        assert "serving on" in line, line + proc.stderr.read()
        deadline = time.monotonic() + 30
        while True:  # the socket may open just after the line: connect until it does
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the sandbox never listened"
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


def test_a_fault_script_per_path_is_served_in_order() -> None:
    script = "/lookup/companies$=503,429,pass,504"
    with _serving("--fault-script", script, "--fault-retry-after", "7") as url:
        got = [
            requests.get(f"{url}{B}/lookup/companies", headers=KEY, timeout=10) for _ in range(5)
        ]
        other = requests.get(f"{url}{B}/lookup/investors", headers=KEY, timeout=10)
    assert [r.status_code for r in got] == [503, 429, 200, 504, 200]
    assert got[1].headers["Retry-After"] == "7"
    assert other.status_code == 200  # the pattern limits the script


def test_a_fault_rate_draws_the_kinds_given_on_the_paths_given() -> None:
    options = ("--fault-rate", "1", "--fault-kinds", "502", "--fault-paths", "lookup/investors$")
    with _serving(*options) as url:
        hit = requests.get(f"{url}{B}/lookup/investors", headers=KEY, timeout=10)
        spared = requests.get(f"{url}{B}/lookup/companies", headers=KEY, timeout=10)
    assert (hit.status_code, spared.status_code) == (502, 200)
    assert hit.json()["error"]["code"] == "BAD_GATEWAY"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--fault-kinds", "429,trunc"], "'trunc' is not a fault kind (did you mean 'truncate'?)"),
        (["--fault-script", "/x=slo"], "'slo' is not a fault kind (did you mean 'slow'?)"),
        (["--fault-script", "503"], "is not REGEX=KIND,..."),
        (["--fault-paths", "("], "'(' is not a regular expression"),
    ],
)
def test_bad_fault_options_are_usage_errors_before_anything_starts(args, said, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["sandbox", "serve", *args])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and said in err, err
    assert len(err.strip().splitlines()) == 1


def test_fault_kinds_or_paths_without_a_rate_are_a_usage_error(capsys) -> None:
    """They say what --fault-rate draws: alone they would do nothing, silently."""
    status = main(["sandbox", "serve", "--fault-kinds", "503", "--fault-paths", "x"])
    err = capsys.readouterr().err
    assert status == 2 and "--fault-kinds and --fault-paths say what --fault-rate draws" in err
