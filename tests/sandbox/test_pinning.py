"""Each worker (its fork server, template and children) keeps to one core while there is one
per worker: a child and its server take turns, and a wake-up across cores costs more here
than a test's own harness work."""

from __future__ import annotations

import os

import psutil

from evaluator.sandbox import Job, SandboxPool
from evaluator.sandbox.pool import worker_cpus

AFFINITY = "import os\nprint(sorted(os.sched_getaffinity(0)))\n"


def _servers(tmp_dir) -> list[psutil.Process]:
    """The fork servers of the pool whose workers' temp dirs are in ``tmp_dir`` (other tests'
    pools and zombies left alone)."""
    found = []
    for process in psutil.Process().children():
        try:
            if process.cwd().startswith(str(tmp_dir)):
                found.append(process)
        except psutil.Error:
            pass
    return found


def test_worker_cpus_gives_each_worker_its_own_core_while_there_are_enough():
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) >= 2:
        assert worker_cpus(2) == allowed[:2]
        assert worker_cpus(len(allowed)) == allowed
    assert worker_cpus(len(allowed) + 1) == [None] * (len(allowed) + 1)
    assert worker_cpus(1) == ([allowed[0]] if len(allowed) >= 2 else [None])


def test_servers_and_their_children_run_on_their_workers_core(tmp_path):
    allowed = sorted(os.sched_getaffinity(0))
    with SandboxPool(workers=min(2, len(allowed)), tmp_dir=tmp_path) as pool:
        seen = {tuple(p.cpu_affinity()) for p in _servers(tmp_path)}
        runs = [pool.run(Job(AFFINITY, [""])).runs[0] for _ in range(4)]
    if len(allowed) >= 2:
        assert seen == {(allowed[0],), (allowed[1],)}
        for run in runs:  # the child inherits its template's core, forked from the server
            assert run.clean_exit, run.stderr
            assert eval(run.stdout) in ([allowed[0]], [allowed[1]])
    else:
        assert seen == {tuple(allowed)}


def test_pin_false_leaves_every_core_to_the_kernel(tmp_path):
    allowed = sorted(os.sched_getaffinity(0))
    with SandboxPool(workers=2, pin=False, tmp_dir=tmp_path) as pool:
        assert {tuple(p.cpu_affinity()) for p in _servers(tmp_path)} == {tuple(allowed)}
        run = pool.run(Job(AFFINITY, [""])).runs[0]
    assert eval(run.stdout) == allowed
