"""What every adapter's "the warm pool closes at exit" test checks: a process that graded
through the adapter's shared pool has exited, and none of its sandbox servers (nor the
workers that held them) is left running, nor a sandbox temp dir.

The processes run with ``MICROCODER_SHARED_POOL=0``, so that the shared reward grades in fork
servers of their own: by default it grades in the user's pool daemon, which outlives every
caller by design (``tests/sandbox/test_shared_pool.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import psutil

from evaluator.reward.shared import SHARED_POOL_ENV
from tests.frameworks.rows import ROOT


def run_python(args: Sequence[str], tmp: Path, timeout: float = 120) -> list[str]:
    """The stdout lines of ``python ARGS`` run from the repository's root with ``TMPDIR``
    set to ``tmp`` (where its sandbox servers make their dirs) and fork servers of its own,
    once it exited 0."""
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp), SHARED_POOL_ENV: "0"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def still_running(pids: Iterable[int], timeout: float = 30) -> list[int]:
    """Which of ``pids`` (an exited process's sandbox servers) still run after waiting up to
    ``timeout`` seconds for them to go."""
    procs = []
    for pid in pids:
        try:
            procs.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    return [p.pid for p in alive]


def assert_closed_at_exit(pids: Sequence[int], tmp: Path, left: str = "mcsbx-*") -> None:
    """``pids`` (the exited process's servers: at least one) are gone and nothing matching
    ``left`` is left in ``tmp`` (``"*"``: nothing at all)."""
    assert pids, "the process started no sandbox server"
    assert still_running(pids) == []
    assert sorted(p.name for p in tmp.glob(left)) == []
