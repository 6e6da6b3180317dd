"""Our batch endpoint, ``/grade``: a whole RL batch (or benchmark) in one request.

Request: ``{"problems": [...], "samples": [...], "options": {...}, "format"?: name}``;
problems in any format ``mcevaluate grade`` reads (every source of :mod:`evaluator.formats`:
LiveCodeBench, TACO, APPS, CodeContests, DeepCoder, PrimeIntellect, KodCode, Codeforces,
MBPP, HumanEval/EvalPlus, ours...; detected from the first, or named by ``format``), read by
the same registry the same way, samples in any of its samples formats, options ``time_limit``, ``memory_limit``, ``judge``,
``isolation``, ``environment`` and ``early_exit`` (default true: pass@k needs only the first
failure). Response: ``{"results": [...], "summary": {...}}``, the rows ``mcevaluate grade``
writes (LiveCodeBench's ``eval_all``: ``graded_list``, ``details`` per sample) and its
summary. The grading run is the CLI's own (:class:`~evaluator.runner.run.GradingRun`)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from evaluator.formats import (
    InputError,
    problems_from_records,
    sample_format,
    samples_from_records,
)
from evaluator.runner import GradeOptions, GradingRun, ProgramGrader, RunError
from evaluator.sandbox import Isolation

from .errors import BadRequest

__all__ = ["grade_batch", "options_from", "plan"]

_OPTIONS = {f.name for f in fields(GradeOptions)} & {
    "time_limit",
    "memory_limit",
    "judge",
    "isolation",
    "environment",
    "early_exit",
}


def options_from(body: dict[str, Any]) -> GradeOptions:
    """The request's grading options (unknown names refused, each value checked by
    :class:`GradeOptions` itself)."""
    given = body.get("options") or {}
    if not isinstance(given, dict):
        raise BadRequest("field 'options': expected an object")
    unknown = sorted(set(given) - _OPTIONS)
    if unknown:
        raise BadRequest(
            f"field 'options.{unknown[0]}': unknown (known: {', '.join(sorted(_OPTIONS))})"
        )
    values = {"early_exit": True, **given}
    try:
        if "isolation" in values:
            values["isolation"] = Isolation(values["isolation"])
        return GradeOptions(**values)
    except (TypeError, ValueError) as exc:
        raise BadRequest(f"field 'options': {exc}") from None


def _records(body: dict[str, Any], name: str) -> list[dict[str, Any]]:
    value = body.get(name)
    if value is None:
        raise BadRequest(f"missing field {name!r}")
    if not isinstance(value, list):
        raise BadRequest(f"field {name!r}: expected a list of records")
    return value


def plan(body: Any) -> tuple[GradingRun, list[str]]:
    """The grading run a ``/grade`` body asks for, checked (one-line :class:`BadRequest`),
    and the notes it made (unknown sample ids, problems without samples)."""
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    options = options_from(body)
    records = _records(body, "samples")
    problem_format = body.get("format")
    if problem_format is not None and not isinstance(problem_format, str):
        raise BadRequest("field 'format': expected a format name (`mcevaluate formats`)")
    try:
        problems = problems_from_records(
            _records(body, "problems"), source="problems", format=problem_format
        )
        samples = samples_from_records(records, source="samples")
    except InputError as exc:
        raise BadRequest(str(exc)) from None
    notes: list[str] = []
    try:
        run = GradingRun(
            problems,
            "samples",
            options,
            say=notes.append,
            samples=samples,
            samples_kind=sample_format(records[0]) if records else None,
        )
    except RunError as exc:
        raise BadRequest(str(exc)) from None
    return run, notes


def grade_batch(run: GradingRun, notes: list[str], grader: ProgramGrader) -> dict[str, Any]:
    """Grade the planned run; the rows and summary ``mcevaluate grade`` would write."""
    run.grade(grader, progress=False)
    finished = run.finish(label="request")
    return {"results": finished.rows, "summary": finished.summary, "notes": notes}
