"""One self-contained HTML page: inline CSS, PNG charts as base64 ``data:`` URIs, no links out.

A page is a list of :class:`Section`; a section is a list of blocks (:class:`Text`,
:class:`Bullets`, :class:`Cards`, :class:`Chart`, :class:`Table`, :class:`Row` to put blocks
side by side). Everything shown is escaped. Missing values are written "n/a", infinite ones
"inf" or "-inf" (without the column's unit: never "infx"); a figure that rounds to zero is
written without a sign ("0", "0%", never "-0" or "+0%").

Examples
--------
>>> page = render_page("T", "sub", [("as of", "x")], [Section("s", "S", (Text("hi"),))], [])
>>> '<section id="s">' in page and "<script" not in page
True
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dealframe._figures import number

__all__ = [
    "Bullets",
    "Cards",
    "Chart",
    "Heading",
    "Row",
    "Section",
    "Table",
    "Text",
    "format_frame",
    "number",
    "render_page",
    "table",
]

MISSING = "n/a"
#: How an infinite value is written (by its sign): without the column's unit or format.
NOT_FINITE = {True: "inf", False: "-inf"}


@dataclass(frozen=True)
class Text:
    """A paragraph (plain text, escaped); ``css`` ``note`` or ``lead`` change its look."""

    text: str
    css: str = ""


@dataclass(frozen=True)
class Heading:
    """A sub-heading inside a section."""

    text: str


@dataclass(frozen=True)
class Bullets:
    """A list of short sentences."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Cards:
    """Headline figures: (label, value, detail) each."""

    cards: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Chart:
    """A PNG chart, inlined, with its alt text (also shown on request as a caption)."""

    png: bytes
    alt: str


@dataclass(frozen=True)
class Table:
    """An HTML table already rendered by :func:`table`, with a caption and a note."""

    html: str
    caption: str = ""
    note: str = ""


@dataclass(frozen=True)
class Row:
    """Blocks laid out side by side (stacked on narrow screens)."""

    blocks: tuple[Block, ...]


Block = Text | Heading | Bullets | Cards | Chart | Table | Row


@dataclass(frozen=True)
class Section:
    """A titled part of the report; ``id`` is its anchor; ``css`` ``appendix`` dims it."""

    id: str
    title: str
    blocks: tuple[Block, ...]
    css: str = ""


def _missing(value: object) -> bool:
    return (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, (float, np.floating)) and np.isnan(value))
    )


def _cell(value: object, spec: str | None) -> str:
    if _missing(value):
        return MISSING
    if isinstance(value, (float, np.floating)) and np.isinf(value):
        return NOT_FINITE[bool(value > 0)]  # as read (a service's "Infinity"), no unit: not "infx"
    if (
        spec is not None
        and isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, (bool, np.bool_))
    ):
        return number(value, spec)
    if isinstance(value, (pd.Timestamp, np.datetime64)):
        return pd.Timestamp(value).date().isoformat()
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return number(value, "{:,.2f}")
    return str(value)


