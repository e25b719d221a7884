"""A report whose most active investors include soft-deleted ones (the service answers their
``/investors/{id}/co_investors`` with a 404) says so in its stage line and on its page, and
raises no stray :class:`~dealframe.MissingDataWarning` (the client does not raise for such
ids: it lists them in ``attrs["missing_ids"]``). Built over HTTP against a sandbox of this
module's own, whose two most active investors of the cohort are soft-deleted in between."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _report_builds import alt_text_only, undrawn

import dealframe
import dealframe.report.pages as pages
import dealframe.sandbox
from dealframe import MissingDataWarning
from dealframe.report import build_report
from dealframe.sandbox import Changes


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.02, seed=7) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def built(sb: Any, tmp_path_factory: Any) -> dict[str, Any]:
    with dealframe.Client.for_sandbox(sb, progress=False) as client:
        # read for its top investors only: its charts (most of a report's time) are
        # not drawn; the report after the change has them drawn (their warnings given,
        # their alt text on the page), not rendered as PNGs
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(pages, "_chart", undrawn)
            before = build_report(client, tmp_path_factory.mktemp("before"))
        top = pd.read_parquet(before.parquet["top_investors"])["participant_id"].tolist()
        gone = top[:2]
        Changes(sb.state, seed=0).edit("investors", gone, lambda r: r.update(deleted=True))
        lines: list[str] = []
        try:
            with (
                warnings.catch_warnings(record=True) as caught,
                pytest.MonkeyPatch.context() as patch,
            ):
                warnings.simplefilter("always")
                patch.setattr(pages, "_chart", alt_text_only)
                after = build_report(
                    client, tmp_path_factory.mktemp("after"), progress=lines.append
                )
        finally:
            sb.reset()
    return {
        "top": top,
        "gone": gone,
        "lines": lines,
        "warnings": caught,
        "page": after.html.read_text(encoding="utf-8"),
        "pairs": pd.read_parquet(after.parquet["co_investment_pairs"]),
        "top_after": pd.read_parquet(after.parquet["top_investors"]),
    }


def test_no_stray_missing_data_warning(built):
    assert len(built["top"]) > 2, "the cohort has several active investors"
    stray = [w for w in built["warnings"] if issubclass(w.category, MissingDataWarning)]
    assert not stray, [str(w.message) for w in stray]


def test_stage_line_counts_the_investors_not_served(built):
    stage = [line for line in built["lines"] if "co-investors of the most active" in line]
    assert any("co-investor rows; 2 not served (soft-deleted) (" in line for line in stage), stage


def test_page_says_which_investors_are_left_out(built):
    assert "2 of the investors listed are no longer served by the service" in built["page"]


def test_the_others_keep_their_co_investors(built):
    """The deleted investors are still ranked (they led the deals); the others' co-investors
    are read and shown."""
    assert built["top_after"]["participant_id"].tolist() == built["top"]
    pairs = built["pairs"]
    assert len(pairs) > 0
    paired = set(pairs["investor_a"].astype(str)) | set(pairs["investor_b"].astype(str))
    assert paired & set(built["top"][2:])
