"""Differential conformance for C++: every program in ``cases.toml`` is built and run plainly
(``g++ -std=c++17 -O2``, ``./solution < input > output`` under the judge's limits:
``plain.py``) and through the sandbox (the confined build, with the precompiled header, the
binary executed in a sandbox child). Both runs are read by the same verdict rule
(:func:`evaluator.harness.outcome.failure`); the verdicts must be equal, and for a program
that ran to its end or its own exit (a status, a signal) so must stdout's bytes and the
status. A case that names a deviation (``deviations.py``) is held to what it says each run
prints."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from evaluator.harness.outcome import failure
from evaluator.problem import Verdict
from evaluator.sandbox import RunResult
from tests.cpp.deviations import DEVIATIONS
from tests.cpp.plain import CPP, Case, load_cases, run_plain, sandbox_job

CASES = load_cases()
_LIMIT_VERDICTS = (Verdict.TLE, Verdict.MLE, Verdict.OLE)


def _verdict(built: bool, run: RunResult | None) -> str:
    if not built or run is None:
        return "CE"
    failed = failure(run)
    return "ran" if failed is None else str(failed[0])


def _status(run: RunResult) -> int:
    return -run.signal if run.signal is not None else (run.exit_code or 0)


@pytest.fixture(scope="module")
def outcomes(pool, builder):
    """Every case's plain and sandboxed outcome, computed up front two at a time (the
    sandbox's builds use the precompiled header: most cases include <bits/stdc++.h>)."""
    builds = {case.name: builder.submit(CPP, case.source, CPP.default_flags) for case in CASES}
    with ThreadPoolExecutor(2) as plain_runs:
        plains = {case.name: plain_runs.submit(run_plain, case) for case in CASES}
        sandboxed = {}
        for case in CASES:
            build = builds[case.name].result()
            run = pool.run(sandbox_job(build.binary, case)).runs[0] if build.ok else None
            sandboxed[case.name] = (build, run)
        return {name: (plains[name].result(), sandboxed[name]) for name in plains}


def test_there_are_enough_cases():
    assert len(CASES) >= 45
    assert len({case.name for case in CASES}) == len(CASES)
    assert {c.deviation for c in CASES if c.deviation} <= set(DEVIATIONS)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_sandbox_matches_plain_run(outcomes, case: Case):
    plain, (build, run) = outcomes[case.name]
    expected, got = _verdict(plain.built, plain.run), _verdict(build.ok, run)
    assert got == expected, (plain.diagnostics[-2000:], build.message, plain.run, run)
    if got in ("CE", *_LIMIT_VERDICTS):  # the limit, not where it stopped the program
        return
    assert plain.run is not None and run is not None
    assert _status(run) == _status(plain.run), (run, plain.run)
    if case.deviation is not None:
        assert plain.run.stdout == case.plain_stdout, plain.run
        assert run.stdout == case.sandbox_stdout, run
        return
    assert run.stdout == plain.run.stdout, (run.stderr[-2000:], plain.run.stderr[-2000:])


def test_the_suite_covers_every_way_to_end():
    """Issue 28's list: each way to read and write, each exit path, each limit, a build that
    fails; every case says how it ends, so a case that silently stopped building fails."""
    ends = {case.verdict for case in CASES}
    assert ends == {"ran", "RE", "TLE", "MLE", "OLE", "CE"}


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_case_ends_as_it_says(outcomes, case: Case):
    plain, (build, run) = outcomes[case.name]
    assert _verdict(plain.built, plain.run) == case.verdict, (plain.diagnostics[-2000:], plain.run)
