"""What the C++ tests share: one builder for the session (its precompiled header built once,
before the first test that builds), and a helper that builds and runs a program."""

from __future__ import annotations

import pytest

from evaluator.languages.builds import Builder
from evaluator.sandbox import JobResult, Limits
from tests.cpp.plain import BUILD_LIMITS, CPP, LIMITS, Case, sandbox_job


@pytest.fixture(scope="session")
def builder():
    with Builder(workers=2, limits=BUILD_LIMITS) as shared:
        assert shared.prepared(CPP, CPP.default_flags)
        yield shared


@pytest.fixture(scope="session")
def run_cpp(pool, builder):
    """``run_cpp(source, inputs=[""], limits=LIMITS)``: the program built (its build must
    succeed) and run in the session's pool on each input, a fresh process each."""

    def run(source: str, inputs: list[str] | None = None, limits: Limits = LIMITS) -> JobResult:
        build = builder.submit(CPP, source, CPP.default_flags).result()
        assert build.ok, build.output
        job = sandbox_job(build.binary, Case("run", source, b""), limits)
        job.inputs = list(inputs if inputs is not None else [""])
        return pool.run(job)

    return run
