"""The report of a cohort with no listed company keeps the documented tables.

docs/report.md gives ``comps`` 16 columns of ``client.public.current`` and ``comps_summary``
one column per numeric comps column: a nightly job reads the same files whatever the cohort,
so a cohort whose search matches no listed company writes them with the same columns and
dtypes as one with companies, and no row (``comps``) or no meaningful value
(``comps_summary``). Both reports are built against the session sandbox, over real HTTP.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import dealframe
import dealframe.report.pages as pages
from dealframe.frames.nested import to_lists
from dealframe.report import build_report
from dealframe.report.tables import COMPS_COLUMNS

TABLES = ("comps", "comps_summary")


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Any]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def cohorts(client: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A small region with listed companies, and the same region narrowed to a vertical that
    some listed company carries but none of the region's: no listed company."""
    universe = client.public.search()
    sizes = universe["region"].value_counts()
    region = str(sizes[sizes >= 2].index[-1])
    verticals = {
        str(r): set(v or ()) for r, v in zip(universe["region"], to_lists(universe["verticals"]))
    }
    mine = set().union(*(v for r, v in verticals.items() if r == region))
    others = sorted(set().union(*verticals.values()) - mine)
    assert others, "every vertical of the sandbox has a listed company in the region"
    return {"region": region}, {"region": region, "vertical": others[0]}


@pytest.fixture(scope="module")
def written(
    client: Any, cohorts: tuple[dict[str, Any], dict[str, Any]], tmp_path_factory: Any
) -> dict[str, Any]:
    full, empty = cohorts
    # the full report is read for its tables' columns only: its charts (most of a report's
    # time) are left undrawn; the empty cohort's report, with charts of no company, is whole
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages, "_chart", lambda draw, *size: pages.Chart(b"", ""))
        out = {"full": build_report(client, tmp_path_factory.mktemp("full"), cohort=full)}
    out["empty"] = build_report(client, tmp_path_factory.mktemp("empty"), cohort=empty)
    return out


def _schema(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return [(str(c), str(t)) for c, t in frame.dtypes.items()]


@pytest.mark.parametrize("table", TABLES)
def test_an_empty_cohort_writes_the_same_columns_and_dtypes_as_a_full_one(
    written: dict[str, Any], table: str
) -> None:
    full = pd.read_parquet(written["full"].parquet[table])
    empty = pd.read_parquet(written["empty"].parquet[table])
    assert len(full) > 0
    assert _schema(empty) == _schema(full)
    assert empty.index.name == full.index.name
    assert str(empty.index.dtype) == str(full.index.dtype)
    csv_full = pd.read_csv(Path(written["full"].csv[table]), nrows=0)
    csv_empty = pd.read_csv(Path(written["empty"].csv[table]), nrows=0)
    assert list(csv_empty.columns) == list(csv_full.columns)


def test_the_empty_cohorts_tables_are_the_documented_ones_with_nothing_in_them(
    written: dict[str, Any],
) -> None:
    comps = pd.read_parquet(written["empty"].parquet["comps"])
    summary = pd.read_parquet(written["empty"].parquet["comps_summary"])
    assert list(comps.columns) == list(COMPS_COLUMNS) and len(comps) == 0
    assert comps.index.name == "sku"
    assert list(summary.columns) == list(COMPS_COLUMNS[2:])
    assert summary.loc[["n", "nm", "na"]].eq(0).all().all()
    assert summary.loc[["median", "q1", "q3"]].isna().all().all()


def test_the_provenance_table_shows_counts_as_whole_numbers(written: dict[str, Any]) -> None:
    """The comps pull of a cohort with no listed company sends no request and has no
    provenance: its empty cells made every count column float, shown as ``1.00`` and
    ``5,817.00``."""
    page = written["empty"].html.read_text(encoding="utf-8")
    part = page[page.index("C. Provenance") :]
    part = part[: part.index("</table>")]
    heads = re.findall(r"<th>(.*?)</th>", part)
    rows = {
        cells[0]: dict(zip(heads, cells))
        for cells in (re.findall(r"<td[^>]*>(.*?)</td>", row) for row in part.split("<tr>")[2:])
    }
    provenance = json.loads(written["empty"].manifest.read_text())["provenance"]
    assert provenance.get("current", {}).get("requests") is None  # the row without counts
    counted = 0
    for pull, held in provenance.items():
        for column in ("requests", "rows_expected", "rows_received"):
            if held.get(column) is not None:
                assert rows[pull][column] == f"{held[column]:,}", (pull, column)
                counted += 1
    assert counted >= 6
    assert not re.search(r">[\d,]+\.00<", part)
