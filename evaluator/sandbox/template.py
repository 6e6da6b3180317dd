"""The fork template: the process every sandbox child is forked from. It never sees a job.

A child starts as a copy of the process that forked it, and a program can read its whole
address space (``ctypes.string_at``). The fork server handles every job's code and every
test's output, in live objects and in freed memory it has not reused yet; children forked from
it could read a sibling completion's answers and print them. So the server forks this template
once, at start-up, before it has read any job, and never forks again. The template pre-imports
the modules solutions commonly use, builds the confinement once (seccomp BPF, Landlock ruleset,
empty network namespace) and then only forks: the server sends the child's file descriptors
over a unix socket (``SCM_RIGHTS``, no payload), the template forks a child with
``CLONE_PARENT`` (so the server is its parent: it reaps it with ``wait4``, exact peak memory)
and answers with the pid. The child reads what to run (the "brief": its code object, compiled
by the server and marshalled, mode, limits, report key) from a memfd the server filled,
confines itself and runs the in-sandbox harness (:mod:`evaluator.sandbox.inside`).
"""

from __future__ import annotations

import _signal
import _socket
import array
import base64
import fcntl
import gc
import json
import marshal
import math
import os
import resource
import signal
import sys
import traceback
from typing import Any

from evaluator.sandbox import kernel, reference
from evaluator.sandbox.files import read_all
from evaluator.sandbox.inside import batch, harness, interpreter, split, state

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
MAX_FDS = 64  # a child's descriptors: stdio, reports, controls, spares, the brief
PROGRAM_DIR = "program"  # beside run/ in the worker's directory: the job's program file
_HIGH_FD = 200  # received descriptors are moved above the child's fixed layout first
_SIGKILL = int(signal.SIGKILL)
# A plain run's signal dispositions, but SIGXFSZ: at its default, output over the limit kills
# the child (reported as OLE) where a plain run would see EFBIG.
_SIGNALS = (
    (int(signal.SIGINT), _signal.default_int_handler),
    (int(signal.SIGPIPE), _signal.SIG_IGN),
    (int(signal.SIGTERM), _signal.SIG_DFL),
    (int(signal.SIGXFSZ), _signal.SIG_DFL),
)


