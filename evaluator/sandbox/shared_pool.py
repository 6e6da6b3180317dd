"""A sandbox pool every process of a user shares: :class:`SharedSandboxPool`.

Callers that grade one sample per call from short-lived processes (an RL reward manager that
makes a fresh process pool per batch) would each start fork servers of their own: a fresh
interpreter, its imports and the template, about 0.2 s of CPU per process per batch. A
:class:`SharedSandboxPool` starts none. Its jobs go over a Unix socket to one pool
daemon per machine, user and settings (:mod:`evaluator.sandbox.pool_daemon`), started by the
first process that needs it and gone after ``daemon_idle_seconds`` without a connection, whose
fork servers every process then shares (one per core, however many processes call).

Each connection speaks the fork server's own job protocol
(:class:`~evaluator.sandbox.pool.JobChannel`: a job's JSON, each test's report, a stop), so
a job runs, stops early and survives a dead server exactly as in a pool of one's own; a
daemon that goes away mid-job is a dead server here, and the job goes on from its test in a
fresh daemon.

Trust: the socket lives in a directory only the user can enter (``0700``, refused when anyone
else owns it or may write there), the daemon serves only connections of its own user
(``SO_PEERCRED``), and jobs and reports travel as JSON and raw bytes, never pickled. The daemon
runs with the privileges of the process that started it: a root grader's daemon serves root.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import select
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evaluator.sandbox.jobs import DEFAULT_STACK_MB
from evaluator.sandbox.pool import (
    DEFAULT_HEAVY,
    JobChannel,
    SandboxPool,
    WorkerDied,
    _server_path,
)
from evaluator.sandbox.profile import DEFAULT_PROFILE, load_profile
from evaluator.sandbox.reference import SERVER_ENV

__all__ = ["POOL_DIR_ENV", "PoolDirectoryError", "SharedSandboxPool", "pool_directory"]

POOL_DIR_ENV = "MICROCODER_POOL_DIR"
"""Environment variable: the directory of the pool daemons' sockets (default
``$XDG_RUNTIME_DIR/microcoder``, else ``microcoder-<uid>`` in the system's temp directory)."""

_START_SECONDS = 60.0  # a daemon not ready by then (its first fork server included) failed
_CONNECT_TRIES = 3  # daemons reached that may go away before their hello
_SOCKET_PATH_MAX = 107  # sockaddr_un's sun_path, less its NUL

_DAEMON_BOOT = (
    "import sys, os; sys.path[:0] = sys.argv[1].split(os.pathsep); "
    "from evaluator.sandbox.pool_daemon import main; main()"
)


class PoolDirectoryError(PermissionError):
    """The pool daemons' directory cannot be used (anyone else's, open to others, or a path
    too long for a socket); the message names it and says what to set."""


def pool_directory() -> Path:
    """Where this user's pool daemons listen (see :data:`POOL_DIR_ENV`), made ``0700`` if
    missing. Raises :class:`PoolDirectoryError` for a directory that is not this user's
    alone: a socket there could be anyone's."""
    given = os.environ.get(POOL_DIR_ENV, "").strip()
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if given:
        path = Path(given)
    elif runtime and os.path.isdir(runtime):
        path = Path(runtime) / "microcoder"
    else:
        path = Path(tempfile.gettempdir()) / f"microcoder-{os.geteuid()}"
    try:
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700, parents=True)
        info = os.lstat(path)
    except OSError as exc:
        raise PoolDirectoryError(
            f"{path}: the pool daemons' directory cannot be made: {exc.strerror} "
            f"(set ${POOL_DIR_ENV} to use another)"
        ) from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise PoolDirectoryError(
            f"{path}: the pool daemons' directory must be a directory of user {os.geteuid()} "
            f"that no one else may enter (mode 0700; set ${POOL_DIR_ENV} to use another)"
        )
    return path


def _sandbox_fingerprint() -> list[tuple[str, int, int]]:
    """The sandbox's own files as they are now (name, size, change time): a daemon of other
    code (an upgrade, an edit) is another daemon."""
    root = Path(__file__).resolve().parent
    found = []
    for path in sorted(root.rglob("*.py")):
        info = path.stat()
        found.append((str(path.relative_to(root)), info.st_size, info.st_mtime_ns))
    return found


