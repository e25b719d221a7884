"""``load(..., as_of=<time>)`` goes by the commit times ``history`` shows, and a mirror's path
holds no character deltalake cannot keep in a URL.

deltalake's own time travel picks the version by the log files' modification times, which differ
from the commit's ``timestamp`` (``history()["time"]``) by a millisecond or so either way: the
documented ``load(..., as_of=versions["time"].iloc[0])`` gave the previous version for about one
commit in ten, and a copy of the mirror made without its modification times (``cp -r``) gave
version 0 for every time, silently. Now the time is turned into a version from the commits
themselves (the highest version committed at or before it).

A path holding ``#`` or ``?`` (deltalake lists no commit: every sync was silently a full pull),
``[ ] | ^`` (a Rust panic) or a control character or backslash (a raw ``DeltaError``, the folder
left claimed) is refused before any request, as ``%20`` is; a table with versions whose commits
deltalake cannot list is damage, never "no checkpoint". (And ``mirror compact`` says which table
asked for does not exist.)
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.cli import main
from dealframe.client import Client
from dealframe.clitools import EXIT_USAGE
from dealframe.errors import ValidationError
from dealframe.mirror.table import history_rows, last_info, open_table
from dealframe.sandbox.changes import Changes

VERSIONS = 5


@pytest.fixture(scope="module")
def built(tmp_path_factory: Any) -> tuple[Path, list[pd.DataFrame]]:
    """A deals table of ``VERSIONS`` versions (a full pull, then syncs of changes), and the
    frame each version held."""
    path = tmp_path_factory.mktemp("as_of") / "m"
    seen = []
    with (
        dealframe.sandbox.run(scale=0.02, seed=29) as sb,
        Client.for_sandbox(sb, progress=False, cache_enabled=False) as client,
    ):
        changes = Changes(sb.state, seed=7)
        for version in range(VERSIONS):
            if version:
                changes.advance(60)
                changes.update("deals", 5)
            mirror.sync(client, path, ["deals"], progress=False)
            seen.append(mirror.load(path, "deals", include_deleted=True))
    return path, seen


def _logs(folder: Path) -> dict[int, Path]:
    return {int(p.stem): p for p in (folder / "_delta_log").glob("*.json")}


def _check_every_time(path: Path, seen: list[pd.DataFrame]) -> None:
    history = mirror.history(path, "deals")
    assert sorted(history["version"]) == list(range(VERSIONS))
    times = dict(zip(history["version"], history["time"], strict=True))
    for version, expected in enumerate(seen):
        at = times[version]
        got = mirror.load(path, "deals", include_deleted=True, as_of=at)
        assert got.attrs["version"] == version, (version, at)
        pd.testing.assert_frame_equal(
            got.sort_values("id", ignore_index=True), expected.sort_values("id", ignore_index=True)
        )
        naive = at.tz_convert(None).isoformat()  # the text a user copies from history()
        assert mirror.load(path, "deals", columns=["id"], as_of=naive).attrs["version"] == version
        if version:  # a microsecond before the commit: the version before it
            earlier = at - pd.Timedelta(microseconds=1)
            assert mirror.load(path, "deals", as_of=earlier).attrs["version"] == version - 1
    with pytest.raises(ValidationError, match="a time at or after the first version"):
        mirror.load(path, "deals", as_of=times[0] - pd.Timedelta(milliseconds=1))


def test_the_commit_time_of_each_version_gives_that_version(built, tmp_path):
    """The log files written a millisecond after their commit's timestamp (as deltalake
    writes them about half the time): each commit's time still gives its version."""
    path = tmp_path / "m"
    shutil.copytree(built[0], path)
    _check_every_time(path, built[1])  # modification times as written
    for info, _ in history_rows(open_table(path / "deals")):
        late = (int(info.timestamp.value) // 1_000_000 + 1) * 1_000_000  # ms -> ns, +1 ms
        os.utime(_logs(path / "deals")[info.version], ns=(late, late))
    _check_every_time(path, built[1])


def test_a_copy_with_fresh_modification_times_reads_the_same_versions(built, tmp_path):
    """A copy made without modification times (``cp -r``): every log file is new, and every
    time gave version 0, silently. The commits' own times are in the copy: nothing changes."""
    path = tmp_path / "copy"
    shutil.copytree(built[0], path)
    now = time.time_ns()
    for log in _logs(path / "deals").values():
        os.utime(log, ns=(now, now))
    _check_every_time(path, built[1])


def test_a_fractional_version_is_refused_as_a_version(built):
    path = built[0]
    with pytest.raises(ValidationError, match="a version number as an int") as caught:
        mirror.load(path, "deals", as_of=1.5)
    assert caught.value.argument == "as_of" and "1.5" in str(caught.value)


def test_a_table_whose_commits_deltalake_cannot_list_is_damage(built, tmp_path):
    """At a path with '#', deltalake lists no commit of a table that has versions: that read
    as "no checkpoint" (a full pull every sync, an empty history, a raw IndexError from
    ``as_of``). Now it is damage, named with the table's folder."""
    odd = tmp_path / "a#b"
    shutil.copytree(built[0], odd)
    table = open_table(odd / "deals")
    assert table.version() == VERSIONS - 1 and table.history() == []  # deltalake's own answer
    for call in (lambda: history_rows(table), lambda: last_info(table)):
        with pytest.raises(mirror.MirrorDamagedError, match="lists no commit") as caught:
            call()
        assert str(odd / "deals") in str(caught.value)


def _closed_client() -> Client:
    """A client of a port nothing listens on: a refusal before any request is the only
    answer a test of it can get."""
    return Client(
        "http://127.0.0.1:9",
        "a-public-token",
        private_key="a-private-key",
        cache_enabled=False,
        retries=0,
        progress=False,
    )


UNSAFE = ["#", "?", "[", "]", "|", "^", "\t", "\n", "\x7f", "\x01", "\\"]


@pytest.mark.parametrize("char", UNSAFE, ids=[repr(c) for c in UNSAFE])
def test_a_path_deltalake_cannot_keep_is_refused_before_any_request(char, tmp_path):
    closed = _closed_client()
    parent = tmp_path / f"q3{char}deals"
    with closed:
        for call in (
            lambda: mirror.sync(closed, parent / "m", ["investors"]),
            lambda: mirror.snapshot_public(closed, parent / "m", regions=["Western Europe"]),
            lambda: mirror.status(parent / "m"),
            lambda: mirror.load(parent / "m", "investors"),
        ):
            with pytest.raises(ValidationError) as caught:
                call()
            assert caught.value.argument == "path" and f"without {char!r}" in str(caught.value)
    assert not parent.exists()


@pytest.mark.parametrize("target", ["q3#deals", "q3%20deals"])
def test_a_path_through_a_symbolic_link_is_checked_as_deltalake_opens_it(target, tmp_path):
    """deltalake follows links: a link named plainly to a folder holding '#' (or '%20') gave a
    first sync that called its own table damaged, with repair advice that could not work (or
    a raw DeltaError); refused as the folder itself is, before any request."""
    (tmp_path / target).mkdir()
    (tmp_path / "plain").symlink_to(tmp_path / target)
    closed = _closed_client()
    with closed, pytest.raises(ValidationError) as caught:
        mirror.sync(closed, tmp_path / "plain" / "m", ["investors"])
    assert caught.value.argument == "path" and target in str(caught.value)
    assert not (tmp_path / target / "m").exists()


@pytest.mark.parametrize("char", ["#", "[", "\t"], ids=repr)
def test_the_cli_refuses_such_a_path_before_a_sandbox_starts(char, tmp_path, capsys, monkeypatch):
    def no_sandbox(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a sandbox was started")

    monkeypatch.setattr(dealframe.sandbox, "embedded", no_sandbox)
    target = tmp_path / f"q3{char}deals"
    for command, extra in (("sync", []), ("snapshot-public", ["--sku", "ACME-USA"])):
        assert main(["mirror", command, str(target), "--sandbox", *extra]) == EXIT_USAGE
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"dealframe mirror {command}: error:")
        assert f"without {char!r}" in err[0]
    assert not target.exists()


def test_compact_says_a_table_asked_for_that_does_not_exist(built, tmp_path, capsys):
    """``mirror compact --entities public/current`` on a mirror without Family A tables
    printed nothing, exit status 0: now it says so."""
    path = tmp_path / "m"
    shutil.copytree(built[0], path)
    assert main(["mirror", "compact", str(path), "--entities", "public/current", "deals"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith("deals ") and "version" in out[0]
    assert out[1].split() == ["public/current", "no", "table", "yet:", "nothing", "to", "compact"]
