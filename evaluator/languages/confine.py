"""Running a trusted tool (a compiler) on untrusted input, confined.

A submission's source is the compiler's input, and a compiler reads what the source names
(``#include "/etc/shadow"``, ``#include </dev/random>``) and can be made to work without end
(template and macro bombs). So each build runs as its own process group under:

- rlimits: CPU seconds and data size for each of its processes, the size of any file it
  writes (objects, the binary, its diagnostics), no core dumps;
- a wall-clock timeout that kills the whole group (a build stuck reading a FIFO uses no CPU),
  by default far beyond its CPU limit (:func:`~evaluator.languages.base.wall_backstop`): a
  build's verdict is its CPU, never the machine's load;
- Landlock: it may read and execute only the toolchain's files (``/usr``, ``/lib*``, the
  loader cache) and the directories the language adds (a precompiled header), write only
  its private build directory; no TCP; a root build also gets an empty network namespace
  and runs as an unprivileged user of its grader's own (``user``: it owns nothing on the
  host, not even the build directory, which is root's and open to its group), or, where
  that user cannot reach the build directory, as uid 0 with no capabilities (and none
  gained at its exec: no-root secure bits);
- an environment of its own: ``PATH``, the C locale, ``HOME`` and ``TMPDIR`` its directory,
  stdin ``/dev/null``.

Without Landlock (kernels before 5.13) the build keeps its limits and timeout but may read
any file the grader's user can: its diagnostics can then quote such a file.

Limits and confinement are set by a small wrapper (``python -I -S``) that then executes the
tool: never by ``preexec_fn``, which is unsafe in the grader's threaded process.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.sandbox import kernel

from .base import BuildLimits, ToolRun

__all__ = ["START_FAILED", "TOOLCHAIN_PATHS", "ConfinedTool", "build_user", "run_tool"]

TOOLCHAIN_PATHS = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/libx32",
    "/bin",
    "/etc/ld.so.cache",
    "/etc/alternatives",
)
"""What a build may read and execute: the toolchain, its headers and libraries (system
directories that hold no grading data)."""

TOOL_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C", "LC_ALL": "C"}  # ASCII diagnostics

# the folder holding the ``evaluator`` package: the wrapper imports the sandbox's kernel
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ``python -I -S -c _WRAPPER CONFIG TOOL ARGS...``: limits, confinement, then the tool. Any
# failure before the exec exits 127 with the reason on stderr (a broken grader set-up, which
# the caller reports: not the submission's fault).
_WRAPPER = r"""
import json, os, resource, sys
config = json.loads(sys.argv[1])
sys.path.insert(0, config["root"])
try:
    from evaluator.sandbox import kernel
    for name, soft, hard in config["rlimits"]:
        resource.setrlimit(getattr(resource, name), (soft, hard))
    root = os.geteuid() == 0
    if root:
        kernel.unshare_network()
    abi = kernel.landlock_abi()
    if abi:
        ruleset = kernel.landlock_create_ruleset(abi)
        for path in config["readable"]:
            if os.path.exists(path):
                kernel.landlock_allow(ruleset, path, kernel.FS_READ)
        kernel.landlock_allow(ruleset, "/dev/null", kernel.FS_READ_FILE | kernel.FS_WRITE_FILE)
        kernel.landlock_allow(ruleset, config["work"], kernel.fs_rights(abi))
        kernel.set_no_new_privs()
        kernel.landlock_restrict_self(ruleset)
        os.close(ruleset)
    if root and config["user"]:
        kernel.become(*config["user"])
    elif root:
        kernel.set_securebits_no_root()
        kernel.drop_capabilities()
    argv = sys.argv[2:]
    os.execve(argv[0], argv, config["env"])
except BaseException as exc:
    os.write(2, f"cannot start the build: {type(exc).__name__}: {exc}\n".encode())
    os._exit(127)
