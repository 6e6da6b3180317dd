"""A build's time is judged by its CPU, not by the machine's load (issue 45, item 7).

A build past its CPU limit is a CE that says so; a build held up by load (here: stopped with
SIGSTOP for longer than its whole CPU limit, then continued) but within its CPU limit builds,
because the wall-clock limit is only a backstop far beyond the CPU limit."""

from __future__ import annotations

import os
import signal
import tempfile
import time

import pytest

from evaluator.languages import BuildLimits
from evaluator.languages.base import default_build_wall
from evaluator.languages.builds import Builder, ConfinedTool
from evaluator.sandbox import launcher
from tests.cpp.plain import CPP

# A constant the compiler must evaluate: 2^40 steps, far more CPU than any limit below.
SPIN = """
constexpr unsigned long long spin() {
    unsigned long long s = 0;
    for (unsigned long long i = 0; i < (1ULL << 40); ++i) s = s * 6364136223846793005ULL + i;
    return s;
}
constexpr unsigned long long value = spin();
int main() { return value & 1; }
"""
SPIN_FLAGS = (
    *CPP.default_flags,
    "-fconstexpr-loop-limit=2147483647",
    "-fconstexpr-ops-limit=9223372036854775807",
)
SMALL = '#include <cstdio>\nint main() { std::puts("built"); }\n'


def test_the_wall_limit_is_a_backstop_far_beyond_the_cpu_limit():
    assert BuildLimits().effective_wall_limit == default_build_wall(10.0) == 100.0
    assert BuildLimits(time_limit=2.0).effective_wall_limit == 60.0  # never under a minute
    # a caller's own wall limit (SandboxFusion's compile_timeout) is kept as given
    assert BuildLimits(time_limit=5.0, wall_limit=5.0).effective_wall_limit == 5.0


def test_a_build_over_its_cpu_limit_is_a_compile_error_saying_so():
    with Builder(limits=BuildLimits(time_limit=1.0), prepare=False) as builder:
        build = builder.submit(CPP, SPIN, SPIN_FLAGS).result(timeout=300)
    assert not build.ok and build.timed_out
    assert build.message == "compilation over its CPU time limit", build


@pytest.fixture
def stopped_builds(monkeypatch):
    """Every confined build is stopped (SIGSTOP, its whole process group) as soon as it
    starts, for ``pause`` seconds, then continued: what a machine too loaded to schedule it
    does to it, in the extreme."""
    pause = 4.0
    watch = launcher._watch

    def stopped(process, deadline, stop):
        os.killpg(process.pid, signal.SIGSTOP)
        time.sleep(pause)
        os.killpg(process.pid, signal.SIGCONT)
        return watch(process, deadline, stop)

    monkeypatch.setattr(launcher, "_watch", stopped)
    return pause


def test_a_build_held_up_longer_than_its_cpu_limit_still_builds(stopped_builds):
    limits = BuildLimits(time_limit=3.0)  # under its whole CPU limit: SMALL needs a fraction
    assert stopped_builds > limits.time_limit
    with tempfile.TemporaryDirectory() as work:
        build = CPP.build(SMALL, CPP.default_flags, work, ConfinedTool(limits))
    assert build.ok, build
    assert build.seconds > limits.time_limit  # its wall time was past the CPU limit
