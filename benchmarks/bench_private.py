"""Family B figures (issue 4): parsing deal pages, exploding participants, pulling pages.

The deal pages are synthetic (``tests/unit/payloads/synth.py``: list rows shaped like the
interface document, timestamps with mixed offsets, 0..3 participants per role).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import orjson
import pandas as pd
from _common import (
    NETWORK_LATENCY,
    Context,
    Figure,
    benchmark,
    interleaved,
    load_synth,
    rss_peak_in_subprocess,
    speedup,
)

__all__ = [
    "bench_deals_parse",
    "bench_deals_parse_extra_fields",
    "bench_deals_pull",
    "bench_deals_pull_end_to_end",
    "bench_explode",
    "complete_deals",
    "explode_baseline",
    "parse_baseline",
    "parse_ours",
    "pull_baseline",
    "warm_imports",
]

_CARRIED = ["id", "deal_date", "deal_type", "deal_subtype", "target_id"]
_ROLES = ("lead_investors", "buyers", "investors")
_ROLE_OF = {"lead_investors": "lead_investor", "buyers": "buyer", "investors": "investor"}


#: The endpoint ``client.private.deals()`` reads (what the findings name).
_ENDPOINT = "POST /api/private/v1/transactions"


def _pages(ctx: Context, n: int) -> list[bytes]:
    return ctx.shared(f"deal_pages:{n}", lambda: load_synth().deal_pages(n))


# ---------------------------------------------------------------------------- parse


def parse_ours(pages: Sequence[bytes]) -> pd.DataFrame:
    """Raw page bytes → deals frame by the path ``client.private.deals()`` runs on each
    page's body (:class:`dealframe.private.list_pages.ListParse`, the same object the client
    builds its list calls with), without HTTP and without the walk's checks
    (``contract_checks_overhead`` times those): each body read as the transport reads it for
    the list (``ListParse.read``: typed rows, or orjson for a page of other rows), its items
    made columns as soon as it is read (``ListParse.page``), then every page's columns joined
    (``ListParse.frame``)."""
    from dealframe.contract import Findings
    from dealframe.private.list_pages import ListParse

    parse = ListParse("transactions", Findings(_ENDPOINT))
    parts = []
    for page in pages:
        doc, problem = parse.read(page)
        if doc is None:
            raise AssertionError(f"deals parse: the transport refused a page ({problem})")
        parts.append(parse.page(doc["data"]))
    return parse.frame(parts)[0]


def parse_baseline(pages: Sequence[bytes]) -> pd.DataFrame:
    """Raw page bytes → flat deals frame the obvious way: json.loads, json_normalize,
    to_datetime (mixed offsets need ``format="ISO8601"`` and ``utc=True``)."""
    records = [deal for page in pages for deal in json.loads(page)["data"]]
    frame = pd.json_normalize(records)
    frame["deal_date"] = pd.to_datetime(frame["deal_date"])
    for column in ("created_at", "updated_at"):
        frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
    return frame


def warm_imports() -> None:
    """Import and exercise both parse paths once on a tiny page (memory probe set-up)."""
    page = (
        b'{"data":[{"id":"a","deal_date":"2024-01-02","created_at":"2024-01-02T00:00:00Z",'
        b'"updated_at":"2024-01-02T00:00:00+01:00","deal_multiples":{"ev_revenue":1.0},'
        b'"target":{"id":"t"},"buyers":[],"lead_investors":[]}],"meta":{}}'
    )
    parse_ours([page])
    parse_baseline([page])


def _utc_micros(values: pd.Series) -> np.ndarray:
    if getattr(values.dtype, "tz", None) is not None:
        values = values.dt.tz_convert("UTC").dt.tz_localize(None)
    return values.to_numpy(dtype="datetime64[us]")


_PAIRS = [("id", "id"), ("target_id", "target.id"), ("deal_type", "deal_type")]
_FLOATS = [("ev_revenue", "deal_multiples.ev_revenue"), ("deal_valuation", "deal_valuation")]
_TIMES = ["deal_date", "created_at", "updated_at"]
_OURS_CHECKED = [a for a, _ in _PAIRS + _FLOATS] + _TIMES
_BASE_CHECKED = [b for _, b in _PAIRS + _FLOATS] + _TIMES


def _same_deals(ours: pd.DataFrame, base: pd.DataFrame) -> None:
    for a, b in _PAIRS:
        if not np.array_equal(ours[a].to_numpy(dtype=object), base[b].to_numpy(dtype=object)):
            raise AssertionError(f"deals parse: {a} differs from the baseline's {b}")
    for a, b in _FLOATS:
        if not np.array_equal(
            ours[a].to_numpy(dtype=float), base[b].to_numpy(dtype=float), equal_nan=True
        ):
            raise AssertionError(f"deals parse: {a} differs from the baseline's {b}")
    for c in _TIMES:
        if not np.array_equal(_utc_micros(ours[c]), _utc_micros(base[c])):
            raise AssertionError(f"deals parse: {c} differs from the baseline's")


#: What :func:`parse_baseline` does, as the parse figures name their baseline.
_PARSE_BASELINE = "json.loads + pandas.json_normalize + to_datetime(format='ISO8601', utc=True)"


@benchmark("deals_parse_speedup", "deals_parse_peak_mem_ratio")
def bench_deals_parse(ctx: Context) -> dict[str, Figure]:
    """Deal pages (1,000 deals each, raw bytes) → flattened, typed deals frame.

    Time: best of N in this process. Memory: each side once in a fresh interpreter, peak
    RSS growth during the call (``ru_maxrss`` minus the resident size just before).
    """
    n = ctx.parse_deals
    pages = _pages(ctx, n)
    t_ours, ours, t_base, base = interleaved(
        lambda: parse_ours(pages),
        lambda: parse_baseline(pages),
        ctx.heavy_repeat,
        keep=lambda f: f[_OURS_CHECKED].copy(),
        keep_base=lambda f: f[_BASE_CHECKED].copy(),
    )
    if len(ours) != n or len(base) != n:
        raise AssertionError(f"deals parse: {len(ours)} and {len(base)} rows, expected {n}")
    _same_deals(ours, base)
    del ours, base
    path = ctx.tmp / f"deal_pages_{n}.jsonl"
    with open(path, "wb") as fh:
        for page in pages:
            fh.write(page + b"\n")
    mem_ours = rss_peak_in_subprocess("bench_private", "parse_ours", path)
    mem_base = rss_peak_in_subprocess("bench_private", "parse_baseline", path)
    mb_ours, mb_base = mem_ours["growth"] / 2**20, mem_base["growth"] / 2**20
    page_mb = sum(map(len, pages)) / 2**20
    baseline = _PARSE_BASELINE
    fig = speedup(
        t_ours,
        t_base,
        unit=f"x ({n:,} deals in {len(pages)} pages of {page_mb:.0f} MB in total)",
        baseline=baseline,
        deals=n,
        pages_mb=page_mb,
    )
    mem = Figure(
        mb_ours / mb_base,
        "x (peak RSS growth, ours ÷ baseline, fresh subprocess each)",
        baseline,
        mb_ours / mb_base,
        {
            "ours_peak_mb": mb_ours,
            "baseline_peak_mb": mb_base,
            "deals": n,
            "notes": "VmHWM (reset before the call) minus VmRSS just before the call; "
            "the input pages are already loaded",
        },
    )
    return {"deals_parse_speedup": fig, "deals_parse_peak_mem_ratio": mem}


#: The member added to every item of the pages of ``deals_parse_speedup_extra_fields`` (the
#: sandbox's ``extra-fields`` profile adds one so named to every deal).
_EXTRA = "extra_field"


def _with_extra(pages: Sequence[bytes]) -> list[bytes]:
    """``pages`` with one member more in each item (``"extra_field": "x"``)."""
    out = []
    for page in pages:
        doc = orjson.loads(page)
        for item in doc["data"]:
            item[_EXTRA] = "x"
        out.append(orjson.dumps(doc))
    return out


@benchmark("deals_parse_speedup_extra_fields")
def bench_deals_parse_extra_fields(ctx: Context) -> dict[str, Figure]:
    """``deals_parse_speedup``'s pages with one member more in every item (the document
    allows members it does not name; the client keeps them as extra columns), against the
    same baseline on the same pages. No target: it shows that such pages are read as typed
    rows too, not by the JSON reading of other pages (about twice the time)."""
    n = ctx.parse_deals
    pages = ctx.shared(f"deal_pages_extra:{n}", lambda: _with_extra(_pages(ctx, n)))
    t_ours, ours, t_base, base = interleaved(
        lambda: parse_ours(pages),
        lambda: parse_baseline(pages),
        ctx.heavy_repeat,  # timed as deals_parse_speedup (just before it in a run)
        keep=lambda f: f[[*_OURS_CHECKED, _EXTRA]].copy(),
        keep_base=lambda f: f[[*_BASE_CHECKED, _EXTRA]].copy(),
    )
    if len(ours) != n or len(base) != n:
        raise AssertionError(f"deals parse: {len(ours)} and {len(base)} rows, expected {n}")
    _same_deals(ours, base)
    if ours[_EXTRA].tolist() != ["x"] * n or base[_EXTRA].tolist() != ["x"] * n:
        raise AssertionError(f"deals parse: {_EXTRA} is not the column served")
    page_mb = sum(map(len, pages)) / 2**20
    return {
        "deals_parse_speedup_extra_fields": speedup(
            t_ours,
            t_base,
            unit=f"x ({n:,} deals in {len(pages)} pages of {page_mb:.0f} MB in total, "
            f'"{_EXTRA}": "x" in every deal)',
            baseline=_PARSE_BASELINE,
            deals=n,
            pages_mb=page_mb,
        )
    }


# ---------------------------------------------------------------------------- explode


def explode_baseline(deals: pd.DataFrame, roles: Sequence[str] = _ROLES) -> pd.DataFrame:
    """One row per (deal, role, participant) the way a pandas user would: per participant
    column, ``json.loads`` of each cell (the frames hold JSON text), ``DataFrame.explode``,
    ``pandas.json_normalize`` of the participants, then concat and a stable sort by deal."""
    parts = []
    for role in roles:
        if role not in deals:
            continue
        rows = deals[[*_CARRIED, role]].reset_index(names="_deal")
        rows[role] = rows[role].map(json.loads, na_action="ignore")
        rows = rows.explode(role)
        rows = rows[rows[role].notna()].reset_index(drop=True)
        if rows.empty:
            continue
        people = pd.json_normalize(rows.pop(role).tolist()).add_prefix("participant_")
        parts.append(pd.concat([rows, people], axis=1).assign(role=_ROLE_OF[role]))
    out = pd.concat(parts, ignore_index=True).sort_values("_deal", kind="stable")
    return out.drop(columns="_deal").rename(columns={"id": "deal_id"}).reset_index(drop=True)


def _same_participants(ours: pd.DataFrame, base: pd.DataFrame) -> None:
    if len(ours) != len(base):
        raise AssertionError(f"explode: {len(ours)} rows vs the baseline's {len(base)}")
    for c in ("deal_id", "role", "participant_id", "participant_name"):
        if not np.array_equal(
            ours[c].astype(str).to_numpy(dtype=object), base[c].astype(str).to_numpy(dtype=object)
        ):
            raise AssertionError(f"explode: {c} differs from the baseline's")


def complete_deals(pages: Sequence[bytes]) -> pd.DataFrame:
    """Deals with full investor lists (leads and buyers, as single deals list them), shaped by
    the client's deals_frame: what ``deals(..., with_investors=True)`` returns."""
    from dealframe.frames.private import deals_frame

    items = [
        {**d, "investors": d["lead_investors"] + d["buyers"]}
        for page in pages
        for d in json.loads(page)["data"]
    ]
    return deals_frame(items, profile=True)