class Template:
    """Start-up (in the template process) and the children's side of a run."""

    def __init__(self, config: dict[str, Any]) -> None:
        if not kernel.CAN_FORK_SIBLING:
            raise RuntimeError(f"the sandbox needs x86_64 or aarch64 Linux, not {os.uname()}")
        self.tmp_root: str = config["tmp_root"]
        self.run_dir = os.path.join(self.tmp_root, "run")
        self.program_dir = os.path.join(self.tmp_root, PROGRAM_DIR)
        self.profile: dict[str, Any] = config["profile"]
        self.heavy: list[str] = list(config.get("heavy", []))
        self.info: dict[str, Any] = {"template_pid": os.getpid()}
        _preload(PRELOAD + list(config.get("preload", [])))
        self.bpf = self._seccomp("seccomp_bpf")
        self.exec_bpf = self._seccomp("seccomp_exec_bpf")  # a child that runs a program file
        self.ruleset_fd = self._landlock()
        self.info["network_namespace"] = bool(
            self.profile.get("network_namespace") and os.geteuid() == 0 and kernel.unshare_network()
        )
        self.drop_caps = bool(self.profile.get("drop_capabilities")) and os.geteuid() == 0
        # Signals a child ignores (the interpreter's, those the server inherited, SIGPIPE):
        # put back to their defaults before a program file is executed.
        ignored = {n for n in _settable_signals() if _signal.getsignal(n) == _signal.SIG_IGN}
        ignored |= {sig for sig, handler in _SIGNALS if handler == _signal.SIG_IGN}
        self.ignored = sorted(ignored)
        harness.install_audit_hook()
        self._child_environment()
        interpreter.prepare(config["reference"], self.run_dir)
        gc.collect()
        # Module globals as the children start with them (adaptive isolation compares against
        # it; made here, once, so a child does not touch every module's objects to copy them).
        self.snapshot = state.Snapshot()
        gc.freeze()  # keep the children's GC off the template's pages: fewer copy-on-write faults

    # -- start-up -------------------------------------------------------------------------

    def _seccomp(self, key: str) -> kernel.SeccompProgram | None:
        """The filter arrives compiled by the pool (no libseccomp in this lean process)."""
        bpf = self.profile.get(key)
        return kernel.SeccompProgram(base64.b64decode(bpf)) if bpf else None

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
        # Writes only in the run directory, which the server empties after each child: not
        # in the worker's directory around it, where a file would outlive the submission.
        kernel.landlock_allow(ruleset, self.run_dir, kernel.fs_rights(abi))
        # The program file of the job being run (read and execute only: no run can change
        # what a later test of the same job executes).
        kernel.landlock_allow(ruleset, self.program_dir, kernel.FS_READ_FILE | kernel.FS_EXECUTE)
        return ruleset

    def _child_environment(self) -> None:
        """What every child gets, set once here rather than after each fork (work in a child
        touches pages, and each touched page is a copy-on-write fault): the run dir as working
        and temp directory, single-threaded BLAS, no inherited variables."""
        os.chdir(self.run_dir)
        os.environ.clear()
        os.environ.update(reference.child_environment(self.run_dir))
        if "tempfile" in sys.modules:  # its cached default dir would be /tmp
            sys.modules["tempfile"].tempdir = self.run_dir

    # -- forking --------------------------------------------------------------------------

    def serve(self, sock: _socket.socket) -> None:
        """Fork a child for each set of descriptors the server sends; answer with its pid (a
        negative errno when the fork failed). A ``t`` message with one socket asks for a
        heavy template instead (:meth:`_become_heavy`). Returns when the server closes the
        socket."""
        space = _socket.CMSG_SPACE(MAX_FDS * 4)
        while True:
            kind, ancillary, _, _ = sock.recvmsg(1, space, _socket.MSG_CMSG_CLOEXEC)
            fds = _received_fds(ancillary)
            if not fds:  # the server closed its end (or sent nothing to run)
                return
            if kind == b"t":
                sock.send(self._fork_heavy(sock, fds[0]).to_bytes(4, "big", signed=True))
                continue
            # Moved above the child's fixed layout here, not in the child: each object a
            # child touches costs it a copy-on-write fault.
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD) for fd in fds]
            for fd in fds:
                os.close(fd)
            try:
                pid = kernel.fork_sibling()
            except OSError as exc:
                pid = -(exc.errno or 1)
            if pid == 0:  # pragma: no cover - runs in the child
                self._child(high)
            for fd in high:
                os.close(fd)
            sock.send(pid.to_bytes(4, "big", signed=True))

    def _fork_heavy(self, sock: _socket.socket, link: int) -> int:
        """Fork the heavy template (a sibling: the server's child, as every child is) and
        give it ``link``, its socket to the server; its pid."""
        try:
            pid = kernel.fork_sibling()
        except OSError as exc:
            os.close(link)
            return -(exc.errno or 1)
        if pid == 0:  # pragma: no cover - the heavy template
            code = 1
            try:
                sock.close()
                kernel.set_parent_death_signal(_SIGKILL)
                self._become_heavy(_socket.socket(fileno=link))
                code = 0
            except BaseException:  # noqa: BLE001 - say why on the pool's stderr
                traceback.print_exc()
            finally:
                os._exit(code)
        os.close(link)
        return pid

    def _become_heavy(self, link: _socket.socket) -> None:
        """The heavy template: this template plus the packages too slow to import in every
        child (NumPy), for programs that import them. Forked from a template that never saw
        a job, it never sees one either; its children are the server's children."""
        gc.unfreeze()
        _preload(self.heavy)
        interpreter.hide_own_modules()
        gc.collect()
        self.snapshot = state.Snapshot()
        gc.freeze()
        link.send(json.dumps({"template_pid": os.getpid()}).encode())
        self.serve(link)

    # -- in the child ---------------------------------------------------------------------

    def _child(self, high: list[int]) -> None:
        """Set the child up from the received descriptors (already moved above its fixed
        layout) and run its brief. Never returns.

        Layout: fds 0-2 are the stdin/stdout/stderr memfds; the harness's own sit at the top
        of the open-file range (:class:`Layout`), so the program's first ``open()`` gets fd 3
        as in a plain run. In the order received: the report channel; a batch adds the control
        pipe (the server's go-ahead for each test) and spare copies of 0-2 (a test may close
        them); a split assertion test adds calls in and calls out; the last one is the brief."""
        code = 70
        try:
            os.setsid()  # own process group: the server kills the whole group
            kernel.set_parent_death_signal(_SIGKILL)
            for sig, handler in _SIGNALS:
                _signal.signal(sig, handler)  # not signal.signal: its enum wrapping
                # touches ~100 pages, each a copy-on-write fault
            if "random" in sys.modules:  # the fork skipped random's own reseed
                sys.modules["random"].seed()
            brief = marshal.loads(read_all(high[-1]))  # written by the server: trusted
            layout = Layout(brief["limits"], len(high) - 4)
            for target, fd in zip(layout.targets(), high[:-1], strict=True):
                os.dup2(fd, target)  # dup2 clears close-on-exec on the copy
            if brief["role"] == "exec":
                code = 71  # only if the exec fails after its report could not be sent
                self._exec_program(brief, layout)
            if brief["role"] == "batch":  # before confinement: /proc is not readable after it
                state.open_proc_files(layout.move)
            for which, pair in _rlimits(brief["limits"], brief.get("count", 1), layout.files):
                resource.setrlimit(which, pair)
            environment = brief.get("environment") or {}
            if "recursion_limit" in environment:
                sys.setrecursionlimit(int(environment["recursion_limit"]))
            if "int_max_str_digits" in environment:
                sys.set_int_max_str_digits(int(environment["int_max_str_digits"]))
            harness.arm_reports(brief.pop("key"), layout.reports)
            split.CALLS_IN_FD, split.CALLS_OUT_FD = layout.at(1), layout.at(2)
            self._confine()
            os.closerange(3, layout.lowest)  # the template's own, the brief, the socket...
            os.closerange(layout.top + 1, 1 << 16)  # ... the received copies, the ruleset
            self.layout = layout
            code = 0
            self._run(brief)
        except BaseException as exc:  # noqa: BLE001 - sandbox set-up failed: say why on stderr
            try:
                os.write(2, f"sandbox: {type(exc).__name__}: {exc}\n".encode("utf-8", "replace"))
            except OSError:
                pass
        finally:
            os._exit(code)

    def _confine(self, bpf: kernel.SeccompProgram | None = None, exec_next: bool = False) -> None:
        bpf = bpf or self.bpf
        if self.ruleset_fd is not None or bpf is not None:
            kernel.set_no_new_privs()
        if self.ruleset_fd is not None:
            kernel.landlock_restrict_self(self.ruleset_fd)
        if self.drop_caps:
            if exec_next:  # else the exec by uid 0 would give every capability back
                kernel.set_securebits_no_root()
            kernel.drop_capabilities()
        if bpf is not None:
            kernel.load_seccomp_bpf(bpf)  # last: it forbids some of the calls above

    def _exec_program(self, brief: dict[str, Any], layout: Layout) -> None:
        """Become the job's program file (a compiled binary), confined as every child is:
        fds 0-2 the test's memfds, the program's limits (:func:`_program_rlimits`), Landlock,
        no capabilities, the profile's seccomp filter with this one exec allowed; a plain
        run's signal dispositions and environment. The server reads the verdict from the
        exit status and the memfds; the report channel closes at the exec and only says
        why, when the exec fails. Never returns."""
        os.dup2(layout.at(1), kernel.PROGRAM_FD, inheritable=False)  # closed by the exec
        for fd in (0, 1, 2):  # shared with the server, where the last test left them
            os.lseek(fd, 0, os.SEEK_SET)
        os.set_inheritable(layout.reports, False)  # EOF at the exec: the program started
        harness.arm_reports(brief.pop("key"), layout.reports)
        try:
            for which, pair in _program_rlimits(brief["limits"]):
                resource.setrlimit(which, pair)
            self._confine(self.exec_bpf, exec_next=True)
            os.closerange(kernel.PROGRAM_FD + 1, layout.reports)
            os.closerange(layout.reports + 1, 1 << 16)
            for number in self.ignored:  # an exec keeps ignored signals ignored; a plain
                _signal.signal(number, _signal.SIG_DFL)  # run from a shell has none
            _signal.pthread_sigmask(_signal.SIG_SETMASK, [])
            kernel.execveat(kernel.PROGRAM_FD, list(brief["argv"]), dict(os.environ))
        except OSError as exc:  # the sandbox's fault (a noexec mount, a foreign binary)
            report = {"status": "not_started", "exception": f"{type(exc).__name__}: {exc}"}
            try:
                harness.send_report(report)
            except OSError:
                pass
        os._exit(71)

    def _run(self, brief: dict[str, Any]) -> None:
        """Run what the brief says (its code objects were compiled by the server)."""
        role, func, pre = brief["role"], brief.get("func_name") or "", brief.get("preamble", True)
        if role == "check":
            harness.send_report(split.run_check(brief["support"], brief["tests"], func))
            return
        code, program = brief["code"], brief["program"]
        if role == "serve":
            split.serve_calls(code, program, func, pre)
        elif role == "batch":
            batch.run_batch(brief, self.layout, self.run_dir, self.snapshot)
        elif brief["mode"] == "stdin":
            # The verdict comes from what the program wrote on fd 1 and the exit status the
            # server's wait4 sees; the report only names an uncaught exception.
            status, extra, _ = harness.run_script_test(code, program, "final")
            if status != interpreter.STATUS_SIGINT:
                try:
                    harness.send_report(harness.script_report(status, extra))
                except OSError:  # the program closed the report channel: wait4 still tells
                    pass
            interpreter.end_process(status)
        elif brief["mode"] == "call":
            stdout, stderr = harness.fresh_stdio()
            module = harness.Module(code, program, pre)
            report = harness.run_call(module, func, batch.read_input(0), stderr)
            harness.flush_streams(stdout, stderr)
            harness.send_report(report)
        else:
            harness.send_report(harness.run_assertion(code, program, func))


