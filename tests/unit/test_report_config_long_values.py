"""A config file's long values are said shortly, as :class:`~dealframe.errors.ValidationError`
says its ``got`` (about 80 characters, then ``...``).

A 5,000-character text in ``cohort = "x..."``, ``out = ["x..."]``, ``cohort = ["x..."]`` or
``deal_type = [["x..."]]`` was said whole (a message of about 5,100 characters); an array was
cut by its width only before its second item (``region = [1, "x..."]``), and a depth-300
nested array was said as 600 brackets. The value of a message is now cut wherever it is; so
are a cohort's ``name`` said in its place and an unknown key.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from dealframe.report.config import ConfigError, load_config, parse_config

LONG = "x" * 5000
NESTED = tomllib.loads("v = " + "[" * 300 + "]" * 300)["v"]
#: What a message may say besides its value: the file, the cohort, the key and what is
#: expected (a region's list is the longest, 190 characters).
ROOM = 350


def _said(document: dict[str, object]) -> str:
    with pytest.raises(ConfigError) as raised:
        parse_config(document, "x.toml")
    return str(raised.value)


@pytest.mark.parametrize(
    "document",
    [
        {"out": "r", "cohort": LONG},
        {"out": [LONG], "cohort": [{"region": "Oceania"}]},
        {"out": "r", "cohort": [LONG]},
        {"out": "r", "cohort": [{"region": "Oceania", "deal_type": [[LONG]]}]},
        {"out": "r", "cohort": [{"region": [1, LONG]}]},
        {"out": "r", "cohort": [{"region": [LONG, 1]}]},
        {"out": "r", "cohort": [{"region": NESTED}]},
        {"out": "r", "cohort": [{"region": LONG}]},
        {"out": "r", "cohort": [{"region": "Oceania", "since": [LONG]}]},
        {"out": "r", "cohort": [{"name": LONG, "region": "Oceania", "top": 0}]},
        {"out": "r", LONG: 1},
    ],
    ids=[
        "cohort-text",
        "out-array",
        "cohort-entry-text",
        "deal_type-nested",
        "array-second-item",
        "array-first-item",
        "depth-300",
        "region-text",
        "since-array",
        "cohort-name",
        "unknown-key",
    ],
)
def test_a_long_value_is_said_shortly(document):
    said = _said(document)
    assert len(said) < ROOM, (len(said), said[:400])
    assert "..." in said, said
    assert "x" * 81 not in said and "[" * 81 not in said, said


def test_a_long_value_is_cut_after_80_characters_of_what_toml_writes():
    said = _said({"out": "r", "cohort": LONG})
    assert said.endswith('got a TOML string "' + "x" * 79 + "..."), said
    said = _said({"out": "r", "cohort": [{"region": "Oceania", "since": NESTED}]})
    assert said.endswith("got a TOML array " + "[" * 80 + "..."), said


def test_a_long_value_of_a_file_is_said_shortly(tmp_path: Path):
    path = tmp_path / "c.toml"
    path.write_text(
        f'out = "o"\n[[cohort]]\nregion = "Oceania"\ndeal_type = [["{LONG}"]]\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert len(str(raised.value)) < len(str(path)) + ROOM, str(raised.value)[:400]
