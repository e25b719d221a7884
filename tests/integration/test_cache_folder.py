"""The folder a chosen ``cache_path`` sits in is the user's: dealframe leaves its mode alone.

The cache file and its WAL/SHM side files are ``0600`` wherever they are; the folders
dealframe itself creates for them are ``0700``. A folder that already exists (a project
folder, ``$HOME``, a shared sticky folder like ``/tmp``) keeps the mode it had: making it
private would change the user's file system, drop a sticky bit, or fail outright on a shared
folder the user does not own.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from dealframe.client import Client


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _use(sandbox: Any, cache_path: Path) -> None:
    with Client.for_sandbox(sandbox, cache_enabled=True, cache_path=cache_path) as client:
        client.public.search(regions=["Western Europe"])
        assert client.public.search(regions=["Western Europe"]).attrs["from_cache"] is True


@pytest.mark.parametrize("mode", [0o755, 0o1777, 0o770], ids=["project", "sticky-shared", "team"])
def test_an_existing_folder_keeps_its_mode(sandbox, tmp_path, monkeypatch, mode):
    folder = tmp_path / "chosen"
    folder.mkdir()
    folder.chmod(mode)
    _use(sandbox, folder / "http.sqlite")
    assert _mode(folder) == mode  # not 0o700, and a sticky bit is kept
    monkeypatch.chdir(folder)  # a relative cache_path, as in Client(cache_path="h.sqlite")
    _use(sandbox, Path("relative.sqlite"))
    assert _mode(folder) == mode
    for name in ("http.sqlite", "relative.sqlite"):
        assert _mode(folder / name) == 0o600
    assert {_mode(p) for p in folder.iterdir()} == {0o600}  # side files too


def test_the_folders_dealframe_creates_are_owner_only(sandbox, tmp_path):
    tmp_path.chmod(0o755)
    _use(sandbox, tmp_path / "a" / "b" / "http.sqlite")
    assert _mode(tmp_path) == 0o755
    assert _mode(tmp_path / "a") == 0o700 and _mode(tmp_path / "a" / "b") == 0o700
    assert _mode(tmp_path / "a" / "b" / "http.sqlite") == 0o600
