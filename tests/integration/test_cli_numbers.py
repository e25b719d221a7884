"""Every numeric option of every command reads a number one way (``dealframe.cli_options``):
a whole number is ASCII digits, a decimal one a finite decimal. What Python's ``int()`` or
``float()`` alone would also take (``1_000``, other scripts' digits, ``nan``, ``inf``) is a
usage error naming the option, exit status 2, before anything starts.

``doctor --max-requests`` and ``report --top`` were read by ``int()``: ``1_000`` ran a
doctor of 1000 requests; decimal options took ``1_0`` as ten.
"""

from __future__ import annotations

import pytest
from _cli import run

#: (the command before the option, the option, integer?) for every numeric option.
OPTIONS = [
    (["doctor"], "--max-requests", True),
    (["report", "--sandbox", "--out", "o"], "--top", True),
    (["pull", "deals", "-o", "d.csv"], "--limit", True),
    (["pull", "deals", "-o", "d.csv"], "--seed", True),
    (["pull", "deals", "-o", "d.csv"], "--scale", False),
    (["mirror", "sync", "m"], "--overlap", False),
    (["mirror", "sync", "m"], "--lock-timeout", False),
    (["mirror", "sync", "m"], "--seed", True),
    (["mirror", "compact", "m"], "--keep-versions", True),
    (["mirror", "compact", "m"], "--retain-hours", False),
    (["mirror", "compact", "m"], "--lock-timeout", False),
    (["mirror", "snapshot-public", "m"], "--ev-above", False),
    (["mirror", "snapshot-public", "m"], "--lock-timeout", False),
    (["sandbox", "serve"], "--port", True),
    (["sandbox", "serve"], "--seed", True),
    (["sandbox", "serve"], "--scale", False),
    (["sandbox", "serve"], "--rate-limit", False),
    (["sandbox", "serve"], "--latency-ms", False),
    (["sandbox", "serve"], "--fault-rate", False),
    (["sandbox", "serve"], "--fault-retry-after", False),
    (["sandbox", "serve"], "--fault-slow-seconds", False),
]

#: Spellings no integer option takes; a decimal option takes none of the second list.
NOT_WHOLE = ["1_000", "1_0", "0x10", "nan", "inf", "1e3", "5.0", "\u0665"]
NOT_DECIMAL = ["1_0", "nan", "inf", "-inf", "Infinity", "0x10", "\u0665"]


def _cases() -> list[tuple[list[str], str, str]]:
    return [
        (before, option, value)
        for before, option, whole in OPTIONS
        for value in (NOT_WHOLE if whole else NOT_DECIMAL)
    ]


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    return lambda argv: run(argv, capsys)


@pytest.mark.parametrize(("before", "option", "value"), _cases())
def test_a_number_python_alone_would_read_is_refused_naming_the_option(
    cli, tmp_path, before, option, value
):
    # on code that takes the value, ``sandbox serve`` is stopped by the bad --host after it
    # (and says --host), rather than serving in the foreground
    after = ["--host=not a host"] if before[0] == "sandbox" else []
    status, err = cli([*before, f"{option}={value}", *after])
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"error: argument {option}: {value!r} is not " in lines[0], lines[0]
    assert not (tmp_path / "m").exists() and not (tmp_path / "o").exists()


@pytest.mark.parametrize("value", ["0", "1_000", "+0"])
def test_doctor_max_requests_says_what_every_whole_number_option_says(cli, sandbox, value):
    """Same wording and exit status as ``pull --limit`` (it was its own, after parsing)."""
    status, err = cli(
        ["doctor", "--base-url", sandbox.url, "--public-token", "t", "--max-requests", value]
    )
    _, limit_err = cli(["pull", "deals", "-o", "d.csv", "--limit", value])
    assert status == 2
    assert err.strip() == (
        f"dealframe doctor: error: argument --max-requests: {value!r} is not a whole number "
        "of 1 or more (see dealframe doctor --help)"
    )
    assert err.split("--max-requests")[1] == limit_err.split("--limit")[1].replace(
        "pull deals", "doctor"
    )


@pytest.mark.parametrize("value", ["+5", " 5 ", "5"])
def test_a_plain_whole_number_is_taken_by_every_integer_option(cli, value):
    """The spellings kept: ASCII digits, an optional '+', spaces around (as before)."""
    from dealframe.cli import _parser

    assert _parser().parse_args(["doctor", "--max-requests", value]).max_requests == 5
    assert _parser().parse_args(["report", "--top", value]).top == 5


@pytest.mark.parametrize("value", ["1_000", "nan", "inf", "\u0665", "0x10"])
def test_a_pull_number_filter_reads_numbers_as_the_options_do(cli, value):
    status, err = cli(
        ["pull", "deals", "--sandbox", "--valuation-min", value, "-o", "d.csv", "--quiet"]
    )
    assert status == 2, err
    assert err.strip() == (
        f"dealframe pull: error: invalid --valuation-min: expected a number, got {value!r}"
    ), err
    assert "starting" not in err


def test_a_sign_is_read_and_the_range_decides(cli):
    """``-0`` is 0 (a seed of 0 or more takes it); a negative number is refused by its range,
    saying the range; a negative port is no port."""
    from dealframe.cli import _parser

    assert _parser().parse_args(["sandbox", "serve", "--seed", "-0"]).seed == 0
    status, err = cli(["sandbox", "serve", "--seed", "-3", "--host=not a host"])
    assert status == 2 and "'-3' is not a whole number of 0 or more" in err, err
    status, err = cli(["sandbox", "serve", "--port=-1", "--host=not a host"])
    assert status == 2 and "'-1' is not a port from 0 to 65535" in err, err


@pytest.mark.parametrize(("text", "sent"), [("-5", -5), ("-0", 0), ("5", 5), ("-2.5", -2.5)])
def test_a_pull_number_filter_keeps_a_whole_number_whole_whatever_its_sign(text, sent):
    """``--ev-revenue-min -5`` is sent as ``-5`` as ``5`` is sent as ``5`` (not ``-5.0``)."""
    from dealframe.pull.flags import _number

    got = _number(text, "--ev-revenue-min")
    assert got == sent and type(got) is type(sent)
