"""docs/sandbox.md's "Country filters" section quotes the sandbox's refusal of a country that is
not three capital letters word for word (it used to say ``filters.country[...]``, an index the
sandbox's message does not hold)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"


def _row() -> str:
    """The text of the "### Country filters" section, up to the next heading."""
    (section,) = re.findall(
        r"^### Country filters\n(.*?)(?=^#)", DOC.read_text(), flags=re.S | re.M
    )
    return section


@pytest.mark.parametrize(
    ("path", "name"), [("/companies", "country"), ("/transactions", "target_country")]
)
def test_the_country_row_quotes_the_sandboxs_message(sandbox, path, name):
    quoted = re.findall(r"`(filters\.country: [^`]+)`", _row())
    assert quoted, _row()
    response = requests.post(
        f"{sandbox.url}/api/private/v1{path}",
        headers={"Authorization": f"Bearer {sandbox.private_key}"},
        json={"filters": {name: ["usa"]}},
        timeout=30,
    )
    assert response.status_code == 400
    said = response.json()["error"]["details"]["errors"]
    assert said == [quoted[0].replace("filters.country", f"filters.{name}")], said
