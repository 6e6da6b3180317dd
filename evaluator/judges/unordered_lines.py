"""``unordered_lines``: the same lines, in any order.

Both texts are split into lines on ``\\n``; a line with no token (empty, or only whitespace)
is dropped wherever it is, so trailing empty lines (and blank lines between others) do not
count. Each remaining line is its sequence of tokens, split as by ``tokens``: the whitespace
inside and around a line does not matter (``'1  2\\r'`` is the line ``1 2``), the order of the
tokens inside it does (``2 1`` is another line). The outputs must hold the same lines the same
number of times, in any order. Tokens compare as text, exactly and case-sensitively (no
tolerance for numbers). For "print the pairs in any order" problems, whose answer is one item
per line.
"""

from __future__ import annotations

from .base import ACCEPTED, Comparison, compare_multisets, split_tokens


def normalise(text: str) -> list[str]:
    """The non-blank lines of ``text``, each as its tokens joined by one space."""
    rows = (" ".join(split_tokens(row)) for row in text.split("\n"))
    return [row for row in rows if row]


def check(output: str, expected: str) -> Comparison:
    """Accept iff the multisets of :func:`normalise`'d lines are equal.

    The message names the first line whose count differs (in the expected order, then the
    output's), written as its tokens joined by one space:
    ``line '1 2': 0 occurrences, expected 1 (output has 1 line, expected 2)``.
    """
    if output == expected:  # no need to split
        return ACCEPTED
    return compare_multisets("line", normalise(output), normalise(expected))
