"""A config file's bad ``since`` is said in a file's words; ``NaT`` of numpy as pandas'.

Since a cohort's start date is read by the client's date filters (``to_date_string``), a bad
``since`` of a config file was refused in the Python API's words, naming Python types no
TOML file can hold (``expected a date YYYY-MM-DD, datetime.date or pandas.Timestamp``):
only the ``--since`` option was said in a shell's words. Now the file's errors drop them
too, as they did before (``expected a date YYYY-MM-DD``). The command runs with
``--sandbox``: the file is refused before the sandbox starts.

``numpy.datetime64("NaT")`` was refused as any other value (``expected a date YYYY-MM-DD,
datetime.date or pandas.Timestamp``), ``pandas.NaT`` as no date (``a date, not NaT``): both
are now the latter, for the deal filters and the report alike.

The helper that words an error for the command line (``in_shell_words``) is the commands'
(``dealframe.clitools``), so ``report`` does not import it from ``pull``'s module.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe.cli import main
from dealframe.errors import ValidationError
from dealframe.report.cli import _as_given
from dealframe.report.cohort import parse_cohort
from dealframe.report.config import ConfigError, load_config

PYTHON_TYPES = "datetime.date or pandas.Timestamp"


def _config(tmp_path: Path, since: str) -> Path:
    path = tmp_path / "c.toml"
    path.write_text(
        f'out = "{(tmp_path / "o").as_posix()}"\n[[cohort]]\nname = "a"\n'
        f'region = "Western Europe"\nsince = {since}\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("since", "got"),
    [('"2024-02-30"', '"2024-02-30"')],
    ids=["no-such-day"],  # a value that is no text: test_report_config_toml_values.py
)
def test_a_config_files_bad_since_names_no_python_type(tmp_path, since, got):
    path = _config(tmp_path, since)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["report", "--config", str(path), "--sandbox"])
    said = err.getvalue().strip()
    assert status == 2, said
    assert said.startswith(
        f'dealframe report: error: {path}: cohort 1 ("a"): invalid since: expected a date '
        f"YYYY-MM-DD, got {got}"
    ), said
    assert PYTHON_TYPES not in said and "pandas" not in said
    assert not (tmp_path / "o").exists()
    with pytest.raises(ConfigError) as raised:  # the Python reader of the file, alike
        load_config(path)
    assert PYTHON_TYPES not in str(raised.value)


def test_a_toml_date_is_a_since(tmp_path):
    (job,) = load_config(_config(tmp_path, "2024-01-05"))
    assert job.cohort.since == "2024-01-05"


def test_an_error_after_start_up_of_a_config_cohort_names_no_python_type():
    """The key of the file (``since (of c.toml)``), in a file's words, as the option is."""
    error = ValidationError("since", f"a date YYYY-MM-DD, {PYTHON_TYPES}", got="x")
    said = _as_given(error, argparse.Namespace(config="c.toml"))
    assert str(said) == 'invalid since (of c.toml): expected a date YYYY-MM-DD, got "x"'
    said = _as_given(error, argparse.Namespace(config=None))
    assert str(said) == "invalid --since: expected a date YYYY-MM-DD, got 'x'"


@pytest.mark.parametrize("nat", [pd.NaT, np.datetime64("NaT"), np.datetime64("NaT", "D")])
def test_not_a_time_of_numpy_is_refused_as_pandas_is(sandbox, nat):
    with dealframe.Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as client:
        with pytest.raises(ValidationError) as by_filter:
            client.private.deals(date_from=nat)
    with pytest.raises(ValidationError) as by_cohort:
        parse_cohort({"region": "Western Europe", "since": nat})
    assert by_filter.value.expected == by_cohort.value.expected == "a date, not NaT"
    assert by_cohort.value.argument == "since"


def test_the_commands_word_errors_with_one_helper():
    from dealframe import clitools
    from dealframe.pull import flags
    from dealframe.report import cli as report_cli

    assert flags.in_shell_words is clitools.in_shell_words  # pull's name kept
    assert report_cli.in_shell_words is clitools.in_shell_words
    assert clitools.in_shell_words.__module__ == "dealframe.clitools"
