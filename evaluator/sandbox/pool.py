"""A pool of fork servers: submit jobs from any thread or from asyncio, get results back.

Each worker is one fork server process (:mod:`evaluator.sandbox.server`) driven by one
thread of the pool. The servers are fresh interpreters started with ``-I`` and an empty
environment, so they never see the caller's memory, threads, signal handlers or secrets; the
caller's process installs no signal handlers. A server that dies is replaced and the job goes
on from the test it was running, so no run is ever lost.

A job's future (:class:`JobFuture`) can be stopped: a job not started is dropped, a running
one has its program killed at once (the server's early-exit stop) and its worker goes on to
the next job. A pool may start fewer servers than its size (``start``): the rest start when a
job would otherwise wait, and retire after ``idle_seconds`` without a job.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import CancelledError, Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from evaluator.sandbox import reports
from evaluator.sandbox.files.clearing import CLEAR_ENTRIES, CLEAR_SECONDS, remove_tree
from evaluator.sandbox.jobs import DEFAULT_STACK_MB, Job, JobResult, LimitHit, RunResult
from evaluator.sandbox.profile import DEFAULT_PROFILE, Profile, load_profile
from evaluator.sandbox.reference import SERVER_ENV, plain_run
from evaluator.sandbox.wire import STOP, FrameReader, write_frames

if TYPE_CHECKING:
    from typing import Self

OnResult = Callable[[int, RunResult], bool]
"""Called after each test with its index and result; return False to skip the rest."""

_MAX_RESTARTS = 2  # per job: a job that kills its server this often is reported, not retried
_MAX_START_FAILURES = 5  # fresh servers that died starting, per job, before the job fails
# Servers (or their templates) killed from outside while running a job (SIGKILL: an operator,
# the OOM killer): not the program's doing, so retried this often before the job is reported.
_MAX_OUTSIDE_KILLS = 10
_TEMPLATE_GONE_EXIT = 75  # evaluator.sandbox.server.TEMPLATE_GONE_EXIT
# A server retires (evaluator.sandbox.server.RETIRED_EXIT) when its run directory could not be
# put back as made after a test (a tree past the cleanup's bounds, say): it has sent that test's
# result, and the job goes on in a fresh worker; never counted against the job.
_RETIRED_EXIT = 76
# The server's cleanup of its run directory between children: past this many entries or
# seconds it retires (module attributes, so a test can make them small).
CLEAR_LIMITS = {"clear_entries": CLEAR_ENTRIES, "clear_seconds": CLEAR_SECONDS}
# Packages too slow to import in every child, a template for each group (its children are
# forked from it when a program names the group's first package): NumPy; pytest, with the
# modules a pytest session imports at its start (its plugins, pdb for its debugging plugin),
# ~150 ms of each child's CPU otherwise. Kept apart: pytest imports logging, whose atexit
# handler would make a NumPy program's batch child look changed after each test.
_PYTEST_PLUGINS = (
    "faulthandler", "helpconfig", "junitxml", "pastebin", "setuponly", "setupplan",
    "skipping", "stepwise", "threadexception", "tracemalloc", "unittest",
    "unraisableexception", "warnings",
)  # fmt: skip
DEFAULT_HEAVY: tuple[tuple[str, ...], ...] = (
    ("numpy",),
    ("pytest", *(f"_pytest.{plugin}" for plugin in _PYTEST_PLUGINS), "pdb"),
)


# The server runs with -S: no site.py and no .pth hooks, which import ~5 MB of modules that
# every fork would then pay for. Its sys.path is this package's root plus site-packages.
_BOOT = (
    "import sys, os; sys.path[:0] = sys.argv[1].split(os.pathsep); "
    "from evaluator.sandbox.server import main; main()"
)


SERVER_PATH: str | None = None
"""The import path the fork servers start with, when it is not this process's own (set by a
pool's lender, :mod:`evaluator.sandbox.shared_pool`, to its caller's)."""


def _server_path() -> str:
    if SERVER_PATH is not None:
        return SERVER_PATH
    import site

    # the folder holding the ``evaluator`` package: three levels above this file
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dirs = [root, *site.getsitepackages()]
    user = site.getusersitepackages()
    if site.ENABLE_USER_SITE and os.path.isdir(user):
        dirs.append(user)
    return os.pathsep.join(dict.fromkeys(d for d in dirs if os.path.isdir(d)))


class WorkerDied(RuntimeError):
    """The fork server went away (killed from outside, or a bug): it will be replaced."""


class _JobFailed(Exception):
    """A job failed outside the server (its ``on_result`` raised); its worker was closed."""


class JobFuture(Future[JobResult]):
    """A job's future that can also be stopped once running (:meth:`stop`)."""

    def __init__(self) -> None:
        super().__init__()
        self.stop_wanted = False
        self._worker: JobChannel | None = None  # the worker running it, while one does

    def stop(self) -> bool:
        """Cancel the job if it has not started; else kill its program in flight and skip
        its tests not run yet: the future then raises CancelledError, and the worker is
        ready for the next job. False when the job had already ended."""
        if self.cancel():
            return True
        if self.done():
            return False
        # The flag first: a worker about to write this job sends the stop itself (see
        # JobChannel.run), one already running it is told here; never a stop for another job.
        self.stop_wanted = True
        worker = self._worker
        if worker is not None:
            worker.stop(self)
        return True


