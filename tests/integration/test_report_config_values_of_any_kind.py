"""Every value of a config file is said in TOML's words, whatever its kind and wherever it is.

A value that TOML reads as a date or time inside an array or an inline table, a boolean, an
array or a table was said in Python's words (``metric = [2024-01-05]``: ``got
[datetime.date(2024, 1, 5)]``; ``deal_type = {a = 2024-01-05}``: ``got {'a':
datetime.date(2024, 1, 5)}``; ``top = true``: ``got True``; ``region = ["Oceania"]``:
``got ['Oceania']``), though the module and docs/report.md say a file's values are said in
TOML's words, never as a Python type. Each is now said as the file wrote it (``got a TOML
array [2024-01-05]``, ``got a TOML table``, ``got a TOML boolean true``, ``got a TOML array
["Oceania"]``). An ``out`` of the wrong kind (``out = 2024-01-05``) was said to be missing
("no output folder: set out = ..."): it is now said to be of the wrong kind.

Each file is refused by ``dealframe report --sandbox --config FILE`` before the sandbox
starts (:func:`sandbox_starts` of tests/conftest.py: no step of a start-up is taken).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from dealframe.cli import main
from dealframe.report.config import ConfigError, load_config

#: Each wrong kind of value: the TOML text, and how it is said (for a key whose check reads
#: the value whole).
KINDS = {
    "boolean": ("true", "a TOML boolean true"),
    "dates": ("[2024-01-05]", "a TOML array [2024-01-05]"),
    "texts": ('["Oceania"]', 'a TOML array ["Oceania"]'),
    "table": ("{ a = 2024-01-05 }", "a TOML table"),
    "booleans": ("[true, false]", "a TOML array [true, false]"),
}
#: ``deal_type`` reads an array's entries one by one: an entry is said (an array of text is
#: a list of deal types, so an array of arrays stands for it).
DEAL_TYPE = {
    "boolean": ("true", "a TOML boolean true"),
    "dates": ("[2024-01-05]", "a TOML date 2024-01-05"),
    "texts": ('[["Venture"]]', 'a TOML array ["Venture"]'),
    "table": ("{ a = 2024-01-05 }", "a TOML table"),
    "booleans": ("[true, false]", "a TOML boolean true"),
}
#: Where a key is set: at the top of the file (``metric``, ``top``) or in a cohort.
PLACES = [
    ("metric", "top"),
    ("top", "top"),
    ("metric", "cohort"),
    ("top", "cohort"),
    ("region", "cohort"),
    ("vertical", "cohort"),
    ("deal_type", "cohort"),
    ("name", "cohort"),
]
CASES = [
    pytest.param(key, place, kind, id=f"{place}-{key}-{kind}")
    for key, place in PLACES
    for kind in KINDS
]


def _refused(path: Path, sandbox_starts: list[str]) -> str:
    """The one line ``dealframe report --sandbox --config path`` says (exit status 2), said
    before any sandbox starts, and said alike by the Python reader of the file."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["report", "--sandbox", "--config", str(path)])
    said = err.getvalue()
    assert status == 2, said
    assert said.count("\n") == 1 and said.startswith("dealframe report: error: "), said
    assert sandbox_starts == [], said
    assert not (path.parent / "o").exists()
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert said.strip() == f"dealframe report: error: {raised.value}"
    return str(raised.value)


def _no_python(said: str) -> None:
    for python in ("datetime", "True", "False", "['", "{'", "[datetime", "(2024, 1, 5)"):
        assert python not in said, (python, said)


@pytest.mark.parametrize(("key", "place", "kind"), CASES)
def test_a_value_of_any_kind_is_said_in_tomls_words(tmp_path, sandbox_starts, key, place, kind):
    text, words = (DEAL_TYPE if key == "deal_type" else KINDS)[kind]
    cohort = "" if key == "region" and place == "cohort" else 'region = "Oceania"\n'
    top, entry = (f"{key} = {text}\n", "") if place == "top" else ("", f"{key} = {text}\n")
    path = tmp_path / "c.toml"
    path.write_text(
        f'out = "{(tmp_path / "o").as_posix()}"\n{top}[[cohort]]\n{cohort}{entry}',
        encoding="utf-8",
    )
    said = _refused(path, sandbox_starts)
    where = f"{path}: " if place == "top" else f"{path}: cohort 1: "
    assert said.startswith(f"{where}invalid {key}: expected "), said
    assert said.endswith(f", got {words}"), said
    _no_python(said)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("2024-01-05", "a TOML date 2024-01-05"),
        ("5", "a TOML integer 5"),
        ("true", "a TOML boolean true"),
        ('["r"]', 'a TOML array ["r"]'),
        ("{ dir = 'r' }", "a TOML table"),
    ],
    ids=["date", "integer", "boolean", "array", "table"],
)
def test_an_out_of_the_wrong_kind_is_said_to_be_one_not_missing(
    tmp_path, sandbox_starts, value, words
):
    path = tmp_path / "c.toml"
    path.write_text(f'out = {value}\n[[cohort]]\nregion = "Oceania"\n', encoding="utf-8")
    said = _refused(path, sandbox_starts)
    assert said == f"{path}: invalid out: expected a folder path (text), got {words}", said
    assert "no output folder" not in said


def test_a_long_array_is_said_shortly(tmp_path, sandbox_starts):
    path = tmp_path / "c.toml"
    days = ", ".join(f"2024-01-{d:02d}" for d in range(1, 29))
    path.write_text(
        f'out = "{(tmp_path / "o").as_posix()}"\nmetric = [{days}]\n[[cohort]]\nregion = "Oceania"\n',
        encoding="utf-8",
    )
    said = _refused(path, sandbox_starts)
    assert ", got a TOML array [2024-01-01, 2024-01-02, " in said and said.endswith(", ...]")
    assert len(said) < len(str(path)) + 200, said
