"""HumanEval and EvalPlus (HumanEval+, MBPP+) problem records."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.formats import InputError, problem_from_humaneval, read_problems
from evaluator.problem import Harness, TestCase

HE = {
    "task_id": "HumanEval/0",
    "prompt": 'def add(a, b):\n    """Add."""\n',
    "canonical_solution": "    return a + b\n",
    "test": "\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n",
    "entry_point": "add",
}
PLUS = {
    "task_id": "Mbpp/2",
    "prompt": "'''\nWrite a function.\n'''",
    "entry_point": "similar_elements",
    "canonical_solution": "\ndef similar_elements(a, b):\n  return tuple(set(a) & set(b))\n",
    "base_input": [[[3, 4], [4, 5]]],
    "plus_input": [[[], []], [[1], [1]]],
    "atol": 0,
    "contract": "\n  assert isinstance(a, tuple)\n",
    "assertion": "\nassert similar_elements((3, 4), (4, 5)) == (4,)\n",
}


def test_humaneval_record() -> None:
    problem = problem_from_humaneval(HE)
    assert problem.id == "HumanEval/0"
    assert problem.harness is Harness.ASSERTION
    assert problem.tests == [TestCase("", "")]
    assert problem.prompt == HE["prompt"]
    assert problem.test_code == HE["test"]
    assert problem.entry_point == "add"
    assert problem.metadata["canonical_solution"] == HE["canonical_solution"]


def test_humaneval_needs_check() -> None:
    with pytest.raises(InputError, match="field 'test': does not define check"):
        problem_from_humaneval({**HE, "test": "assert add(1, 2) == 3\n"})


def test_humaneval_missing_field_named(tmp_path: Path, write_jsonl) -> None:
    record = dict(HE)
    del record["entry_point"]
    path = write_jsonl(tmp_path / "he.jsonl", [HE | {"task_id": "HumanEval/1"}, record])
    with pytest.raises(InputError) as info:
        read_problems(path)
    assert (info.value.line, info.value.field) == (2, "entry_point")
    assert f"{path}:2: field 'entry_point': missing required field" in str(info.value)


def test_evalplus_record_keeps_inputs_without_running() -> None:
    problem = problem_from_humaneval(PLUS)
    assert problem.harness is Harness.ASSERTION
    assert problem.tests == [TestCase("", "")]
    assert problem.test_code == ""  # built later from the canonical solution's outputs
    assert problem.metadata["base_input"] == PLUS["base_input"]
    assert problem.metadata["plus_input"] == PLUS["plus_input"]
    assert problem.metadata["atol"] == 0
    assert problem.metadata["canonical_solution"] == PLUS["canonical_solution"]
    assert problem.metadata["assertion"] == PLUS["assertion"]
    assert problem.metadata["source_format"] == "evalplus"


def test_evalplus_edge_cases() -> None:
    # MbppPlus.jsonl stores one empty plus_input as {}.
    assert problem_from_humaneval({**PLUS, "plus_input": {}}).metadata["plus_input"] == []
    with pytest.raises(InputError, match=r"field 'base_input\[0\]': expected a list of arguments"):
        problem_from_humaneval({**PLUS, "base_input": [3]})
    with pytest.raises(InputError, match="field 'atol'"):
        problem_from_humaneval({**PLUS, "atol": -1})
    record = dict(PLUS)
    del record["canonical_solution"]
    with pytest.raises(InputError, match="field 'canonical_solution': missing"):
        problem_from_humaneval(record)


def test_read_humaneval_json_array(tmp_path: Path) -> None:
    import orjson

    path = tmp_path / "he.json"
    path.write_bytes(orjson.dumps([HE, PLUS]))
    problems = read_problems(path)
    assert [p.id for p in problems] == ["HumanEval/0", "Mbpp/2"]


def test_json_array_error_names_the_record(tmp_path: Path) -> None:
    import orjson

    path = tmp_path / "he.json"
    path.write_bytes(orjson.dumps([HE, {**HE, "task_id": "HumanEval/1", "test": ""}]))
    with pytest.raises(InputError) as info:
        read_problems(path)
    assert str(info.value) == f"{path}: record 2: field 'test': must not be empty"
