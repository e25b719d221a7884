"""``dealframe doctor`` agrees with the client: each test plays one service variant with the
drift proxy, runs the doctor and the client's own call on it, and checks that the verdict says
what the client does (a frame it cannot fill is ``breaks``; a warning it gives on every call is
never ``holds``; a refusal it adapts to is never ``breaks``; no token it blanks is printed).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    api_error,
    edit,
    fresh_rules,
    outcome,
    proxy,
)

from dealframe import Client
from dealframe.doctor.checks import ADAPTED, BREAKS, Diagnosis, diagnose
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
AGGREGATE = f"^{P}/transactions/aggregate$"


@pytest.fixture
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    """A client through the proxy, of its own (nothing learned is shared between tests)."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def _doctor(client: Client, family: str | None = None) -> dict[str, Any]:
    """The doctor's checks by name."""
    diagnosis: Diagnosis = diagnose(client, family=family)
    return {c.name: c for c in diagnosis.checks}


def _wrap_buckets(doc: Any) -> Any:
    doc["data"] = {"buckets": doc["data"]}
    return doc


def _no_buckets(doc: Any) -> Any:
    doc["data"] = []
    return doc


@pytest.mark.parametrize("change", [_wrap_buckets, _no_buckets], ids=["wrapped", "empty"])
def test_aggregate_the_client_reads_as_no_rows_breaks(
    client: Client, proxy: Proxy, change: Callable[[Any], Any]
) -> None:
    proxy.add(AGGREGATE, edit(change))
    got = outcome(lambda: client.private.aggregate("ev_revenue", "month"))
    assert got.error is None and len(got.value) == 0
    warned = got.warned(ServiceContractWarning)
    assert any("total_deals" in w for w in warned)
    checks = _doctor(client, "B")
    for name in ("B.aggregate.labels.quarter", "B.aggregate.labels.month"):
        assert checks[name].verdict == BREAKS, checks[name]
        assert "meta.total_deals" in checks[name].observed
    assert checks["B.aggregate.suppression"].verdict == BREAKS
    # the client's own words
    said = warned[-1].split(": ", 1)[1]
    assert said in checks["B.aggregate.labels.month"].observed


PUBLIC, PRIVATE = "pub-DOCTORSECRET-aaaa1111", "priv-DOCTORSECRET-bbbb2222"


def _echo_private(doc: Any) -> Any:
    """The service echoes the key: as bucket labels and as a member of list items."""
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        for item in doc["data"][:3]:
            if isinstance(item, dict):
                if "bucket" in item:
                    item["bucket"] = PRIVATE
                else:
                    item[f"x_{PRIVATE}"] = 1
    return doc


