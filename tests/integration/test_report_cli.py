"""``dealframe report`` from the shell: cohort options, a TOML file of cohorts, one-line errors
found before anything starts, and exit codes a scheduler can act on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

import dealframe.report.pages as pages
from dealframe.cli import main
from dealframe.report.cli import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE

sys.path.insert(0, str(Path(__file__).parent))

from _report_builds import undrawn

REGION = "North America"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    return {**env, "DEALFRAME_CACHE": "off", **extra}


def _service_env(sandbox) -> dict[str, str]:
    return _env(
        DEALFRAME_BASE_URL=sandbox.url,
        DEALFRAME_PUBLIC_TOKEN=sandbox.public_token,
        DEALFRAME_PRIVATE_KEY=sandbox.private_key,
    )


def _use_env(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """This process's environment as ``env`` has it for dealframe (for ``main()`` in-process)."""
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        if key.startswith("DEALFRAME_"):
            monkeypatch.setenv(key, value)


def _one_error_line(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if "error" in line]
    assert len(errors) == 1, stderr
    assert "Traceback" not in stderr
    return errors[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--region", "Westren Europe"], "did you mean 'Western Europe'"),
        (["--region", REGION, "--deal-type", "Ventrue"], "did you mean 'Venture'"),
        (["--region", REGION, "--since", "2024-31-01"], "invalid --since"),
        (["--region", REGION, "--metric", "ev_revnue"], "did you mean 'ev_revenue'"),
        (["--region", REGION, "--top", "0"], "--top"),
        (["--region", REGION, "--top", "many"], "'many' is not a whole number from 1 to 100"),
        (["--region", REGION, "--top", "1_0"], "argument --top: '1_0' is not a whole number"),
        (["--config", "missing.toml"], "missing.toml: no such file"),
        (["--vertical", "Fintek"], "did you mean 'Fintech'"),
        (["--region", REGION, "--deal-type", "MandA"], "values from Early, Growth, M&A"),
        # the words of the service's own checks (docs/report.md), not "a value the sandbox
        # has": for a deal type the client's filter check
        (
            ["--region", REGION, "--deal-type", "Foo"],
            "invalid --deal-type: expected values from Early, Growth, M&A, Public listing, "
            "Secondary, Venture, got 'Foo'",
        ),
        (
            ["--vertical", "Fintec"],
            "invalid --vertical: expected a vertical of the service's companies "
            "(did you mean 'Fintech'?), got 'Fintec'",
        ),
        (["--vertical", "fintech"], "did you mean 'Fintech'"),  # the sandbox matches exactly
        (["--region", ""], "invalid --region"),  # not the default cohort, silently
        (["--vertical", ""], "invalid --vertical"),
        (["--region", REGION, "--deal-type", ""], "invalid --deal-type: expected a deal type"),
        # the sandbox's latest date is known before it starts (a mistyped 2026): the words of
        # the check made once the service answers
        (
            ["--since", "2062-01-01"],
            "invalid --since: expected a date not after the service's latest date "
            "(2026-06-30), got '2062-01-01'",
        ),
    ],
)
def test_bad_options_fail_in_one_line_before_the_sandbox_starts(
    tmp_path, capsys, args, expected, sandbox_starts
):
    try:
        code = main(["report", "--sandbox", "--out", str(tmp_path / "o"), *args])
    except SystemExit as exc:  # argparse's own errors (also one line, status 2)
        code = exc.code
    captured = capsys.readouterr()
    assert code == EXIT_USAGE
    assert expected in _one_error_line(captured.err)
    assert "starting the embedded sandbox" not in captured.err
    assert sandbox_starts == []  # neither the serving layer loaded nor any data built
    assert not captured.out
    assert not (tmp_path / "o").exists()


