"""What checking every answer costs (issue 12): the client's page walk with its checks against
the same pages parsed without them.

Both sides start from the same raw page bytes in memory (no HTTP), so the figure isolates the
checks: ``read_page`` (meta), identities and the repeated-page signature, the keys present, then
the documented-fields check and the de-duplication over the assembled frame.
"""

from __future__ import annotations

from typing import Any

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


class _Page:
    """A response as the walk sees it: the body as the transport read it for the walk (typed
    rows, :func:`dealframe.frames.deal_rows.read_deal_page`), else parsed on demand."""

    from_cache, attempts = False, 1

    def __init__(self, body: bytes) -> None:
        from dealframe.frames.deal_rows import read_deal_page

        self.body = body
        self.read = read_deal_page(body)

    def json(self) -> Any:
        import orjson

        return orjson.loads(self.body)


def checked_pull(pages: list[bytes]) -> Any:
    """Ours: the walk of ``client.private.deals()`` (checks included) over in-memory pages."""
    from dealframe.contract import Findings, dedupe, missing_fields
    from dealframe.frames.private import list_frame, list_page_columns
    from dealframe.private.paging import pull_pages

    found = Findings("POST /api/private/v1/transactions")
    walked = pull_pages(
        lambda page, size: _Page(pages[page - 1]),
        limit=None,
        workers=1,
        progress=False,
        desc="deals",
        found=found,
        parse=lambda items: list_page_columns("transactions", items),
    )
    frame = list_frame("transactions", walked.parts)
    missing_fields(walked.keys, "transactions", found, n_items=len(frame))
    return dedupe(frame, "id", found, newest="updated_at")


def unchecked_parse(pages: list[bytes]) -> Any:
    """Baseline: the same pages read and joined with no check at all."""
    from dealframe.frames.private import deals_frame_from_pages

    return deals_frame_from_pages(pages, with_role=False)


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
        max(15, ctx.heavy_repeat),
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
            baseline="the same pages read and joined with no check (deals_frame_from_pages)",
            deals=n,
            notes="no HTTP on either side; target: checks cost at most 5%",
            **sample_notes(samples),
        )
    }