def runtime_files(runtimes: Iterable[str] | Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """The runtimes a pool's jobs may execute, each resolved to the file a job's exec
    reaches (a link followed: ``/usr/bin/java`` is the JDK's), with the files outside the
    readable system paths that each must read (a mapping's values: node's
    ``/etc/ssl/openssl.cnf``). Raises ``ValueError`` for a runtime that is not an absolute
    path to an executable regular file, or a readable path that is not absolute."""
    given = runtimes if isinstance(runtimes, Mapping) else dict.fromkeys(runtimes, ())
    found: dict[str, list[str]] = {}
    for path, readable in given.items():
        real = os.path.realpath(path)
        if not os.path.isabs(path) or not os.path.isfile(real) or not os.access(real, os.X_OK):
            raise ValueError(f"a sandbox runtime is an executable file's absolute path: {path!r}")
        extra = [str(p) for p in readable]
        if not all(os.path.isabs(p) for p in extra):
            raise ValueError(f"what runtime {path!r} reads are absolute paths: {extra!r}")
        found.setdefault(real, [])
        found[real] += [p for p in extra if p not in found[real]]
    return found


class JobChannel:
    """The fork server's job protocol over one pair of file descriptors (a server's pipes, or
    a socket to a pool that lends its servers: :mod:`evaluator.sandbox.shared_pool`): the
    hello, then jobs' frames out and each test's report back, and a stop mid-job. Used by a
    single pool thread (and :meth:`stop` from any)."""

    def __init__(self, to_server: int, from_server: int) -> None:
        self.to_server, self.from_server = to_server, from_server
        self.frames = FrameReader(from_server)
        # Writes to the server come from the pool thread (jobs, early exit) and from
        # JobFuture.stop (any thread): one at a time, and a stop only for the job in flight.
        self._writing = threading.Lock()
        self._owner: JobFuture | None = None
        self._stop_sent = False
        self.info: dict[str, Any] = {}

    @property
    def exit_code(self) -> int | None:
        """How the server ended, once it has (None: running, or not a process of ours)."""
        return None

    def wait_ready(self) -> Self:
        """Wait for the server's hello (servers start in parallel: spawn all, then wait)."""
        try:
            ready = self.frames.read_frame()
        except OSError:
            ready = None
        try:
            info = json.loads(ready) if ready is not None else None
        except ValueError:
            info = None
        if not isinstance(info, dict):  # gone before its hello (or it was cut short)
            self.close()
            raise WorkerDied("the fork server failed to start (see stderr)")
        self.info = info
        return self

    def run(
        self,
        job: Job,
        on_result: OnResult | None,
        results: list[RunResult],
        owner: JobFuture | None = None,
    ) -> None:
        """Run ``job`` and append its results to ``results`` (which may already hold the
        results of the tests before ``job``'s first); raises WorkerDied if the server goes.
        ``owner``: the job's future, whose :meth:`JobFuture.stop` ends the job early."""
        wire = job.to_wire()
        # Every job can be stopped (early exit, or its future's stop): the server listens for
        # a stop while a test runs, a poll of its request pipe per test.
        wire["early_exit"] = True
        stopped = False
        try:
            frames = [json.dumps(wire).encode()]
            if job.executable is not None:  # raw bytes in a frame of their own, not in JSON
                frames.append(job.executable)
            with self._writing:
                write_frames(self.to_server, *frames)
                self._owner, self._stop_sent = owner, False
                if owner is not None and owner.stop_wanted:  # stopped before it was sent
                    self._send_stop()
            while True:
                header = self.frames.read_frame()
                if header is None:
                    if stopped:  # nothing more was wanted of this job
                        return
                    raise WorkerDied("fork server died")
                if not header:  # the job is done
                    return
                value, stdout, stderr = (self.frames.read_frame() for _ in range(3))
                if value is None or stdout is None or stderr is None:
                    raise WorkerDied("fork server died")
                if stopped:  # the server ran ahead of the stop: that test was skipped
                    continue
                fields = reports.unpack(header, value)
                if fields is None:
                    raise WorkerDied("the fork server sent a broken result")
                result = _run_result(fields, stdout, stderr)
                results.append(result)
                if on_result is not None and not on_result(len(results) - 1, result):
                    with self._writing:  # the server stops at its next test
                        self._send_stop()
                    stopped = True
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise WorkerDied(f"fork server died: {exc}") from None
        finally:
            with self._writing:  # the job is over: a late stop must not reach the next one
                self._owner = None

    def stop(self, owner: JobFuture) -> None:
        """Stop ``owner``'s job if it is the one in flight (from any thread)."""
        with self._writing:
            if self._owner is owner:
                try:
                    self._send_stop()
                except OSError:  # the server is gone: the pool thread hears of it
                    pass

    def _send_stop(self) -> None:
        """One stop per job (called with ``_writing`` held): a second would be read by the
        server between jobs and dropped, but there is no need for it."""
        if not self._stop_sent:
            self._stop_sent = True
            write_frames(self.to_server, STOP)

    def close(self) -> None:
        """Let the server go and free what this side holds; safe to call again."""
        raise NotImplementedError


class _Worker(JobChannel):
    """One fork server process and the pipes to it."""

    def __init__(
        self,
        profile: dict[str, Any],
        preload: list[str],
        stack_mb: int,
        tmp_dir: str | None,
        heavy: list[list[str]],
        cpu: int | None = None,
    ) -> None:
        self.tmp_root = tempfile.mkdtemp(prefix="mcsbx-", dir=tmp_dir)
        os.chmod(self.tmp_root, 0o700)
        env = dict(SERVER_ENV)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _BOOT, _server_path(), "--stack-mb", str(stack_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=self.tmp_root,
            close_fds=True,
            start_new_session=True,  # a Ctrl-C in the caller's terminal must not kill servers
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if cpu is not None:  # before the configuration: the template (and so every child) is
            _pin(self.proc.pid, cpu)  # forked after it, and inherits the server's CPU
        super().__init__(self.proc.stdin.fileno(), self.proc.stdout.fileno())
        config = {
            "tmp_root": self.tmp_root,
            "profile": profile,
            "preload": preload,
            "heavy": heavy,
            "reference": plain_run(sys.executable),
            **CLEAR_LIMITS,
        }
        try:
            write_frames(self.to_server, json.dumps(config).encode())
        except OSError:
            pass  # reported by wait_ready()

    @property
    def exit_code(self) -> int | None:
        return self.proc.returncode

    def close(self) -> None:
        """Stop the server (after its current job) and remove the worker's directory, whatever
        a program left in it and however the server ended; safe to call again."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()  # EOF: the server exits after its current job
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        # The server removes it as it exits; one killed from outside leaves it, with whatever
        # its last program made (a chain deeper than PATH_MAX, say): removed here by the same
        # walk, descriptor-relative and iterative (shutil.rmtree recurses: a deep chain raised
        # RecursionError in this thread, and the directory stayed on the host).
        try:
            remove_tree(self.tmp_root)
        except OSError as exc:
            warnings.warn(
                f"sandbox worker directory {self.tmp_root} not removed: {exc}", stacklevel=2
            )


_LIVE_POOLS: weakref.WeakSet[SandboxPool] = weakref.WeakSet()


def _forget_parents_pools() -> None:
    for pool in list(_LIVE_POOLS):
        pool._forget_parent()


os.register_at_fork(after_in_child=_forget_parents_pools)


def _pin(pid: int, cpu: int) -> None:
    try:
        os.sched_setaffinity(pid, {cpu})
    except OSError:  # the CPU went away (hotplug, a cgroup change): run unpinned
        pass


def worker_cpus(workers: int) -> list[int | None]:
    """The CPU each worker's server, template and children run on: one core each while
    there are enough of the cores this process may use, else none (the kernel balances).
    A child and its server take turns (each test's input is sent after the last report), so
    keeping them on one core costs no parallelism and saves a cross-core wake-up per step,
    which on these VMs costs more than the step's own work."""
    allowed = sorted(os.sched_getaffinity(0))
    if workers > len(allowed) or len(allowed) < 2:
        return [None] * workers
    return allowed[:workers]


def _run_result(fields: dict[str, Any], stdout: bytes, stderr: bytes) -> RunResult:
    limit = fields.get("limit")
    return RunResult(
        status=fields.get("status", "lost"),
        exit_code=fields.get("exit_code"),
        signal=fields.get("signal"),
        limit=LimitHit(limit) if limit else None,
        cpu_time=float(fields.get("cpu_time", 0.0)),
        wall_time=float(fields.get("wall_time", 0.0)),
        peak_memory_kb=int(fields.get("peak_memory_kb", 0)),
        stdout=stdout,
        stderr=stderr,
        stdout_truncated=bool(fields.get("stdout_truncated")),
        stderr_truncated=bool(fields.get("stderr_truncated")),
        exception=fields.get("exception"),
        value=fields.get("value"),
        blocked=fields.get("blocked"),
        checked=bool(fields.get("checked")),
        changed=fields.get("changed"),
        file_error=fields.get("file_error"),
    )


class SandboxPool:
    """Run :class:`~evaluator.sandbox.jobs.Job` s in parallel fork servers.

    >>> from evaluator.sandbox import Job, SandboxPool
    >>> with SandboxPool(workers=1) as pool:
    ...     result = pool.run(Job(code="print(input()[::-1])", inputs=["abc"]))
    >>> result.runs[0].stdout
    b'cba\\n'

    ``workers`` defaults to the number of CPU cores. ``profile`` is a shipped profile name or a
    path to a JSON profile. ``preload`` names extra modules the servers import up front (each
    fork then costs more, each import of them nothing). ``heavy`` names packages too slow to
    import in every child and too big to preload for all, in groups (a name alone is a
    group of one): a program whose source names a group's first package is forked from a
    template of that group's, which has them imported (started on first use; the first group
    named wins; default :data:`DEFAULT_HEAVY`, NumPy and pytest: ``import numpy`` then costs
    nothing, a fork about 3 ms more).
    ``tmp_dir`` is where the workers' private temp dirs are made (default: the system's).
    ``pin``: each worker (its server, template and children) keeps to one core of those this
    process may use, while there is one per worker (:func:`worker_cpus`).
    ``start``: servers started now (default: all ``workers``); the others start when a job is
    submitted while every started one is busy, and retire after ``idle_seconds`` without a
    job, so a pool sized for bursts holds only what it uses.
    ``runtimes``: installed runtimes (absolute paths of interpreters or VMs: ``/usr/bin/node``)
    that jobs may execute (``Job.runtime``); the children may execute those files and no
    other (Landlock), once each (the one exec). A job naming another is not started. A
    mapping gives each the files it reads beyond the system's libraries (node's OpenSSL
    configuration), which the children may read too.
    """

    def __init__(
        self,
        workers: int | None = None,
        profile: str | os.PathLike[str] | Profile = DEFAULT_PROFILE,
        preload: Iterable[str] = (),
        heavy: Iterable[str | Iterable[str]] = DEFAULT_HEAVY,
        stack_mb: int = DEFAULT_STACK_MB,
        tmp_dir: str | os.PathLike[str] | None = None,
        pin: bool = True,
        start: int | None = None,
        idle_seconds: float = 120.0,
        runtimes: Iterable[str] | Mapping[str, Iterable[str]] = (),
    ) -> None:
        self.profile = profile if isinstance(profile, Profile) else load_profile(profile)
        self.runtimes = runtime_files(runtimes)
        self.size = max(1, workers or os.cpu_count() or 1)
        self._preload, self._stack_mb = list(preload), stack_mb
        self._heavy = [[group] if isinstance(group, str) else list(group) for group in heavy]
        self._server_profile = self._compile_profile()
        self.tmp_dir = None if tmp_dir is None else os.fspath(tmp_dir)
        self._queue: queue.SimpleQueue[tuple[Job, JobFuture, OnResult | None] | None]
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        self.restarts = 0
        self.retirements = 0  # workers replaced because their run dir could not be put back
        self.info: dict[str, Any] = {}
        self.cpus = worker_cpus(self.size) if pin else [None] * self.size
        self.idle_seconds = idle_seconds
        # Threads by slot (its CPU and name); those past the first ``start`` come and go.
        self._threads: dict[int, threading.Thread] = {}
        self._idle = 0  # threads not running a job (started, or between jobs)
        self._queued = 0  # jobs submitted and not yet taken by a thread
        lasting = self.size if start is None else min(self.size, max(0, start))
        # Start those servers now, in parallel, and fail fast in the caller if they cannot.
        starting = [self._spawn(index) for index in range(lasting)]
        workers = [worker.wait_ready() for worker in starting]
        if workers:
            self.info = dict(workers[0].info)
        with self._lock:
            for index, worker in enumerate(workers):
                self._add_thread(index, worker, lasting=True)
        _LIVE_POOLS.add(self)

    def _compile_profile(self) -> dict[str, Any]:
        """What each server is configured with: the profile, its seccomp filter compiled once
        here, and the runtimes."""
        return {**self.profile.to_dict(), "runtimes": self.runtimes}

    def _forget_parent(self) -> None:
        """In a child forked from the pool's process (a fork ``ProcessPoolExecutor``, as RL
        reward managers make per batch): the parent's threads do not exist here and its
        servers are the parent's, so the copy starts empty, with fresh locks and queue, and
        starts its own servers as jobs come (:meth:`_grow`). Without it a job queued here
        waited for threads that were never there."""
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads, self._idle, self._queued = {}, 0, 0

    def _spawn(self, index: int) -> JobChannel:
        return _Worker(
            self._server_profile,
            self._preload,
            self._stack_mb,
            self.tmp_dir,
            self._heavy,
            self.cpus[index],
        )

    def _new_worker(self, index: int) -> JobChannel:
        worker = self._spawn(index).wait_ready()
        if not self.info:  # a pool that started none up front: the first one's facts
            self.info = dict(worker.info)
        return worker

    def _add_thread(self, index: int, worker: JobChannel | None, lasting: bool) -> None:
        """Start slot ``index``'s thread (with ``_lock`` held); without a ``worker`` its
        server starts with its first job."""
        thread = threading.Thread(
            target=self._serve,
            args=(worker, index, lasting),
            name=f"sandbox-pool-{index}",
            daemon=True,
        )
        self._threads[index] = thread
        self._idle += 1  # until it takes a job (see _next)
        thread.start()

    def _grow(self) -> None:
        """One more thread when a queued job would find none free (with ``_lock`` held)."""
        if self._queued <= self._idle or len(self._threads) >= self.size:
            return
        index = next(i for i in range(self.size) if i not in self._threads)
        self._add_thread(index, None, lasting=False)

    # -- submitting -------------------------------------------------------------------------

    def submit(self, job: Job, on_result: OnResult | None = None) -> JobFuture:
        """Queue a job; the future resolves to its results. ``on_result`` enables early exit."""
        future = JobFuture()
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox pool is closed")
            self._queue.put((job, future, on_result))
            self._queued += 1
            self._grow()
        return future

    def run(self, job: Job, on_result: OnResult | None = None) -> JobResult:
        return self.submit(job, on_result).result()

    async def run_async(self, job: Job, on_result: OnResult | None = None) -> JobResult:
        """Await a job from asyncio code without blocking the event loop. Cancelling the
        awaiting task stops the job (:meth:`JobFuture.stop`): a caller that has gone away
        holds no worker."""
        future = self.submit(job, on_result)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.stop()
            raise

    def map(self, jobs: Iterable[Job]) -> Iterator[JobResult]:
        """Results in input order, computed in parallel."""
        futures = [self.submit(job) for job in jobs]
        for future in futures:
            yield future.result()

    # -- the worker threads -------------------------------------------------------------------

    def _next(self, index: int, lasting: bool) -> tuple[Job, JobFuture, OnResult | None] | None:
        """The next job, or None when the thread is to end: the pool closes, or (a thread
        that is not ``lasting``) no job came for ``idle_seconds``. The thread counts as idle
        (``_idle``) from its start and between jobs, so a job submitted before it first
        waits finds it and does not start another server."""
        while True:
            try:
                item = self._queue.get(timeout=None if lasting else self.idle_seconds)
            except queue.Empty:
                with self._lock:
                    if self._queued == 0:  # decided, and the slot freed, under the lock
                        self._idle -= 1
                        del self._threads[index]  # that submit grows by: no job is left
                        return None  # waiting for a thread that is leaving
                continue  # a job came as the wait ended: take it
            with self._lock:
                self._idle -= 1
                if item is not None:
                    self._queued -= 1
            return item

    def _serve(self, worker: JobChannel | None, index: int, lasting: bool = True) -> None:
        try:
            self._take_jobs(worker, index, lasting)
        finally:
            with self._lock:  # the slot may be another thread's already (see _next)
                if self._threads.get(index) is threading.current_thread():
                    del self._threads[index]

    def _take_jobs(self, worker: JobChannel | None, index: int, lasting: bool) -> None:
        while (item := self._next(index, lasting)) is not None:
            worker = self._take(worker, item, index)
            with self._lock:
                self._idle += 1
        if worker is not None:
            worker.close()

    def _take(self, worker: JobChannel | None, item, index: int) -> JobChannel | None:
        """Run one queued job and settle its future; the worker to use next (None: start a
        fresh one)."""
        job, future, on_result = item
        if not future.set_running_or_notify_cancel():
            return worker
        try:
            worker, result = self._run_job(worker, job, on_result, index, future)
            if future.stop_wanted:  # what ran before the stop is nobody's business
                future.set_exception(CancelledError())
            else:
                future.set_result(result)
        except _JobFailed as failed:
            worker = None  # closed by _run_job; a fresh one is started for the next job
            future.set_exception(failed.__cause__ or failed)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, never lost
            future.set_exception(exc)
            # The worker may be gone (closed by _run_job) or in an unknown state: never
            # reused (a dead one would fail every later job on this thread).
            if worker is not None:
                worker.close()
            worker = None
        finally:
            future._worker = None  # the job is over: its future holds no worker
        return worker

    def _run_job(
        self,
        worker: JobChannel | None,
        job: Job,
        on_result: OnResult | None,
        index: int,
        future: JobFuture | None = None,
    ):
        results: list[RunResult] = []
        restarts = start_failures = killed = retired = 0
        while True:
            if worker is None:
                try:
                    worker = self._new_worker(index)
                except WorkerDied:  # killed while starting (not the job's doing): try again
                    start_failures += 1
                    if start_failures > _MAX_START_FAILURES:
                        raise
                    continue
            done = len(results)
            part = job if done == 0 else replace(job, inputs=job.inputs[done:])
            if future is not None and future.stop_wanted:  # stopped while a server started
                return worker, JobResult(results, restarts + killed, job.limits)
            try:
                if future is not None:
                    future._worker = worker
                worker.run(part, on_result, results, future)
                return worker, JobResult(results, restarts + killed, job.limits)
            except BaseException as exc:
                if not isinstance(exc, WorkerDied):  # e.g. on_result raised: the server is
                    worker.close()  # mid-job, so it cannot be reused; the caller gets the error
                    raise _JobFailed(exc) from exc
                worker.close()
                code = worker.exit_code
                worker = None
                if future is not None and future.stop_wanted:  # nothing more is wanted
                    return worker, JobResult(results, restarts + killed, job.limits)
                if code == _RETIRED_EXIT and retired <= len(job.inputs):
                    retired += 1  # it retired after a test's result (or the last one): the
                    with self._lock:  # job goes on from there in a fresh worker, uncounted
                        self.retirements += 1
                    continue
                outside = code in (-signal.SIGKILL, _TEMPLATE_GONE_EXIT)
                with self._lock:
                    self.restarts += 1
                killed += outside
                restarts += not outside
                if restarts > _MAX_RESTARTS or killed > _MAX_OUTSIDE_KILLS:
                    # the program takes servers down (or something keeps killing them): report it
                    missing = len(job.inputs) - len(results)
                    results += [RunResult(status="worker_died") for _ in range(missing)]
                    return worker, JobResult(results, restarts + killed, job.limits)

    # -- shutting down --------------------------------------------------------------------------

    def close(self, cancel: bool = False) -> None:
        """Stop the servers and remove their temp dirs, after finishing queued jobs (or, with
        ``cancel``, cancelling those not started yet: their futures raise CancelledError)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if cancel:
                self._cancel_queued()
            threads = list(self._threads.values())
            # One end mark per thread; a thread that retires idle leaves its mark unread.
            for _ in threads:
                self._queue.put(None)
        for thread in threads:
            thread.join()

    def _cancel_queued(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                self._queued -= 1
                item[1].cancel()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
