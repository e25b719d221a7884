"""``dealframe pull`` draws the client's page bars when standard error is a terminal, as
docs/pull.md promises, and none with ``--quiet`` or into a file.

The command runs in its own process against the session sandbox over HTTP, its standard
error a pseudo-terminal (Python's ``pty``) with a window size, as a shell gives it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pty = pytest.importorskip("pty")

sys.path.insert(0, str(Path(__file__).parent))

from _cli import in_a_terminal  # noqa: E402 - the tests' own helpers

BAR = "transactions:"  # the label of the deals' page bar (the endpoint's entity)


def _env(sandbox) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    return {
        **env,
        "DEALFRAME_BASE_URL": sandbox.url,
        "DEALFRAME_PUBLIC_TOKEN": sandbox.public_token,
        "DEALFRAME_PRIVATE_KEY": sandbox.private_key,
        "DEALFRAME_CACHE": "off",
    }


def _pull_in_a_terminal(sandbox, args: list[str]) -> tuple[int, str, str]:
    """Exit status, standard output and what the terminal showed on standard error."""
    command = [sys.executable, "-m", "dealframe", "pull", "deals", *args]
    return in_a_terminal(command, _env(sandbox), capture_stdout=True)


@pytest.fixture(scope="module")
def pages(sandbox):
    """The session sandbox's deals need several pages (else no bar is due)."""
    import dealframe

    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        deals = client.private.deals()
    assert deals.attrs["requests"] >= 3, deals.attrs["requests"]
    return deals.attrs["requests"]


def test_page_bars_are_drawn_on_a_terminal(sandbox, pages, tmp_path):
    path = tmp_path / "deals.csv"
    code, out, err = _pull_in_a_terminal(sandbox, ["-o", str(path)])
    assert code == 0, err
    assert out.strip() == str(path)
    assert "pulling deals" in err  # the stage lines
    assert BAR in err and "%|" in err, err  # tqdm's bar: "transactions:  40%|███ | 2/5 ..."
    assert f"/{pages - 1} [" in err  # its total: the pages after the first


def test_quiet_draws_no_bar_on_a_terminal(sandbox, pages, tmp_path):
    path = tmp_path / "deals.csv"
    code, out, err = _pull_in_a_terminal(sandbox, ["-o", str(path), "--quiet"])
    assert code == 0, err
    assert out.strip() == str(path)
    assert BAR not in err and "%|" not in err, err


def test_no_bar_into_a_file(sandbox, pages, tmp_path):
    path = tmp_path / "deals.csv"
    done = subprocess.run(
        [sys.executable, "-m", "dealframe", "pull", "deals", "-o", str(path)],
        capture_output=True,
        text=True,
        env=_env(sandbox),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "pulling deals" in done.stderr
    assert BAR not in done.stderr and "%|" not in done.stderr
