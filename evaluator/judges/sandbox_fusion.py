"""``sandbox_fusion``: SandboxFusion's stdio comparison, for ``/submit`` answers that a client
switching from SandboxFusion must get unchanged.

Semantics (SandboxFusion's ``check_stdio_test_case``, ``sandbox/utils/testing.py`` of
bytedance/SandboxFusion at 469de08, written from its description):

1. The output and the expected output are stripped (:meth:`str.strip`) and split on ``\\n``;
   when the counts differ by one because one side's last line is empty, that line is dropped.
   The counts must then be equal.
2. Line *i* matches when, lower-cased (every letter, not only yes/no) and stripped, the two
   lines are equal; or else when both whole lines parse as one float (Python's ``float``:
   ``1.0``, ``1e3``, ``inf``, ``nan``) and ``|got - expected| / max(|expected|, 1e-10) <
   1e-5``: a relative tolerance applied to integers too.

What it accepts that our other judges do not, and why it is not a default anywhere but
``/submit``: ``Alice`` for ``alice`` (every word's case), ``1000000007`` for ``1000000000``
(integers within 1e-5 relative), ``1.0`` for ``1``. ``/submit`` takes it to answer exactly as
SandboxFusion does; a client can ask for a stricter judge by name (``config.extra.judge``).
Between tokens of a line, spacing still counts (``1  2`` is not ``1 2``), as there.
"""

from __future__ import annotations

import math

from .base import ACCEPTED, Comparison, count_mismatch, differs

REL_TOL = 1e-5  # SandboxFusion's float_equal


def _lines(text: str) -> list[str]:
    return text.strip().split("\n")


def _as_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _close(got: float, expected: float) -> bool:
    # SandboxFusion's arithmetic as it is: NaN is never close, inf is close to nothing
    # (inf - inf is NaN), and the bound is strict.
    with_floor = max(abs(expected), 1e-10)
    difference = abs(got - expected)
    return not math.isnan(difference) and difference / with_floor < REL_TOL


def check(output: str, expected: str) -> Comparison:
    """Accept iff the line lists match as above. Messages are the ``lines`` judge's:
    ``line 2: expected '7', got '8'``."""
    if output == expected:
        return ACCEPTED
    got, want = _lines(output), _lines(expected)
    if len(got) - len(want) == 1 and got[-1] == "":
        got = got[:-1]
    if len(want) - len(got) == 1 and want[-1] == "":
        want = want[:-1]
    if len(got) != len(want):
        return count_mismatch("line", got, want)
    for index, (g, e) in enumerate(zip(got, want, strict=True)):
        if g.lower().strip() == e.lower().strip():
            continue
        a, b = _as_float(g), _as_float(e)
        if a is not None and b is not None and _close(a, b):
            continue
        return differs("line", index, e, g)
    return ACCEPTED