def test_tokens_the_service_echoes_are_blanked_in_every_doctor_text(sandbox: Any) -> None:
    import json

    mapped = {PUBLIC: sandbox.public_token, PRIVATE: sandbox.private_key}
    with Proxy(sandbox.url, auth_map=mapped) as echoing:
        echoing.add(AGGREGATE, edit(_echo_private))
        echoing.add(f"^{P}/companies$", edit(_echo_private))
        with Client(echoing.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
            got = outcome(lambda: client.private.aggregate("ev_revenue", "quarter"))
            warned = " ".join(got.warned(ServiceContractWarning))
            assert "could not be read" in warned and PRIVATE not in warned  # the client blanks
            diagnosis = diagnose(client, family="B")
    checks = {c.name: c for c in diagnosis.checks}
    label = checks["B.aggregate.labels.quarter"]
    assert label.verdict == BREAKS and "'***'" in label.observed  # what the client says
    assert "x_***" in checks["B.list_items"].observed
    text = json.dumps(diagnosis.to_dict()) + diagnosis.table(width=10_000) + diagnosis.verdict()
    for secret in (PUBLIC, PRIVATE, "DOCTORSECRET"):
        assert secret not in text


RESOLVE = f"^{P}/companies/resolve$"


def _fastapi_422(sent: int) -> Any:
    return {
        "detail": [
            {
                "loc": ["body", "names"],
                "msg": f"List should have at most 100 items after validation, not {sent}",
                "type": "too_long",
            }
        ]
    }


def _position_400(sent: int) -> Any:
    return {
        "error": {
            "code": "BAD_REQUEST",
            "message": "Invalid request",
            "details": {"errors": ["names[100]: only 100 names allowed per request"]},
        }
    }


def test_resolve_count_refusal_the_client_splits_is_adapted(client: Client, proxy: Proxy) -> None:
    from _drift_proxy import refuse

    proxy.add(RESOLVE, refuse(422, _fastapi_422, 100, "names"))
    got = outcome(lambda: client.private.resolve_companies([f"Name {i}" for i in range(250)]))
    assert got.error is None and len(got.value.matches) == 250
    check = _doctor(client, "B")["B.resolve.batch"]
    assert check.verdict == ADAPTED, check
    assert "the client sends 100 (the bound stated)" in check.observed
    assert "halves" not in check.observed


def _first_results(n: int) -> Callable[[Any], Any]:
    def change(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            doc["data"] = doc["data"][:n]
        return doc

    return change


def test_resolve_answering_the_first_names_only_is_adapted(client: Client, proxy: Proxy) -> None:
    """A service that answers the first 100 names of each request (200, no error): the client
    sends the rest again in batches of 100, so the doctor says adapted, not breaks."""
    proxy.add(RESOLVE, edit(_first_results(100)))
    got = outcome(lambda: client.private.resolve_companies([f"Name {i}" for i in range(250)]))
    assert got.error is None and len(got.value.matches) == 250
    check = _doctor(client, "B")["B.resolve.batch"]
    assert check.verdict == ADAPTED, check
    assert "results for the first 100 only" in check.observed, check.observed


def test_resolve_answering_other_names_than_the_first_still_breaks(
    client: Client, proxy: Proxy
) -> None:
    proxy.add(RESOLVE, edit(lambda doc: {**doc, "data": doc["data"][-100:]}))
    check = _doctor(client, "B")["B.resolve.batch"]
    assert check.verdict == BREAKS, check
    assert "names gave 100 results" in check.observed, check.observed


def test_resolve_refusal_naming_a_position_breaks_as_the_client_leaves_it_out(
    client: Client, proxy: Proxy
) -> None:
    from _drift_proxy import refuse

    proxy.add(RESOLVE, refuse(400, _position_400, 100, "names"))
    got = outcome(lambda: client.private.resolve_companies([f"Name {i}" for i in range(250)]))
    assert got.error is not None and "names[100]" in str(got.error)
    check = _doctor(client, "B")["B.resolve.batch"]
    assert check.verdict == BREAKS, check
    assert (
        "names[100]" in check.observed
        and "the client sends each named name alone" in check.observed
    )


def _meta_as_text(doc: Any) -> Any:
    if isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
        doc["meta"] = {
            k: str(v) if isinstance(v, int) and not isinstance(v, bool) else v
            for k, v in doc["meta"].items()
        }
    return doc


def _meta_a_list(doc: Any) -> Any:
    if isinstance(doc, dict):
        doc["meta"] = [1, 2]
    return doc


def _first_sku(client: Client) -> str:
    found = client.public.search()
    return str(found["sku"].iloc[0] if "sku" in found.columns else found.index[0])


@pytest.mark.parametrize(
    ("path", "change", "check", "family", "call", "said"),
    [
        (
            f"^{P}/companies$",
            _meta_as_text,
            "B.paging.limit",
            "B",
            lambda c, sku: c.private.companies(limit=50),
            "written as text",
        ),
        (
            f"^{P}/transactions$",
            _meta_as_text,
            "B.paging.page",
            "B",
            lambda c, sku: c.private.deals(limit=50),
            "written as text",
        ),
        (
            "^/api/v2/companies/current$",
            _meta_a_list,
            "A.current",
            "A",
            lambda c, sku: c.public.current([sku]),
            "meta is list",
        ),
        (
            "^/api/v2/groups/current$",
            _meta_as_text,
            "A.groups.current",
            "A",
            lambda c, sku: c.public.group_current(countries=["USA"]),
            "written as text",
        ),
        (
            "^/api/v2/companies/time-series$",
            _meta_as_text,
            "A.time_series",
            "A",
            lambda c, sku: c.public.time_series([sku]),
            "written as text",
        ),
    ],
    ids=["lists", "transactions", "current", "group_current", "time_series"],
)
def test_an_answer_the_client_warns_of_on_every_call_never_holds(
    client: Client,
    proxy: Proxy,
    path: str,
    change: Callable[[Any], Any],
    check: str,
    family: str,
    call: Callable[[Client, str], Any],
    said: str,
) -> None:
    sku = _first_sku(client) if family == "A" else ""
    proxy.add(path, edit(change))
    got = outcome(lambda: call(client, sku))
    assert got.error is None
    warned = [w for w in got.warned(ServiceContractWarning) if said in w]
    assert warned, got.caught
    seen = _doctor(client, family)[check]
    assert seen.verdict == ADAPTED, seen
    assert "the client warns" in seen.observed and said in seen.observed


def _forbid(ex: Any) -> None:
    if ex.status == 401:
        ex.status = 403


def test_auth_403_for_a_missing_key_is_adapted_on_both_families(
    sandbox: Any, client: Client, proxy: Proxy
) -> None:
    from _drift_proxy import Action

    from dealframe.errors import AuthenticationError

    proxy.add(".", Action("403", on_response=_forbid))
    for family, call in (
        ("A", lambda c: c.public.search()),
        ("B", lambda c: c.private.companies(limit=5)),
    ):
        with Client(proxy.url, "wrong-token", "wrong-key", cache_enabled=False, **FAST) as bad:
            got = outcome(lambda call=call, bad=bad: call(bad))
        assert isinstance(got.error, AuthenticationError) and got.error.status == 403, family
    checks = _doctor(client)
    for name in ("A.auth", "B.auth"):
        assert checks[name].verdict == ADAPTED, checks[name]
        assert "read as AuthenticationError" in checks[name].observed


def _region_values_as_text(doc: Any) -> Any:
    for entry in doc.get("data", {}).get("filters", []):
        if isinstance(entry, dict) and entry.get("field") == "region":
            entry["values"] = "Europe,Oceania"
    return doc


def test_vocabulary_values_not_a_list_says_the_client_cannot_check_them(
    client: Client, proxy: Proxy
) -> None:
    proxy.add(f"^{P}/lookup/companies$", edit(_region_values_as_text))
    got = outcome(lambda: client.private.companies(region=["Oceania"], limit=5))
    assert got.error is None
    assert any("cannot check" in w for w in got.warned(ServiceContractWarning))
    check = _doctor(client, "B")["B.vocabulary.region"]
    assert check.verdict == ADAPTED
    assert "not a list" in check.observed and "cannot check" in check.observed
    assert "no values listed" not in check.observed


def _with_stddev(doc: Any) -> Any:
    doc["data"]["stddev"] = {k: 1.0 for k in doc["data"]["median"]}
    return doc


def test_an_extra_group_statistic_is_adapted_like_other_extras(
    client: Client, proxy: Proxy
) -> None:
    proxy.add("^/api/v2/groups/current$", edit(_with_stddev))
    got = outcome(lambda: client.public.group_current(countries=["USA"]))
    assert got.error is None and "stddev" in got.value.columns
    check = _doctor(client, "A")["A.groups.current"]
    assert check.verdict == ADAPTED, check
    assert "stddev" in check.observed and "extra columns" in check.observed


def _threshold_moved(doc: Any) -> Any:
    doc["meta"]["small_n_threshold"] = doc["meta"]["methodology"].pop("small_n_threshold")
    return doc


def _threshold_gone(doc: Any) -> Any:
    doc["meta"]["methodology"].pop("small_n_threshold")
    return doc


@pytest.mark.parametrize(
    ("change", "source"),
    [
        (_threshold_moved, "from the answer's meta.small_n_threshold"),
        (_threshold_gone, "from the transactions discovery document"),
    ],
    ids=["moved", "discovery"],
)
def test_threshold_check_says_where_the_client_takes_it_from(
    client: Client, proxy: Proxy, change: Callable[[Any], Any], source: str
) -> None:
    from dealframe.analytics.buckets import service_methodology

    proxy.add(AGGREGATE, edit(change))
    got = outcome(lambda: service_methodology(client))
    assert got.error is None
    threshold = got.value[0]
    assert any(source in w for w in got.warned(ServiceContractWarning))
    checks = _doctor(client, "B")
    for name in ("B.aggregate.methodology", "B.aggregate.suppression"):
        assert f"the client uses {threshold}, {source}" in checks[name].observed, checks[name]


def test_threshold_check_claims_nothing_of_a_discovery_document_it_could_not_read(
    client: Client, proxy: Proxy
) -> None:
    """The aggregate gives no threshold and the discovery read fails: the doctor says it
    could not read the document, not that the document gives none."""
    proxy.add(AGGREGATE, edit(_threshold_gone))
    proxy.add(r"^/api/private/v1/lookup/transactions$", api_error(500, "INTERNAL", "down"))
    checks = _doctor(client, "B")
    for name in ("B.aggregate.methodology", "B.aggregate.suppression"):
        observed = checks[name].observed
        assert "which the doctor could not read" in observed, checks[name]
        assert "gives none either" not in observed, checks[name]
