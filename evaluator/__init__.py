"""MicroCoder-Evaluator: a fast, safe and exact grader for LLM-written programs.

Public API (imported lazily, so ``import evaluator`` stays cheap and never imports torch)::

    from evaluator import Grader, GradeOptions, grade, grade_many, Problem, TestCase, Verdict
"""

from __future__ import annotations

from evaluator.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "Grader": "evaluator.runner",
        "GradeOptions": "evaluator.runner",
        "GradeResult": "evaluator.runner",
        "TestResult": "evaluator.runner",
        "grade": "evaluator.runner",
        "grade_many": "evaluator.runner",
        "GradingRun": "evaluator.runner",
        "ProgramGrader": "evaluator.runner",
        "Problem": "evaluator.problem",
        "TestCase": "evaluator.problem",
        "Harness": "evaluator.problem",
        "Verdict": "evaluator.problem",
        "SandboxPool": "evaluator.sandbox",
        "Limits": "evaluator.sandbox",
        "Isolation": "evaluator.sandbox",
        "BuildLimits": "evaluator.languages",
        "get_language": "evaluator.languages",
        "languages": "evaluator.languages",
        "VERDICT_NAMES": "evaluator.reward",
        "WRONG_VERDICTS": "evaluator.reward",
        "CodeReward": "evaluator.reward",
        "AsyncCodeReward": "evaluator.reward",
        "verl_compute_score": "evaluator.reward",
        "verl_compute_score_async": "evaluator.reward",
        "verl_compute_score_batch": "evaluator.reward",
        "problem_from_ground_truth": "evaluator.reward",
    },
)
