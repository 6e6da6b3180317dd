"""Conditional truncation masking (MicroCoder-GRPO, change 1).

After group normalisation, completion i's advantage is multiplied by

    1 - 1[ |o_i| = L_max  and  non_incorrect(o_i)  and  not repeat(o_i, m)  and  U(0,1) < rho ]

Everything here is plain Python/NumPy-free so it can be tested alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from evaluator import WRONG_VERDICTS

# Verdicts the reward reports (evaluator.VERDICT_NAMES: the evaluator's, and NO_CODE).
PASSED = frozenset({"AC"})
NO_VERDICT = frozenset({"NO_CODE", "UNKNOWN", "SKIPPED", ""})
WRONG = WRONG_VERDICTS  # judged and found wrong (a C++ compile error, CE, included)
# "ERROR" means the problem/judge is broken, not the program: it counts as "not judged wrong".


def not_wrong(verdict: str | None) -> bool:
    """Default predicate: passed, no code to judge, no verdict known, or a broken problem."""
    return verdict is None or str(verdict) not in WRONG


def passed_only(verdict: str | None) -> bool:
    """Stricter predicate: only accepted completions."""
    return verdict is not None and str(verdict) in PASSED


def unjudged(verdict: str | None) -> bool:
    """Only completions nothing could be judged on (no code, or no verdict)."""
    return verdict is None or str(verdict) in NO_VERDICT


PREDICATES: dict[str, Callable[[str | None], bool]] = {
    "not_wrong": not_wrong,
    "passed": passed_only,
    "unjudged": unjudged,
}


def ends_in_repetition(token_ids: Sequence[int], m: int) -> bool:
    """repeat(o, m): the last ``m`` tokens equal the ``m`` tokens before them."""
    ids = list(token_ids)
    if m < 1 or len(ids) < 2 * m:
        return False
    return ids[-m:] == ids[-2 * m : -m]


def masking_candidates(
    verdicts: Sequence[str | None] | None,
    truncated: Sequence[bool],
    token_ids: Sequence[Sequence[int]],
    m: int,
    rho: float,
    rng: random.Random,
    non_incorrect: Callable[[str | None], bool] | str = not_wrong,
) -> list[bool]:
    """Which completions get their advantage zeroed.

    ``verdicts[i]`` is the evaluator's verdict for completion i (``None``: unknown, treated by
    the predicate); ``truncated[i]`` says it hit the maximum completion length without an end
    token; ``token_ids[i]`` are its tokens. One independent draw ``rng.random()`` is made per
    completion, whether it qualifies or not, so the stream of draws (and so reproducibility)
    does not depend on the verdicts.
    """
    return draw_masks(maskable(verdicts, truncated, token_ids, m, non_incorrect), rho, rng)


def draw_masks(eligible: Sequence[bool], rho: float, rng: random.Random) -> list[bool]:
    """The ``U(0,1) < rho`` draw: one per completion, eligible or not."""
    return [rng.random() < rho and can for can in eligible]


def maskable(
    verdicts: Sequence[str | None] | None,
    truncated: Sequence[bool],
    token_ids: Sequence[Sequence[int]],
    m: int,
    non_incorrect: Callable[[str | None], bool] | str = not_wrong,
) -> list[bool]:
    """The completions the rule may mask before its ``U(0,1) < rho`` draw: truncated,
    non-incorrect and not ending in a repetition."""
    predicate = PREDICATES[non_incorrect] if isinstance(non_incorrect, str) else non_incorrect
    n = len(truncated)
    if verdicts is None:
        verdicts = [None] * n
    if len(verdicts) != n or len(token_ids) != n:
        raise ValueError("verdicts, truncated and token_ids must have one entry per completion")
    return [
        bool(is_truncated) and predicate(verdict) and not ends_in_repetition(ids, m)
        for verdict, is_truncated, ids in zip(verdicts, truncated, token_ids, strict=True)
    ]


def is_truncated(token_ids: Sequence[int], max_length: int, eos_token_ids: Sequence[int]) -> bool:
    """|o| = L_max: the completion reached the maximum length and does not end in an end token."""
    ids = list(token_ids)
    return len(ids) >= max_length and (not ids or ids[-1] not in set(eos_token_ids))
