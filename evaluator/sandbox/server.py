"""The fork server: ``python -I -m evaluator.sandbox.server`` (started by the pool).

One server runs one job at a time. It is a fresh interpreter (never a fork of the caller, so
it holds no expected outputs, secrets or caller threads), pre-imports the modules solutions
commonly use, builds the confinement once (seccomp BPF, Landlock ruleset, empty network
namespace), then forks a child per test (isolation ``test``) or per submission (isolation
``submission``). Each child confines itself and runs the in-sandbox harness
(:mod:`evaluator.harness.child`); the server watches its CPU and wall time, reaps it with
``wait4`` (exact peak memory) and streams one result frame per test back to the pool.

Protocol on the server's stdin/stdout, as :mod:`evaluator.sandbox.wire` frames:
config JSON -> ``ready`` JSON; then per job: job JSON -> per test (header JSON, stdout bytes,
stderr bytes) [-> ack ``1``/``0`` when the job asks for early exit] ... -> ``{"done": true}``.
"""

from __future__ import annotations

import _signal
import base64
import fcntl
import gc
import json
import math
import os
import resource
import select
import signal
import sys
import threading
import time
from typing import Any

from evaluator.harness import child as harness
from evaluator.sandbox import kernel
from evaluator.sandbox.wire import FrameReader, frames_end, write_frames

PRELOAD = [
    "array",
    "bisect",
    "collections",
    "copy",
    "datetime",
    "decimal",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "numbers",
    "operator",
    "queue",
    "random",
    "re",
    "statistics",
    "string",
    "threading",
    "time",
    "typing",
]
_STDERR_KEEP = 16 << 10  # keep the end of stderr, where the traceback is
_HIGH_FD = 200  # server-held fds live above the child's fixed layout


def _ensure_stack(stack_mb: int) -> None:
    """The main thread's stack can only grow as far as RLIMIT_STACK allowed at exec time, so
    raise it and re-exec once: deep recursion then works in the program's main thread."""
    want = stack_mb << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


class _Child:
    """A running sandbox child and the server's ends of its pipes. (A plain class: the
    server avoids ``dataclasses``, which imports ``inspect``: memory every fork pays for.)"""

    __slots__ = (
        "pid",
        "pidfd",
        "status_r",
        "ctrl_w",
        "nonce",
        "poller",
        "buffer",
        "marks",
        "clock",
    )

    def __init__(self, pid: int, status_r: int, ctrl_w: int | None, nonce: str) -> None:
        self.pid, self.status_r, self.ctrl_w, self.nonce = pid, status_r, ctrl_w, nonce
        self.pidfd = os.pidfd_open(pid)
        self.poller = select.poll()
        self.poller.register(status_r, select.POLLIN)
        self.poller.register(self.pidfd, select.POLLIN)
        self.buffer = bytearray()  # report bytes read but not used yet (a batch runs ahead)
        # (CPU from the kernel, wall) when report bytes last arrived: an upper bound on where the
        # next test started, so the watchdog never charges a test for an earlier one.
        self.marks = (0.0, time.monotonic())
        # The child's process CPU clock (what glibc's clock_getcpuclockid(pid) returns: Linux
        # encodes the pid as ~pid << 3, CPUCLOCK_SCHED = 2): all its threads, nanoseconds,
        # a sixth of the cost of parsing /proc/<pid>/stat.
        self.clock = ((~pid) << 3) | 2

    def cpu(self) -> float:
        """User plus system CPU of the child's whole thread group, from the kernel (the
        program cannot forge it); 0.0 once it is gone."""
        try:
            return time.clock_gettime(self.clock)
        except OSError:
            return 0.0


