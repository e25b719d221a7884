"""A mirror of another schema version is the user's to fix: ``dealframe mirror status|history|
compact|snapshot-public`` on it exit 2 ("fix it first", docs/errors.md) with the one line that
says how (run ``mirror sync`` once for version 2), not 1 ("running it again may work"), and
``mirror sync`` still migrates a version-2 mirror, over HTTP, exit 0.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _cli import run
from test_mirror_migrate import write_v2

import dealframe.sandbox
from dealframe.client import Client

READERS = [["status"], ["history"], ["compact"], ["snapshot-public", "--region", "Oceania"]]


@pytest.fixture(scope="module")
def sb() -> Any:
    with dealframe.sandbox.run(scale=0.02, seed=43) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb: Any) -> Any:
    with Client.for_sandbox(sb, progress=False) as c:
        yield c


@pytest.fixture
def env(sb: Any, monkeypatch: Any) -> None:
    """The command line's service: the module's sandbox (the source the mirror records)."""
    monkeypatch.setenv("DEALFRAME_BASE_URL", sb.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sb.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sb.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")


def _version(path: Path) -> Any:
    return orjson.loads((path / "_mirror.json").read_bytes())["schema_version"]


def test_a_version_2_mirror_exits_2_until_mirror_sync_migrates_it(client, env, tmp_path, capsys):
    path = tmp_path / "m"
    write_v2(client, path)
    for action in READERS:
        code, err = run(["mirror", action[0], str(path), *action[1:]], capsys)
        assert code == 2, (action, code, err)
        line = f"dealframe mirror {action[0]}: error: the mirror at {path} was written with "
        assert err.startswith(line) and err.count("\n") == 1, err
        assert f"dealframe mirror sync {path}" in err and "migrates" in err, err
    assert _version(path) == 2  # nothing was touched
    code, err = run(["mirror", "sync", str(path), "--no-progress"], capsys)
    assert code == 0, err
    assert _version(path) == 3
    for action in READERS[:2]:
        code, err = run(["mirror", action[0], str(path)], capsys)
        assert code == 0, (action, err)


@pytest.mark.parametrize("action", [["sync", "--no-progress"], *READERS])
def test_a_mirror_of_an_unknown_version_exits_2(action, env, tmp_path, capsys):
    path = tmp_path / "m"
    path.mkdir()
    marker = {"format": "dealframe-mirror", "schema_version": 99, "created_at": "2026-10-01"}
    (path / "_mirror.json").write_bytes(orjson.dumps(marker))
    code, err = run(["mirror", action[0], str(path), *action[1:]], capsys)
    assert code == 2, (code, err)
    assert "schema version 99" in err and "new folder" in err and err.count("\n") == 1, err
    assert _version(path) == 99
