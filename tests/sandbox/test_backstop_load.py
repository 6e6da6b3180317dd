"""Machine load does not decide a verdict: the wall-clock backstop leaves out the time a
program waited for a CPU (``/proc/<pid>/schedstat``), so a CPU-bound program starved by
busy loops on its core ends by its CPU time, as it would alone; a sleeping program still
ends by the backstop.

The load is made deterministic: four busy loops pinned to the core the pool's only worker
(its server, and the children it forks) is pinned to, so the program gets at most a fifth
of that core and needs over five times its CPU time in wall time, past the ``2 x limit + 1
s`` backstop (before the run-queue wait was left out, both CPU-bound programs below ended
by the backstop: TLE "wall"). The same holds for a wall limit the caller gives, unless it is a
client's deadline (`Limits.wall_counts_wait`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from evaluator.sandbox import Job, LimitHit, Limits, SandboxPool
from evaluator.sandbox.pool import worker_cpus

LIMIT = 1.0  # CPU seconds per test: the backstop is 3 s of wall time
# CPU-bound until it has used 0.8 s of CPU (under the limit): over 4 s of wall time at a
# fifth of a core, past the backstop
NEAR_LIMIT = "import time\nwhile time.process_time() < 0.8:\n    pass\nprint('done')\n"
SPIN = "while True:\n    pass\n"
SLEEP = "import time\ntime.sleep(60)\n"
HOGS = 4


@contextmanager
def _busy_loops(cpu: int, count: int) -> Iterator[None]:
    """``count`` Python busy loops pinned to ``cpu`` for the block's duration."""
    code = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True:\n    pass\n"
    # each in a session of its own: with autogroup scheduling a session shares a core as one
    loops = [
        subprocess.Popen([sys.executable, "-c", code], start_new_session=True) for _ in range(count)
    ]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


@pytest.fixture(scope="module")
def loaded_pool(tmp_path_factory) -> Iterator[SandboxPool]:
    """A one-worker pool whose worker's core runs four busy loops."""
    if not os.path.exists(f"/proc/{os.getpid()}/schedstat"):
        pytest.skip("no /proc/<pid>/schedstat (a kernel without CONFIG_SCHED_INFO)")
    (cpu,) = worker_cpus(1)
    if cpu is None:
        pytest.skip("one core: the pool's worker is not pinned, the load cannot be aimed")
    with SandboxPool(workers=1, tmp_dir=tmp_path_factory.mktemp("loaded")) as pool:
        pool.run(Job("pass", [""]))  # started before the load
        with _busy_loops(cpu, HOGS):
            yield pool


def _run(pool: SandboxPool, code: str):
    return pool.run(Job(code, [""], limits=Limits(time_limit=LIMIT))).runs[0]


def test_a_starved_program_under_its_cpu_limit_finishes(loaded_pool):
    run = _run(loaded_pool, NEAR_LIMIT)
    assert run.wall_time > 3.0  # past the backstop's wall time: it waited for a CPU
    assert run.limit is None and run.clean_exit, (run.limit, run.wall_time, run.cpu_time)
    assert run.stdout == b"done\n"


def test_a_starved_program_over_its_cpu_limit_ends_by_cpu_time(loaded_pool):
    run = _run(loaded_pool, SPIN)
    assert run.limit is LimitHit.CPU, (run.limit, run.wall_time, run.cpu_time)
    assert run.cpu_time >= LIMIT and run.wall_time > 3.0


def test_a_sleeping_program_still_ends_by_the_backstop(loaded_pool):
    run = _run(loaded_pool, SLEEP)
    assert run.limit is LimitHit.WALL, (run.limit, run.wall_time, run.cpu_time)
    assert 3.0 <= run.wall_time < 10.0 and run.cpu_time < LIMIT


def test_a_tight_wall_limit_the_caller_gives_leaves_out_the_wait_too(loaded_pool):
    """A reward's tight wall limit (``CodeReward``: 1x the CPU limit + 0.5 s) is no deadline
    for a CPU-bound program within its CPU limit: on a loaded machine it finishes (before:
    "wall-clock backstop after 6.52 s (CPU 3.28 s)" on a 6 s limit); a sleeping one still
    ends by it, at its wall time."""
    limits = Limits(time_limit=LIMIT, wall_limit=LIMIT + 0.5)
    run = loaded_pool.run(Job(NEAR_LIMIT, [""], limits=limits)).runs[0]
    assert run.limit is None and run.clean_exit, (run.limit, run.wall_time, run.cpu_time)
    assert run.wall_time > LIMIT + 0.5 and run.stdout == b"done\n"
    run = loaded_pool.run(Job(SLEEP, [""], limits=limits)).runs[0]
    assert run.limit is LimitHit.WALL, (run.limit, run.wall_time, run.cpu_time)
    assert LIMIT + 0.5 <= run.wall_time < 3.0


def test_a_deadline_the_caller_gives_stays_wall_time(loaded_pool):
    """SandboxFusion's ``run_timeout`` is a client's deadline (``wall_counts_wait``): load
    counts against it."""
    limits = Limits(time_limit=LIMIT, wall_limit=3.0, wall_counts_wait=True)
    run = loaded_pool.run(Job(NEAR_LIMIT, [""], limits=limits)).runs[0]
    assert run.limit is LimitHit.WALL, (run.limit, run.wall_time, run.cpu_time)
    assert run.wall_time < 5.0 and run.cpu_time < 0.8