class _Daemon:
    """Where one daemon listens, and how to start it (settings fixed at its start)."""

    def __init__(self, settings: dict[str, Any], idle_seconds: float) -> None:
        self.settings, self.idle_seconds = settings, idle_seconds
        self.server_path = _server_path()
        identity = {
            "executable": sys.executable,
            "server_path": self.server_path,
            "code": _sandbox_fingerprint(),
            "settings": settings,
        }
        key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]
        directory = pool_directory()
        self.socket_path = str(directory / f"pool-{key}.sock")
        self.lock_path = str(directory / f"pool-{key}.lock")
        self.log_path = str(directory / f"pool-{key}.log")
        if len(os.fsencode(self.socket_path)) > _SOCKET_PATH_MAX:
            raise PoolDirectoryError(
                f"{self.socket_path}: a Unix socket's path is at most {_SOCKET_PATH_MAX} bytes "
                f"(set ${POOL_DIR_ENV} to a shorter directory)"
            )

    def connect(self) -> socket.socket:
        """A connection to the daemon, started first if none listens (one start at a time:
        the lock file)."""
        try:
            return self._connect()
        except (FileNotFoundError, ConnectionRefusedError):
            pass
        with open(self.lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                return self._connect()  # another process started it meanwhile
            except (FileNotFoundError, ConnectionRefusedError):
                pass
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.socket_path)  # a daemon that died without removing it
            self._start()
            return self._connect()

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            sock.connect(self.socket_path)
        except BaseException:
            sock.close()
            raise
        return sock

    def _start(self) -> None:
        """Start the daemon and wait until it listens. It leaves this process's family (the
        process started here exits once its own child, the daemon, is on its way), so a
        caller that ends leaves no zombie and takes no daemon with it."""
        config = {
            **self.settings,
            "socket": self.socket_path,
            "lock": self.lock_path,
            "idle_seconds": self.idle_seconds,
            "server_path": self.server_path,
        }
        with open(self.log_path, "ab") as log:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    # no -S: the daemon compiles its servers' profile, whose readable paths
                    # are the interpreter's site directories (a virtual environment's only
                    # once site has run), as the caller's own pool would
                    "-I",
                    "-c",
                    _DAEMON_BOOT,
                    self.server_path,
                    json.dumps(config),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                env=dict(SERVER_ENV),
                cwd=os.path.dirname(self.socket_path),
                close_fds=True,
                start_new_session=True,  # a Ctrl-C in the caller's terminal must not reach it
            )
        assert proc.stdout is not None
        try:
            ready = select.select([proc.stdout], [], [], _START_SECONDS)[0]
            line = proc.stdout.readline() if ready else b""
        finally:
            proc.stdout.close()
            proc.wait()
        if not line.startswith(b"ready"):
            raise WorkerDied(f"the sandbox pool daemon failed to start (see {self.log_path})")


class _DaemonChannel(JobChannel):
    """A connection to the pool daemon, used as a fork server would be."""

    def __init__(self, daemon: _Daemon) -> None:
        try:
            self.sock = daemon.connect()
        except OSError as exc:
            raise WorkerDied(f"the sandbox pool daemon cannot be reached: {exc}") from None
        super().__init__(self.sock.fileno(), self.sock.fileno())

    def wait_ready(self) -> _DaemonChannel:
        return self if self.info else super().wait_ready()

    def close(self) -> None:
        self.sock.close()


class SharedSandboxPool(SandboxPool):
    """A :class:`~evaluator.sandbox.pool.SandboxPool` whose jobs run in the user's pool
    daemon (see the module docstring), with the same API. ``workers``: jobs this process
    has in the daemon at once (default: CPU cores), of which ``start`` connect now; the
    daemon itself runs one fork server per core (``daemon_workers``) for every process it
    serves. ``profile`` (a shipped name or a path), ``preload``, ``heavy``, ``stack_mb``,
    ``tmp_dir`` and ``runtimes`` are the daemon's: processes that give the same ones share
    one. ``daemon_idle_seconds``: how long the daemon outlives its last connection."""

    def __init__(
        self,
        workers: int | None = None,
        profile: str | os.PathLike[str] = DEFAULT_PROFILE,
        preload: Iterable[str] = (),
        heavy: Iterable[str | Iterable[str]] = DEFAULT_HEAVY,
        stack_mb: int = DEFAULT_STACK_MB,
        tmp_dir: str | os.PathLike[str] | None = None,
        start: int | None = None,
        idle_seconds: float = 120.0,
        runtimes: Iterable[str] | Mapping[str, Iterable[str]] = (),
        daemon_workers: int | None = None,
        daemon_idle_seconds: float = 300.0,
    ) -> None:
        heavy_groups = [[group] if isinstance(group, str) else list(group) for group in heavy]
        loaded = load_profile(profile)  # read and checked once (its filter compiles)
        settings = {
            "profile": loaded.path,
            "preload": list(preload),
            "heavy": heavy_groups,
            "stack_mb": stack_mb,
            "tmp_dir": os.fspath(tmp_dir) if tmp_dir is not None else tempfile.gettempdir(),
            "runtimes": _runtimes(runtimes),
            "workers": daemon_workers,
        }
        self.daemon = _Daemon(settings, daemon_idle_seconds)
        super().__init__(
            workers,
            loaded,
            preload,
            heavy_groups,
            stack_mb,
            settings["tmp_dir"],
            pin=False,  # the daemon's servers are pinned, not this process
            start=start,
            idle_seconds=idle_seconds,
            runtimes=runtimes,
        )

    def _compile_profile(self) -> dict[str, Any]:
        return {}  # the daemon compiles it for its own servers

    def _spawn(self, index: int) -> JobChannel:
        # Connected and greeted here, once more if the first daemon reached goes away before
        # its hello (killed, or leaving as it was reached): as a server that dies starting
        for attempt in range(_CONNECT_TRIES):
            channel = _DaemonChannel(self.daemon)
            try:
                return channel.wait_ready()
            except WorkerDied:
                if attempt + 1 == _CONNECT_TRIES:
                    raise
        raise AssertionError("unreachable")


def _runtimes(runtimes: Iterable[str] | Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    if isinstance(runtimes, Mapping):
        return {str(path): list(reads) for path, reads in runtimes.items()}
    return {str(path): [] for path in runtimes}
