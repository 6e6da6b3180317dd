"""Differential conformance: every program in ``cases.toml`` runs as a plain
``python3 solution.py < input > output`` and in the sandbox, at every isolation level; the
bytes on stdout and the exit status must be the plain run's, or what the documented
deviation (``deviations.py``, ``docs/plain-run.md``) says they are instead.

Batch levels run each program's test twice in one job: the second run must match too (in
``adaptive`` a test that changed the interpreter sends it to a fresh child; ``submission``
promises nothing for it, so only its first test is held to the plain run)."""

from __future__ import annotations

import pytest

from evaluator.sandbox import Isolation
from tests.python.deviations import DEVIATIONS
from tests.python.plain import load_cases, outcome_of, run_plain, sandbox_job

CASES = load_cases()


@pytest.fixture(scope="module")
def plain_outcomes():
    return {}


def _plain(case, plain_outcomes):
    if case.name not in plain_outcomes:
        plain_outcomes[case.name] = run_plain(case)
    return plain_outcomes[case.name]


def test_there_are_enough_cases():
    assert len(CASES) >= 60
    assert len({case.name for case in CASES}) == len(CASES)
    assert {c.deviation for c in CASES if c.deviation} <= set(DEVIATIONS)


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_sandbox_matches_plain_run(pool, plain_outcomes, case, isolation):
    plain = _plain(case, plain_outcomes)
    tests = 1 if isolation is Isolation.TEST else 2
    runs = pool.run(sandbox_job(case, isolation, tests)).runs
    assert len(runs) == tests
    checked = runs if isolation is not Isolation.SUBMISSION else runs[:1]
    for index, run in enumerate(checked):
        got = outcome_of(run)
        if case.deviation is not None:
            assert DEVIATIONS[case.deviation].holds(plain, got), (index, plain, got)
            continue
        assert got.status == plain.status, (index, run)
        assert got.stdout == plain.stdout, (index, run.stderr[-2000:])