@benchmark("explode_speedup")
def bench_explode(ctx: Context) -> dict[str, Figure]:
    """Participants of a deals frame (lead_investors, buyers, investors: JSON text) exploded."""
    from dealframe.frames.participants import explode_participants

    n = ctx.explode_deals
    deals = ctx.shared(f"complete_deals:{n}", lambda: complete_deals(_pages(ctx, n)))
    checked = ["deal_id", "role", "participant_id", "participant_name"]
    t_ours, ours, t_base, base = interleaved(
        lambda: explode_participants(deals),
        lambda: explode_baseline(deals),
        ctx.heavy_repeat,
        warmup=1,  # a first call pays for fresh memory pages (up to 200 ms here), on both sides
        keep=lambda f: f[checked].copy(),
    )
    _same_participants(ours, base)
    text_mb = sum(deals[r].str.len().sum() for r in _ROLES) / 2**20
    return {
        "explode_speedup": speedup(
            t_ours,
            t_base,
            unit=f"x ({n:,} deals, {text_mb:.0f} MB of participant JSON → "
            f"{len(ours):,} participant rows)",
            baseline="per participant column: json.loads of each cell + DataFrame.explode + "
            "pandas.json_normalize, then concat + stable sort",
            deals=n,
            rows=len(ours),
            json_mb=text_mb,
            notes="both sides start from the same frame, whose participant columns are JSON text "
            "(the frames' representation since issue 15)",
        )
    }


