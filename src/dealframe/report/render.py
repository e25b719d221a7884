"""One self-contained HTML page: inline CSS, PNG charts as base64 ``data:`` URIs, no links out.

A page is a list of :class:`Section`; a section is a list of blocks
(:class:`Text`, :class:`Image`, :class:`Table`, :class:`Row` to put blocks side
by side). Everything shown is escaped.

Examples
--------
>>> page = render_page("T", [("group", "x")], [Section("s", "S", (Text("hi"),))], [])
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

__all__ = ["Image", "Row", "Section", "Table", "Text", "format_frame", "render_page", "table"]


@dataclass(frozen=True)
class Text:
    """A paragraph (plain text, escaped)."""

    text: str
    css: str = ""


@dataclass(frozen=True)
class Image:
    """A PNG chart, inlined."""

    png: bytes
    alt: str


@dataclass(frozen=True)
class Table:
    """An HTML table already rendered by :func:`table`, with a caption."""

    html: str
    caption: str = ""


@dataclass(frozen=True)
class Row:
    """Blocks laid out side by side (wrapping on narrow screens)."""

    blocks: tuple[Block, ...]


Block = Text | Image | Table | Row


@dataclass(frozen=True)
class Section:
    """A titled part of the report; ``id`` is its anchor."""

    id: str
    title: str
    blocks: tuple[Block, ...]


def _cell(value: object, spec: str | None) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA \
            or value is pd.NaT:
        return "–"
    if spec is not None and isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, bool):
        return spec.format(value)
    if isinstance(value, pd.Timestamp):
        return value.date().isoformat()
    return str(value)


def format_frame(frame: pd.DataFrame, formats: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Every cell as display text: per-column format specs, ``–`` for missing values.

    Examples
    --------
    >>> format_frame(pd.DataFrame({"x": [1.234, None]}), {"x": "{:.1f}x"})["x"].tolist()
    ['1.2x', '–']
    """
    formats = dict(formats or {})
    out = pd.DataFrame(index=frame.index)
    for column in frame.columns:
        spec = formats.get(str(column))
        out[column] = [_cell(v, spec) for v in frame[column].astype(object).tolist()]
    return out


def table(frame: pd.DataFrame, *, formats: Mapping[str, str] | None = None,
          labels: Mapping[str, str] | None = None, index: bool = True, scroll: bool = False,
          caption: str = "") -> Table:
    """Render ``frame`` as an escaped HTML table block.

    Parameters
    ----------
    formats : mapping, optional
        Column name to a ``str.format`` spec, e.g. ``"{:.1f}%"``.
    labels : mapping, optional
        Column name to header text.
    index : bool
        Show the index as the first column.
    scroll : bool
        Cap the height (long tables scroll inside the page).

    Examples
    --------
    >>> "<table" in table(pd.DataFrame({"a": [1]})).html
    True
    """
    shown = format_frame(frame, formats)
    if labels:
        shown = shown.rename(columns={k: v for k, v in labels.items() if k in shown.columns})
    body = shown.to_html(index=index, border=0, escape=True, classes="data", na_rep="–")
    css = "table-wrap scroll" if scroll else "table-wrap"
    return Table(f'<div class="{css}">{body}</div>', caption)


_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1d2733;
background:#f6f7f9;line-height:1.45}
header{background:#1f5f8b;color:#fff;padding:22px 32px}
header h1{margin:0 0 6px 0;font-size:24px}
header dl{display:flex;flex-wrap:wrap;gap:4px 22px;margin:0;font-size:13px;opacity:.92}
header dt{font-weight:600} header dd{margin:0 0 0 4px}
header div{display:flex}
nav{padding:10px 32px;background:#fff;border-bottom:1px solid #e1e5ea;font-size:14px}
nav a{margin-right:18px;color:#1f5f8b;text-decoration:none}
main{padding:8px 32px 40px 32px;max-width:1500px}
section{background:#fff;border:1px solid #e1e5ea;border-radius:6px;padding:14px 22px;
margin:18px 0}
section h2{margin:4px 0 8px 0;font-size:19px}
p{margin:6px 0 10px 0;max-width:960px} p.summary{font-weight:600;color:#1f5f8b}
.row{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.row>*{flex:1 1 480px;min-width:0}
img{max-width:100%;height:auto}
figure{margin:8px 0}
.table-wrap{overflow-x:auto;margin:6px 0 12px 0}
.table-wrap.scroll{max-height:460px;overflow-y:auto}
table.data{border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums}
table.data th,table.data td{padding:3px 8px;border-bottom:1px solid #edf0f3;text-align:right;
white-space:nowrap}
table.data th{background:#f1f4f7;position:sticky;top:0}
table.data td:first-child,table.data th:first-child{text-align:left}
.caption{font-size:13px;font-weight:600;margin:10px 0 2px 0}
footer{padding:0 32px 30px 32px;font-size:12px;color:#5b6875}
footer code{background:#eef1f4;padding:1px 4px;border-radius:3px}
"""


def _block(block: Block) -> str:
    if isinstance(block, Text):
        css = f' class="{html.escape(block.css)}"' if block.css else ""
        return f"<p{css}>{html.escape(block.text)}</p>"
    if isinstance(block, Image):
        data = base64.b64encode(block.png).decode("ascii")
        return (f'<figure><img alt="{html.escape(block.alt)}" '
                f'src="data:image/png;base64,{data}"></figure>')
    if isinstance(block, Table):
        caption = f'<div class="caption">{html.escape(block.caption)}</div>' if block.caption else ""
        return f"<div>{caption}{block.html}</div>"
    if isinstance(block, Row):
        return '<div class="row">' + "".join(f"<div>{_block(b)}</div>" for b in block.blocks) \
            + "</div>"
    raise TypeError(f"not a report block: {block!r}")


def render_page(title: str, facts: Sequence[tuple[str, str]], sections: Sequence[Section],
                files: Sequence[str]) -> str:
    """The whole page as one string.

    Parameters
    ----------
    title : str
        Page title.
    facts : sequence of (label, value)
        Shown under the title (group, window, source, generated at ...).
    sections : sequence of Section
        In order; a navigation bar links to each.
    files : sequence of str
        Names of the table files written beside the page, listed in the footer.
    """
    head = "".join(f"<div><dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd></div>"
                   for k, v in facts)
    nav = "".join(f'<a href="#{html.escape(s.id)}">{html.escape(s.title)}</a>' for s in sections)
    body = "".join(
        f'<section id="{html.escape(s.id)}"><h2>{html.escape(s.title)}</h2>'
        + "".join(_block(b) for b in s.blocks) + "</section>" for s in sections)
    listed = ", ".join(f"<code>{html.escape(f)}</code>" for f in files)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<header><h1>{html.escape(title)}</h1><dl>{head}</dl></header>"
            f"<nav>{nav}</nav><main>{body}</main>"
            f"<footer>The tables behind this page are in the same folder as Parquet and CSV: "
            f"{listed}. Made by dealframe.</footer></body></html>\n")
