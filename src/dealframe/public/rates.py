"""Which way ``rateToUsd`` goes, read from the current data it comes with.

The interface document (section 2.1) says only that ``rateToUsd`` "accompanies" the ``Lcu``
variants, not whether it is USD per unit of local currency or local currency per USD (the
common quote "USD/COP 4000"). Every current-data row says which, since it carries both a USD
field and its ``Lcu`` variant: ``marketCap == marketCapLcu * rate`` one way,
``marketCapLcu / rate`` the other. The frame's ``rateToUsd`` is always USD per one unit of
local currency (:mod:`dealframe.currency` converts with it): a service whose rows show the
other way has its rates inverted, and said.

Examples
--------
>>> cur = pd.DataFrame({"marketCap": [156.16, 10.0], "marketCapLcu": [624640.8, 10.0],
...                     "rateToUsd": [4000.0, 1.0]}, index=pd.Index(["A-COL", "B-USA"]))
>>> check_rates(cur)
RateCheck(forward=[], inverse=['A-COL'], neither=[])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..contract import Findings, first_of
from ..frames.schemas import CURRENT_MONETARY

__all__ = ["RATE_TOLERANCE", "RateCheck", "adapt_rates", "check_rates"]

#: How far (relative to the USD value) a converted ``Lcu`` value may be from it and still
#: agree: room for the rounding of both, and for a rate taken at another moment of the day.
#: Never less than the rounding of the amounts as served (:func:`_half_units`): a USD amount
#: served as 0.4 may be 0.44.
RATE_TOLERANCE = 0.02
_RATE = "rateToUsd"
#: The most decimals an amount is looked at for (beyond, its rounding is no concern).
_MOST_DECIMALS = 12


@dataclass
class RateCheck:
    """The rows (their index labels) whose USD and ``Lcu`` values agree with ``rateToUsd``
    one way: ``forward`` (``usd = lcu * rate``, as documented by dealframe), ``inverse``
    (``usd = lcu / rate``) or ``neither``. Rows that cannot tell (no pair of values, no
    rate, or a rate so close to 1 that both ways agree) are in none."""

    forward: list[str] = field(default_factory=list)
    inverse: list[str] = field(default_factory=list)
    neither: list[str] = field(default_factory=list)

    @property
    def inverted(self) -> bool:
        """Whether every row that can tell shows the rate as local currency per USD."""
        return bool(self.inverse) and not self.forward

    def direction(self) -> str:
        """``"USD per unit"``, ``"units per USD"``, ``"mixed"`` or ``"not seen"`` (for
        ``attrs["rate_direction"]`` and the doctor)."""
        if self.inverted:
            return "units per USD"
        if self.forward and self.inverse:
            return "mixed"
        return "USD per unit" if self.forward else "not seen"


def _pairs(
    frame: pd.DataFrame,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The USD and ``Lcu`` value of each row's largest USD amount that has both (NaN where
    none has: its rounding is the smallest part of it), half a unit of the last decimal each
    of the two columns is served with (:func:`_half_units`), and that amount's name."""
    names = [n for n in CURRENT_MONETARY if n in frame.columns and f"{n}Lcu" in frame.columns]
    if not names:
        none = np.full(len(frame), np.nan)
        return none, none, none, none, np.full(len(frame), "", dtype=object)
    both = np.column_stack([_numbers(frame[n]) for n in (*names, *(f"{n}Lcu" for n in names))])
    usd, lcu = both[:, : len(names)], both[:, len(names) :]
    usable = np.isfinite(usd) & np.isfinite(lcu) & (usd != 0) & (lcu != 0)
    size = np.where(usable, np.abs(usd), -1.0)
    best = np.argmax(size, axis=1)
    rows = np.arange(len(frame))
    some = usable[rows, best]
    half = _half_units(both)
    return (
        np.where(some, usd[rows, best], np.nan),
        np.where(some, lcu[rows, best], np.nan),
        half[: len(names)][best],
        half[len(names) :][best],
        np.asarray(names, dtype=object)[best],
    )


def _numbers(column: pd.Series) -> np.ndarray:
    """``column`` as floats (NaN where null or no number).

    Read column by column: a selection of the amounts (``frame[names]``) copies them into a
    new frame first, which took twice as long as reading each one."""
    try:
        return column.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):  # a column holding text: each value read as a number
        return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _half_units(values: np.ndarray) -> np.ndarray:
    """Half a unit of the last decimal each column is served with: the most decimals any of
    its values shows (JSON drops trailing zeros: ``2.0`` in a column served to four decimals is
    ``2.0000``, no sign of rounding to units); 0 when no value can tell.

    Examples
    --------
    >>> _half_units(np.array([[0.4, 2.0, np.nan], [1760.0, 156.1623, np.nan]])).tolist()
    [0.05, 5e-05, 0.0]
    """
    half = np.zeros(values.shape[1])
    finite = np.isfinite(values)
    todo = finite.any(axis=0)  # a column with no value says nothing: 0
    with np.errstate(invalid="ignore"):
        room, unseen = 1e-9 * np.abs(values), ~finite  # the same for every number of decimals
        for decimals in range(_MOST_DECIMALS + 1):
            near = np.abs(np.round(values, decimals) - values) <= room
            written = todo & np.all(near | unseen, axis=0)
            half[written] = 0.5 * 10.0**-decimals
            todo &= ~written
            if not todo.any():
                break
    return half