def start(config: dict[str, Any], close: tuple[int, ...]) -> tuple[_socket.socket, dict[str, Any]]:
    """Fork the template from the fork server, before the server has read any job. Returns
    the server's end of the socket and the template's start-up facts (pid, Landlock ABI,
    network namespace). ``close``: the server's descriptors the template must not hold."""
    ours, theirs = _socket.socketpair(
        _socket.AF_UNIX, _socket.SOCK_SEQPACKET | _socket.SOCK_CLOEXEC
    )
    server = os.getpid()
    if kernel.fork_lean() == 0:  # pragma: no cover - the template process
        code = 1
        try:
            for fd in close:
                os.close(fd)
            ours.close()
            kernel.set_parent_death_signal(_SIGKILL)
            if os.getppid() == server:  # else the server is already gone
                template = Template(config)
                theirs.send(json.dumps(template.info).encode())
                template.serve(theirs)
                code = 0
        except BaseException:  # noqa: BLE001 - say why on the pool's stderr
            traceback.print_exc()
        finally:
            os._exit(code)
    theirs.close()
    hello = ours.recv(1 << 16)
    if not hello:
        raise RuntimeError("the fork template failed to start (see above)")
    return ours, json.loads(hello)


def _settable_signals() -> list[int]:
    """The signals whose disposition a process may set (not SIGKILL, SIGSTOP or those the
    C library keeps for itself)."""
    valid = _signal.valid_signals()
    return [int(n) for n in valid if int(n) not in (_SIGKILL, int(signal.SIGSTOP))]


