"""Checks of ``dealframe report`` that need the service's answer (a ``--since`` after its
latest date, a vertical no listed company has, a deal type its lists do not have) name the
option as typed, as the checks made before start-up do; for a config file's cohort, its key
and the file. From Python, ``build_report`` keeps naming its own argument. Against the session
sandbox over HTTP, configured from the environment (no ``--sandbox``: nothing is known before
the service answers)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("matplotlib")

import dealframe
from dealframe.cli import main
from dealframe.errors import ValidationError
from dealframe.report import build_report
from dealframe.report.cli import EXIT_USAGE

REGION = "North America"


@pytest.fixture
def service(sandbox, monkeypatch):
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    return sandbox


def _error(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "error" in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--since", "2030-01-01"],
            "invalid --since: expected a date not after the service's latest date",
        ),
        (["--vertical", "Fintec"], "invalid --vertical: expected a vertical of the service's"),
        (["--region", REGION, "--deal-type", "Crowdfunding"], "invalid --deal-type: expected "),
    ],
)
def test_a_value_the_service_refuses_names_the_option(service, tmp_path, capsys, args, said):
    code = main(["report", "--out", str(tmp_path / "r"), "--quiet", *args])
    error = _error(capsys)
    assert code == EXIT_USAGE
    assert error.startswith(f"dealframe report: error: {said}"), error
    assert args[-1] in error  # the value given
    assert not (tmp_path / "r").exists()


def test_a_config_files_cohort_names_its_key_and_the_file(service, tmp_path, capsys):
    config = tmp_path / "nightly.toml"
    config.write_text(
        f'out = "{tmp_path / "reports"}"\n[[cohort]]\nregion = "{REGION}"\nsince = "2030-01-01"\n'
        '[[cohort]]\nname = "fin"\nvertical = "Fintec"\n'
    )
    code = main(["report", "--config", str(config), "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert f"invalid since (of {config}): expected a date not after" in lines[0]
    assert f"cohort fin: invalid vertical (of {config}): " in lines[1]
    assert "did you mean 'Fintech'" in lines[1]
    assert "--since" not in err and "--vertical" not in err


def test_the_python_api_names_its_own_argument(sandbox, tmp_path):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        with pytest.raises(ValidationError) as caught:
            build_report(client, tmp_path / "r", cohort={"region": REGION, "since": "2030-01-01"})
    assert caught.value.argument == "since"
    assert str(caught.value).startswith("invalid since: expected a date not after")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--deal-type", "Foo"],
            "invalid --deal-type: expected values from Early, Growth, M&A, Public listing, "
            "Secondary, Venture, got 'Foo'",
        ),
        (
            ["--region", REGION, "--deal-type", "Venture", "--deal-type", "Seed"],
            "invalid --deal-type: expected values from Early, Growth, M&A, Public listing, "
            "Secondary, Venture, got 'Seed'",
        ),
        (["--vertical", "Fintec"], "invalid --vertical: expected a vertical of the service's"),
        (["--vertical", "Foo"], "invalid --vertical: expected a vertical of the service's"),
    ],
)
def test_with_sandbox_a_value_it_lacks_is_refused_in_the_services_words(
    service, tmp_path, capsys, args, said
):
    """With ``--sandbox`` the sandbox's lists refuse a deal type or vertical before it starts;
    the line is the one the service's check gives once it answers (for a deal type the
    client's filter check, ``expected values from ...``), not words of its own."""
    code = main(["report", "--out", str(tmp_path / "service"), "--quiet", *args])
    against_service = _error(capsys)
    assert code == EXIT_USAGE
    assert said in against_service, against_service
    code = main(["report", "--sandbox", "--scale", "0.1", "--out", str(tmp_path / "s"), *args])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert "starting the embedded sandbox" not in err  # refused before it starts
    lines = [line for line in err.splitlines() if "error" in line]
    assert lines == [against_service], err
