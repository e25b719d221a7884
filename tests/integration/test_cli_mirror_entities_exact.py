"""``dealframe mirror sync --entities`` refuses what ``mirror.sync(entities=...)`` refuses: a
name in another case (``Deals``) and an empty name (``companies,,deals``), with did-you-mean,
exit status 2, one line, before a sandbox starts (issue 16's audit: the command took them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealframe.cli import main


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (
            ["Deals"],
            "expected one of companies, investors, deals (did you mean 'deals'?), got 'Deals'",
        ),
        (["companies,,deals"], "expected one of companies, investors, deals, got ''"),
        (["companies,Investors"], "(did you mean 'investors'?), got 'Investors'"),
        (["deals,"], "expected one of companies, investors, deals, got ''"),
        (["COMPANIES", "deals"], "(did you mean 'companies'?), got 'COMPANIES'"),
    ],
)
def test_sync_refuses_entities_python_refuses(
    given: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m"
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(["mirror", "sync", str(path), "--entities", *given, "--sandbox", "--no-progress"])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("dealframe mirror sync: error: invalid --entities: "), err
    assert said in err, err
    assert not path.exists()


def test_compact_refuses_a_table_in_another_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(["mirror", "compact", str(tmp_path), "--entities", "Deals"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "(did you mean 'deals'?), got 'Deals'" in err, err
