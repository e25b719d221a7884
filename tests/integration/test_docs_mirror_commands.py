"""The ``dealframe mirror snapshot-public`` commands of docs/mirror.md run as written, against
the session sandbox (the CLI's ``--sandbox`` scale, 0.1), and write what their comments say.

Its SKU example named SKUs the sandbox does not hold (``CELZ-GBR TOR-GBR``): exit status 2,
nothing written. ``--sandbox`` is read here as the session sandbox, found in the environment
(the same data: seed and scale are the CLI's defaults), so no sandbox starts per command.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

import dealframe.mirror as mirror
from dealframe.cli import main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mirror.md"
BASH = re.compile(r"```bash\n(.*?)```", flags=re.S)
COMMANDS = [
    line.strip()
    for block in BASH.findall(PAGE.read_text())
    for line in block.splitlines()
    if line.startswith("dealframe mirror snapshot-public ./mirror ")
]


def test_the_page_has_the_commands() -> None:
    assert any("--sku" in c for c in COMMANDS) and any("--country" in c for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_snapshot_command_of_the_page_runs(
    command: str, sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    config = sandbox.state.config
    if config.scale != 0.1:
        pytest.skip("the page's commands are written for the CLI's sandbox, scale 0.1")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    words, _, comment = command.partition("#")
    argv = [w for w in shlex.split(words)[1:] if w != "--sandbox"]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "were not returned" not in captured.err  # every SKU named is served
    on = argv[argv.index("--date") + 1] if "--date" in argv else None
    current = mirror.load_public(tmp_path / "mirror", "current", on=on).reset_index()
    assert len(current) > 0
    if "--sku" in argv:
        named = argv[argv.index("--sku") + 1 : argv.index("--sku") + 3]
        assert sorted(current["sku"]) == sorted(named)
    counts = re.findall(r"(\d+)(?= \+ | companies)", comment)
    if counts:  # "# 12 + 4 companies": one count per country, in the order given
        countries = argv[argv.index("--country") + 1 : argv.index("--country") + 1 + len(counts)]
        held = current["countryCodeIso3"].value_counts()
        assert [int(held.get(c, 0)) for c in countries] == [int(n) for n in counts]
