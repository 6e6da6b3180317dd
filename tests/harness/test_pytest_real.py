"""Differential conformance of pytest-file tests (KodCode) with real pytest: every case of
``pytest_cases.toml`` runs under plain pytest in a scratch directory (``solution.py`` and
``test_solution.py``, as KodCode's authors lay them out: :mod:`.pytest_reference`) and is
graded in the sandbox at every isolation level; the sandbox passes it exactly when plain
pytest does, or as the case's documented deviation (:data:`DEVIATIONS`,
``docs/kodcode.md``) says."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluator.formats.sources.kodcode import FORMAT
from evaluator.problem import Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation
from tests.harness.pytest_reference import plain_pytest

CASES_FILE = Path(__file__).with_name("pytest_cases.toml")


@dataclass(frozen=True)
class Case:
    name: str
    program: str
    tests: str
    pytest: str  # "pass" or "fail": what plain pytest says (checked)
    deviation: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class Deviation:
    """A documented difference: plain pytest's verdict and the sandbox's instead."""

    plain: bool
    sandbox: bool
    why: str


DEVIATIONS = {
    "exit_is_not_a_pass": Deviation(
        True, False, "ending the process (os._exit(0)) is pytest's exit status 0, never a pass"
    ),
    "nothing_passed": Deviation(
        True, False, "a pass needs one test that ran and passed; pytest passes all-skipped"
    ),
    "no_cacheprovider": Deviation(
        True, False, "pytest's cache plugin is off (it writes .pytest_cache): no cache fixture"
    ),
}


def load_cases() -> list[Case]:
    with CASES_FILE.open("rb") as handle:
        table = tomllib.load(handle)
    return [
        Case(
            name,
            fields["program"].lstrip("\n"),
            fields["tests"].lstrip("\n"),
            fields["pytest"],
            fields.get("deviation"),
            fields.get("message"),
        )
        for name, fields in table.items()
    ]


CASES = load_cases()


@pytest.fixture(scope="module")
def plain_outcomes(tmp_path_factory):
    where = tmp_path_factory.mktemp("plain-pytest")
    return {case.name: plain_pytest(case.program, case.tests, where / case.name) for case in CASES}


@pytest.fixture(scope="module")
def graders(pool):
    return {
        isolation: Grader(GradeOptions(time_limit=10.0, isolation=isolation), pool=pool)
        for isolation in Isolation
    }


def test_there_are_enough_cases():
    assert len(CASES) >= 35
    assert {case.deviation for case in CASES if case.deviation} <= set(DEVIATIONS)
    assert all(case.pytest in ("pass", "fail") for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_plain_pytest_says_what_the_case_says(plain_outcomes, case):
    assert plain_outcomes[case.name] is (case.pytest == "pass")


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_sandbox_matches_plain_pytest(graders, plain_outcomes, case, isolation):
    problem = FORMAT.problem({"question_id": f"Kod_{case.name}", "test": case.tests})
    result = graders[isolation].grade(problem, case.program)
    expected = plain_outcomes[case.name]
    if case.deviation is not None:
        deviation = DEVIATIONS[case.deviation]
        assert expected is deviation.plain, deviation.why
        expected = deviation.sandbox
    assert (result.verdict is Verdict.AC) is expected, result
    if not expected:
        assert result.verdict is not Verdict.ERROR, result
    if case.message is not None:
        assert case.message in result.message, result.message
