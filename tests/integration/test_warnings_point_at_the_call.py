"""Every dealframe warning points at the user's line (the first frame outside dealframe),
whatever the depth of the library's own calls and argument-checking wrappers: ``-W error``
and warning filters by module then work, and the line shown is the user's."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import dealframe
from dealframe.notices import DealframeWarning

NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[dealframe.Client]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


CALLS: dict[str, Callable[[dealframe.Client], Any]] = {
    "current with an unknown SKU": lambda c: c.public.current(["NOPE-USA"]),
    "companies by an unknown id": lambda c: c.private.companies(id=[NO_SUCH_ID]),
    "profiles with an unknown id": lambda c: c.private.company([NO_SUCH_ID]),
    "explode without investor lists": lambda c: dealframe.explode_participants(
        c.private.deals(limit=20)
    ),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_warning_names_this_file(client: dealframe.Client, name: str) -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        CALLS[name](client)
    ours = [w for w in seen if issubclass(w.category, DealframeWarning)]
    assert ours, f"{name}: no dealframe warning"
    assert {Path(w.filename).name for w in ours} == {Path(__file__).name}, [
        (w.filename, str(w.message)[:60]) for w in ours
    ]