# ---------------------------------------------------------------------------- pull


#: Samples a side of the pull figures, at least: a pull crosses the HTTP stack and a second
#: process (the sandbox), so its best of two moved the same code's end-to-end figure from 2.3
#: to 3.95 within minutes on this shared machine; four a side cost a few seconds more.
PULL_SAMPLES = 4


def _pull_speedup(ctx: Context, n: int, latency: float) -> Figure:
    where = f"{latency * 1000:.0f} ms simulated round trip" if latency else "loopback, no latency"
    with ctx.client(latency) as conc, ctx.client(latency, max_workers=1) as seq:
        workers = conc.settings.max_workers
        conc.private.deals(limit=n)  # warm the sandbox
        t_conc, a, t_seq, b = interleaved(
            lambda: conc.private.deals(limit=n),
            lambda: seq.private.deals(limit=n),
            ctx.samples(PULL_SAMPLES, ctx.heavy_repeat),
            keep=lambda f: (f[["id"]].copy(), f.attrs.get("requests")),
        )
    (a, requests), (b, _) = a, b
    if len(a) != len(b) or not np.array_equal(
        a["id"].to_numpy(dtype=object), b["id"].to_numpy(dtype=object)
    ):
        raise AssertionError("deals pull: concurrent and sequential pulls differ")
    return speedup(
        t_conc,
        t_seq,
        unit=f"x ({len(a):,} deals, {requests} pages of 1,000, "
        f"max_workers={workers} vs 1, {where})",
        baseline="the same client.private.deals() with max_workers=1 (pages one after another)",
        deals=len(a),
        max_workers=workers,
        latency_s=latency,
        notes=f"sandbox in a {ctx.sandbox_mode} at scale {ctx.scale}; cache off; {where}; pull "
        "includes shaping into the deals frame",
    )


