"""A limit travels as one value under one name (``time_limit`` CPU seconds, ``memory_limit``
MB, ``wall_limit`` seconds) from the options or the problem to the sandbox, and comes back
with the result: the rows and the summary record what the sandbox enforced, never a second
computation from the run's options. A program's language is resolved once, at planning, and
reaches the grader as its :class:`~evaluator.languages.Language`."""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import asdict

import pytest

from evaluator.languages import BuildLimits, Language, get_language
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader, GradingRun
from evaluator.runner.journal import (
    JOURNAL_VERSION,
    JournalError,
    read_journal,
    result_from_dict,
)
from evaluator.sandbox import Limits

PROBLEMS = [
    Problem("rev", Harness.STDIN, [TestCase("abc\n", "cba\n")]),
    Problem("own", Harness.STDIN, [TestCase("1\n", "1\n")], time_limit=3.0, memory_limit=512),
    Problem("spin", Harness.STDIN, [TestCase("", "x\n")]),
    Problem("none", Harness.STDIN, [TestCase("", "x\n")]),
]
SAMPLES = [
    {"question_id": "rev", "code_list": ["print(input()[::-1])"]},
    {"question_id": "own", "code_list": ["print(input())"]},
    {"question_id": "spin", "code_list": ["while True:\n    pass\n"]},
    {"question_id": "none", "code_list": [""]},  # no code: nothing runs
]
PLANNED = GradeOptions(time_limit=10.0, memory_limit=256)
ENFORCED = GradeOptions(time_limit=0.5, memory_limit=300)


class Recording(Grader):
    """The real grader, noting what each program's language arrived as."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.languages: list[object] = []

    def submit(self, problem, code, language=None) -> Future:
        self.languages.append(language)
        return super().submit(problem, code, language)


def _finished(tmp_path, pool):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    run = GradingRun(PROBLEMS, str(samples), PLANNED, say=lambda _: None)
    with Recording(ENFORCED, pool=pool) as grader:  # other limits than the run planned with
        run.grade(grader, progress=False)
    return run.finish(label="limits"), grader


def test_rows_and_summary_record_the_limits_the_sandbox_enforced(tmp_path, pool):
    finished, _ = _finished(tmp_path, pool)
    rows = {row["question_id"]: row for row in finished.rows}
    assert (rows["rev"]["time_limit"], rows["rev"]["memory_limit"]) == (0.5, 300)
    assert (rows["own"]["time_limit"], rows["own"]["memory_limit"]) == (3.0, 512)
    # enforced, not only written: the spinning program ran out of the 0.5 s the grader gave
    # (the run planned 10 s)
    spin = rows["spin"]["details"][0]
    assert spin["verdict"] == "TLE" and rows["spin"]["time_limit"] == 0.5
    assert spin["tests"][0]["cpu_time"] < 5.0
    assert (spin["time_limit"], spin["memory_limit"]) == (0.5, 300)
    assert spin["wall_limit"] == 2 * 0.5 + 1.0  # the backstop in force
    # nothing ran: nothing was enforced, and the row says so rather than guessing
    assert rows["none"]["details"][0]["verdict"] == "NO_CODE"
    assert (rows["none"]["time_limit"], rows["none"]["memory_limit"]) == (None, None)
    assert finished.summary["limits"] == [
        {"time_limit": 0.5, "memory_limit": 300, "problems": 2},
        {"time_limit": 3.0, "memory_limit": 512, "problems": 1},
    ]


def test_a_programs_language_reaches_the_grader_as_its_object(tmp_path, pool):
    finished, grader = _finished(tmp_path, pool)
    assert all(isinstance(item.language, Language) for item in finished.items)
    assert grader.languages and all(lang is get_language("python") for lang in grader.languages)
    assert finished.summary["languages"] == {"python": 4}


def test_a_results_limits_survive_the_journal_and_old_records_read_without_them():
    result = result_from_dict(
        {"verdict": "AC", "tests": [], "time_limit": 2.0, "memory_limit": 128, "wall_limit": 5.0},
        "p",
    )
    assert result.limits == Limits(time_limit=2.0, memory_limit=128, wall_limit=5.0)
    assert result_from_dict(result.to_dict(), "p").limits == result.limits
    old = result_from_dict({"verdict": "WA", "passed": False, "tests": []}, "p")
    assert old.verdict is Verdict.WA and old.limits is None
    assert "time_limit" not in old.to_dict()


def test_a_journal_of_build_limits_under_their_old_names_still_resumes(tmp_path):
    """Build limits were ``cpu_time``/``wall_time``/``memory_mb`` before they took the
    limits' names; a journal written then is read with today's options."""
    options = {"time_limit": 6.0, "build_limits": asdict(BuildLimits(time_limit=2.0))}
    old = {**options, "build_limits": {"cpu_time": 2.0, "wall_time": None, "memory_mb": 2048,
                                       "output_bytes": 256 << 20, "message_bytes": 64 << 10}}  # fmt: skip
    journal = tmp_path / "r.json.partial.jsonl"
    journal.write_text(json.dumps({"journal": JOURNAL_VERSION, "options": old}) + "\n")
    assert read_journal(journal, options) == ({}, journal.stat().st_size)
    with pytest.raises(JournalError, match="build_limits"):
        read_journal(journal, {**options, "build_limits": asdict(BuildLimits(time_limit=3.0))})
