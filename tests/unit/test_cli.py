"""The command line parses what the README and docs promise."""

import pytest

from dealframe.cli import _parser


def test_sandbox_serve_options():
    args = _parser().parse_args(
        [
            "sandbox",
            "serve",
            "--port",
            "9000",
            "--scale",
            "0.5",
            "--latency-ms",
            "30",
            "--fault-rate",
            "0.1",
        ]
    )
    assert (args.port, args.scale, args.latency_ms, args.fault_rate) == (9000, 0.5, 30.0, 0.1)
    assert args.host == "127.0.0.1"


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "--out", "r", "--sandbox"],
        ["mirror", "sync", "m", "--sandbox"],
        ["mirror", "status", "m"],
    ],
)
def test_subcommands_exist(argv):
    assert callable(_parser().parse_args(argv).run)


def test_unknown_command_exits_with_usage(capsys):
    with pytest.raises(SystemExit) as exit_info:
        _parser().parse_args(["nonsense"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("dealframe: error: argument COMMAND: invalid choice: 'nonsense'")
    assert len(err.splitlines()) == 1  # no usage block: one line for scheduler logs
