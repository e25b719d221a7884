"""Every command prints its error's PEP 678 notes, the command's tokens blanked out of them.

``dealframe mirror`` did (``told``); ``report`` printed ``str(error)`` only, and ``doctor``'s
``cannot run: ...`` too: what a note said (a mirror sync's words, a warning turned into an
error, where a SKU of a refused chunk is in the caller's list) was lost. The commands run
against the sandbox over HTTP; the step that fails is made to fail with a note.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from typing import Any

import pytest

from dealframe.cli import main
from dealframe.errors import DealframeError


def _failing(token: str) -> Any:
    def fail(client: Any, *args: Any, **kwargs: Any) -> Any:
        client.public.search()  # over HTTP: the service is reached
        error = DealframeError("the step failed")
        error.add_note(f"what the note says (key {token})")
        raise error

    return fail


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    return status, err.getvalue()


@pytest.fixture
def service(sandbox, monkeypatch):
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    return sandbox


def test_report_prints_the_notes_of_its_error(service, monkeypatch, tmp_path):
    import dealframe.report

    monkeypatch.setattr(dealframe.report, "build_report", _failing(service.private_key))
    status, err = _run(["report", "--out", str(tmp_path / "r"), "--quiet"])
    assert status != 0
    assert "the step failed; what the note says (key ***)" in err, err
    assert service.private_key not in err


def test_doctor_prints_the_notes_of_its_error(service, monkeypatch):
    checks = importlib.import_module("dealframe.doctor.checks")  # doctor.checks: a function
    monkeypatch.setattr(checks, "diagnose", _failing(service.public_token))
    status, err = _run(["doctor"])
    assert status == 2
    assert "cannot run: the step failed; what the note says (key ***)" in err, err
    assert service.public_token not in err
