"""What the command line says to a user who gets it wrong, and that its help is true.

- An unknown option before the sub-command (``dealframe --verison``) is named, with
  did-you-mean, rather than "required: COMMAND" or silence.
- ``sandbox serve --host`` is checked by its syntax before anything starts (exit 2).
- ``mirror sync --entities companies PATH`` leaves PATH to the command.
- ``dealframe pull ENTITY --help`` lists the options of that entity only, and its example runs.
- ``dealframe report`` errors name the flag (``--metric``, ``--out``).
- An option of one value given twice (``--region A --region B``) is refused, naming it,
  before anything starts: argparse alone keeps the last value without a word.
- The insecure-URL error says what a shell user can do, and that advice works.
"""

from __future__ import annotations

import os
import re
import shlex

import pytest

from dealframe.cli import main
from dealframe.pull.entities import ENTITIES


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    """``dealframe ARGV`` in this process, in an empty folder holding one file ``afile``,
    with only the given DEALFRAME_* variables: (status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder")

    def go(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
        for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
            if key != "DEALFRAME_SANDBOX_CACHE":
                monkeypatch.delenv(key)
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("DEALFRAME_CACHE", "off")
        capsys.readouterr()
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse: usage errors and --help
            status = int(exc.code or 0)
        out, err = capsys.readouterr()
        return status, out, err

    return go


@pytest.fixture
def service(sandbox) -> dict[str, str]:
    """The environment of a shell pointed at the session sandbox (a loopback URL)."""
    return {
        "DEALFRAME_BASE_URL": sandbox.url,
        "DEALFRAME_PUBLIC_TOKEN": sandbox.public_token,
        "DEALFRAME_PRIVATE_KEY": sandbox.private_key,
    }


def _error(err: str, prefix: str) -> str:
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prefix}: error: "), err
    assert "Traceback" not in err
    return lines[0]


# -- unknown options before the sub-command -------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "prefix", "says"),
    [
        (["--verison"], "dealframe", "--verison (did you mean '--version'?)"),
        (["--versoin"], "dealframe", "--versoin (did you mean '--version'?)"),
        (["-V"], "dealframe", "-V (did you mean '--version'?)"),
        (["--verison", "sandbox"], "dealframe", "--verison (did you mean '--version'?)"),
        (["--verison", "mirror", "status", "m"], "dealframe", "--verison"),
        # an option of another command (or a slip of one) is named too: it was "1 value no
        # option takes", the option left out
        (["sandbox", "--verison", "serve"], "dealframe sandbox", "--verison (did you mean"),
        (["report", "--sandbox", "-x"], "dealframe report", "-x"),
        (
            ["report", "--sandbox", "--no-progres"],
            "dealframe report",
            "--no-progres (did you mean '--no-progress'?)",
        ),
        (["pull", "--sandbox", "deals", "-o", "x.csv"], "dealframe pull", "--sandbox"),
    ],
)
def test_an_unknown_option_before_the_command_is_named(run, tmp_path, argv, prefix, says):
    status, out, err = run(argv)
    assert status == 2 and out == ""
    line = _error(err, prefix)
    assert f"unrecognized arguments: {says}" in line
    assert "required" not in line  # not "the following arguments are required: COMMAND"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize(
    ("argv", "prefix", "says"),
    [
        (
            ["doctor", "--public-tokn=SECRETAAA111"],
            "dealframe doctor",
            "--public-tokn (did you mean '--public-token'?)",
        ),
        (
            ["doctor", "--public-token", "A", "SECRETBBB222"],
            "dealframe doctor",
            "1 argument not quoted",
        ),
        (["doctor", "--xyz=SECRETCCC333"], "dealframe doctor", "1 argument not quoted"),
        (["--xyz=SECRETCCC333", "doctor"], "dealframe", "1 argument not quoted"),
        # a token may begin with '-': only a known option or a close slip of one is named
        (
            ["doctor", "--public-tokn", "-SECRETDDD444"],
            "dealframe doctor",
            "--public-tokn (did you mean '--public-token'?); 1 argument not quoted",
        ),
        (["doctor", "-pSECRETEEE555"], "dealframe doctor", "1 argument not quoted"),
        (["doctor", "--jsonSECRETFFF666"], "dealframe doctor", "1 argument not quoted"),
        (["-SECRETGGG777", "doctor"], "dealframe", "1 argument not quoted"),
        (["doctor", "--jsno"], "dealframe doctor", "--jsno (did you mean '--json'?)"),
    ],
)
def test_an_unrecognized_argument_is_named_without_its_value(run, argv, prefix, says):
    """A value is never quoted back: it may be a token (a misspelt ``--public-token=...``, or
    a token given after one, which may begin with ``-``), and usage errors land in scheduler
    logs. Only a known option, or a close misspelling of one, is named."""
    status, out, err = run(argv)
    assert status == 2 and out == ""
    line = _error(err, prefix)
    assert f"unrecognized arguments: {says}" in line
    assert "SECRET" not in err, err


def test_the_options_before_the_command_still_work(run):
    assert run(["--version"])[0] == 0
    assert run(["--vers"])[0] == 0  # argparse's unique prefix
    status, out, _ = run(["--help"])
    assert status == 0 and "2 bad usage" in " ".join(out.split())


# -- sandbox serve --host ---------------------------------------------------------------------


@pytest.mark.parametrize("host", ["not a host", "bad_host", "999.1.1.1", "[::1]", "-", ""])
def test_a_malformed_host_is_bad_usage(run, host):
    status, out, err = run(["sandbox", "serve", "--host", host, "--port", "0"])
    assert status == 2 and "export" not in out  # nothing served
    assert f"{host!r} is not a host" in _error(err, "dealframe sandbox serve")


def test_a_host_name_that_does_not_resolve_says_so(run):
    status, out, err = run(["sandbox", "serve", "--host", "no-such-host.invalid", "--port", "0"])
    assert status in (1, 2) and "export" not in out  # 2 unknown name; 1 no name server
    line = _error(err, "dealframe sandbox serve")
    assert "--host: cannot resolve the host name 'no-such-host.invalid'" in line


# -- mirror --entities ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entities", "tables"),
    [
        (["companies"], ["companies"]),
        (["companies", "investors"], ["companies", "investors"]),
        (["companies,deals"], ["companies", "deals"]),
    ],
)
def test_entities_before_the_mirror_path(run, service, tmp_path, entities, tables):
    argv = ["mirror", "sync", "--entities", *entities, "m", "--no-progress"]
    status, out, err = run(argv, service)
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "m").iterdir() if p.is_dir()) == tables
    assert [line.split()[0] for line in out.splitlines()] == tables


def test_a_misspelt_entity_after_the_path_is_still_refused(run, tmp_path):
    status, _, err = run(["mirror", "sync", "m", "--entities", "companies", "investrs"])
    assert status == 2
    assert "did you mean 'investors'?" in _error(err, "dealframe mirror sync")
    assert not (tmp_path / "m").exists()


# -- pull ENTITY --help -----------------------------------------------------------------------

COMMON = {"-h", "-o", "--sandbox", "--scale", "--seed", "--quiet"}
OWN = {  # docs/pull.md, "Entities"
    "list": {"--id", "--sort", "--limit"},
    "sub": {"--id", "--limit"},
    "search": set(),
    "current": {"--sku"},
}


def _help(run, name: str) -> str:
    status, out, _ = run(["pull", name, "--help"])
    assert status == 0
    return out


def _kind(name: str) -> str:
    kind = ENTITIES[name].kind
    return name if kind == "public" else kind


@pytest.mark.parametrize("name", list(ENTITIES))
def test_pull_help_lists_the_options_of_the_entity_only(run, name):
    text = _help(run, name)
    options = set(re.findall(r"^  (-{1,2}[a-z-]+)", text.split("options:")[1], re.M))
    assert options == COMMON | OWN[_kind(name)]
    if name != "deals":  # the filters of another entity
        assert "--deal-type" not in text and "--date-from" not in text


@pytest.mark.parametrize("name", [n for n, e in ENTITIES.items() if e.kind != "sub"])
def test_pull_help_example_runs(run, service, name):
    example = _help(run, name).split("example:")[1].strip()
    argv = shlex.split(example)
    assert argv[:3] == ["dealframe", "pull", name]
    at = argv.index("-o")
    argv[at + 1] = "x.csv"
    status, out, err = run(argv[1:] + ["--quiet"], service)
    assert status == 0, err
    assert out.strip() == "x.csv"


# -- report: the flags named ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--out", "r", "--metric", "ev_revnue"], "invalid --metric: expected one of ev_revenue"),
        (["--out", "afile"], "invalid --out: expected a folder"),
        (["--out", "afile/r"], "invalid --out: expected a folder"),
    ],
)
def test_report_errors_name_the_flag(run, tmp_path, argv, says):
    status, out, err = run(["report", "--sandbox", *argv])
    assert status == 2 and out == ""
    line = _error(err, "dealframe report")
    assert says in line
    assert "metric:" not in line.replace("--metric:", "") and "out_dir" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


# -- an option of one value given twice --------------------------------------------------------


_REPORT, _PULL = "dealframe report", "dealframe pull deals"


@pytest.mark.parametrize(
    ("argv", "prefix", "says"),
    [
        (
            ["report", "--out", "r", "--region", "North America", "--region", "Western Europe"],
            _REPORT,
            "argument --region: given twice; it takes one value",
        ),
        (
            ["report", "--out", "r", "--vertical", "Fintech", "--vertical", "Gaming"],
            _REPORT,
            "--vertical",
        ),
        (
            ["report", "--out", "r", "--since", "2024-01-01", "--date-from", "2025-01-01"],
            _REPORT,
            "argument --since/--date-from: given twice",
        ),
        (
            ["report", "--out", "r", "--metric", "ev_revenue", "--metric", "ev_ebitda"],
            _REPORT,
            "--metric",
        ),
        (["report", "--out", "r", "--top", "5", "--top", "9"], _REPORT, "argument --top"),
        (["report", "--out", "r", "--out", "s"], _REPORT, "argument --out"),
        (["report", "--out", "r", "--scale", "0.05", "--scale", "0.1"], _REPORT, "--scale"),
        (["pull", "deals", "-o", "a.csv", "--limit", "1", "--limit", "2"], _PULL, "--limit"),
        (["pull", "deals", "-o", "a.csv", "--output", "b.csv"], _PULL, "argument -o/--output"),
        (
            ["pull", "deals", "-o", "a.csv", "--sort", "name:asc", "--sort", "name:desc"],
            _PULL,
            "--sort",
        ),
        (["mirror", "sync", "m", "--seed", "1", "--seed", "2"], "dealframe mirror sync", "--seed"),
        (
            ["doctor", "--public-token", "SECRETAAA111", "--public-token", "SECRETBBB222"],
            "dealframe doctor",
            "argument --public-token: given twice; it takes one value",
        ),
        (
            ["doctor", "--private-key=KEYAAA111", "--priv", "KEYBBB222"],
            "dealframe doctor",
            "argument --private-key: given twice; it takes one value",
        ),
    ],
)
def test_an_option_of_one_value_given_twice_is_refused_before_anything_starts(
    run, tmp_path, argv, prefix, says
):
    status, out, err = run([*argv] if argv[0] == "doctor" else [*argv, "--sandbox"])
    assert status == 2 and out == "", err
    line = _error(err, prefix)
    assert "given twice" in line and says in line
    assert not any(token in err for token in ("SECRET", "KEYAAA", "KEYBBB")), err
    assert "starting the embedded sandbox" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_options_meant_to_be_repeated_still_add_up(run, service, tmp_path):
    status, out, err = run(
        ["pull", "deals", "--deal-type", "Venture", "--deal-type", "Growth", "--limit", "400"]
        + ["-o", "d.csv", "--quiet"],
        service,
    )
    assert status == 0, err
    import pandas as pd

    # both, not the last one alone (argparse's store would keep Growth only)
    assert set(pd.read_csv(tmp_path / "d.csv")["deal_type"]) == {"Venture", "Growth"}
    from dealframe.cli import _parser

    universe = _parser().parse_args(
        ["mirror", "snapshot-public", "m", "--sku", "A-USA", "B-USA", "--sku", "C-GBR"]
    )
    assert universe.sku == ["A-USA", "B-USA", "C-GBR"]  # as pull current's --sku adds up


# -- the insecure-URL error -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "prefix"),
    [
        (["doctor"], "dealframe doctor"),
        (["pull", "investors", "-o", "i.csv", "--quiet"], "dealframe pull"),
    ],
)
def test_the_insecure_url_error_says_what_a_shell_user_can_do(run, service, argv, prefix):
    remote = {**service, "DEALFRAME_BASE_URL": "http://10.0.0.5:8765"}
    status, _, err = run(argv, remote)
    assert status == 2
    line = _error(err, prefix)
    assert "pass allow_insecure_http=True" not in line  # no command or variable can
    assert "https://" in line and "DEALFRAME_BASE_URL=http://127.0.0.1" in line
    # the advice: the service on a loopback address (a tunnel's end); here, the sandbox's own
    assert service["DEALFRAME_BASE_URL"].startswith("http://127.0.0.1:")
    status, _, err = run(argv, service)
    assert status == 0, err
