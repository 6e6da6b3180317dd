"""The one launcher for every trusted program the grader starts outside its fork servers: a
compiler on a submission's source (:mod:`evaluator.languages.builds`) and a problem setter's
checker (:mod:`evaluator.judges.checker`, :mod:`evaluator.judges.cf_checker`).

Such a program is trusted (it may exec, fork and use threads, which the sandbox profile
forbids a candidate) but its input is not: a compiler reads what a source names
(``#include "/etc/shadow"``, ``#include </dev/random>``) and can be made to work without end
(template and macro bombs); a checker reads a candidate's output. So each runs as its own
process group under one confinement, the same for all:

- rlimits: CPU seconds and data size for each of its processes, the size of any file it
  writes, no core dumps;
- one watcher: past its wall-clock limit, or once its caller's stop event is set, its whole
  process group is killed (a program stuck reading a FIFO uses no CPU);
- Landlock: it may read and execute only the system's toolchain (:data:`TOOLCHAIN_PATHS`,
  directories that hold no grading data) and the paths its caller names (a precompiled
  header, the checker's file, the grader's interpreter), write only its own directory
  (``work``) and ``/dev/null``;
- no network: a root grader moves it into a new, empty network namespace; Landlock (ABI 4,
  Linux 6.7) refuses TCP bind and connect; and whatever its user, a seccomp filter refuses
  ``socket(2)`` of every family and ``io_uring_setup(2)`` (which could open one), so a
  grader that is not root, or a kernel without Landlock's network rules, still gives it no
  socket;
- its user: a root grader runs it as an unprivileged user of its own (``user``, see
  :func:`trusted_user`: it owns nothing on the host, not even ``work``, which is root's and
  open to its group), or, where that user cannot reach ``work`` or a path its caller names,
  as uid 0 with no capabilities (and none gained at its exec: no-root secure bits);
- an environment of its own: ``PATH``, the C locale, ``HOME`` and ``TMPDIR`` its
  directory, stdin ``/dev/null``.

Without Landlock (kernels before 5.13) the program keeps its limits, its watcher and the
seccomp filter but may read any file the grader's user can.

Two programs the grader starts on fixed input of its own start without it: ``g++ --version``
(:mod:`evaluator.languages.cpp`, the toolchain's name) and the probe of what a plain
``python3 solution.py`` sets up (:mod:`evaluator.sandbox.reference`), which must see the
interpreter exactly as a plain run does. Neither reads anything a submission or a problem
gave.

Limits and confinement are set by a small wrapper (``python -I -S``) that then executes the
program: never by ``preexec_fn``, which is unsafe in the grader's threaded process. A wrapper
that cannot set them up or cannot execute the program exits :data:`START_FAILED` with
:data:`START_FAILED_MARK` and the reason on stderr.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from . import kernel

__all__ = [
    "START_FAILED",
    "START_FAILED_MARK",
    "TOOLCHAIN_PATHS",
    "Launched",
    "TrustedLimits",
    "interpreter_paths",
    "launch",
    "trusted_user",
]

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
"""What every trusted program may read and execute: the system's toolchain, its headers and
libraries (system directories that hold no grading data)."""

LAUNCH_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C", "LC_ALL": "C"}  # ASCII diagnostics

START_FAILED = 127  # the wrapper's status when it could not confine or execute the program
START_FAILED_MARK = "mc-launcher: cannot start: "  # how its message on stderr begins

# seccomp, whatever the user and the kernel's Landlock: no socket of any family (the host's
# Unix sockets included), no io_uring (whose requests can open one)
_NO_SOCKETS = {
    "default_action": "allow",
    "rules": [{"action": "errno:EACCES", "syscalls": ["socket", "io_uring_setup"]}],
}

# the wrapper loads the sandbox's kernel module from its file (not the packages above it)
_KERNEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernel.py")

# ``python -I -S -c _WRAPPER CONFIG PROGRAM ARGS...``: limits, confinement, then the program.
_WRAPPER = r"""
import base64, json, os, resource, sys
config = json.loads(sys.argv[1])
try:
    from importlib import util
    spec = util.spec_from_file_location("kernel", config["kernel"])
    kernel = util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    for name, soft, hard in config["rlimits"]:
        resource.setrlimit(getattr(resource, name), (soft, hard))
    root = os.geteuid() == 0
    if root:
        kernel.unshare_network()
    kernel.set_no_new_privs()
    abi = kernel.landlock_abi()
    if abi:
        ruleset = kernel.landlock_create_ruleset(abi)
        for path in config["readable"]:
            if os.path.exists(path):
                kernel.landlock_allow(ruleset, path, kernel.FS_READ)
        kernel.landlock_allow(ruleset, "/dev/null", kernel.FS_READ_FILE | kernel.FS_WRITE_FILE)
        kernel.landlock_allow(ruleset, config["work"], kernel.fs_rights(abi))
        kernel.landlock_restrict_self(ruleset)
        os.close(ruleset)
    if root and config["user"]:
        kernel.become(*config["user"])
    elif root:
        kernel.set_securebits_no_root()
        kernel.drop_capabilities()
    kernel.load_seccomp_bpf(kernel.SeccompProgram(base64.b64decode(config["seccomp"])))
    argv = sys.argv[2:]
    os.execve(argv[0], argv, config["env"])
