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
import fcntl
import json
import marshal
import os
import re
import resource
import select
import signal
import sys
import time
import traceback
import types
import warnings
from typing import Any

from evaluator.sandbox import headers, kernel, reports, template
from evaluator.sandbox.files import (
    OVER_LIMIT,
    clear_dir,
    fill,
    is_plain_name,
    read_output,
    read_regular,
    remove_tree,
    tree_bytes,
    write_file,
)
from evaluator.sandbox.inside import harness
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
    """A running sandbox child and the server's ends of its pipes."""

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
    )

    def __init__(self, pid: int, status_r: int, ctrl_w: int | None, key: bytes, brief_fd: int):
        self.pid, self.status_r, self.ctrl_w, self.key = pid, status_r, ctrl_w, key
        self.statm: int | None = None  # /proc/<pid>/statm, for a child held to resident memory
        self.held = 0  # bytes it held (memory and files) when killed over the memory limit
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
        self.run_dir = os.path.join(self.tmp_root, "run")  # reused, emptied after each child
        # Test files are made and read through this descriptor: a program that renamed the
        # directory and left a symlink in its place cannot point the server elsewhere.
        self.run_fd = os.open(self.run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self.staged = 0  # bytes of the test's input file in the run dir (not the program's)
        self.script = os.path.join(self.run_dir, harness.SOURCE_NAME)  # the code's file name
        # where a program file's job puts its file, read-only to its children (template.py)
        self.program_path = os.path.join(self.tmp_root, template.PROGRAM_DIR, PROGRAM_NAME)
        self.info: dict[str, Any] = {"pid": os.getpid(), "profile": config["profile"].get("name")}
        self.info.update(template_info)
        self.template_pid: int = template_info["template_pid"]
        # A second template with the packages too slow to import in each child (NumPy),
        # forked by the first on the first job that imports one of them.
        self.heavy = config.get("heavy") or []
        names = "|".join(re.escape(name) for name in self.heavy)
        self.heavy_pattern = re.compile(rf"\b(?:{names})\b") if self.heavy else None
        self.heavy_link: _socket.socket | None = None
        self.heavy_pid: int | None = None
        # Memfds kept between jobs (creating and closing seven per submission showed up in
        # profiles) and one read buffer, written into and never reallocated.
        self.spare_memfds: list[int] = []
        self.inbox = bytearray(_INBOX)
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
            if job.get("executable"):  # its file's bytes come in the next frame
                binary = self.requests.read_frame()
                if binary is None:
                    break
                self.run_program(job, binary)
            else:
                self.run_job(job)
            if self._reap_orphans():  # a descendant outlived its child: it may hold memfds
                self._drop_spare_memfds()
        if self.heavy_link is not None:
            self.heavy_link.close()
            os.waitpid(self.heavy_pid, 0)
        self.link.close()  # the template sees the end of its socket and exits: reap it here,
        os.waitpid(self.template_pid, 0)  # so its CPU time reaches the pool's rusage
        remove_tree(self.tmp_root)

    def run_job(self, job: dict[str, Any]) -> None:
        job["heavy"] = bool(self.heavy_pattern and self.heavy_pattern.search(job["code"]))
        self._run_job(job)

    def run_program(self, job: dict[str, Any], binary: bytes) -> None:
        """A program file's job (``Job.executable``, a compiled binary): the file staged once
        for the job, read-only to its children; a fresh child per test executes it (a
        program runs once per input, whatever the isolation) with the test's input on fd 0.
        The verdict comes from the kernel: the exit status ``wait4`` gives and what it wrote."""
        executable = self._stage_program(binary)
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
            os.unlink(self.program_path)  # no later job may find it
        write_frames(self.resp_fd, DONE)

    def _stage_program(self, binary: bytes) -> int:
        """Write the job's program file (owner read and execute only) and open it for the
        children's exec; the descriptor. Runs after every child of the last job is reaped."""
        try:
            os.unlink(self.program_path)  # a job cut short by a crash left it
        except FileNotFoundError:
            pass
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        fd = os.open(self.program_path, flags, 0o500)
        try:
            view = memoryview(binary)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)  # closed before any exec: an open writer makes it ETXTBSY
        return os.open(self.program_path, os.O_RDONLY | os.O_CLOEXEC)

    def _run_job(self, job: dict[str, Any]) -> None:
        # Compiled once here; each child gets the code object marshalled in its brief (a
        # compile in every child cost ~200 copy-on-write faults, ~1 ms).
        program = job["program"] = compile_program(job["code"], self.script)
        if job.get("tests_code") is not None:
            if not isinstance(program, str):
                header, out, err = self._run_split(job)
                if header.get("status") != "unsplittable":
                    self._send_result(header, out, err)
                    write_frames(self.resp_fd, DONE)
                    return
            # A syntax error, or tests that pass the candidate something that cannot cross
            # processes: run them joined, in one module, as HumanEval's own harness does.
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
                write_frames(self.resp_fd, DONE)
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
        write_frames(self.resp_fd, DONE)

    def _run_test(self, job, fds, text, executable=None):
        """One test in a fresh child (isolation ``test``). A stdin program's verdict comes
        from the kernel: what it wrote on fd 1 and the exit status ``wait4`` gives, once it
        has exited (its report only names an uncaught exception); other modes need the
        child's report of the returned value. With ``executable`` (the descriptor of a
        program file) the child executes it, held to resident memory (see _await_report)."""
        limits = job["limits"]
        script = job["mode"] == "stdin"
        self._put_input(job, fds[0], text)  # stdout/stderr were emptied when last read
        if executable is None:
            child = self._spawn(_brief(job, "run", count=1), fds, heavy=job["heavy"])
        else:
            brief = {"role": "exec", "limits": limits, "argv": job["argv"]}
            child = self._spawn(brief, fds, (executable,))
        start_wall = time.monotonic()
        report, limit = self._await_report(
            child,
            limits,
            start_wall,
            0.0,
            until_exit=script,
            stop=job.get("early_exit"),
            fast=executable is not None,
        )
        wall = time.monotonic() - start_wall
        status, usage = self._finish(child, kill=True, clean=not job.get("output_file"))
        if limit == "stop":
            self._clean_run_dir()
            return None
        if executable is not None and report is not None:  # only before its exec: it failed
            header = {"status": "not_started", "exception": str(report.get("exception"))[:300]}
        elif script:
            header = headers.from_wait(report, status)
        else:
            header = headers.from_exit(report, status)
        header["cpu_time"] = usage.ru_utime + usage.ru_stime
        header["peak_memory_kb"] = max(usage.ru_maxrss, child.held >> 10)
        header["wall_time"] = wall
        header["limit"] = limit or headers.limit_from(header, limits)
        return self._with_file_output(job, *headers.with_output(header, fds, limits), clean=True)

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
        try:
            for index, text in enumerate(todo):
                self._put_input(job, fds[0], text)
                start_cpu, start_wall = child.cpu(), time.monotonic()
                try:
                    os.write(child.ctrl_w, index.to_bytes(4, "big"))
                    started = True
                except OSError:  # the child is gone already (or closed its control pipe)
                    started = False
                report, limit = (None, None)
                if started:
                    report, limit = self._await_report(
                        child, limits, start_wall, start_cpu, data=2, stop=job.get("early_exit")
                    )
                if limit == "stop":  # the pool judged an earlier test failed: skip the rest
                    return None
                if report is None:  # killed or died mid-test: the kernel tells what happened
                    header, out, err = self._batch_loss(
                        child, fds, job, limit, start_cpu, start_wall, job["mode"] == "stdin"
                    )
                    child = None
                else:  # the child waits for its next test: the output file stays as it is
                    header, out, err = self._with_file_output(
                        job, *headers.batch_header(report, limits, start_wall)
                    )
                    if header.get("changed"):  # adaptive: the child has stopped; go on fresh
                        self._finish(child, kill=False)
                        child = None
                done = first + index + 1 == len(job["inputs"])
                if done and child is not None:  # the job ends clean: its run dir empty, the
                    self._finish(child, kill=True)  # child reaped, when the pool hears of it
                    child = None
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

    def _batch_loss(self, child, fds, job, limit, start_cpu, start_wall, script):
        """A batch child that died or was killed mid-test: the kernel tells how, and the
        stdio memfds still hold what the test wrote (the child empties them per report)."""
        limits = job["limits"]
        status, usage = self._finish(child, kill=True, clean=not job.get("output_file"))
        header = headers.from_wait(None, status) if script else headers.from_exit(None, status)
        header["cpu_time"] = max(0.0, usage.ru_utime + usage.ru_stime - start_cpu)
        header["peak_memory_kb"] = max(usage.ru_maxrss, child.held >> 10)
        header["wall_time"] = time.monotonic() - start_wall
        header["limit"] = limit or headers.limit_from(header, limits)
        return self._with_file_output(job, *headers.with_output(header, fds, limits), clean=True)

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
        write_frames(self.resp_fd, head, value, out, err, *((DONE,) if done else ()))
        self.done_sent = done

    def _clean_run_dir(self) -> None:
        """Empty the run dir (always listed: a coarse mtime can miss a quick change)."""
        clear_dir(self.run_dir)
        self.staged = 0

    def _put_input(self, job: dict[str, Any], stdin: int, text: str) -> None:
        """The test's input on the stdin memfd, or with ``input_file`` in that file of the
        run dir and stdin empty. A job with test files has its run dir emptied here, by the
        server, before each test (a batch child leaves it alone: see inside.batch): no test
        sees another's input or output file."""
        name = job.get("input_file")
        if _has_files(job):
            self._clean_run_dir()
        if name is None:
            _fill_input(stdin, text)
            return
        fill(stdin, b"")
        self.staged = write_file(self.run_fd, name, _input_bytes(text))

    def _with_file_output(self, job, header: dict[str, Any], out: bytes, err: bytes, clean=False):
        """A test's result frames with ``output_file``'s bytes as its stdout (read once the
        program has ended or waits for its next test; what it wrote on fd 1 was read within
        the output limit and is dropped); with ``clean`` (its child is gone) the run dir is
        emptied after. A file that is missing or not a regular file is ``file_error``; one
        over the output limit, an OLE."""
        name = job.get("output_file")
        if name is None:
            return header, out, err
        limit = job["limits"]["output_bytes"]
        try:
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

    def _spawn(
        self, brief: dict[str, Any], fds: list[int], extra=(), batch=False, heavy=False
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
        return child

    def _fork(self, fds: list[int], heavy: bool = False) -> int:
        """Ask a template for a child holding ``fds``; its pid (it is this server's child)."""
        link = self._heavy_link() if heavy else self.link
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

    def _heavy_link(self) -> _socket.socket:
        """The heavy template's socket, started on first use: the first template forks it,
        so it never held a job either."""
        if self.heavy_link is not None:
            return self.heavy_link
        ours, theirs = _socket.socketpair(
            _socket.AF_UNIX, _socket.SOCK_SEQPACKET | _socket.SOCK_CLOEXEC
        )
        try:
            rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]))]
            self.link.sendmsg([b"t"], rights)
            answer = self.link.recv(4)
        except OSError as exc:
            raise TemplateGone(f"the fork template is gone: {exc}") from exc
        finally:
            theirs.close()
        pid = int.from_bytes(answer, "big", signed=True) if len(answer) == 4 else -1
        hello = ours.recv(1 << 16) if pid > 0 else b""
        if not hello:
            raise TemplateGone("the heavy fork template failed to start")
        self.heavy_link, self.heavy_pid = ours, pid
        return ours

    def _await_report(
        self,
        child: _Child,
        limits,
        start_wall: float,
        start_cpu: float,
        partner=None,
        data=0,
        until_exit=False,
        stop=False,
        fast=False,
    ):
        """Wait for the child's report (and with ``data=2`` the test's stdout and stderr
        after it) while enforcing the CPU limit (the child's CPU clock,
        unforgeable; with ``partner``, the candidate of a split test, the two together) and
        the wall-clock backstop. Returns (report, limit hit). With ``until_exit``, waits
        until the child has exited and returns its last report (None if it sent none). With
        ``stop`` (early exit), a stop from the pool kills the child: (None, "stop").

        The program (``partner`` when there is one, else the child) is killed ("memory")
        when what it holds grows past the memory limit: its resident memory (shared mappings
        too, which RLIMIT_DATA does not count) plus the files in the run directory. It is
        checked at each tick: every 10 ms with ``fast`` (an executed program, whose
        RLIMIT_DATA is only a backstop), else with the CPU check."""
        cpu_limit = limits["cpu_time"]
        wall_limit = limits["wall_time"] or 2 * cpu_limit + 1.0
        memory_limit = limits["memory_mb"] << 20
        program = partner if partner is not None else child
        tick = 0.01 if fast else min(0.1, max(0.01, cpu_limit / 10))
        poller = child.poller
        exited = False
        last = None
        if stop:  # a stop from the pool wakes the wait (checked after each test as well)
            poller.register(self.requests.fd, select.POLLIN)
        while True:
            report = self._take_report(child, data)
            if report is not None:
                if not until_exit:
                    return report, None
                last = report
                continue
            left = start_wall + wall_limit - time.monotonic()
            if left <= 0:
                self._kill(child, partner)
                return last, "wall"
            events = dict(poller.poll(min(left, tick) * 1000))
            if stop and self.requests.fd in events:
                if self._stop_asked():
                    self._kill(child, partner)
                    return None, "stop"
                events.pop(self.requests.fd)
            eof = False
            if child.status_r in events:
                size = os.readv(child.status_r, [self.inbox])
                if size:
                    child.buffer += memoryview(self.inbox)[:size]
                    continue
                poller.unregister(child.status_r)  # EOF: only the exit is left to see
                eof = True
            if child.pidfd in events or exited:
                exited = True
                poller.unregister(child.pidfd) if child.pidfd in events else None
                if eof or child.status_r not in events:  # nothing more can arrive
                    return (self._take_report(child, data) or last), None
                continue
            held = self._holds(program, memory_limit) if not events else 0
            if held > memory_limit:  # first: a program over both limits at a tick crossed
                program.held = held  # this one first
                self._kill(child, partner)
                return last, "memory"
            if not events and _cpu(child, partner) - start_cpu > cpu_limit:
                self._kill(child, partner)
                return last, "cpu"

    def _holds(self, program: _Child, limit: int) -> int:
        """Bytes the program holds: its resident memory and its files in the run directory
        (on a tmpfs /tmp they are memory too; anywhere, a program must not fill a disk)."""
        resident = program.resident()
        files = tree_bytes(self.run_dir, limit - resident + 1 + self.staged)
        return resident + max(0, files - self.staged)  # the input file is the test's

    @staticmethod
    def _take_report(child: _Child, data: int):
        """The next signed report in the child's buffer (its header and value frames, and
        with ``data`` its frames after them: the test's stdout and stderr), skipping frames
        the program wrote on the channel itself (they lack the run's key: ignored, so they
        can neither pass a test nor shift the reports of the tests after it); None until one
        is complete."""
        buffer = child.buffer
        while (end := frames_end(buffer, 2 + data)) is not None:
            frames = split_frames(buffer, 2 + data)
            report = reports.unpack_signed(frames[0], frames[1], child.key)
            if report is None:  # drop the first frame: the report may start at the next
                del buffer[: frames_end(buffer, 1)]
                continue
            del buffer[:end]
            return (report, *frames[2:]) if data else report
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
        for fd in (child.pidfd, child.status_r, child.ctrl_w, child.statm):
            if fd is not None:
                os.close(fd)
        self._give_memfds([child.brief_fd])
        if clean:
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

    def _reap_orphans(self) -> bool:
        """Reap descendants that outlived their child (re-parented here: the server is a
        subreaper; only profiles that allow processes have any). True if some still run."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = 0
            if pid in (self.template_pid, self.heavy_pid):
                raise TemplateGone("a fork template exited")
            if pid == 0:
                break
        try:
            with open(f"/proc/self/task/{os.getpid()}/children", "rb") as listing:
                children = listing.read().split()
        except OSError:  # no CONFIG_PROC_CHILDREN: assume the worst
            return True
        return any(int(pid) not in (self.template_pid, self.heavy_pid) for pid in children)


_INBOX = 256 << 10
DONE = b""  # the frame that ends a job's results
PROGRAM_NAME = "solution"  # the staged program file (its children's /proc/self/exe)
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _brief(job: dict[str, Any], role: str, **extra: Any) -> dict[str, Any]:
    """What a child needs of ``job`` to run the program's side (never the tests' code)."""
    keys = ("code", "program", "mode", "func_name", "preamble", "limits", "environment")
    keys += ("isolation",)
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
    """Whether the job's tests have an input or output file (checked plain names: the
    server opens them under its run dir's descriptor)."""
    names = [job.get("input_file"), job.get("output_file")]
    if any(name is not None and not is_plain_name(name) for name in names):
        raise ValueError(f"a test file is a plain name, not {names!r}")
    return any(name is not None for name in names)


def _cpu(child: _Child, partner: _Child | None) -> float:
    return child.cpu() + (partner.cpu() if partner is not None else 0.0)


def main() -> None:
    stack_mb = int(sys.argv[sys.argv.index("--stack-mb") + 1]) if "--stack-mb" in sys.argv else 1024
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
    os.mkdir(os.path.join(settings["tmp_root"], template.PROGRAM_DIR), 0o700)
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


if __name__ == "__main__":
    main()
