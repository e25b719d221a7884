"""``dealframe pull -o`` proves its folder writable before any request (a file is created there
and removed), not by permission bits alone: as root they say yes to ``/proc``, where the pull
used to fetch every row and fail only at write time. A folder that does not exist is created
(with its parents) when the file is written.

Over HTTP: the pull talks to the session sandbox through the drift proxy, which counts the
requests that reach it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _cli import pull
from _drift_proxy import Proxy, fresh_rules, proxy  # noqa: F401 - fixtures are used by name


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or not os.path.isdir("/proc/self"),
    reason="needs root and /proc: a folder whose permission bits say writable but is not",
)
def test_a_folder_no_file_can_be_made_in_is_refused_before_any_request(
    sandbox: Any,
    proxy: Proxy,
    capsys: Any,
    monkeypatch: Any,
) -> None:
    assert os.access("/proc", os.W_OK)  # what the check used to rely on
    code, err = pull(
        ["deals", "--limit", "3", "-o", "/proc/y.csv"],
        proxy.url,
        sandbox.private_key,
        capsys,
        monkeypatch,
    )
    assert code == 2, err
    assert "invalid -o:" in err and "/proc cannot be written" in err, err
    assert proxy.count() == 0  # refused before anything was asked of the service


def test_missing_folders_are_created_when_the_file_is_written(
    sandbox: Any,
    proxy: Proxy,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: Any,
) -> None:
    target = tmp_path / "new" / "deeper" / "d.csv"
    code, err = pull(
        ["deals", "--limit", "3", "-o", str(target)],
        proxy.url,
        sandbox.private_key,
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert target.is_file() and proxy.count() > 0
    assert [p.name for p in tmp_path.iterdir()] == ["new"]  # no probe file left behind
    assert sorted(p.name for p in target.parent.iterdir()) == ["d.csv"]
