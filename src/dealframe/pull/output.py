"""Writing a pulled frame to ``.parquet``, ``.csv`` or ``.xlsx``, readable by any tool.

The file is checked before anything starts, without creating anything (a known extension, a
folder that exists or can be created and written, openpyxl installed for ``.xlsx``), and
written under a temporary name, then renamed, so a failed pull never leaves half a file. What is written:

- the frame's named index (``sku`` ...) as the first column;
- list and nested columns (participants, verticals, tags) as JSON text, which every reader
  (``pd.read_parquet``, a spreadsheet, DuckDB) takes, and ``json.loads`` turns back into lists;
- monthly periods as their first day; in ``.xlsx``, timestamps in UTC without the offset
  (Excel has no time zones).

Examples
--------
>>> import pandas as pd, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "deals.csv"
>>> frame = pd.DataFrame({"id": ["d1"], "buyers": [[{"id": "b", "name": "B"}]]})
>>> _ = write_frame(frame, check_output(path))
>>> path.read_text().splitlines()[1]
'd1,"[{""id"": ""b"", ""name"": ""B""}]"'
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dealframe.arguments import checked_keywords, expanded_path
from dealframe.clitools import check_folder
from dealframe.errors import ValidationError, did_you_mean, needs_extra

__all__ = [
    "FORMATS",
    "Output",
    "check_output",
    "portable_frame",
    "write_atomic",
    "write_frame",
]

#: File extensions and their formats.
FORMATS: dict[str, str] = {".parquet": "parquet", ".csv": "csv", ".xlsx": "xlsx"}
#: Rows a worksheet holds (Excel's limit, header included).
EXCEL_MAX_ROWS = 1_048_576


@dataclass(frozen=True)
class Output:
    """A checked output file: its path and format, and the folders writing it creates
    (deepest first; :func:`~dealframe.clitools.check_folder`)."""

    path: Path
    format: str
    creates: tuple[Path, ...] = ()


@checked_keywords
def check_output(path: str | os.PathLike[str]) -> Output:
    """Check an output file before anything starts; creates nothing.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming ``path`` (``-o`` in ``dealframe pull``): an unknown extension (with the
        closest one), a folder that cannot be created or written, a path that is a folder.
    dealframe.errors.ExtraMissing
        ``.xlsx`` without openpyxl (an ``ImportError`` naming ``dealframe[excel]``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     output = check_output(pathlib.Path(tmp) / "deals.parquet")
    ...     print(output.format, output.path.name, output.path.exists())
    parquet deals.parquet False
    >>> check_output("deals.parquer")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid path: expected a file name ending in .parquet, .csv or .xlsx (did you mean '.parquet'?), got 'deals.parquer'
    """
    return _checked_output(path, "path")


def _checked_output(path: Any, argument: str) -> Output:
    """:func:`check_output`, its errors naming ``argument``."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ValidationError(argument, "a file name ending in .parquet, .csv or .xlsx", got=path)
    target = expanded_path(path, argument)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        raise ValidationError(
            argument,
            f"a file name ending in .parquet, .csv or .xlsx"
            f"{did_you_mean(suffix, list(FORMATS)) if suffix else ''}",
            got=str(path),
        )
    if target.is_dir():
        raise ValidationError(argument, "a file name, not a folder", got=str(path))
    if FORMATS[suffix] == "xlsx":
        with needs_extra(".xlsx output", "excel", "openpyxl"):
            import openpyxl  # noqa: F401
    creates = check_folder(target.parent, argument)
    return Output(target, FORMATS[suffix], tuple(creates))


def _frame(frame: Any) -> pd.DataFrame:
    """``frame`` if it is a DataFrame, else a ``ValidationError`` naming ``frame``."""
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("frame", "a pandas DataFrame", got=type(frame).__name__)
    return frame


def _json(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return json.dumps(value, default=str, ensure_ascii=False)


def _nested(column: pd.Series) -> bool:
    dtype = column.dtype
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        t = dtype.pyarrow_dtype
        return (
            pa.types.is_list(t)
            or pa.types.is_large_list(t)
            or pa.types.is_struct(t)
            or pa.types.is_map(t)
        )
    if pd.api.types.is_object_dtype(dtype):
        sample = column.dropna().head(50)
        return any(isinstance(v, (list, tuple, dict, np.ndarray)) for v in sample)
    return False


@checked_keywords
def portable_frame(frame: pd.DataFrame, excel: bool = False) -> pd.DataFrame:
    """The frame as written: named index as a column, nested columns as JSON text, periods
    as dates, (for Excel) timestamps in UTC without an offset.

    Raises
    ------
    dealframe.errors.ValidationError
        ``frame`` is not a DataFrame.

    Examples
    --------
    >>> f = pd.DataFrame({"tags": [["a", "b"], None]}, index=pd.Index(["X", "Y"], name="sku"))
    >>> portable_frame(f)["tags"].tolist()
    ['["a", "b"]', nan]
    """
    out = _frame(frame).copy()
    out.attrs = {}
    if isinstance(out.index, pd.PeriodIndex):
        out.index = out.index.to_timestamp().rename(out.index.name)
    if not (isinstance(out.index, pd.RangeIndex) and out.index.name is None):
        out = out.reset_index()
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = ["|".join(str(c) for c in col if str(c)) for col in out.columns]
    out.columns = [str(c) for c in out.columns]
    for name in out.columns:
        column = out[name]
        if isinstance(column.dtype, pd.PeriodDtype):
            out[name] = column.dt.to_timestamp()
        elif _nested(column):
            out[name] = pd.array([_json(v) for v in column.astype(object).tolist()], dtype="str")
        elif excel and isinstance(column.dtype, pd.DatetimeTZDtype):
            out[name] = column.dt.tz_convert("UTC").dt.tz_localize(None)
    return out


def write_atomic(path: Path, write: Callable[[Path], object]) -> Path:
    """``write(tmp)`` to a temporary name beside ``path``, then renamed to it: a failed write
    leaves no half file. The writer creates the file itself, so it gets the usual (umask)
    mode; the temporary name keeps the suffix, for writers that go by it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp{path.suffix}"
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


@checked_keywords
def write_frame(frame: pd.DataFrame, output: Output | str | os.PathLike[str]) -> Path:
    """Write ``frame`` to ``output`` (see the module docstring for what is converted).

    Parameters
    ----------
    frame : pandas.DataFrame
        What to write.
    output : Output, str or path
        A file checked by :func:`check_output`, or its path: ``"deals.parquet"`` is checked
        as :func:`check_output` checks it (the extension gives the format).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    dealframe.errors.ValidationError
        ``frame`` is not a DataFrame; ``output`` is neither an :class:`Output` nor a path
        :func:`check_output` takes; more rows than an Excel sheet holds (naming ``output``;
        ``-o`` in ``dealframe pull``).
    dealframe.errors.ExtraMissing
        An ``.xlsx`` path without openpyxl installed (``pip install "dealframe[excel]"``).
    OSError
        The disk refused the write.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> frame = pd.DataFrame({"tags": [["a", "b"], []]}, index=pd.Index(["d1", "d2"], name="id"))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_frame(frame, check_output(pathlib.Path(tmp) / "deals.parquet"))
    ...     print(path.name, pd.read_parquet(path).to_dict("list"))
    deals.parquet {'id': ['d1', 'd2'], 'tags': ['["a", "b"]', '[]']}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_frame(frame, pathlib.Path(tmp) / "deals.csv").name
    'deals.csv'
    """
    frame = _frame(frame)
    if not isinstance(output, Output):
        if not isinstance(output, (str, os.PathLike)):
            raise ValidationError(
                "output",
                "an Output (from check_output) or a file path ending in .parquet, .csv or .xlsx",
                got=type(output).__name__,
            )
        output = _checked_output(output, "output")
    data = portable_frame(frame, excel=output.format == "xlsx")
    if output.format == "parquet":
        return write_atomic(
            output.path, lambda p: data.to_parquet(p, engine="pyarrow", index=False)
        )
    if output.format == "csv":
        return write_atomic(output.path, lambda p: data.to_csv(p, index=False))
    if len(data) + 1 > EXCEL_MAX_ROWS:
        raise ValidationError(
            "output",
            f"a .parquet or .csv file: {len(data):,} rows do not fit "
            f"in an Excel sheet ({EXCEL_MAX_ROWS - 1:,} at most)",
            got=str(output.path),
        )
    return write_atomic(output.path, lambda p: data.to_excel(p, index=False, engine="openpyxl"))
