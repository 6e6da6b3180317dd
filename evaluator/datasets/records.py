"""Problem sets as raw records plus their parsed :class:`Problem`, so tools can write back
exactly what they read (with changes such as ``time_limit``) in the same format, or convert.

Each :class:`Entry` keeps the record, its format (``lcb``, ``humaneval``, ``ours``), the
problem (``None`` when the record does not decode: ``error`` says why) and the reference
solutions found in the record: ``reference_solution`` (a string or a list of strings; for
ours under ``metadata``), or HumanEval/EvalPlus's ``canonical_solution``.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.formats import (
    InputError,
    decode_test_cases,
    encode_private_tests,
    problem_from_humaneval,
    problem_from_lcb,
    problem_from_ours,
    problem_to_ours,
    read_records,
)
from evaluator.harness import assertion
from evaluator.problem import Harness, Problem

from .convert import PUBLIC_TESTS, REFERENCE_FIELD

__all__ = ["Entry", "read_entries", "write_records", "to_format", "statement", "record_format"]


@dataclass(slots=True)
class Entry:
    id: str
    record: dict[str, Any]
    format: str
    problem: Problem | None
    error: str = ""
    references: list[str] = field(default_factory=list)
    position: int = 0

    @property
    def difficulty(self) -> str:
        value = self.record.get("difficulty")
        if value is None and self.format == "ours":
            value = (self.record.get("metadata") or {}).get("difficulty")
        return str(value or "").lower()

    @property
    def platform(self) -> str:
        value = self.record.get("platform")
        if value is None and self.format == "ours":
            value = (self.record.get("metadata") or {}).get("platform")
        if value is None and self.format == "humaneval":
            value = self.id.split("/", 1)[0]
        return str(value or "").lower()

    @property
    def date(self) -> str:
        value = self.record.get("contest_date")
        if value is None and self.format == "ours":
            value = (self.record.get("metadata") or {}).get("contest_date")
        return str(value or "")[:10]


def record_format(record: dict[str, Any]) -> str:
    if "id" in record and "harness" in record:
        return "ours"
    if "question_id" in record:
        return "lcb"
    if "task_id" in record:
        return "humaneval"
    raise InputError("not a known problem record (LiveCodeBench, HumanEval/EvalPlus or ours)")


_CONVERTERS = {
    "ours": problem_from_ours,
    "lcb": problem_from_lcb,
    "humaneval": problem_from_humaneval,
}


def _references(record: dict[str, Any], fmt: str, problem: Problem) -> list[str]:
    value: Any = record.get(REFERENCE_FIELD)
    if fmt == "ours":
        value = (record.get("metadata") or {}).get(REFERENCE_FIELD)
    if isinstance(value, str) and value.strip():
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v.strip()]
    canonical = problem.metadata.get("canonical_solution")
    if problem.harness is Harness.ASSERTION and canonical:
        return [problem.prompt + canonical]
    return []


def _record_id(record: dict[str, Any]) -> str:
    for key in ("question_id", "id", "task_id"):
        if isinstance(record.get(key), str | int):
            return str(record[key])
    return ""


def read_entries(path: str | Path) -> list[Entry]:
    """Every record of ``path``; a record that does not decode becomes an Entry with
    ``problem=None`` and the error (the file itself must be readable)."""
    entries: list[Entry] = []
    for position, record in read_records(path):
        fmt = ""
        try:
            fmt = record_format(record)
            problem = _CONVERTERS[fmt](record, path=str(path), line=position)
        except InputError as exc:
            rid = _record_id(record) or f"#{position}"
            entries.append(Entry(rid, record, fmt, None, str(exc), position=position))
            continue
        refs = _references(record, fmt, problem)
        entries.append(Entry(problem.id, record, fmt, problem, "", refs, position))
    return entries


def program_for(problem: Problem, code: str, continues_prompt: bool = False) -> str:
    """The program the grader runs for a solution (assertion problems add their tests)."""
    if problem.harness is Harness.ASSERTION:
        return assertion.program(problem, code, continues_prompt)
    return code


def write_records(path: str | Path, records: list[dict[str, Any]]) -> None:
    """JSONL (gzip-compressed when the name ends in ``.gz``)."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        Path(path).write_text(text, encoding="utf-8")


def statement(entry: Entry) -> str:
    """The problem statement text used for deduplication."""
    record = entry.record
    if entry.format == "lcb":
        return str(record.get("question_content") or "")
    if entry.format == "ours":
        meta = record.get("metadata") or {}
        return str(meta.get("question_content") or record.get("prompt") or "")
    return str(record.get("prompt") or "")


def to_format(entry: Entry, target: str) -> dict[str, Any]:
    """``entry`` as a record of ``target`` (``lcb`` or ``ours``); ValueError when it cannot be
    (an assertion problem has no LiveCodeBench form)."""
    if target == entry.format:
        return dict(entry.record)
    problem = entry.problem
    assert problem is not None
    if target == "ours":
        record = problem_to_ours(problem)
        meta = dict(record.get("metadata") or {})
        if entry.format == "lcb":
            meta.update({k: entry.record[k] for k in ("question_content",) if k in entry.record})
        if entry.references:
            meta[REFERENCE_FIELD] = entry.references[0]
        if meta:
            record["metadata"] = meta
        return record
    if target == "lcb":
        if problem.harness is Harness.ASSERTION:
            raise ValueError(
                "an assertion (HumanEval) problem has no LiveCodeBench form: "
                "use `mcevaluate dataset convert --from humaneval` (runs the canonical solution)"
            )
        meta = problem.metadata
        testtype = problem.harness.value
        cases = [
            {"input": t.input, "output": t.output, "testtype": testtype} for t in problem.tests
        ]
        record = {
            "question_id": problem.id,
            "question_title": meta.get("question_title", problem.id),
            "question_content": meta.get("question_content", ""),
            "platform": meta.get("platform", ""),
            "contest_id": meta.get("contest_id", ""),
            "contest_date": meta.get("contest_date", ""),
            "difficulty": meta.get("difficulty", ""),
            "starter_code": meta.get("starter_code", ""),
            "public_test_cases": json.dumps(cases[:PUBLIC_TESTS]),
            "private_test_cases": encode_private_tests(cases[PUBLIC_TESTS:]),
            "metadata": json.dumps({"func_name": problem.func_name} if problem.func_name else {}),
        }
        for key in ("judge", "time_limit", "memory_limit"):
            if getattr(problem, key) is not None:
                record[key] = getattr(problem, key)
        if entry.references:
            record[REFERENCE_FIELD] = entry.references[0]
        return record
    raise ValueError(f"unknown format {target!r} (expected lcb or ours)")


def set_time_limit(entry: Entry, seconds: float) -> dict[str, Any]:
    """The entry's record with ``time_limit`` set (LiveCodeBench and ours read it)."""
    record = dict(entry.record)
    record["time_limit"] = seconds
    return record


def test_dicts(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A LiveCodeBench record's tests, public then private (for tools that inspect them)."""
    return decode_test_cases(record.get("public_test_cases"), "public_test_cases") + (
        decode_test_cases(record.get("private_test_cases"), "private_test_cases")
    )
