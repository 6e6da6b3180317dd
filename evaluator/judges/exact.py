"""``exact``: the output must be the expected text, character for character.

Nothing is forgiven: not a trailing newline, not a trailing space, not ``\\r\\n`` for ``\\n``.
(The harness decodes both texts the same way, so equal strings means equal bytes.)
"""

from __future__ import annotations

from .base import ACCEPTED, Comparison, common_prefix_length, plural, show, wrong


def check(output: str, expected: str) -> Comparison:
    """Accept iff ``output == expected``.

    The message locates the first differing character by line and column and shows both lines,
    e.g. ``line 2, column 2: expected '5', got '5 '``.
    """
    if output == expected:
        return ACCEPTED
    at = common_prefix_length(output, expected)
    line = expected.count("\n", 0, at) + 1
    start = expected.rfind("\n", 0, at) + 1  # same in both texts: they agree up to `at`
    column = at - start + 1
    if at == len(output):
        return wrong(
            f"output ended at line {line}, column {column}; "
            f"expected {plural(len(expected) - at, 'more character')}: {show(expected[at:])}"
        )
    if at == len(expected):
        return wrong(
            f"output has {plural(len(output) - at, 'extra character')} at line {line}, "
            f"column {column}: {show(output[at:])}"
        )
    return wrong(
        f"line {line}, column {column}: expected {show(_line_at(expected, start))}, "
        f"got {show(_line_at(output, start))}"
    )


def _line_at(text: str, start: int) -> str:
    """The line of ``text`` that begins at ``start``, without its newline."""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]
