"""Thousands of runs leave nothing behind: fds, processes, temp dirs, server memory."""

from __future__ import annotations

import glob
import os

import psutil

from evaluator.sandbox import Isolation, Job, Limits, SandboxPool


def _pool_processes(pool: SandboxPool) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """This pool's fork servers (the test process's children working in the pool's temp dir)
    and their descendants. Other processes of the session are not counted: another pool's, or
    what an earlier test's Ray left shutting down, come and go on their own."""
    servers = []
    for child in psutil.Process().children():
        try:
            if child.cwd().startswith(os.path.join(str(pool.tmp_dir), "")):
                servers.append(child)
        except psutil.NoSuchProcess:
            continue
    return servers, [d for s in servers for d in s.children(recursive=True)]


def _snapshot(pool: SandboxPool) -> dict[str, object]:
    servers, descendants = _pool_processes(pool)
    return {
        "caller_fds": len(os.listdir("/proc/self/fd")),
        "servers": len(servers),
        "descendants": len(descendants),
        "server_fds": sorted(len(os.listdir(f"/proc/{s.pid}/fd")) for s in servers),
        "run_dirs": sum(
            len(os.listdir(d)) for d in glob.glob(os.path.join(pool.tmp_dir, "mcsbx-*"))
        ),
    }


def test_thousands_of_runs_leak_nothing(tmp_path):
    fds_before = len(os.listdir("/proc/self/fd"))
    limits = Limits(time_limit=0.5, wall_limit=1.0, memory_limit=256)
    with SandboxPool(workers=2, tmp_dir=tmp_path) as pool:
        warm = pool.run(Job(code="print(1)", inputs=[""]))
        assert warm.runs[0].clean_exit
        before = _snapshot(pool)
        assert before["servers"] == 2 and before["descendants"] >= 2  # each has its template
        jobs = []
        for i in range(300):
            isolation = Isolation.TEST if i % 2 else Isolation.SUBMISSION
            code = "print(int(input()) * 2)" if i % 50 else "import os; os._exit(3)"
            jobs.append(
                Job(
                    code=code,
                    inputs=[str(n) for n in range(10)],
                    limits=limits,
                    isolation=isolation,
                )
            )
        jobs.append(Job(code="while True: pass", inputs=["", ""], limits=limits))
        for round_no in range(2):
            results = list(pool.map(jobs))
            assert sum(len(r.runs) for r in results) == 3002
            assert results[1].runs[4].stdout == b"8\n"
            assert results[50].runs[0].exit_code == 3
            assert all(r.limit is not None for r in results[-1].runs)
            if round_no == 0:
                steady = _snapshot(pool)
        after = _snapshot(pool)
        assert after == steady  # a second round adds nothing
        # Servers keep a few emptied memfds between jobs (two sets of stdio for a split test,
        # its two briefs), no more.
        spare = 8
        assert all(
            b <= a <= b + spare
            for a, b in zip(after["server_fds"], before["server_fds"], strict=True)
        )
        assert {k: v for k, v in after.items() if k != "server_fds"} == {
            k: v for k, v in before.items() if k != "server_fds"
        }
        assert pool.restarts == 0
        servers, descendants = _pool_processes(pool)
    assert len(os.listdir("/proc/self/fd")) == fds_before
    assert list(tmp_path.iterdir()) == []  # every worker's temp dir is gone
    assert not any(p.is_running() for p in [*servers, *descendants])  # all gone, none reused