class Server:
    def __init__(self, config: dict[str, Any], requests: FrameReader, resp_fd: int) -> None:
        self.requests, self.resp_fd = requests, resp_fd
        self.tmp_root: str = config["tmp_root"]
        self.profile: dict[str, Any] = config["profile"]
        self.run_dir = os.path.join(self.tmp_root, "run")  # reused, emptied after each child
        os.mkdir(self.run_dir, 0o700)
        self.info: dict[str, Any] = {"pid": os.getpid(), "profile": self.profile.get("name")}
        self._preload(config.get("preload", []))
        self.bpf = self._seccomp()
        self.ruleset_fd = self._landlock()
        self.info["network_namespace"] = bool(
            self.profile.get("network_namespace") and os.geteuid() == 0 and kernel.unshare_network()
        )
        self.drop_caps = bool(self.profile.get("drop_capabilities")) and os.geteuid() == 0
        # Memfds kept between jobs (creating and closing seven per submission showed up in
        # profiles) and one read buffer: written into, never reallocated, so after a fork only
        # the page a report lands on is copied. It is zeroed after each read: every later child
        # inherits this memory, and a report holds a program's output.
        self.spare_memfds: list[int] = []
        self.inbox = bytearray(_INBOX)
        kernel.set_child_subreaper()
        sys.set_int_max_str_digits(0)  # big integers print, as on contest judges (documented)
        sys.setrecursionlimit(10**6)  # the stack is large; the program may lower it
        # Threads would otherwise reserve RLIMIT_STACK (1 GiB) each, counted by RLIMIT_DATA.
        threading.stack_size(8 << 20)
        harness.install_audit_hook()
        self._child_environment()
        gc.collect()
        gc.freeze()  # keep the children's GC off the server's pages: fewer copy-on-write faults

    # -- start-up -------------------------------------------------------------------------

    def _preload(self, extra: list[str]) -> None:
        for name in PRELOAD + list(extra):
            try:
                __import__(name)
            except ImportError:
                pass

    def _seccomp(self) -> kernel.SeccompProgram | None:
        """The filter arrives compiled by the pool (no libseccomp in this lean process)."""
        bpf = self.profile.get("seccomp_bpf")
        return kernel.SeccompProgram(base64.b64decode(bpf)) if bpf else None

    def _child_environment(self) -> None:
        """What every child gets, set once here rather than after each fork (work in a child
        touches pages, and each touched page is a copy-on-write fault): the run dir as working
        and temp directory, single-threaded BLAS."""
        os.chdir(self.run_dir)
        os.environ.update(
            HOME=self.run_dir, TMPDIR=self.run_dir, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"
        )
        if "tempfile" in sys.modules:  # its cached default dir would be /tmp
            sys.modules["tempfile"].tempdir = self.run_dir

    def _landlock(self) -> int | None:
        abi = kernel.landlock_abi() if self.profile.get("landlock") else 0
        self.info["landlock_abi"] = abi
        if not abi:
            return None
        created = kernel.landlock_create_ruleset(abi)
        ruleset = fcntl.fcntl(created, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD + 100)
        os.close(created)
        for path in self.profile.get("readable", []):
            kernel.landlock_allow(ruleset, path, kernel.FS_READ)
        for path in ("/dev/null", "/dev/zero", "/dev/full"):
            if os.path.exists(path):
                kernel.landlock_allow(ruleset, path, kernel.FS_READ | kernel.FS_WRITE_FILE)
        kernel.landlock_allow(ruleset, self.tmp_root, kernel.fs_rights(abi))
        return ruleset

    # -- serving --------------------------------------------------------------------------

    def serve(self) -> None:
        write_frames(self.resp_fd, json.dumps({"ready": True, **self.info}).encode())
        while (frame := self.requests.read_frame()) is not None:
            self.run_job(json.loads(frame))
            if self._reap_orphans():  # a descendant outlived its child: it may hold memfds
                self._drop_spare_memfds()
        _remove_tree(self.tmp_root)

    def run_job(self, job: dict[str, Any]) -> None:
        program = harness.compile_program(job["code"])
        if job.get("tests_code") is not None:
            if not isinstance(program, str):
                header, out, err = self._run_split(job, program)
                if header.get("status") != "unsplittable":
                    write_frames(self.resp_fd, json.dumps(header).encode(), out, err)
                    if job.get("early_exit"):
                        self.requests.read_frame()  # the ack; there is no test after this one
                    write_frames(self.resp_fd, b'{"done": true}')
                    return
            # A syntax error, or tests that pass the candidate something that cannot cross
            # processes: run them joined, in one module, as HumanEval's own harness does.
            job = {**job, "code": job["code"] + "\n\n" + job["tests_code"] + "\n"}
            program = harness.compile_program(job["code"])
        inputs: list[str] = job["inputs"]
        fds = self._take_memfds(3)
        if job.get("isolation") == "submission" and not isinstance(program, str) and inputs:
            try:
                self._run_batch(job, program, fds)
            finally:
                self._give_memfds(fds)
            write_frames(self.resp_fd, b'{"done": true}')
            return
        try:
            for text in inputs:
                if isinstance(program, str):  # syntax error: no need to run anything
                    header, out, err = (
                        {"status": "compile", "exception": "SyntaxError"},
                        b"",
                        program.encode(),
                    )
                else:
                    header, out, err = self._run_test(job, program, fds, text)
                write_frames(self.resp_fd, json.dumps(header).encode(), out, err)
                if job.get("early_exit") and self.requests.read_frame() != b"1":
                    break
        finally:
            self._give_memfds(fds)
        write_frames(self.resp_fd, b'{"done": true}')

    def _run_test(self, job, program, fds, text):
        """One test in a fresh child (isolation ``test``)."""
        limits = job["limits"]
        stdin_fd, stdout_fd, stderr_fd = fds
        os.ftruncate(stdin_fd, 0)  # stdout/stderr were emptied when last read
        data = text.encode("utf-8", "surrogateescape")
        if data:
            os.pwrite(stdin_fd, data, 0)
        child = self._spawn(job, program, fds, 1, False)
        start_wall = time.monotonic()
        report, limit = self._await_report(child, limits, start_wall, 0.0)
        wall = time.monotonic() - start_wall
        status, usage = self._finish(child, kill=True)
        header = _from_exit(report, status)
        header["cpu_time"] = usage.ru_utime + usage.ru_stime
        header["peak_memory_kb"] = usage.ru_maxrss
        header["wall_time"] = wall
        header["limit"] = limit or _limit_from(header, limits)
        out, err = _read_output(stdout_fd, limits), _read_output(stderr_fd, limits)
        header["stdout_truncated"] = len(out) >= limits["output_bytes"]
        header["stderr_truncated"] = len(err) > _STDERR_KEEP
        return header, out, err[-_STDERR_KEEP:]

    def _run_batch(self, job, program, fds) -> None:
        """Isolation ``submission``: one child runs the tests without waiting for the server
        between them. Inputs travel through a ring of stdin memfds the server keeps filled
        ahead of the child; the child reads its own output after each test and sends it with
        its report. Streams one result per test; a child that dies mid-test is replaced for
        the tests after it; early exit stops (and kills) it."""
        first = 0
        while first is not None and first < len(job["inputs"]):
            first = self._run_batch_child(job, program, fds, first)

    def _run_batch_child(self, job, program, fds, first: int) -> int | None:
        """Run tests ``first...`` in one child; the test to go on from, or None to stop."""
        limits, inputs = job["limits"], job["inputs"]
        todo = inputs[first:]
        ring = self._take_memfds(min(len(todo), RING_SLOTS))
        child: _Child | None = None
        try:
            for slot, fd in enumerate(ring):
                _fill(fd, todo[slot])
            job_rest = {**job, "inputs": todo}
            child = self._spawn(job_rest, program, fds, len(todo), True, ("run", *ring))
            os.write(child.ctrl_w, b"".join(i.to_bytes(4, "big") for i in range(len(ring))))
            for index in range(len(todo)):
                start_cpu, start_wall = child.marks
                report, limit = self._await_report(child, limits, start_wall, start_cpu, frames=3)
                if report is None:  # killed or died mid-test: the kernel tells what happened
                    header, out, err = self._batch_loss(
                        child, fds, limits, limit, start_cpu, start_wall
                    )
                    child = None
                else:
                    header, out, err = _batch_header(report, limits, start_wall)
                    after = index + len(ring)
                    if after < len(todo):  # the child is done with this slot: refill it
                        _fill(ring[index % len(ring)], todo[after])
                        os.write(child.ctrl_w, after.to_bytes(4, "big"))
                write_frames(self.resp_fd, json.dumps(header).encode(), out, err)
                if job.get("early_exit") and self.requests.read_frame() != b"1":
                    return None
                if child is None:
                    return first + index + 1
            return None
        finally:
            if child is not None:
                self._finish(child, kill=True)
            self._give_memfds(ring)

    def _batch_loss(self, child, fds, limits, limit, start_cpu, start_wall):
        """A batch child that died or was killed mid-test: the kernel tells how, and the
        stdio memfds still hold what the test wrote (the child empties them per report)."""
        status, usage = self._finish(child, kill=True)
        header = _from_exit(None, status)
        header["cpu_time"] = max(0.0, usage.ru_utime + usage.ru_stime - start_cpu)
        header["peak_memory_kb"] = usage.ru_maxrss
        header["wall_time"] = time.monotonic() - start_wall
        header["limit"] = limit or _limit_from(header, limits)
        out, err = _read_output(fds[1], limits), _read_output(fds[2], limits)
        header["stdout_truncated"] = len(out) >= limits["output_bytes"]
        header["stderr_truncated"] = len(err) > _STDERR_KEEP
        return header, out, err[-_STDERR_KEEP:]

    def _run_split(self, job, program):
        """An assertion test in two processes: the candidate serves calls, a second child runs
        the problem's trusted code and ``check`` over plain data (see harness.run_check)."""
        limits = job["limits"]
        support = harness.compile_program(job.get("support_code") or "")
        tests = harness.compile_program(job["tests_code"])
        if isinstance(tests, str):
            return {"status": "bad_input", "exception": "the tests do not compile"}, b"", b""
        calls_r, calls_w = os.pipe2(os.O_CLOEXEC)
        replies_r, replies_w = os.pipe2(os.O_CLOEXEC)
        own = [os.memfd_create(name, os.MFD_CLOEXEC) for name in ("stdin", "stdout", "stderr")]
        theirs = [os.memfd_create(name, os.MFD_CLOEXEC) for name in ("stdin", "stdout", "stderr")]
        start_wall = time.monotonic()
        try:
            candidate = self._spawn(job, program, own, 1, False, ("serve", calls_r, replies_w))
            checks = (None if isinstance(support, str) else support, tests)
            judge = self._spawn(job, checks, theirs, 1, False, ("check", replies_r, calls_w))
        finally:
            for fd in (calls_r, calls_w, replies_r, replies_w):
                os.close(fd)
        try:
            report, limit = self._await_report(judge, limits, start_wall, 0.0, candidate)
            wall = time.monotonic() - start_wall
            status, usage = self._finish(candidate, kill=True)
            _, judge_usage = self._finish(judge, kill=True)
            out = _read_output(own[1], limits)
            err = _read_output(own[2], limits) + _read_output(theirs[2], limits)
        finally:
            for fd in own + theirs:
                os.close(fd)
        if report is None or report.get("status") == "program_gone":  # the candidate's end tells
            header = _from_exit(None, status)
            if "exit_code" in header:
                header["status"] = "exit"
        else:
            header = _from_exit(report, status)
        header["cpu_time"] = sum(u.ru_utime + u.ru_stime for u in (usage, judge_usage))
        header["peak_memory_kb"] = usage.ru_maxrss
        header["wall_time"] = wall
        header["limit"] = limit or _limit_from(header, limits)
        header["stdout_truncated"] = len(out) >= limits["output_bytes"]
        header["stderr_truncated"] = len(err) > _STDERR_KEEP
        return header, out, err[-_STDERR_KEEP:]

    def _clean_run_dir(self) -> None:
        """Empty the run dir (always listed: a coarse mtime can miss a quick change)."""
        _clear_dir(self.run_dir)

    def _spawn(self, job, program, fds, tests: int, batch: bool, role=("run",)) -> _Child:
        status_r, status_w = os.pipe2(os.O_CLOEXEC)
        ctrl_r, ctrl_w = os.pipe2(os.O_CLOEXEC) if batch else (None, None)
        # The report key travels in a list the child empties: no frame keeps it in a local.
        key = [os.urandom(16).hex()]
        # fds 0-2: stdin/stdout/stderr memfds, 3: reports; submission isolation adds
        # 4: test indices, 5-7: spare copies of 0-2 (a test may close them), 8...: stdin
        # ring; a split assertion test adds 4: calls in, 5: calls out. Duplicated above the
        # child's range here, before the fork, so the child only moves them down.
        layout = [*fds, status_w] + ([ctrl_r, *fds] if ctrl_r is not None else [])
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD) for fd in layout + list(role[1:])]
        rlimits = _rlimits(job["limits"], tests)
        pid = kernel.fork_lean()
        if pid == 0:  # pragma: no cover - runs in the child, reported through fd 3
            self._child(job, program, high, rlimits, key, role[0])
        for fd in high:
            os.close(fd)
        os.close(status_w)
        if ctrl_r is not None:
            os.close(ctrl_r)
        return _Child(pid, status_r, ctrl_w, key[0])

    def _child(self, job, program, high: list[int], rlimits, key: list[str], role: str):
        code = 70
        try:
            os.setsid()  # own process group: the server kills the whole group
            kernel.set_parent_death_signal(_SIGKILL)
            for sig in _DEFAULT_SIGNALS:
                _signal.signal(sig, _signal.SIG_DFL)  # not signal.signal: its enum wrapping
                # touches ~100 pages, each a copy-on-write fault
            if "random" in sys.modules:  # fork_lean skipped random's own reseed
                sys.modules["random"].seed()
            for target, fd in enumerate(high):
                os.dup2(fd, target)  # dup2 clears close-on-exec on the copy
            keep = len(high)
            for which, pair in rlimits:
                resource.setrlimit(which, pair)
            harness.arm_reports(key.pop())
            self._confine()
            os.closerange(keep, 1 << 16)
            code = 0
            mode, func, pre = job["mode"], job.get("func_name"), job.get("preamble", True)
            if role == "serve":
                harness.serve_calls(job["code"], program, func or "", pre)
                return
            if role == "check":
                harness.send_report(harness.run_check(*program, func or ""))
                return
            if len(high) == 4:  # one test
                text = _read_input() if mode == "call" else ""
                harness.send_report(harness.run_test(job["code"], program, mode, func, text, pre))
            else:
                self._run_tests_in_child(job, program, len(high) - 8)
        except BaseException as exc:  # noqa: BLE001 - sandbox set-up failed: say why on stderr
            try:
                os.write(2, f"sandbox: {type(exc).__name__}: {exc}\n".encode())
            except OSError:
                pass
        finally:
            os._exit(code)

    def _run_tests_in_child(self, job, program, ring: int) -> None:
        """A batch child's loop: the server sends each test's index on fd 4 once its input is
        in ring slot ``8 + index % ring``; the report carries the test's output and its CPU
        time and peak memory as this process measures them."""
        mode, func, pre = job["mode"], job.get("func_name"), job.get("preamble", True)
        limits = job["limits"]
        last = len(job["inputs"]) - 1
        while len(raw := os.read(4, 4)) == 4:
            index = int.from_bytes(raw, "big")
            if index:
                _clear_dir(self.run_dir)
            os.dup2(8 + index % ring, 0)
            os.dup2(6, 1)  # 5-7 hold spare copies of the stdio memfds (a test may close 1, 2)
            os.dup2(7, 2)
            text = _read_input() if mode == "call" else ""
            before = resource.getrusage(resource.RUSAGE_SELF)
            report = harness.run_test(job["code"], program, mode, func, text, pre)
            after = resource.getrusage(resource.RUSAGE_SELF)
            report["cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            report["maxrss"] = after.ru_maxrss
            out, err = _read_output(6, limits), _read_output(7, limits)
            report["truncated"] = [len(out) >= limits["output_bytes"], len(err) > _STDERR_KEEP]
            harness.send_report(report, out, err[-_STDERR_KEEP:])
            if index == last:
                return

    def _confine(self) -> None:
        if self.ruleset_fd is not None or self.bpf is not None:
            kernel.set_no_new_privs()
        if self.ruleset_fd is not None:
            kernel.landlock_restrict_self(self.ruleset_fd)
        if self.drop_caps:
            kernel.drop_capabilities()
        if self.bpf is not None:
            kernel.load_seccomp_bpf(self.bpf)  # last: it forbids some of the calls above

    def _await_report(
        self, child: _Child, limits, start_wall: float, start_cpu: float, partner=None, frames=1
    ):
        """Wait for the child's report on fd 3 (a JSON header, and with ``frames=3`` the
        test's stdout and stderr) while enforcing the CPU limit (the child's CPU clock,
        unforgeable; with ``partner``, the candidate of a split test, the two together) and
        the wall-clock backstop. Returns (report, limit hit)."""
        cpu_limit = limits["cpu_time"]
        wall_limit = limits["wall_time"] or 2 * cpu_limit + 1.0
        tick = min(0.1, max(0.01, cpu_limit / 10))
        poller = child.poller
        exited = False
        while True:
            report = self._take_report(child, frames)
            if report is not None:
                return report, None
            left = start_wall + wall_limit - time.monotonic()
            if left <= 0:
                self._kill(child, partner)
                return None, "wall"
            events = dict(poller.poll(min(left, tick) * 1000))
            if child.status_r in events:
                size = os.readv(child.status_r, [self.inbox])
                if size:
                    child.buffer += memoryview(self.inbox)[:size]
                    self.inbox[:size] = _ZEROS[:size]
                    if frames > 1:
                        child.marks = (child.cpu(), time.monotonic())
                    continue
                poller.unregister(child.status_r)  # EOF: only the exit is left to see
            if child.pidfd in events or exited:
                exited = True
                poller.unregister(child.pidfd) if child.pidfd in events else None
                if child.status_r not in events:
                    return None, None
                continue
            if not events and _cpu(child, partner) - start_cpu > cpu_limit:
                self._kill(child, partner)
                return None, "cpu"

    def _take_report(self, child: _Child, frames: int):
        """The next signed report in the child's buffer (with its ``frames - 1`` data
        frames), skipping frames the program wrote itself; None until one is complete."""
        buffer = child.buffer
        while (end := frames_end(buffer, 1)) is not None:
            report = self._check_report(bytes(buffer[4:end]), child)
            if report is None:
                del buffer[:end]
                continue
            if frames == 1:
                del buffer[:end]
                return report
            total = frames_end(buffer, frames)
            if total is None:
                return None
            out_end = frames_end(buffer, 2)
            out, err = bytes(buffer[end + 4 : out_end]), bytes(buffer[out_end + 4 : total])
            del buffer[:total]
            return report, out, err
        return None

    @staticmethod
    def _check_report(frame: bytes, child: _Child) -> dict[str, Any] | None:
        """The harness's report, or None for a frame the program wrote on fd 3 itself (it
        lacks the run's key): ignored, so it can neither pass a test nor shift the reports
        of the tests after it."""
        try:
            report = json.loads(frame)
        except ValueError:
            return None
        if not isinstance(report, dict) or report.pop("key", None) != child.nonce:
            return None
        return report

    @staticmethod
    def _kill(*children: _Child | None) -> None:
        for child in children:
            if child is None:
                continue
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _finish(self, child: _Child, kill: bool) -> tuple[int, Any]:
        if kill:
            self._kill(child)
        _, status, usage = os.wait4(child.pid, 0)
        for fd in (child.pidfd, child.status_r, child.ctrl_w):
            if fd is not None:
                os.close(fd)
        self._clean_run_dir()
        return status, usage

    def _take_memfds(self, count: int) -> list[int]:
        spare = self.spare_memfds
        taken = [spare.pop() for _ in range(min(count, len(spare)))]
        return taken + [os.memfd_create("io", os.MFD_CLOEXEC) for _ in range(count - len(taken))]

    def _give_memfds(self, fds: list[int]) -> None:
        """Back to the spares, emptied (a killed test may have left output behind) and with
        their status flags reset (a program may have set O_APPEND on the shared description).
        Only this server holds them now: every child of the job has been reaped."""
        for fd in fds:
            os.ftruncate(fd, 0)
            fcntl.fcntl(fd, fcntl.F_SETFL, 0)
        self.spare_memfds += fds

    def _drop_spare_memfds(self) -> None:
        for fd in self.spare_memfds:
            os.close(fd)
        self.spare_memfds = []

    @staticmethod
    def _reap_orphans() -> bool:
        """Reap descendants that outlived their child (re-parented here: the server is a
        subreaper; only profiles that allow processes have any). True if some still run."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True


_INBOX = 256 << 10
_ZEROS = memoryview(bytes(_INBOX))
# Stdin memfds a batch child may run ahead on: a typical submission needs no refill, and
# early exit still stops the child within one acknowledgement, however far ahead it is.
RING_SLOTS = 16
_DEFAULT_SIGNALS = tuple(
    int(s) for s in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM)
)


_SIGKILL = int(signal.SIGKILL)


def _rlimits(limits: dict[str, Any], tests: int) -> list[tuple[int, tuple[int, int]]]:
    """A child's resource limits, worked out in the server before the fork (each object the
    child touches costs it a copy-on-write fault): CPU for all its tests plus a second (the
    watchdog enforces each test's own), memory, output size, open files, no core dumps."""
    cpu = math.ceil(limits["cpu_time"] * tests) + 1
    memory = limits["memory_mb"] << 20
    size = limits["output_bytes"]
    files = max(int(limits["open_files"]), 16)
    return [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_DATA, (memory, memory)),
        (resource.RLIMIT_FSIZE, (size, size)),
        (resource.RLIMIT_NOFILE, (files, files)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]


def _fill(fd: int, text: str) -> None:
    os.ftruncate(fd, 0)
    data = text.encode("utf-8", "surrogateescape")
    if data:
        os.pwrite(fd, data, 0)


def _from_exit(report: dict[str, Any] | None, status: int) -> dict[str, Any]:
    """The header of a child that ended: its report if it sent one, else how it died."""
    header = dict(report) if report is not None else {"status": "lost"}
    if report is None:
        if os.WIFSIGNALED(status):
            header["signal"] = os.WTERMSIG(status)
        elif os.WIFEXITED(status):
            header["exit_code"] = os.WEXITSTATUS(status)
    if header.get("status") == "ok":
        header.setdefault("exit_code", 0)
    return header


def _batch_header(report, limits, start_wall):
    """A batch child's report (header, stdout, stderr frames) as the pool's header. CPU time
    and peak memory are the child's own measurements (the watchdog bounds the CPU time)."""
    fields, out, err = report
    header = dict(fields)
    header["cpu_time"] = header.pop("cpu", 0.0)
    header["peak_memory_kb"] = header.pop("maxrss", 0)
    truncated = header.pop("truncated", (False, False))
    if header.get("status") == "ok":
        header.setdefault("exit_code", 0)
    header["wall_time"] = time.monotonic() - start_wall
    header["limit"] = _limit_from(header, limits)
    header["stdout_truncated"], header["stderr_truncated"] = bool(truncated[0]), bool(truncated[1])
    return header, out, err


def _limit_from(header: dict[str, Any], limits: dict[str, Any]) -> str | None:
    sig = header.get("signal")
    if sig == signal.SIGXCPU or header["cpu_time"] > limits["cpu_time"]:
        return "cpu"
    if sig == signal.SIGXFSZ:
        return "output"
    if (
        header.get("exception") == "MemoryError"
        or header["peak_memory_kb"] >= limits["memory_mb"] << 10
    ):
        return "memory"
    return None


def _read_output(fd: int, limits: dict[str, Any]) -> bytes:
    """What the test wrote on a memfd, which is then emptied for the next test."""
    size = min(os.fstat(fd).st_size, limits["output_bytes"])
    if not size:
        return b""
    data = os.pread(fd, size, 0)
    os.ftruncate(fd, 0)
    return data


def _cpu(child: _Child, partner: _Child | None) -> float:
    return child.cpu() + (partner.cpu() if partner is not None else 0.0)


def _read_input() -> str:
    size = os.fstat(0).st_size
    return os.pread(0, size, 0).decode("utf-8", "surrogateescape") if size else ""


def _clear_dir(path: str) -> None:
    """Remove what is inside ``path`` (not following symlinks); errors are ignored."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                _remove_tree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def _remove_tree(path: str) -> None:
    """``shutil.rmtree`` without importing shutil (and its compression modules)."""
    _clear_dir(path)
    try:
        os.rmdir(path)
    except OSError:
        pass


def main() -> None:
    stack_mb = int(sys.argv[sys.argv.index("--stack-mb") + 1]) if "--stack-mb" in sys.argv else 1024
    _ensure_stack(stack_mb)
    req_fd, resp_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    requests = FrameReader(req_fd, scrub=True)  # jobs hold code: none left for later children
    config = requests.read_frame()
    if config is None:
        return
    Server(json.loads(config), requests, resp_fd).serve()


if __name__ == "__main__":
    main()
