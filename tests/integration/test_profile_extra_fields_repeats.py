"""Under the ``extra-fields`` profile a profile read asking for ``extra_field`` still refuses a
query parameter given twice, as every other profile does (docs/sandbox.md, "include_deleted"):
the profile rebuilt the query as a plain mapping, which kept the last value of each name, so
``?fields=country&fields=extra_field,name`` was answered 200 with the last ``fields`` only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import PREFIX, assert_bad_request

from dealframe.sandbox import run


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, dict[str, str]]]:
    """A sandbox under ``extra-fields``, and a company and a deal of it."""
    with run(scale=0.02, seed=7, profile="extra-fields") as sb:
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {sb.private_key}"
        ids = {
            entity: session.post(
                f"{sb.url}{PREFIX}/{entity}", json={"limit": 1}, timeout=30
            ).json()["data"][0]["id"]
            for entity in ("companies", "transactions")
        }
        yield sb, ids


#: A field of each entity's profile besides ``id``.
FIELD = {"companies": "name", "transactions": "deal_date"}


def _get(served: tuple[Any, dict[str, str]], entity: str, query: str) -> requests.Response:
    sb, ids = served
    query = query.replace("NAME", FIELD[entity])
    return requests.get(
        f"{sb.url}{PREFIX}/{entity}/{ids[entity]}?{query}",
        headers={"Authorization": f"Bearer {sb.private_key}"},
        timeout=30,
    )


@pytest.mark.parametrize("entity", ["companies", "transactions"])
@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("fields=id&fields=extra_field,NAME", "fields"),
        ("fields=extra_field,NAME&fields=extra_field", "fields"),
        ("fields=extra_field,NAME&include_deleted=true&include_deleted=false", "include_deleted"),
    ],
)
def test_a_parameter_given_twice_is_refused_when_extra_field_is_asked_for(
    served: tuple[Any, dict[str, str]], entity: str, query: str, name: str
) -> None:
    errors = assert_bad_request(_get(served, entity, query), name)
    assert errors == [f"{name}: given more than once (2 times); give it once"]


@pytest.mark.parametrize("entity", ["companies", "transactions"])
def test_extra_field_asked_for_once_is_still_served(
    served: tuple[Any, dict[str, str]], entity: str
) -> None:
    answer = _get(served, entity, "fields=extra_field,NAME&include_deleted=false")
    assert answer.status_code == 200, answer.text[:300]
    assert set(answer.json()["data"]) == {"id", FIELD[entity], "extra_field"}
