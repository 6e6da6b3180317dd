"""Our own problem schema: conversion, validation and round trips."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from evaluator.formats import InputError, problem_from_ours, problem_to_ours, read_problems
from evaluator.problem import Harness, Problem, TestCase

PROBLEMS = [
    Problem(id="sum", harness=Harness.STDIN, tests=[TestCase("1 2\n", "3\n")]),
    Problem(
        id="two-sum",
        harness=Harness.FUNCTIONAL,
        tests=[TestCase("[2, 7]\n9", "[0, 1]"), TestCase("[1]\n1", "[]")],
        func_name="twoSum",
        judge={"type": "checker", "code": "def check(i, o, a): return True"},
        time_limit=2.5,
        memory_limit=256,
        metadata={"platform": "leetcode"},
    ),
    Problem(
        id="HumanEval/0",
        harness=Harness.ASSERTION,
        tests=[TestCase("", "")],
        judge="float",
        prompt="def f(x):\n",
        test_code="def check(candidate):\n    assert candidate(1) == 1\n",
        entry_point="f",
    ),
]


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.id)
def test_round_trip(problem: Problem) -> None:
    record = problem_to_ours(problem)
    assert orjson.loads(orjson.dumps(record)) == record  # plain JSON
    assert problem_from_ours(record) == problem


def test_round_trip_through_file(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(tmp_path / "ours.jsonl", [problem_to_ours(p) for p in PROBLEMS])
    assert read_problems(path) == PROBLEMS


def test_minimal_record_leaves_defaults_out() -> None:
    assert problem_to_ours(PROBLEMS[0]) == {
        "id": "sum",
        "harness": "stdin",
        "tests": [{"input": "1 2\n", "output": "3\n"}],
    }


def test_assertion_tests_default_to_placeholder() -> None:
    problem = problem_from_ours(
        {"id": "a", "harness": "assertion", "test_code": "def check(c): pass", "entry_point": "f"}
    )
    assert problem.tests == [TestCase("", "")]


def test_empty_tests_allowed() -> None:
    assert problem_from_ours({"id": "a", "harness": "stdin", "tests": []}).tests == []


def _joined(metadata: dict[str, object]) -> dict[str, object]:
    """A HumanEval-X-style record whose program is joined around the code."""
    joined = {"program_prefix": "package main\n", **metadata}
    return {"id": "a", "harness": "stdin", "tests": [], "judge": "exit", "metadata": joined}


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"harness": "stdin", "tests": []}, "id", "missing required field"),
        ({"id": "a", "harness": "batch", "tests": []}, "harness", "unknown harness 'batch'"),
        ({"id": "a", "harness": "stdin"}, "tests", "missing required field"),
        ({"id": "a", "harness": "functional", "tests": []}, "func_name", "missing"),
        ({"id": "a", "harness": "assertion", "entry_point": "f"}, "test_code", "missing"),
        ({"id": "a", "harness": "stdin", "tests": [{"input": "x"}]}, "tests[0].output", "missing"),
        (
            {"id": "a", "harness": "stdin", "tests": [{"input": 1, "output": ""}]},
            "tests[0].input",
            "expected a string",
        ),
        (
            {"id": "a", "harness": "stdin", "tests": [], "time_limt": 2},
            "time_limt",
            "unknown field",
        ),
        (
            {"id": "a", "harness": "stdin", "tests": [], "time_limit": True},
            "time_limit",
            "positive",
        ),
        (
            {"id": "a", "harness": "stdin", "tests": [], "metadata": []},
            "metadata",
            "expected an object",
        ),
        ({"id": "", "harness": "stdin", "tests": []}, "id", "must not be empty"),
        # a joined test program's keys (harness/test_program.py) in the shapes it reads
        (_joined({"program_imports": ["fmt"]}), "metadata.program_imports", '"head"'),
        (_joined({"program_imports": {"head": 1}}), "metadata.program_imports.head", "string"),
        (
            _joined({"program_imports": {"packages": "fmt"}}),
            "metadata.program_imports.packages",
            "import paths",
        ),
        (_joined({"program_suffix": None}), "metadata.program_suffix", "expected a string"),
        (_joined({"program_cut": "first_line"}), "metadata.program_cut", "top_level"),
    ],
)
def test_errors_name_the_field(record: dict[str, object], field: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        problem_from_ours(record, path="ours.jsonl", line=5)
    assert info.value.field == field
    assert message in str(info.value)
    assert str(info.value).startswith(f"ours.jsonl:5: field {field!r}: ")
