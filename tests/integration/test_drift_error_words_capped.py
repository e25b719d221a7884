"""An error body's problems are said once each, and only so many, over real HTTP through the
drift proxy.

A body repeating a problem (``{"errors": ["same", "same", "other"]}``) used to say it twice in
the message and again after it (``404 NOT_FOUND: same; same; other: same; other``), and a body
listing hundreds of problems put every one in the message (37,472 characters for 500 problems
on a 404). The message now says each problem once, the first ten at most within about 1,000
characters, then how many more there are; ``details["errors"]`` keeps them all.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
)
from test_drift_error_words import PROFILE, answer

from dealframe.errors import NotFoundError, ServerError

COMPANY = "00000000-0000-4000-8000-000000000001"  # the proxy answers, whatever the id
#: About as long as a message of the service's, and the request the error names.
ABOUT = "x" * 60
ASKED = f" (GET /api/private/v1/companies/{COMPANY})"


def test_a_repeated_problem_is_said_once(fresh, proxy):
    """``same`` twice in the body: said once, in the message and in ``details["errors"]``."""
    proxy.add(PROFILE, answer(404, {"errors": ["same", "same", "other"]}), method="GET")
    o = outcome(lambda: fresh.private.company(COMPANY))
    assert isinstance(o.error, NotFoundError), repr(o.error)
    assert str(o.error) == "404 NOT_FOUND: same; other" + ASKED, str(o.error)
    assert (o.error.message, o.error.details["errors"]) == ("same; other", ["same", "other"])


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (404, {"errors": [f"problem {i}: {ABOUT}" for i in range(500)]}, NotFoundError),
        (
            500,
            {
                "error": {
                    "code": "INTERNAL",
                    "message": "Several rows failed",
                    "details": {"errors": [f"row {i}: {ABOUT * 3}" for i in range(500)]},
                }
            },
            ServerError,
        ),
    ],
    ids=["404-listed", "500-documented"],
)
def test_a_long_list_of_problems_is_cut(status, body, cls, fresh, proxy):
    """500 problems: the first ones said, then how many more (every one used to be said: a
    message of 37,472 characters on the 404, 104,003 on the 500); all of them kept."""
    proxy.add(PROFILE, answer(status, body), method="GET")
    o = outcome(lambda: fresh.private.company(COMPANY))
    assert isinstance(o.error, cls), repr(o.error)
    text = str(o.error)
    assert len(text) < 1_500, len(text)
    assert "; ... and 4" in text and f" more{ASKED}" in text, text[-200:]
    shown = text.count(ABOUT) // (1 if status == 404 else 3)
    assert 1 <= shown <= 10 and f"... and {500 - shown} more" in text, text
    assert len(o.error.details["errors"]) == 500


def test_one_huge_problem_is_cut_and_says_so(fresh, proxy):
    """One problem of 50,000 characters: its first 1,000 said, and how long it was."""
    proxy.add(PROFILE, answer(404, {"errors": ["y" * 50_000]}), method="GET")
    o = outcome(lambda: fresh.private.company(COMPANY))
    assert isinstance(o.error, NotFoundError), repr(o.error)
    text = str(o.error)
    assert text.endswith("y... (cut: 50,000 characters in all)" + ASKED), text[-120:]
    assert text.count("y") == 1_000, text.count("y")
    assert o.error.details["errors"] == ["y" * 50_000]
