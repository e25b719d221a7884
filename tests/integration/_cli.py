"""Running ``dealframe`` for the tests: ``pull`` in-process against a service (for the tests of
its checks), and any command on a pseudo-terminal (for what a terminal shows)."""

from __future__ import annotations

import os
import struct
import subprocess
from collections.abc import Mapping
from typing import Any


def pull(
    argv: list[str], base_url: str, key: str, capsys: Any, monkeypatch: Any
) -> tuple[int, str]:
    """``dealframe pull ARGV --quiet`` against ``base_url``: (exit status, standard error)."""
    at_service(monkeypatch, base_url, "p", key)
    return run(["pull", *argv, "--quiet"], capsys)


def at_service(monkeypatch: Any, base_url: str, token: str, key: str) -> None:
    """Point the commands run in this test at ``base_url`` (a proxy, a sandbox) with these
    credentials, the HTTP cache off."""
    monkeypatch.setenv("DEALFRAME_BASE_URL", base_url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")


def run(argv: list[str], capsys: Any) -> tuple[int, str]:
    """``dealframe ARGV`` in this process: (exit status, standard error)."""
    from dealframe.cli import main

    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return int(code or 0), capsys.readouterr().err


def in_a_terminal(
    command: list[str], env: Mapping[str, str], *, capture_stdout: bool = False
) -> tuple[int, str, str]:
    """Run ``command`` with its standard error (and output, unless ``capture_stdout``) on a
    120-column pseudo-terminal: (exit status, standard output captured or "", what the
    terminal showed). POSIX only: its callers skip elsewhere."""
    import fcntl
    import pty
    import termios

    terminal, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    with subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture_stdout else side,
        stderr=side,
        env=dict(env),
    ) as process:
        os.close(side)
        shown = bytearray()
        while True:
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # EIO: the last holder of the terminal's other side has closed it
                break
            if not chunk:
                break
            shown += chunk
        os.close(terminal)
        out = process.stdout.read().decode() if process.stdout else ""
        code = process.wait(timeout=120)
    return code, out, shown.decode(errors="replace")
