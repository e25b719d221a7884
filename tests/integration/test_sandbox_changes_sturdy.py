"""The changes stand odd data, failures and any random generator, and stay fast (issue 2).

A review of the changes found: soft deletes of deals, and the random rounds that make them,
crashing (a 500 over the admin endpoint) once ``Changes.edit`` had put a participant that is no
organisation on a deal, as did the company's investors and the co-investors read over HTTP; a
round that failed half-way leaving its applied operations unindexed (lists and filters then
disagreed, or answered 500); a generator without a spawnable seed sequence refused by investor
inserts, whose rounds also followed the seed sequence rather than the generator's state; and
``insert("investors", n)`` searching every deal and every organisation once per investor.
docs/sandbox.md, "Changes and the clock", says what holds instead.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import numpy as np

from dealframe.sandbox import changes as changes_module
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api
from _sandbox_changes import admin, admin_ok, sandbox_fixtures

sb, fresh = sandbox_fixtures(seed=11)


def _names(rows: list[dict]) -> set[str]:
    return {r["id"] for r in rows}


def _with_nobody(sb) -> tuple[dict, dict]:
    """A funding round's profile, read over HTTP, to which ``Changes.edit`` then adds a lead
    investor that is no organisation; and that participant."""
    api = Api(sb.url, sb.private_key)
    rounds = api.ok_post("/transactions", {"filters": {"deal_type": ["Venture"]}, "limit": 50})
    profiles = (api.ok_get(f"/transactions/{d['id']}")["data"] for d in rounds["data"])
    deal = next(d for d in profiles if len(d["investors"]) >= 2)
    nobody = {
        "id": str(uuid.uuid4()),
        "name": "Nobody Capital",
        "short_name": None,
        "country": None,
        "website": None,
    }
    Changes(sb.state, seed=1).edit(
        "deals",
        [deal["id"]],
        lambda r: r.update(
            lead_investors=[*r["lead_investors"], nobody][-3:], investors=[*r["investors"], nobody]
        ),
    )
    return deal, nobody


def test_soft_deletes_and_rounds_go_on_past_a_participant_that_is_no_organisation(fresh):
    """The changes' soft deletes of deals (alone or in a random round) keep each investor's
    last lead; a participant that is no organisation is none and keeps no deal."""
    _with_nobody(fresh)
    api = Api(fresh.url, fresh.private_key)
    gone = admin_ok(fresh, {"operation": "soft_delete", "entity": "deals", "n": 40})["ids"]
    assert 0 < len(gone) <= 40
    assert not {d["id"] for d in api.pull("transactions")} & set(gone)
    done = admin_ok(fresh, {"operation": "random_round", "n": 200})["ids"]
    assert done["soft_delete"] and done["insert"]
    gone = Changes(fresh.state, seed=2).soft_delete("deals", 5)
    assert len(gone) == 5


def test_sub_collections_leave_out_a_participant_that_is_no_organisation(fresh):
    """The deal lists the participant (``investor_id`` finds it); the company's investors and
    the co-investors, lists of organisations, leave it out."""
    deal, nobody = _with_nobody(fresh)
    api = Api(fresh.url, fresh.private_key)
    found = api.pull("transactions", filters={"investor_id": [nobody["id"]]})
    assert [d["id"] for d in found] == [deal["id"]]
    listed = api.ok_get(f"/transactions/{deal['id']}")["data"]
    assert nobody["id"] in _names(listed["lead_investors"])
    other = deal["investors"][0]["id"]
    backers = api.pull_sub(f"/companies/{deal['target']['id']}/investors")
    assert other in _names(backers) and nobody["id"] not in _names(backers)
    peers = api.pull_sub(f"/investors/{other}/co_investors")
    assert peers and nobody["id"] not in _names(peers)


def test_a_round_that_fails_half_way_leaves_reads_consistent(fresh, monkeypatch):
    """Were an operation of a random round to fail, those applied before it are indexed: the
    lists and their filters read the same records (here the undeletes, last of the round, are
    made to fail)."""
    api = Api(fresh.url, fresh.private_key)
    before = api.ok_post("/transactions", {"filters": {"include_deleted": True}, "limit": 1})

    def broken(self, entity, n, stamp):
        raise RuntimeError("an undelete that fails, for the test")

    monkeypatch.setattr(Changes, "_undelete", broken)
    assert admin(fresh, {"operation": "random_round", "n": 300}).status_code == 500
    monkeypatch.undo()

    every = api.ok_post("/transactions", {"filters": {"include_deleted": True}, "limit": 1})
    assert every["meta"]["total"] == len(fresh.state.dataset.deals)
    assert every["meta"]["total"] > before["meta"]["total"]  # the round's inserts are read
    kinds = ["Early", "Venture", "Growth", "M&A", "Public listing", "Secondary"]
    typed = api.ok_post(
        "/transactions", {"filters": {"include_deleted": True, "deal_type": kinds}, "limit": 1}
    )
    assert typed["meta"]["total"] == every["meta"]["total"]


def test_inserted_investors_rounds_search_no_list_of_every_organisation(fresh, monkeypatch):
    """An inserted investor's round draws its target among a few organisations picked at
    random, searching all of them only when none of those fits: ``insert("investors", n)``
    no longer costs a search of every organisation (and deal) per investor."""
    searches: list[int] = []
    may_target = changes_module.may_target

    def counted(columns, *args, **kwargs):
        mask = may_target(columns, *args, **kwargs)
        if mask.size == len(columns["id"]):
            searches.append(mask.size)
        return mask

    monkeypatch.setattr(changes_module, "may_target", counted)
    new = admin_ok(fresh, {"operation": "insert", "entity": "investors", "n": 300})["ids"]
    assert len(new) == 300
    assert len(searches) < 30, len(searches)
    api = Api(fresh.url, fresh.private_key)
    led = api.pull("transactions", filters={"investor_id": new})
    assert len(led) == 300


def _rounds_of(sb, generator: np.random.Generator) -> tuple[list[str], list[dict]]:
    """The investors that ``generator`` inserts (three) and their rounds, read over HTTP."""
    new = Changes(sb.state, generator).insert("investors", 3)
    api = Api(sb.url, sb.private_key)
    rounds = api.pull("transactions", filters={"investor_id": new})
    sb.reset()
    return new, sorted(rounds, key=lambda d: d["id"])


def test_any_generator_drives_the_inserted_investors_rounds(fresh):
    """A generator is used as is, whatever its bit generator (a legacy ``RandomState``'s has no
    seed sequence to spawn from), and the rounds follow its state: two generators in the same
    state insert the same investors with the same rounds."""
    legacy = np.random.Generator(np.random.RandomState(5)._bit_generator)
    new, rounds = _rounds_of(fresh, legacy)
    assert len(new) == 3 and len(rounds) == 3
    leads = [set(new) & {p["id"] for p in d["lead_investors"]} for d in rounds]
    assert sorted(i for one in leads for i in one) == sorted(new)  # each leads one

    first = np.random.default_rng(7)
    second = np.random.default_rng(7)
    second.spawn(1)  # the same state; only its seed sequence has moved on
    assert _rounds_of(fresh, first) == _rounds_of(fresh, second)
