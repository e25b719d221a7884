"""``dealframe pull -o`` proves its folder writable before any request (a file is made there:
an unnamed one where the system has them, else a named one removed at once, warned of when it
cannot be), not by permission bits alone: as root they say yes to ``/proc``, where the pull
used to fetch every row and fail only at write time. The folder is checked once per pull. A
folder that does not exist is created (with its parents) when the file is written.

Over HTTP: the pull talks to the session sandbox through the drift proxy, which counts the
requests that reach it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import dealframe.pull.cli
import dealframe.pull.output

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


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="as root a folder of mode 0o500 can be written: the /proc test covers root",
)
def test_a_folder_the_bits_wrongly_say_writable_is_refused_as_a_normal_user(
    sandbox: Any,
    proxy: Proxy,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: Any,
) -> None:
    # a folder no file can be made in, whose permission check says yes (as /proc to root)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    real_access = os.access

    def access(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        return Path(path) == locked or real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    try:
        code, err = pull(
            ["deals", "--limit", "3", "-o", str(locked / "y.csv")],
            proxy.url,
            sandbox.private_key,
            capsys,
            monkeypatch,
        )
    finally:
        locked.chmod(0o700)
    assert code == 2, err
    assert "invalid -o:" in err and f"{locked} cannot be written" in err, err
    assert proxy.count() == 0
    assert list(locked.iterdir()) == []


def _append_only(folder: Path) -> bool:
    """Make ``folder`` append-only (``chattr +a``: files can be made, none removed)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("chattr") is None:
        return False
    made = subprocess.run(["chattr", "+a", str(folder)], capture_output=True, check=False)
    return made.returncode == 0


@pytest.mark.parametrize("written_in", ["a new folder in it", "the folder itself"])
def test_an_append_only_folder(
    sandbox: Any,
    proxy: Proxy,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: Any,
    written_in: str,
) -> None:
    """Files can be made in an append-only folder, none removed or renamed. A new folder made
    in it is written as usual, and no probe is left there. Written in the folder itself (a
    temporary file renamed into place), it let a probe of a made file pass: the pull fetched
    every row, failed at the rename and left the temporary file with the whole pull in it. The
    folder's flags are now read first, so it is refused before any request, and before a probe
    it would not let go of is made in it."""
    folder = tmp_path / "append-only"
    folder.mkdir()
    if not _append_only(folder):
        pytest.skip("needs root, chattr and a file system with append-only folders")
    target = folder / "new" / "d.csv" if written_in == "a new folder in it" else folder / "d.csv"
    try:
        code, err = pull(
            ["deals", "--limit", "3", "-o", str(target)],
            proxy.url,
            sandbox.private_key,
            capsys,
            monkeypatch,
        )
        left = sorted(p.name for p in folder.iterdir())
    finally:
        subprocess.run(["chattr", "-a", str(folder)], check=True)
    if written_in == "a new folder in it":
        assert code == 0, err
        assert proxy.count() > 0
        assert left == ["new"]  # no probe file the folder will not let go of
        return
    assert code == 2, err
    assert "invalid -o:" in err and f"{folder} is append-only (chattr +a)" in err, err
    assert proxy.count() == 0  # refused before any request
    assert left == []  # and before a probe the folder would keep


def test_a_probe_that_cannot_be_removed_is_named_in_a_warning(
    sandbox: Any,
    proxy: Proxy,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: Any,
) -> None:
    # a system without unnamed files, and a folder that keeps what is made in it
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    real_remove = os.remove

    def remove(path: Any, *args: Any, **kwargs: Any) -> None:
        if str(path).endswith(".probe"):
            raise PermissionError(1, "Operation not permitted", str(path))
        real_remove(path, *args, **kwargs)

    monkeypatch.setattr(os, "remove", remove)
    code, err = pull(
        ["deals", "--limit", "3", "-o", str(tmp_path / "d.csv")],
        proxy.url,
        sandbox.private_key,
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    probes = [p for p in tmp_path.iterdir() if p.suffix == ".probe"]
    assert len(probes) == 1  # checked once, and what could not be removed is named
    assert "warning:" in err and str(probes[0]) in err and "cannot be removed" in err, err


def test_the_folder_is_checked_once_per_pull(
    sandbox: Any,
    proxy: Proxy,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: Any,
) -> None:
    checked: list[Any] = []
    real = dealframe.pull.output.check_folder

    def counted(path: Any, option: str) -> Any:
        checked.append(path)
        return real(path, option)

    for module in (dealframe.pull.output, dealframe.pull.cli):
        monkeypatch.setattr(module, "check_folder", counted, raising=False)
    code, err = pull(
        ["deals", "--limit", "3", "-o", str(tmp_path / "a" / "d.csv")],
        proxy.url,
        sandbox.private_key,
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert checked == [tmp_path / "a"]
    assert (tmp_path / "a" / "d.csv").is_file()


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