@benchmark("deals_pull_50k_speedup", "deals_pull_50k_speedup_loopback")
def bench_deals_pull(ctx: Context) -> dict[str, Figure]:
    """``client.private.deals()`` from the sandbox: concurrent pages vs ``max_workers=1``,
    after a simulated round trip per request and at bare loopback speed.

    A first, untimed pull makes the sandbox serialise every row once (it keeps the bytes),
    so both sides read a warm server.
    """
    n = ctx.pull_deals
    return {
        "deals_pull_50k_speedup": _pull_speedup(ctx, n, NETWORK_LATENCY),
        "deals_pull_50k_speedup_loopback": _pull_speedup(ctx, n, 0.0),
    }


# ---------------------------------------------------------------------------- end to end


def pull_baseline(url: str, key: str, n: int) -> pd.DataFrame:
    """What a user writes without dealframe: a ``requests`` loop over the pages, then
    ``json_normalize`` and the timestamp conversions (as in :func:`parse_baseline`)."""
    import requests

    records: list[dict] = []
    with requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {key}"
        page = 1
        while len(records) < n:
            reply = session.post(
                f"{url}/api/private/v1/transactions", json={"page": page, "limit": 1000}
            )
            reply.raise_for_status()
            body = reply.json()
            records += body["data"]
            if not body["meta"]["has_more"]:
                break
            page += 1
    frame = pd.json_normalize(records[:n])
    frame["deal_date"] = pd.to_datetime(frame["deal_date"])
    for column in ("created_at", "updated_at"):
        frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
    return frame


@benchmark("deals_pull_end_to_end_speedup")
def bench_deals_pull_end_to_end(ctx: Context) -> dict[str, Figure]:
    """``client.private.deals()`` of about 50,000 deals from a zero-latency sandbox, against a
    plain ``requests`` page loop + ``json_normalize``, both in this run (issue 13)."""
    n = ctx.e2e_deals
    sb = ctx.sandbox(0.0)
    with ctx.client(0.0) as client:
        client.private.deals(limit=n)  # warm the sandbox (it keeps serialised rows)
        t_ours, ours, t_base, base = interleaved(
            lambda: client.private.deals(limit=n),
            lambda: pull_baseline(sb.url, sb.private_key, n),
            ctx.samples(PULL_SAMPLES, ctx.heavy_repeat),
            keep=lambda f: f[_OURS_CHECKED].copy(),
            keep_base=lambda f: f[_BASE_CHECKED].copy(),
        )
        workers = client.settings.max_workers
    if len(ours) != len(base):
        raise AssertionError(f"deals pull: {len(ours)} rows vs the baseline's {len(base)}")
    _same_deals(ours, base)
    return {
        "deals_pull_end_to_end_speedup": speedup(
            t_ours,
            t_base,
            unit=f"x ({len(ours):,} deals in pages of 1,000, loopback, max_workers={workers})",
            baseline="requests.Session page loop + json.loads + pandas.json_normalize + to_datetime",
            deals=len(ours),
            notes=f"sandbox in a {ctx.sandbox_mode} at scale {ctx.scale}; cache off; "
            "both sides include transfer, parse and shaping",
        )
    }
