"""The one launcher for every trusted program the grader starts outside its fork servers: a
compiler on a submission's source (:mod:`evaluator.languages.builds`) and a problem setter's
checker (:mod:`evaluator.judges.checker`, :mod:`evaluator.judges.cf_checker`).

Such a program may exec, fork and use threads, which the sandbox profile forbids a candidate,
but nothing it reads or is is trusted: a compiler reads what a source names (``#include
"/etc/shadow"``, ``#include </dev/random>``) and can be made to work without end (template
and macro bombs); a checker is as often a dataset's code as a problem setter's (open-r1's
``generated_checker``, a row's program checker) and reads a candidate's output. So each runs
under one confinement, the same for all, as close to a candidate's as a program that runs
other programs can be:

- rlimits: CPU seconds and data size for each of its processes, the size of any file it
  writes, no core dumps, and (a root grader) at most :data:`_PROCESSES` tasks of its user;
- nothing it starts outlives it: a root grader runs it in new PID, IPC and network
  namespaces under an init of ours (:mod:`evaluator.sandbox.inside.launched`), so when it
  ends, every process it left (a ``setsid`` daemon) is killed by the kernel and every
  System V or POSIX IPC object it made is gone; where no namespace can be made (a grader
  that is not root), that init is its subreaper and kills what it left;
- one watcher: past its wall-clock limit, or once its caller's stop event is set, it and
  everything it started are ended (SIGTERM to its group, which the init answers by ending
  the rest; SIGKILL after :data:`_GRACE` seconds);
- Landlock: it may read and execute only the system's toolchain (:data:`TOOLCHAIN_PATHS`,
  directories that hold no grading data) and the paths its caller names (a precompiled
  header, the grader's interpreter), write only its own directory (``work``) and
  ``/dev/null``, and signal only its own processes;
- no network: a root grader moves it into a new, empty network namespace; Landlock (ABI 4,
  Linux 6.7) refuses TCP bind and connect; and whatever its user, a seccomp filter refuses
  ``socket(2)`` of every family and ``io_uring_setup(2)`` (which could open one);
- the seccomp filter also refuses what the default profile refuses a candidate (IPC objects,
  keyrings, ptrace, mounts, namespaces, other processes' limits, the clock, modules: see
  :func:`trusted_filter`) but running programs; a program that keeps the grader's user
  (a grader that is not root) is also refused changing its files' mode, owner, times and
  attributes, which Landlock does not cover;
- its user: a root grader always runs it as an unprivileged user of its own (see
  :func:`trusted_user`: it owns nothing on the host, not even ``work``, which is root's and
  open to its group), never as uid 0. Where a path it needs lies under a directory others
  may not search (an interpreter in root's ``0700`` home), a private mount namespace opens
  the way to just that path (:func:`evaluator.sandbox.kernel.expose_paths`, as the fork
  template does for candidates); where none can be made, it does not start;
- an environment of its own: ``PATH``, the C locale, ``HOME`` and ``TMPDIR`` its
  directory, stdin ``/dev/null``.

Without Landlock (kernels before 5.13) the program keeps its limits, its namespaces, its
watcher and the seccomp filter but may read any file its user can.

Two programs the grader starts on fixed input of its own start without it: ``g++ --version``
(:mod:`evaluator.languages.cpp`, the toolchain's name) and the probe of what a plain
``python3 solution.py`` sets up (:mod:`evaluator.sandbox.reference`), which must see the
interpreter exactly as a plain run does. Neither reads anything a submission or a problem
gave.

Limits and confinement are set by a small wrapper (``python -I -S``,
:mod:`evaluator.sandbox.inside.launched`) that then executes the program: never by
``preexec_fn``, which is unsafe in the grader's threaded process. A wrapper that cannot set
them up or cannot execute the program exits :data:`START_FAILED` with
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

# What a trusted program may do that a candidate may not (the default profile's rules refuse
# them): run other programs, make processes and process groups, signal them (Landlock scopes
# its signals to its own domain, the PID namespace to its own processes), socket pairs (an
# event loop's self-pipe: they reach nothing), memfds, filters of its own, an exec domain.
_TRUSTED_MAY = frozenset({
    "execve", "execveat", "fork", "vfork", "clone", "clone3", "setpgid", "setsid", "kill",
    "tgkill", "tkill", "socketpair", "memfd_create", "seccomp", "personality",
})  # fmt: skip
# Whatever the user and the kernel's Landlock: no socket of any family (the host's Unix
# sockets included), no io_uring (whose requests can open one); EACCES, as Landlock refuses.
_NO_SOCKETS = {"action": "errno:EACCES", "syscalls": ["socket", "io_uring_setup"]}

# the wrapper, run by its file: it loads the sandbox's kernel module from its file too
_HERE = os.path.dirname(os.path.abspath(__file__))
_KERNEL = os.path.join(_HERE, "kernel.py")
_LAUNCHED = os.path.join(_HERE, "inside", "launched.py")
_PROCESSES = 4096  # tasks (threads too) of a root grader's trusted user: no fork bomb
_GRACE = 2.0  # seconds a launched program's init has to clean up after the launcher's SIGTERM

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
def trusted_filter(same_user: bool) -> bytes:
    """The seccomp filter of every trusted program, as BPF: what the default profile refuses
    a candidate (IPC objects, keyrings, ptrace, mounts and namespaces, limits of other
    processes, ...) but :data:`_TRUSTED_MAY`, and no sockets; ``same_user``: for a program
    that keeps the grader's own user (a grader that is not root), also what the profile
    refuses such a child (changing the mode, owner, times or attributes of its files)."""
    from .profile import compile_seccomp, load_profile

    rules = [_NO_SOCKETS]
    spec = load_profile().seccomp or {}
    for rule in [*spec.get("rules", []), *(spec.get("same_user_rules", []) if same_user else [])]:
        calls = [
            c
            for c in rule["syscalls"]
            if c not in _TRUSTED_MAY and c not in _NO_SOCKETS["syscalls"]
        ]
        if calls:
            rules.append({**rule, "syscalls": calls})
    return compile_seccomp({"default_action": "allow", "rules": rules}, where="launcher")


def launch(
    argv: Sequence[str],
    work: str,
    limits: TrustedLimits,
    *,
    out: IO[Any],
    err: IO[Any],
    readable: Sequence[str] = (),
    stop: threading.Event | None = None,
) -> Launched:
    """Run ``argv`` (its first item an absolute path) in the directory ``work`` under
    ``limits``, confined as the module says, its stdout and stderr to the open files ``out``
    and ``err`` (the same file for both if the caller likes). ``readable``: paths it may read
    and execute beyond :data:`TOOLCHAIN_PATHS`; ``stop``: once set, the run is killed (limit
    ``"stopped"``). A root grader runs it as :func:`trusted_user` (``work`` and every
    directory in it are then made root's, open to that group). Never raises for what the
    program does; ``OSError`` if the wrapper cannot be started."""
    cpu = max(1, int(limits.time_limit + 0.999))
    user = trusted_user()  # None: the grader is not root and keeps its own user
    root = user is not None
    if root:
        for directory, _, _ in os.walk(work):
            os.chown(directory, 0, user[1])
            os.chmod(directory, 0o770)
    # what its user must reach: under a directory closed to others, the way is opened to the
    # path as named (argv[0] may be a link: a venv's python) and to where it leads. What
    # lies in ``work`` its group reaches (``work`` is open to it, not to others).
    inside = os.path.abspath(argv[0]).startswith(os.path.join(os.path.abspath(work), ""))
    wanted = (work, *readable, *(() if inside else (argv[0],)))
    closed = sorted(
        {
            way
            for path in wanted
            if root and kernel.closed_to_others(path)
            for way in (os.path.abspath(path), os.path.realpath(path))
        }
    )
    rlimits = [
        # (name, soft, hard). The CPU limit's hard one a second above: at the soft limit
        # the kernel sends SIGXCPU, which g++'s driver names ("CPU time limit exceeded"),
        # so a build's CE says it was the CPU; at a hard limit equal to it, a plain SIGKILL.
        ("RLIMIT_CPU", cpu, cpu + 1),
        ("RLIMIT_DATA", limits.memory_limit << 20, limits.memory_limit << 20),
        ("RLIMIT_FSIZE", limits.output_bytes, limits.output_bytes),
        ("RLIMIT_CORE", 0, 0),
    ]
    if root:  # its user's own count (a user of the grader's, who runs nothing else)
        rlimits.append(("RLIMIT_NPROC", _PROCESSES, _PROCESSES))
    config = {
        "kernel": _KERNEL,
        "mark": START_FAILED_MARK,
        "failed": START_FAILED,
        "user": user,
        "work": work,
        "closed": closed,
        "readable": [*TOOLCHAIN_PATHS, *readable],
        "env": {**LAUNCH_ENV, "HOME": work, "TMPDIR": work},
        "seccomp": base64.b64encode(trusted_filter(same_user=not root)).decode(),
        "rlimits": rlimits,
    }
    command = [sys.executable, "-I", "-S", _LAUNCHED, json.dumps(config), *argv]
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
            _end_group(process.pid, pidfd)
            return limit
    finally:
        os.close(pidfd)


def _end_group(pid: int, pidfd: int) -> None:
    """End a launched program and everything it started: SIGTERM to its process group, which
    its init (see :mod:`evaluator.sandbox.inside.launched`) answers by ending its namespace
    (or, outside one, killing every descendant); SIGKILL to the group if the wrapper has not
    ended within :data:`_GRACE` seconds."""
    for sig, wait in ((signal.SIGTERM, _GRACE), (signal.SIGKILL, 0.0)):
        try:  # the group id stays the program's: its leader is not reaped yet
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        if wait and select.select([pidfd], [], [], wait)[0]:
            return
