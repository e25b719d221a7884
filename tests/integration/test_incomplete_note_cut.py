"""An incomplete result's message cuts the first error's notes as it cuts that error.

``IncompleteResultError`` quotes its first error (cut to about 1,000 characters) with that
error's PEP 678 notes, which were quoted whole: a 400 naming ``skus[i]`` of a chunk whose
SKUs are long (the note names the SKU at each position) made a message tens of thousands of
characters long, in the error and in the one line ``dealframe pull`` prints. Over HTTP,
through the drift proxy: the service takes at most six SKUs a request and refuses the
request of the six long SKUs, naming five positions.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh,
    fresh_rules,
    outcome,
    proxy,
    refuse,
)

from dealframe.errors import BadRequestError, IncompleteResultError

CURRENT = "^/api/v2/companies/current$"
LONG = [f"{letter * 4000}-USA" for letter in "ABCDEF"]
AT_MOST_6 = {"error": {"code": "BAD_REQUEST", "message": "skus: at most 6 SKUs per request"}}
NOT_SERVED = {
    "error": {"code": "BAD_REQUEST", "message": "skus[0], skus[1], skus[2], skus[3], skus[4]: bad"}
}


def test_the_notes_of_the_first_error_are_cut_in_the_message(fresh, proxy):
    # a SKU given twice: the chunk of the long SKUs is no run of the caller's list, so the
    # note names the SKU of each position the refusal names
    given = [LONG[0], *LONG, *fresh.public.search().index.tolist()[:3]]
    proxy.add(CURRENT, refuse(400, lambda sent: AT_MOST_6, 6, "skus"))
    proxy.add(
        CURRENT,
        refuse(400, lambda sent: NOT_SERVED, 0, "skus"),
        when=lambda ex: LONG[0] in ex.body["skus"] and len(ex.body["skus"]) <= 6,
    )
    o = outcome(lambda: fresh.public.current(given))
    error = o.error
    assert isinstance(error, IncompleteResultError), repr(error)[:300]
    first = error.errors[0]
    assert isinstance(first, BadRequestError)
    notes = "; ".join(first.__notes__)
    assert len(notes) > 20_000  # whole on the error itself
    assert f"first error: {first}; {notes[:200]}" in str(error)  # the note is quoted ...
    assert str(error).endswith(f"... (cut: {len(notes):,} characters in all)")  # ... cut
    assert len(str(error)) < 2_500, len(str(error))
    assert len(error.partial) == 3
