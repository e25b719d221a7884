"""What a call says of values and pages depends on what was served, not on what ran first,
over real HTTP through the drift proxy.

- A deal type the service's own discovery document lists (``Debt``) was reported as unknown
  by a fresh client's ``fundings``, unless something had read that document before: the
  client now reads it once when a value falls outside the interface document's list.
- ``snapshot_public(client, path, skus=client.public.search().index)`` refused the SKUs a
  service writing them in lower case had just listed, which ``current()`` takes.
- A lookup by more than 1,000 ids labelled a page of every batch ``page 1``: a field lost on
  one batch's page is now said naming the batch.
- ``doctor`` said ``holds`` of a service writing every ``groups/current`` key in snake case,
  and the client's warning of the respelling escaped its table: it is now ``adapted``,
  naming the respelling.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))

from _doctor import by_name, run_doctor
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    api_error,
    direct,
    edit,
    fresh,
    fresh_rules,
    items_edit,
    outcome,
    proxy,
)
from test_closed_vocab_and_group_fields import _lists
from test_drift_fields_of_one_answer import _lower_case_service, renamed

from dealframe import mirror
from dealframe.doctor import ADAPTED
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
LOOKUP = f"^{P}/lookup/transactions$"
FUNDINGS = f"^{P}/companies/[^/]+/fundings$"
DEALS = f"^{P}/transactions$"


def _unknown(messages: list[str]) -> list[str]:
    return [m for m in messages if "deal_type outside" in m]


def _company_ids(client: Any) -> list[str]:
    """Companies with deals, read by another client (the one under test holds nothing)."""
    held = set(client.private.companies(limit=2000)["id"])  # not soft-deleted
    targets = client.private.deals(limit=500)["target_id"].value_counts().index
    return [i for i in targets if i in held][:5]


def test_a_deal_type_the_discovery_document_lists_is_known_on_a_fresh_client(
    fresh: Any, direct: Any, proxy: Any
) -> None:
    ids = _company_ids(direct)
    assert proxy.count("/lookup/transactions") == 0  # nothing read the document yet
    proxy.add(LOOKUP, _lists("deal_type", "Debt"))
    proxy.add(FUNDINGS, items_edit(lambda i: i.update(deal_type="Debt")))
    got = outcome(lambda: fresh.private.fundings(ids))
    assert got.error is None, repr(got.error)
    assert set(got.value["deal_type"].astype(str)) == {"Debt"}
    assert _unknown(got.warned(ServiceContractWarning)) == [], got.caught
    assert proxy.count("/lookup/transactions") == 1
    strict = outcome(lambda: fresh.private.fundings(ids, strict=True))
    assert strict.error is None, repr(strict.error)
    assert proxy.count("/lookup/transactions") == 1  # read once, then held


def test_a_deal_type_no_document_lists_is_still_said(fresh: Any, direct: Any, proxy: Any) -> None:
    ids = _company_ids(direct)
    proxy.add(FUNDINGS, items_edit(lambda i: i.update(deal_type="Debt")))
    got = outcome(lambda: fresh.private.fundings(ids))
    said = _unknown(got.warned(ServiceContractWarning))
    assert len(said) == 1 and "'Debt'" in said[0], got.caught
    assert proxy.count("/lookup/transactions") == 1  # looked for in the service's list


def test_a_failed_discovery_read_is_not_asked_again_by_each_call(
    fresh: Any, direct: Any, proxy: Any
) -> None:
    """The best-effort read fails (a 503): the value is said against the interface
    document's list, in one attempt, and later calls do not ask again (each sent the lookup
    with its retries: seconds a call)."""
    ids = _company_ids(direct)
    proxy.add(LOOKUP, api_error(503, "SERVICE_UNAVAILABLE", "down"))
    proxy.add(FUNDINGS, items_edit(lambda i: i.update(deal_type="Debt")))
    for _ in range(3):
        got = outcome(lambda: fresh.private.fundings(ids))
        assert got.error is None, repr(got.error)
        assert len(_unknown(got.warned(ServiceContractWarning))) == 1, got.caught
    assert proxy.count("/lookup/transactions") == 1


def test_listed_deal_types_read_no_discovery_document(fresh: Any, direct: Any, proxy: Any) -> None:
    got = outcome(lambda: fresh.private.fundings(_company_ids(direct)))
    assert got.error is None and not got.caught, got.caught
    assert proxy.count("/lookup/transactions") == 0


def test_snapshot_public_takes_the_skus_a_lower_case_search_listed(
    fresh: Any, proxy: Any, tmp_path: Path
) -> None:
    ask, lower = _lower_case_service()
    proxy.add("^/api/v2/companies$", lower)
    proxy.add("^/api/v2/companies/(current|time-series)$", ask, lower)
    listed = outcome(fresh.public.search)  # said: the SKUs are outside the layout
    skus = listed.value.index[:5]
    assert all(s == s.lower() for s in skus), skus
    got = outcome(lambda: mirror.snapshot_public(fresh, tmp_path / "m", skus=skus))
    assert got.error is None, repr(got.error)
    assert fresh.public.served_skus >= set(skus)
    current = mirror.load_public(tmp_path / "m", "current")
    assert set(current["sku"]) == set(skus), current["sku"]


def _asked_ids(ex: Any) -> list[Any]:
    body = ex.body if isinstance(ex.body, dict) else orjson.loads(ex.raw_body or b"{}")
    ids = (body.get("filters") or {}).get("id")
    ids = ids.get("in") if isinstance(ids, dict) else ids
    return ids if isinstance(ids, list) else []


def test_a_field_lost_on_a_later_batch_of_ids_names_the_batch(fresh: Any, proxy: Any) -> None:
    ids = fresh.private.deals(limit=1500)["id"].tolist()
    assert len(ids) == 1500
    proxy.add(
        DEALS,
        renamed("deal_valuation", "dealValuation"),
        when=lambda ex: len(_asked_ids(ex)) == 500,
    )
    got = outcome(lambda: fresh.private.deals(id=ids))
    assert got.error is None, repr(got.error)
    said = [m for m in got.warned(ServiceContractWarning) if "deal_valuation on " in m]
    assert len(said) == 1, got.caught
    assert "deal_valuation on ids 1001-1500 page 1 (500 rows)" in said[0], said


def _snake(doc: Any) -> Any:
    """Every field of the group statistics in snake case (``marketCap`` as ``market_cap``)."""
    spelt = lambda key: "".join(f"_{c.lower()}" if c.isupper() else c for c in key)  # noqa: E731
    doc["data"] = {
        stat: {spelt(k): v for k, v in inner.items()} for stat, inner in doc["data"].items()
    }
    return doc


def test_the_doctor_says_snake_case_group_fields_adapted_and_warns_nothing(
    sandbox: Any, proxy: Any
) -> None:
    proxy.add("^/api/v2/groups/current$", edit(_snake, "snake_case"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = run_doctor(sandbox, proxy, family="A")
    # what the doctor tabulates, it does not warn of besides
    assert [str(w.message) for w in caught if "another case" in str(w.message)] == []
    check = by_name(found)["A.groups.current"]
    assert check.verdict == ADAPTED, check
    assert "read as the documented field: " in check.observed, check.observed
    assert "market_cap as marketCap" in check.observed, check.observed


def test_a_sync_says_a_value_outside_the_vocabulary_once_with_its_rows_summed(
    fresh: Any, proxy: Any, tmp_path: Path
) -> None:
    """Not once per page of the change feed (each naming ``page 1``), nor for the sync's
    requests of one row that count the service's records."""
    proxy.add(DEALS, items_edit(lambda i: i.update(deal_type="VENTURE")))
    got = outcome(lambda: mirror.sync(fresh, tmp_path / "m", entities=["deals"], page_size=200))
    assert got.error is None, repr(got.error)
    said = [m for m in got.warned(ServiceContractWarning) if "deal_type outside" in m]
    assert len(said) == 1, said
    rows = len(mirror.load(tmp_path / "m", "deals"))
    assert said[0].startswith("the change feed of deals: deal_type outside the document's list in ")
    assert " pages): 'VENTURE' (" in said[0] and "did you mean 'Venture'?" in said[0], said
    read = int(said[0].split(" in ", 1)[1].split(" of ")[0].replace(",", ""))
    assert read >= rows > 200, (read, rows)  # every page's rows (a row read twice counts twice)
