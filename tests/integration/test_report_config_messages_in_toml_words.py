"""Every error of a config file says its values and cohort names as TOML strings, cut.

The ``--sandbox`` check of a config file's cohorts (a vertical or deal type the sandbox does
not have, a ``since`` after its latest date) built its own message: the value in Python's
quotes (``got 'Fin"tec'``), not cut, and the cohort's name as it was (5,000 characters of
name made a 5,125-character line). It now says them as the file's other errors do (``got
"Fin\\"tec"``, ``cohort 1 ("...")``, cut after about 80 characters), and so does the error of
a cohort that the service refuses once it answers (``got "Fintec"``).

A cohort's name was written raw where a message names the cohort that failed: a newline or a
terminal escape in it broke the one-line error. It is now a TOML basic string, escaped.

A lone surrogate (``"\\ud800"``, from a document built in Python) was written unescaped, so
printing the error raised ``UnicodeEncodeError`` on a UTF-8 stream; it is now an escaped
code point. ``pathlib.Path("")`` as ``out`` (the current folder) is refused as ``out = ""``
and ``--out ""`` are.

The command's checks here run before a sandbox starts: ``--sandbox`` starts none.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from dealframe.cli import main
from dealframe.errors import ValidationError
from dealframe.report.cli import _as_given
from dealframe.report.config import ConfigError, parse_config


def _refused(tmp_path: Path, cohort: str) -> str:
    """What ``dealframe report --sandbox --config`` says of a file with this cohort."""
    path = tmp_path / "c.toml"
    path.write_text(
        f'out = "{(tmp_path / "o").as_posix()}"\n[[cohort]]\n{cohort}\n', encoding="utf-8"
    )
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["report", "--config", str(path), "--sandbox", "--scale", "0.05"])
    said = err.getvalue()
    assert status == 2, said
    assert not (tmp_path / "o").exists()
    return said.removeprefix(f"dealframe report: error: {path}: ").rstrip("\n")


def test_a_vertical_the_sandbox_lacks_is_said_as_a_toml_string(tmp_path):
    said = _refused(tmp_path, 'name = "b"\nregion = "Oceania"\nvertical = "Fin\\"tec"')
    assert said.startswith('cohort 1 ("b"): invalid vertical: expected '), said
    assert said.endswith(', got "Fin\\"tec"'), said


def test_a_long_name_and_value_are_cut_in_the_sandbox_check(tmp_path):
    said = _refused(
        tmp_path, f'name = "{"n" * 5000}"\nregion = "Oceania"\nvertical = "{"v" * 5000}"'
    )
    assert "\n" not in said
    assert said.startswith(f'cohort 1 ("{"n" * 79}...): invalid vertical: expected '), said
    assert said.endswith(f', got "{"v" * 79}...'), said
    assert len(said) < 400, len(said)


def test_a_service_refusing_a_config_files_value_says_it_as_a_toml_string():
    error = ValidationError("vertical", "a vertical of the service's companies", got='Fin"tec')
    said = _as_given(error, argparse.Namespace(config="c.toml"))
    assert type(said) is ValidationError and said.argument == "vertical (of c.toml)"
    assert str(said) == (
        'invalid vertical (of c.toml): expected a vertical of the service\'s companies, got "Fin\\"tec"'
    )


@pytest.mark.parametrize(
    ("name", "shown"),
    [("a\nb\x1b[31m", '"a\\nb\\u001b[31m"'), ("x" * 500, f'"{"x" * 79}...')],
    ids=["control-characters", "long"],
)
def test_a_cohorts_name_is_a_toml_string_in_its_errors(name, shown):
    with pytest.raises(ConfigError) as raised:
        parse_config(
            {"out": "r", "cohort": [{"name": name, "region": "Oceania", "top": 0}]}, "c.toml"
        )
    said = str(raised.value)
    assert said.startswith(f"c.toml: cohort 1 ({shown}): invalid top: "), said
    assert "\n" not in said and "\x1b" not in said


def test_a_lone_surrogate_is_an_escaped_code_point():
    with pytest.raises(ConfigError) as raised:
        parse_config({"out": "r", "cohort": [{"name": "\udc80", "region": "\ud800"}]}, "c.toml")
    said = str(raised.value)
    said.encode("utf-8")  # printable on a UTF-8 stream
    assert said.startswith('c.toml: cohort 1 ("\\udc80"): invalid region: '), said
    assert said.endswith('got "\\ud800"'), said


@pytest.mark.parametrize("given", ["file", "argument"])
@pytest.mark.parametrize("blank", [Path(""), Path(".")], ids=["empty", "dot"])
def test_an_empty_path_is_no_output_folder(given, blank):
    document = {"out": blank if given == "file" else "r", "cohort": [{"region": "Oceania"}]}
    with pytest.raises(ConfigError, match="out") as raised:
        parse_config(document, "c.toml", out=blank if given == "argument" else None)
    assert "c.toml" in str(raised.value)
    # text "." says the current folder in so many words: taken
    (job,) = parse_config({**document, "out": "."}, "c.toml")
    assert job.out == Path("oceania")
