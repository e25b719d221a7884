"""The README's Python snippets run as written (against the sandbox they start themselves)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_the_two_commands_first():
    text = README.read_text()
    commands = re.findall(r"```bash\n(.*?)```", text, flags=re.S)[:2]
    assert "dealframe report --sandbox" in commands[0]
    assert "pytest" in commands[1]
    assert text.index("```bash") < text.index("## ")


@pytest.mark.filterwarnings("error::dealframe.MissingDataWarning")
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_snippet_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the mirror snippet writes data/mirror here
    namespace: dict = {}
    exec("import dealframe, dealframe.sandbox", namespace)  # the first snippet's import
    code = BLOCKS[index]
    if "resolve_companies" not in code:  # its names are those of the sandbox it names
        code = code.replace("scale=0.1", "scale=0.02")
    exec(compile(code, f"README block {index}", "exec"), namespace)
    assert namespace.get("client") is not None
    if "matches" in namespace:  # the resolve example finds each of its names, one company each
        matches = namespace["matches"]
        assert matches["match_type"].eq("exact").all()
        assert matches["id"].notna().all() and matches["id"].is_unique
        assert not matches.attrs["tied"]


#: README blocks that show what a ``print`` prints, in a comment after it (``# "..."``, a
#: trailing ``...`` for the part left out).
SHOWN = [
    (block, re.findall(r'^\s*print\(.*\)\s*# "(.*?)(?: \.\.\.)?"$', block, flags=re.M))
    for block in BLOCKS
]


@pytest.mark.filterwarnings("error::dealframe.MissingDataWarning")
@pytest.mark.parametrize("index", [i for i, (_, said) in enumerate(SHOWN) if said])
def test_snippet_prints_what_its_comments_show(index, tmp_path, monkeypatch, capsys):
    """Run as written (the sandbox at the scale the block names, not the quicker one above):
    each printed line begins with what its comment shows."""
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    block, said = SHOWN[index]
    namespace: dict = {}
    exec("import dealframe, dealframe.sandbox", namespace)
    exec(compile(block, f"README block {index}", "exec"), namespace)
    printed = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert len(printed) == len(said)
    for line, shown in zip(printed, said):
        assert line.startswith(shown), (line, shown)


def test_some_snippet_shows_what_it_prints():
    assert any(said for _, said in SHOWN)
