"""The fork server: ``python -I -m evaluator.sandbox.server`` (started by the pool).

One server runs one job at a time. It is a fresh interpreter (never a fork of the caller, so
it holds no expected outputs, secrets or caller threads). It never forks a sandbox child
itself: it holds every job's code and every test's output, and a child forked from it could
read them in its memory. At start-up, before it reads any job, it forks the fork template
(:mod:`evaluator.sandbox.template`), which forks every child, as the server's child
(``CLONE_PARENT``). The server gives each child its descriptors and its brief (the code, the
mode, the limits) through the template, watches its CPU and wall time, reaps it with ``wait4``
(exact peak memory) and streams one result frame per test back to the pool. Children run a
test each (isolation ``test``) or a submission's tests one after another (``submission``).
A job with test files (``Job.input_file``/``output_file``) has the server, not the child,
empty the run directory before each test, write the test's input file there and, once the
test has ended, read its output file (a regular file only, never a link followed).

Protocol on the server's stdin/stdout, as :mod:`evaluator.sandbox.wire` frames:
config JSON -> ``ready`` JSON; then per job: job JSON -> per test (header and value, as
:mod:`evaluator.sandbox.reports` packs them, stdout bytes, stderr bytes) ... -> an empty
frame (the job is done). With early exit the pool may send ``0`` (stop) at any
time; the server never waits for it: it kills the test in flight and reports no more.
"""

from __future__ import annotations

import _socket
import array
import base64
import fcntl
import json
import marshal
import os
import re
import resource
import select
import signal
import sys
import termios
import time
import traceback
import types
import warnings
from typing import Any

from evaluator.sandbox import headers, kernel, reports, staging, template
from evaluator.sandbox.files import (
    CLEAR_ENTRIES,
    CLEAR_SECONDS,
    OVER_LIMIT,
    Marks,
    Unclean,
    clear_dir,
    fill,
    is_plain_name,
    is_relative_path,
    read_output,
    read_path,
    read_regular,
    remove_tree,
    tree_bytes,
    write_file,
    write_path,
)
from evaluator.sandbox.inside import harness
from evaluator.sandbox.jobs import DEFAULT_STACK_MB, wall_backstop
from evaluator.sandbox.wire import STOP, FrameReader, frames_end, split_frames, write_frames


