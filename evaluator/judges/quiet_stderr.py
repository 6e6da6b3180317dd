"""``quiet_stderr``: a test program's clean exit with nothing written on stderr, whatever it
printed on stdout (MultiPL-E's Racket and Scala rule, ``eval_rkt.py`` and
``eval_scala.py``: rackunit reports a failed check on stderr and racket still exits 0).
It reads stderr alone (:attr:`READS`); the run's end is judged before it."""

from __future__ import annotations

from .base import ACCEPTED, Comparison, show, wrong

READS = ("stderr",)


def check(output: str, expected: str) -> Comparison:
    """Accept an empty stderr; else say what was written there first."""
    if not output:
        return ACCEPTED
    # the first line that says something (rackunit opens its report with a rule of dashes)
    lines = output.strip().splitlines()
    first = next((line for line in lines if any(c.isalnum() for c in line)), output[:200])
    return wrong(f"wrote {show(first[:200])} on stderr (a passing test program writes none)")


check.reads = READS  # type: ignore[attr-defined]
