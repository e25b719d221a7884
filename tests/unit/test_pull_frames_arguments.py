"""Argument checks of ``dealframe.pull`` and the backoff settings:
dealframe errors naming the Python argument, never a bare ``AttributeError``/``TypeError``.
"""

from __future__ import annotations

import typing

import pandas as pd
import pytest

from dealframe import Client
from dealframe.config import Settings
from dealframe.errors import ConfigurationError, ValidationError
from dealframe.pull import Entity, check_output, entity, portable_frame, write_frame

# -- dealframe.pull ---------------------------------------------------------------------------


def test_write_frame_takes_a_path(tmp_path):
    frame = pd.DataFrame({"id": ["d1"], "tags": [["a"]]})
    written = write_frame(frame, str(tmp_path / "deals.csv"))
    assert written == tmp_path / "deals.csv"
    assert pd.read_csv(written).to_dict("list") == {"id": ["d1"], "tags": ['["a"]']}
    assert write_frame(frame, tmp_path / "deals.parquet").suffix == ".parquet"


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda tmp: portable_frame(None), "frame"),
        (lambda tmp: portable_frame([1, 2]), "frame"),
        (lambda tmp: write_frame(None, tmp / "x.csv"), "frame"),
        (lambda tmp: write_frame(pd.DataFrame(), 5), "output"),
        (lambda tmp: write_frame(pd.DataFrame(), None), "output"),
        (lambda tmp: write_frame(pd.DataFrame(), str(tmp / "x.txt")), "output"),
        (lambda tmp: write_frame(pd.DataFrame(), str(tmp)), "output"),
        (lambda tmp: check_output("deals.parquer"), "path"),
        (lambda tmp: entity("deal"), "name"),
        (lambda tmp: entity(5), "name"),
    ],
)
def test_pull_functions_name_their_argument(tmp_path, call, argument):
    with pytest.raises(ValidationError) as info:
        call(tmp_path)
    assert info.value.argument == argument, str(info.value)
    assert str(info.value).startswith(f"invalid {argument}: ")
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_entity_is_typed():
    hints = typing.get_type_hints(entity)
    assert hints["name"] is str and hints["return"] is Entity
    assert entity("co_investors").name == "co-investors"


# -- backoff settings -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "field", "default"),
    [
        ({"backoff_base": 10, "backoff_cap": 1}, "backoff_cap", None),
        ({"backoff_cap": 0.1}, "backoff_cap", "backoff_base 0.5 (the default)"),
        ({"backoff_base": 40}, "backoff_base", "backoff_cap 30 (the default)"),
    ],
)
def test_a_cap_below_the_base_is_refused_naming_both(given, field, default):
    with pytest.raises(ConfigurationError) as info:
        Client("http://127.0.0.1:9", "t", "k", cache_enabled=False, **given)
    assert info.value.field == field  # the one given, when the other is its default
    assert "backoff_cap" in str(info.value) and "backoff_base" in str(info.value)
    assert (default in str(info.value)) if default else "default" not in str(info.value)
    with pytest.raises(ConfigurationError):
        Settings.from_env({}, **given)
    with pytest.raises(ConfigurationError):
        Settings().replace(**given)


def test_a_cap_equal_to_the_base_is_taken():
    assert Settings(backoff_base=2, backoff_cap=2).backoff_cap == 2
    assert Settings(backoff_base=0, backoff_cap=0).backoff_cap == 0


def test_values_a_hair_apart_are_printed_apart():
    with pytest.raises(ConfigurationError) as info:
        Settings(backoff_base=30.0000001, backoff_cap=30)
    assert "backoff_base 30.0000001 is above backoff_cap 30" in str(info.value)
