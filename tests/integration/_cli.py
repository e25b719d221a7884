"""Running ``dealframe pull`` in-process against a service, for the tests of its checks."""

from __future__ import annotations

from typing import Any


def pull(
    argv: list[str], base_url: str, key: str, capsys: Any, monkeypatch: Any
) -> tuple[int, str]:
    """``dealframe pull ARGV --quiet`` against ``base_url``: (exit status, standard error)."""
    monkeypatch.setenv("DEALFRAME_BASE_URL", base_url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", "p")
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    return run(["pull", *argv, "--quiet"], capsys)


def run(argv: list[str], capsys: Any) -> tuple[int, str]:
    """``dealframe ARGV`` in this process: (exit status, standard error)."""
    from dealframe.cli import main

    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return int(code or 0), capsys.readouterr().err
