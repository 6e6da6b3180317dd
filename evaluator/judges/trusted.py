"""Running a checker that is the problem setter's code (trusted, like testlib checkers on
contest judges): outside the sandbox profile, in a session of its own, killed with its whole
process group past a wall-clock limit. The program checkers (:mod:`.checker`) and
open-r1/codeforces' checkers (:mod:`.cf_checker`) run so."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

__all__ = ["file_bytes", "run_group"]


def run_group(command: list[str], cwd: str, out: Any, err: Any, timeout: float) -> int | None:
    """Run ``command`` in ``cwd`` with no stdin, stdout and stderr to the files ``out`` and
    ``err`` and an environment of ``PATH`` only; past ``timeout`` seconds kill its whole
    process group. The exit status (negative: the signal that killed it), None on timeout."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=err,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        start_new_session=True,
    )
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        try:  # the group id is still ours: its leader is not reaped yet
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        return None


def file_bytes(text: str) -> bytes:
    """``text`` as the bytes of a checker's file: UTF-8, undecodable bytes (surrogate escapes)
    restored; any other lone surrogate (from a ``"\\ud800"`` escape in a problem file) written
    as its three UTF-8-style bytes rather than refused."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
