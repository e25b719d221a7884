"""Every convention of the aggregate that the interface document leaves open.

The interface document (section 4.3) says that the service trims outliers by
``iqr_1.5``, suppresses small buckets, applies a five-year default window and
may return empty buckets. It does not say which quantile definition is used,
whether bounds are computed per bucket or over the window, whether ``n`` is
counted before or after trimming, and so on. :class:`Conventions` turns each
of those open points into an explicit parameter. Its defaults are the
sandbox's documented behaviour (``docs/sandbox.md``, "Transactions
aggregate"), which is the best-known reading of the live service.

:meth:`Conventions.variants` enumerates the combinations worth trying when the
conventions of a live service must be inferred from its answers
(calibration).
"""

from __future__ import annotations

import dataclasses
import itertools
import numbers
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, get_args

import numpy as np

from dealframe.arguments import checked_methods, choice
from dealframe.errors import ValidationError

__all__ = ["DEFAULT_CONVENTIONS", "QUANTILE_METHODS", "Conventions", "QuantileMethod"]

#: A ``numpy.quantile(method=...)`` method.
QuantileMethod: TypeAlias = Literal[
    "linear",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
    "interpolated_inverted_cdf",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "lower",
    "higher",
    "midpoint",
    "nearest",
]

#: Every ``numpy.quantile(method=...)`` method; "linear" (the default) is Hyndman-Fan type 7.
QUANTILE_METHODS: tuple[str, ...] = get_args(QuantileMethod)

_CHOICES: dict[str, tuple[Any, ...]] = {
    "quantile_method": QUANTILE_METHODS,
    "trim_scope": ("bucket", "window"),
    "n_counted": ("before", "after"),
    "stats_on": ("kept", "all"),
    "inclusive_bounds": (True, False),
    "suppressed": ("null_stats", "drop"),
    "empty": ("return", "drop"),
    "window_anchor": ("date_to", "period_start"),
}

#: Methods tried first by :meth:`Conventions.variants`: the usual statistics
#: package defaults (numpy/R type 7, Excel/SQL ``percentile_cont`` = type 7,
#: Minitab/SPSS = type 6, R type 8, hazen = type 5) and the discrete ones
#: a database might use (``percentile_disc`` = inverted_cdf).
_VARIANT_METHODS: tuple[str, ...] = (
    "linear",
    "weibull",
    "hazen",
    "median_unbiased",
    "normal_unbiased",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "nearest",
    "lower",
    "higher",
    "midpoint",
)


