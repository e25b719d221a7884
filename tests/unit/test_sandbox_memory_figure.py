"""The sandbox's memory need is said where a user choosing a scale looks, with the same figures:
every ``--scale`` option's help (``sandbox serve``; ``report``/``mirror``/``pull`` with
``--sandbox``; the pytest plugin's ``--dealframe-sandbox-scale``) and docs/sandbox.md (a scale-20
sandbox needs about 16 GB, which none said)."""

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


@pytest.mark.parametrize("command", [["report"], ["mirror", "sync"]])
def test_sandbox_option_help_gives_the_same_figures(capsys, command):
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    scale = capsys.readouterr().out.split("--scale SCALE", 2)[-1].split("--seed")[0]
    assert _figures(" ".join(scale.split())) == ["0.8", "1.4"], scale


def test_pytest_plugin_scale_option_gives_the_same_figures():
    helps: dict[str, str] = {}

    class Group:  # what pytest_addoption is handed, as far as it uses it
        def addoption(self, name: str, **kwargs: object) -> None:
            helps[name] = str(kwargs.get("help"))

    class Parser:
        def getgroup(self, name: str) -> Group:
            return Group()

        def addini(self, *args: object, **kwargs: object) -> None:
            pass

    from dealframe.sandbox import pytest_plugin

    pytest_plugin.pytest_addoption(Parser())  # type: ignore[arg-type]
    help_text = " ".join(helps["--dealframe-sandbox-scale"].split())
    assert _figures(help_text) == ["0.8", "1.4"], help_text


def test_sandbox_doc_gives_the_same_figures_and_its_measurements():
    text = DOC.read_text(encoding="utf-8")
    largest = text.split("### Largest scale", 1)[1].split("\n### ", 1)[0]
    assert _figures(" ".join(largest.split()))[:2] == ["0.8", "1.4"]
    memory = text.split("### Memory per unit of scale", 1)[1].split("\n### ", 1)[0]
    assert "| per unit of scale |" in memory and "**0.8 GB**" in memory
    assert "(#memory-per-unit-of-scale)" in largest
