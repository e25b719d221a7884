"""A profile's ``fields=`` name that is a column of the frame (or a member) of a nested field.

The frame of ``client.private.deal`` holds ``ev_revenue`` flattened from ``deal_multiples``;
that of ``company`` holds ``valuation_market_cap`` from ``valuation``; that of ``investor``
``stats_top_countries`` from ``stats``. Asked for in ``fields=``, such a name is no top-level
field: the service refuses it (the sandbox's 400) or answers without it. The client's note then
names the field to ask for (``'ev_revenue' (a member of 'deal_multiples': ask for
fields=['deal_multiples'])``); it used to suggest another existing field (``deal_revenue``),
or nothing.
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
from dealframe.errors import BadRequestError
from dealframe.notices import ServiceContractWarning

PROFILE = r"^/api/private/v1/(companies|investors|transactions)/[0-9a-f-]{36}$"


@pytest.fixture(scope="module")
def served(sandbox: Any) -> Iterator[tuple[Any, Proxy, dict[str, str]]]:
    """A client through a proxy to the session sandbox, and a company, an investor, a deal."""
    with (
        Proxy(sandbox.url) as proxy,
        dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        ids = {
            "company": str(client.private.companies(limit=1).iloc[0]["id"]),
            "investor": str(client.private.investors(limit=1).iloc[0]["id"]),
            "deal": str(client.private.deals(limit=1).iloc[0]["id"]),
        }
        proxy.reset()
        yield client, proxy, ids


@pytest.mark.parametrize(
    "method, name, field",
    [
        ("deal", "ev_revenue", "deal_multiples"),
        ("deal", "ev_ebitda", "deal_multiples"),
        ("deal", "target_name", "target"),
        ("company", "ev_revenue_ntm", "fundamentals"),
        ("company", "valuation_market_cap", "valuation"),
        ("company", "market_cap", "valuation"),
        ("investor", "top_countries", "stats"),
        ("investor", "total_deals", "stats"),
    ],
)
def test_the_services_400_note_names_the_nested_field_to_ask_for(
    served: tuple[Any, Proxy, dict[str, str]], method: str, name: str, field: str
) -> None:
    client, proxy, ids = served
    proxy.reset()
    with pytest.raises(BadRequestError) as info:
        getattr(client.private, method)(ids[method], fields=["id", name])
    said = str(info.value)
    assert f"unknown field {name!r}" in said  # the sandbox's own words stay
    assert f"fields: {name!r} (a member of {field!r}: ask for fields=[{field!r}])" in said
    assert "did you mean" not in said
    assert proxy.count() == 1
    # and the field it names is one the service takes, holding the column
    got = getattr(client.private, method)(ids[method], fields=["id", field])
    assert any(column == name or column.endswith(f"_{name}") for column in got.columns)


def test_a_service_that_answers_without_the_name_is_warned_with_its_field(
    served: tuple[Any, Proxy, dict[str, str]],
) -> None:
    """A service that ignores a name it does not serve: the ``missing_field`` warning."""
    client, proxy, ids = served
    proxy.reset()

    def request(ex: Exchange) -> None:
        ex.query["fields"] = "id"

    proxy.add(PROFILE, Action("ignoring", on_request=request))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        client.private.deal(ids["deal"], fields=["id", "ev_revenue"])
    proxy.reset()
    said = [str(w.message) for w in seen if issubclass(w.category, ServiceContractWarning)]
    want = "ev_revenue (a member of 'deal_multiples': ask for fields=['deal_multiples'])"
    assert any(want in m for m in said), said
