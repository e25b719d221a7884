"""The maintainer's checks run with the suite: ruff (lint and format) and mypy stay clean.

Both tools read their settings from pyproject.toml; a failure prints what they found.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    "command", [("ruff", "check", "."), ("ruff", "format", "--check", ".")], ids=["lint", "format"]
)
def test_ruff_is_clean(command):
    done = _run(*command)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean():
    done = _run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
