"""``yesno``: like ``tokens``, but ``yes``/``no`` answers are case-insensitive.

Two tokens match when they are equal, or when both are ``yes`` in any letter case, or both
``no`` in any letter case (``Yes`` equals ``YES``). Everything else is case-sensitive:
``YES`` is not ``NO``, ``abc`` is not ``ABC``, ``yes`` is not ``y`` nor ``yeah``.
"""

from __future__ import annotations

from .base import ACCEPTED, Comparison, count_mismatch, differs, split_tokens

_ANSWERS = frozenset({"yes", "no"})


def same_answer(got: str, expected: str) -> bool:
    """Whether two tokens match under this judge's rule."""
    if got == expected:
        return True
    # Only when BOTH sides are yes/no words does case stop mattering. ASCII only, so that no
    # exotic Unicode letter can lower-case its way into a "yes".
    if not (got.isascii() and expected.isascii() and len(got) == len(expected) <= 3):
        return False
    folded = expected.lower()
    return folded in _ANSWERS and got.lower() == folded


def check(output: str, expected: str) -> Comparison:
    """Accept iff the token lists have the same length and every pair matches as above.

    Messages are those of ``tokens``: ``token 1: expected 'NO', got 'YES'``.
    """
    if output == expected:  # no need to split
        return ACCEPTED
    got, want = split_tokens(output), split_tokens(expected)
    for index, (g, e) in enumerate(zip(got, want, strict=False)):
        if not same_answer(g, e):
            return differs("token", index, e, g)
    if len(got) != len(want):
        return count_mismatch("token", got, want)
    return ACCEPTED
