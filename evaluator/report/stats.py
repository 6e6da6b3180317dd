"""Paired statistics for comparing two runs on the same problems.

Each problem contributes one pair: each run's pass@1 on it, the fraction of its samples that
pass. Problems, not samples, are the unit resampled: samples of one problem are not
independent draws from the benchmark.

* :func:`bootstrap_interval`: the percentile interval of a mean over ``resamples``
  resamplings of the problems with replacement (defaults in :mod:`.stats_defaults`;
  NumPy's ``default_rng``; quantiles by linear interpolation, NumPy's default): a run's
  pass@1 in the report.
* :func:`paired_bootstrap`: the same interval of the mean difference ``B - A``.
* :func:`sign_flip_test`: a two-sided paired permutation test of "no difference": under the
  null each problem's difference is as likely to have either sign. Exact (all ``2**m``
  sign patterns of the ``m`` nonzero differences) for ``m <= 16``, else ``resamples`` random
  patterns, ``p = (1 + hits) / (1 + resamples)``.
* :func:`mcnemar_exact`: the exact McNemar test for runs of one sample per problem (the sign
  test on the problems exactly one run solves; the sign-flip test gives the same p there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evaluator.report.stats_defaults import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "bootstrap_interval",
    "bootstrap_intervals",
    "bootstrap_means",
    "mcnemar_exact",
    "paired_bootstrap",
    "percentile_interval",
    "sign_flip_test",
]

_EXACT_UP_TO = 16  # nonzero differences for which every sign pattern is enumerated
_CHUNK = 1 << 20  # index entries drawn at a time (bounded memory for any run size)
_TOLERANCE = 1e-9  # differences are fractions of samples: equal statistics stay equal


def bootstrap_means(diffs: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The mean of ``diffs`` over each row of ``indices`` (one resample of the problems per
    row)."""
    return diffs[indices].mean(axis=1)


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central ``level`` interval of ``values``: their ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles, linearly interpolated."""
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def bootstrap_interval(
    values: Sequence[float] | np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> tuple[float, float]:
    """The bootstrap percentile interval of ``mean(values)``, one value per problem."""
    return bootstrap_intervals([values], resamples=resamples, seed=seed, level=level)[0]


def bootstrap_intervals(
    columns: Sequence[Sequence[float] | np.ndarray],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> list[tuple[float, float]]:
    """:func:`bootstrap_interval` of each column (one value per problem in each, the same
    problems), from one draw of the resamples: each column's interval is the one it gets
    alone (the same seed draws the same resamples), at a third of the cost for three."""
    scores = np.asarray(columns, dtype=float)
    n = scores.shape[1]
    if not n:
        raise ValueError("need at least one score")
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK // n)
    means = np.empty((len(scores), resamples))
    for start in range(0, resamples, rows):
        count = min(rows, resamples - start)
        indices = rng.integers(0, n, (count, n))
        for column, values in enumerate(scores):
            means[column, start : start + count] = bootstrap_means(values, indices)
    return [percentile_interval(row, level) for row in means]


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> tuple[float, float]:
    """The paired bootstrap percentile interval of ``mean(b) - mean(a)``; ``a[i]`` and
    ``b[i]`` are the two runs' scores on problem ``i``."""
    return bootstrap_interval(_diffs(a, b), resamples=resamples, seed=seed, level=level)


def sign_flip_test(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> float:
    """The two-sided p-value of the paired sign-flip permutation test of ``b`` against ``a``
    (statistic: the sum of the differences)."""
    diffs = _diffs(a, b)
    nonzero = diffs[diffs != 0]
    m = len(nonzero)
    if m == 0:
        return 1.0
    observed = abs(nonzero.sum())
    if m <= _EXACT_UP_TO:
        patterns = np.array(np.meshgrid(*[[-1.0, 1.0]] * m, indexing="ij")).reshape(m, -1).T
        sums = np.abs(patterns @ nonzero)
        return float(np.mean(sums >= observed - _TOLERANCE))
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK // m)
    hits = 0
    for start in range(0, resamples, rows):
        count = min(rows, resamples - start)
        signs = rng.integers(0, 2, (count, m)) * 2.0 - 1.0
        hits += int(np.sum(np.abs(signs @ nonzero) >= observed - _TOLERANCE))
    return (1 + hits) / (1 + resamples)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """The exact two-sided McNemar p-value for ``only_a`` problems that only run A solves and
    ``only_b`` that only run B solves: ``min(1, 2 * P(X <= min))``, ``X ~ Bin(only_a + only_b,
    1/2)``."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1))
    return min(1.0, 2 * tail / 2**n)


def _diffs(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    if len(a) != len(b) or not len(a):
        raise ValueError(f"need the same, nonzero number of scores, got {len(a)} and {len(b)}")
    return np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