def test_a_folder_a_failed_report_made_is_removed(sandbox, tmp_path, capsys, monkeypatch):
    _use_env(monkeypatch, _service_env(sandbox))
    kept = tmp_path / "kept"
    kept.mkdir()
    for out in (tmp_path / "new", kept):  # the service refuses the date
        code = main(["report", "--out", str(out), "--since", "2099-01-01", "--quiet"])
        assert code == EXIT_USAGE
        assert "since" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "new").exists()  # made by the run, left empty: removed
    assert kept.is_dir()  # the user's own folder stays
    # a run that fails as a whole (no service configured) takes the folders it made with it,
    # parents included
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    nested = tmp_path / "a" / "b" / "c"
    assert main(["report", "--out", str(nested), "--vertical", "Fintech"]) == EXIT_USAGE
    assert "no service configured" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "a").exists()


def test_cohort_options_build_the_report(sandbox, tmp_path, capsys, monkeypatch):
    _use_env(monkeypatch, _service_env(sandbox))
    # what is asked of the options is the report they choose (its manifest, its stage lines):
    # its charts (drawn from the frames pulled, most of a report's time) are left undrawn
    monkeypatch.setattr(pages, "_chart", undrawn)
    out = tmp_path / "na"
    code = main(
        [
            "report",
            "--out",
            str(out),
            "--region",
            REGION,
            "--deal-type",
            "Venture,Growth",
            "--since",
            "2023-01-01",
            "--metric",
            "ev_ebitda",
            "--top",
            "5",
        ]
    )
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err
    assert captured.out.strip() == str(out / "report.html")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["cohort"] == {
        "region": REGION,
        "deal_type": ["Venture", "Growth"],
        "since": "2023-01-01",
    }
    assert manifest["window"]["from"] == "2023-01-01" and manifest["metric"] == "ev_ebitda"
    assert manifest["tables"]["top_investors"]["rows"] == 5
    assert "[7/7]" in captured.err
    # the public comps have no deal type: the stage names them as the page does
    assert f"[2/7] public comps of {REGION} ...\n" in captured.err, captured.err
    assert "public comps of North America · Venture" not in captured.err


def test_a_config_file_writes_every_cohort_and_reports_the_failed_one(
    sandbox, tmp_path, capsys, monkeypatch
):
    config = tmp_path / "nightly.toml"
    config.write_text(f"""
out = "{tmp_path / "reports"}"
top = 5

[[cohort]]
name = "na-rounds"
region = "{REGION}"
deal_type = ["Venture", "Growth"]

[[cohort]]
name = "we"
region = "Western Europe"
metric = "valuation"

[[cohort]]
name = "typo"
vertical = "Fintek"
""")
    _use_env(monkeypatch, _service_env(sandbox))  # in-process: the exit status is main()'s
    # what is asked of the file is its cohorts' reports, each written where it says, and the
    # failed one said: their charts (drawn from the frames pulled, most of a report's time) are
    # left undrawn; test_report.py and test_report_threshold.py draw these cohorts' and metric's
    monkeypatch.setattr(pages, "_chart", undrawn)
    code = main(["report", "--config", str(config), "--quiet"])
    captured = capsys.readouterr()
    assert code == EXIT_PARTIAL, captured.err
    assert captured.out.split() == [
        str(tmp_path / "reports" / n / "report.html") for n in ("na-rounds", "we")
    ]
    error = _one_error_line(captured.err)
    assert error.startswith("dealframe report: error: cohort typo:")
    assert "did you mean 'Fintech'" in error
    we = json.loads((tmp_path / "reports" / "we" / "manifest.json").read_text())
    assert we["metric"] == "valuation" and we["cohort"] == {
        "name": "we",
        "region": "Western Europe",
    }


