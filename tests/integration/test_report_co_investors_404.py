"""A report whose investors' ``/investors/{id}/co_investors`` answer 404 for another cause than
soft-deletion (here a service saying it has no route for the path: the client's ``no_route``)
says the 404 as the client saw it, in its stage line and on its page: it used to blame every
such 404 on soft-deletion ("15 not served (soft-deleted)") and hide the cause. Built over HTTP
through the drift proxy, in front of a sandbox of this module's own (the sandbox itself serves
the route)."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Proxy, no_route
from _report_builds import alt_text_only

import dealframe
import dealframe.report.pages as pages
import dealframe.sandbox
from dealframe import MissingDataWarning
from dealframe.report import build_report

CO_INVESTORS = r"^/api/private/v1/investors/[^/]+/co_investors$"


@pytest.fixture(scope="module")
def built(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    with (
        dealframe.sandbox.run(scale=0.02, seed=7) as sb,
        Proxy(sb.url) as proxy,
    ):
        proxy.add(CO_INVESTORS, no_route())
        lines: list[str] = []
        with (
            dealframe.Client(proxy.url, sb.public_token, sb.private_key, **FAST) as client,
            warnings.catch_warnings(record=True) as caught,
            pytest.MonkeyPatch.context() as patch,
        ):
            warnings.simplefilter("always")
            # the charts drawn (their warnings given, their alt text on the page), not
            # rendered as PNGs (half of a report's time)
            patch.setattr(pages, "_chart", alt_text_only)
            paths = build_report(client, tmp_path_factory.mktemp("report"), progress=lines.append)
        yield {
            "lines": lines,
            "warnings": caught,
            "page": paths.html.read_text(encoding="utf-8"),
            "asked": proxy.count(CO_INVESTORS),
        }


def test_stage_line_says_the_404_as_the_client_saw_it(built):
    stage = [line for line in built["lines"] if "co-investors of the most active" in line]
    said = [line for line in stage if "not served: answered 404 (" in line]
    assert said, stage
    assert "the service says it has no route for co_investors" in said[0], said
    assert "soft-deleted" not in " ".join(stage), stage


def test_page_does_not_blame_soft_deletion(built):
    page = built["page"]
    assert "soft-deleted since the deals" not in page
    assert "answered 404 on /investors/{id}/co_investors (the service says it has no route" in page


def test_no_stray_missing_data_warning(built):
    stray = [w for w in built["warnings"] if issubclass(w.category, MissingDataWarning)]
    assert not stray, [str(w.message) for w in stray]
    assert built["asked"] > 1  # every investor's list was asked for
