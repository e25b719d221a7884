"""A mirror whose marker ``_mirror.json`` or lock file ``.lock`` carries a ``chattr`` flag
(immutable ``+i``, append-only ``+a``: root, whom permission bits do not stop, is stopped by
those) used to fail ``mirror sync`` with a raw ``PermissionError`` traceback when the marker
was replaced, leaving its temporary file; ``snapshot_public`` failed so after pulling the
universe. Now ``sync``, ``snapshot_public`` and their commands refuse it first with a
``MirrorPathError`` naming the file, its flag and the ``chattr`` that clears it, before any
request (the commands: exit status 2, before the sandbox starts); ``compact``, which keeps the
marker, looks at the lock only. A refusal the flags could not foresee is the same typed error,
and leaves no temporary file."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealframe.sandbox
from dealframe import mirror
from dealframe.cli import main
from dealframe.client import Client
from dealframe.mirror.errors import MirrorPathError

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("chattr") is None,
    reason="needs root and chattr",
)


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.01, seed=5) as sandbox:
        yield sandbox


@pytest.fixture
def client(sb: Any) -> Iterator[Client]:
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as c:
        yield c


@pytest.fixture
def synced(client: Client, tmp_path: Path) -> Path:
    path = tmp_path / "m"
    mirror.sync(client, path, ["investors"])
    return path


def _flagged(target: Path, flag: str) -> Any:
    """``chattr flag target`` for the ``with`` block (skipped where the file system has none)."""

    class Flag:
        def __enter__(self) -> None:
            if subprocess.run(["chattr", flag, str(target)], capture_output=True).returncode:
                pytest.skip("a file system without chattr flags")

        def __exit__(self, *exc: Any) -> None:
            subprocess.run(["chattr", flag.replace("+", "-"), str(target)], check=True)

    return Flag()


def _versions(path: Path) -> dict[str, Any]:
    return dict(zip(*[mirror.status(path)[c] for c in ("entity", "version")], strict=True))


@pytest.mark.parametrize(
    "name, flag, word",
    [
        ("_mirror.json", "+i", "immutable (chattr +i)"),
        ("_mirror.json", "+a", "append-only (chattr +a)"),
        (".lock", "+i", "immutable (chattr +i)"),
        (".lock", "+a", "append-only (chattr +a)"),
    ],
)
def test_sync_refuses_a_flagged_file_before_any_request(client, synced, name, flag, word):
    before, marker = _versions(synced), (synced / "_mirror.json").read_bytes()
    client.stats.reset()
    with _flagged(synced / name, flag), pytest.raises(MirrorPathError) as caught:
        mirror.sync(client, synced, ["investors"])
    said = str(caught.value)
    assert f"{synced / name} is {word}" in said, said
    assert f"`chattr {flag.replace('+', '-')} {synced / name}`" in said, said
    assert client.stats.snapshot()["network"] == 0  # before any request
    assert _versions(synced) == before
    assert (synced / "_mirror.json").read_bytes() == marker
    assert not [p.name for p in synced.iterdir() if ".tmp-" in p.name]


def test_snapshot_public_refuses_an_immutable_marker_before_fetching(client, synced):
    client.stats.reset()
    with _flagged(synced / "_mirror.json", "+i"), pytest.raises(MirrorPathError, match="_mirror"):
        mirror.snapshot_public(client, synced, regions=["Western Europe"])
    assert client.stats.snapshot()["network"] == 0
    assert not (synced / "public").exists()


@pytest.mark.parametrize("command", [["sync"], ["snapshot-public", "--region", "Western Europe"]])
def test_the_commands_refuse_it_before_the_sandbox_starts(synced, command, capsys, monkeypatch):
    def no_sandbox(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a sandbox was started")

    monkeypatch.setattr(dealframe.sandbox, "embedded", no_sandbox)
    capsys.readouterr()
    with _flagged(synced / "_mirror.json", "+i"):
        code = main(["mirror", command[0], str(synced), *command[1:], "--sandbox"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert f"{synced / '_mirror.json'} is immutable (chattr +i)" in err[0], err


def test_compact_looks_at_the_lock_not_the_marker(synced, capsys):
    with _flagged(synced / "_mirror.json", "+i"):
        assert main(["mirror", "compact", str(synced)]) == 0
    with _flagged(synced / ".lock", "+i"), pytest.raises(MirrorPathError, match=r"\.lock is"):
        mirror.compact(synced)


def test_a_refused_replace_the_flags_did_not_foresee_is_typed(client, synced, monkeypatch):
    """Where the flags cannot be read (another system, a permission), the rename's refusal
    is the same error, naming the marker, and leaves no temporary file."""
    real = os.replace

    def refused(src: Any, dst: Any) -> None:
        if str(dst).endswith("_mirror.json"):
            raise PermissionError(1, "Operation not permitted")
        real(src, dst)

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(MirrorPathError, match=r"marker .*_mirror\.json cannot be replaced"):
        mirror.sync(client, synced, ["investors"])
    assert not [p.name for p in synced.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("flag", ["+i", "+a"])
def test_compact_works_in_a_flagged_folder_that_holds_its_lock(synced, flag):
    """compact writes in the tables' folders and in the lock: a flagged mirror folder whose
    lock exists stops nothing (it was refused, naming the marker compact never replaces)."""
    assert (synced / ".lock").exists()
    with _flagged(synced, flag):
        mirror.compact(synced)
        assert main(["mirror", "compact", str(synced)]) == 0


def test_compact_refuses_an_immutable_folder_where_its_lock_is_to_be_made(synced):
    (synced / ".lock").unlink()
    with _flagged(synced, "+i"), pytest.raises(MirrorPathError, match="lock file is made"):
        mirror.compact(synced)


def test_a_marker_that_is_a_link_to_an_immutable_file_is_replaced(client, synced, tmp_path):
    """The rename replaces the link, not its target: the target's flag does not matter."""
    outside = tmp_path / "elsewhere.json"
    shutil.copy(synced / "_mirror.json", outside)
    (synced / "_mirror.json").unlink()
    (synced / "_mirror.json").symlink_to(outside)
    with _flagged(outside, "+i"):
        mirror.sync(client, synced, ["investors"])
    assert not (synced / "_mirror.json").is_symlink()


def test_a_lock_that_is_a_link_to_an_immutable_file_is_named_by_its_flag(synced, tmp_path):
    """The lock is written in, through a link: the target's flag is what stops it."""
    outside = tmp_path / "elsewhere.lock"
    outside.write_bytes(b"")
    (synced / ".lock").unlink()
    (synced / ".lock").symlink_to(outside)
    with _flagged(outside, "+i"), pytest.raises(MirrorPathError, match=r"\.lock is immutable"):
        mirror.compact(synced)
