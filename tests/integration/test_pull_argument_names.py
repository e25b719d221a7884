"""``dealframe.pull`` from Python names its Python arguments (``name``, ``path``, ``output``),
``dealframe pull`` its own words (``ENTITY``, ``-o``); and ``write_frame`` takes a path, the
file equal to the one the command writes."""

from __future__ import annotations

import pandas as pd
import pytest
from _cli import pull

import dealframe
from dealframe.errors import ValidationError
from dealframe.pull import entity, write_frame


def test_the_command_keeps_its_own_words(sandbox, tmp_path, capsys, monkeypatch):
    code, err = pull(
        ["deal", "-o", str(tmp_path / "d.csv")],
        sandbox.url,
        sandbox.private_key,
        capsys,
        monkeypatch,
    )
    assert code == 2 and "invalid ENTITY: expected one of" in err and "'deals'" in err, err
    code, err = pull(
        ["deals", "-o", str(tmp_path / "d.cvs")],
        sandbox.url,
        sandbox.private_key,
        capsys,
        monkeypatch,
    )
    assert code == 2 and "invalid -o: expected a file name ending in" in err, err
    assert list(tmp_path.iterdir()) == []


def test_python_names_the_argument():
    with pytest.raises(ValidationError, match=r"^invalid name: .*did you mean 'deals'"):
        entity("deal")


def test_write_frame_to_a_path_equals_the_commands_file(sandbox, tmp_path, capsys, monkeypatch):
    by_command = tmp_path / "command.parquet"
    code, err = pull(
        ["deals", "--deal-type", "Venture", "--limit", "20", "-o", str(by_command)],
        sandbox.url,
        sandbox.private_key,
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        frame = client.private.deals(deal_type=["Venture"], limit=20)
    by_python = write_frame(frame, str(tmp_path / "python.parquet"))
    assert by_python == tmp_path / "python.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(by_python), pd.read_parquet(by_command))