def format_frame(frame: pd.DataFrame, formats: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Every cell as display text: per-column format specs (through :func:`number`, so a
    figure that rounds to zero has no sign), ``n/a`` for missing values.

    Text cells (such as "NM") are kept as they are.

    Examples
    --------
    >>> format_frame(pd.DataFrame({"x": [1.234, None, "NM"]}), {"x": "{:.1f}x"})["x"].tolist()
    ['1.2x', 'n/a', 'NM']
    >>> format_frame(pd.DataFrame({"x": [-0.46, -0.5, -0.51]}), {"x": "{:,.0f}"})["x"].tolist()
    ['0', '0', '-1']
    >>> format_frame(pd.DataFrame({"x": [float("inf"), -float("inf")]}), {"x": "{:.1f}x"})["x"].tolist()
    ['inf', '-inf']
    """
    formats = dict(formats or {})
    out = pd.DataFrame(index=frame.index)
    for column in frame.columns:
        spec = formats.get(str(column))
        out[column] = [_cell(v, spec) for v in frame[column].astype(object).tolist()]
    return out


def table(
    frame: pd.DataFrame,
    *,
    formats: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    index: bool = True,
    scroll: bool = False,
    caption: str = "",
    note: str = "",
    lead_rows: int = 0,
    empty: str = "",
) -> Table:
    """Render ``frame`` as an escaped HTML table block.

    Parameters
    ----------
    formats : mapping, optional
        Column name to a ``str.format`` spec, e.g. ``"{:.1f}%"``.
    labels : mapping, optional
        Column name (or index name) to header text.
    index : bool
        Show the index as the first column.
    scroll : bool
        Cap the height (long tables scroll inside the page, the header stays).
    note : str
        A line under the table (a rule, a source).
    lead_rows : int
        The first rows are summary rows (bold, ruled off from the rest).
    empty : str
        Why the table has no row, written in its place when ``frame`` has none (a table of
        headers only says nothing); default "No rows."

    Examples
    --------
    >>> "<table" in table(pd.DataFrame({"a": [1]})).html
    True
    >>> table(pd.DataFrame({"a": []}), empty="No deals in the window.").html
    '<p class="empty">No deals in the window.</p>'
    """
    if not len(frame):
        return Table(f'<p class="empty">{html.escape(empty or "No rows.")}</p>', caption, note)
    shown = format_frame(frame, formats)
    labels = dict(labels or {})
    heads = ([labels.get(str(frame.index.name), str(frame.index.name or ""))] if index else []) + [
        labels.get(str(c), str(c)) for c in shown.columns
    ]
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) or str(c) in (formats or {}) for c in frame.columns
    ]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    body = []
    for i, (key, row) in enumerate(zip(frame.index, shown.itertuples(index=False))):
        css = (
            ' class="lead"'
            if i < lead_rows
            else (' class="first"' if i == lead_rows and lead_rows else "")
        )
        cells = [f'<th scope="row">{html.escape(_cell(key, None))}</th>'] if index else []
        cells += [
            f'<td class="{"num" if num else "txt"}">{html.escape(v)}</td>'
            for v, num in zip(row, numeric)
        ]
        body.append(f"<tr{css}>{''.join(cells)}</tr>")
    css = "table-wrap scroll" if scroll else "table-wrap"
    markup = (
        f'<div class="{css}"><table class="data"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    return Table(markup, caption, note)


_CSS = """
*{box-sizing:border-box}
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1d2733;
background:#f6f7f9;line-height:1.45}
header{background:#1f5f8b;color:#fff;padding:20px 32px}
header h1{margin:0 0 4px 0;font-size:24px}
header .sub{margin:0 0 10px 0;font-size:15px;opacity:.95}
header dl{display:flex;flex-wrap:wrap;gap:4px 22px;margin:0;font-size:13px;opacity:.92}
header dt{font-weight:600} header dd{margin:0 0 0 4px} header div{display:flex}
nav{padding:10px 32px;background:#fff;border-bottom:1px solid #e1e5ea;font-size:14px;
position:sticky;top:0;z-index:2;overflow-x:auto;white-space:nowrap}
nav a{margin-right:18px;color:#1f5f8b;text-decoration:none;white-space:nowrap}
main{padding:8px 32px 40px 32px;max-width:1500px}
section{background:#fff;border:1px solid #e1e5ea;border-radius:6px;padding:14px 22px;
margin:18px 0}
section.appendix{background:#fbfbfc}
section.appendix h2{color:#5b6875}
section h2{margin:4px 0 8px 0;font-size:19px}
h3{font-size:15px;margin:16px 0 4px 0}
p{margin:6px 0 10px 0;max-width:980px} p.note{font-size:12px;color:#5b6875}
p.empty{font-size:14px;color:#5b6875;font-style:italic}
p.lead{font-size:15px}
ul.bullets{margin:6px 0 12px 0;padding-left:20px;max-width:980px;font-size:15px}
ul.bullets li{margin:3px 0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));gap:12px;
margin:10px 0 14px 0}
.card{border:1px solid #e1e5ea;border-radius:6px;padding:10px 12px;background:#f9fbfc}
.card .label{font-size:12px;color:#5b6875;text-transform:uppercase;letter-spacing:.03em}
.card .value{font-size:26px;font-weight:650;color:#1f5f8b;margin:2px 0}
.card .detail{font-size:12px;color:#3d4a57}
.row{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.row>*{flex:1 1 460px;min-width:0}
img{max-width:100%;height:auto;display:block}
figure{margin:8px 0}
figcaption{font-size:12px;color:#5b6875;max-width:760px}
.table-wrap{overflow-x:auto;margin:6px 0 4px 0;max-width:100%}
.table-wrap.scroll{max-height:520px;overflow-y:auto}
table.data{border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums}
table.data th,table.data td{padding:3px 8px;border-bottom:1px solid #edf0f3;white-space:nowrap}
table.data td.num{text-align:right} table.data td.txt{text-align:left}
table.data thead th{background:#f1f4f7;position:sticky;top:0;text-align:center;z-index:1}
table.data tbody th{text-align:left;font-weight:500}
table.data tr.lead td,table.data tr.lead th{font-weight:700;background:#f4f8fb}
table.data tr.first td,table.data tr.first th{border-top:2px solid #9aa5b1}
.caption{font-size:13px;font-weight:600;margin:12px 0 2px 0}
footer{padding:0 32px 30px 32px;font-size:12px;color:#5b6875}
footer code,section code{background:#eef1f4;padding:1px 4px;border-radius:3px}
@media (max-width:700px){header,nav,main,footer{padding-left:12px;padding-right:12px}
section{padding:10px 12px} .card .value{font-size:22px} header h1{font-size:20px}}
@media print{nav{position:static}}
"""


def _block(block: Block) -> str:
    if isinstance(block, Text):
        css = f' class="{html.escape(block.css)}"' if block.css else ""
        return f"<p{css}>{html.escape(block.text)}</p>"
    if isinstance(block, Heading):
        return f"<h3>{html.escape(block.text)}</h3>"
    if isinstance(block, Bullets):
        return (
            '<ul class="bullets">'
            + "".join(f"<li>{html.escape(i)}</li>" for i in block.items)
            + "</ul>"
        )
    if isinstance(block, Cards):
        return (
            '<div class="cards">'
            + "".join(
                f'<div class="card"><div class="label">{html.escape(label)}</div>'
                f'<div class="value">{html.escape(value)}</div>'
                f'<div class="detail">{html.escape(detail)}</div></div>'
                for label, value, detail in block.cards
            )
            + "</div>"
        )
    if isinstance(block, Chart):
        data = base64.b64encode(block.png).decode("ascii")
        return (
            f'<figure><img alt="{html.escape(block.alt)}" '
            f'src="data:image/png;base64,{data}"></figure>'
        )
    if isinstance(block, Table):
        caption = (
            f'<div class="caption">{html.escape(block.caption)}</div>' if block.caption else ""
        )
        note = f'<p class="note">{html.escape(block.note)}</p>' if block.note else ""
        return f"<div>{caption}{block.html}{note}</div>"
    if isinstance(block, Row):
        return (
            '<div class="row">'
            + "".join(f"<div>{_block(b)}</div>" for b in block.blocks)
            + "</div>"
        )
    raise TypeError(f"not a report block: {block!r}")


def render_page(
    title: str,
    subtitle: str,
    facts: Sequence[tuple[str, str]],
    sections: Sequence[Section],
    files: Sequence[str],
) -> str:
    """The whole page as one string.

    Parameters
    ----------
    title, subtitle : str
        Page title and the line under it.
    facts : sequence of (label, value)
        Shown under the title (as-of date, cohort, window ...).
    sections : sequence of Section
        In order; a navigation bar links to each.
    files : sequence of str
        Names of the table files written beside the page, listed in the footer.
    """
    head = "".join(
        f"<div><dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd></div>" for k, v in facts
    )
    nav = "".join(f'<a href="#{html.escape(s.id)}">{html.escape(s.title)}</a>' for s in sections)
    body = "".join(
        f'<section id="{html.escape(s.id)}"'
        + (f' class="{html.escape(s.css)}"' if s.css else "")
        + f"><h2>{html.escape(s.title)}</h2>"
        + "".join(_block(b) for b in s.blocks)
        + "</section>"
        for s in sections
    )
    listed = ", ".join(f"<code>{html.escape(f)}</code>" for f in files)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f'<header><h1>{html.escape(title)}</h1><p class="sub">{html.escape(subtitle)}</p>'
        f"<dl>{head}</dl></header><nav>{nav}</nav><main>{body}</main>"
        f"<footer>The tables behind this page are in the same folder as Parquet and CSV: "
        f"{listed}. Made by dealframe.</footer></body></html>\n"
    )
