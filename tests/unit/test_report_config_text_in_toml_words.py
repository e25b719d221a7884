"""Text of a config file is said in its messages as TOML writes it (a basic string, double
quotes and TOML's escapes), as :func:`~dealframe.report.config.toml_words` says it, not in
Python's ``repr``.

``region = "x\\"y"`` was said ``got 'x"y'``, ``region = "We\\"s'te\\\\x"`` ``got
'We"s\\'te\\\\x'`` (which, read as TOML, is another text) and a control character
``got '\\x07'``, while ``cohort = "x\\"y"`` was said ``got a TOML string "x\\"y"``: two
styles in one file's messages. Every text is now said as TOML writes it, so what a message
says can be pasted back into the file.
"""

from __future__ import annotations

import tomllib

import pytest

from dealframe.report.config import ConfigError, parse_config


def _got(document: dict[str, object]) -> str:
    """What the message of ``document`` (refused) says it got, after ``got ``."""
    with pytest.raises(ConfigError) as raised:
        parse_config(document, "x.toml")
    return str(raised.value).rpartition(", got ")[2]


@pytest.mark.parametrize(
    "text",
    ['x"y', "We\"s'te\\x", "\x07", "tab\there", "line\nbreak", "del\x7f", "Océanie"],
    ids=["quote", "quotes-and-backslash", "bell", "tab", "newline", "delete", "accent"],
)
@pytest.mark.parametrize(
    ("key", "document"),
    [
        ("region", lambda text: {"out": "r", "cohort": [{"region": text}]}),
        ("metric", lambda text: {"out": "r", "metric": text, "cohort": [{"region": "Oceania"}]}),
        ("since", lambda text: {"out": "r", "cohort": [{"region": "Oceania", "since": text}]}),
        ("top", lambda text: {"out": "r", "top": text, "cohort": [{"region": "Oceania"}]}),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_text_is_said_as_toml_writes_it(key, document, text):
    got = _got(document(text))
    assert got.startswith('"') and got.endswith('"'), got
    assert tomllib.loads(f"v = {got}")["v"] == text, got


def test_text_is_said_alike_wherever_it_is():
    cohort = _got({"out": "r", "cohort": 'x"y'})
    region = _got({"out": "r", "cohort": [{"region": 'x"y'}]})
    assert cohort == 'a TOML string "x\\"y"'
    assert region == '"x\\"y"'


def test_an_unknown_key_of_a_cohort_is_said_as_toml_writes_it():
    got = _got({"out": "r", "cohort": [{"region": "Oceania", 'reg"ion': 1}]})
    assert got == '"reg\\"ion"', got


def test_long_text_is_cut_as_toml_writes_it():
    got = _got({"out": "r", "cohort": [{"region": 'x"' * 100}]})
    assert got == ('"' + 'x\\"' * 40)[:80] + "...", got


@pytest.mark.parametrize("text", ["del\x7f", "\x07", 'x"y', "a\\b", "Océanie"])
def test_toml_words_says_text_toml_reads_back(text):
    from dealframe.report.config import toml_words

    said = toml_words(text).removeprefix("a TOML string ")
    assert tomllib.loads(f"v = {said}")["v"] == text, said
