"""``unordered_tokens``: the output's tokens are a permutation of the expected ones.

Tokens are split as by ``tokens`` (runs of non-whitespace; space, tab, ``\\n``, ``\\r``,
``\\v``, ``\\f`` separate them). The two outputs must hold the same tokens the same number of
times, in any order and any layout: ``3 1 2`` equals ``1\\n2\\n3``, ``1 1 2`` does not equal
``1 2 2``. Tokens compare as text, exactly and case-sensitively, numbers included (``1.0`` is
not ``1``, ``05`` is not ``5``): no tolerance, no letter case folding. For "print the elements
of the set in any order" problems.
"""

from __future__ import annotations

from .base import ACCEPTED, Comparison, compare_multisets, split_tokens


def check(output: str, expected: str) -> Comparison:
    """Accept iff ``Counter(split_tokens(output)) == Counter(split_tokens(expected))``.

    The message names the first token whose count differs, looking first through the expected
    tokens in their order, then through the output's extra ones:
    ``token '3': 1 occurrence, expected 2 (output has 2 tokens, expected 3)``,
    ``token '7': 1 occurrence, expected 0``.
    """
    if output == expected:  # no need to split
        return ACCEPTED
    got, want = split_tokens(output), split_tokens(expected)
    return compare_multisets("token", got, want)