def test_a_bad_config_file_is_refused_whole_before_anything_starts(tmp_path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text('out = "r"\n[[cohort]]\nregion = "Oceania"\n[[cohort]]\nregoin = "Africa"\n')
    assert main(["report", "--config", str(config), "--sandbox"]) == EXIT_USAGE
    err = capsys.readouterr().err
    error = _one_error_line(err)
    assert "bad.toml: cohort 2" in error and "did you mean 'region'" in error
    assert "starting the embedded sandbox" not in err
    config.write_text("out = [\n")
    assert main(["report", "--config", str(config)]) == EXIT_USAGE
    assert "not valid TOML" in _one_error_line(capsys.readouterr().err)
    config.write_text('out = "r"\n')
    assert main(["report", "--config", str(config), "--region", REGION]) == EXIT_USAGE
    assert "cannot be used with --config" in _one_error_line(capsys.readouterr().err)
    config.write_text(
        'out = "r"\n[[cohort]]\nregion = "Oceania"\n[[cohort]]\nname = "fin"\nvertical = "Fintec"\n'
    )
    assert main(["report", "--config", str(config), "--sandbox"]) == EXIT_USAGE
    err = capsys.readouterr().err
    error = _one_error_line(err)  # the sandbox's vocabulary: named like the file's other errors
    assert f'{config}: cohort 2 ("fin"): invalid vertical:' in error
    assert "did you mean 'Fintech'" in error and "--vertical" not in error
    assert "starting the embedded sandbox" not in err


def test_a_config_cohorts_since_after_the_sandboxs_data_is_refused_first(
    tmp_path, capsys, sandbox_starts
):
    """A cohort's ``since`` after the sandbox's latest date, refused before it starts, named
    as the file's other errors are (its cohort and key)."""
    config = tmp_path / "nightly.toml"
    config.write_text(
        'out = "r"\n[[cohort]]\nregion = "Oceania"\n[[cohort]]\nname = "late"\n'
        'region = "Africa"\nsince = "2062-01-01"\n'
    )
    assert main(["report", "--config", str(config), "--sandbox"]) == EXIT_USAGE
    error = _one_error_line(capsys.readouterr().err)
    assert f'{config}: cohort 2 ("late"): invalid since: expected a date not after the ' in error
    assert '(2026-06-30), got "2062-01-01"' in error and "--since" not in error
    assert sandbox_starts == []


def test_unwritable_out_and_missing_service_are_usage_errors(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["report", "--sandbox", "--out", str(blocker / "sub")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert _one_error_line(err).startswith("dealframe report: error: invalid --out")
    for name in ("DEALFRAME_BASE_URL", "DEALFRAME_PUBLIC_TOKEN", "DEALFRAME_PRIVATE_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert main(["report", "--out", str(tmp_path / "o")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "DEALFRAME_BASE_URL" in _one_error_line(err) and "--sandbox" in err


def test_a_service_error_fails_in_one_line_with_status_1(sandbox, tmp_path, capsys, monkeypatch):
    # in-process, as the other runs of main() here: the exit status is main()'s (the entry
    # point's own status passing is tested in test_cli_exit_status.py)
    _use_env(
        monkeypatch,
        _env(
            DEALFRAME_BASE_URL=sandbox.url,
            DEALFRAME_PUBLIC_TOKEN="wrong",
            DEALFRAME_PRIVATE_KEY="wrong",
        ),
    )
    code = main(["report", "--out", str(tmp_path / "o")])
    stderr = capsys.readouterr().err
    assert code == EXIT_FAILED
    assert "401 INVALID_TOKEN" in _one_error_line(stderr)
    assert "wrong" not in stderr
    assert not (tmp_path / "o" / "report.html").exists()


@pytest.mark.parametrize(
    ("blocked", "extra"), [("matplotlib", "dealframe[report]"), ("uvicorn", "dealframe[sandbox]")]
)
def test_a_missing_extra_is_named(blocked, extra, tmp_path):
    script = (
        f"import sys; sys.modules[{blocked!r}] = None\n"
        "from dealframe.cli import main\n"
        f"sys.exit(main(['report', '--sandbox', '--scale', '0.02', '--out', "
        f"{str(tmp_path)!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == EXIT_USAGE
    assert extra in _one_error_line(done.stderr)


# The default report against the embedded sandbox (``report --sandbox``) runs, from the built
# wheel, in test_wheel.py.