@checked_methods
@dataclass(frozen=True, kw_only=True)
class Conventions:
    """The open conventions of the IQR-trimmed bucket medians.

    Defaults reproduce the sandbox (``docs/sandbox.md``).

    Parameters
    ----------
    quantile_method : str, default "linear"
        numpy quantile method (``numpy.quantile(method=...)``) used for q1, q3
        and the median, both for the trimming bounds and for the reported
        statistics. "linear" is Hyndman-Fan type 7.
    trim_scope : {"bucket", "window"}, default "bucket"
        "bucket": the bounds are computed from each bucket's own values.
        "window": the bounds are computed once, from every value in the window,
        and applied to every bucket.
    n_counted : {"before", "after"}, default "before"
        Whether a bucket's ``n`` counts its values before or after trimming.
        With "before", small-n suppression is decided on the untrimmed count
        and a suppressed bucket is not trimmed at all. With "after", every
        non-empty bucket is trimmed and suppression is decided on the count
        of kept values.
    stats_on : {"kept", "all"}, default "kept"
        Whether median, q1 and q3 are computed over the kept values or over all
        of the bucket's values (trimming then only feeds ``outliers_trimmed``).
    inclusive_bounds : bool, default True
        True keeps values equal to a bound (``lo <= v <= hi``); False trims them
        (``lo < v < hi``).
    suppressed : {"null_stats", "drop"}, default "null_stats"
        How a small-n bucket is returned: with its ``n``, null statistics and
        warning ``"small_n"``, or not at all.
    empty : {"return", "drop"}, default "return"
        Whether a bucket without deals is returned (``n`` 0, null statistics,
        warning ``"empty"``) or left out.
    window_anchor : {"date_to", "period_start"}, default "date_to"
        The default ``date_from``: ``date_to`` minus ``window_years`` calendar
        years (February 29 maps to February 28), or the first day of the
        bucket period containing that date. With ``time_bucket="none"`` both
        anchors give the same date.
    window_years : int, default 5
        Length of the default window (``default_date_range_years``).
    iqr_multiplier : float, default 1.5
        The ``k`` of the rule ``[q1 - k*IQR, q3 + k*IQR]`` (``iqr_1.5``).

    Raises
    ------
    dealframe.errors.ValidationError
        A field outside its choices, naming it (``Conventions.trim_scope``).

    Examples
    --------
    >>> from dealframe.analytics import Conventions
    >>> Conventions().quantile_method
    'linear'
    >>> Conventions(trim_scope="window").describe()
    {'trim_scope': 'window'}
    """

    quantile_method: QuantileMethod = "linear"
    trim_scope: Literal["bucket", "window"] = "bucket"
    n_counted: Literal["before", "after"] = "before"
    stats_on: Literal["kept", "all"] = "kept"
    inclusive_bounds: bool = True
    suppressed: Literal["null_stats", "drop"] = "null_stats"
    empty: Literal["return", "drop"] = "return"
    window_anchor: Literal["date_to", "period_start"] = "date_to"
    window_years: int = 5
    iqr_multiplier: float = 1.5

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            expected = "one of " + ", ".join(repr(a) for a in allowed)
            if isinstance(allowed[0], str):  # a word: the closest one suggested
                choice(value, f"Conventions.{name}", allowed, expected)
            if type(value) is not type(allowed[0]) or value not in allowed:
                raise ValidationError(f"Conventions.{name}", expected, got=value)
        years = self.window_years
        if isinstance(years, (bool, np.bool_)) or not isinstance(years, numbers.Integral):
            raise ValidationError(
                "Conventions.window_years", "an integer from 1 to 9999", got=years
            )
        if not 1 <= years < 10_000:
            raise ValidationError(
                "Conventions.window_years", "an integer from 1 to 9999", got=years
            )
        object.__setattr__(self, "window_years", int(years))  # numpy integers as Python ints
        k = self.iqr_multiplier
        if (
            isinstance(k, (bool, np.bool_))
            or not isinstance(k, numbers.Real)
            or not 0 <= k < float("inf")
        ):
            raise ValidationError("Conventions.iqr_multiplier", "a finite number >= 0", got=k)
        object.__setattr__(self, "iqr_multiplier", k if type(k) in (int, float) else float(k))

    @property
    def outlier_rule(self) -> str:
        """The rule name as the service reports it, e.g. ``"iqr_1.5"``."""
        return f"iqr_{self.iqr_multiplier:g}"

    def to_dict(self) -> dict[str, Any]:
        """Return the conventions as a plain dict (JSON-serialisable).

        Examples
        --------
        >>> Conventions().to_dict()["quantile_method"]
        'linear'
        """
        return dataclasses.asdict(self)

    def describe(self) -> dict[str, Any]:
        """Return only the conventions that differ from the defaults.

        Examples
        --------
        >>> Conventions().describe()
        {}
        >>> Conventions(quantile_method="hazen").describe()
        {'quantile_method': 'hazen'}
        """
        default = Conventions()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }

    @classmethod
    def variants(
        cls,
        base: Conventions | None = None,
        *,
        quantile_methods: Sequence[str] = _VARIANT_METHODS,
        max_changes: int | None = None,
    ) -> Iterator[Conventions]:
        """Yield the combinations of conventions worth trying, most likely first.

        The statistical choices that cannot be read from a response are varied:
        ``quantile_method``, ``trim_scope``, ``n_counted``, ``stats_on``,
        ``inclusive_bounds`` and ``window_anchor``. Choices a response shows
        directly (whether small-n or empty buckets are present) or reports in
        its meta (``window_years``, ``iqr_multiplier``) are taken from ``base``.

        The generator is pure: it yields ``base`` first, then every variant
        differing from it in one choice, then in two, and so on, each exactly
        once, so a caller can stop at the first match.

        Parameters
        ----------
        base : Conventions, optional
            The starting point (default: the sandbox's conventions).
        quantile_methods : sequence of str
            Quantile methods to try.
        max_changes : int, optional
            Stop after variants differing from ``base`` in this many choices.

        Yields
        ------
        Conventions

        Examples
        --------
        >>> variants = list(Conventions.variants(quantile_methods=("linear", "hazen")))
        >>> variants[0] == Conventions()
        True
        >>> len(variants)
        64
        >>> len(list(Conventions.variants(max_changes=1)))
        16
        """
        base = cls() if base is None else base
        if not isinstance(base, Conventions):
            raise ValidationError("base", "a Conventions instance or None", got=base)
        if (
            isinstance(quantile_methods, str)
            or not isinstance(quantile_methods, Sequence)
            or any(not isinstance(m, str) or m not in QUANTILE_METHODS for m in quantile_methods)
        ):
            raise ValidationError(
                "quantile_methods",
                "a sequence of " + ", ".join(QUANTILE_METHODS),
                got=quantile_methods,
            )
        if max_changes is not None and (type(max_changes) is not int or max_changes < 0):
            raise ValidationError("max_changes", "None or an integer >= 0", got=max_changes)
        axes: dict[str, tuple[Any, ...]] = {
            "quantile_method": tuple(quantile_methods),
            "trim_scope": _CHOICES["trim_scope"],
            "n_counted": _CHOICES["n_counted"],
            "stats_on": _CHOICES["stats_on"],
            "inclusive_bounds": _CHOICES["inclusive_bounds"],
            "window_anchor": _CHOICES["window_anchor"],
        }
        # Put the base's value first on every axis so that it is counted as "no change".
        ordered = {
            name: (getattr(base, name),) + tuple(v for v in values if v != getattr(base, name))
            for name, values in axes.items()
        }
        return _variants(base, ordered, max_changes)


def _variants(
    base: Conventions, ordered: dict[str, tuple[Any, ...]], max_changes: int | None
) -> Iterator[Conventions]:
    """The variants of :meth:`Conventions.variants`, its arguments checked (a generator
    checks nothing until it is first iterated)."""
    names = list(ordered)
    limit = len(names) if max_changes is None else max_changes
    for changes in range(0, min(limit, len(names)) + 1):
        for changed in itertools.combinations(names, changes):
            pools = [ordered[name][1:] for name in changed]
            for values in itertools.product(*pools):
                yield dataclasses.replace(base, **dict(zip(changed, values, strict=True)))


#: The sandbox's conventions (the defaults).
DEFAULT_CONVENTIONS = Conventions()
