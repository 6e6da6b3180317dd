"""One problem codec: every field of :class:`Problem` survives every path a problem travels.

The problem below sets every field to a value other than its default, so a field that one
path forgets shows up here: our schema (both directions), the Ray backend's wire, the
journal's fingerprint and the reward's dataset columns.
"""

from __future__ import annotations

import dataclasses

import pytest

from evaluator.backends.ray_backend import _problem_from_wire
from evaluator.formats import problem_from_ours, problem_to_ours
from evaluator.problem import Harness, Problem, TestCase
from evaluator.reward import problem_from_columns
from evaluator.runner.journal import problem_fingerprint


def _every_field_set() -> Problem:
    return Problem(
        id="every-field",
        harness=Harness.FUNCTIONAL,
        tests=[TestCase("[1, 2]", "3"), TestCase("[5]", "5")],
        func_name="total",
        judge={"type": "float", "abs_tol": 1e-6},
        judge_reason="reals within 1e-06 absolute: the statement's words",
        needs_checker=True,
        time_limit=2.5,
        memory_limit=300,
        prompt="def total(xs):\n",
        test_code="def check(candidate):\n    assert candidate([1]) == 1\n",
        entry_point="total",
        metadata={"platform": "leetcode", "difficulty": "easy"},
        environment="livecodebench",
        input_file="input.txt",
        output_file="output.txt",
        output_arg=0,
    )


def _defaults() -> dict[str, object]:
    values: dict[str, object] = {}
    for field in dataclasses.fields(Problem):
        if field.default is not dataclasses.MISSING:
            values[field.name] = field.default
        elif field.default_factory is not dataclasses.MISSING:
            values[field.name] = field.default_factory()
    return values


def test_the_sample_problem_sets_every_field_away_from_its_default() -> None:
    problem = _every_field_set()
    for name, default in _defaults().items():
        assert getattr(problem, name) != default, name


def test_our_schema_round_trips_every_field() -> None:
    problem = _every_field_set()
    assert problem_from_ours(problem_to_ours(problem)) == problem


def test_the_ray_wire_carries_every_field() -> None:
    problem = _every_field_set()
    assert _problem_from_wire(problem_to_ours(problem)) == problem


def test_the_ray_wire_carries_a_problem_the_schema_refuses() -> None:
    # built in code with a value the reader refuses: the actor must still grade what the
    # driver had, field for field
    problem = dataclasses.replace(_every_field_set(), time_limit=-1.0)
    assert _problem_from_wire(problem_to_ours(problem)) == problem


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Problem)])
def test_the_journal_fingerprint_sees_every_field(name: str) -> None:
    problem = _every_field_set()
    changed = {
        "id": "other",
        "harness": Harness.STDIN,
        "tests": [TestCase("[1, 2]", "4")],
        "func_name": "other",
        "judge": "lines",
        "judge_reason": "words in any case: the statement's words",
        "needs_checker": False,
        "time_limit": 3.0,
        "memory_limit": 301,
        "prompt": "def other(xs):\n",
        "test_code": "def check(candidate):\n    pass\n",
        "entry_point": "other",
        "metadata": {"platform": "atcoder"},
        "environment": "plain",
        "input_file": "in.txt",
        "output_file": "out.txt",
        "output_arg": 1,
    }
    assert set(changed) == {f.name for f in dataclasses.fields(Problem)}
    other = dataclasses.replace(problem, **{name: changed[name]})
    assert problem_fingerprint(other) != problem_fingerprint(problem)


def test_the_reward_columns_carry_every_field() -> None:
    problem = _every_field_set()
    record = problem_to_ours(problem)
    columns = dict(record)
    # TRL's own "prompt" column is the chat prompt: the code a sample continues is
    # "prompt_code" there; the id may come as "id"
    columns["prompt_code"] = columns.pop("prompt")
    assert problem_from_columns(columns) == problem


def test_a_whole_record_as_problem_json_carries_every_field() -> None:
    problem = _every_field_set()
    assert problem_from_columns({"problem_json": problem_to_ours(problem)}) == problem
