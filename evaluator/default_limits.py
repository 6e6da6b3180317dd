"""The default limits of a test, written once, below every layer that uses them: the problem
model (:mod:`evaluator.problem`, which exports them), the sandbox's :class:`Limits`, the
grading options and every command's and service's default."""

from __future__ import annotations

__all__ = ["DEFAULT_MEMORY_LIMIT", "DEFAULT_TIME_LIMIT"]

DEFAULT_TIME_LIMIT = 6.0  # seconds of CPU per test, LiveCodeBench's per-test timeout
DEFAULT_MEMORY_LIMIT = 1024  # MB per program