def _preload(names: list[str]) -> None:
    for name in names:
        try:
            __import__(name)
        except ImportError:
            pass


def _received_fds(ancillary: list[tuple[int, int, bytes]]) -> list[int]:
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    return fds.tolist()


class Layout:
    """Where a child's harness descriptors go: the top of its open-file range, above the
    ``open_files`` the program may use (fds 3 upwards, as in a plain run). ``at(k)`` is the
    k-th harness descriptor in the order the server sends them (0: the report channel)."""

    def __init__(self, limits: dict[str, Any], harness_fds: int) -> None:
        # below _HIGH_FD, where the template parks what it receives before the moves
        program = min(max(int(limits["open_files"]), 16), _HIGH_FD - 8 - harness_fds)
        # the harness's, plus two for /proc/self/stat{,m} in a batch child
        self.count = harness_fds + 2
        self.files = 3 + program + self.count  # the child's RLIMIT_NOFILE
        self.top = self.files - 1
        self.reports = self.top
        self.lowest = self.top - self.count + 1
        self.spare = self.lowest  # the next free one for move(), counting up

    def at(self, k: int) -> int:
        return self.top - k

    def targets(self) -> list[int]:
        return [0, 1, 2] + [self.at(k) for k in range(self.count - 2)]

    def move(self, fd: int) -> int:
        """``fd`` (opened where the kernel put it) moved into the harness's range, below
        the received ones (at most two: /proc/self/stat and statm)."""
        target = self.spare
        self.spare += 1
        os.dup2(fd, target, inheritable=False)
        os.close(fd)
        return target


