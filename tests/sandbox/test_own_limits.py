"""A program sets its own resource limits as in a plain run (issue 45): below the hard limits,
which are the sandbox's own. Whatever it sets, it cannot raise a hard limit (the child has no
capability), reach another process's limits, or escape the verdict of the CPU and memory
limits, which the server's watchdog enforces on the kernel's figures, at every isolation
level."""

from __future__ import annotations

import textwrap

import pytest

from evaluator.sandbox import Isolation, Job, LimitHit, Limits

# distant backstops: the programs must die of CPU time or memory even on a loaded machine
SPIN = Limits(time_limit=1.0, wall_limit=20.0, memory_limit=256, output_bytes=1 << 20)

# every soft limit up to its hard one, as far as the program may go
RAISE_SOFT = """
import resource
for name in dir(resource):
    if name.startswith("RLIMIT_"):
        which = getattr(resource, name)
        soft, hard = resource.getrlimit(which)
        resource.setrlimit(which, (hard, hard))
"""


def _runs(pool, code: str, isolation: Isolation, tests: int = 2):
    job = Job(textwrap.dedent(code), [""] * tests, limits=SPIN, isolation=isolation)
    return pool.run(job).runs


@pytest.mark.parametrize("isolation", list(Isolation))
def test_raising_soft_limits_does_not_escape_the_cpu_limit(pool, isolation):
    runs = _runs(pool, RAISE_SOFT + "while True: pass\n", isolation)
    assert [run.limit for run in runs] == [LimitHit.CPU] * len(runs)


@pytest.mark.parametrize("isolation", list(Isolation))
def test_raising_soft_limits_does_not_escape_the_memory_limit(pool, isolation):
    # shared memory (mmap's default), which RLIMIT_DATA does not count: the watchdog does
    code = RAISE_SOFT + textwrap.dedent("""
        import mmap
        m, chunk = mmap.mmap(-1, 1 << 30), b"x" * (1 << 20)
        for start in range(0, 1 << 30, 1 << 20):
            m[start : start + len(chunk)] = chunk
    """)
    runs = _runs(pool, code, isolation)
    assert [run.limit for run in runs] == [LimitHit.MEMORY] * len(runs)


@pytest.mark.parametrize("isolation", list(Isolation))
def test_hard_limits_and_other_processes_limits_are_out_of_reach(pool, isolation):
    code = """
    import os, resource
    for which in (resource.RLIMIT_CPU, resource.RLIMIT_DATA, resource.RLIMIT_FSIZE,
                  resource.RLIMIT_NOFILE):
        soft, hard = resource.getrlimit(which)
        try:
            resource.setrlimit(which, (soft, hard + 1))
            print("raised")
        except ValueError:
            print("refused")
    for pid in (os.getppid(), 1, os.getpid()):  # by number, even its own: pid 0 only
        try:
            resource.prlimit(pid, resource.RLIMIT_CPU, (1, 1))
            print("set")
        except PermissionError:
            print("refused")
    print(resource.prlimit(0, resource.RLIMIT_CORE, (0, 0)))
    """
    for run in _runs(pool, code, isolation):
        assert run.stdout == b"refused\n" * 7 + b"(0, 0)\n", run.stderr[-2000:]
