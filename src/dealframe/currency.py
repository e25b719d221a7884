"""Local-currency (``Lcu``) fields of current data to USD and back, with ``rateToUsd``.

Family A gives every monetary current-data field twice: in millions of USD
(``marketCap``) and in millions of the company's local currency (``marketCapLcu``), with
``rateToUsd``, the USD value of one unit of that currency. So
``usd = lcu * rateToUsd`` and ``lcu = usd / rateToUsd``, row by row. ``client.public.current``
gives the rate that way whichever way the service writes it (its rows tell:
:mod:`dealframe.public.rates`).

Examples
--------
>>> current = pd.DataFrame({"marketCapLcu": [1000.0, 50.0], "rateToUsd": [0.5, 1.0]},
...                        index=pd.Index(["A-JPN", "B-USA"], name="sku"))
>>> to_usd(current)["marketCap"].tolist()
[500.0, 50.0]
>>> to_local(to_usd(current))["marketCapLcu"].tolist()
[1000.0, 50.0]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from dealframe.arguments import checked_keywords, choice
from dealframe.errors import ValidationError
from dealframe.frames.schemas import CURRENT_MONETARY

__all__ = ["FROM_LCU", "FROM_USD", "LCU_SUFFIX", "RATE", "to_local", "to_usd"]

#: The suffix of a local-currency field.
LCU_SUFFIX = "Lcu"
#: The rate column: USD per one unit of the local currency.
RATE = "rateToUsd"
#: The ``attrs`` key of a :func:`to_usd` result naming the USD columns it wrote: a field the
#: document does not name (``netDebt`` of ``netDebtLcu``) then converts back by default.
FROM_LCU = "usd_from_lcu"
#: The ``attrs`` key of a :func:`to_local` result naming the ``Lcu`` columns it wrote.
FROM_USD = "lcu_from_usd"


def _checked(frame: Any, rate: Any) -> np.ndarray:
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(
            "frame", "a current-data frame (client.public.current)", got=type(frame).__name__
        )
    if not frame.columns.is_unique:  # a frame joined with its own conversion, for example
        twice = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
        raise ValidationError("frame", "columns with unique names", got=twice)
    if isinstance(rate, str) and rate == RATE and RATE not in frame.columns:  # not ours
        shown = ", ".join(map(str, frame.columns[:6])) + (", ..." if frame.shape[1] > 6 else "")
        shown = f"a frame with columns {shown}" if shown else "a frame with no column"
        raise ValidationError(
            "frame",
            f"a current-data frame (client.public.current) with its {RATE!r} column, or "
            "rate= naming the frame's column of USD per unit of local currency",
            got=shown,
        )
    choice(
        rate,
        "rate",
        [c for c in frame.columns if isinstance(c, str)],
        f"a column of the frame holding USD per unit of local currency (the service's {RATE!r})",
    )
    try:
        values = frame[rate].to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValidationError("rate", "a numeric column", got=str(frame[rate].dtype)) from None
    usable = np.isfinite(values) & (values > 0)
    return np.where(usable, values, np.nan)  # no rate, or a nonsensical one: unknown


def _names(frame: pd.DataFrame, fields: Any, default: list[str], what: str) -> list[str]:
    """The columns to convert: ``fields`` (each one of ``default``, the frame's columns that
    can be converted), else ``default``; never none (a conversion of nothing is a mistake, not
    an empty answer)."""
    if fields is None:
        if not default:
            raise ValidationError("frame", f"a current-data frame with {what}", got=list(frame))
        return default
    items = [fields] if isinstance(fields, str) else fields
    if not isinstance(items, Iterable) or isinstance(items, dict):
        raise ValidationError("fields", "a column name or a list of them", got=fields)
    try:
        out = list(dict.fromkeys(items))
    except TypeError:  # an unhashable member: a list in the list, say
        raise ValidationError("fields", "a column name or a list of them", got=fields) from None
    if not out:
        raise ValidationError("fields", f"at least one of the {what}", got=out)
    listed = f"{what} of the frame (they include {', '.join(map(str, default[:6])) or 'none'})"
    return [choice(name, "fields", default, listed) for name in out]  # default: all that fit


def _numbers(frame: pd.DataFrame, name: str, argument: str) -> np.ndarray:
    try:
        return frame[name].to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValidationError(argument, "numeric columns", got=name) from None


@checked_keywords
def to_usd(
    frame: pd.DataFrame, fields: str | Iterable[str] | None = None, *, rate: str = RATE
) -> pd.DataFrame:
    """USD values (millions) of local-currency fields: ``<field>Lcu * rateToUsd``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Current data (``client.public.current``, ``client.public_v1.current``, or a
        snapshot of ``dealframe.mirror.load_public``) with ``rateToUsd``.
    fields : str or list of str, optional
        ``Lcu`` columns to convert (default: every column ending in ``Lcu``).
    rate : str, default "rateToUsd"
        The rate column.

    Returns
    -------
    pandas.DataFrame
        Same index; one ``float64`` column per field, named without the ``Lcu`` suffix
        (``marketCapLcu`` → ``marketCap``), then the rate column, so :func:`to_local` takes
        the result back: ``attrs["usd_from_lcu"]`` names the USD columns written, fields
        the document does not name (``netDebt`` of ``netDebtLcu``) included. A missing, non-positive or
        infinite rate gives NaN.

    Raises
    ------
    dealframe.errors.ValidationError
        Not a frame, repeated column names, no rate column, no ``Lcu`` column to convert, or
        a field that is not a numeric ``Lcu`` column of it (``marketCap`` is already USD).

    Examples
    --------
    >>> cur = pd.DataFrame({"revenueLtmLcu": [120.0], "rateToUsd": [0.25]})
    >>> to_usd(cur, "revenueLtmLcu")
       revenueLtm  rateToUsd
    0        30.0       0.25
    """
    rates = _checked(frame, rate)

    def local(c: Any) -> bool:
        return isinstance(c, str) and c.endswith(LCU_SUFFIX) and len(c) > len(LCU_SUFFIX)

    default = [c for c in frame.columns if local(c)]
    names = _names(frame, fields, default, "local-currency columns (ending in 'Lcu')")
    out = {}
    for name in names:
        with np.errstate(over="ignore", invalid="ignore"):  # inf stays inf, NaN stays NaN
            out[name[: -len(LCU_SUFFIX)]] = _numbers(frame, name, "fields") * rates
    return _result(frame, out, rate, FROM_LCU)


def _result(frame: pd.DataFrame, out: dict[str, np.ndarray], rate: str, key: str) -> pd.DataFrame:
    """The converted columns ``out``, then the rate; ``attrs[key]`` names the converted ones."""
    converted = list(out)
    out[rate] = _numbers(frame, rate, "rate")
    result = pd.DataFrame(out, index=frame.index, columns=list(out), dtype=float)
    result.attrs[key] = converted
    return result


def _from_lcu(frame: pd.DataFrame) -> set[str]:
    """The USD columns a :func:`to_usd` result says it wrote (``attrs``), as far as they are
    USD names: anything else there (not a list of names) is no record of ours."""
    named = frame.attrs.get(FROM_LCU)
    if not isinstance(named, (list, tuple)):
        return set()
    return {c for c in named if isinstance(c, str) and not c.endswith(LCU_SUFFIX)}


@checked_keywords
def to_local(
    frame: pd.DataFrame, fields: str | Iterable[str] | None = None, *, rate: str = RATE
) -> pd.DataFrame:
    """Local-currency values (millions) of USD fields: ``<field> / rateToUsd``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Current data with ``rateToUsd`` (see :func:`to_usd`).
    fields : str or list of str, optional
        USD columns to convert (default: every column ``x`` of the frame for which the
        service also sends ``xLcu``, the document's monetary fields present, and, of a
        :func:`to_usd` result, the USD columns it wrote: ``attrs["usd_from_lcu"]``).
    rate : str, default "rateToUsd"
        The rate column.

    Returns
    -------
    pandas.DataFrame
        Same index; one ``float64`` column per field, named with the ``Lcu`` suffix
        (``enterpriseValue`` → ``enterpriseValueLcu``), then the rate column;
        ``attrs["lcu_from_usd"]`` names the ``Lcu`` columns written.

    Raises
    ------
    dealframe.errors.ValidationError
        Not a frame, repeated column names, no rate column, no USD amount to convert, or a
        field that is not a numeric USD amount of it (a ratio, an ``Lcu`` column, the rate).

    Examples
    --------
    >>> cur = pd.DataFrame({"enterpriseValue": [30.0], "rateToUsd": [0.25]})
    >>> to_local(cur)["enterpriseValueLcu"].tolist()
    [120.0]
    """
    rates = _checked(frame, rate)

    converted = _from_lcu(frame)  # a to_usd result: the USD columns it wrote

    def monetary(c: Any) -> bool:  # a USD amount: the document's, with an Lcu twin, converted
        return isinstance(c, str) and (
            f"{c}{LCU_SUFFIX}" in frame.columns or c in CURRENT_MONETARY or c in converted
        )

    default = [c for c in frame.columns if monetary(c)]
    names = _names(frame, fields, default, "USD monetary columns (marketCap ...)")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = {f"{name}{LCU_SUFFIX}": _numbers(frame, name, "fields") / rates for name in names}
    return _result(frame, out, rate, FROM_USD)
