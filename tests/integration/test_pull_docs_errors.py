"""The errors docs/pull.md shows are the ones ``dealframe pull`` prints.

Each ``$ dealframe pull ...`` line of the page's ``text`` blocks followed by an error line is
run in this process: with ``--sandbox`` as written (refused before a sandbox starts), without
it against the session sandbox over HTTP, as a service. The page wrote one error for a
filter flag's slip, the one ``--sandbox`` prints; against a service the words differ (``an
option of pull deals``, no list of filters: the service's own discovery document decides
them), and the page now shows both. ``...`` in a shown line stands for the rest of a list.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _cli import run

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pull.md"
BLOCK = re.compile(r"```text\n(.*?)```", flags=re.S)


def _shown() -> list[tuple[str, str]]:
    """(command, error line) of every error the page shows for ``dealframe pull``."""
    pairs = []
    for block in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        lines = block.splitlines()
        for command, said in zip(lines, lines[1:]):
            if command.startswith("$ dealframe pull ") and said.startswith(
                "dealframe pull: error:"
            ):
                pairs.append((command[2:], said))
    return pairs


def _matches(said: str, shown: str) -> bool:
    """``said`` is ``shown``, where ``...`` in ``shown`` stands for any text."""
    pattern = ".*".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, said) is not None


def test_the_page_shows_the_service_error_of_a_filter_slip():
    commands = [command for command, _ in _shown()]
    assert "dealframe pull deals --deal-typ Venture -o d.csv --sandbox" in commands
    assert "dealframe pull deals --deal-typ Venture -o d.csv" in commands


@pytest.mark.parametrize(("command", "shown"), _shown())
def test_a_shown_error_is_what_pull_prints(
    command: str,
    shown: str,
    sandbox: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sandbox_starts: list[str],
) -> None:
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    monkeypatch.chdir(tmp_path)
    code, err = run(shlex.split(command)[1:], capsys)
    assert code == 2, err
    errors = [line for line in err.splitlines() if line.startswith("dealframe pull: error:")]
    assert len(errors) == 1, err
    assert _matches(errors[0], shown), (errors[0], shown)
    assert sandbox_starts == []  # every one is refused before a sandbox would start
    assert list(tmp_path.iterdir()) == []
