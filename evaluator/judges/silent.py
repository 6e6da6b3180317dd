"""``silent``: the program printed nothing at all, on stdout or stderr (HumanEval-X's
JavaScript rule: ``console.assert`` prints a failed assertion on stderr and node still exits
0, so a run passes when both streams are empty). It reads stderr too (:attr:`READS`:
:func:`evaluator.judges.stdout.judge_stdout` gives it stdout and stderr joined)."""

from __future__ import annotations

from .base import ACCEPTED, Comparison, show, wrong

READS = ("stdout", "stderr")


def check(output: str, expected: str) -> Comparison:
    """Accept an empty output; else say what was printed first."""
    if not output:
        return ACCEPTED
    first = output.strip().splitlines()[0] if output.strip() else output
    return wrong(f"printed {show(first[:200])} (a test prints nothing when it passes)")


check.reads = READS  # type: ignore[attr-defined]
