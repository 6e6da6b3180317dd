"""The pool daemon behind :class:`~evaluator.sandbox.shared_pool.SharedSandboxPool`: one
:class:`~evaluator.sandbox.pool.SandboxPool` serving jobs to every process of its user over
a Unix socket.

Started as ``python -I -c ... <import path> <settings JSON>`` by the first process that
needs it (:mod:`evaluator.sandbox.shared_pool`), it forks once so that it is nobody's child,
starts its pool (one fork server now, one per core as jobs overlap), listens, says ``ready``
on its standard output and closes it. Each connection is served by a thread of its own:

* the hello: a frame with the pool's facts (its ``info``, ``workers``, the ``daemon_pid``);
* then, as a fork server: a job's JSON (and its program file's frame), each test's report as
  it comes (header, value, stdout, stderr; :mod:`evaluator.sandbox.reports`), an empty frame
  at the job's end; a stop frame mid-job stops it, one between jobs is dropped.

A connection of another user is closed at once. With no connection for ``idle_seconds`` the
daemon removes its socket (holding the start lock, so that it never removes a successor's) and
exits, stopping its servers; it exits too, within a second, when its socket is removed (its
directory cleaned up), since no one can reach it then.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import socket
import struct
import sys
import threading
import time
import traceback
from concurrent.futures import CancelledError, Future
from typing import Any

from evaluator.sandbox import pool as pool_module
from evaluator.sandbox import reports
from evaluator.sandbox.jobs import Job, JobResult, RunResult
from evaluator.sandbox.pool import JobFuture, SandboxPool
from evaluator.sandbox.wire import STOP, FrameReader, write_frames

_PEER = struct.Struct("3i")  # SO_PEERCRED: pid, uid, gid


def main() -> None:
    settings = json.loads(sys.argv[2])
    if os.fork() > 0:  # the starter reaps this process; the daemon is nobody's child
        os._exit(0)
    pool_module.SERVER_PATH = settings["server_path"]
    pool = SandboxPool(
        workers=settings["workers"],
        profile=settings["profile"],
        preload=settings["preload"],
        heavy=settings["heavy"],
        stack_mb=settings["stack_mb"],
        tmp_dir=settings["tmp_dir"],
        start=1,
        runtimes=settings["runtimes"],
    )
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    listener.bind(settings["socket"])
    os.chmod(settings["socket"], 0o600)
    listener.listen(128)
    os.write(1, b"ready %d\n" % os.getpid())
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # the starter's pipe: closed, so it reads the end
    os.close(devnull)
    try:
        Daemon(pool, listener, settings).serve()
    finally:
        pool.close(cancel=True)


def _file_id(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


class Daemon:
    """Accepts connections and serves each in a thread until idle."""

    def __init__(self, pool: SandboxPool, listener: socket.socket, settings: dict[str, Any]):
        self.pool, self.listener, self.settings = pool, listener, settings
        self.idle_seconds = float(settings["idle_seconds"])
        self._lock = threading.Lock()
        self._connections = 0
        self._last_change = time.monotonic()

    def serve(self) -> None:
        socket_id = _file_id(self.settings["socket"])
        while True:
            if select.select([self.listener], [], [], 1.0)[0]:
                self._accept()
            elif _file_id(self.settings["socket"]) != socket_id:
                return  # removed (its directory cleaned up): no one can reach this daemon
            elif self._idle() and self._leave():
                return

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        _, uid, _ = _PEER.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEER.size))
        if uid != os.geteuid():  # the directory should have kept them out: never served
            conn.close()
            return
        with self._lock:
            self._connections += 1
        threading.Thread(target=self._serve_connection, args=(conn,), daemon=True).start()

    def _serve_connection(self, conn: socket.socket) -> None:
        try:
            Connection(conn, self.pool).serve()
        except Exception:  # noqa: BLE001 - one connection's trouble: logged, the daemon goes on
            traceback.print_exc()
        finally:
            conn.close()
            with self._lock:
                self._connections -= 1
                self._last_change = time.monotonic()

    def _idle(self) -> bool:
        with self._lock:
            return (
                self._connections == 0 and time.monotonic() - self._last_change >= self.idle_seconds
            )

    def _leave(self) -> bool:
        """Remove the socket and stop listening, unless a connection came meanwhile; under
        the start lock, so that a successor's socket is never the one removed."""
        with open(self.settings["lock"], "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if select.select([self.listener], [], [], 0)[0]:
                return False
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.settings["socket"])
            self.listener.close()
        return True


class Connection:
    """One client's connection: its jobs run in the pool one at a time, as in a server."""

    def __init__(self, conn: socket.socket, pool: SandboxPool) -> None:
        self.conn, self.pool = conn, pool
        self.frames = FrameReader(conn.fileno())
        # Writes come from the pool's threads (reports, a job's end) and this one; the socket
        # is closed under the same lock, so that a job ending after its client left never
        # writes to a descriptor number the next connection has been given.
        self._writing = threading.Lock()
        self._job: JobFuture | None = None  # the job in flight

    def serve(self) -> None:
        hello = {**self.pool.info, "workers": self.pool.size, "daemon_pid": os.getpid()}
        self._write(json.dumps(hello).encode())
        try:
            while (frame := self.frames.read_frame()) is not None:
                if frame == STOP:
                    self._stop()
                    continue
                wire = json.loads(frame)
                executable = self.frames.read_frame() if wire.get("executable") else None
                self._start(Job.from_wire(wire, executable))
        finally:
            self._stop()  # the client is gone: its program stops
            with self._writing:
                self.conn.close()

    def _write(self, *frames: bytes) -> None:
        """Frames to the client (called with ``_writing`` held, or before any job); OSError
        once it is gone or the connection closed."""
        fd = self.conn.fileno()
        if fd < 0:
            raise OSError("the connection is closed")
        write_frames(fd, *frames)

    def _stop(self) -> None:
        with self._writing:
            job = self._job
        if job is not None:
            job.stop()

    def _start(self, job: Job) -> None:
        sent = [0]

        def forward(index: int, result: RunResult) -> bool:
            sent[0] = index + 1
            return self._send(result)

        def finish(done: Future[JobResult]) -> None:
            try:
                runs = done.result().runs
            except CancelledError:
                runs = []
            except Exception:  # noqa: BLE001 - the pool broke: to the client, its server died
                traceback.print_exc()  # (it goes on from this test on a fresh connection)
                with contextlib.suppress(OSError):
                    self.conn.shutdown(socket.SHUT_RDWR)
                return
            for result in runs[sent[0] :]:  # tests the pool reported without a run
                self._send(result)  # (a server that kept dying: worker_died)
            with self._writing:
                self._job = None
                with contextlib.suppress(OSError):
                    self._write(b"")

        with self._writing:
            self._job = self.pool.submit(job, forward)
            running = self._job
        running.add_done_callback(finish)

    def _send(self, result: RunResult) -> bool:
        """One test's report to the client; False once it is gone (the job stops)."""
        head, value = reports.pack(_fields(result))
        try:
            with self._writing:
                self._write(head, value, result.stdout, result.stderr)
        except OSError:
            return False
        return True


def _fields(result: RunResult) -> dict[str, Any]:
    """A result's report fields (its output travels in frames of its own)."""
    fields = {
        name: getattr(result, name)
        for name in RunResult.__slots__
        if name not in ("stdout", "stderr")
    }
    if fields["limit"] is not None:
        fields["limit"] = str(fields["limit"])
    return fields