def _program_rlimits(limits: dict[str, Any]) -> list[tuple[int, tuple[int, int]]]:
    """An executed program's limits: CPU for its one test plus a second (the server's
    watchdog enforces the test's own), a stack as large as the memory limit (as Codeforces
    and AtCoder give), RLIMIT_DATA as a backstop only (the limit is on resident memory,
    which the server's watchdog and ``wait4`` measure), output size, the program's open
    files (fds 0-2 and ``open_files`` more), no core dumps."""
    cpu = math.ceil(limits["cpu_time"]) + 1
    memory = limits["memory_mb"] << 20
    data = limits["data_mb"] << 20  # Limits.program_data_mb
    stack_hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    stack = memory if stack_hard == resource.RLIM_INFINITY else min(memory, stack_hard)
    files = 3 + int(limits["open_files"])
    size = limits["output_bytes"]
    return [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_DATA, (data, data)),
        (resource.RLIMIT_STACK, (stack, stack)),
        (resource.RLIMIT_FSIZE, (size, size)),
        (resource.RLIMIT_NOFILE, (files, files)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]


def _rlimits(limits: dict[str, Any], tests: int, files: int) -> list[tuple[int, tuple[int, int]]]:
    """A child's resource limits: CPU for all its tests plus a second (the server's watchdog
    enforces each test's own), memory, output size, open files (``files``: the program's
    and the harness's), no core dumps."""
    cpu = math.ceil(limits["cpu_time"] * tests) + 1
    memory = limits["memory_mb"] << 20
    size = limits["output_bytes"]
    return [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_DATA, (memory, memory)),
        (resource.RLIMIT_FSIZE, (size, size)),
        (resource.RLIMIT_NOFILE, (files, files)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
