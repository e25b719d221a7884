"""The report's checks of its investors' co-investor 404s (a profile read with
``include_deleted=True``, the list asked again) are said, never fatal, and counted. Over HTTP
through the drift proxy, in front of a sandbox of this module's own whose two most active
investors are soft-deleted in between two builds, and where:

- the profile of one soft-deleted investor answers 403: the report used to fail whole with an
  ``AuthenticationError`` blaming the key, though the key had read every list and no profile
  was asked for by the user; now it carries on and says the profile could not be read;
- one other investor's list answers 404 "Investor not found" and another's 404 "No route for
  ...", while the other lists are served: the report used to say every such 404 in the words of
  the first one asked again, as "does not serve this sub-collection (whatever the id)";
- the checks' requests used to be counted nowhere (``manifest.json``);
- the profiles were read in one call, which stopped at the 403: the ids not yet sent were left
  unread, as many as the machine's timing made them (the stage said "the profiles of 3 could
  not be read" under load); each is now read on its own.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Proxy, api_error, drop_connection, empty_200, html, no_route
from _report_builds import alt_text_only, undrawn

import dealframe
import dealframe.report.pages as pages
import dealframe.sandbox
from dealframe.report import build_report
from dealframe.report.coinvestors import read_co_investors
from dealframe.sandbox import Changes

P = "^/api/private/v1/investors"


@pytest.fixture(scope="module")
def built(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    with (
        dealframe.sandbox.run(scale=0.02, seed=7) as sb,
        Proxy(sb.url) as proxy,
        dealframe.Client(
            proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        # read for its top investors only: its charts (most of a report's time) are
        # not drawn; the report after the change has them drawn (their alt text on the
        # page, their warnings given), not rendered as PNGs
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(pages, "_chart", undrawn)
            before = build_report(client, tmp_path_factory.mktemp("before"))
        top = pd.read_parquet(before.parquet["top_investors"])["participant_id"].tolist()
        Changes(sb.state, seed=0).edit("investors", top[:2], lambda r: r.update(deleted=True))
        proxy.reset()
        proxy.add(f"{P}/{top[0]}$", api_error(403, "FORBIDDEN", "not for this key"))
        proxy.add(f"{P}/{top[2]}/co_investors$", api_error(404, "NOT_FOUND", "Investor not found"))
        proxy.add(f"{P}/{top[3]}/co_investors$", no_route())
        lines: list[str] = []
        with warnings.catch_warnings(record=True), pytest.MonkeyPatch.context() as patch:
            warnings.simplefilter("always")
            patch.setattr(pages, "_chart", alt_text_only)
            paths = build_report(client, tmp_path_factory.mktemp("after"), progress=lines.append)
        gone = "|".join(top[:4])
        yield {
            "top": top,
            "stage": " ".join(line for line in lines if "co-investors of the most active" in line),
            "page": paths.html.read_text(encoding="utf-8").replace("&#x27;", "'"),
            "manifest": json.loads(paths.manifest.read_text(encoding="utf-8")),
            "lists": proxy.count(f"{P}/[^/]+/co_investors$"),
            "profiles": proxy.count(f"{P}/({gone})$"),
        }


def test_a_profile_refused_does_not_fail_the_report_and_is_said(built):
    assert len(built["top"]) == 15
    stage = built["stage"]
    assert "1 not served (soft-deleted)" in stage, stage
    assert "3 not served: answered 404 (" in stage, stage
    assert "(the profile of 1 could not be read: 403)" in stage, stage
    assert "the profile of 1 could not be read: 403, so whether it is soft-deleted" in built["page"]


def test_each_404_in_its_own_words_never_the_whole_route_while_others_were_served(built):
    for text in (built["stage"], built["page"]):
        assert "whatever the id" not in text
        assert (
            "1 investor: no such id, soft-deleted, or no items, as some services answer; the "
            "service said 'Investor not found'" in text
        )
        assert "'Resource is deleted'" in text  # the soft-deleted one whose profile was refused
        assert "(no route), though it served the lists of 11 other investors" in text


def test_the_checks_requests_are_counted_in_the_manifest(built):
    provenance = built["manifest"]["provenance"]
    assert provenance["co_investors"]["requests"] == 15
    checks = provenance["co_investors_checks"]
    # a profile for each of the 4 ids answered 404, the list of each of the 3 others again
    assert checks["requests"] == 7 == built["profiles"] + built["lists"] - 15, built
    assert "include_deleted=true" in checks["endpoint"]
    assert "co_investors_checks" in built["page"]  # a row of the provenance table


@pytest.fixture(scope="module")
def two_deleted() -> Iterator[tuple[Any, Proxy, list[str]]]:
    """A sandbox whose first two of eight investors are soft-deleted, behind a proxy."""
    with dealframe.sandbox.run(scale=0.02, seed=7) as sb, Proxy(sb.url) as proxy:
        with dealframe.Client(sb.url, sb.public_token, sb.private_key, **FAST) as direct:
            ids = direct.private.investors(limit=8)["id"].astype(str).tolist()
        Changes(sb.state, seed=0).edit("investors", ids[:2], lambda r: r.update(deleted=True))
        yield sb, proxy, ids


@pytest.mark.parametrize(
    ("trouble", "said"),
    [
        (lambda: api_error(500, "INTERNAL_ERROR", "boom"), "500"),
        (lambda: api_error(429, "RATE_LIMITED", "slow down"), "429"),
        (lambda: api_error(401, "UNAUTHORIZED", "no"), "401"),
        (lambda: html(502), "502"),
        (drop_connection, "TransportError"),
        (empty_200, "ServiceContractError"),
    ],
    ids=["500", "429", "401", "html502", "dropped", "empty200"],
)
def test_a_profile_that_could_not_be_read_is_said_not_taken_for_evidence(
    two_deleted, trouble, said
):
    sb, proxy, ids = two_deleted
    proxy.reset()
    proxy.add(f"{P}/{ids[0]}$", trouble())
    with dealframe.Client(
        proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST
    ) as client:
        frame, gone = read_co_investors(client, ids)
    assert gone.ids == ids[:2] and gone.deleted == [ids[1]], gone
    assert gone.unread == [ids[0]] and gone.others == [ids[0]], gone
    assert gone.profiles_unread == f"the profile of 1 could not be read: {said}"
    assert frame["investor_id"].nunique() == 6
    assert gone.checks == 3  # two profiles, one list asked again
