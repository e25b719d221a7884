"""``dealframe report`` refuses an empty or blank ``--out`` or ``--config`` before anything
starts, over HTTP to a service and with ``--sandbox``.

``Path("")`` is the current folder: ``--out ""`` (a nightly job's unset ``$OUTDIR``) wrote the
whole report, 29 files, into the working directory with exit status 0, where ``dealframe pull
-o ""`` and a config file's ``out = ""`` are refused. The report's service is the drift proxy
in front of the session sandbox, so the test sees that not one request is sent.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _cli import run
from _drift_proxy import fresh_rules, proxy  # noqa: F401 - fixtures are used by name

from dealframe.report.cli import EXIT_USAGE

_BLANK = [
    (["--out", ""], "invalid --out: expected a folder path, not empty or blank text, got ''"),
    # the value is quoted as given: the one-line error used to collapse it to ' '
    (["--out", "   "], "invalid --out: expected a folder path, not empty or blank text, got '   '"),
    (["--out", "\t"], "invalid --out: expected a folder path, not empty or blank text, got '\\t'"),
    # the option overrides the file's out: its emptiness is the option's, not the file's
    (
        ["--out", "", "--config", "nightly.toml"],
        "invalid --out: expected a folder path, not empty or blank text, got ''",
    ),
    (
        ["--config", ""],
        "invalid --config: expected a TOML file path, not empty or blank text, got ''",
    ),
    (
        ["--config", "  "],
        "invalid --config: expected a TOML file path, not empty or blank text, got '  '",
    ),
]


def _nightly(folder: Path) -> None:
    (folder / "nightly.toml").write_text(
        'out = "reports"\n\n[[cohort]]\nregion = "North America"\n', encoding="utf-8"
    )


@pytest.mark.parametrize(("args", "expected"), _BLANK)
def test_a_blank_path_is_refused_before_any_request(
    args: list[str],
    expected: str,
    sandbox: Any,
    proxy: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DEALFRAME_BASE_URL", proxy.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    _nightly(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, err = run(["report", *args, "--quiet"], capsys)
    assert code == EXIT_USAGE, err
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) == 1, err
    assert expected in errors[0]
    assert proxy.count() == 0  # refused before the service is asked anything
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nightly.toml"]  # nothing written


@pytest.mark.parametrize(("args", "expected"), _BLANK)
def test_a_blank_path_is_refused_before_the_sandbox_starts(
    args: list[str],
    expected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sandbox_starts: list[str],
) -> None:
    _nightly(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, err = run(["report", "--sandbox", *args, "--quiet"], capsys)
    assert code == EXIT_USAGE, err
    assert expected in err
    assert sandbox_starts == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nightly.toml"]