except BaseException as exc:
    os.write(2, f"{config['mark']}{type(exc).__name__}: {exc}\n".encode())
    os._exit(config["failed"])
"""

_POLL = 0.1  # seconds between looks at a running program (its wall-clock limit, a stop)


@dataclass(frozen=True, slots=True)
class TrustedLimits:
    """What one trusted program may use, under the names the sandbox's
    :class:`~evaluator.sandbox.jobs.Limits` gives them: CPU seconds per process (its
    verdict), data MB per process, bytes per file it writes, and the wall-clock seconds after
    which its group is killed."""

    time_limit: float
    memory_limit: int
    output_bytes: int
    wall_limit: float


@dataclass(frozen=True, slots=True)
class Launched:
    """How a trusted program ended: its exit status (negative: the signal that killed it),
    the limit that ended it (``"wall"``, ``"stopped"``, None: it ended by itself) and the
    wall-clock seconds it took."""

    status: int
    limit: str | None
    seconds: float


def trusted_user() -> tuple[int, int] | None:
    """The uid and gid a root grader runs its trusted programs as (the grader's own, which
    owns nothing on the host: :func:`evaluator.sandbox.kernel.child_ids`); None when not
    root."""
    return kernel.child_ids(os.getpid()) if os.geteuid() == 0 else None


@functools.cache
def interpreter_paths() -> tuple[str, ...]:
    """What a trusted program needs to read to run the grader's own Python interpreter (its
    installation, shared libraries), never this project's packages or data."""
    from .profile import readable_paths

    # A virtual environment's interpreter reads its pyvenv.cfg at start (site refuses to
    # start without it); the file holds paths only
    venv = os.path.join(sys.prefix, "pyvenv.cfg")
    extra = (venv,) if sys.prefix != sys.base_prefix and os.path.exists(venv) else ()
    return (*readable_paths(), *extra)


@functools.cache
def _no_sockets() -> str:
    from .profile import compile_seccomp

    return base64.b64encode(compile_seccomp(_NO_SOCKETS, where="launcher")).decode()


def launch(
    argv: Sequence[str],
    work: str,
    limits: TrustedLimits,
    *,
    out: IO[Any],
    err: IO[Any],
    readable: Sequence[str] = (),
    user: tuple[int, int] | None = None,
    stop: threading.Event | None = None,
) -> Launched:
    """Run ``argv`` (its first item an absolute path) in the directory ``work`` under
    ``limits``, confined as the module says, its stdout and stderr to the open files ``out``
    and ``err`` (the same file for both if the caller likes). ``readable``: paths it may read
    and execute beyond :data:`TOOLCHAIN_PATHS`; ``user``: the uid and gid a root grader runs
    it as (:func:`trusted_user`; ``work`` and every directory in it are then made root's,
    open to that group); ``stop``: once set, the run is killed (limit ``"stopped"``). Never
    raises for what the program does; ``OSError`` if the wrapper cannot be started."""
    cpu = max(1, int(limits.time_limit + 0.999))
    if user is not None and (
        os.geteuid() != 0 or any(kernel.closed_to_others(p) for p in (work, *readable))
    ):
        user = None  # not root; or the program could not reach its own paths
    if user is not None:
        for directory, _, _ in os.walk(work):
            os.chown(directory, 0, user[1])
            os.chmod(directory, 0o770)
    config = {
        "kernel": _KERNEL,
        "mark": START_FAILED_MARK,
        "failed": START_FAILED,
        "user": user,
        "work": work,
        "readable": [*TOOLCHAIN_PATHS, *readable],
        "env": {**LAUNCH_ENV, "HOME": work, "TMPDIR": work},
        "seccomp": _no_sockets(),
        # (name, soft, hard). The CPU limit's hard one a second above: at the soft limit
        # the kernel sends SIGXCPU, which g++'s driver names ("CPU time limit exceeded"),
        # so a build's CE says it was the CPU; at a hard limit equal to it, a plain SIGKILL.
        "rlimits": [
            ("RLIMIT_CPU", cpu, cpu + 1),
            ("RLIMIT_DATA", limits.memory_limit << 20, limits.memory_limit << 20),
            ("RLIMIT_FSIZE", limits.output_bytes, limits.output_bytes),
            ("RLIMIT_CORE", 0, 0),
        ],
    }
    command = [sys.executable, "-I", "-S", "-c", _WRAPPER, json.dumps(config), *argv]
    start = time.monotonic()
    process = subprocess.Popen(
        command, cwd=work, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
        env=LAUNCH_ENV, start_new_session=True,
    )  # fmt: skip
    limit = _watch(process, start + limits.wall_limit, stop)
    status = process.wait()
    return Launched(status, limit, time.monotonic() - start)


def _watch(process: subprocess.Popen, deadline: float, stop: threading.Event | None) -> str | None:
    """Wait for the program's end (a compiler driver waits for its own children), woken by
    its exit at once (a pidfd); past ``deadline`` or once ``stop`` is set, kill its process
    group and say which."""
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
    try:  # the group id stays the program's: its leader is not reaped yet
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
