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

import re
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import pandas as pd
from _cli import at_service
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
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


def test_a_field_first_sent_to_a_sync_that_writes_nothing_is_still_named(via, proxy, tmp_path):
    """Every row read again (a long overlap), none changed in the table's columns, so nothing
    is written: a field the rows now carry, which the table does not store, was said by no
    earlier sync (the table cannot show it), so this one names it."""
    folder = tmp_path / "m"
    _sync(via, folder, "companies")
    proxy.add(COMPANIES, set_field("ticker_symbol", "X"), method="POST")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = mirror.sync(
            via,
            folder,
            entities=("companies",),
            page_size=500,
            overlap=pd.Timedelta(days=36500),
            progress=False,
        )
    done = report["companies"]
    assert done.rows_received > 0 and done.rows_written == 0
    assert done.fields_not_mirrored is not None and "ticker_symbol" in done.fields_not_mirrored
    assert len(_said(caught, NOT_MIRRORED)) == 1


def test_an_undisturbed_feed_says_neither(via, tmp_path):
    done, caught = _sync(via, tmp_path / "m", "deals")
    assert done.fields_null is None and done.fields_not_mirrored is None
    assert not _said(caught, NULL) and not _said(caught, NOT_MIRRORED)


def _count(text: str, what: str) -> tuple[int, int]:
    """``(n, rows)`` of ``{what} in n of rows rows`` / ``{what} (a value in n of rows rows``."""
    found = re.search(rf"{re.escape(what)} (?:\(a value )?in ([\d,]+) of ([\d,]+) rows", text)
    assert found is not None, (what, text)
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


def _no_name_at_0(item: dict[str, Any]) -> None:
    if str(item.get("id", "")).startswith("0"):
        item["name"] = None
    if str(item.get("id", "")).startswith("1"):
        item.pop("website", None)  # absent, not null: fields_absent


def test_counts_are_distinct_rows_as_written_whatever_the_pages_read_again(via, proxy, tmp_path):
    """Pages of 200 read each page's last timestamp again (the boundary's overlap): the rows
    read twice used to count twice (``name in 68 of 1,005 rows`` for 66 rows of 1,000); the
    counts are now the table's, in the units of ``rows_received``."""
    proxy.add(COMPANIES, items_edit(_no_name_at_0), set_field("ticker_symbol", "X"), method="POST")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        done = mirror.sync(
            via, tmp_path / "m", entities=("companies",), page_size=200, progress=False
        )["companies"]
    table = mirror.load(tmp_path / "m", "companies", include_deleted=True)
    assert done.requests > len(table) // 200 + 1, "the pages read some rows again"
    assert done.fields_null is not None and done.fields_not_mirrored is not None
    assert _count(done.fields_null, "name") == (int(table["name"].isna().sum()), len(table))
    assert _count(done.fields_not_mirrored, "ticker_symbol") == (len(table), len(table))
    assert done.rows_received == len(table)


def test_a_tie_larger_than_a_page_counts_each_row_once(tmp_path):
    """450 companies inserted at one timestamp (a tie of more than a page of 200, read by
    offset pages of it after the boundary's rows): 24 distinct rows with a null name used to be
    said as ``name in 48 of 650 rows``. A sync after it that reads the tie again (the overlap)
    and writes nothing says nothing of those rows again (it used to, every sync)."""
    from dealframe import Client, sandbox
    from dealframe.sandbox import Changes

    def synced(c: Any) -> tuple[Any, list[warnings.WarningMessage]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = mirror.sync(
                c, tmp_path / "m", entities=("companies",), page_size=200, progress=False
            )
        return report["companies"], caught

    with sandbox.run(scale=0.02, seed=7) as sb, Proxy(sb.url) as px:
        px.add(COMPANIES, items_edit(_no_name_at_0), method="POST")
        with Client(px.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST) as c:
            synced(c)
            new = Changes(sb.state, seed=3).insert("companies", 450)
            done, caught = synced(c)
            unchanged, caught_again = synced(c)
    nulled = sum(ident.startswith("0") for ident in new)
    table = mirror.load(tmp_path / "m", "companies", include_deleted=True)
    assert nulled and int(table.loc[table["id"].isin(new), "name"].isna().sum()) == nulled
    assert done.fields_null is not None and done.fields_absent is not None
    n, rows = _count(done.fields_null, "name")
    assert rows == done.rows_received, (done.fields_null, done.rows_received)
    # the rows read: the new ones and the old ones the overlap reads again, each once
    old = table.loc[~table["id"].isin(new)]
    again = old.loc[old["updated_at"] >= pd.Timestamp(done.since)]
    assert done.rows_received == len(new) + len(again)
    assert n == nulled + int(again["id"].str.startswith("0").sum()), done.fields_null
    assert len(_said(caught, NULL)) == 1
    absent = int(table.loc[table["id"].isin(new)]["id"].str.startswith("1").sum())
    absent += int(again["id"].str.startswith("1").sum())
    assert done.fields_absent.startswith(f"{absent} row(s) not tombstones"), done.fields_absent
    # the tie again, unchanged: no commit, and nothing said again of its rows
    assert unchanged.rows_received >= len(new) and unchanged.rows_written == 0
    assert unchanged.fields_null is None and unchanged.fields_absent is None
    assert not _said(caught_again, NULL) and not _said(caught_again, "absent rather than null")


def test_the_cli_prints_each_feed_finding_once(via, proxy, tmp_path, capsys, monkeypatch, sandbox):
    """``dealframe mirror sync`` printed each of these twice: a warning line, and the report's
    line under its entity. Now the report's line only."""
    from dealframe.cli import main

    proxy.add(
        COMPANIES,
        set_field("name", None, first=2),
        drop_field("website", first=3),
        set_field("ticker_symbol", "X"),
        method="POST",
    )
    at_service(monkeypatch, proxy.url, sandbox.public_token, sandbox.private_key)
    capsys.readouterr()
    folder = str(tmp_path / "m")
    status = main(["mirror", "sync", folder, "--no-progress", "--entities", "companies"])
    out, err = capsys.readouterr()
    assert status == 0, err
    for text in (NULL, NOT_MIRRORED, "absent rather than null"):
        assert text in out, (text, out)
        assert text not in err, (text, err)