def check_rates(frame: pd.DataFrame) -> RateCheck:
    """Which way each row of current data shows ``rateToUsd`` (see :class:`RateCheck`).

    Parameters
    ----------
    frame : pandas.DataFrame
        Current data: USD fields, their ``Lcu`` variants and ``rateToUsd`` (any missing:
        no row can tell).

    Returns
    -------
    RateCheck

    Notes
    -----
    A row agrees one way when the converted ``Lcu`` value is within :data:`RATE_TOLERANCE`
    of the USD value, or within the rounding of both as served (half a unit of the last
    decimal each column is served with, the ``Lcu`` one converted), whichever is larger: a
    micro-cap served to one decimal (0.4 for 0.44) is no rate that agrees with neither way.
    """
    if _RATE not in frame.columns or not len(frame):
        return RateCheck()
    usd, lcu, usd_half, lcu_half, _ = _pairs(frame)
    rate = _rates(frame)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        known = np.isfinite(usd) & np.isfinite(rate) & (rate > 0)
        room = RATE_TOLERANCE * np.abs(usd)
        forward_room = np.maximum(room, usd_half + lcu_half * rate)
        inverse_room = np.maximum(room, usd_half + lcu_half / rate)
        forward = known & (np.abs(lcu * rate - usd) <= forward_room)
        inverse = known & (np.abs(lcu / rate - usd) <= inverse_room)
    labels = _texts(frame)
    return RateCheck(
        forward=labels[forward & ~inverse].tolist(),
        inverse=labels[inverse & ~forward].tolist(),
        neither=labels[known & ~(forward | inverse)].tolist(),
    )


def _texts(frame: pd.DataFrame) -> np.ndarray:
    """The index labels as text (an object array)."""
    return frame.index.astype(str).to_numpy(dtype=object)  # not str() per label: 15x


def _labels(frame: pd.DataFrame) -> list[str]:
    """The index labels, as text."""
    return _texts(frame).tolist()


def _rates(frame: pd.DataFrame) -> np.ndarray:
    """``rateToUsd`` as floats (NaN where null or no number)."""
    return pd.to_numeric(frame[_RATE], errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def adapt_rates(frame: pd.DataFrame, found: Findings) -> pd.DataFrame:
    """``frame`` with ``rateToUsd`` as USD per one unit of local currency, whichever way the
    service wrote it (:func:`check_rates`), and what was seen said.

    - Every row that can tell shows local currency per USD: every rate that is a finite
      positive number is inverted, but for the rows that agree with neither way (below) (``inverted_rate``, said once with an example row; rows
      whose rate is 0, negative or infinite are kept as served, and named: no rate can be
      read from them, and :mod:`dealframe.currency` converts none of them).
    - Some rows show one way and some the other: the rows that show local currency per USD
      are inverted, and named (``inverted_rate``).
    - Rows whose values agree with neither way (within :data:`RATE_TOLERANCE`): their rates
      are kept as served, whichever way the other rows go, and named (``rate_mismatch``).

    ``attrs["rate_direction"]`` says what was seen (:meth:`RateCheck.direction`) and
    ``attrs["rate_inverted"]`` lists the SKUs whose rate the frame holds inverted.
    """
    seen = check_rates(frame)
    labels = _labels(frame)
    flip, unusable = seen.inverse, []
    if seen.inverted:
        rate = _rates(frame)
        usable = np.isfinite(rate) & (rate > 0)
        kept = set(seen.neither)  # agreeing with neither way: kept as served, as said
        flip = [s for s, ok in zip(labels, usable, strict=True) if ok and s not in kept]
        unusable = [
            s for s, r, ok in zip(labels, rate, usable, strict=True) if not (np.isnan(r) or ok)
        ]
    frame.attrs["rate_direction"] = seen.direction()
    frame.attrs["rate_inverted"] = flip
    if seen.inverse:
        at = labels.index(seen.inverse[0])
        usd, lcu, _, _, names = _pairs(frame)
        served = float(frame[_RATE].iloc[at])
        name = names[at]
        shown = f"{labels[at]}: {name} {usd[at]:.6g} = {name}Lcu {lcu[at]:.6g} / {served:.6g}"
        with np.errstate(divide="ignore"):
            frame[_RATE] = frame[_RATE].where(~np.isin(labels, flip), 1.0 / frame[_RATE])
        if seen.inverted:
            said = (
                f"rateToUsd is served as local currency per USD, not USD per unit of local "
                f"currency: the USD fields equal their Lcu variants divided by it on all "
                f"{len(seen.inverse)} rows that can tell ({shown}); the frame's rateToUsd is "
                "1 / the rate served, USD per unit (df.attrs['rate_inverted'])"
            )
            if unusable:
                said += (
                    f"; {len(unusable)} row(s) whose rate is no finite positive number are kept as "
                    f"served ({first_of(unusable)})"
                )
        else:
            said = (
                f"rateToUsd is served both ways: USD per unit of local currency on "
                f"{len(seen.forward)} rows, local currency per USD on {len(seen.inverse)} "
                f"({first_of(seen.inverse)}; {shown}); the frame holds 1 / the rate served on "
                "those (df.attrs['rate_inverted'])"
            )
        found.add("inverted_rate", said)
    if seen.neither:
        found.add(
            "rate_mismatch",
            f"rateToUsd agrees with neither way (USD = Lcu * rate, or Lcu / rate, within "
            f"{RATE_TOLERANCE:.0%} or the rounding of the amounts served) on {len(seen.neither)} of {len(frame)} rows "
            f"({first_of(seen.neither)}): their rate is kept as served, and "
            "dealframe.to_usd/to_local of them do not give the service's own USD values",
        )
    return frame
