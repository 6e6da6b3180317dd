"""The fork template: the process every sandbox child is forked from. It never sees a job.

A child starts as a copy of the process that forked it, and a program can read its whole
address space (``ctypes.string_at``). The fork server handles every job's code and every
test's output, in live objects and in freed memory it has not reused yet; children forked from
it could read a sibling completion's answers and print them. So the server forks this template
once, at start-up, before it has read any job, and never forks again. The template pre-imports
the modules solutions commonly use, builds the confinement once (seccomp BPF, Landlock ruleset,
empty network and IPC namespaces, the unprivileged user its children run as, a mount namespace
that opens the way to the interpreter for that user when a directory on it is closed to
others) and then only forks: the server sends the child's file descriptors
over a unix socket (``SCM_RIGHTS``, no payload), the template forks a child with
``CLONE_PARENT`` (so the server is its parent: it reaps it with ``wait4``, exact peak memory)
and answers with the pid. The child reads what to run (the "brief": its code object, compiled
by the server and marshalled, mode, limits, report key) from a memfd the server filled,
confines itself and runs the in-sandbox harness (:mod:`evaluator.sandbox.inside`).
"""

from __future__ import annotations

import _signal
import _socket
import _thread
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
from evaluator.sandbox.files.memfd import read_all
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
# Third-party modules imported up front where installed: small, and imported by many contest
# programs (a sorted list and dict). Imported in each child instead, one cost every program
# that uses it 5-7 ms, so grading slowed down as packages were installed (the platforms
# extra); benchmarks/speed/environment.py measures it.
PRELOAD_IF_INSTALLED = ["sortedcontainers"]
MAX_FDS = 64  # a child's descriptors: stdio, reports, controls, spares, the brief
PROGRAM_DIR = "program"  # beside run/ in the worker's directory: the job's program file
TMP_DIR = "tmp"  # beside run/: the children's /tmp (emptied with run/ by the server)
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
        self.tmp_dir = os.path.join(self.tmp_root, TMP_DIR)
        self.profile: dict[str, Any] = config["profile"]
        self.heavy: list[list[str]] = [list(group) for group in config.get("heavy", [])]
        self.info: dict[str, Any] = {"template_pid": os.getpid()}
        self.server_pid = os.getppid()  # every child's parent (CLONE_PARENT)
        _preload(PRELOAD + PRELOAD_IF_INSTALLED + list(config.get("preload", [])))
        for name in PRELOAD:  # their star names made once here, not in each child that
            harness.star_names(name)  # a job gives them to (Job.names)
        # Namespaces, then the children's own user (before the Landlock ruleset: a directory
        # covered for them must be opened for its rules in the view they will have).
        self.child_ids = self._isolate()
        # A child that keeps the grader's user owns what the grader owns: the filter's
        # variant for it also refuses the calls only ownership would stop (see the profile).
        same = "_same_user" if self.child_ids is None else ""
        self.bpf = self._seccomp("seccomp_bpf" + same)
        self.exec_bpf = self._seccomp("seccomp_exec_bpf" + same)  # a child that execs a file
        self.ruleset_fd = self._landlock()
        self.drop_caps = bool(self.profile.get("drop_capabilities"))
        # Signals a child ignores (the interpreter's, those the server inherited, SIGPIPE):
        # put back to their defaults before a program file is executed.
        ignored = {n for n in _settable_signals() if _signal.getsignal(n) == _signal.SIG_IGN}
        ignored |= {sig for sig, handler in _SIGNALS if handler == _signal.SIG_IGN}
        self.ignored = sorted(ignored)
        harness.install_audit_hook()
        self._child_environment()
        interpreter.prepare(config["reference"], self.run_dir)
        # nothing the preloaded modules' C code buffered may reach a child's exit(3)
        interpreter.flush_c_streams()
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

    def _isolate(self) -> tuple[int, int] | None:
        """What a child shares with the host, cut once here for every child of this worker:
        new network and IPC namespaces (root only: System V shared memory, message queues,
        semaphores and POSIX message queues made in a child die with the worker, and no
        other worker's children see them), and the user the children run as, the
        worker's own (:func:`~evaluator.sandbox.kernel.child_ids`), which owns nothing on
        the host. Its ids, or None when the children keep the grader's user (not root, or
        no user could be made to work: ``info["child_uid"]`` says which; docs/plain-run.md,
        "No privilege")."""
        root = os.geteuid() == 0
        profile, info = self.profile, self.info
        info["network_namespace"] = bool(
            profile.get("network_namespace") and root and kernel.unshare(kernel.CLONE_NEWNET)
        )
        info["ipc_namespace"] = bool(
            profile.get("ipc_namespace") and root and kernel.unshare(kernel.CLONE_NEWIPC)
        )
        info["mount_namespace"] = info["private_tmp"] = False
        info["tmp_keep"] = []
        info["child_uid"] = info["child_gid"] = None
        if root:
            self._private_tmp()
        if not (root and profile.get("unprivileged_child")):
            return None
        ids = kernel.child_ids(self.server_pid, profile.get("child_id_base"))
        needed = self._needed_paths()
        try:
            os.chmod(self.tmp_root, 0o711)  # the way to the run dir (not its listing)
            # The run dir and /tmp: the children's group may make files there, not change
            # them (the sticky bit: nor set extended attributes on them); root owns them.
            for directory in (self.run_dir, self.tmp_dir):
                os.chown(directory, 0, ids[1])
                os.chmod(directory, 0o1770)
            # (the private /tmp has opened the way to what lies in the host's /tmp)
            closed = [p for p in needed if not (info["private_tmp"] and kernel.in_host_tmp(p))]
            if any(kernel.closed_to_others(path) for path in closed):
                # a directory on the way that the children's user may not search
                if not (info["mount_namespace"] or kernel.unshare(kernel.CLONE_NEWNS)):
                    raise OSError("no mount namespace to open the way in")
                info["mount_namespace"] = True
                kernel.expose_paths(closed)
            works = _works_as(ids, needed, (self.run_dir, self.tmp_dir))
        except OSError as exc:
            info["child_user_error"] = str(exc)
            works = False
        if not works:  # the children keep the grader's user: put the directories back
            for directory in (self.run_dir, self.tmp_dir):
                os.chown(directory, 0, 0)
                os.chmod(directory, 0o700)
            os.chmod(self.tmp_root, 0o700)
            return None
        info["child_uid"], info["child_gid"] = ids
        return ids

    def _private_tmp(self) -> None:
        """The children's ``/tmp``: the worker's ``tmp/`` mounted there, in a mount namespace
        of this template's (root only), so ``tmpfile()``, ``mkstemp`` and absolute ``/tmp``
        paths work as in a plain run while nothing reaches the host's ``/tmp``; the server
        empties it with the run dir and counts its files with the run dir's. What a child
        reaches by path inside the host's ``/tmp`` (the worker's directory, an environment
        there) stays at its path (:func:`~evaluator.sandbox.kernel.mount_private_tmp`)."""
        info = self.info
        if not os.path.isdir("/tmp") or not kernel.unshare(kernel.CLONE_NEWNS):
            return
        info["mount_namespace"] = True
        try:
            info["tmp_keep"] = kernel.mount_private_tmp(self.tmp_dir, self._needed_paths())
            info["private_tmp"] = True
        except OSError as exc:
            info["private_tmp_error"] = str(exc)

    def _needed_paths(self) -> list[str]:
        """What a child reaches by path: the readable paths, the program interpreters, the
        worker's directory (its run dir is in it)."""
        paths = [
            *self.profile.get("readable", []),
            *self._interpreters(),
            *self._runtime_paths(),
            self.tmp_root,
        ]
        return sorted({os.path.realpath(p) for p in paths if os.path.exists(p)})

    def _runtime_paths(self) -> list[str]:
        """The runtimes the pool named (``SandboxPool(runtimes=...)``) and what they read."""
        runtimes: dict[str, list[str]] = self.profile.get("runtimes") or {}
        return [*runtimes, *(path for extra in runtimes.values() for path in extra)]

    @staticmethod
    def _interpreters() -> list[str]:
        """The dynamic loaders a program file may name (``PT_INTERP``): the ones this
        interpreter and the shell use, which the system's compilers link against."""
        found = {kernel.elf_interpreter(os.path.realpath(p)) for p in (sys.executable, "/bin/sh")}
        return sorted(p for p in found if p and os.path.isfile(p))

    def _landlock(self) -> int | None:
        abi = kernel.landlock_abi() if self.profile.get("landlock") else 0
        self.info["landlock_abi"] = abi
        if not abi:
            return None
        created = kernel.landlock_create_ruleset(abi)
        ruleset = fcntl.fcntl(created, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD + 100)
        os.close(created)
        # Nothing is executable but a job's program file and the dynamic loader the kernel
        # starts it with (an exec needs both the read and the execute right); the one exec a
        # child makes is the seccomp filter's business (see _exec_program).
        read = kernel.FS_READ_FILE | kernel.FS_READ_DIR
        for path in self.profile.get("readable", []):
            kernel.landlock_allow(ruleset, path, read)
        # The installed runtimes the pool names (an interpreter, a VM: Job.runtime) alike:
        # each file itself, not the tree around it (its libraries are read, not executed).
        runtimes: dict[str, list[str]] = self.profile.get("runtimes") or {}
        for path in (*self._interpreters(), *runtimes):
            kernel.landlock_allow(ruleset, path, kernel.FS_READ_FILE | kernel.FS_EXECUTE)
        # What they read beyond the system's libraries: the files, and a directory's listing
        # too (PHP finds its extensions' .ini files by listing conf.d, RubyGems its gems)
        for path in (path for extra in runtimes.values() for path in extra):
            if os.path.isdir(path):
                kernel.landlock_allow(ruleset, path, read)
            elif os.path.exists(path):
                kernel.landlock_allow(ruleset, path, kernel.FS_READ_FILE)
        for path in ("/dev/null", "/dev/zero", "/dev/full"):
            if os.path.exists(path):
                kernel.landlock_allow(ruleset, path, kernel.FS_READ_FILE | kernel.FS_WRITE_FILE)
        # Writes only in the run directory and /tmp, which the server empties after each
        # child: not in the worker's directory around them, where a file would outlive the
        # submission. Nothing written there can be executed.
        writable = kernel.fs_rights(abi) & ~kernel.FS_EXECUTE
        kernel.landlock_allow(ruleset, self.run_dir, writable)
        if self.info["private_tmp"]:
            kernel.landlock_allow(ruleset, self.tmp_dir, writable)
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
        heavy template instead, its group's number in the message's second byte
        (:meth:`_become_heavy`). Returns when the server closes the socket."""
        space = _socket.CMSG_SPACE(MAX_FDS * 4)
        while True:
            message, ancillary, _, _ = sock.recvmsg(2, space, _socket.MSG_CMSG_CLOEXEC)
            fds = _received_fds(ancillary)
            if not fds:  # the server closed its end (or sent nothing to run)
                return
            if message[:1] == b"t":
                pid = self._fork_heavy(sock, fds[0], self.heavy[message[1] - 1])
                sock.send(pid.to_bytes(4, "big", signed=True))
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

    def _fork_heavy(self, sock: _socket.socket, link: int, packages: list[str]) -> int:
        """Fork a heavy template with ``packages`` (a sibling: the server's child, as every
        child is) and give it ``link``, its socket to the server; its pid."""
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
                self._become_heavy(_socket.socket(fileno=link), packages)
                code = 0
            except BaseException:  # noqa: BLE001 - say why on the pool's stderr
                traceback.print_exc()
            finally:
                os._exit(code)
        os.close(link)
        return pid

    def _become_heavy(self, link: _socket.socket, packages: list[str]) -> None:
        """A heavy template: this template plus ``packages``, too slow to import in every
        child (NumPy; pytest), for programs that import them. Forked from a template that
        never saw a job, it never sees one either; its children are the server's children."""
        gc.unfreeze()
        _preload(packages)
        interpreter.hide_own_modules()
        interpreter.flush_c_streams()
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
        finally:  # exit(3), as the process a judge runs ends (a batch child's last test)
            interpreter.end_process(code)

    def _confine(self, exec_next: bool = False) -> None:
        """Landlock, the worker's user (the kernel clears every capability when a process
        leaves uid 0; none can come back: no_new_privs) or no capabilities left; then, but for a child that executes a program file (``exec_next``: it loads
        its own variant, see :meth:`_exec_program`), the seccomp filter, last: it forbids
        some of the calls before it."""
        if self.ruleset_fd is not None or self.bpf is not None or self.exec_bpf is not None:
            kernel.set_no_new_privs()
        if self.ruleset_fd is not None:
            kernel.landlock_restrict_self(self.ruleset_fd)
        if self.child_ids is not None:
            kernel.become(*self.child_ids)
            kernel.set_parent_death_signal(_SIGKILL)  # the change of user cleared it
            if os.getppid() != self.server_pid:  # the server died before that
                raise RuntimeError("the fork server is gone")
        elif self.drop_caps:  # the grader's own user: root's capabilities go by hand
            if exec_next and os.geteuid() == 0:
                kernel.set_securebits_no_root()  # else the exec by uid 0 gives them all back
            kernel.drop_capabilities()
        if self.bpf is not None and not exec_next:
            kernel.load_seccomp_bpf(self.bpf)

    def _exec_program(self, brief: dict[str, Any], layout: Layout) -> None:
        """Become the job's program file (a compiled binary), confined as every child is:
        fds 0-2 the test's memfds, the program's limits (:func:`_program_rlimits`), Landlock,
        no capabilities, the profile's seccomp filter with this one exec allowed; a plain
        run's signal dispositions and environment (with the job's ``program_environment``).
        The server reads the verdict from the exit status and the memfds; the report
        channel closes at the exec and only says why, when the exec fails. Never returns."""
        os.dup2(layout.at(1), kernel.PROGRAM_FD, inheritable=False)  # closed by the exec
        for fd in (0, 1, 2):  # shared with the server, where the last test left them
            os.lseek(fd, 0, os.SEEK_SET)
        os.set_inheritable(layout.reports, False)  # EOF at the exec: the program started
        harness.arm_reports(brief.pop("key"), layout.reports)
        try:
            for which, pair in _program_rlimits(brief["limits"]):
                resource.setrlimit(which, pair)
            self._confine(exec_next=True)
            os.closerange(kernel.PROGRAM_FD + 1, layout.reports)
            os.closerange(layout.reports + 1, 1 << 16)
            for number in self.ignored:  # an exec keeps ignored signals ignored; a plain
                _signal.signal(number, _signal.SIG_DFL)  # run from a shell has none
            if self.exec_bpf is not None:
                # Exactly one exec: the filter sends every execveat to a listener this child
                # holds close-on-exec, and a thread lets this one through. The exec closes
                # the listener; after it the kernel fails each execveat (ENOSYS).
                listener = kernel.load_seccomp_listener(self.exec_bpf)
                _thread.start_new_thread(kernel.let_one_call_through, (listener, os.getpid()))
            _signal.pthread_sigmask(_signal.SIG_SETMASK, [])
            environment = {**os.environ, **(brief.get("env") or {})}  # the job's additions
            kernel.execveat(kernel.PROGRAM_FD, list(brief["argv"]), environment)
        except OSError as exc:  # the sandbox's fault (a noexec mount, a foreign binary)
            report = {"status": "not_started", "exception": f"{type(exc).__name__}: {exc}"}
            try:
                harness.send_report(report)
            except OSError:
                pass
        os._exit(71)

    def _run(self, brief: dict[str, Any]) -> None:
        """Run what the brief says (its code objects were compiled by the server)."""
        role, func = brief["role"], brief.get("func_name") or ""
        if role == "check":
            report = split.run_check(brief["support"], brief["tests"], func, brief["check_name"])
            harness.send_report(report)
            return
        code, program = brief["code"], brief["program"]
        if role == "serve":
            split.serve_calls(batch.module(brief), func)
        elif role == "batch":
            batch.run_batch(brief, self.layout, self.run_dir, self.snapshot)
        elif brief["mode"] == "stdin":
            # The verdict comes from what the program wrote on fd 1 and the exit status the
            # server's wait4 sees; the report only names an uncaught exception.
            overlay = harness.builtins_with(brief.get("names"))
            status, extra, _ = harness.run_script_test(code, program, "final", overlay)
            if status != interpreter.STATUS_SIGINT:
                try:
                    harness.send_report(harness.script_report(status, extra))
                except OSError:  # the program closed the report channel: wait4 still tells
                    pass
            interpreter.end_process(status)
        elif brief["mode"] == "call":
            stdout, stderr = harness.fresh_stdio()
            report = harness.run_call(
                batch.module(brief), func, batch.read_input(0), stderr, brief.get("output_arg")
            )
            harness.flush_streams(stdout, stderr)
            harness.send_report(report)
        else:
            harness.send_report(
                harness.run_assertion(batch.module(brief), func, brief["check_name"])
            )


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


