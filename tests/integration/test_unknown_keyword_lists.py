"""An unknown keyword names the close match AND the valid names (issue 4, Deliver 1: "an
unknown field (with a close-match suggestion and the list of valid fields)").

``deals(deal_typ=...)`` used to give the suggestion alone, and ``deals(foo=1)`` a list mixing
the call's options (``cache``, ``refresh``, ``strict`` ...) with the service's filters. The list
calls of ``client.private`` now list the filters, in the order of the service's discovery
document, apart from the call options; other functions list every keyword after the hint.
Nothing is sent either way (the drift proxy counts the requests).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh,
    fresh_rules,
    no_hang,
    proxy,
)

from dealframe.errors import UnknownArgumentError, ValidationError

LIST_OPTIONS = ["cache", "filters", "limit", "progress", "refresh", "sort", "strict"]


def listed(text: str) -> tuple[list[str], list[str]]:
    """The filters and the call options an unknown keyword's message lists."""
    found = re.search(r"; filters: (.*); call options: (.*), got '", text)
    assert found, text
    return found.group(1).split(", "), found.group(2).split(", ")


@pytest.mark.parametrize(
    ("method", "entity", "typo", "meant", "options"),
    [
        ("companies", "companies", "contry", "country", LIST_OPTIONS),
        ("investors", "investors", "nme", "name", LIST_OPTIONS),
        ("deals", "transactions", "deal_typ", "deal_type", [*LIST_OPTIONS, "with_investors"]),
        (
            "aggregate",
            "transactions",
            "target_ids",
            "target_id",
            ["cache", "filters", "metric", "refresh", "strict", "time_bucket"],
        ),
    ],
)
def test_a_misspelt_filter_keyword_gives_the_close_match_and_every_filter(
    fresh, proxy, method, entity, typo, meant, options
):
    call = getattr(fresh.private, method)
    args = ("ev_revenue",) if method == "aggregate" else ()
    with pytest.raises(UnknownArgumentError) as info:
        call(*args, **{typo: ["x"]})
    assert proxy.count() == 0  # refused before any request
    text = str(info.value)
    assert f"(did you mean {meant!r}?)" in text and info.value.argument == typo
    filters, said_options = listed(text)
    assert filters == fresh.private.lookup(entity)["field"].tolist()  # the service's filters
    assert said_options == options  # the call's own keywords, apart


def test_no_close_match_still_lists_filters_apart_from_options(fresh, proxy):
    with pytest.raises(UnknownArgumentError) as info:
        fresh.private.companies(foo=1)
    text = str(info.value)
    assert "did you mean" not in text
    filters, options = listed(text)
    assert "country" in filters and "cache" not in filters and "strict" not in filters
    assert options == LIST_OPTIONS
    assert proxy.count() == 0


def test_other_functions_list_every_keyword_after_the_hint(fresh, proxy):
    with pytest.raises(UnknownArgumentError) as info:
        fresh.public.search(region=["Western Europe"])
    text = str(info.value)
    assert "(did you mean 'regions'?); valid: cache, countries, " in text, text
    with pytest.raises(UnknownArgumentError) as info:
        fresh.private.company("5f38873f-6e1c-4d6f-ad87-e6977cda30ba", feilds=["name"])
    assert "(did you mean 'fields'?); valid: " in str(info.value)
    assert "include_deleted" in str(info.value)
    assert proxy.count() == 0


def test_a_raw_filter_dict_keeps_its_list(fresh: Any):
    """The raw form already listed the service's filters after the hint: unchanged."""
    with pytest.raises(ValidationError) as info:
        fresh.private.deals({"deal_typ": ["M&A"]})
    assert "(did you mean 'deal_type'?); valid: id, target_id, investor_id" in str(info.value)


def test_a_flag_named_without_its_with_gets_the_flag(fresh, proxy):
    """``deals(investors=True)`` (the words of issue 15) names ``with_investors``, not the
    filter ``investor_id`` that difflib finds closest."""
    with pytest.raises(UnknownArgumentError) as info:
        fresh.private.deals(limit=2, investors=True)
    assert "(did you mean 'with_investors'?)" in str(info.value), str(info.value)
    assert proxy.count() == 0
