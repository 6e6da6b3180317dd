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

Its parts: this module runs the jobs (a test per child, a batch child's tests, a split
test's two children) and streams their results; :mod:`evaluator.sandbox.watchdog` holds a
child to its CPU, wall-clock and memory limits while the server waits for its report;
:mod:`evaluator.sandbox.run_dir` keeps the run directory (emptied and put back, test files
in and out); :mod:`evaluator.sandbox.memfd_pool` makes the children's memfds;
:mod:`evaluator.sandbox.template_link` asks the fork templates for children.
"""

from __future__ import annotations

import _socket
import base64
import fcntl
import json
import marshal
import os
import resource
import sys
import termios
import time
import traceback
import types
import warnings
from typing import Any

from evaluator.sandbox import headers, kernel, reports, staging, template
from evaluator.sandbox.files.clearing import remove_tree
from evaluator.sandbox.files.memfd import fill, read_output
from evaluator.sandbox.inside import harness
from evaluator.sandbox.jobs import DEFAULT_STACK_MB
from evaluator.sandbox.memfd_pool import MemfdPool
from evaluator.sandbox.run_dir import RunDir, has_files, reads_back
from evaluator.sandbox.template_link import TemplateGone, TemplateLink
from evaluator.sandbox.watchdog import Child, Watchdog
from evaluator.sandbox.wire import STOP, FrameReader, stop_asked, write_frames


def compile_program(code: str, filename: str) -> types.CodeType | str:
    """Compile once here, as ``filename`` (a plain run's code objects carry the script's
    absolute path); a syntax error comes back as its formatted text. Warnings (a
    ``SyntaxWarning``) are not for the server's stderr: they are off in this process
    (:meth:`Server.__init__`), which never runs a program."""
    try:
        return compile(code, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        return "".join(traceback.format_exception_only(type(exc), exc))


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


class Server:
    """One fork server: its jobs read from ``requests``, their results written on ``resp_fd``,
    its children forked by the templates at the end of ``link``."""

    def __init__(
        self,
        config: dict[str, Any],
        requests: FrameReader,
        resp_fd: int,
        link: _socket.socket,
        template_info: dict[str, Any],
    ) -> None:
        self.requests, self.resp_fd = requests, resp_fd
        self.run_dir = RunDir(config, template_info)
        self.script = os.path.join(self.run_dir.path, harness.SOURCE_NAME)  # the code's file name
        # where a program file's job puts its file, read-only to its children (template.py)
        self.program_dir = os.path.join(config["tmp_root"], template.PROGRAM_DIR)
        self.runtimes: list[str] = list(config["profile"].get("runtimes") or [])
        self.info: dict[str, Any] = {"pid": os.getpid(), "profile": config["profile"].get("name")}
        self.info.update(template_info)
        groups: list[list[str]] = config.get("heavy") or []
        self.templates = TemplateLink(link, template_info["template_pid"], groups)
        # Nothing a program can mark is reused from one child to the next as it left it: the
        # run dir's own attributes are put back (and checked) whenever it is emptied, a job's
        # stdio memfds are made for it, made again for each test of a fresh child per test, and
        # put back as made between the tests of a batch child (see RunDir.clean, _put_input).
        self.memfds = MemfdPool()
        self.watchdog = Watchdog(requests, self.run_dir)
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
        self.templates.close()
        # main() then removes the worker's directory (_leave_nothing), however serve ends

    def run_job(self, job: dict[str, Any]) -> None:
        job["heavy"] = self.templates.heavy_group(job["code"])
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
        fds = self.memfds.take(3)
        try:
            for text in job["inputs"]:
                frames = self._run_test(job, fds, text, executable)
                if frames is None:  # the pool asked to stop: this test is skipped
                    break
                self._send_result(*frames)
                if job.get("early_exit") and stop_asked(self.requests):
                    break
        finally:
            os.close(executable)
            self.memfds.give(fds)
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
        fds = self.memfds.take(3)
        batch = job.get("isolation") in ("submission", "adaptive")
        if batch and not isinstance(program, str) and inputs:
            self.done_sent = False
            try:
                self._run_batch(job, fds)
            finally:
                self.memfds.give(fds)
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
                if job.get("early_exit") and stop_asked(self.requests):
                    break
        finally:
            self.memfds.give(fds)
        self._end_job()

    def _run_test(self, job, fds, text, executable=None):
        """One test in a fresh child (isolation ``test``). A stdin program's verdict comes
        from the kernel: what it wrote on fd 1 and the exit status ``wait4`` gives, once it
        has exited (its report only names an uncaught exception); other modes need the
        child's report of the returned value. With ``executable`` (the descriptor of a
        program file) the child executes it, held to resident memory (see Watchdog.await_report)."""
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
        report, limit = self.watchdog.await_report(
            child,
            limits,
            start_wall,
            0.0,
            until_exit=True,
            stop=job.get("early_exit"),
            fast=executable is not None,
        )
        wall = time.monotonic() - start_wall
        status, usage = self._finish(child, kill=True, clean=not reads_back(job))
        if limit == "stop":
            self.run_dir.clean()
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
        return self.run_dir.with_file_output(job, header, out, err, clean=True)

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
        brief = _brief(job, "batch", count=len(todo), staged=has_files(job))
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
                    report, limit = self.watchdog.await_report(
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
                    _, limit = self.watchdog.await_report(
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
                    header, out, err = self.run_dir.with_file_output(
                        job, *headers.with_output(header, fds, limits)
                    )
                done = first + index + 1 == len(job["inputs"])
                if done:  # the job ends clean when the pool hears of it (see _settle)
                    if child is not None:
                        self._finish(child, kill=True)
                        child = None
                    self.memfds.give(fds)  # what the test wrote is read: out, err
                    self._settle()
                self._send_result(header, out, err, done=done)
                if done:  # the pool may send its next job now: no stop to look for
                    return None
                if job.get("early_exit") and stop_asked(self.requests):
                    return None
                if child is None:
                    return first + index + 1
            return None
        finally:
            if child is not None:
                self._finish(child, kill=True)

    def _go_ahead(self, child: Child, index: int) -> bool:
        """Start the child's test ``index`` (its input is in place); False if it cannot start:
        the child is gone, or it sent a report before the test started (``forged``)."""
        try:  # what it wrote since its last report: the channel must hold no report yet
            self.watchdog.read_channel(child)
        except BlockingIOError:
            pass
        if child.buffer:  # between two tests any report is forged (see watchdog.Child)
            Watchdog.take_report(child, 1 << 62)
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
        status, usage = self._finish(child, kill=True, clean=not reads_back(job))
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
        return self.run_dir.with_file_output(job, header, out, err, clean=True)

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
        own, theirs = self.memfds.take(3), self.memfds.take(3)
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
            report, limit = self.watchdog.await_report(judge, limits, start_wall, 0.0, candidate)
            wall = time.monotonic() - start_wall
            status, usage = self._finish(candidate, kill=True)
            _, judge_usage = self._finish(judge, kill=True)
            out = read_output(own[1], limits["output_bytes"])
            err = read_output(own[2], limits["output_bytes"])
            err += read_output(theirs[2], limits["output_bytes"])
        finally:
            self.memfds.give(own + theirs)
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
        retire = done and self.run_dir.unclean is not None  # then no DONE: see _end_job
        write_frames(self.resp_fd, head, value, out, err, *((DONE,) if done and not retire else ()))
        self.done_sent = done
        if retire:
            raise Retire(self.run_dir.unclean)

    def _end_job(self) -> None:
        """The frame that ends the job's results; none when the run dir could not be put back
        (``unclean``): the server retires instead, once every result of the job is out, and
        the pool replaces it (see pool._Worker) before the next job."""
        self._settle()
        if self.run_dir.unclean is not None:
            raise Retire(self.run_dir.unclean)
        write_frames(self.resp_fd, DONE)

    def _settle(self) -> None:
        """Just before the frame that ends a job (its children reaped and its memfds closed
        by then): its orphans reaped. Nothing of the job is left in the server when the pool
        hears of its end, so that whoever looks at the server then (the pool's next job,
        tests/sandbox/test_leaks.py) finds it as it stays until the next job, however late
        the server runs after that write."""
        if self._reap_orphans():  # a descendant outlived its child (a profile that allows
            self.run_dir.dirty = True  # processes): it may write in the run dir after its cleaning

    def _put_input(self, job: dict[str, Any], fds: list[int], text: str, held=False) -> None:
        """Before each test: the run dir emptied, by the server, if a child may have written
        in it since it last was (between a batch child's tests too); the stdio memfds as
        made: made afresh, or put back as made (:class:`~evaluator.sandbox.files.marks.Marks`)
        when a batch child holds them (``held``); then the test's input on the stdin memfd,
        or with ``input_file`` in that file of the run dir and stdin empty. So no test sees
        another's input or output file, nor a mark an earlier one left on its directory or
        streams. A run dir that could not be put back retires the worker here, before the
        test starts."""
        has_files(job)  # checks the names
        run_dir = self.run_dir
        if run_dir.dirty:
            run_dir.clean()
        if run_dir.unclean is not None:
            raise Retire(run_dir.unclean)
        why = self.memfds.fresh_streams(fds, held)
        if why is not None:
            raise Retire(why)
        run_dir.dirty = True  # the test's child may write from now on
        data = _input_bytes(text)
        fill(fds[0], data if job.get("input_file") is None else b"")
        run_dir.stage(job, data)  # the input file, the job's given files: not the program's

    def _spawn(
        self, brief: dict[str, Any], fds: list[int], extra=(), batch=False, heavy=0
    ) -> Child:
        """A new child, forked by the template, running ``brief`` (see Template._child for
        its descriptor layout). ``extra``: a split test's call pipes."""
        status_r, status_w = os.pipe2(os.O_CLOEXEC)
        ctrl_r, ctrl_w = os.pipe2(os.O_CLOEXEC) if batch else (None, None)
        key = os.urandom(reports.KEY_SIZE)  # signs the harness's reports (see Watchdog.take_report)
        brief_fd = self.memfds.take(1)[0]
        fill(brief_fd, marshal.dumps({**brief, "key": key}))
        layout = [*fds, status_w] + ([ctrl_r, *fds] if ctrl_r is not None else [])
        try:
            pid = self.templates.fork([*layout, *extra, brief_fd], heavy)
        except BaseException:
            for fd in (status_r, ctrl_w, brief_fd):
                if fd is not None:
                    os.close(fd)
            raise
        finally:
            os.close(status_w)
            if ctrl_r is not None:
                os.close(ctrl_r)
        child = Child(pid, status_r, ctrl_w, key, brief_fd)
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

    def _finish(self, child: Child, kill: bool, clean: bool = True) -> tuple[int, Any]:
        """Reap ``child`` (killed first with ``kill``) and, with ``clean``, empty the run dir;
        its exit status and rusage."""
        if kill:
            Watchdog.kill(child)
        _, status, usage = os.wait4(child.pid, 0)
        for fd in (child.pidfd, child.status_r, child.ctrl_w, child.statm, child.proc_status):
            if fd is not None:
                os.close(fd)
        self.memfds.give([child.brief_fd])
        if clean:
            self.run_dir.clean()
        return status, usage

    def _reap_orphans(self) -> bool:
        """Reap descendants that outlived their child (re-parented here: the server is a
        subreaper; only profiles that allow processes have any). True if some still run."""
        templates = self.templates.pids()
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = 0
            if pid in templates:
                raise TemplateGone("a fork template exited")
            if pid == 0:
                break
        try:
            with open(f"/proc/self/task/{os.getpid()}/children", "rb") as listing:
                children = listing.read().split()
        except OSError:  # no CONFIG_PROC_CHILDREN: assume the worst
            return True
        return any(int(pid) not in templates for pid in children)


_EXEC_STATUSES = frozenset({"not_started"})
DONE = b""  # the frame that ends a job's results
PROGRAM_NAME = "solution"  # the staged program file (its children's /proc/self/exe)


def _brief(job: dict[str, Any], role: str, **extra: Any) -> dict[str, Any]:
    """What a child needs of ``job`` to run the program's side (never the tests' code)."""
    keys = ("code", "program", "mode", "func_name", "entry_class", "check_name", "names")
    keys += ("limits", "environment", "isolation", "output_arg")
    return {"role": role, **{k: job.get(k) for k in keys}, **extra}


def _input_bytes(text: str) -> bytes:
    # surrogateescape gives back the bytes an input decoded that way had; a lone surrogate
    # of another kind (a "\ud800" escape in a problem file) has no UTF-8: written as CESU
    # bytes, which the program reads as undecodable input rather than stopping the server.
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _never_started(child: Child) -> bool:
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
    there (sandbox/files/clearing.py). The pool removes it as well once the server has exited (a
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
