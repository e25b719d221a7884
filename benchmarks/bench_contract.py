"""What checking every answer costs (issue 12): the client's page walk with its checks against
the same pages parsed without them.

Both sides start from the same raw page bytes in memory (no HTTP), so the figure isolates the
checks: ``read_page`` (meta), identities and the repeated-page signature, the keys present, then
the documented-fields check and the de-duplication over the assembled frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from _common import (
    Context,
    Figure,
    benchmark,
    interleaved,
    load_synth,
    sample_notes,
    time_ratio,
)

__all__ = ["bench_contract_checks", "checked_pull", "unchecked_parse"]

#: The endpoint ``client.private.deals()`` reads (what the findings name).
_ENDPOINT = "POST /api/private/v1/transactions"


class _Page:
    """A response as the walk sees it: its body read as the transport reads it for the list
    (:meth:`dealframe.private.list_pages.ListParse.read`: typed rows, else JSON)."""

    from_cache, attempts = False, 1

    def __init__(self, body: bytes, parse: Any) -> None:
        doc, problem = parse.read(body)
        if doc is None:
            raise AssertionError(f"contract checks: the transport refused a page ({problem})")
        self.read = doc  # what the walk takes as read (no second parse of it)
        self._parsed = doc

    def json(self) -> Any:
        return self._parsed


def checked_pull(pages: list[bytes]) -> Any:
    """Ours: the walk of ``client.private.deals()`` (checks included) over in-memory pages:
    the pages read, checked and built into columns one by one, joined by the client's list
    path (:class:`dealframe.private.list_pages.ListParse`), then checked for documented
    fields and repeated ids, as ``private/api.py`` does."""
    from dealframe.contract import Findings, dedupe_at, missing_fields
    from dealframe.private.list_pages import ListParse
    from dealframe.private.paging import pull_pages

    found = Findings(_ENDPOINT)
    parse = ListParse("transactions", found)
    walked = pull_pages(
        lambda page, size: _Page(pages[page - 1], parse),
        limit=None,
        workers=1,
        progress=False,
        desc="deals",
        found=found,
        parse=parse.page,
        reader=parse.reader,
    )
    frame = parse.frame(walked.parts)[0]
    missing_fields(walked.keys, "transactions", found, n_items=len(frame))
    return dedupe_at(frame, "id", found, np.arange(len(frame)), newest="updated_at")[0]


def unchecked_parse(pages: list[bytes]) -> Any:
    """Baseline: the same pages read, built and joined as ``client.private.deals()`` does,
    with no check at all (``deals_parse_speedup``'s timed side)."""
    from bench_private import parse_ours

    return parse_ours(pages)


@benchmark("contract_checks_overhead")
def bench_contract_checks(ctx: Context) -> dict[str, Figure]:
    """Deal pages walked with every check vs parsed without: the checks' share of the pull."""
    n = ctx.parse_deals
    synth = load_synth()
    pages = ctx.shared(f"deal_pages:{n}", lambda: synth.deal_pages(n))
    samples: dict[str, list[tuple[float, float]]] = {}
    t_ours, ours, t_base, base = interleaved(
        lambda: checked_pull(pages),
        lambda: unchecked_parse(pages),
        # a 5% target needs more samples than a 2x one: at load 3-8 the same function
        # against itself read 0.52-1.48 as a best of 5 a side, 0.66-1.06 as a best of 15
        ctx.samples(15, ctx.heavy_repeat),
        warmup=1,
        keep=len,
        keep_base=len,
        samples=samples,
    )
    if ours != base:
        raise AssertionError(f"contract checks: {ours} rows vs {base} unchecked")
    return {
        "contract_checks_overhead": time_ratio(
            t_ours,
            t_base,
            unit=f"x ({n:,} deals in {len(pages)} pages: checked walk ÷ unchecked parse)",
            baseline="the same pages read, built and joined as the client does, with no check",
            deals=n,
            notes="no HTTP on either side; target: checks cost at most 5%",
            **sample_notes(samples),
        )
    }
