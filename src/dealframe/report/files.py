"""Writing the report's outputs: the output folder, the tables (Parquet + CSV), the page.

Every file is written to a temporary name in the folder and renamed into
place, so a reader never sees half a file and a failed run leaves the previous
report whole.

Tables are written as the report shows them, with two conversions for tools
other than pandas: ``attrs`` are dropped from the files (``manifest.json`` holds
each table's, :func:`json_safe`) and monthly periods become the first day of the
month (``datetime64``).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dealframe.arguments import expanded_path
from dealframe.errors import ValidationError
from dealframe.pull.output import write_atomic

__all__ = [
    "json_safe",
    "portable",
    "prepare_out_dir",
    "write_bytes",
    "write_manifest",
    "write_tables",
    "write_text",
]


def prepare_out_dir(out_dir: str | os.PathLike[str]) -> Path:
    """Create ``out_dir`` if needed and check that files can be written in it.

    Raises
    ------
    dealframe.errors.ValidationError
        The path is empty or blank, a file, cannot be created, or is not writable.

    Examples
    --------
    >>> import tempfile
    >>> prepare_out_dir(tempfile.mkdtemp()).is_dir()
    True
    """
    if not isinstance(out_dir, (str, os.PathLike)) or not str(out_dir).strip():
        raise ValidationError("out_dir", "a folder path (not empty or blank)", got=out_dir)
    path = expanded_path(out_dir, "out_dir")
    expected = "a folder that can be created and written to"
    if path.exists() and not path.is_dir():
        raise ValidationError("out_dir", f"{expected} (it is a file)", got=str(path))
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".dealframe-probe-"):
            pass
    except OSError as exc:
        raise ValidationError(
            "out_dir", f"{expected} ({exc.strerror or exc})", got=str(path)
        ) from None
    return path


def write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return write_atomic(path, lambda p: p.write_bytes(data))


def write_text(path: Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def portable(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy without ``attrs`` and with monthly periods as first-of-month datetimes.

    Examples
    --------
    >>> f = pd.DataFrame({"x": [1.0]}, index=pd.PeriodIndex(["2024-03"], freq="M", name="month"))
    >>> f.attrs["a"] = 1
    >>> p = portable(f)
    >>> p.index[0], p.attrs
    (Timestamp('2024-03-01 00:00:00'), {})
    """
    out = frame.copy()
    out.attrs = {}
    if isinstance(out.index, pd.PeriodIndex):
        out.index = out.index.to_timestamp().rename(out.index.name)
    for column in out.columns:
        if isinstance(out[column].dtype, pd.PeriodDtype):
            out[column] = out[column].dt.to_timestamp()
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = ["|".join(map(str, c)) for c in out.columns]
    out.columns = [str(c) for c in out.columns]
    return out


def _writer(data: pd.DataFrame, keep: bool, kind: str) -> Callable[[Path], object]:
    if kind == "parquet":
        return lambda p: data.to_parquet(p, engine="pyarrow", index=keep)
    return lambda p: data.to_csv(p, index=keep)


def write_tables(tables: Mapping[str, pd.DataFrame], out_dir: Path) -> dict[str, dict[str, Path]]:
    """Write each table as ``<name>.parquet`` and ``<name>.csv`` in ``out_dir``.

    Returns
    -------
    dict
        ``{name: {"parquet": path, "csv": path}}``.

    Examples
    --------
    >>> import tempfile
    >>> out = write_tables({"t": pd.DataFrame({"a": [1, 2]})}, Path(tempfile.mkdtemp()))
    >>> pd.read_parquet(out["t"]["parquet"])["a"].tolist()
    [1, 2]
    """
    written: dict[str, dict[str, Path]] = {}
    for name, frame in tables.items():
        data = portable(frame)
        keep = not (isinstance(data.index, pd.RangeIndex) and data.index.name is None)
        parquet = write_atomic(out_dir / f"{name}.parquet", _writer(data, keep, "parquet"))
        csv = write_atomic(out_dir / f"{name}.csv", _writer(data, keep, "csv"))
        written[name] = {"parquet": parquet, "csv": csv}
    return written


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON values: mappings as objects (keys as text), tuples, sets and
    arrays as lists, NumPy scalars as Python numbers, a missing or infinite number as
    ``null``, dates and times in ISO 8601, periods and any other value as text.

    Examples
    --------
    >>> json_safe({"n": np.int64(3), "span": ("2024-01", None), "x": float("nan")})
    {'n': 3, 'span': ['2024-01', None], 'x': None}
    >>> json_safe({1: pd.Timestamp("2024-03-01"), "p": pd.Period("2024-03", "M"), "ok": True})
    {'1': '2024-03-01T00:00:00', 'p': '2024-03', 'ok': True}
    >>> json_safe([np.datetime64("2024-03-01", "ns"), np.datetime64("NaT"), np.bool_(False)])
    ['2024-03-01T00:00:00', None, False]
    """
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray, pd.Index, pd.Series)):
        return [
            json_safe(v)
            for v in (sorted(value, key=str) if isinstance(value, (set, frozenset)) else value)
        ]
    if isinstance(value, pd.DataFrame):
        return json_safe(value.to_dict(orient="records"))
    if isinstance(value, (np.datetime64, np.timedelta64)):  # .item() of nanoseconds is an int
        value = pd.Timestamp(value) if isinstance(value, np.datetime64) else pd.Timedelta(value)
    elif isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (dt.date, dt.datetime)):  # pandas' Timestamp too
        return value.isoformat()
    return str(value)


def write_manifest(path: Path, manifest: Mapping[str, Any]) -> Path:
    """Write ``manifest`` as indented JSON (through :func:`json_safe`)."""
    return write_text(path, json.dumps(json_safe(manifest), indent=2, allow_nan=False) + "\n")
