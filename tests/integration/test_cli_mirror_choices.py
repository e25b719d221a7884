"""``dealframe mirror``'s choice-valued options word a typo as the Python API and ``dealframe
report`` do (``invalid --region: expected one of ... (did you mean ...), got '...'``, the
``EnumValueError`` wording), exit status 2, before a sandbox starts or PATH is made. The
mirror used to say it its own way (``argument --region: 'x' is not a region ...``). Only such
a refusal is so worded: an option given without its value keeps argparse's words
(``argument -o/--output: expected one argument``), in every command."""

from __future__ import annotations

import argparse

import pytest
from _cli import run

from dealframe._vocab import REGIONS
from dealframe.cli_options import Parser, choice

TYPO = "Westren Europe"
EXPECTED = f"expected one of {', '.join(REGIONS)} (did you mean 'Western Europe'?), got {TYPO!r}"


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """(exit status, the one error line without its prefix)."""
    code, err = run(argv, capsys)
    return code, err.strip().splitlines()[-1].split(": error: ", 1)[1]


def test_a_region_typo_is_worded_as_report_words_it(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, said = _error(
        ["mirror", "snapshot-public", "m", "--sandbox", "--region", "Oceania", TYPO], capsys
    )
    assert code == 2
    assert said.startswith(f"invalid --region: {EXPECTED}"), said
    report_code, report_said = _error(
        ["report", "--sandbox", "--out", "r", "--region", TYPO], capsys
    )
    assert report_code == 2
    assert said.startswith(report_said), (said, report_said)  # mirror adds "(see ... --help)"
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv, option, listed, typo, closest",
    [
        (["sync", "m", "--sandbox", "--entities"], "--entities", "companies, investors, deals",
         "deal", "deals"),
        (["history", "m", "--entity"], "--entity",
         "companies, investors, deals, public/current, public/time_series", "dels", "deals"),
        (["compact", "m", "--entities"], "--entities",
         "companies, investors, deals, public/current, public/time_series", "public/curent",
         "public/current"),
    ],
)  # fmt: skip
def test_the_other_choice_options_are_worded_alike(
    argv, option, listed, typo, closest, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    code, said = _error(["mirror", *argv, typo], capsys)
    assert code == 2
    assert said.startswith(
        f"invalid {option}: expected one of {listed} (did you mean {closest!r}?), got {typo!r}"
    ), said
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv, said",
    [
        (["pull", "deals", "--output"], "argument -o/--output: expected one argument"),
        (["doctor", "--max-requests"], "argument --max-requests: expected one argument"),
        (["mirror", "sync", "m", "--lock-timeout"], "argument --lock-timeout: expected one argument"),
        (["mirror", "sync", "m", "--entities"], "argument --entities: expected one argument"),
        (["mirror", "history", "m", "--entity"], "argument --entity: expected one argument"),
        (["mirror", "snapshot-public", "m", "--region"],
         "argument --region: expected one argument"),
    ],
)  # fmt: skip
def test_an_option_without_its_value_is_said_as_argparse_says_it(
    argv, said, capsys, tmp_path, monkeypatch
):
    """A missing value is no refused value: argparse's own words, naming the option as it
    does (``-o/--output``), not ``invalid -o: expected one argument``."""
    monkeypatch.chdir(tmp_path)
    code, line = _error(argv, capsys)
    assert code == 2
    assert line.startswith(f"{said} (see dealframe "), line
    assert not list(tmp_path.iterdir())


def test_only_a_refusal_marked_as_the_api_words_it_is_reworded(capsys):
    """``invalid --x: ...`` is for a refusal made with ``as_api`` (an ``ApiWorded``), not for
    any message that happens to begin with ``expected``."""

    def plain(value: str) -> str:
        raise argparse.ArgumentTypeError(f"expected a plain thing, got {value!r}")

    parser = Parser(prog="dealframe x")
    parser.add_argument("-p", "--plain", type=plain)
    parser.add_argument("-k", "--kind", type=choice("deals", "companies", as_api=True))
    for argv, said in [
        (["-p", "y"], "argument -p/--plain: expected a plain thing, got 'y'"),
        (["-k", "deal"], "invalid --kind: expected one of deals, companies (did you mean"),
        (["--kind"], "argument -k/--kind: expected one argument"),
    ]:
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        line = capsys.readouterr().err.strip()
        assert line.startswith(f"dealframe x: error: {said}"), line


def test_countries_are_taken_comma_separated_as_pull_takes_them(capsys, tmp_path, monkeypatch):
    """``mirror snapshot-public --country DEU,FRA`` used to be refused (``got 'DEU,FRA'``,
    no hint) where ``dealframe pull`` takes commas: the codes are taken, each checked (a
    ``GER`` among them still refused with the code meant), and the snapshot holds both."""
    from dealframe import mirror

    monkeypatch.chdir(tmp_path)
    code, err = run(
        ["mirror", "snapshot-public", "m", "--sandbox", "--country", "DEU,FRA", "--country", "GBR"],
        capsys,
    )
    assert code == 0, err
    current = mirror.load_public(tmp_path / "m", "current")
    assert set(current["countryCodeIso3"]) == {"DEU", "FRA", "GBR"}, set(current["countryCodeIso3"])
    code, said = _error(
        ["mirror", "snapshot-public", "n", "--sandbox", "--country", "DEU,GER"], capsys
    )
    assert code == 2
    assert said.startswith("invalid --country: ") and "(did you mean 'DEU', Germany?" in said, said
    assert "got 'GER'" in said and not (tmp_path / "n").exists()
