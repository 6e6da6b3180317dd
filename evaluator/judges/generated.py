"""Python checkers made elsewhere (by a model, by hand), one per problem, kept in a side file.

The side file is JSON Lines (UTF-8), one object per problem; blank lines are skipped::

    {"id": "1873_A", "check": "def check(input, output, expected):\\n    return ..."}
    {"id": "abc300_b", "check": "...", "time_limit": 5, "memory_limit": 512}

``id``
    The problem's id as the grader knows it (:attr:`evaluator.problem.Problem.id`, the ``id``
    column of the results); a JSON integer is read as its decimal text. Unique in the file.
``check``
    Python source defining ``check(input, output, expected)``: the contract of a
    ``{"type": "python"}`` special judge (:mod:`.checker`). It gets the test input, the
    program's stdout and the test's expected output, all ``str``, and returns ``True``,
    ``False`` or ``(bool, message)``. It runs as every python checker does: a job in a sandbox
    pool, never in the grader's process.
``time_limit``, ``memory_limit`` (optional)
    The checker job's CPU seconds and MB, as in a checker spec (default 10 s, 1024 MB).

Any other key, a duplicate id, a line that is not a JSON object, or a source that does not
compile is refused with a ``ValueError`` naming the file and line, before anything runs.

:func:`load_checkers` reads the file into special-judge specs by problem id;
:func:`attach_checkers` gives each problem its checker as its judge (it replaces the judge the
problem had: the side file is the operator's choice for that problem; ``mcevaluate grade
--checkers FILE``). Only a stdin problem takes one: a checker judges printed output.

:func:`validate_checker` is the gate a generated checker passes before it is trusted, the
rule ScaleBox applies to the judges it generates (github.com/icip-cas/ScaleBox, file
``special_judge/generate_judge_program.py`` at commit 4bcfefd0, ``eval_spj``: a program is
kept only when the gold solution is accepted on the tests and an empty submission is not):

* every reference solution's output on every test is **accepted** (AC);
* **empty output is rejected** (WA) on every test where every reference printed something
  (a test whose right answer may be blank is not asked).

Stricter than ScaleBox in two places, each reported: its empty submission only has to fail
the problem as a whole (one test is enough), here it must fail every test above; and a checker
that *fails* (raises, returns no bool, runs out of time) on empty output is invalid, since in
grading that failure is an ERROR verdict, not a wrong answer. No references, or no test where
empty output can be asked, is invalid too: nothing was shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from os import PathLike
from typing import Any

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.sandbox import SandboxPool

from .base import WHITESPACE, cap
from .checker import build_checker

__all__ = [
    "CheckerTargetError",
    "CheckerValidation",
    "attach_checkers",
    "load_checkers",
    "parse_checker_line",
    "validate_checker",
]

_KEYS = ("id", "check", "time_limit", "memory_limit")
MAX_FAILURES = 20  # failure lines kept in a validation; the rest are counted


class CheckerTargetError(ValueError):
    """A checker given to a problem that is not a stdin problem."""


def load_checkers(path: str | PathLike[str]) -> dict[str, dict[str, Any]]:
    """The side file's checkers: ``{problem id: {"type": "python", "code": ..., ...}}``.

    Raises ``ValueError`` (``FILE:LINE: why``) for a broken line or a duplicate id, and
    ``OSError`` when the file cannot be read.
    """
    checkers: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                problem_id, spec = parse_checker_line(line)
                if problem_id in checkers:
                    raise ValueError(f"a second checker for problem {problem_id!r}")
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: {exc}") from None
            checkers[problem_id] = spec
    return checkers


def parse_checker_line(line: str) -> tuple[str, dict[str, Any]]:
    """One side-file line: the problem id and its checker spec (``ValueError`` if broken;
    the source is compiled, nothing is run)."""
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(record, dict):
        raise ValueError(f"a line is a JSON object, not {type(record).__name__}")
    unknown = sorted(set(record) - set(_KEYS))
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}; a line has {', '.join(_KEYS)}")
    problem_id = record.get("id")
    if isinstance(problem_id, int) and not isinstance(problem_id, bool):
        problem_id = str(problem_id)
    if not isinstance(problem_id, str) or not problem_id:
        raise ValueError(f"'id' must be a non-empty string or an integer, not {problem_id!r}")
    code = record.get("check")
    if not isinstance(code, str):
        raise ValueError(f"'check' must be Python source (a string), not {type(code).__name__}")
    spec: dict[str, Any] = {"type": "python", "code": code}
    spec.update({k: record[k] for k in ("time_limit", "memory_limit") if k in record})
    try:
        build_checker(spec)  # compiles the source and checks the limits
    except ValueError as exc:
        raise ValueError(f"problem {problem_id!r}: {exc}") from None
    return problem_id, spec


def attach_checkers(
    problems: Iterable[Problem],
    checkers: Mapping[str, dict[str, Any]],
    attached: set[str] | None = None,
) -> Iterator[Problem]:
    """``problems``, each one with a checker in ``checkers`` (by id) judged by it instead of
    its own judge (a copy of the problem; the others as they are). The ids given a checker are
    added to ``attached``. Raises :class:`CheckerTargetError` for a checker whose problem is
    not a stdin problem."""
    for problem in problems:
        spec = checkers.get(problem.id)
        if spec is None:
            yield problem
            continue
        if problem.harness is not Harness.STDIN:
            raise CheckerTargetError(
                f"problem {problem.id!r} has a checker, but it is a {problem.harness.value} "
                "problem: a checker judges a stdin problem's printed output"
            )
        if attached is not None:
            attached.add(problem.id)
        # judged by its checker now: a many-answer problem no longer needs one
        yield replace(
            problem, judge=dict(spec), judge_reason="a checker made elsewhere", needs_checker=False
        )


@dataclass(frozen=True, slots=True)
class CheckerValidation:
    """Whether a checker passed :func:`validate_checker`'s gate, and why not.

    ``references_accepted``: every reference output was accepted on every test.
    ``empty_rejected``: empty output was rejected (WA) on every test where it was asked, and
    it was asked on at least one. ``failures``: one line per thing that went wrong, tests and
    references numbered from 1 (at most :data:`MAX_FAILURES`, then a count of the rest).
    """

    valid: bool
    references_accepted: bool
    empty_rejected: bool
    failures: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.valid


def validate_checker(
    spec: dict[str, Any],
    tests: Sequence[TestCase],
    references: Sequence[Sequence[str]],
    pool: SandboxPool,
    checker_dir: str | None = None,
) -> CheckerValidation:
    """Run the checker ``spec`` describes on each reference's outputs and on empty output.

    ``tests``: the problem's tests (input and expected output, as the checker will get them).
    ``references[r][t]``: what reference solution ``r`` printed on test ``t``. The checker's
    jobs run in ``pool`` (python checkers; a program checker runs in this thread, started as
    :mod:`.checker` starts it, from ``checker_dir``). Blocks until every answer is in. A spec
    that cannot be built is invalid; ``ValueError`` if a reference has not one output per test.
    """
    for number, outputs in enumerate(references, 1):
        if len(outputs) != len(tests):
            raise ValueError(
                f"reference {number} has {len(outputs)} outputs for {len(tests)} tests"
            )
    try:
        checker = build_checker(spec, checker_dir)
    except ValueError as exc:
        return CheckerValidation(False, False, False, (cap(f"checker not built: {exc}"),))
    failures: list[str] = []
    if not tests:
        failures.append("no tests: nothing to validate against")
    if not references:
        failures.append("no reference outputs: nothing to validate against")

    def ask(test: TestCase, output: str) -> Future[tuple[Verdict, str]]:
        data = output.encode("utf-8", "surrogateescape")
        return checker.submit(pool, test.input, data, test.output)

    on_references = [
        [(r, t, ask(test, outputs[t])) for t, test in enumerate(tests)]
        for r, outputs in enumerate(references)
    ]
    asked = [
        t
        for t in range(len(tests))
        if references and all(outputs[t].strip(WHITESPACE) for outputs in references)
    ]
    on_empty = [(t, ask(tests[t], "")) for t in asked]

    references_accepted = bool(tests) and bool(references)
    for row in on_references:
        for r, t, answer in row:
            verdict, message = answer.result()
            if verdict is not Verdict.AC:
                references_accepted = False
                what = "rejected" if verdict is Verdict.WA else f"checker {verdict.value}"
                failures.append(cap(f"reference {r + 1}, test {t + 1}: {what}: {message}"))
    empty_rejected = bool(asked)
    if references and tests and not asked:
        failures.append("no test where every reference printed something: empty output not asked")
    for t, answer in on_empty:
        verdict, message = answer.result()
        if verdict is Verdict.WA:
            continue
        empty_rejected = False
        if verdict is Verdict.AC:
            failures.append(f"test {t + 1}: empty output accepted")
        else:
            failures.append(
                cap(
                    f"test {t + 1}: checker {verdict.value} on empty output, not a rejection: "
                    f"{message}"
                )
            )
    if len(failures) > MAX_FAILURES:
        rest = len(failures) - MAX_FAILURES
        failures = [*failures[:MAX_FAILURES], f"... and {rest} more"]
    valid = references_accepted and empty_rejected
    return CheckerValidation(valid, references_accepted, empty_rejected, tuple(failures))
