"""``exit``: a test program's exit status alone, as HumanEval-X (C++, Java, Go, Rust) and
MultiPL-E judge: its asserts end it with a failure status, so a run that ended cleanly
(status 0, within its limits) passed, whatever it printed. The run's end is judged before
any judge (:func:`evaluator.judges.stdout.judge_stdout`), so this one accepts every output."""

from __future__ import annotations

from .base import ACCEPTED, Comparison


def check(output: str, expected: str) -> Comparison:
    """Accept: a clean exit is the pass, and that was judged before the output."""
    return ACCEPTED
