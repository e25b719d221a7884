"""``attrs["requests"]`` counts every HTTP request that built a frame of several ids (profiles,
sub-collections), those answered 404 too (docs/frames.md, "Provenance").

An id the service answers 404 for is missing (``attrs["missing_ids"]``, a warning), and its
request was sent all the same: the frame of one unknown id said "0 requests" (``dealframe pull
buyside --id <unknown>`` printed "0 rows in 0 requests"), that of a known and an unknown id 1.
The service's own count, through the drift proxy, is the reference.
"""

from __future__ import annotations

import sys
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _cli import run
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    fresh,
    fresh_rules,
    proxy,
    set_field,
)

from dealframe.notices import MissingDataWarning

P = "/api/private/v1"
UNKNOWN = str(uuid.UUID(int=0x5EED_0000_0000_4000_8000_0000_0000_0404))

#: method -> (entity of its ids, the path after the id: "" for the profile itself)
CALLS = {
    "company": ("companies", ""),
    "investor": ("investors", ""),
    "deal": ("transactions", ""),
    "fundings": ("companies", "/fundings"),
    "sellside": ("companies", "/sellside"),
    "buyside": ("companies", "/buyside"),
    "company_investors": ("companies", "/investors"),
    "investments": ("investors", "/investments"),
    "co_investors": ("investors", "/co_investors"),
    "portfolio": ("investors", "/portfolio"),
}


@pytest.fixture(scope="module")
def known(direct: Any) -> dict[str, str]:
    """One id of each entity that the service has."""
    return {
        "companies": direct.private.companies(limit=1)["id"].iloc[0],
        "investors": direct.private.investors(limit=1)["id"].iloc[0],
        "transactions": direct.private.deals(limit=1)["id"].iloc[0],
    }


def _served(proxy: Any, entity: str, tail: str) -> int:
    """Requests the service received for one id's profile or sub-collection."""
    return proxy.count(rf"^{P}/{entity}/[0-9a-f-]{{36}}{tail}$")


@pytest.mark.parametrize("method", sorted(CALLS))
@pytest.mark.parametrize("shape", ["unknown alone", "known and unknown"])
def test_a_request_answered_404_is_counted(method, shape, fresh, proxy, known):
    entity, tail = CALLS[method]
    ids = [UNKNOWN] if shape == "unknown alone" else [known[entity], UNKNOWN]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = getattr(fresh.private, method)(ids)
    assert any(issubclass(w.category, MissingDataWarning) for w in seen)
    assert frame.attrs["missing_ids"] == [UNKNOWN]
    sent = _served(proxy, entity, tail)
    assert sent == len(ids)  # one request each (the known id's sub-collection: one page)
    assert frame.attrs["requests"] == sent, (method, frame.attrs["requests"], sent)
    assert frame.attrs["from_cache"] is False  # a 404 is never the cache's


def test_a_profile_left_out_as_soft_deleted_is_counted(fresh, proxy, direct):
    """A service that ignores ``include_deleted`` answers 200 with ``deleted: true``: the id is
    left out as its 404 would have been, and its request still built the frame."""
    ids = direct.private.companies(limit=2)["id"].tolist()
    proxy.add(rf"^{P}/companies/{ids[1]}$", set_field("deleted", True))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        frame = fresh.private.company(ids)
    assert frame["id"].tolist() == ids[:1] and frame.attrs["missing_ids"] == ids[1:]
    assert frame.attrs["requests"] == _served(proxy, "companies", "") == 2


def test_the_pull_stage_line_counts_the_request_of_an_unknown_id(
    sandbox, proxy, capsys, monkeypatch, tmp_path
):
    """``dealframe pull buyside --id <unknown>`` says the request it sent (it said "0 rows in
    0 requests"): the stage line prints ``attrs["requests"]``."""
    for name, value in (
        ("DEALFRAME_BASE_URL", proxy.url),
        ("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token),
        ("DEALFRAME_PRIVATE_KEY", sandbox.private_key),
        ("DEALFRAME_CACHE", "off"),
    ):
        monkeypatch.setenv(name, value)
    code, err = run(["pull", "buyside", "--id", UNKNOWN, "-o", str(tmp_path / "b.csv")], capsys)
    assert code == 0, err
    assert _served(proxy, "companies", "/buyside") == 1
    assert "buyside: 0 rows in 1 request " in err, err
