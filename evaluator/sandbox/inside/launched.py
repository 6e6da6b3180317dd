"""The wrapper every trusted program starts in (:mod:`evaluator.sandbox.launcher`): limits and
confinement, then the program. Run as ``python -I -S launched.py CONFIG PROGRAM ARGS...``
(never imported: it loads the sandbox's :mod:`~evaluator.sandbox.kernel` from the file the
config names, so it needs nothing of the packages above it).

Three processes, so that nothing the program starts outlives it:

- the **wrapper** (this script's first process, the launcher's child): sets the rlimits every
  process below inherits, moves the next ones into new PID, IPC and network namespaces (a
  root grader), starts the init and ends as the program ended (its exit status, or the
  signal that killed it), which it learns from the init through a pipe;
- the **init** (pid 1 of the new PID namespace): starts the program and waits for it. When
  the program ends, the init exits, and the kernel kills every process left in the
  namespace (a ``setsid`` daemon, a double fork); System V and POSIX IPC objects die with
  the IPC namespace. Where no namespace could be made (a grader that is not root, a
  container without ``CAP_SYS_ADMIN``), it is the program's subreaper instead, and kills
  every descendant left (orphans are re-parented to it) before it exits. The init keeps
  the grader's user and no confinement: the program's Landlock domain may not signal it;
- the **program**: a private mount namespace that opens the way to its paths where one is
  closed to others (a pyenv in root's ``0700`` home: a read-only tmpfs over the closed
  directory, holding only bind mounts of the way on), no new privileges, Landlock, the
  unprivileged user (a root grader never runs it as uid 0), the seccomp filter, then
  ``execve``.

A step that fails exits :data:`~evaluator.sandbox.launcher.START_FAILED` with its mark and the
reason on stderr (config ``failed`` and ``mark``).
"""

import binascii
import json
import os
import resource
import signal
import sys
from importlib import util

_STATUS_BYTES = 16  # the program's wait status, as decimal text, from the init to the wrapper
# Ignored here (by Python's start-up, or by the wrapper, which outlives the launcher's SIGTERM)
# and kept ignored across an exec: the program starts with them at their default, as from a
# shell (subprocess's restore_signals)
_DEFAULT_AT_EXEC = (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM)


def main() -> None:
    config = json.loads(sys.argv[1])
    argv = sys.argv[2:]
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the launcher's is for the init
        kernel = _load_kernel(config["kernel"])
        # decoded before Landlock, which may leave the interpreter's own modules unreadable
        config["seccomp"] = binascii.a2b_base64(config["seccomp"])
        for name, soft, hard in config["rlimits"]:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        namespaced = _new_namespaces(kernel)
        reader, writer = os.pipe()  # close-on-exec: the program never holds it
        init = os.fork()
    except BaseException as exc:  # noqa: BLE001 - reported to the launcher, whatever it is
        _fail(config, exc)
    if init == 0:
        os.close(reader)
        _init(kernel, config, argv, writer, namespaced)
    os.close(writer)
    status = _read_status(reader)
    _, init_status = os.waitpid(init, 0)
    _end_as(status if status is not None else init_status)


def _load_kernel(path: str):  # noqa: ANN202 - a module loaded from its file
    spec = util.spec_from_file_location("kernel", path)
    kernel = util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    return kernel


def _new_namespaces(kernel) -> bool:  # noqa: ANN001
    """New PID, IPC and network namespaces for the processes forked after this call (a root
    grader's); False when they cannot be made (then only a network namespace, if that can)."""
    if os.geteuid() != 0:
        return False
    if kernel.unshare(kernel.CLONE_NEWPID | kernel.CLONE_NEWIPC | kernel.CLONE_NEWNET):
        return True
    kernel.unshare_network()
    return False


def _init(kernel, config, argv, writer: int, namespaced: bool) -> None:  # noqa: ANN001
    """The init: start the program, wait for it, leave nothing behind, report its status.
    The launcher's SIGTERM (its wall-clock limit, a stop) ends it at once, and with it the
    namespace; outside one, its handler kills every descendant first."""
    try:
        kernel.set_parent_death_signal(signal.SIGKILL)  # the wrapper killed: so is all below
        if namespaced:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        else:
            kernel.set_child_subreaper()
            signal.signal(signal.SIGTERM, lambda signum, _: _killed_by_launcher(kernel, signum))
        program = os.fork()
        if program == 0:
            os.close(writer)
            _start_program(kernel, config, argv)
        status = _wait_for(program)
        if not namespaced:
            _kill_descendants(kernel)
        os.write(writer, str(status).encode())
    except BaseException as exc:  # noqa: BLE001
        _fail(config, exc)
    os._exit(0)  # pid 1 of its namespace: the kernel kills whatever is left in it


def _killed_by_launcher(kernel, signum: int) -> None:  # noqa: ANN001
    _kill_descendants(kernel)
    os._exit(128 + signum)


def _wait_for(program: int) -> int:
    """Reap children (orphans re-parented to the init among them) until ``program`` ends;
    its wait status."""
    while True:
        pid, status = os.wait()
        if pid == program:
            return status


def _kill_descendants(kernel) -> None:  # noqa: ANN001
    """Kill every process left below this subreaper: its children (zombies among them),
    whose own children are then re-parented to it, until none is left."""
    while kernel.kill_children():
        pass


def _start_program(kernel, config, argv) -> None:  # noqa: ANN001
    """Confine this process and execute the program; never returns."""
    try:
        root = os.geteuid() == 0
        if root and config["closed"]:
            if not kernel.unshare(kernel.CLONE_NEWNS):
                raise PermissionError(
                    f"{config['closed'][0]} is closed to the program's user and no mount "
                    "namespace can open the way (the grader lacks CAP_SYS_ADMIN)"
                )
            kernel.expose_paths(config["closed"])
        kernel.set_no_new_privs()
        _landlock(kernel, config)
        if root:
            kernel.become(*config["user"])  # never uid 0: the launcher always names a user
        kernel.load_seccomp_bpf(kernel.SeccompProgram(config["seccomp"]))
        for sig in _DEFAULT_AT_EXEC:
            signal.signal(sig, signal.SIG_DFL)
        os.execve(argv[0], argv, config["env"])
    except BaseException as exc:  # noqa: BLE001
        _fail(config, exc)


def _landlock(kernel, config) -> None:  # noqa: ANN001
    abi = kernel.landlock_abi()
    if not abi:
        return
    ruleset = kernel.landlock_create_ruleset(abi)
    for path in config["readable"]:
        if os.path.exists(path):
            kernel.landlock_allow(ruleset, path, kernel.FS_READ)
    kernel.landlock_allow(ruleset, "/dev/null", kernel.FS_READ_FILE | kernel.FS_WRITE_FILE)
    kernel.landlock_allow(ruleset, config["work"], kernel.fs_rights(abi))
    kernel.landlock_restrict_self(ruleset)
    os.close(ruleset)


def _read_status(reader: int) -> int | None:
    data = b""
    while chunk := os.read(reader, _STATUS_BYTES):
        data += chunk
    os.close(reader)
    return int(data) if data else None


def _end_as(status: int) -> None:
    """End this process as a process with wait status ``status`` ended: the same exit status,
    or killed by the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:  # SIGKILL has no disposition to set
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # a signal that does not end a process (none ends a program so)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _fail(config, exc: BaseException) -> None:  # noqa: ANN001
    os.write(2, f"{config['mark']}{type(exc).__name__}: {exc}\n".encode())
    os._exit(config["failed"])


if __name__ == "__main__":
    main()
