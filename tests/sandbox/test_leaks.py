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
        # exact however loaded the machine: a server has released a job before the pool
        # hears of its end (the test below), so no snapshot catches one releasing it
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


def test_a_job_is_over_in_its_server_when_the_pool_hears_its_end(tmp_path):
    """What a job held in its fork server (memfds, children, orphans) is released before the
    frame that ends the job: a server that runs late after that write (a loaded machine)
    still shows nothing of it to whoever looks then. Made deterministic by running the
    server only when this process does not: one CPU for both, the server at SCHED_IDLE (a
    loaded machine's worst case), its descriptors counted as soon as each job returns."""
    main_affinity = os.sched_getaffinity(0)
    cpu = min(main_affinity)
    os.sched_setaffinity(0, {cpu})  # the pool's threads and its server inherit it
    try:
        with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
            assert pool.run(Job(code="print(1)", inputs=[""])).runs[0].clean_exit
            (server,), _ = _pool_processes(pool)
            os.sched_setscheduler(server.pid, os.SCHED_IDLE, os.sched_param(0))
            idle = len(os.listdir(f"/proc/{server.pid}/fd"))
            counts = []
            for isolation in (Isolation.ADAPTIVE, Isolation.SUBMISSION, Isolation.TEST):
                job = Job(code="print(input())", inputs=["1", "2"], isolation=isolation)
                for _ in range(10):
                    assert [run.stdout for run in pool.run(job).runs] == [b"1\n", b"2\n"]
                    counts.append(len(os.listdir(f"/proc/{server.pid}/fd")))
    finally:
        os.sched_setaffinity(0, main_affinity)
    assert counts == [idle] * len(counts)
