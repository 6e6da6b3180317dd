"""``words``: like ``tokens``, but letter case does not matter (ASCII case folding).

Two tokens match when they are equal after the ASCII letters ``A``-``Z`` are folded to
``a``-``z``: ``yEs`` equals ``YES``, ``Alice`` equals ``ALICE``, ``NaN`` equals ``nan``. No
other character is folded (``Ä`` is not ``ä``, ``ſ`` is not ``s``, the fullwidth ``Ｙ`` is
not ``y``), so that no Unicode rule can make two different words match. Whitespace is as in
``tokens``; numbers compare as text (``1.0`` is not ``1``). For statements that say "you may
print each letter in any case".
"""

from __future__ import annotations

from .base import ACCEPTED, Comparison, count_mismatch, differs, split_tokens

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(token: str) -> str:
    """``token`` with ASCII upper-case letters lower-cased, nothing else changed."""
    # str.lower() of an ASCII string changes only A-Z (and is fast); other strings need the
    # table, since str.lower() would fold every Unicode letter.
    return token.lower() if token.isascii() else token.translate(_ASCII_LOWER)


def check(output: str, expected: str) -> Comparison:
    """Accept iff the token lists have the same length and every pair is equal after
    :func:`fold`.

    Messages are those of ``tokens``: ``token 2: expected 'Bob', got 'Alice'``.
    """
    if output == expected:  # no need to split
        return ACCEPTED
    got, want = split_tokens(output), split_tokens(expected)
    for index, (g, e) in enumerate(zip(got, want, strict=False)):
        if g != e and fold(g) != fold(e):
            return differs("token", index, e, g)
    if len(got) != len(want):
        return count_mismatch("token", got, want)
    return ACCEPTED
