"""The unbiased pass@k estimator (Chen et al., 2021, "Evaluating Large Language Models
Trained on Code").

With ``n`` samples of which ``c`` are correct, the probability that at least one of ``k``
samples drawn without replacement is correct is ``1 - C(n-c, k) / C(n, k)``. The binomials
overflow floats for large ``n``, so we use the equivalent product
``1 - prod_{i=n-c+1}^{n} (1 - k / i)``.

Rule for ``k > n``: a :class:`ValueError`. pass@k is not defined with fewer than ``k``
samples, and silently falling back to pass@n would report a different metric under the
requested name.
"""

from __future__ import annotations

__all__ = ["pass_at_k"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for ``n`` samples with ``c`` correct.

    Raises ``ValueError`` unless ``0 <= c <= n`` and ``1 <= k <= n``.
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"pass_at_k: {name} must be an int, got {value!r}")
    if n < 1:
        raise ValueError(f"pass_at_k: need at least one sample, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"pass_at_k: c={c} correct out of n={n} samples is impossible")
    if not 1 <= k <= n:
        raise ValueError(f"pass_at_k: k={k} must be between 1 and n={n}")
    if n - c < k:
        # Every draw of k samples contains a correct one.
        return 1.0
    failure = 1.0
    for i in range(n - c + 1, n + 1):
        failure *= 1.0 - k / i
    return 1.0 - failure
