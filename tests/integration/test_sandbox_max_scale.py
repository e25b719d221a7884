"""The sandbox refuses a scale above its documented maximum (20: a million deals, the largest
the project uses) before it generates anything, instead of generating for hours: the Python
API with a ``SandboxArgumentError`` naming ``scale`` and the maximum, every ``--scale`` option
with a usage error (exit status 2) naming ``--scale``, the pytest plugin at start-up.

The Python API's refusal (``run``, ``start``, ``embedded``) runs in its own process with a
generous timeout, since before the maximum existed these calls started a generation with no end
in sight; a refused call returns at once. The commands and the pytest plugin are refused in this
process (``main(argv)``, a new pytest session) with a tripwire on the sandbox's data loading:
one that let the scale through fails there at once instead of generating."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dealframe.cli import main
from dealframe.sandbox import SandboxArgumentError, SandboxConfig
from dealframe.sandbox.arguments import MAX_SCALE
from dealframe.sandbox.models import state

EXPECTED = "a number above 0 and at most 20 (the sandbox's largest data: 1,000,000 deals"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    return {**env, "DEALFRAME_CACHE": "off", "DEALFRAME_SANDBOX_CACHE": "0"}


def _run(args: list[str], cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        cwd=cwd,
        check=False,
    )


def test_the_maximum_is_the_documented_one():
    assert MAX_SCALE == 20
    assert SandboxConfig(scale=20).scale == 20  # the largest scale the project uses is allowed
    with pytest.raises(SandboxArgumentError) as caught:
        SandboxConfig(scale=20.5)
    assert caught.value.argument == "scale"
    assert str(caught.value) == f"invalid scale: expected {caught.value.expected}, got 20.5"
    assert caught.value.expected.startswith(EXPECTED)


def test_run_start_and_embedded_refuse_before_generating():
    script = (
        "import dealframe.sandbox as s\n"
        "calls = {'run': lambda: s.run(scale=1000).__enter__(),\n"
        "         'start': lambda: s.start(scale=1000),\n"
        "         'embedded': lambda: s.embedded(1000).__enter__()}\n"
        "for name, call in calls.items():\n"
        "    try:\n"
        "        call()\n"
        "        print(name, 'served')\n"
        "    except s.SandboxArgumentError as exc:\n"
        "        print(name, exc.argument, '|', exc)\n"
    )
    done = _run(["-c", script])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["run", "start", "embedded"]
    for line in lines:
        assert f"scale | invalid scale: expected {EXPECTED}" in line, line
        assert line.endswith("got 1000")


def _as_a_shell_would(monkeypatch: pytest.MonkeyPatch, folder) -> None:
    """This process's environment and working folder as :func:`_run` gives a child process,
    and a tripwire where every sandbox (served, embedded, the plugin's) loads its data."""

    def tripwire(**config: object) -> None:
        raise AssertionError(f"a sandbox started loading or generating data: {config}")

    monkeypatch.setattr(state, "load_or_generate", tripwire)
    for name in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    monkeypatch.setenv("DEALFRAME_SANDBOX_CACHE", "0")
    monkeypatch.chdir(folder)


@pytest.mark.parametrize(
    "command",
    [
        ["sandbox", "serve", "--port", "0", "--scale", "1000"],
        ["report", "--sandbox", "--scale", "1000", "--out", "never"],
        ["pull", "deals", "-o", "never.csv", "--sandbox", "--scale", "21"],
    ],
)
def test_every_scale_option_is_refused_naming_it(command, tmp_path, monkeypatch, capsys):
    _as_a_shell_would(monkeypatch, tmp_path)
    try:
        status = main(command)
    except SystemExit as exc:  # argparse's usage error, as ``python -m dealframe`` exits
        status = exc.code
    out, err = capsys.readouterr()
    assert status == 2, out + err
    assert "argument --scale: " in err
    assert f"is not {EXPECTED}" in err
    assert "serving" not in out and "starting the embedded sandbox" not in err
    assert list(tmp_path.iterdir()) == []


def test_the_pytest_plugin_refuses_it_at_start_up(pytester, monkeypatch):
    """A new pytest session, its plugins loaded from their entry points as in a child process."""
    _as_a_shell_would(monkeypatch, pytester.path)
    (pytester.path / "test_mine.py").write_text("def test_x(dealframe_sandbox):\n    pass\n")
    done = pytester.runpytest_inprocess(
        "-q", "-p", "no:cacheprovider", "--dealframe-sandbox-scale", "1000"
    )
    report = done.stdout.str() + done.stderr.str()
    assert done.ret == 4, report  # a usage error: before any test
    assert f"dealframe sandbox scale: expected {EXPECTED}" in done.stderr.str()
    assert "passed" not in done.stdout.str()
