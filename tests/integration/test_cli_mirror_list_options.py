"""``dealframe mirror snapshot-public``'s list options (``--country``, ``--region``, ``--sku``,
``--industry``, ``--theme``) before PATH, as users write options for every other command.

They used to be ``nargs="+"``: ``--country DEU PATH`` read PATH as a second country and was
refused as one (``got 'PATH'``), ``--industry Software PATH`` said only that PATH was
missing. Now the words after a list option are its values while they look like one (codes,
regions, SKUs), so PATH may come first or last; free text (``--industry``, ``--theme``) takes
every word, and a missing PATH says which option took which word and to give PATH first.
Each case runs against the sandbox over HTTP (``--sandbox``) or is refused before it starts."""

from __future__ import annotations

import pytest
from _cli import run

from dealframe import mirror


@pytest.mark.parametrize(
    "options",
    [
        ["--country", "DEU"],
        ["--country", "GBR", "DEU"],
        ["--region", "Western Europe", "Northern Europe"],
        ["--sku", "MAXU-GBR", "ZUFY-DEU"],  # two of the three above at this scale
    ],
)
def test_a_list_option_before_path_leaves_path_to_the_command(
    options, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    before, err = run(
        ["mirror", "snapshot-public", *options, "m1", "--sandbox", "--scale", "0.02"], capsys
    )
    after, err_after = run(
        ["mirror", "snapshot-public", "m2", *options, "--sandbox", "--scale", "0.02"], capsys
    )
    assert (before, after) == (0, 0), (err, err_after)
    first = mirror.load_public("m1", "current")  # the same universe, whichever the order
    second = mirror.load_public("m2", "current")
    assert len(first) > 0
    assert sorted(first["sku"]) == sorted(second["sku"])
    if options[0] == "--sku":
        assert sorted(first["sku"]) == sorted(options[1:])


@pytest.mark.parametrize("option", ["--industry", "--theme"])
def test_free_text_before_path_says_what_took_path(option, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = run(
        ["mirror", "snapshot-public", option, "Fintech", "Software", "m", "--sandbox"], capsys
    )
    assert code == 2
    line = err.strip().splitlines()[-1]
    assert (
        "the following arguments are required: PATH "
        f"({option} took 'm' as one of its values: give PATH before {option})"
    ) in line, line
    assert not list(tmp_path.iterdir())  # before the sandbox starts, nothing made


def test_free_text_after_path_takes_every_word(capsys, tmp_path, monkeypatch):
    """PATH first: ``--industry A B`` is two industries (and a comma list is split)."""
    from dealframe.cli_options import Parser, Several

    parser = Parser(prog="x")
    parser.add_argument("path")
    parser.add_argument("--industry", action=Several)
    args = parser.parse_args(["m", "--industry", "Fintech", "Health care,AI"])
    assert (args.path, args.industry) == ("m", ["Fintech", "Health care", "AI"])


def test_a_path_that_could_be_a_value_is_not_guessed(capsys, tmp_path, monkeypatch):
    """``my_mirror`` is a v1 SKU by its layout: taken as one, PATH is then missing, said so;
    ``./my_mirror`` (a ``/``) is PATH."""
    monkeypatch.chdir(tmp_path)
    code, err = run(["mirror", "snapshot-public", "--sku", "CELZ-GBR", "my_mirror"], capsys)
    assert code == 2
    assert "(--sku took 'my_mirror' as one of its values: give PATH before --sku)" in err
    code, err = run(
        ["mirror", "snapshot-public", "--sku", "CELZ-GBR", "./my_mirror", "--country", "x"],
        capsys,
    )
    assert code == 2 and "invalid --country" in err and "PATH" not in err, err


@pytest.mark.parametrize(
    "words",
    [["--country", "DEU", "out"], ["--country", "DEU", "OUT"], ["--country", "GBR,DEU", "mir"]],
)
def test_a_path_refused_as_a_value_says_where_path_goes(words, capsys, tmp_path, monkeypatch):
    """PATH taken as one more value (two or three letters read as a country code) and
    refused as one: the refusal says which option took it and to give PATH before it, before
    the sandbox starts."""
    monkeypatch.chdir(tmp_path)
    code, err = run(["mirror", "snapshot-public", *words, "--sandbox"], capsys)
    assert code == 2
    line = err.strip().splitlines()[-1]
    option, word = words[0], words[-1]
    assert (
        f"({option} took {word!r} as one of its values: if it is PATH, give it before {option})"
    ) in line, line
    assert not list(tmp_path.iterdir())


def test_a_typo_of_a_value_gets_no_path_hint(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = run(["mirror", "sync", "--entities", "deals", "compnies", "m"], capsys)
    assert code == 2
    assert "did you mean 'companies'?" in err and "if it is PATH" not in err, err


def test_an_accepted_value_quoted_by_the_refusal_gets_no_path_hint(capsys, tmp_path, monkeypatch):
    """``--country XXA USA ./m``: XXA is refused, and the refusal quotes 'USA' as its example
    code; USA, a value taken and accepted, is not said to be PATH."""
    monkeypatch.chdir(tmp_path)
    code, err = run(
        ["mirror", "snapshot-public", "--country", "XXA", "USA", "./m", "--sandbox"], capsys
    )
    assert code == 2
    assert "got 'XXA'" in err and "took 'USA'" not in err and "if it is PATH" not in err, err
