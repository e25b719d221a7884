"""Changes and reset over HTTP: inserted ids never repeat, and reset() gives back the generated data.

The change generator used to draw ids from the same random stream as the data generator
(both seeded with the sandbox's seed), so inserts reused existing ids: after 25 rounds a
list served repeated ids with different content. Every list must hold each id once.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
import requests

import dealframe.sandbox
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api

ENTITIES = ("companies", "investors", "transactions")
ADMIN = "admin-token-for-tests"


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=7, admin_token=ADMIN) as sandbox:
        yield sandbox


def pull_all(sb) -> dict[str, list[dict]]:
    api = Api(sb.url, sb.private_key)
    return {e: api.pull(e, {"include_deleted": True}) for e in ENTITIES}


def test_many_rounds_of_changes_never_repeat_an_id(sb):
    before = pull_all(sb)
    changes = Changes(sb.state, seed=sb.state.config.seed)  # the data's own seed, as the admin uses
    inserted: list[str] = []
    for _ in range(25):
        inserted += changes.random_round(200)["insert"]
    after = pull_all(sb)
    for entity, rows in after.items():
        repeated = [i for i, n in Counter(r["id"] for r in rows).items() if n > 1]
        assert repeated == [], (entity, repeated[:5])
    existing = {r["id"] for rows in before.values() for r in rows}
    assert inserted and not existing & set(inserted)
    assert len(set(inserted)) == len(inserted)
    org_ids = {r["id"] for r in after["companies"]} | {r["id"] for r in after["investors"]}
    assert not org_ids & {r["id"] for r in after["transactions"]}  # one id space for both
    grown = sum(len(after[e]) for e in ENTITIES) - sum(len(before[e]) for e in ENTITIES)
    new_investors = set(inserted) & {r["id"] for r in after["investors"]}
    assert new_investors
    # each new organisation is a company or an investor, not both, and each new investor comes
    # with the one funding round it leads (a new deal, its id never an existing one either)
    assert grown == len(inserted) + len(new_investors)
    sb.reset()
    assert pull_all(sb) == before


def test_reset_restores_data_clock_and_the_admin_stream(sb):
    sb.reset()
    fresh = pull_all(sb)
    admin = requests.Session()
    admin.headers["Authorization"] = f"Bearer {ADMIN}"

    def admin_round() -> dict:
        resp = admin.post(
            f"{sb.url}/admin/v1/changes", json={"operation": "random_round", "n": 50}, timeout=30
        )
        assert resp.status_code == 200, resp.text
        return resp.json()["data"]

    first = admin_round()
    assert pull_all(sb) != fresh and first["now"] != sb.state.config.as_of.isoformat()
    sb.reset()
    assert sb.state.clock.now() == sb.state.config.as_of
    assert pull_all(sb) == fresh
    assert admin_round() == first  # the same changes again: the random stream restarted too


def test_edit_changes_one_record_and_stamps_it(sb):
    sb.reset()
    changes = Changes(sb.state, seed=1)
    changes.advance(60)
    deal = sb.state.dataset.deals[5]
    changes.edit("deals", [deal["id"]], lambda d: d.update(deal_synopsis="Revised."))
    row = Api(sb.url, sb.private_key).ok_get(f"/transactions/{deal['id']}", include_deleted="true")[
        "data"
    ]
    assert row["deal_synopsis"] == "Revised." and row["updated_at"] == "2026-06-30T00:01:00+00:00"
    with pytest.raises(dealframe.sandbox.changes.ChangeInputError, match="ids"):
        changes.edit("deals", ["not-an-id"], lambda d: None)
    sb.reset()
