"""``tokens`` (testlib ``wcmp``): the same whitespace-separated tokens, in the same order.

Tokens are maximal runs of non-whitespace, whitespace being space, tab, ``\\n``, ``\\r``,
``\\v``, ``\\f``. How many whitespace characters separate tokens, and of which kind, does not
matter (``1\\n\\n2`` equals ``1 2``); the tokens themselves compare exactly, case-sensitively.
"""

from __future__ import annotations

from .base import ACCEPTED, Comparison, compare_sequences, split_tokens


def check(output: str, expected: str) -> Comparison:
    """Accept iff ``split_tokens(output) == split_tokens(expected)``.

    Messages: ``token 7: expected '0.5', got '0.6'``, ``output ended after 2 tokens,
    expected 3``, ``output has 4 tokens, expected 3; extra token 4: '7'``.
    """
    if output == expected:  # no need to split
        return ACCEPTED
    return compare_sequences("token", split_tokens(output), split_tokens(expected))
