"""A builder copied into a forked child (a fork process pool's worker, as verl's
PrimeRewardManager makes per batch) builds there with threads and a directory of its own;
closing it there leaves the parent's builds in place."""

from __future__ import annotations

import os
import select
import signal

from evaluator.languages.builds import Builder
from tests.cpp.plain import BUILD_LIMITS, CPP

MAIN = '#include <cstdio>\nint main() { std::puts("%s"); }\n'


def _child_builds(builder: Builder, source: str, timeout: float = 120.0) -> str:
    """In a forked child: build ``source``, close the builder; what it says, through a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            build = builder.submit(CPP, source, CPP.default_flags).result()
            where = builder._root
            builder.close()  # the child's own directory goes; the parent's must stay
            os.write(write_end, f"{build.ok} {where}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], timeout)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        said = os.read(read_end, 4096).decode() if ready else "<hung>"
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    return said


def test_a_forked_child_builds_on_its_own_and_leaves_the_parents_builds():
    with Builder(workers=1, limits=BUILD_LIMITS, prepare=False) as builder:
        first = builder.submit(CPP, MAIN % "parent", CPP.default_flags).result()
        parents = builder._root
        assert first.ok and parents and os.path.isdir(parents)
        said = _child_builds(builder, MAIN % "child")
        assert said != "<hung>", "the child's build never ran"
        ok, where = said.split()
        assert ok == "True" and where != parents
        assert os.path.isdir(parents)  # the child's close removed only its own directory
        assert builder.submit(CPP, MAIN % "parent", CPP.default_flags).result() is first
        assert builder.submit(CPP, MAIN % "later", CPP.default_flags).result().ok
