"""The ``mirror`` commands' early exits: a PATH refused before a sandbox starts, and a reader of
standard output that leaves early (``| head -1``)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.cli import main
from dealframe.client import Client
from dealframe.clitools import EXIT_USAGE


@pytest.fixture(scope="module")
def path(tmp_path_factory: Any) -> Any:
    folder = tmp_path_factory.mktemp("early") / "m"
    with (
        dealframe.sandbox.run(scale=0.02, seed=5) as sb,
        Client.for_sandbox(sb, progress=False, cache_enabled=False) as c,
    ):
        mirror.sync(c, folder, progress=False)
    return folder


def test_a_new_path_with_a_percent_escape_is_refused_before_a_sandbox_starts(
    tmp_path, capsys, monkeypatch
):
    """``mirror sync 'q3%20deals' --sandbox``: a PATH that did not exist yet was checked only
    for its folders, and the sandbox started before the sync refused the ``%20``. Now it is
    refused first, exit status 2, naming the path, no sandbox started and no folder left."""

    def no_sandbox(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a sandbox was started")

    monkeypatch.setattr(dealframe.sandbox, "embedded", no_sandbox)
    target = tmp_path / "q3%20deals"
    assert main(["mirror", "sync", str(target), "--sandbox"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dealframe mirror sync: error:")
    assert "q3%20deals" in err[0] and "%20" in err[0]
    assert not target.exists()


@pytest.mark.parametrize("action", ["history", "status"])
def test_a_reader_leaving_early_ends_the_command_quietly(path, action):
    """``dealframe mirror history PATH | head -1``: the print after the reader had left raised
    ``BrokenPipeError``, a traceback on standard error and exit status 1. Now every command
    ends quietly (as ``doctor`` did), exit status 0."""
    run = subprocess.Popen(
        [sys.executable, "-m", "dealframe.cli", "mirror", action, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert run.stdout is not None and run.stderr is not None
    run.stdout.close()  # the reader leaves before the first line
    err = run.stderr.read().decode()
    assert run.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert err == ""


@pytest.mark.parametrize("flag", ["+a", "+i"])
def test_an_existing_path_made_append_only_or_immutable_is_refused_first(
    tmp_path, capsys, monkeypatch, flag
):
    """``mirror sync PATH`` into an existing folder made append-only (or immutable): only a
    PATH that did not exist was checked, so the sync pulled, then failed replacing its state
    file with a raw ``PermissionError`` traceback (exit 1), leaving its temporary files. Now
    it is refused first from the folder's flags, exit status 2, naming the flag, no sandbox
    started."""
    import os
    import shutil

    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("needs root and chattr")

    def no_sandbox(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a sandbox was started")

    monkeypatch.setattr(dealframe.sandbox, "embedded", no_sandbox)
    target = tmp_path / "locked"
    target.mkdir()
    if subprocess.run(["chattr", flag, str(target)], capture_output=True).returncode:
        pytest.skip("a file system without chattr flags")
    try:
        code = main(["mirror", "sync", str(target), "--sandbox"])
        left = list(target.iterdir())
    finally:
        subprocess.run(["chattr", flag.replace("+", "-"), str(target)], check=True)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_USAGE, err
    assert len(err) == 1 and err[0].startswith("dealframe mirror sync: error:"), err
    word = "append-only (chattr +a)" if flag == "+a" else "immutable (chattr +i)"
    assert f"{target} is {word}" in err[0], err
    assert left == []  # no probe, no lock, no state file
