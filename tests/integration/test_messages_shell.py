"""Error messages as a shell or notebook user reads them: the flag the user typed (not the
Python keyword), no Python type a shell cannot pass, "expected ..., got ..." with the value,
and nothing the user cannot type or act on (an argparse destination, a client keyword).

Against the session sandbox over HTTP (the service's own discovery document decides the
``pull`` filters), or before any request where the message needs no service.
"""

from __future__ import annotations

import os

import pytest

import dealframe
from dealframe.cli import main
from dealframe.errors import ConfigurationError
from dealframe.sandbox import FaultPlan, SandboxArgumentError


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    """``dealframe ARGV`` in this process, in an empty folder, with only the given
    DEALFRAME_* variables: (status, the one ``error:`` line of standard error)."""
    monkeypatch.chdir(tmp_path)

    def go(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
        for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
            if key != "DEALFRAME_SANDBOX_CACHE":
                monkeypatch.delenv(key)
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("DEALFRAME_CACHE", "off")
        capsys.readouterr()
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse: usage errors
            status = int(exc.code or 0)
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if ": error: " in line]
        assert len(lines) == 1, err
        return status, lines[0]

    return go


@pytest.fixture
def service(sandbox) -> dict[str, str]:
    """The environment of a shell pointed at the session sandbox."""
    return {
        "DEALFRAME_BASE_URL": sandbox.url,
        "DEALFRAME_PUBLIC_TOKEN": sandbox.public_token,
        "DEALFRAME_PRIVATE_KEY": sandbox.private_key,
    }


# -- D7: pull's date and range messages name flags, and no Python type ---------------------


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (
            ["--date-from", "2020-13-01"],
            "invalid --date-from: expected a date YYYY-MM-DD, got '2020-13-01'",
        ),
        (
            ["--date-from", "2030-01-01", "--date-to", "2020-01-01"],
            "invalid --date-from: expected a date not after --date-to (2020-01-01): "
            "the range would match no row, got '2030-01-01'",
        ),
        (
            ["--valuation-min", "9", "--valuation-max", "1"],
            "invalid --valuation-min: expected a number not above --valuation-max (1): "
            "the range would match no row, got 9",
        ),
        (["--updated-at", "yesterday"], "invalid --updated-at: expected an ISO 8601 timestamp"),
        (
            ["--deal-type", ""],
            "invalid --deal-type: expected at least one value (leave the flag out for no "
            "constraint), got ''",
        ),
    ],
)
def test_pull_filter_messages_speak_flags(run, service, flags, says):
    status, line = run(["pull", "deals", *flags, "-o", "d.csv"], service)
    assert status == 2
    assert line == f"dealframe pull: error: {says}" or (
        says.endswith("timestamp") and line.startswith(f"dealframe pull: error: {says}, got")
    ), line
    assert "pandas" not in line and "datetime" not in line and "None" not in line


def test_pull_limit_that_is_not_a_number_says_so_as_every_numeric_option(run, service):
    status, line = run(["pull", "deals", "--limit", "abc", "-o", "d.csv"], service)
    assert status == 2
    assert "'abc' is not a whole number of 1 or more" in line, line


# -- D8: pull alone names what to type, not an argparse destination -----------------------


def test_pull_without_arguments_names_entity_and_output(run):
    status, line = run(["pull"])
    assert status == 2
    assert line == (
        "dealframe pull: error: the following arguments are required: ENTITY, -o/--output "
        "(see dealframe pull --help)"
    )


# -- D9: doctor --max-requests 0 is a usage error naming the flag -------------------------


@pytest.mark.parametrize("token", ["a", "pubtok123"])
def test_doctor_max_requests_names_the_flag(run, sandbox, token):
    status, line = run(
        [
            "doctor",
            "--base-url",
            sandbox.url,
            "--public-token",
            token,
            "--private-key",
            sandbox.private_key,
            "--max-requests",
            "0",
        ]
    )
    assert status == 2
    assert line == (  # as every whole-number option says it (pull --limit ...)
        "dealframe doctor: error: argument --max-requests: '0' is not a whole number of 1 or "
        "more (see dealframe doctor --help)"
    )


# -- D12: a fault plan's path pattern that does not compile -------------------------------


def test_fault_plan_paths_not_a_regex_is_a_sandbox_argument_error():
    with pytest.raises(SandboxArgumentError) as caught:
        FaultPlan(paths="[")
    assert str(caught.value) == (
        "invalid paths: expected a regular expression matched against request paths "
        "(unterminated character set at position 0), got '['"
    )
    with pytest.raises(SandboxArgumentError, match=r"^invalid pattern: expected a regular"):
        FaultPlan().script("(", ["503"])


def test_sandbox_run_with_a_bad_fault_pattern_is_refused_before_it_starts():
    with pytest.raises(SandboxArgumentError, match="invalid paths"):
        dealframe.sandbox.run(scale=0.02, faults=FaultPlan(paths="*x"))


# -- D15: settings messages: expected ..., got the value; the CLI names the variable ------


def test_a_timeout_given_as_text_shows_the_value(sandbox):
    with pytest.raises(ConfigurationError) as caught:
        dealframe.Client(sandbox.url, read_timeout="10")
    assert str(caught.value) == "read_timeout must be a number of seconds, got '10'"


def test_a_cache_variable_out_of_its_words_shows_the_value(monkeypatch):
    monkeypatch.setenv("DEALFRAME_CACHE", "maybe")
    with pytest.raises(ConfigurationError) as caught:
        dealframe.Settings.from_env()
    assert str(caught.value) == (
        "DEALFRAME_CACHE must be one of 0, 1, on, off, true, false, got 'maybe'"
    )


def test_pull_without_the_private_key_names_the_variable_not_a_keyword(run, service):
    env = {k: v for k, v in service.items() if k != "DEALFRAME_PRIVATE_KEY"}
    status, line = run(["pull", "deals", "-o", "d.csv"], env)
    assert status == 2
    assert line == (
        "dealframe pull: error: no private key configured: set DEALFRAME_PRIVATE_KEY, "
        "or pass --sandbox"
    )


# -- D17: an unknown pull flag with no close match -----------------------------------------


def test_pull_unknown_flag_lists_the_filters_of_the_entity_typed(run, service):
    status, line = run(["pull", "deals", "--profile", "limit100", "-o", "d.csv"], service)
    assert status == 2
    assert line.startswith(
        "dealframe pull: error: invalid --profile: expected a filter of deals "
        "(filters: --id, --target-id, "
    ), line
    assert "( filters" not in line and "transactions" not in line


def test_counts_beyond_64_bits_are_refused_naming_the_flag(run, sandbox):
    """A number the library's counts cannot take names the option and the bound, before
    anything runs (it named the Python argument, ``limit``, after the sandbox had started)."""
    huge = str(2**64)
    status, line = run(["pull", "deals", "--sandbox", "--limit", huge, "-o", "x.csv"])
    assert status == 2 and "argument --limit:" in line and "9223372036854775807" in line, line
    status, line = run(
        ["doctor", "--base-url", sandbox.url, "--public-token", "t", "--max-requests", huge]
    )
    assert status == 2 and "argument --max-requests:" in line and "at most" in line, line
