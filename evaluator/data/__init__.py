"""Bundled data: a small demo problem set with samples of every verdict.

``DEMO_PROBLEMS`` holds 8 original problems in LiveCodeBench's ``code_generation_lite``
schema (stdin and functional, one judged with ``float``); ``DEMO_SAMPLES`` holds 4 programs per
problem in LiveCodeBench's ``{"question_id", "code_list"}`` form, whose expected verdicts are
listed in this folder's README. Read them with :func:`evaluator.formats.read_problems` and
:func:`evaluator.formats.read_samples`.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).parent
DEMO_PROBLEMS = DATA_DIR / "demo_problems.jsonl"
DEMO_SAMPLES = DATA_DIR / "demo_samples.jsonl"

__all__ = ["DATA_DIR", "DEMO_PROBLEMS", "DEMO_SAMPLES"]
