"""``out`` given to :func:`~dealframe.report.config.parse_config` (``--out``) wins over a
file's ``out`` unchecked, and a ``pathlib.Path`` in a document built in Python is a folder.

Since a file's ``out`` was checked to be text, ``parse_config({"out": Path("r"), ...})``
was refused (``got a pathlib.PosixPath (not a TOML value)``; it used to work), and a file's
``out = 5`` was refused even with ``--out``, which used to win. An explicit override is what
the user asked for: the file's ``out`` is then not read at all.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path, PurePosixPath

import pytest

from dealframe.report.config import ConfigError, load_config, parse_config

COHORTS = [{"region": "Oceania"}]


@pytest.mark.parametrize("folder", [Path("r"), PurePosixPath("r")], ids=["Path", "PurePath"])
def test_a_path_from_python_is_a_folder(folder):
    jobs = parse_config({"out": folder, "cohort": COHORTS}, "x.toml")
    assert jobs[0].out == Path("r") / "oceania"


@pytest.mark.parametrize("value", [5, dt.date(2024, 1, 5), ["r"], "", {"a": 1}])
def test_the_override_wins_over_any_out_of_the_file(value):
    jobs = parse_config({"out": value, "cohort": COHORTS}, "x.toml", out="o")
    assert jobs[0].out == Path("o") / "oceania"


def test_the_override_wins_over_a_files_out(tmp_path: Path):
    path = tmp_path / "c.toml"
    path.write_text('out = 5\n[[cohort]]\nregion = "Oceania"\n', encoding="utf-8")
    assert load_config(path, out=tmp_path / "o")[0].out == tmp_path / "o" / "oceania"
    with pytest.raises(ConfigError, match="invalid out: expected a folder path"):
        load_config(path)  # without the override, the file's out is checked


def test_the_command_takes_out_over_the_files_out(tmp_path: Path, sandbox_starts: list[str]):
    """``dealframe report --config c.toml --out DIR`` with ``out = 5`` in the file gets past
    the file's checks to start its sandbox (the tripwire stops it there)."""
    import contextlib
    import io

    from dealframe.cli import main

    path = tmp_path / "c.toml"
    path.write_text('out = 5\n[[cohort]]\nregion = "Oceania"\n', encoding="utf-8")
    err = io.StringIO()
    args = ["report", "--sandbox", "--config", str(path), "--out", str(tmp_path / "o")]
    with contextlib.suppress(Exception), contextlib.redirect_stderr(err):  # the tripwire's
        main(args)
    assert "invalid out" not in err.getvalue(), err.getvalue()
    assert sandbox_starts, err.getvalue()
