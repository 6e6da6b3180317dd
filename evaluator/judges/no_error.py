"""``no_error``: a test program's clean exit, and the word ``ERROR`` printed nowhere, on
stdout or stderr (MultiPL-E's Perl rule, ``eval_pl.py``: its tests print ``ok!`` per passed
check and a failure may only print, so the word in either stream fails the run). Like
``silent`` it reads stderr (:attr:`READS`: it is given stdout and stderr joined)."""

from __future__ import annotations

from .base import ACCEPTED, Comparison, wrong

READS = ("stdout", "stderr")
WORD = "ERROR"


def check(output: str, expected: str) -> Comparison:
    """Accept an output without ``ERROR``; else say where it was printed."""
    at = output.find(WORD)
    if at < 0:
        return ACCEPTED
    line = output[output.rfind("\n", 0, at) + 1 :].split("\n", 1)[0]
    return wrong(f"printed {line[:200]!r}, which has {WORD!r} (their rule fails it)")


check.reads = READS  # type: ignore[attr-defined]
