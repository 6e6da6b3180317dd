"""Parallelism and scheduling: grading programs against problems over the sandbox pool."""

from evaluator.runner.grading import (
    GradeOptions,
    Grader,
    GradeResult,
    TestResult,
    grade,
    grade_many,
)

__all__ = ["GradeOptions", "GradeResult", "Grader", "TestResult", "grade", "grade_many"]
