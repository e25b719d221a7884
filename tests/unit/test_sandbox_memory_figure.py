"""The sandbox's memory need is said where a user choosing a scale looks, with the same figures:
``dealframe sandbox serve --help`` and docs/sandbox.md (a scale-20 sandbox needs about 16 GB,
which neither said)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dealframe.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"


def _figures(text: str) -> list[str]:
    """The GB-per-unit-of-scale figures a text gives, in order."""
    return re.findall(r"([\d.]+) GB\W*(?:per unit of scale|when the start|per unit)", text)


def test_scale_help_gives_the_memory_per_unit_of_scale(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["sandbox", "serve", "--help"])
    assert exited.value.code == 0
    scale = capsys.readouterr().out.split("--scale SCALE", 2)[-1].split("--seed")[0]
    scale = " ".join(scale.split())
    assert "per unit of scale" in scale and "docs/sandbox.md" in scale, scale
    assert _figures(scale) == ["0.8", "1.4"], scale


def test_sandbox_doc_gives_the_same_figures_and_its_measurements():
    text = DOC.read_text(encoding="utf-8")
    largest = text.split("### Largest scale", 1)[1].split("\n### ", 1)[0]
    assert _figures(" ".join(largest.split()))[:2] == ["0.8", "1.4"]
    memory = text.split("### Memory per unit of scale", 1)[1].split("\n### ", 1)[0]
    assert "| per unit of scale |" in memory and "**0.8 GB**" in memory
    assert "(#memory-per-unit-of-scale)" in largest
