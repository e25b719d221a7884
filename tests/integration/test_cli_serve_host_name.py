"""``dealframe sandbox serve --host NAME`` exports a URL a client here accepts, or says why not.

Before: ``--host $(hostname)`` (a name of this machine resolving to a loopback address)
printed ``export DEALFRAME_BASE_URL=http://<name>:PORT``, which the client refuses (plain
http to a host that is not loopback). The export now names the loopback address the name
was bound to; a LAN address is exported as bound, with a comment line saying the client
needs ``allow_insecure_http=True`` for it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

import dealframe
import dealframe.sandbox
from dealframe.cli import main

TOKENS = {"public_token": "sandbox-public-token", "private_key": "sandbox-private-key"}


def _first_address(name: str) -> str | None:
    try:
        found = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return None
    return str(found[0][4][0])


def _loopback_host_name() -> str:
    name = socket.gethostname()
    address = _first_address(name)
    if name == "localhost" or address is None or not address.startswith(("127.", "::1")):
        pytest.skip(f"this machine's name {name!r} does not resolve to a loopback address")
    return name


@contextlib.contextmanager
def _served(tmp_path, host: str) -> Iterator[list[str]]:
    """The lines ``sandbox serve --host HOST`` prints before it serves, while it serves."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    cmd = [sys.executable, "-m", "dealframe", "sandbox", "serve", "--host", host]
    cmd += ["--port", "0", "--scale", "0.02"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path) as proc:
        try:
            assert proc.stdout is not None
            lines = []
            for line in proc.stdout:
                lines.append(line.rstrip("\n"))
                if line.startswith("export DEALFRAME_PRIVATE_KEY="):
                    break
            yield lines
        finally:
            proc.terminate()


def _export(lines: list[str]) -> str:
    return next(x for x in lines if x.startswith("export DEALFRAME_BASE_URL=")).partition("=")[2]


def test_a_name_of_this_machine_exports_a_loopback_url_the_client_uses(tmp_path):
    name = _loopback_host_name()
    with _served(tmp_path, name) as lines:
        url = _export(lines)
        assert any(x.startswith(f"dealframe sandbox serving on http://{name}:") for x in lines)
        assert url.startswith(f"http://{_first_address(name)}:"), url  # where it was bound
        assert not any(x.startswith("# plain http://") for x in lines)
        with dealframe.Client(base_url=url, cache_enabled=False, **TOKENS) as client:
            assert len(client.private.companies(limit=3)) == 3  # not refused, and answered


def test_a_lan_address_is_exported_with_the_setting_the_client_needs(monkeypatch, capsys):
    def serve(*args, ready, host, port, **kwargs):  # stands for a server bound on a LAN address
        ready(None, f"http://{host}:{port}")

    monkeypatch.setattr(dealframe.sandbox, "serve", serve, raising=False)
    monkeypatch.setattr("dealframe.cli._resolve", lambda name: None)
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    assert main(["sandbox", "serve", "--host", "192.0.2.7", "--port", "8123"]) == 0
    lines = capsys.readouterr().out.splitlines()
    url = _export(lines)
    assert url == "http://192.0.2.7:8123"
    note = lines[lines.index(f"export DEALFRAME_BASE_URL={url}") + 1]
    assert note.startswith("# ") and "allow_insecure_http=True" in note
    with pytest.raises(dealframe.ConfigurationError, match="allow_insecure_http=True"):
        dealframe.Client(base_url=url, **TOKENS)  # what the note is about
    with dealframe.Client(base_url=url, allow_insecure_http=True, **TOKENS) as client:
        assert client.settings.base_url == url  # the setting the note names exists


def test_a_name_bound_to_loopback_is_exported_as_the_address(monkeypatch, capsys):
    def serve(*args, ready, host, port, bound, **kwargs):  # the server bound the name to ::1
        bound("::1")
        ready(None, f"http://{host}:{port}")

    def getaddrinfo(host, *args, **kwargs):  # the address bound is used, not resolved again
        if host == "devbox.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.0.2.9", 0))]
        raise AssertionError(f"resolved {host!r}")

    monkeypatch.setattr(dealframe.sandbox, "serve", serve, raising=False)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    assert main(["sandbox", "serve", "--host", "devbox.example", "--port", "8123"]) == 0
    out = capsys.readouterr().out
    assert "serving on http://devbox.example:8123 " in out  # where it listens, as asked
    assert "export DEALFRAME_BASE_URL=http://[::1]:8123\n" in out
    assert "allow_insecure_http" not in out
