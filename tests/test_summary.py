"""The unbiased pass@k estimator."""

from __future__ import annotations

from math import comb

import pytest

from evaluator.summary import pass_at_k


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 0.4),
        (5, 2, 2, 0.7),
        (5, 0, 3, 0.0),
        (5, 5, 3, 1.0),
        (1, 1, 1, 1.0),
        (4, 3, 2, 1.0),
    ],
)
def test_hand_computed(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_matches_binomial_formula() -> None:
    for n in range(1, 12):
        for c in range(n + 1):
            for k in range(1, n + 1):
                exact = 1 - comb(n - c, k) / comb(n, k)
                assert pass_at_k(n, c, k) == pytest.approx(exact, abs=1e-12)


def test_large_n_is_stable() -> None:
    value = pass_at_k(10_000, 10, 100)
    assert 0 < value < 1
    assert pass_at_k(10_000, 1, 1) == pytest.approx(1e-4)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 2, 6), (5, 6, 1), (5, -1, 1), (0, 0, 1), (5, 2, 0)])
def test_invalid_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
