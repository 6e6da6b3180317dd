"""Problem sets as raw records plus their parsed :class:`Problem`, so tools can write back
exactly what they read (with changes such as ``time_limit``) in the same format, or convert.

Each :class:`Entry` keeps the record, its format (a name of :mod:`evaluator.formats`'
registry: ``livecodebench``, ``taco``, ``ours``...), the problem (``None`` when the record
does not decode: ``error`` says why) and the solutions the source ships: ``references`` that
should pass every test (``reference_solution``, HumanEval's ``canonical_solution``, TACO's
``solutions``...) and ``wrong_references`` that should fail (CodeContests'
``incorrect_solutions``), each with its language.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.formats import (
    InputError,
    encode_private_tests,
    get_format,
    problem_to_ours,
    read_records,
)
from evaluator.formats.record_files import dumps_json
from evaluator.formats.registry import Format, Solution, detect_format, file_fallback_id
from evaluator.harness import assertion
from evaluator.problem import Harness, Problem

from .convert import PUBLIC_TESTS, REFERENCE_FIELD

__all__ = [
    "Entry",
    "RecordWriter",
    "convert_entries",
    "iter_entries",
    "read_entries",
    "statement",
    "to_format",
    "write_records",
]


@dataclass(slots=True)
class Entry:
    id: str
    record: dict[str, Any]
    format: str
    problem: Problem | None
    error: str = ""
    references: list[Solution] = field(default_factory=list)
    position: int = 0
    wrong_references: list[Solution] = field(default_factory=list)

    def _fact(self, key: str) -> Any:
        """A report fact: the problem's metadata (every reader puts its record's there),
        else the record's own field."""
        if self.problem is not None and self.problem.metadata.get(key) is not None:
            return self.problem.metadata[key]
        value = self.record.get(key)
        if value is None and isinstance(self.record.get("metadata"), dict):
            value = self.record["metadata"].get(key)
        return value

    @property
    def difficulty(self) -> str:
        return str(self._fact("difficulty") or "").lower()

    @property
    def platform(self) -> str:
        value = self._fact("platform")
        if value is None and self.format == "humaneval":
            value = self.id.split("/", 1)[0]
        return str(value or "").lower()

    @property
    def date(self) -> str:
        return str(self._fact("contest_date") or "")[:10]


def read_entries(path: str | Path, *, format: str | None = None) -> list[Entry]:
    """Every record of ``path`` (its format detected from the first record, or ``format``);
    a record that does not decode becomes an Entry with ``problem=None`` and the error (the
    file itself must be readable)."""
    return list(iter_entries(path, format=format))


def iter_entries(path: str | Path, *, format: str | None = None) -> Iterator[Entry]:
    """:func:`read_entries`, one record at a time (a file of gigabytes streams)."""
    fmt: Format | None = get_format(format) if format else None
    for index, (position, record) in enumerate(read_records(path)):
        try:
            fmt = fmt or detect_format(record)
        except InputError as exc:
            raise exc.located(path=str(path), line=position) from None
        fallback = file_fallback_id(fmt, index)
        try:
            problem = fmt.problem(record, fallback, path=str(path), line=position)
        except InputError as exc:
            rid = _record_id(record, fmt) or fallback or f"#{position}"
            yield Entry(rid, record, fmt.name, None, str(exc), position=position)
            continue
        yield Entry(
            problem.id,
            record,
            fmt.name,
            problem,
            "",
            fmt.references(record),
            position,
            fmt.wrong_references(record),
        )


def convert_entries(
    entries: Iterable[Entry], target: str, tests_dir: str | None = None
) -> Iterator[tuple[Entry, dict[str, Any] | None, str]]:
    """``(entry, its record in target, "")`` per entry, or ``(entry, None, why)`` when it does
    not decode or has no form in ``target``; ``tests_dir`` adds the tests the format ships
    apart (``Format.attach_tests``)."""
    for entry in entries:
        if entry.problem is None:
            yield entry, None, entry.error
            continue
        if tests_dir is not None:
            attach = get_format(entry.format).attach_tests
            if attach is not None:
                entry.problem = attach(entry.problem, tests_dir)
        try:
            yield entry, to_format(entry, target), ""
        except ValueError as exc:
            yield entry, None, f"cannot convert: {exc}"


class RecordWriter:
    """Records written one JSON line at a time to a temporary file beside ``path`` (gzip when
    the name ends in ``.gz``), renamed into place on a clean exit: an interrupted conversion
    never leaves half a file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._tmp = self.path.with_name(self.path.name + ".tmp")
        opener = gzip.open if str(path).endswith(".gz") else open
        self._fh = opener(self._tmp, "wb")
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        self._fh.write(dumps_json(record) + b"\n")
        self.count += 1

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        self._fh.close()
        if kind is None:
            os.replace(self._tmp, self.path)
        else:
            self._tmp.unlink(missing_ok=True)


def _record_id(record: dict[str, Any], fmt: Format) -> str:
    for key in fmt.id_keys:
        if isinstance(record.get(key), str | int):
            return str(record[key])
    return ""


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
    """The problem statement text used for deduplication (the format's own field)."""
    return get_format(entry.format).statement(entry.record)


def to_format(entry: Entry, target: str) -> dict[str, Any]:
    """``entry`` as a record of ``target`` (``lcb`` or ``ours``); ValueError when it cannot be
    (an assertion problem has no LiveCodeBench form). A record already of ``target`` is
    copied as it is."""
    target = {"lcb": "livecodebench"}.get(target, target)
    if target == entry.format:
        return dict(entry.record)
    problem = entry.problem
    assert problem is not None
    python_refs = [ref.code for ref in entry.references if ref.language == "python"]
    if target == "ours":
        record = problem_to_ours(problem)
        meta = dict(record.get("metadata") or {})
        text = statement(entry)
        if text and "question_content" not in meta and entry.format != "humaneval":
            meta["question_content"] = text
        if python_refs:
            meta[REFERENCE_FIELD] = python_refs[0]
        if meta:
            record["metadata"] = meta
        return record
    if target == "livecodebench":
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
            "question_content": meta.get("question_content", statement(entry)),
            "platform": meta.get("platform", ""),
            "contest_id": meta.get("contest_id", ""),
            "contest_date": meta.get("contest_date", ""),
            "difficulty": meta.get("difficulty", ""),
            "starter_code": meta.get("starter_code", ""),
            "public_test_cases": json.dumps(cases[:PUBLIC_TESTS]),
            "private_test_cases": encode_private_tests(cases[PUBLIC_TESTS:]),
            "metadata": json.dumps(_lcb_metadata(problem)),
        }
        for key in ("judge", "time_limit", "memory_limit"):
            if getattr(problem, key) is not None:
                record[key] = getattr(problem, key)
        if python_refs:
            record[REFERENCE_FIELD] = python_refs[0]
        return record
    raise ValueError(f"unknown format {target!r} (expected lcb or ours)")


def _lcb_metadata(problem: Problem) -> dict[str, Any]:
    """A LiveCodeBench record's ``metadata``: the function called and, for an in-place
    problem, the argument judged (read back by
    :func:`~evaluator.formats.fields.leetcode_output_arg`)."""
    meta: dict[str, Any] = {"func_name": problem.func_name} if problem.func_name else {}
    if problem.output_arg is not None:
        meta["output_arg"] = problem.output_arg
    return meta


def set_time_limit(entry: Entry, seconds: float) -> dict[str, Any]:
    """The entry's record with ``time_limit`` set (LiveCodeBench and ours read it)."""
    record = dict(entry.record)
    record["time_limit"] = seconds
    return record
