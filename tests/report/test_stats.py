"""The paired statistics against cases computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from evaluator.report.stats import (
    bootstrap_interval,
    bootstrap_intervals,
    bootstrap_means,
    mcnemar_exact,
    paired_bootstrap,
    percentile_interval,
    sign_flip_test,
)


def test_bootstrap_means_and_percentile_interval_by_hand():
    # Per-problem differences B - A of three problems, and five resamples of their indices.
    diffs = np.array([0.0, 1.0, 0.5])
    indices = np.array([[0, 0, 0], [0, 1, 2], [1, 1, 2], [2, 2, 2], [1, 1, 1]])
    means = bootstrap_means(diffs, indices)
    # (0+0+0)/3, (0+1+.5)/3, (1+1+.5)/3, (.5+.5+.5)/3, (1+1+1)/3
    assert means.tolist() == pytest.approx([0.0, 0.5, 2.5 / 3, 0.5, 1.0])
    # Sorted: 0, .5, .5, .8333, 1. Linear quantiles at positions 4 * 0.025 = 0.1 and
    # 4 * 0.975 = 3.9: 0 + 0.1 * (0.5 - 0) = 0.05 and 0.8333 + 0.9 * (1 - 0.8333) = 0.98333.
    low, high = percentile_interval(means, 0.95)
    assert low == pytest.approx(0.05) and high == pytest.approx(2.5 / 3 + 0.9 / 6)
    # 80%: positions 0.4 and 3.6: 0.4 * 0.5 = 0.2 and 0.8333 + 0.6 * 0.1667 = 0.9333.
    assert percentile_interval(means, 0.8) == pytest.approx((0.2, 2.5 / 3 + 0.1))


def test_paired_bootstrap_of_two_problems():
    # Differences 0 and 1: a resample's mean is 0, 1/2 or 1 with chances 1/4, 1/2, 1/4, so
    # the 2.5% and 97.5% quantiles are 0 and 1 (each end holds a quarter of the resamples).
    assert paired_bootstrap([0.0, 0.0], [0.0, 1.0], seed=3) == (0.0, 1.0)
    # One problem, or equal differences: every resample has the same mean.
    assert paired_bootstrap([0.2], [0.7]) == pytest.approx((0.5, 0.5))
    assert paired_bootstrap([0.1, 0.3, 0.5], [0.3, 0.5, 0.7]) == pytest.approx((0.2, 0.2))


def test_paired_bootstrap_is_seeded_and_brackets_the_mean():
    rng = np.random.default_rng(7)
    a, b = rng.random(200), rng.random(200)
    first = paired_bootstrap(a, b, seed=1, resamples=2000)
    assert first == paired_bootstrap(a, b, seed=1, resamples=2000)
    assert first != paired_bootstrap(a, b, seed=2, resamples=2000)
    assert first[0] < float(np.mean(b - a)) < first[1]
    narrower = paired_bootstrap(a, b, seed=1, resamples=2000, level=0.5)
    assert first[0] < narrower[0] < narrower[1] < first[1]


def test_paired_bootstrap_needs_pairs():
    with pytest.raises(ValueError, match="same, nonzero number"):
        paired_bootstrap([0.5], [0.5, 1.0])
    with pytest.raises(ValueError, match="same, nonzero number"):
        paired_bootstrap([], [])


def test_sign_flip_test_exact_by_hand():
    # Three problems each 1 better in B: of the 8 sign patterns only +++ and --- reach |3|.
    assert sign_flip_test([0, 0, 0], [1, 1, 1]) == 0.25
    # Differences 1 and 0.5: sums 1.5, 0.5, -0.5, -1.5; |sum| >= 1.5 for 2 of 4.
    assert sign_flip_test([0, 0], [1, 0.5]) == 0.5
    # Zero differences are left out: the same as the case above.
    assert sign_flip_test([0.3, 0, 0, 0.7], [0.3, 1, 0.5, 0.7]) == 0.5
    assert sign_flip_test([0.2, 0.4], [0.2, 0.4]) == 1.0
    # Opposite differences cancel: every pattern's |sum| >= 0.
    assert sign_flip_test([0, 1], [1, 0]) == 1.0


def test_sign_flip_test_sampled_beyond_sixteen_differences():
    # 20 problems each 1 better: exactly 2 / 2**20; sampled, (1 + hits) / (1 + resamples) with
    # (almost surely) no hit among 10,000 random patterns.
    p = sign_flip_test([0] * 20, [1] * 20, resamples=10_000, seed=0)
    assert p == pytest.approx(1 / 10_001, abs=3 / 10_001)
    assert p == sign_flip_test([0] * 20, [1] * 20, resamples=10_000, seed=0)


def test_mcnemar_exact_by_hand():
    # 1 problem only A solves, 5 only B: 2 * P(X <= 1), X ~ Bin(6, 1/2) = 2 * 7/64.
    assert mcnemar_exact(1, 5) == 14 / 64
    assert mcnemar_exact(5, 1) == 14 / 64
    assert mcnemar_exact(0, 10) == 2 / 1024
    assert mcnemar_exact(3, 3) == 1.0  # 2 * 42/64 > 1
    assert mcnemar_exact(0, 0) == 1.0


def test_sign_flip_on_single_samples_is_mcnemar():
    a = [1, 0, 0, 0, 0, 0, 1, 0]
    b = [0, 1, 1, 1, 1, 1, 1, 0]
    assert sign_flip_test(a, b) == mcnemar_exact(1, 5)


def test_bootstrap_interval_of_one_run():
    """The interval of a run's pass@1: the paired one of its scores against zeros, a
    constant run's is that constant, and it holds the mean of a spread-out run."""
    scores = [0.0, 0.25, 1.0, 1.0, 0.5, 0.0, 0.75, 1.0]
    assert bootstrap_interval(scores, resamples=2000, seed=3) == paired_bootstrap(
        [0.0] * len(scores), scores, resamples=2000, seed=3
    )
    assert bootstrap_interval([0.5] * 5) == pytest.approx((0.5, 0.5))
    low, high = bootstrap_interval(scores)
    mean = sum(scores) / len(scores)
    assert 0.0 < low < mean < high < 1.0 and high - low > 0.3  # 8 problems: a wide interval
    with pytest.raises(ValueError, match="at least one score"):
        bootstrap_interval([])


def test_intervals_of_several_columns_are_each_ones_own():
    """One draw of the resamples for several columns gives each the interval it gets alone
    (the comparison's B - A and each run's pass@1 share one draw)."""
    rng = np.random.default_rng(7)
    columns = [rng.random(300), rng.integers(0, 2, 300).astype(float), rng.random(300) - 0.5]
    together = bootstrap_intervals(columns, resamples=2_000, seed=3)
    alone = [bootstrap_interval(c, resamples=2_000, seed=3) for c in columns]
    assert together == alone and len(set(together)) == 3