def _works_as(ids: tuple[int, int], paths: list[str], writable: tuple[str, ...]) -> bool:
    """Whether a process of the user ``ids`` can be made (the ids are valid here: not so in a
    user namespace that does not map them), reach every one of ``paths`` and make a file in
    each of the ``writable`` directories; tried in a throwaway child."""
    pid = kernel.fork_lean()
    if pid == 0:  # pragma: no cover - the probe
        code = 1
        try:
            kernel.become(*ids)
            for path in paths:
                os.stat(path)
            for directory in writable:
                probe = os.path.join(directory, ".probe")
                flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC
                os.close(os.open(probe, flags, 0o600))
                os.unlink(probe)
            code = 0
        except BaseException:  # noqa: BLE001 - the answer is the exit status
            pass
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status == 0


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
        # the harness's, plus the /proc/self files a batch child reads (state.ProcFiles)
        self.count = harness_fds + state.ProcFiles.COUNT
        self.files = 3 + program + self.count  # the child's RLIMIT_NOFILE
        self.top = self.files - 1
        self.reports = self.top
        self.lowest = self.top - self.count + 1
        self.spare = self.lowest  # the next free one for move(), counting up

    def at(self, k: int) -> int:
        return self.top - k

    def targets(self) -> list[int]:
        return [0, 1, 2] + [self.at(k) for k in range(self.count - state.ProcFiles.COUNT)]

    def move(self, fd: int) -> int:
        """``fd`` (opened where the kernel put it) moved into the harness's range, below
        the received ones (at most the /proc/self files of state.ProcFiles)."""
        target = self.spare
        self.spare += 1
        os.dup2(fd, target, inheritable=False)
        os.close(fd)
        return target


def _program_rlimits(limits: dict[str, Any]) -> list[tuple[int, tuple[int, int]]]:
    """An executed program's limits: CPU for its one test plus a second (the server's
    watchdog enforces the test's own), a stack as large as the memory limit (as contest
    judges give: docs/plain-run.md), RLIMIT_DATA as a backstop only (the limit is on resident memory,
    which the server's watchdog and ``wait4`` measure), output size, the program's open
    files (fds 0-2 and ``open_files`` more), no core dumps."""
    cpu = math.ceil(limits["time_limit"]) + 1
    memory = limits["memory_limit"] << 20
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
    cpu = math.ceil(limits["time_limit"] * tests) + 1
    memory = limits["memory_limit"] << 20
    size = limits["output_bytes"]
    return [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_DATA, (memory, memory)),
        (resource.RLIMIT_FSIZE, (size, size)),
        (resource.RLIMIT_NOFILE, (files, files)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
