"""The ``fields`` allowlist of ``company``/``investor``/``deal(ids, fields=...)`` is open
(issue 14): a service may serve fields the document does not list, and a name may be asked for.

- Under the ``extra-fields`` profile every profile read holds ``extra_field``; asked for by
  name, it is sent as given and served (by the sandbox, and by the drift proxy's service). A
  name the service does not take is its 400, and that is the error.
- A name no answer holds (a service that ignores what it does not serve) is a ``missing_field``
  warning naming it with the closest name known.
- Only another spelling of a profile's field (``shortName`` for ``short_name``) is refused
  before any request.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Action, Exchange, Proxy

import dealframe
from dealframe.errors import BadRequestError, ValidationError
from dealframe.notices import ServiceContractWarning
from dealframe.sandbox import run

PROFILE = r"^/api/private/v1/(companies|transactions)/[0-9a-f-]{36}$"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, Proxy, dict[str, str]]]:
    """A client through a proxy to a sandbox under ``extra-fields``, and a company and a deal."""
    with (
        run(scale=0.05, seed=7, profile="extra-fields") as sb,
        Proxy(sb.url) as proxy,
        dealframe.Client(
            proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        ids = {
            "company": str(client.private.companies(limit=1).iloc[0]["id"]),
            "deal": str(client.private.deals(limit=1).iloc[0]["id"]),
        }
        yield client, proxy, ids


@pytest.fixture
def proxy(served: tuple[Any, Proxy, dict[str, str]]) -> Iterator[Proxy]:
    """The proxy, with no rule and no request counted before the test."""
    served[1].reset()
    yield served[1]
    served[1].reset()


def _without(name: str) -> Any:
    def request(ex: Exchange) -> None:
        wanted = ex.query.get("fields")
        if wanted:
            ex.query["fields"] = ",".join(f for f in wanted.split(",") if f != name)

    return request


def serving(name: str) -> Action:
    """A service that serves ``name`` when asked for it (forwarded without it: the sandbox
    would refuse it in the allowlist)."""

    def response(ex: Exchange) -> None:
        doc = ex.doc()
        if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
            doc["data"][name] = "served when asked for"
            ex.set_doc(doc)

    return Action(f"serving({name!r})", on_request=_without(name), on_response=response)


def ignoring(name: str) -> Action:
    """A service that ignores a name it does not serve (answers without it)."""
    return Action(f"ignoring({name!r})", on_request=_without(name))


@pytest.mark.parametrize("method", ["company", "deal"])
def test_a_field_the_service_serves_beyond_the_document_can_be_asked_for(
    served: tuple[Any, Proxy, dict[str, str]], proxy: Proxy, method: str
) -> None:
    client, _, ids = served
    read = getattr(client.private, method)
    everything = read(ids[method])
    assert "extra_field" in everything.columns  # the profile serves it
    asked: list[str] = []
    proxy.add(PROFILE, when=lambda ex: asked.append(ex.query.get("fields", "")) or False)
    proxy.add(PROFILE, serving("extra_field"))
    got = read(ids[method], fields="id,extra_field")
    assert asked == ["id,extra_field"]  # sent as the caller gave it
    assert got["extra_field"].tolist() == ["served when asked for"]


@pytest.mark.parametrize("method", ["company", "deal"])
def test_the_sandbox_serves_its_extra_field_when_asked_for(
    served: tuple[Any, Proxy, dict[str, str]], method: str
) -> None:
    """The profile serves ``extra_field`` in an allowlist as on every item: a column."""
    client, _, ids = served
    documented = {"company": "name", "deal": "deal_type"}[method]
    got = getattr(client.private, method)([ids[method]], fields=[documented, "extra_field"])
    assert got[documented].notna().all()
    assert got["extra_field"].tolist() == ["served by the extra-fields profile"]
    assert "findings" not in got.attrs or not got.attrs["findings"]


@pytest.mark.parametrize("method", ["company", "deal"])
def test_the_services_400_decides_a_name_it_does_not_take(
    served: tuple[Any, Proxy, dict[str, str]], proxy: Proxy, method: str
) -> None:
    """The sandbox refuses a name it does not serve in an allowlist: its words are the error."""
    client, _, ids = served
    with pytest.raises(BadRequestError, match="no_such_field"):
        getattr(client.private, method)([ids[method]], fields=["id", "no_such_field"])
    assert proxy.count() == 1


def test_a_name_no_answer_holds_is_warned_with_the_closest_name(
    served: tuple[Any, Proxy, dict[str, str]], proxy: Proxy
) -> None:
    client, _, ids = served
    proxy.add(PROFILE, ignoring("nmae"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = client.private.company([ids["company"]], fields=["id", "nmae"])
    said = [str(w.message) for w in seen if issubclass(w.category, ServiceContractWarning)]
    assert any("nmae (did you mean 'name'?)" in m for m in said), said
    assert "nmae" not in got.columns
    assert [f["kind"] for f in got.attrs["findings"]] == ["missing_field"]


@pytest.mark.parametrize(
    "method, given, field",
    [("company", "shortName", "short_name"), ("deal", "Deal-Date", "deal_date")],
)
def test_another_spelling_of_a_profile_field_is_refused_before_any_request(
    served: tuple[Any, Proxy, dict[str, str]], proxy: Proxy, method: str, given: str, field: str
) -> None:
    client, _, ids = served
    with pytest.raises(ValidationError) as info:
        getattr(client.private, method)(ids[method], fields=f"id,{given}")
    assert info.value.argument == "fields" and f"did you mean {field!r}?" in str(info.value)
    assert proxy.count() == 0, proxy.seen
