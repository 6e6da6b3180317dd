"""``mcevaluate dataset check`` runs the solutions each source ships (issue 40): TACO's and
APPS' solutions and CodeContests' solutions must pass (in their languages), CodeContests'
incorrect_solutions must fail, or the problem is reported as weak."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.datasets.check import check_entries
from evaluator.datasets.entries import read_entries

SOURCES = Path(__file__).resolve().parents[1] / "data" / "sources"


@pytest.mark.parametrize(
    "path",
    ["taco/taco.jsonl", "apps/apps.jsonl", "codecontests/problems.jsonl", "mbpp/mbpp.jsonl"],
)
def test_every_shipped_reference_passes_and_every_incorrect_solution_fails(path, languages_grader):
    entries = read_entries(SOURCES / path)
    checks = check_entries(entries, languages_grader.pool)  # Java's runtime among the pool's
    for entry, check in zip(entries, checks, strict=True):
        assert entry.references, entry.id  # the source's own solutions were found
        assert check.references_passed == check.references, (entry.id, check.reasons)
        assert check.wrong_rejected == check.wrong, (entry.id, check.warnings)
        assert not check.removed, (entry.id, check.reasons)
    if path.startswith("codecontests"):
        assert {ref.language for e in entries for ref in e.references} == {"python", "cpp", "java"}
        assert sum(check.wrong for check in checks) >= 2


def test_a_codecontests_problem_whose_incorrect_solution_passes_is_weak(tmp_path, languages_grader):
    pool = languages_grader.pool
    row = json.loads((SOURCES / "codecontests" / "problems.jsonl").read_text().splitlines()[0])
    row["incorrect_solutions"] = {  # "wrong" only on inputs the tests never give
        "language": [3],
        "solution": ["a, b = map(int, input().split())\nprint(a + b if a != 123 else 0)\n"],
    }
    path = tmp_path / "weak.jsonl"
    path.write_text(json.dumps(row) + "\n")
    [check] = check_entries(read_entries(path), pool)
    assert check.wrong == 1 and check.wrong_rejected == 0
    assert any(w.startswith("weak tests: 1 of 1 known-wrong") for w in check.warnings)
    [dropped] = check_entries(read_entries(path), pool, drop_weak=True)
    assert dropped.removed
