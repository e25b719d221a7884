"""The note placing a refused SKU in the caller's list reaches the user when the refusal
is one of an incomplete result's errors.

A 400 naming ``skus[i]`` carries a PEP 678 note: where the request's SKUs sit in the
caller's list. Raised as itself, the note is printed (a traceback, every command's
``told``). A chunk refused after the service made the client split its requests is a
failure among others: the call raises an ``IncompleteResultError`` whose message quotes that
400 as its ``first error``, and the note, held by the 400 in ``.errors``, was left out of
the message, of ``dealframe pull`` and of ``dealframe report``. Now the first error is
quoted with its notes. Over HTTP, through the drift proxy: the service takes at most a few
SKUs per request, then refuses one SKU of a later request.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh,
    fresh_rules,
    outcome,
    proxy,
    refuse,
    via,
)

from dealframe.cli import main
from dealframe.errors import BadRequestError, IncompleteResultError

CURRENT = "^/api/v2/companies/current$"
SERIES = "^/api/v2/companies/time-series$"


def _refusal(message: str) -> Any:
    return lambda sent: {"error": {"code": "BAD_REQUEST", "message": message}}


def _refuse_after_split(proxy: Any, path: str, skus: list[str], bound: int, at: int) -> None:
    """At most ``bound`` SKUs a request, then a 400 naming ``skus[1]`` for the request that
    holds ``skus[at]``."""
    over = f"skus: at most {bound} SKUs per request"
    proxy.add(path, refuse(400, _refusal(over), bound, "skus"))
    proxy.add(
        path,
        refuse(400, _refusal("skus[1]: not served"), 0, "skus"),
        when=lambda ex: skus[at] in ex.body["skus"] and len(ex.body["skus"]) <= bound,
    )


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    return status, err.getvalue()


@pytest.fixture
def shell(sandbox, proxy, monkeypatch):
    """A command's environment pointed at the drift proxy."""
    monkeypatch.setenv("DEALFRAME_BASE_URL", proxy.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    return proxy


@pytest.mark.parametrize(("path", "method"), [(CURRENT, "current"), (SERIES, "time_series")])
def test_the_incomplete_results_message_quotes_the_refusal_with_its_note(
    path, method, fresh, proxy
):
    skus = fresh.public.search().index.tolist()[:100]
    _refuse_after_split(proxy, path, skus, 50, 60)
    o = outcome(lambda: getattr(fresh.public, method)(skus))
    error = o.error
    assert isinstance(error, IncompleteResultError), repr(error)
    first = error.errors[0]
    assert isinstance(first, BadRequestError)
    note = "skus[i] in the service's message is position 50 + i of yours"
    assert any(note in n for n in getattr(first, "__notes__", [])), first
    assert f"first error: {first}; {note}" in str(error), str(error)


def test_pull_prints_the_note_of_the_incomplete_results_first_error(shell, via, tmp_path):
    skus = via.public.search().index.tolist()[:100]
    _refuse_after_split(shell, CURRENT, skus, 50, 60)
    given = [a for sku in skus for a in ("--sku", sku)]
    status, err = _run(["pull", "current", *given, "-o", str(tmp_path / "c.csv")])
    assert status == 1, err
    assert "first error: 400 BAD_REQUEST: skus[1]: not served" in err, err
    assert "position 50 + i of yours: the request held SKUs 50..99 of 100" in err, err


def test_report_prints_the_note_of_the_incomplete_results_first_error(shell, via, tmp_path):
    """The report asks current data of the cohort's companies (Western Europe's, the
    default cohort): the request holding the sixth is refused after a split to four."""
    members = via.public.search(regions=["Western Europe"]).index.tolist()
    assert len(members) > 8, "the test needs three requests of four SKUs"
    _refuse_after_split(shell, CURRENT, members, 4, 5)
    status, err = _run(["report", "--out", str(tmp_path / "r"), "--quiet"])
    assert status == 1, err
    assert "first error: 400 BAD_REQUEST: skus[1]: not served" in err, err
    assert "position 4 + i of yours: the request held SKUs 4..7 of" in err, err
