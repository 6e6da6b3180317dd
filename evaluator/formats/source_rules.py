"""The grading rules several sources share: the judge a problem's tests get when its record
names none.

Each source reader (:mod:`evaluator.formats.sources`) applies its own source's rule; where
sources share one, it is written here once, so that no source reader imports another:

* APPS and TACO (:mod:`.sources.taco`), and the sources graded as they are (rStar-Coder,
  DeepCoder's ``taco`` subset, a ``tests`` field in APPS's ``inputs``/``outputs`` shape):
  :func:`contest_judge`;
* PrimeIntellect (:mod:`.sources.primeintellect`), and DeepCoder's ``primeintellect`` and
  ``codeforces`` subsets and a ``tests`` field in PrimeIntellect's typed cases:
  :func:`pi_judge`.

Both judge stdin tests by :data:`STDIN_JUDGE`.
"""

from __future__ import annotations

from typing import Any

from ..problem import Harness
from .testlists import DecodedTests

__all__ = ["STDIN_JUDGE", "contest_judge", "pi_judge"]

STDIN_JUDGE: dict[str, Any] = {"type": "float"}
"""The stdin rule of these sources: tokens, real numbers within 1e-6 (absolute or
relative), integers exactly."""


def contest_judge(
    decoded: DecodedTests, stdin_judge: dict[str, Any] | None = None, *, codewars: bool = False
) -> Any:
    """The judge of a problem from APPS's and TACO's tests: ``stdin_judge`` (default
    :data:`STDIN_JUDGE`) for stdin tests; for calls, ``{"unwrap": true}`` when an expected
    value is wrapped in a one-element list, with ``"bool_as_int": true`` for a Codewars
    kata (``codewars``: compared by ``==``, where ``True == 1``), else the default value
    comparison."""
    if decoded.harness is Harness.STDIN:
        return dict(stdin_judge or STDIN_JUDGE)
    judge: dict[str, Any] = {"unwrap": True} if decoded.wrapped else {}
    if codewars:
        judge["bool_as_int"] = True
    return judge or None


def pi_judge(decoded: DecodedTests) -> dict[str, Any] | None:
    """The rule for PrimeIntellect's tests: the ``float`` judge for stdin, values for calls."""
    return dict(STDIN_JUDGE) if decoded.harness is Harness.STDIN else None