def compile_program(code: str, filename: str) -> types.CodeType | str:
    """Compile once here, as ``filename`` (a plain run's code objects carry the script's
    absolute path); a syntax error comes back as its formatted text. Warnings (a
    ``SyntaxWarning``) are not for the server's stderr: they are off in this process
    (:meth:`Server.__init__`), which never runs a program."""
    try:
        return compile(code, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        return "".join(traceback.format_exception_only(type(exc), exc))


class TemplateGone(RuntimeError):
    """The fork template died: the server exits and the pool replaces the worker."""


TEMPLATE_GONE_EXIT = 75  # the server's exit status when its template died (killed from outside)


class Retire(RuntimeError):
    """The run dir (or a stdio memfd) could not be put back as made: the server exits after
    the results it has sent, and the pool replaces the worker (not the job's failure)."""


RETIRED_EXIT = 76  # the server's exit status when it retired


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
    """A running sandbox child, the server's ends of its pipes, and what it has reported.

    Its reports count in the number and order its harness sends them: one per test, carrying
    the test's number (``test``: the test in progress, counted from the child's first). A
    report for another test, a second one for a test, one sent before its test started, a
    status only the sandbox gives, or more bytes on the channel than a report holds, is a
    forgery (``forged`` says which): the program wrote it, with the harness's own sender or
    its key, which it can reach (see :mod:`evaluator.sandbox.reports`)."""

    __slots__ = (
        "pid",
        "pidfd",
        "status_r",
        "ctrl_w",
        "key",
        "poller",
        "buffer",
        "clock",
        "brief_fd",
        "statm",
        "held",
        "test",
        "taken",
        "forged",
        "statuses",
        "proc_status",
        "started",
        "exited",
        "eof",
        "drained",
        "queued",
    )

    def __init__(self, pid: int, status_r: int, ctrl_w: int | None, key: bytes, brief_fd: int):
        self.pid, self.status_r, self.ctrl_w, self.key = pid, status_r, ctrl_w, key
        self.statm: int | None = None  # /proc/<pid>/statm, for a child held to resident memory
        self.proc_status: int | None = None  # /proc/<pid>/status: a batch child's peak memory
        self.held = 0  # bytes it held (memory and files) when killed over the memory limit
        self.test, self.taken = 0, False  # the test in progress; whether it has reported
        self.started = True  # a test is in progress (a batch child's starts at its go-ahead)
        self.exited = self.eof = False  # seen: its exit; the end of its report channel
        self.drained = False  # both: nothing more can arrive
        # (start of the test in progress, its run-queue wait then): see _await_report
        self.queued: tuple[float, float] = (-1.0, 0.0)
        self.forged: str | None = None  # why a report on its channel was refused
        # the statuses its reports may give: a program's harness's (None: a trusted child's)
        self.statuses: frozenset[str] | None = reports.PROGRAM_STATUSES
        self.brief_fd = brief_fd  # the server's copy, back to the spares once the child is gone
        self.pidfd = os.pidfd_open(pid)
        self.poller = select.poll()
        self.poller.register(status_r, select.POLLIN)
        self.poller.register(self.pidfd, select.POLLIN)
        self.buffer = bytearray()  # report bytes read but not used yet
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

    def watch_resident(self) -> None:
        """Open the child's ``statm`` now, once: it reads the process's memory whatever it
        executes later (unmeasured, 0, if it cannot be opened)."""
        try:
            self.statm = os.open(f"/proc/{self.pid}/statm", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.statm = None

    def resident(self) -> int:
        """Bytes of the child's resident memory now (its RSS); 0 once it is gone."""
        if self.statm is None:
            return 0
        try:
            return int(os.pread(self.statm, 128, 0).split()[1]) * _PAGE  # type: ignore[arg-type]
        except (OSError, IndexError, ValueError):
            return 0

    def watch_peak(self) -> None:
        """Open the child's ``status`` now, as ``statm`` (a batch child's peak memory is read
        from it after each test; ``wait4`` gives it once the child has exited)."""
        try:
            self.proc_status = os.open(f"/proc/{self.pid}/status", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.proc_status = None

    def peak_kb(self) -> int:
        """The child's peak resident memory so far, in KB, as the kernel counts it (``VmHWM``:
        what ``wait4``'s ``ru_maxrss`` gives at its exit); its resident memory now when that
        cannot be read."""
        try:
            text = os.pread(self.proc_status, 4096, 0)  # type: ignore[arg-type]
            at = text.index(b"VmHWM:") + 6
            return int(text[at : text.index(b"kB", at)])
        except (OSError, TypeError, ValueError):
            return self.resident() >> 10


class Server:
    def __init__(
        self,
        config: dict[str, Any],
        requests: FrameReader,
        resp_fd: int,
        link: _socket.socket,
        template_info: dict[str, Any],
    ) -> None:
        self.requests, self.resp_fd, self.link = requests, resp_fd, link
        self.tmp_root: str = config["tmp_root"]
        self.run_dir = os.path.join(self.tmp_root, "run")  # reused: put back after each child
        # Test files are made and read through this descriptor: a program that renamed the
        # directory and left a symlink in its place cannot point the server elsewhere.
        self.run_fd = os.open(self.run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self.staged = 0  # bytes of the test's input file in the run dir (not the program's)
        self.script = os.path.join(self.run_dir, harness.SOURCE_NAME)  # the code's file name
        # where a program file's job puts its file, read-only to its children (template.py)
        self.program_dir = os.path.join(self.tmp_root, template.PROGRAM_DIR)
        self.runtimes: list[str] = list(config["profile"].get("runtimes") or [])
        self.info: dict[str, Any] = {"pid": os.getpid(), "profile": config["profile"].get("name")}
        self.info.update(template_info)
        self.template_pid: int = template_info["template_pid"]
        # Templates with packages too slow to import in each child, one per group (pool.py:
        # heavy), each forked by the first on the first job whose code names the group's
        # first package: a job goes to the first group it names.
        groups: list[list[str]] = config.get("heavy") or []
        self.heavy_triggers = [_names(group[0].split(".")[0]) for group in groups]
        self.heavy_links: dict[int, _socket.socket] = {}  # by group number, from 1
        self.heavy_pids: dict[int, int] = {}
        # Nothing a program can mark is reused from one child to the next as it left it: the
        # run dir's own attributes are put back (and checked) whenever it is emptied, a job's
        # stdio memfds are made for it, made again for each test of a fresh child per test, and
        # put back as made between the tests of a batch child (see _clean_run_dir, _put_input).
        self.run_marks = Marks(self.run_fd)
        # The children's /tmp (template._private_tmp), where the template could mount it:
        # emptied and counted with the run dir, the mount points it keeps for paths left in
        # the host's /tmp passed over.
        self.tmp_fd: int | None = None
        self.tmp_keep = frozenset(template_info.get("tmp_keep") or ())
        if template_info.get("private_tmp"):
            tmp_dir = os.path.join(self.tmp_root, template.TMP_DIR)
            self.tmp_fd = os.open(tmp_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            self.tmp_marks = Marks(self.tmp_fd)
        probe = os.memfd_create("io", os.MFD_CLOEXEC)
        self.stream_marks = Marks(probe, stream=True)
        os.close(probe)
        self.unused: set[int] = set()  # memfds made and not yet given to a child
        self.dirty = False  # a child may have written in the run dir since it was emptied
        self.unclean: str | None = None  # why the run dir could not be put back: retire
        self.clear_limits = (
            config.get("clear_entries", CLEAR_ENTRIES),
            config.get("clear_seconds", CLEAR_SECONDS),
        )
        self.files_held = 0  # the watchdog's last count of the run dir's files ...
        self.next_walk = 0.0  # ... and when it counts them again (see _holds)
        self.inbox = bytearray(_INBOX)  # one read buffer, written into, never reallocated
        self.done_sent = False  # the job's results ended with the last one's frames
        warnings.simplefilter("ignore")  # after the template's fork: children keep theirs
        kernel.set_child_subreaper()

    # -- serving --------------------------------------------------------------------------

    def serve(self) -> None:
        write_frames(self.resp_fd, json.dumps({"ready": True, **self.info}).encode())
        while (frame := self.requests.read_frame()) is not None:
            if frame == STOP:  # for a job already done: it stopped on its own
                continue
            job = json.loads(frame)
            if job.get("files"):  # decoded once: written again before each test
                job["files"] = {p: base64.b64decode(d) for p, d in job["files"].items()}
            if job.get("executable"):  # its file's bytes come in the next frame
                binary = self.requests.read_frame()
                if binary is None:
                    break
                self.run_program(job, binary)
            elif job.get("runtime"):
                self.run_program(job, None)
            else:
                self.run_job(job)
        for number, link in self.heavy_links.items():
            link.close()
            os.waitpid(self.heavy_pids[number], 0)
        self.link.close()  # the template sees the end of its socket and exits: reap it here,
        os.waitpid(self.template_pid, 0)  # so its CPU time reaches the pool's rusage
        # main() then removes the worker's directory (_leave_nothing), however serve ends

    def run_job(self, job: dict[str, Any]) -> None:
        job["heavy"] = self._heavy_group(job["code"])
        self._run_job(job)

    def run_program(self, job: dict[str, Any], binary: bytes | None) -> None:
        """A program file's job (``Job.executable``, a compiled binary), or an installed
        runtime's (``Job.runtime``, with its staged files): staged once for the job,
        read-only to its children; a fresh child per test executes it (a program runs once
        per input, whatever the isolation) with the test's input on fd 0. The verdict comes
        from the kernel: the exit status ``wait4`` gives and what it wrote."""
        try:
            if binary is not None:
                staging.clear(self.program_dir)  # a job cut short by a crash left it
                executable = staging.stage_program(self.program_dir, PROGRAM_NAME, binary)
            else:
                executable = self._stage_runtime(job)
        except (OSError, ValueError) as exc:  # a runtime the pool was not started with
            self._not_started(job, f"{type(exc).__name__}: {exc}")
            return
        fds = self._take_memfds(3)
        try:
            for text in job["inputs"]:
                frames = self._run_test(job, fds, text, executable)
                if frames is None:  # the pool asked to stop: this test is skipped
                    break
                self._send_result(*frames)
                if job.get("early_exit") and self._stop_asked():
                    break
        finally:
            os.close(executable)
            self._give_memfds(fds)
            staging.clear(self.program_dir)  # no later job may find it
        self._end_job()

    def _stage_runtime(self, job: dict[str, Any]) -> int:
        """A runtime job's files staged (read-only, root's) and its runtime opened for the
        children's exec; the descriptor. The runtime must be one the pool named: the
        children may execute no other file (Landlock)."""
        runtime = os.path.realpath(job["runtime"])
        if runtime not in self.runtimes:
            known = ", ".join(self.runtimes) or "none"
            raise ValueError(f"runtime {job['runtime']!r} is not one of this pool's ({known})")
        files = {p: base64.b64decode(d) for p, d in (job.get("program_files") or {}).items()}
        staging.clear(self.program_dir)  # a job cut short by a crash left its files
        staging.stage(self.program_dir, files)
        job["argv"] = [item.replace("{program}", self.program_dir) for item in job["argv"]]
        return os.open(runtime, os.O_RDONLY | os.O_CLOEXEC)

    def _not_started(self, job: dict[str, Any], why: str) -> None:
        """Every test of a job whose program could not be staged: not started, saying why."""
        for _ in job["inputs"]:
            header = {"status": "not_started", "exception": why[:300], "limit": None}
            self._send_result(*headers.with_frames(header, b"", b"", job["limits"]))
        self._end_job()

    def _run_job(self, job: dict[str, Any]) -> None:
        # Compiled once here; each child gets the code object marshalled in its brief (a
        # compile in every child cost ~200 copy-on-write faults, ~1 ms).
        program = job["program"] = compile_program(job["code"], self.script)
        if job.get("tests_code") is not None:
            if not isinstance(program, str):
                header, out, err = self._run_split(job)
                if header.get("status") != "unsplittable":
                    self._send_result(header, out, err)
                    self._end_job()
                    return
            # A syntax error, or tests that pass the candidate something that cannot cross
            # processes: run them joined, in one module.
            job = {**job, "code": job["code"] + "\n\n" + job["tests_code"] + "\n"}
            program = job["program"] = compile_program(job["code"], self.script)
        inputs: list[str] = job["inputs"]
        fds = self._take_memfds(3)
        batch = job.get("isolation") in ("submission", "adaptive")
        if batch and not isinstance(program, str) and inputs:
            self.done_sent = False
            try:
                self._run_batch(job, fds)
            finally:
                self._give_memfds(fds)
            if not self.done_sent:
                self._end_job()
            return
        try:
            for text in inputs:
                if isinstance(program, str):  # syntax error: no need to run anything
                    header, out, err = (
                        {"status": "compile", "exception": "SyntaxError", "exit_code": 1},
                        b"",
                        program.encode("utf-8", "backslashreplace"),
                    )
                else:
                    frames = self._run_test(job, fds, text)
                    if frames is None:  # the pool asked to stop: this test is skipped
                        break
                    header, out, err = frames
                self._send_result(header, out, err)
                if job.get("early_exit") and self._stop_asked():
                    break
        finally:
            self._give_memfds(fds)
        self._end_job()

    def _run_test(self, job, fds, text, executable=None):
        """One test in a fresh child (isolation ``test``). A stdin program's verdict comes
        from the kernel: what it wrote on fd 1 and the exit status ``wait4`` gives, once it
        has exited (its report only names an uncaught exception); other modes need the
        child's report of the returned value. With ``executable`` (the descriptor of a
        program file) the child executes it, held to resident memory (see _await_report)."""
        limits = job["limits"]
        script = job["mode"] == "stdin"
        self._put_input(job, fds, text)  # fresh stdio memfds, the input in place
        if executable is None:
            child = self._spawn(_brief(job, "run", count=1), fds, heavy=job["heavy"])
        else:
            brief = {"role": "exec", "limits": limits, "argv": job["argv"],
                     "env": job.get("program_environment") or {}}  # fmt: skip
            child = self._spawn(brief, fds, (executable,))
        start_wall = time.monotonic()
        # The test ends when the child has exited: a report counts only then, and only from
        # a child that exited cleanly (a program that reports and spins is a TLE).
        report, limit = self._await_report(
            child,
            limits,
            start_wall,
            0.0,
            until_exit=True,
            stop=job.get("early_exit"),
            fast=executable is not None,
        )
        wall = time.monotonic() - start_wall
        status, usage = self._finish(child, kill=True, clean=not _reads_back(job))
        if limit == "stop":
            self._clean_run_dir()
            return None
        forged = child.forged or _false_claim(job, report, text)
        if forged is not None:
            header = _forged_header(forged)
        elif executable is not None and report is not None:  # only before its exec: it failed
            header = {"status": "not_started", "exception": str(report.get("exception"))[:300]}
        elif script:
            header = headers.from_wait(report, status)
        else:
            header = headers.from_exit(report if _clean_exit(status) else None, status)
        header["cpu_time"] = usage.ru_utime + usage.ru_stime
        header["peak_memory_kb"] = max(usage.ru_maxrss, child.held >> 10)
        header["wall_time"] = wall
        header["limit"] = limit or headers.limit_from(header, limits)
        header, out, err = headers.with_output(header, fds, limits)
        if header["limit"] is None and headers.says_out_of_memory(err, job.get("memory_marks")):
            header["limit"] = "memory"
        return self._with_file_output(job, header, out, err, clean=True)

    def _run_batch(self, job, fds) -> None:
        """Isolation ``adaptive`` and ``submission``: one child runs the tests one after
        another (:mod:`evaluator.sandbox.inside.batch`). Each test's input enters the child
        only when that test starts: written into its stdin memfd after the previous test's
        report, then announced on the control pipe; so before a test starts nothing the
        program can reach holds its input. Streams one result per test; a child that dies
        mid-test, or that adaptive isolation ends, is replaced for the tests after it; early
        exit stops (and kills) it."""
        first = 0
        while first is not None and first < len(job["inputs"]):
            first = self._run_batch_child(job, fds, first)

    def _run_batch_child(self, job, fds, first: int) -> int | None:
        """Run tests ``first...`` in one child; the test to go on from, or None to stop."""
        limits, todo = job["limits"], job["inputs"][first:]
        brief = _brief(job, "batch", count=len(todo), staged=_has_files(job))
        child = self._spawn(brief, fds, batch=True, heavy=job["heavy"])
        # The child's CPU clock when its test in progress began: every test is charged from
        # the end of the one before (the first from the fork), so whatever the child does,
        # all of its CPU time is some test's.
        mark = 0.0
        try:
            for index, text in enumerate(todo):
                self._put_input(job, fds, text, held=True)
                start_wall = time.monotonic()
                report, limit = (None, None)
                if self._go_ahead(child, index):
                    report, limit = self._await_report(
                        child, limits, start_wall, mark, stop=job.get("early_exit")
                    )
                if limit == "stop":  # the pool judged an earlier test failed: skip the rest
                    return None
                if report is None and limit is None and index and _never_started(child):
                    # it ended between two tests (after a report it was not to end after):
                    # this test never ran; it runs in a fresh child
                    self._finish(child, kill=True)
                    child = None
                    return first + index
                forged = child.forged or _false_claim(job, report, text)
                # The child's last test (its brief's last, or one adaptive isolation ends it
                # after) ends when the child has exited, cleanly, within the test's limits.
                ends = forged is None and report is not None
                ends = ends and (index == len(todo) - 1 or bool(report.get("changed")))
                if ends:
                    stop = job.get("early_exit")
                    _, limit = self._await_report(
                        child, limits, start_wall, mark, until_exit=True, stop=stop
                    )
                    if limit == "stop":
                        return None
                    forged = child.forged
                if report is None or ends or forged is not None:  # the kernel tells the rest
                    header, out, err = self._batch_loss(
                        child, fds, job, report, limit, forged, mark, start_wall
                    )
                    child = None
                else:  # the child waits for its next test: the output file stays as it is
                    child.started = False  # until its next go-ahead: a report now is forged
                    header = headers.from_exit(report, 0)
                    cpu = max(child.cpu(), mark)  # 0.0 once it is gone (reaped below)
                    header["cpu_time"], mark = cpu - mark, cpu
                    header["peak_memory_kb"] = max(child.peak_kb(), child.held >> 10)
                    header["wall_time"] = time.monotonic() - start_wall
                    header["limit"] = headers.limit_from(header, limits)
                    header, out, err = self._with_file_output(
                        job, *headers.with_output(header, fds, limits)
                    )
                done = first + index + 1 == len(job["inputs"])
                if done:  # the job ends clean when the pool hears of it (see _settle)
                    if child is not None:
                        self._finish(child, kill=True)
                        child = None
                    self._give_memfds(fds)  # what the test wrote is read: out, err
                    self._settle()
                self._send_result(header, out, err, done=done)
                if done:  # the pool may send its next job now: no stop to look for
                    return None
                if job.get("early_exit") and self._stop_asked():
                    return None
                if child is None:
                    return first + index + 1
            return None
        finally:
            if child is not None:
                self._finish(child, kill=True)

    def _go_ahead(self, child: _Child, index: int) -> bool:
        """Start the child's test ``index`` (its input is in place); False if it cannot start:
        the child is gone, or it sent a report before the test started (``forged``)."""
        try:  # what it wrote since its last report: the channel must hold no report yet
            size = os.readv(child.status_r, [self.inbox])
            child.buffer += memoryview(self.inbox)[:size]
        except BlockingIOError:
            pass
        if child.buffer:  # between two tests any report is forged (see _out_of_order)
            self._take_report(child, 1 << 62)
        if child.forged is not None:
            return False
        child.test, child.taken, child.started = index, False, True
        try:
            os.write(child.ctrl_w, index.to_bytes(4, "big"))
        except OSError:  # the child is gone already (or closed its control pipe)
            child.started = False
            return False
        return True

    def _batch_loss(self, child, fds, job, report, limit, forged, start_cpu, start_wall):
        """A batch child's last test: it died or was killed mid-test, it sent a forged report,
        or it reported its last test and exited (cleanly: its report stands; else the
        kernel's word). The kernel tells how it ended and what the test cost (from
        ``start_cpu``), and the stdio memfds hold what the test wrote."""
        limits = job["limits"]
        status, usage = self._finish(child, kill=True, clean=not _reads_back(job))
        if forged is not None:
            header = _forged_header(forged)
        elif report is not None and limit is None and _clean_exit(status):
            header = headers.from_exit(report, status)
        elif job["mode"] == "stdin":
            header = headers.from_wait(None, status)
        else:
            header = headers.from_exit(None, status)
        header["cpu_time"] = max(0.0, usage.ru_utime + usage.ru_stime - start_cpu)
        header["peak_memory_kb"] = max(usage.ru_maxrss, child.held >> 10)
        header["wall_time"] = time.monotonic() - start_wall
        header["limit"] = limit or headers.limit_from(header, limits)
        header, out, err = headers.with_output(header, fds, limits)
        if header["limit"] is None and headers.says_out_of_memory(err, job.get("memory_marks")):
            header["limit"] = "memory"
        return self._with_file_output(job, header, out, err, clean=True)

    def _run_split(self, job):
        """An assertion test in two processes: the candidate serves calls, a second child runs
        the problem's trusted code and ``check`` over plain data (see inside.split.run_check). The
        candidate's brief holds only its own code: never the tests and their answers."""
        limits = job["limits"]
        tests = compile_program(job["tests_code"], self.script)
        if isinstance(tests, str):
            return {"status": "bad_input", "exception": "the tests do not compile"}, b"", b""
        support = compile_program(job.get("support_code") or "", self.script)
        support = None if isinstance(support, str) else support
        calls_r, calls_w = os.pipe2(os.O_CLOEXEC)
        replies_r, replies_w = os.pipe2(os.O_CLOEXEC)
        own, theirs = self._take_memfds(3), self._take_memfds(3)
        start_wall = time.monotonic()
        candidate = judge = None
        try:
            candidate = self._spawn(
                _brief(job, "serve", count=1), own, (calls_r, replies_w), heavy=job["heavy"]
            )
            judge_brief = {"role": "check", "support": support, "tests": tests, "limits": limits}
            judge_brief["func_name"] = job.get("func_name")
            judge_brief["check_name"] = job.get("check_name")
            judge = self._spawn(judge_brief, theirs, (replies_r, calls_w))
        finally:
            for fd in (calls_r, calls_w, replies_r, replies_w):
                os.close(fd)
            if judge is None and candidate is not None:
                self._finish(candidate, kill=True)
        try:
            report, limit = self._await_report(judge, limits, start_wall, 0.0, candidate)
            wall = time.monotonic() - start_wall
            status, usage = self._finish(candidate, kill=True)
            _, judge_usage = self._finish(judge, kill=True)
            out = read_output(own[1], limits["output_bytes"])
            err = read_output(own[2], limits["output_bytes"])
            err += read_output(theirs[2], limits["output_bytes"])
        finally:
            self._give_memfds(own + theirs)
        if report is None or report.get("status") == "program_gone":  # the candidate's end tells
            header = headers.from_exit(None, status)
            if "exit_code" in header:
                header["status"] = "exit"
        else:
            header = headers.from_exit(report, status)
        header["cpu_time"] = sum(u.ru_utime + u.ru_stime for u in (usage, judge_usage))
        header["peak_memory_kb"] = max(usage.ru_maxrss, candidate.held >> 10)
        header["wall_time"] = wall
        header["limit"] = limit or headers.limit_from(header, limits)
        return headers.with_frames(header, out, err, limits)

    def _send_result(self, header: dict[str, Any], out: bytes, err: bytes, done=False) -> None:
        """One test's result; with ``done``, the frame that ends the job in the same write
        (a write wakes the pool's thread, and a wake-up costs more than the bytes)."""
        head, value = reports.pack(header)
        retire = done and self.unclean is not None  # then no DONE: see _end_job
        write_frames(self.resp_fd, head, value, out, err, *((DONE,) if done and not retire else ()))
        self.done_sent = done
        if retire:
            raise Retire(self.unclean)

    def _end_job(self) -> None:
        """The frame that ends the job's results; none when the run dir could not be put back
        (``unclean``): the server retires instead, once every result of the job is out, and
        the pool replaces it (see pool._Worker) before the next job."""
        self._settle()
        if self.unclean is not None:
            raise Retire(self.unclean)
        write_frames(self.resp_fd, DONE)

    def _settle(self) -> None:
        """Just before the frame that ends a job (its children reaped and its memfds closed
        by then): its orphans reaped. Nothing of the job is left in the server when the pool
        hears of its end, so that whoever looks at the server then (the pool's next job,
        tests/sandbox/test_leaks.py) finds it as it stays until the next job, however late
        the server runs after that write."""
        if self._reap_orphans():  # a descendant outlived its child (a profile that allows
            self.dirty = True  # processes): it may write in the run dir after its cleaning

    def _clean_run_dir(self) -> None:
        """Empty the run dir (always listed: a coarse mtime can miss a quick change) and put
        its own attributes back as it was made (:class:`~evaluator.sandbox.files.Marks`: mode,
        owner, times, extended attributes, inode flags...), checked. The walk is bounded
        (``clear_limits``) and cannot be defeated by a deep or odd tree. What cannot be put
        back (a tree past the bounds; on ext4, a directory a program made grow, which never
        shrinks) is kept in ``unclean``: once the current test's result is out the server
        retires (_put_input, _end_job) and the pool gives the next test a fresh worker."""
        why = _put_back(self.run_fd, self.run_marks, self.clear_limits)
        if why is not None and self.unclean is None:
            self.unclean = f"its run directory could not be put back: {why}"
        if self.tmp_fd is not None:
            why = _put_back(self.tmp_fd, self.tmp_marks, self.clear_limits, self.tmp_keep)
            if why is not None and self.unclean is None:
                self.unclean = f"its /tmp could not be put back: {why}"
        self.dirty = False
        self.staged = 0
        self.files_held, self.next_walk = 0, 0.0

    def _put_input(self, job: dict[str, Any], fds: list[int], text: str, held=False) -> None:
        """Before each test: the run dir emptied, by the server, if a child may have written
        in it since it last was (between a batch child's tests too); the stdio memfds as
        made: made afresh, or put back as made (:class:`~evaluator.sandbox.files.Marks`) when
        a batch child holds them (``held``); then the test's input on the stdin memfd, or with
        ``input_file`` in that file of the run dir and stdin empty. So no test sees another's
        input or output file, nor a mark an earlier one left on its directory or streams. A
        run dir that could not be put back retires the worker here, before the test starts."""
        name = job.get("input_file")
        _has_files(job)  # checks the names
        if self.dirty:
            self._clean_run_dir()
        if self.unclean is not None:
            raise Retire(self.unclean)
        self._fresh_streams(fds, held)
        self.dirty = True  # the test's child may write from now on
        if name is None:
            _fill_input(fds[0], text)
            self.staged = 0
        else:
            fill(fds[0], b"")
            self.staged = write_file(self.run_fd, name, _input_bytes(text))
        for path, data in (job.get("files") or {}).items():  # the job's given files: staged,
            self.staged += write_path(self.run_fd, path, data)  # not the program's to pay

    def _fresh_streams(self, fds: list[int], held: bool) -> None:
        """The stdio memfds as a new child gets them. One no child held yet is as made; one
        a batch child holds (``held``) has its attributes put back (and checked); any other
        is replaced, at the same number, by a new memfd (as cheap, and nothing of the old
        one can remain)."""
        for fd in fds:
            if fd in self.unused:
                self.unused.discard(fd)
            elif held:
                why = self.stream_marks.restore(fd)
                if why is not None:
                    raise Retire(f"a stdio memfd could not be put back: {why}")
            else:
                new = os.memfd_create("io", os.MFD_CLOEXEC)
                os.dup2(new, fd, inheritable=False)
                os.close(new)

    def _with_file_output(self, job, header: dict[str, Any], out: bytes, err: bytes, clean=False):
        """A test's result frames with ``output_file``'s bytes as its stdout (read once the
        program has ended or waits for its next test; what it wrote on fd 1 was read within
        the output limit and is dropped); with ``clean`` (its child is gone) the run dir is
        emptied after. A file that is missing or not a regular file is ``file_error``; one
        over the output limit, an OLE."""
        name = job.get("output_file")
        if name is None and not job.get("fetch_files"):
            return header, out, err
        limit = job["limits"]["output_bytes"]
        try:
            if job.get("fetch_files"):
                header["value"] = self._fetch(job["fetch_files"], job["fetch_bytes"])
            if name is None:
                return header, out, err
            out, why = read_regular(self.run_fd, name, limit)
        finally:
            if clean:
                self._clean_run_dir()
        if why == OVER_LIMIT:
            header["limit"] = header.get("limit") or "output"
        elif why == "missing":
            header["file_error"] = f"the program wrote no {name}"
        elif why is not None:
            header["file_error"] = f"{name} is {why}, not a regular file: not read"
        header["stdout_truncated"] = why == OVER_LIMIT or len(out) >= limit
        return header, out, err

    def _fetch(self, paths: list[str], budget: int) -> str:
        """``Job.fetch_files`` read back from the run dir (regular files only, never through
        a link: :func:`~evaluator.sandbox.files.read_path`), ``budget`` bytes in all, as the
        JSON :meth:`RunResult.fetched <evaluator.sandbox.jobs.RunResult.fetched>` reads:
        ``{"files": {path: base64}, "not_read": {path: why}}``."""
        files: dict[str, str] = {}
        not_read: dict[str, str] = {}
        for path in dict.fromkeys(paths):  # a path asked twice is read once
            data, why = read_path(self.run_fd, path, budget)
            if why is None:
                budget -= len(data)
                files[path] = base64.b64encode(data).decode()
            else:
                not_read[path] = why
        return json.dumps({"files": files, "not_read": not_read})

    def _spawn(
        self, brief: dict[str, Any], fds: list[int], extra=(), batch=False, heavy=0
    ) -> _Child:
        """A new child, forked by the template, running ``brief`` (see Template._child for
        its descriptor layout). ``extra``: a split test's call pipes."""
        status_r, status_w = os.pipe2(os.O_CLOEXEC)
        ctrl_r, ctrl_w = os.pipe2(os.O_CLOEXEC) if batch else (None, None)
        key = os.urandom(reports.KEY_SIZE)  # signs the harness's reports (see _take_report)
        brief_fd = self._take_memfds(1)[0]
        fill(brief_fd, marshal.dumps({**brief, "key": key}))
        layout = [*fds, status_w] + ([ctrl_r, *fds] if ctrl_r is not None else [])
        try:
            pid = self._fork([*layout, *extra, brief_fd], heavy)
        except BaseException:
            for fd in (status_r, ctrl_w, brief_fd):
                if fd is not None:
                    os.close(fd)
            raise
        finally:
            os.close(status_w)
            if ctrl_r is not None:
                os.close(ctrl_r)
        child = _Child(pid, status_r, ctrl_w, key, brief_fd)
        child.watch_resident()  # now: before the child can exec or drop its dumpable bit
        os.set_blocking(status_r, False)  # the server's end: read when there is something
        if batch:
            child.watch_peak()
            child.started = False  # until its first go-ahead
        if brief["role"] == "check":  # the problem's tests over plain data: trusted
            child.statuses = None
        elif brief["role"] == "exec":  # reports only when its exec failed, before the program
            child.statuses = _EXEC_STATUSES
        return child

    def _fork(self, fds: list[int], heavy: int = 0) -> int:
        """Ask a template for a child holding ``fds`` (``heavy``: the number of the heavy
        template's group, 0 for the first template); its pid (it is this server's child)."""
        link = self._heavy_link(heavy) if heavy else self.link
        try:
            link.sendmsg([b"f"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", fds))])
            answer = link.recv(4)
        except OSError as exc:
            raise TemplateGone(f"the fork template is gone: {exc}") from exc
        if len(answer) != 4:
            raise TemplateGone("the fork template is gone")
        pid = int.from_bytes(answer, "big", signed=True)
        if pid < 0:
            raise OSError(-pid, f"fork: {os.strerror(-pid)}")
        return pid

    def _stop_asked(self) -> bool:
        """Early exit: whether the pool asked to stop (it judged a test failed). Never waits
        for it: the pool judges while the next test runs, and tests run after a stop are not
        reported (the pool drops them as skipped)."""
        if not self.requests.frame_waiting():
            return False
        frame = self.requests.read_frame()
        return frame is None or frame == STOP  # None: the pool is gone, stop as well

    def _heavy_group(self, code: str) -> int:
        """The number (from 1) of the first heavy group whose first package ``code`` names;
        0 for none."""
        for number, trigger in enumerate(self.heavy_triggers, 1):
            if trigger.search(code):
                return number
        return 0

    def _heavy_link(self, number: int) -> _socket.socket:
        """The socket of group ``number``'s heavy template, started on first use: the first
        template forks it, so it never held a job either."""
        if number in self.heavy_links:
            return self.heavy_links[number]
        ours, theirs = _socket.socketpair(
            _socket.AF_UNIX, _socket.SOCK_SEQPACKET | _socket.SOCK_CLOEXEC
        )
        try:
            rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]))]
            self.link.sendmsg([b"t" + bytes([number])], rights)
            answer = self.link.recv(4)
        except OSError as exc:
            raise TemplateGone(f"the fork template is gone: {exc}") from exc
        finally:
            theirs.close()
        pid = int.from_bytes(answer, "big", signed=True) if len(answer) == 4 else -1
        hello = ours.recv(1 << 16) if pid > 0 else b""
        if not hello:
            raise TemplateGone("the heavy fork template failed to start")
        self.heavy_links[number], self.heavy_pids[number] = ours, pid
        return ours

    def _await_report(
        self,
        child: _Child,
        limits,
        start_wall: float,
        start_cpu: float,
        partner=None,
        until_exit=False,
        stop=False,
        fast=False,
    ):
        """Wait for the child's report of its test in progress while enforcing the CPU limit
        (the child's CPU clock, which the kernel keeps, from ``start_cpu``; with ``partner``,
        the candidate of a split test, the two together) and the wall-clock backstop.
        Returns (report, limit hit). With ``until_exit``, waits until the child has exited
        and returns the report it sent (None if it sent none). With ``stop`` (early exit), a
        stop from the pool kills the child: (None, "stop"). A forged report (see
        :class:`_Child`) kills the child: (None, None), ``child.forged`` says why.

        The program (``partner`` when there is one, else the child) is killed ("memory")
        when what it holds grows past the memory limit: its resident memory (shared mappings
        too, which RLIMIT_DATA does not count) plus the files in the run directory. It is
        checked at each tick: every 10 ms with ``fast`` (an executed program, whose
        RLIMIT_DATA is only a backstop), else with the CPU check."""
        time_limit = limits["time_limit"]
        wall_limit = limits["wall_limit"] or wall_backstop(time_limit)
        # a wall limit (the default backstop, a reward's tight 1x + 0.5 s) leaves out the time
        # the program waited for a CPU, unless the caller made it a deadline (a service's
        # run timeout): a CPU-bound program within its CPU limit is never ended by load
        starved = 0 if limits.get("wall_counts_wait") else _STARVED_CAP - 1
        if starved and child.queued[0] != start_wall:  # the wait before the test: not the test's
            child.queued = (start_wall, _queued(child, partner))
        queued = child.queued[1]
        memory_bytes = limits["memory_limit"] << 20
        cap = memory_bytes + _REPORT_ROOM  # a report holds a return value the child held
        program = partner if partner is not None else child
        tick = 0.01 if fast else min(0.1, max(0.01, time_limit / 10))
        poller = child.poller
        last = None
        if stop:  # a stop from the pool wakes the wait (checked after each test as well)
            poller.register(self.requests.fd, select.POLLIN)
        while True:
            report = self._take_report(child, cap)
            if child.forged is not None:
                self._kill(child, partner)
                return None, None
            if report is not None:
                if not until_exit:
                    return report, None
                last = report
                continue
            if child.drained:  # it has exited and nothing more can arrive
                return last, None
            left = start_wall + wall_limit - time.monotonic()
            if left <= 0 and starved:  # past the backstop, less the time it waited for a CPU
                # (a loaded machine): a starved program ends by its CPU time, as it would alone
                left += min(_queued(child, partner) - queued, starved * wall_limit)
            if left <= 0:
                self._kill(child, partner)
                return last, "wall"
            events = dict(poller.poll(min(left, tick) * 1000))
            if stop and self.requests.fd in events:
                if self._stop_asked():
                    self._kill(child, partner)
                    return None, "stop"
                events.pop(self.requests.fd)
            if child.status_r in events:
                size = os.readv(child.status_r, [self.inbox])
                if size:
                    child.buffer += memoryview(self.inbox)[:size]
                    continue
                poller.unregister(child.status_r)  # EOF: only the exit is left to see
                child.eof = True
            if child.pidfd in events:
                poller.unregister(child.pidfd)
                child.exited = True
            if child.exited:
                child.drained = child.eof or child.status_r not in events
                continue
            held = self._holds(program, memory_bytes) if not events else 0
            if held > memory_bytes:  # first: a program over both limits at a tick crossed
                program.held = held  # this one first
                self._kill(child, partner)
                return last, "memory"
            if not events and _cpu(child, partner) - start_cpu > time_limit:
                self._kill(child, partner)
                return last, "cpu"

    def _holds(self, program: _Child, limit: int) -> int:
        """Bytes the program holds: its resident memory and its files in the run directory
        (on a tmpfs /tmp they are memory too; anywhere, a program must not fill a disk)."""
        resident = program.resident()
        now = time.monotonic()
        if now >= self.next_walk:  # the walk (at any depth, each entry a page at least:
            # files.tree_bytes) takes at most a third of the server's time: a tree so big that
            # its walk takes longer than a tick is counted every few ticks, the last count
            # standing in between
            enough = limit - resident + 1 + self.staged
            self.files_held = tree_bytes(self.run_fd, enough)
            if self.tmp_fd is not None and self.files_held <= enough:
                self.files_held += tree_bytes(self.tmp_fd, enough - self.files_held, self.tmp_keep)
            self.next_walk = now + 2 * (time.monotonic() - now)
        return resident + max(0, self.files_held - self.staged)  # the input file is the test's

    @staticmethod
    def _take_report(child: _Child, cap: int):
        """The child's report of its test in progress, once complete in its buffer (its
        header and value frames); None until then. Frames without the run's key are skipped:
        bytes a program wrote on the channel by chance pass no test and shift no report. A
        signed report out of the harness's order (see :class:`_Child`) sets ``forged``, and
        so do more bytes waiting than a report holds (``cap``)."""
        buffer = child.buffer
        while (end := frames_end(buffer, 2)) is not None:
            head, value = split_frames(buffer, 2)
            signed = reports.unpack_signed(head, value, child.key)
            if signed is None:  # drop the first frame: the report may start at the next
                del buffer[: frames_end(buffer, 1)]
                continue
            del buffer[:end]
            test, fields = signed
            child.forged = _out_of_order(child, test, fields)
            if child.forged is not None:
                return None
            child.taken = True
            if child.statuses is reports.PROGRAM_STATUSES:
                return reports.child_fields(fields)
            return fields
        if len(buffer) > cap:
            child.forged = "more bytes on the report channel than a report holds"
        return None

    @staticmethod
    def _kill(*children: _Child | None) -> None:
        for child in children:
            if child is None:
                continue
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:  # no group yet: killed before its setsid()
                try:
                    os.kill(child.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def _finish(self, child: _Child, kill: bool, clean: bool = True) -> tuple[int, Any]:
        """Reap ``child`` (killed first with ``kill``) and, with ``clean``, empty the run dir;
        its exit status and rusage."""
        if kill:
            self._kill(child)
        _, status, usage = os.wait4(child.pid, 0)
        for fd in (child.pidfd, child.status_r, child.ctrl_w, child.statm, child.proc_status):
            if fd is not None:
                os.close(fd)
        self._give_memfds([child.brief_fd])
        if clean:
            self._clean_run_dir()
        return status, usage

    def _take_memfds(self, count: int) -> list[int]:
        """New memfds: a job's stdio, a child's brief. None is ever reused from another job
        (a program can mark a memfd: its mode, extended attributes, inode flags, times, and
        the owner, signal, flags and lease of the description it shares with the server);
        keeping them cost more in putting them back as made than in making them."""
        fds = [os.memfd_create("io", os.MFD_CLOEXEC) for _ in range(count)]
        self.unused.update(fds)
        return fds

    def _give_memfds(self, fds: list[int]) -> None:
        """Closed: every child that held them has been reaped. ``fds`` is emptied, so that
        giving the same list again (a job's, in its ``finally``) closes nothing."""
        for fd in fds:
            self.unused.discard(fd)
            os.close(fd)
        fds.clear()

    def _reap_orphans(self) -> bool:
        """Reap descendants that outlived their child (re-parented here: the server is a
        subreaper; only profiles that allow processes have any). True if some still run."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = 0
            if pid == self.template_pid or pid in self.heavy_pids.values():
                raise TemplateGone("a fork template exited")
            if pid == 0:
                break
        try:
            with open(f"/proc/self/task/{os.getpid()}/children", "rb") as listing:
                children = listing.read().split()
        except OSError:  # no CONFIG_PROC_CHILDREN: assume the worst
            return True
        templates = {self.template_pid, *self.heavy_pids.values()}
        return any(int(pid) not in templates for pid in children)


_INBOX = 256 << 10
_EXEC_STATUSES = frozenset({"not_started"})
# A wall limit leaves out a test's run-queue wait, up to this many wall limits in all (a
# program starved that long still ends)
_STARVED_CAP = 10
_REPORT_ROOM = 1 << 20  # a report's header, beyond its value (bounded by the memory limit)
DONE = b""  # the frame that ends a job's results
PROGRAM_NAME = "solution"  # the staged program file (its children's /proc/self/exe)
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _brief(job: dict[str, Any], role: str, **extra: Any) -> dict[str, Any]:
    """What a child needs of ``job`` to run the program's side (never the tests' code)."""
    keys = ("code", "program", "mode", "func_name", "entry_class", "check_name", "names")
    keys += ("limits", "environment", "isolation", "output_arg")
    return {"role": role, **{k: job.get(k) for k in keys}, **extra}


def _fill_input(fd: int, text: str) -> None:
    fill(fd, _input_bytes(text))


def _input_bytes(text: str) -> bytes:
    # surrogateescape gives back the bytes an input decoded that way had; a lone surrogate
    # of another kind (a "\ud800" escape in a problem file) has no UTF-8: written as CESU
    # bytes, which the program reads as undecodable input rather than stopping the server.
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _has_files(job: dict[str, Any]) -> bool:
    """Whether the job's tests have files in the run dir: an input or output file (checked
    plain names: the server opens them under its run dir's descriptor), given or fetched
    files (checked relative paths)."""
    names = [job.get("input_file"), job.get("output_file")]
    if any(name is not None and not is_plain_name(name) for name in names):
        raise ValueError(f"a test file is a plain name, not {names!r}")
    paths = [*(job.get("files") or ()), *(job.get("fetch_files") or ())]
    if any(not is_relative_path(path) for path in paths):
        raise ValueError(f"a test's files are relative paths, not {paths!r}")
    return any(name is not None for name in names) or bool(paths)


def _reads_back(job: dict[str, Any]) -> bool:
    """Whether the run dir is read once a test ends (its output file, its fetched files):
    then it is emptied after that, not when the child is reaped."""
    return bool(job.get("output_file") or job.get("fetch_files"))


def _never_started(child: _Child) -> bool:
    """Whether a batch child that sent no report for its test in progress is gone without
    having read the test's go-ahead (or before it could be sent): the test never ran."""
    if child.forged is not None:
        return False
    if not child.started:
        return True
    try:
        waiting = fcntl.ioctl(child.ctrl_w, termios.FIONREAD, b"\0\0\0\0")  # type: ignore[arg-type]
    except OSError:
        return False
    return int.from_bytes(waiting, sys.byteorder) > 0


def _clean_exit(status: int) -> bool:
    """Whether ``wait4``'s status is the harness's own end after its report (exit status 0)."""
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _forged_header(why: str) -> dict[str, Any]:
    """The result of a test whose report the program forged: a runtime error (the sandbox
    refused what it did), whatever the report said."""
    return {"status": "exception", "exception": "ForgedReport", "blocked": why}


def _false_claim(job: dict[str, Any], report: dict[str, Any] | None, text: str) -> str | None:
    """Why ``report`` (a program's child's) claims what its harness cannot have said: a
    broken test (not judged) whose input is sound, or in a mode whose tests take no JSON."""
    if report is None or report.get("status") != "bad_input":
        return None
    if job["mode"] == "call" and not harness.input_is_json(text):
        return None
    return "a report of a broken test whose input is sound"


def _out_of_order(child: _Child, test: int, fields: dict[str, Any]) -> str | None:
    """Why a signed report ``child`` sent for test ``test`` is not one its harness sends
    now (None when it is)."""
    if not child.started:
        return "a report sent before its test started"
    if test != child.test:
        return "a report for a test other than the one in progress"
    if child.taken:
        return "a second report for one test"
    status = fields.get("status")
    if child.statuses is not None and status not in child.statuses:
        return f"a report with the status {str(status)[:40]!r}, which only the sandbox gives"
    return None


def _cpu(child: _Child, partner: _Child | None) -> float:
    return child.cpu() + (partner.cpu() if partner is not None else 0.0)


def _queued(child: _Child, partner: _Child | None) -> float:
    """Seconds the child (and ``partner``) waited on a run queue, runnable but not running:
    the second field of ``/proc/<pid>/schedstat`` (the main thread's, in ns), kept by the
    kernel; 0.0 where it cannot be read (the wall-clock backstop then counts all of it)."""
    total = 0
    for one in (child, partner):
        if one is None:
            continue
        try:
            with open(f"/proc/{one.pid}/schedstat", "rb") as fh:
                total += int(fh.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total / 1e9


def _names(name: str) -> re.Pattern[str]:
    """``name`` as a word of a program's source (``import numpy``, ``numpy.array``)."""
    return re.compile(rf"\b{re.escape(name)}\b")


def _put_back(
    dir_fd: int, marks: Marks, limits: tuple[Any, Any], keep: frozenset[str] = frozenset()
) -> str | None:
    """Empty a directory the children write in and put its own attributes back
    (:meth:`Server._clean_run_dir`); why it could not be, or None."""
    try:
        clear_dir(dir_fd, *limits, keep=keep)
        why = None
    except Unclean as exc:  # once more with its attributes back (its mode, say)
        why = str(exc)
        if marks.restore(dir_fd) is None:
            try:
                clear_dir(dir_fd, *limits, keep=keep)
                why = None
            except Unclean as again:
                why = str(again)
    return why or marks.restore(dir_fd)


def main() -> None:
    stack_mb = DEFAULT_STACK_MB
    if "--stack-mb" in sys.argv:
        stack_mb = int(sys.argv[sys.argv.index("--stack-mb") + 1])
    _ensure_stack(stack_mb)
    req_fd, resp_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    requests = FrameReader(req_fd)
    config = requests.read_frame()
    if config is None:
        return
    if requests.buffer:  # the pool sends no job before "ready": nothing of one may precede
        sys.exit("fork server: data after the configuration")  # the template's fork
    settings = json.loads(config)
    os.mkdir(os.path.join(settings["tmp_root"], "run"), 0o700)
    # Root's: the children may open a staged file by its name (a runtime's script, its
    # class files), never list, add or change one.
    os.mkdir(os.path.join(settings["tmp_root"], template.PROGRAM_DIR), 0o711)
    os.mkdir(os.path.join(settings["tmp_root"], template.TMP_DIR), 0o700)
    # The template is forked now, while this process holds nothing but the configuration.
    link, template_info = template.start(settings, close=(req_fd, resp_fd))
    # From here on this process holds other submissions' code and output. Where Landlock is
    # missing, a child could otherwise read them through /proc/<pid>/mem (same user).
    kernel.set_not_dumpable()
    try:
        Server(settings, requests, resp_fd, link, template_info).serve()
    except TemplateGone as exc:  # the pool replaces this worker and goes on with the job
        print(f"fork server: {exc}", file=sys.stderr)
        sys.exit(TEMPLATE_GONE_EXIT)
    except Retire:  # the pool replaces this worker (and goes on with the job, if any is left)
        sys.exit(RETIRED_EXIT)
    finally:
        _leave_nothing(settings["tmp_root"])


def _leave_nothing(tmp_root: str) -> None:
    """However the server ends (a retirement, its template lost, its pool gone mid-job): its
    children killed and reaped, then its directory removed, whatever tree a program left
    there (files.remove_tree). The pool removes it as well once the server has exited (a
    server killed from outside never gets here)."""
    for _ in range(3):
        if not kernel.kill_children():
            break
    try:
        remove_tree(tmp_root)
    except OSError:
        pass


if __name__ == "__main__":
    main()
