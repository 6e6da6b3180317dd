"""Early exit without a round trip per test: the server runs on while the pool judges, and a
stop kills the test in flight, whatever stage its child is at (found: a child killed before
its setsid() had no process group yet, survived the kill and spun until its RLIMIT_CPU)."""

from __future__ import annotations

import psutil
import pytest

from evaluator.sandbox import Isolation, Job, Limits, SandboxPool


def _children_cpu(pool: SandboxPool) -> float:
    """CPU seconds of the sandbox children the pool's servers have reaped so far."""
    total = 0.0
    for process in psutil.Process().children():
        try:
            if "evaluator.sandbox.server" in " ".join(process.cmdline()):
                times = process.cpu_times()
                total += times.children_user + times.children_system
        except psutil.Error:  # another test's child, already a zombie
            pass
    return total


@pytest.mark.parametrize("isolation", list(Isolation))
def test_a_stop_kills_the_next_looping_test_at_once(tmp_path, isolation):
    loops = Job(
        "while True: pass", ["1\n"] * 10, limits=Limits(time_limit=1.0), isolation=isolation
    )
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        pool.run(Job("print(1)", [""]))
        before = _children_cpu(pool)
        result = pool.run(loops, on_result=lambda index, run: run.limit is None)
        spent = _children_cpu(pool) - before
    assert len(result.runs) == 1 and result.runs[0].limit is not None
    # The first test runs to its 1 s limit; the ones started meanwhile die within
    # milliseconds (they used to spin to their 2 s RLIMIT_CPU).
    assert spent < 1.8, spent


def test_results_after_a_stop_are_dropped(pool):
    job = Job("print(input())", [f"{i}\n" for i in range(30)], isolation=Isolation.ADAPTIVE)
    seen = []

    def on_result(index: int, run) -> bool:
        seen.append(index)
        return index < 4

    result = pool.run(job, on_result=on_result)
    assert [run.stdout for run in result.runs] == [f"{i}\n".encode() for i in range(5)]
    assert seen == [0, 1, 2, 3, 4]