"""
START_FAILED = 127  # the wrapper's status when it could not confine or execute the tool


def build_user() -> tuple[int, int] | None:
    """The uid and gid a root grader runs its builds as (the grader's own, which owns
    nothing on the host: :func:`evaluator.sandbox.kernel.child_ids`); None when not root."""
    return kernel.child_ids(os.getpid()) if os.geteuid() == 0 else None


_POLL = 0.1  # seconds between looks at a running build (its timeout, a stop)


@dataclass(frozen=True)
class ConfinedTool:
    """:func:`run_tool` with its limits and extra readable paths bound (a
    :class:`~evaluator.languages.base.Tool`); a set ``stop`` ends the run at once."""

    limits: BuildLimits
    readable: tuple[str, ...] = ()
    stop: threading.Event | None = None
    user: tuple[int, int] | None = None

    def __call__(self, argv: list[str], work: str) -> ToolRun:
        return run_tool(argv, work, self.limits, self.readable, self.stop, self.user)


def run_tool(
    argv: list[str],
    work: str,
    limits: BuildLimits,
    readable: Sequence[str] = (),
    stop: threading.Event | None = None,
    user: tuple[int, int] | None = None,
) -> ToolRun:
    """Run ``argv`` (its first item an absolute path) in the directory ``work`` under
    ``limits``, confined as the module says; ``readable``: more paths it may read; ``stop``:
    set, it kills the run (limit ``"stopped"``); ``user``: the uid and gid a root grader runs
    it as (:func:`build_user`; ``work`` and every directory in it are then made root's, open
    to that group). Never raises for what the tool does; ``OSError`` if the wrapper cannot
    be started."""
    cpu = max(1, int(limits.cpu_time + 0.999))
    if user is not None and (os.geteuid() != 0 or kernel.closed_to_others(work)):
        user = None  # not root; or the tool could not reach its own directory
    if user is not None:
        for directory, _, _ in os.walk(work):
            os.chown(directory, 0, user[1])
            os.chmod(directory, 0o770)
    config = {
        "root": _ROOT,
        "user": user,
        "work": work,
        "readable": [*TOOLCHAIN_PATHS, *readable],
        "env": {**TOOL_ENV, "HOME": work, "TMPDIR": work},
        # (name, soft, hard). The CPU limit's hard one a second above: at the soft limit
        # the kernel sends SIGXCPU, which g++'s driver names ("CPU time limit exceeded"),
        # so the CE says it was the CPU; at a hard limit equal to it, an anonymous SIGKILL.
        "rlimits": [
            ("RLIMIT_CPU", cpu, cpu + 1),
            ("RLIMIT_DATA", limits.memory_mb << 20, limits.memory_mb << 20),
            ("RLIMIT_FSIZE", limits.output_bytes, limits.output_bytes),
            ("RLIMIT_CORE", 0, 0),
        ],
    }
    command = [sys.executable, "-I", "-S", "-c", _WRAPPER, json.dumps(config), *argv]
    start = time.monotonic()
    with tempfile.TemporaryFile() as output:  # unlinked: the tool cannot name it
        process = subprocess.Popen(
            command, cwd=work, stdin=subprocess.DEVNULL, stdout=output, stderr=output,
            env=TOOL_ENV, start_new_session=True,
        )  # fmt: skip
        limit = _watch(process, start + limits.effective_wall_time, stop)
        status = process.wait()
        output.seek(0)
        text = output.read(limits.message_bytes)
    return ToolRun(status, limit, text, time.monotonic() - start)


def _watch(process: subprocess.Popen, deadline: float, stop: threading.Event | None) -> str | None:
    """Wait for the build's end (the driver waits for its own children), woken by its exit
    at once (a pidfd); past ``deadline`` or once ``stop`` is set, kill its process group and
    say which."""
    pidfd = os.pidfd_open(process.pid)
    try:
        while True:
            left = deadline - time.monotonic()
            if select.select([pidfd], [], [], max(0.0, min(_POLL, left)))[0]:
                return None
            if stop is not None and stop.is_set():
                limit = "stopped"
            elif time.monotonic() >= deadline:
                limit = "wall"
            else:
                continue
            _kill_group(process.pid)
            return limit
    finally:
        os.close(pidfd)


def _kill_group(pid: int) -> None:
    try:  # the group id stays the build's: its leader is not reaped yet
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
