"""A config file's values are read as TOML wrote them: no date-time cut to its day, no
Python type in an error, and a cohort of the wrong shape said as such.

A TOML date-time for ``since`` (``2024-01-05T10:00:00``, with or without an offset) was cut
to its day without a word (the client's date filters take a datetime's day), and a TOML
time (``10:00:00``) was refused in Python's words (``got datetime.time(10, 0)``). The
command line refuses ``--since 2024-01-05T10:00``; a file now refuses both, in TOML's words
(``got a TOML date-time 2024-01-05T10:00:00``). A value of another key that TOML reads as a
date or time is said so too (``region = 2024-01-05``), and so is any other value that is
neither text nor a date (``since = 20240105``: ``got a TOML integer 20240105``).

A single ``[cohort]`` table (one bracket pair), ``cohort = "x"`` or ``cohort = 1`` was said
to be "no cohort: add one or more [[cohort]] tables", though the file has one: it is now
said that ``cohort`` must be an array of tables (``[[cohort]]``, with the double brackets),
and what it is instead.

The command runs with ``--sandbox``: each file is refused before the sandbox starts.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from dealframe.cli import main
from dealframe.report.config import ConfigError, load_config

EXPECTED_DATE = 'expected a date YYYY-MM-DD (a quoted "2024-01-05" or a TOML date 2024-01-05)'
ARRAY = "expected an array of tables ([[cohort]], with the double brackets)"


def _refused(path: Path) -> str:
    """The one line ``dealframe report --sandbox --config path`` says; exit status 2."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["report", "--sandbox", "--scale", "0.05", "--config", str(path)])
    said = err.getvalue()
    assert status == 2, said
    assert said.count("\n") == 1 and said.startswith("dealframe report: error: "), said
    assert not (path.parent / "o").exists()
    with pytest.raises(ConfigError) as raised:  # the Python reader of the file, alike
        load_config(path)
    assert said.strip() == f"dealframe report: error: {raised.value}"
    return str(raised.value)


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.toml"
    path.write_text(f'out = "{(tmp_path / "o").as_posix()}"\n{text}', encoding="utf-8")
    return path


def _cohort(tmp_path: Path, since: str) -> Path:
    return _file(tmp_path, f'[[cohort]]\nregion = "Western Europe"\nsince = {since}\n')


@pytest.mark.parametrize(
    ("since", "got"),
    [
        ("2024-01-05T10:00:00", "a TOML date-time 2024-01-05T10:00:00"),
        ("2024-01-05 10:00:00", "a TOML date-time 2024-01-05T10:00:00"),
        ("2024-01-05T10:00:00Z", "a TOML date-time 2024-01-05T10:00:00Z"),
        ("2024-01-05T10:00:00+01:00", "a TOML date-time 2024-01-05T10:00:00+01:00"),
        ("2024-01-05T00:00:00", "a TOML date-time 2024-01-05T00:00:00"),
        ("10:00:00", "a TOML time 10:00:00"),
        ("10:00:00.5", "a TOML time 10:00:00.500000"),
        ("20240105", "a TOML integer 20240105"),
        ("true", "a TOML boolean true"),
        ("1.5", "a TOML float 1.5"),
        ('["2024-01-05"]', 'a TOML array ["2024-01-05"]'),
        ('{ day = "2024-01-05" }', "a TOML table"),
    ],
    ids=[
        "datetime",
        "datetime-space",
        "datetime-z",
        "datetime-offset",
        "midnight",
        "time",
        "time-fraction",
        "integer",
        "boolean",
        "float",
        "array",
        "table",
    ],
)
def test_a_since_that_is_no_date_is_refused_in_tomls_words(tmp_path, since, got):
    said = _refused(_cohort(tmp_path, since))
    path = tmp_path / "c.toml"
    assert said == f"{path}: cohort 1: invalid since: {EXPECTED_DATE}, got {got}", said
    assert "datetime" not in said and "True" not in said


def test_a_since_of_text_that_is_no_day_is_refused_as_before(tmp_path):
    said = _refused(_cohort(tmp_path, '"2024-02-30"'))
    assert said.endswith('invalid since: expected a date YYYY-MM-DD, got "2024-02-30"'), said


@pytest.mark.parametrize("since", ['"2024-01-05"', "2024-01-05"], ids=["text", "toml-date"])
def test_a_date_is_still_a_since(tmp_path, since):
    (job,) = load_config(_cohort(tmp_path, since))
    assert job.cohort.since == "2024-01-05"


@pytest.mark.parametrize(
    ("key", "value", "got"),
    [
        ("region", "2024-01-05", "got a TOML date 2024-01-05"),
        ("vertical", "10:00:00", "got a TOML time 10:00:00"),
        ("name", "2024-01-05T10:00:00", "got a TOML date-time 2024-01-05T10:00:00"),
        ("top", "2024-01-05", "got a TOML date 2024-01-05"),
    ],
)
def test_a_date_or_time_of_another_key_is_said_in_tomls_words(tmp_path, key, value, got):
    text = f'[[cohort]]\nregion = "Western Europe"\n{key} = {value}\n'
    if key == "region":
        text = f"[[cohort]]\nregion = {value}\n"
    said = _refused(_file(tmp_path, text))
    assert f"invalid {key}: " in said and said.endswith(got), said
    assert "datetime" not in said


@pytest.mark.parametrize(
    ("text", "got"),
    [
        ('[cohort]\nregion = "Western Europe"\n', "a single table [cohort]"),
        ('cohort = "x"\n', 'a TOML string "x"'),
        ("cohort = 1\n", "a TOML integer 1"),
        ("cohort = 2024-01-05\n", "a TOML date 2024-01-05"),
        ('cohort = { region = "Western Europe" }\n', "a single table [cohort]"),
    ],
    ids=["single-table", "string", "integer", "date", "inline-table"],
)
def test_a_cohort_of_the_wrong_shape_is_said_to_be_one(tmp_path, text, got):
    said = _refused(_file(tmp_path, text))
    assert said == f"{tmp_path / 'c.toml'}: invalid cohort: {ARRAY}, got {got}", said
    assert "no cohort" not in said


@pytest.mark.parametrize(
    ("text", "got"),
    [("cohort = [1]\n", "a TOML integer 1"), ('cohort = ["x"]\n', 'a TOML string "x"')],
)
def test_an_entry_of_the_array_that_is_no_table_says_what_it_is(tmp_path, text, got):
    said = _refused(_file(tmp_path, text))
    assert said == f"{tmp_path / 'c.toml'}: cohort 1: not a table, got {got}", said


@pytest.mark.parametrize("text", ["", "cohort = []\n"], ids=["missing", "empty-array"])
def test_no_cohort_is_still_said_so(tmp_path, text):
    said = _refused(_file(tmp_path, text))
    assert said == f"{tmp_path / 'c.toml'}: no cohort: add one or more [[cohort]] tables", said
