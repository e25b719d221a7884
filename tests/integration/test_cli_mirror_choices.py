"""``dealframe mirror``'s choice-valued options word a typo as the Python API and ``dealframe
report`` do (``invalid --region: expected one of ... (did you mean ...), got '...'``, the
``EnumValueError`` wording), exit status 2, before a sandbox starts or PATH is made. The
mirror used to say it its own way (``argument --region: 'x' is not a region ...``)."""

from __future__ import annotations

import pytest

from dealframe._vocab import REGIONS
from dealframe.cli import main

TYPO = "Westren Europe"
EXPECTED = f"expected one of {', '.join(REGIONS)} (did you mean 'Western Europe'?), got {TYPO!r}"


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """(exit status, the one error line without its prefix)."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    line = capsys.readouterr().err.strip().splitlines()[-1]
    return int(code or 0), line.split(": error: ", 1)[1]


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
