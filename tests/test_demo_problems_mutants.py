"""The tests of ``mctrain demo``'s problems catch common wrong answers (mutation check).

Every problem in ``trainer_addon/data/demo_problems.jsonl`` has at least two mutants in
``trainer_addon/data/demo_mutants.jsonl``: its reference solution with one common mistake
(the odd elements instead of the even, distinct instead of all, off by one, a wrong base case,
case ignored, first instead of last, ...). Graded for real in the sandbox, with each problem's
own limits: every reference is accepted and every mutant gets the verdict written beside it,
never AC. A mutant that passes means the problem needs one more test. Both files are written
by ``trainer_addon/data/build_demo_problems.py``; a test checks they are what it writes.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from evaluator.formats import read_problems
from evaluator.problem import Verdict
from evaluator.runner import GradeOptions, Grader, GradeResult

DATA = Path(__file__).resolve().parents[1] / "trainer_addon" / "data"
PROBLEMS = DATA / "demo_problems.jsonl"
MUTANTS = DATA / "demo_mutants.jsonl"
SPLIT = DATA / "demo_split.json"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


RECORDS = _lines(PROBLEMS)
MUTANT_RECORDS = _lines(MUTANTS)


@pytest.fixture(scope="module")
def graded(pool) -> tuple[dict[str, GradeResult], list[GradeResult]]:
    """Every reference and every mutant graded once, in parallel."""
    problems = {problem.id: problem for problem in read_problems(PROBLEMS)}
    items = [(problems[r["question_id"]], r["reference_solution"]) for r in RECORDS]
    items += [(problems[m["question_id"]], m["solution"]) for m in MUTANT_RECORDS]
    results = Grader(GradeOptions(), pool=pool).grade_many(items)
    references = dict(zip([r["question_id"] for r in RECORDS], results, strict=False))
    return references, results[len(RECORDS) :]


def test_the_files_are_what_the_builder_writes():
    spec = importlib.util.spec_from_file_location("builder", DATA / "build_demo_problems.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    assert builder.build() == RECORDS
    assert builder.build_mutants() == MUTANT_RECORDS


def test_every_problem_has_two_mutants_or_more():
    counts = Counter(m["question_id"] for m in MUTANT_RECORDS)
    assert set(counts) == {r["question_id"] for r in RECORDS}
    assert min(counts.values()) >= 2
    assert all(m["what"] and m["verdict"] != "AC" for m in MUTANT_RECORDS)


def test_every_held_out_problem_is_checked_by_mutants():
    """The committed split's held-out problems (what the demo's pass@1 is read on) are all
    bundled problems with two mutants or more, every one of which must fail (below)."""
    counts = Counter(m["question_id"] for m in MUTANT_RECORDS)
    held_out = json.loads(SPLIT.read_text())["eval"]
    assert len(held_out) >= 30
    assert {q: counts[q] for q in held_out if counts[q] < 2} == {}


def test_every_reference_passes(graded):
    references, _ = graded
    failing = {q: str(result.verdict) for q, result in references.items() if not result.passed}
    assert failing == {}
    assert len(references) == len(RECORDS)


def test_every_mutant_fails_with_its_verdict(graded):
    _, results = graded
    wrong = [
        (m["question_id"], m["what"], m["verdict"], str(result.verdict))
        for m, result in zip(MUTANT_RECORDS, results, strict=True)
        if result.verdict is not Verdict(m["verdict"])
    ]
    assert wrong == []
