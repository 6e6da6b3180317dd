"""The grading run: :class:`Grader` grades programs against problems over the sandbox pool
(:mod:`.grading`), :class:`GradingRun` is a whole run as a library object (planning, the
resume journal, grading with progress, the summary: :mod:`.run`), and
:class:`ProgramGrader` is what a run asks of a grader (:mod:`.protocol`; the Ray backend is
another)."""

from evaluator.runner.grading import (
    GradeOptions,
    Grader,
    GradeResult,
    TestResult,
    grade,
    grade_many,
)
from evaluator.runner.outputs import Finished, RunError
from evaluator.runner.protocol import ProgramGrader
from evaluator.runner.run import GradingRun, grade_all

__all__ = [
    "Finished",
    "GradeOptions",
    "GradeResult",
    "Grader",
    "GradingRun",
    "ProgramGrader",
    "RunError",
    "TestResult",
    "grade",
    "grade_all",
    "grade_many",
]
