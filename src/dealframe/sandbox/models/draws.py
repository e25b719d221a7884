"""Random draws, vectorised formatting and the clock's timeline shared by the sandbox's
generators (:mod:`.data`, :mod:`.deals`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Timeline",
    "at_least_one",
    "iso_ts_many",
    "seconds_between",
    "subsets",
    "uuids",
    "year_start_days",
    "year_start_seconds",
]

#: ``date(1970, 1, 1).toordinal()``
_EPOCH_ORDINAL = 719_163


def iso_ts_many(seconds: np.ndarray) -> list[str]:
    """Format many UTC epoch seconds like :func:`iso_ts` (vectorised)."""
    text = np.datetime_as_string(
        np.asarray(seconds, dtype="int64").astype("datetime64[s]"), unit="s"
    )
    return [t + "+00:00" for t in text.tolist()]


def subsets(
    rng: np.random.Generator, vocab: tuple[str, ...], n: int, lo: int, hi: int
) -> list[list[str]]:
    """``n`` random sorted subsets of ``vocab`` with ``lo..hi`` members each."""
    k = rng.integers(lo, hi + 1, n)
    order = np.argsort(rng.random((n, len(vocab))), axis=1)
    # the first ``hi`` picks of every row (at most the whole vocabulary), flat: one list, not
    # ``n`` lists that the garbage collector walks while the records are being built
    w = min(hi, len(vocab))
    kept = np.minimum(k, w)
    # each row's first ``kept`` picks, ascending: the rest sort after them as a blank
    picks = np.where(np.arange(w) < kept[:, None], order[:, :w], len(vocab))
    words = np.array([*vocab, ""], dtype=object)[np.sort(picks, axis=1)]
    return [row[:kk] for row, kk in zip(words.tolist(), kept.tolist())]


def seconds_between(rng: np.random.Generator, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Uniform epoch seconds in ``[lo, hi)`` element-wise."""
    span = np.maximum(hi - lo, 1)
    return lo + (rng.random(lo.shape) * span).astype("int64")


def uuids(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` version-4 UUIDs from ``16 * n`` random bytes: ``str(uuid.UUID(bytes=b, version=4))``
    of each 16, formatted without building a ``UUID`` object per id."""
    raw = np.frombuffer(rng.bytes(16 * n), dtype=np.uint8).reshape(n, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # the version, 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = raw.tobytes().hex()
    return [
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-{h[i + 12 : i + 16]}-{h[i + 16 : i + 20]}-{h[i + 20 : i + 32]}"
        for i in range(0, 32 * n, 32)
    ]


def at_least_one(rng: np.random.Generator, flags: np.ndarray, pool: np.ndarray) -> None:
    """Set one random flag of ``pool`` (a mask) when none of them is set (in place)."""
    rows = np.flatnonzero(pool)
    if rows.size and not flags[rows].any():
        flags[rows[int(rng.integers(0, rows.size))]] = True


def year_start_seconds(years: np.ndarray) -> np.ndarray:
    """Epoch seconds of 1 January of each year."""
    return (
        (np.asarray(years, dtype=np.int64) - 1970).astype("datetime64[Y]").astype("datetime64[s]")
    ).astype(np.int64)


def year_start_days(years: list[int] | np.ndarray) -> np.ndarray:
    """Proleptic ordinals (``date.toordinal``) of 1 January of each year."""
    return year_start_seconds(np.asarray(years)) // 86_400 + _EPOCH_ORDINAL


@dataclass(frozen=True)
class Timeline:
    """The years the synthetic data is laid out on, counted back from the clock's year: the
    data has the same shape whatever the clock, and nothing is dated after it.

    The years at the default clock (2026-06-30) are in brackets; every clock in 2026 gives
    the same ones.

    Attributes
    ----------
    year : int
        The clock's year.
    founded_by : int
        The latest founding year (2024): every organisation is a year old or more.
    oldest : int
        The earliest founding year (1900, or 60 years before the clock's year when that is
        earlier).
    listed_founded_by : int
        The latest founding year of a listed company (2019): it lists three years or more
        after, and more than a year before the clock.
    listings_from : int
        The earliest listing year (1995).
    database_from : int
        The year the database begins (2015): no record is created before its 1 January.
    startups_from : int
        The earliest founding year of a ``Startup`` (2015); older private companies are
        ``Scaleup``.
    deals_from : int
        The year of the first deals (2012).

    Examples
    --------
    >>> t = Timeline.of(dt.datetime(2026, 6, 30, tzinfo=dt.UTC))
    >>> t.founded_by, t.listed_founded_by, t.database_from, t.deals_from
    (2024, 2019, 2015, 2012)
    >>> Timeline.of(dt.datetime(2020, 6, 30, tzinfo=dt.UTC)).founded_by
    2018
    """

    year: int

    @classmethod
    def of(cls, as_of: dt.datetime) -> Timeline:
        """The timeline of a clock."""
        return cls(as_of.year)

    @property
    def founded_by(self) -> int:
        return self.year - 2

    @property
    def oldest(self) -> int:
        return min(1900, self.year - 60)

    @property
    def listed_founded_by(self) -> int:
        return self.year - 7

    @property
    def listings_from(self) -> int:
        return self.year - 31

    @property
    def database_from(self) -> int:
        return self.year - 11

    @property
    def startups_from(self) -> int:
        return self.year - 11

    @property
    def deals_from(self) -> int:
        return self.year - 14
