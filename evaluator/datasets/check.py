"""Checking a problem set's tests, measuring test strength and calibrating time limits.

``check_entries`` decides, per problem:

* **removed** (with the reason) when its record does not decode, it has no tests, two tests
  have the same input but different expected outputs (contradictory), or it has reference
  solutions and none passes every test;
* whether it **needs a checker** (a special judge), and why: its statement says many answers
  are right (:mod:`evaluator.formats.statement`), or its references disagree on a test (one's
  clean run judged right and another's wrong), or none prints a test's expected output;
  ``has_checker`` says whether it has one;
* a **warning** (kept) when some but not all references pass, when a known-wrong solution
  passes every test (weak tests; removed instead with ``drop_weak``), when tests are exact
  duplicates, or when it has no reference solution (unverified).

Reference runs use test isolation (a fresh process per test), so each test's CPU time is the
kernel's measurement; the slowest passing reference's largest per-test CPU time is the
basis of calibration: ``time_limit = max(floor, multiplier x cpu)``, rounded up to 0.1 s.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator.formats import Samples
from evaluator.formats.statement import judge_from_statement
from evaluator.judges import is_checker_spec
from evaluator.languages import Language
from evaluator.problem import DEFAULT_TIME_LIMIT, Harness, Problem, Verdict
from evaluator.runner import GradeOptions, Grader, GradeResult, grade_all
from evaluator.runner.run import sample_program
from evaluator.sandbox import Isolation, SandboxPool

from .entries import Entry, program_for, statement

__all__ = [
    "DEFAULT_FLOOR",
    "DEFAULT_MULTIPLIER",
    "ProblemCheck",
    "calibrated_limit",
    "check_entries",
    "references_disagree",
    "sample_programs",
    "strength",
    "test_conflicts",
]

DEFAULT_FLOOR = 1.0  # seconds
DEFAULT_MULTIPLIER = 3.0
REFERENCE_TIME_LIMIT = 10.0  # CPU seconds per test allowed to references while measuring


@dataclass(slots=True)
class ProblemCheck:
    id: str
    tests: int = 0
    duplicates: int = 0
    contradictory: int = 0
    references: int = 0
    references_passed: int = 0
    wrong: int = 0
    wrong_rejected: int = 0
    ref_cpu_max: float | None = None
    ref_cpu_total: float | None = None
    time_limit: float | None = None
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Whether the problem needs a special judge, and why (None: nothing says so): its
    # statement says many answers are right, or its references disagree on a test
    needs_checker: str | None = None
    has_checker: bool = False
    # a checker made elsewhere (``--checker-file``): "valid", or "invalid: why" (ScaleBox's
    # gate: every reference accepted, empty output rejected); None: it has none
    generated_checker: str | None = None

    @property
    def removed(self) -> bool:
        return bool(self.reasons)

    @property
    def unchecked(self) -> bool:
        """Needs a checker and has none: a right answer may be graded wrong."""
        return self.needs_checker is not None and not self.has_checker

    def to_dict(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "status": "removed" if self.removed else "kept",
            "tests": self.tests,
            "duplicates": self.duplicates,
            "contradictory": self.contradictory,
            "references": self.references,
            "references_passed": self.references_passed,
            "wrong": self.wrong,
            "wrong_rejected": self.wrong_rejected,
            "ref_cpu_max": None if self.ref_cpu_max is None else round(self.ref_cpu_max, 4),
            "ref_cpu_total": None if self.ref_cpu_total is None else round(self.ref_cpu_total, 4),
            "reasons": self.reasons,
            "warnings": self.warnings,
        }
        if self.time_limit is not None:
            data["time_limit"] = self.time_limit
        if self.needs_checker is not None:
            data["needs_checker"] = self.needs_checker
        data["has_checker"] = self.has_checker
        if self.generated_checker is not None:
            data["generated_checker"] = self.generated_checker
        return data


def _canonical_output(problem: Problem, text: str) -> str:
    """Expected outputs compared for contradictions: JSON values for call-based tests
    (``[1,2]`` equals ``[1, 2]``), lines without trailing whitespace for stdin."""
    if problem.harness is Harness.FUNCTIONAL:
        try:
            return json.dumps(json.loads(text), sort_keys=True)
        except ValueError:
            return text
    return "\n".join(line.rstrip() for line in text.rstrip().split("\n"))


def test_conflicts(problem: Problem) -> tuple[int, int, str]:
    """``(duplicates, contradictory, example)``: tests repeating an earlier (input, output),
    and inputs that appear with two or more different outputs."""
    outputs: dict[str, set[str]] = {}
    seen: set[tuple[str, str]] = set()
    duplicates = 0
    for test in problem.tests:
        key = test.input.strip() if problem.harness is not Harness.FUNCTIONAL else test.input
        out = _canonical_output(problem, test.output)
        if (key, out) in seen:
            duplicates += 1
        seen.add((key, out))
        outputs.setdefault(key, set()).add(out)
    bad = [(k, v) for k, v in outputs.items() if len(v) > 1]
    example = ""
    if bad:
        key, values = bad[0]
        shown = " vs ".join(sorted(repr(v[:40]) for v in values)[:2])
        example = f"input {key[:60]!r} expects {shown}"
    return duplicates, len(bad), example


def calibrated_limit(cpu: float, floor: float, multiplier: float) -> float:
    """``max(floor, multiplier x cpu)`` rounded up to a tenth of a second."""
    return max(floor, math.ceil(multiplier * cpu * 10 - 1e-9) / 10)


def sample_programs(problem: Problem, samples: Samples | None) -> list[tuple[str, Language | str]]:
    """The programs to grade for ``samples`` of ``problem``, each with its language, as a
    grading run plans them (:func:`~evaluator.runner.run.sample_program`: code extracted
    from raw answers, HumanEval completions joined to the prompt, assertion tests appended)."""
    if samples is None:
        return []
    programs = []
    for text in samples.codes:
        program, language = sample_program(problem, samples, text, samples.language)
        programs.append((program or "", language))
    return programs


def _first_failure(result: GradeResult) -> str:
    for index, test in enumerate(result.tests):
        if test.verdict is not Verdict.AC:
            message = f": {test.message[:80]}" if test.message else ""
            return f"test {index}: {test.verdict}{message}"
    return f"{result.verdict}: {result.message[:80]}"


def check_entries(
    entries: Sequence[Entry],
    pool: SandboxPool,
    *,
    solutions: dict[str, Samples] | None = None,
    wrong: dict[str, Samples] | None = None,
    time_limit: float = REFERENCE_TIME_LIMIT,
    calibrate: bool = False,
    floor: float = DEFAULT_FLOOR,
    multiplier: float = DEFAULT_MULTIPLIER,
    drop_weak: bool = False,
    progress: bool = False,
    checker_dir: str | None = None,
    generated: Collection[str] = (),
) -> list[ProblemCheck]:
    """Check every entry (see the module docstring); results in input order. ``progress``
    shows a bar on stderr for the reference runs and then the known-wrong ones;
    ``checker_dir``: where program checkers lie (:attr:`GradeOptions.checker_dir`);
    ``generated``: the ids of problems whose checker was made elsewhere (a side file,
    :mod:`evaluator.judges.generated`), each validated as ScaleBox validates its generated
    judges: every reference accepted, a program that prints nothing rejected on every test
    whose expected output is not blank."""
    checks = [ProblemCheck(entry.id) for entry in entries]
    ref_items: list[tuple[int, Problem, str, str]] = []  # (check, problem, program, language)
    wrong_items: list[tuple[int, Problem, str, str]] = []
    empty_items: list[tuple[int, Problem, str, str]] = []  # silence, for generated checkers
    for index, (entry, check) in enumerate(zip(entries, checks, strict=True)):
        problem = entry.problem
        if problem is None:
            check.reasons.append(f"undecodable: {entry.error}")
            continue
        check.tests = (
            0
            if problem.harness is Harness.ASSERTION and not problem.test_code
            else len(problem.tests)
        )
        if check.tests == 0:
            check.reasons.append("no tests")
            continue
        check.has_checker = is_checker_spec(problem.judge)
        check.needs_checker = _stated_need(entry, problem)
        check.duplicates, check.contradictory, example = test_conflicts(problem)
        if check.contradictory:
            check.reasons.append(
                f"contradictory tests: {check.contradictory} input(s) with different "
                f"expected outputs ({example})"
            )
        if check.duplicates:
            check.warnings.append(f"{check.duplicates} duplicate test(s)")
        references = [(program_for(problem, ref.code), ref.language) for ref in entry.references]
        references += sample_programs(problem, (solutions or {}).get(problem.id))
        check.references = len(references)
        ref_items += [(index, problem, *program) for program in references]
        wrongs = [(program_for(problem, ref.code), ref.language) for ref in entry.wrong_references]
        wrongs += sample_programs(problem, (wrong or {}).get(problem.id))
        check.wrong = len(wrongs)
        wrong_items += [(index, problem, *program) for program in wrongs]
        if problem.id in generated:
            empty_items.append((index, problem, _SILENT_PROGRAM, "python"))

    ref_options = GradeOptions(
        time_limit=time_limit, isolation=Isolation.TEST, checker_dir=checker_dir
    )
    wrong_options = GradeOptions(time_limit=time_limit, early_exit=True, checker_dir=checker_dir)
    with Grader(ref_options, pool=pool) as ref_grader, Grader(wrong_options, pool=pool) as grader:
        ref_results = grade_all(
            ref_grader, [(_no_limit(p), c, lang) for _, p, c, lang in ref_items], progress=progress
        )
        wrong_results = grade_all(grader, [item[1:] for item in wrong_items], progress=progress)
        empty_results = ref_grader.grade_many([item[1:] for item in empty_items])

    for index, why in references_disagree(ref_items, ref_results).items():
        checks[index].needs_checker = checks[index].needs_checker or why
    failures: dict[int, list[str]] = {}
    for (index, *_), result in zip(ref_items, ref_results, strict=True):
        check = checks[index]
        if result.passed:
            check.references_passed += 1
            cpu_max = max(t.cpu_time for t in result.tests)
            cpu_total = sum(t.cpu_time for t in result.tests)
            check.ref_cpu_max = max(check.ref_cpu_max or 0.0, cpu_max)
            check.ref_cpu_total = max(check.ref_cpu_total or 0.0, cpu_total)
        else:
            failures.setdefault(index, []).append(_first_failure(result))
    for (index, *_), result in zip(wrong_items, wrong_results, strict=True):
        checks[index].wrong_rejected += not result.passed
    for (index, problem, *_), result in zip(empty_items, empty_results, strict=True):
        checks[index].generated_checker = _gate(checks[index], problem, result)

    for index, check in enumerate(checks):
        if check.removed and check.tests == 0:
            continue
        if check.references and not check.references_passed:
            check.reasons.append(
                f"reference solution fails ({'; '.join(failures.get(index, [])[:2])})"
            )
        elif failures.get(index):
            check.warnings.append(
                f"{len(failures[index])} of {check.references} references fail "
                f"({failures[index][0]})"
            )
        elif not check.references and entries[index].problem is not None:
            check.warnings.append("no reference solution: unverified")
        escaped = check.wrong - check.wrong_rejected
        if escaped:
            message = f"weak tests: {escaped} of {check.wrong} known-wrong solution(s) pass"
            (check.reasons if drop_weak else check.warnings).append(message)
        if calibrate and check.ref_cpu_max is not None and not check.removed:
            check.time_limit = calibrated_limit(check.ref_cpu_max, floor, multiplier)
    return checks


_SILENT_PROGRAM = "pass\n"  # prints nothing: what a generated checker must reject


def _gate(check: ProblemCheck, problem: Problem, silent: GradeResult) -> str:
    """A generated checker's verdict by ScaleBox's rule (:func:`check_entries`): "valid",
    or "invalid: " and the first thing that went wrong."""
    if not check.references:
        return "invalid: no reference solution to validate it against"
    if check.references_passed < check.references:
        failed = check.references - check.references_passed
        return f"invalid: it rejects {failed} of {check.references} reference solution(s)"
    asked = [i for i, test in enumerate(problem.tests) if test.output.strip()]
    if not asked:
        return "invalid: every expected output is blank: an empty output cannot be asked"
    for number in asked:
        verdict = silent.tests[number].verdict if number < len(silent.tests) else None
        if verdict is not Verdict.WA:
            return f"invalid: on test {number + 1} an empty output is {verdict or 'not judged'}"
    return "valid"


def _stated_need(entry: Entry, problem: Problem) -> str | None:
    """Why ``problem``'s statement says it needs a checker (whether or not it has one), or
    None: the decision its reading made, else what the statement says of many answers
    (a row with its own checker was not read for its judge)."""
    if problem.needs_checker and not problem.judge_reason:
        return "marked so in its record"
    if problem.needs_checker:
        return f"the statement says so: {problem.judge_reason}"
    if problem.harness is Harness.ASSERTION:
        return None
    decision = judge_from_statement(
        statement(entry),
        stdin=problem.harness is Harness.STDIN,
        source_judge=None,
        explicit=False,
        outputs=[test.output for test in problem.tests],
    )
    return f"the statement says so: {decision.reason}" if decision.needs_checker else None


def references_disagree(
    items: Sequence[tuple[int, Problem, str, str]], results: Sequence[GradeResult]
) -> dict[int, str]:
    """Per check index, why its references say the problem accepts more than one answer: on
    some test one reference's output is judged right and another's, from a clean run, wrong
    (the two print different answers), or every reference's clean run is judged wrong (the
    row's expected output is not what they print). A crash or a time-out says nothing of
    the answers. Problems judged by a checker are left out: it has judged them."""
    verdicts: dict[int, dict[int, set[Verdict]]] = {}
    for (index, problem, *_), result in zip(items, results, strict=True):
        if is_checker_spec(problem.judge) or problem.harness is Harness.ASSERTION:
            continue
        per_test = verdicts.setdefault(index, {})
        for number, test in enumerate(result.tests):
            per_test.setdefault(number, set()).add(test.verdict)
    found = {}
    for index, per_test in verdicts.items():
        for number, seen in sorted(per_test.items()):
            if Verdict.WA in seen and Verdict.AC in seen:
                found[index] = f"references print different answers on test {number + 1}"
                break
            if seen == {Verdict.WA}:
                found[index] = f"no reference prints test {number + 1}'s expected output"
                break
    return found


def _no_limit(problem: Problem) -> Problem:
    """The problem without its own time limit, so references are measured, not cut off."""
    return problem if problem.time_limit is None else replace(problem, time_limit=None)


# --- test strength -----------------------------------------------------------------------------


def strength(
    entries: Sequence[Entry],
    pool: SandboxPool,
    correct: dict[str, Samples],
    wrong: dict[str, Samples],
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    progress: bool = False,
    checker_dir: str | None = None,
) -> dict[str, Any]:
    """How well each problem's tests separate ``correct`` from ``wrong`` solutions (program
    checkers read in ``checker_dir``: :attr:`GradeOptions.checker_dir`).

    Per problem: ``accept_rate`` = correct solutions passing / correct solutions,
    ``catch_rate`` = wrong solutions failing / wrong solutions (``None`` without any).
    Overall: the same rates over all solutions pooled (``micro``) and the mean of the
    per-problem rates (``macro``), plus the verdicts that caught wrong solutions and the list
    of wrong solutions that escaped and correct ones that were rejected.
    """
    options = GradeOptions(time_limit=time_limit, early_exit=True, checker_dir=checker_dir)
    items: list[tuple[str, bool, int, Problem, str, str]] = []
    for entry in entries:
        problem = entry.problem
        if problem is None:
            continue
        for is_correct, source in ((True, correct), (False, wrong)):
            for index, program in enumerate(sample_programs(problem, source.get(problem.id))):
                items.append((problem.id, is_correct, index, problem, *program))
    with Grader(options, pool=pool) as grader:
        results = grade_all(grader, [item[3:] for item in items], progress=progress)
    per: dict[str, dict[str, Any]] = {}
    caught_by: Counter[str] = Counter()
    escaped: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for (pid, is_correct, index, *_), result in zip(items, results, strict=True):
        row = per.setdefault(pid, {"id": pid, "correct": 0, "accepted": 0, "wrong": 0, "caught": 0})
        if is_correct:
            row["correct"] += 1
            row["accepted"] += result.passed
            if not result.passed:
                rejected.append({"id": pid, "index": index, "why": _first_failure(result)})
        else:
            row["wrong"] += 1
            row["caught"] += not result.passed
            if result.passed:
                escaped.append({"id": pid, "index": index})
            else:
                caught_by[str(result.verdict)] += 1
    rows = list(per.values())
    for row in rows:
        row["accept_rate"] = row["accepted"] / row["correct"] if row["correct"] else None
        row["catch_rate"] = row["caught"] / row["wrong"] if row["wrong"] else None

    def rate(num: str, den: str) -> float | None:
        total = sum(r[den] for r in rows)
        return sum(r[num] for r in rows) / total if total else None

    def mean(key: str) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return sum(values) / len(values) if values else None

    return {
        "problems": len(rows),
        "correct": sum(r["correct"] for r in rows),
        "wrong": sum(r["wrong"] for r in rows),
        "accept_rate": {"micro": rate("accepted", "correct"), "macro": mean("accept_rate")},
        "catch_rate": {"micro": rate("caught", "wrong"), "macro": mean("catch_rate")},
        "caught_by_verdict": dict(caught_by.most_common()),
        "escaped_wrong": escaped,
        "rejected_correct": rejected,
        "per_problem": rows,
    }
