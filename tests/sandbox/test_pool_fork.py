"""A pool copied into a forked child (a fork ``ProcessPoolExecutor``, as verl's reward
managers make one per batch) grades there with servers of its own, and the parent's pool
goes on unharmed. Before: the child's jobs waited for the parent's threads, which a fork
does not copy, until the caller's timeout (verl's: 300 s, then a score of 0)."""

from __future__ import annotations

import os
import select
import signal

from evaluator.sandbox import Job, SandboxPool


def _echo(text: str) -> Job:
    return Job(code="print(input()[::-1])", inputs=[text])


def _in_forked_child(pool: SandboxPool, text: str, timeout: float = 60.0) -> bytes:
    """What the child's ``pool.run`` printed, read through a pipe; fails if it hangs."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: grade, report, leave without the parent's exit handlers
        status = 1
        try:
            os.close(read_end)
            os.write(write_end, pool.run(_echo(text)).runs[0].stdout)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], timeout)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        got = os.read(read_end, 1 << 16) if ready else b"<hung>"
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    assert got != b"<hung>", "the forked child's job never ran"
    assert os.waitstatus_to_exitcode(status) == 0
    return got


def test_a_forked_child_grades_with_its_own_servers_and_the_parent_goes_on():
    with SandboxPool(workers=2) as pool:
        assert pool.run(_echo("parent")).runs[0].stdout == b"tnerap\n"
        assert _in_forked_child(pool, "child") == b"dlihc\n"
        assert _in_forked_child(pool, "again") == b"niaga\n"
        # the parent's threads and servers were never touched by the children
        results = list(pool.map(_echo(str(i)) for i in range(8)))
        assert [r.runs[0].stdout for r in results] == [f"{i}\n".encode() for i in range(8)]
