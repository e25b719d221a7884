"""What the change feed sends that the mirror does not keep as documented, said once per sync.

A null where the interface document gives none (a company's ``name``, a deal's ``deal_date``
or ``target``) is said by the client's list calls (``null_field``); the change feed read by
``mirror.sync`` used to write such rows without a word. A field beyond the document
(``ticker_symbol``) is not stored (the tables' columns are fixed), and nothing said it was
dropped. Both are now said once per entity and sync, as a :class:`ServiceContractWarning` and
in the report (``fields_null``, ``fields_not_mirrored``), over real HTTP through the drift
proxy (the sandbox sends neither).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    drop_field,
    fresh_rules,
    items_edit,
    proxy,
    set_field,
    via,
)

from dealframe import ServiceContractWarning, mirror

COMPANIES = r"^/api/private/v1/companies$"
DEALS = r"^/api/private/v1/transactions$"
NULL = "null where the document gives no null"
NOT_MIRRORED = "fields not mirrored"


def _sync(client: Any, folder: Path, entity: str) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = mirror.sync(client, folder, entities=(entity,), page_size=500, progress=False)
    done, frame = report[entity], report.frame()  # the report as a table says the same
    for name in ("fields_null", "fields_not_mirrored"):
        value = getattr(done, name)
        assert frame[name].iloc[0] == value if value else frame[name].isna().iloc[0], name
    return done, caught


def _said(caught: list[warnings.WarningMessage], text: str) -> list[str]:
    return [str(w.message) for w in caught if text in str(w.message)]


def test_null_names_in_the_feed_are_said_once_as_the_lists_say_them(via, proxy, tmp_path):
    proxy.add(COMPANIES, set_field("name", None, first=2), method="POST")
    done, caught = _sync(via, tmp_path / "m", "companies")
    assert done.requests > 2, "the test needs several pages"
    said = _said(caught, NULL)
    assert len(said) == 1, said  # once per sync, not once per page
    assert [w.category for w in caught if NULL in str(w.message)] == [ServiceContractWarning]
    assert said[0].startswith(f"the change feed of companies: {NULL}: name in "), said[0]
    assert done.fields_null is not None and said[0].endswith(done.fields_null)
    # the ids named are rows the table holds with a null name (written as sent)
    table = mirror.load(tmp_path / "m", "companies", include_deleted=True)
    nulled = set(table.loc[table["name"].isna(), "id"])
    assert len(nulled) >= 2
    named = said[0].split(": id ", 1)[1]
    assert any(ident in named for ident in nulled), (named, nulled)


def test_null_deal_dates_and_targets_are_said(via, proxy, tmp_path):
    def no_target(item: dict[str, Any]) -> None:
        if item.get("id", "").startswith(("0", "1")):
            item["target"] = None

    proxy.add(DEALS, set_field("deal_date", None, first=1), items_edit(no_target), method="POST")
    done, caught = _sync(via, tmp_path / "m", "deals")
    said = _said(caught, NULL)
    assert len(said) == 1, said
    assert "deal_date in " in said[0] and "target (target_id) in " in said[0], said[0]
    assert done.fields_null == said[0].removeprefix("the change feed of deals: ")


def test_a_field_absent_from_items_is_no_null_sent(via, proxy, tmp_path):
    proxy.add(COMPANIES, drop_field("name", first=2), method="POST")
    done, caught = _sync(via, tmp_path / "m", "companies")
    assert done.fields_absent is not None  # said as absent (what the table holds there) ...
    assert not _said(caught, NULL) and done.fields_null is None  # ... not as a null sent


def test_fields_not_mirrored_are_named_once(via, proxy, tmp_path):
    proxy.add(COMPANIES, set_field("ticker_symbol", "X"), method="POST")
    done, caught = _sync(via, tmp_path / "m", "companies")
    assert done.requests > 2, "the test needs several pages"
    said = _said(caught, NOT_MIRRORED)
    assert len(said) == 1, said
    assert [w.category for w in caught if NOT_MIRRORED in str(w.message)] == [
        ServiceContractWarning
    ]
    assert "ticker_symbol (a value in " in said[0], said[0]
    assert done.fields_not_mirrored is not None and "ticker_symbol" in done.fields_not_mirrored
    assert "ticker_symbol" not in mirror.load(tmp_path / "m", "companies").columns


def test_an_undisturbed_feed_says_neither(via, tmp_path):
    done, caught = _sync(via, tmp_path / "m", "deals")
    assert done.fields_null is None and done.fields_not_mirrored is None
    assert not _said(caught, NULL) and not _said(caught, NOT_MIRRORED)
