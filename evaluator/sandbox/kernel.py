"""Thin ctypes wrappers over the Linux interfaces the sandbox needs and Python lacks:
Landlock, seccomp filter loading (and its one-exec gate), capabilities, namespaces and
mounts, credentials, ``prctl``.

Everything here is called either once in a sandbox process or in a freshly forked child, so it
stays dependency-free (no pyseccomp at run time: filters arrive precompiled as BPF bytes).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int

# Syscall numbers: Landlock's are the same on every architecture (added after the unification).
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(os.uname().machine)

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
SECCOMP_MODE_FILTER = 2
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

# Landlock access rights (uapi/linux/landlock.h), with the ABI that introduced them.
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

FS_READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
_FS_ALL_V1 = (1 << 13) - 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable or disabled."""
    result = _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), 1)
    return max(int(result), 0)


def fs_rights(abi: int) -> int:
    """All filesystem rights this ABI can restrict (so none is left unhandled)."""
    rights = _FS_ALL_V1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def landlock_create_ruleset(abi: int) -> int:
    """A ruleset handling every right the ABI knows: anything not added later is denied."""
    attr = _RulesetAttr(fs_rights(abi), 0, 0)
    size = 8
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    return _check(
        _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0),
        "landlock_create_ruleset",
    )


def landlock_allow(ruleset_fd: int, path: str, rights: int) -> None:
    """Allow ``rights`` beneath ``path`` (files get only file rights)."""
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not os.path.isdir(path):
            rights &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
        attr = _PathBeneathAttr(rights, fd)
        _check(
            _libc.syscall(_SYS_LANDLOCK_ADD_RULE, ruleset_fd, 1, ctypes.byref(attr), 0),
            f"landlock_add_rule({path})",
        )
    finally:
        os.close(fd)


def landlock_restrict_self(ruleset_fd: int) -> None:
    _check(_libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset_fd, 0), "landlock_restrict_self")


def set_no_new_privs() -> None:
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")


def set_child_subreaper() -> None:
    """Orphaned descendants are re-parented to us, so we can reap them (no zombies)."""
    _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(CHILD_SUBREAPER)")


def set_parent_death_signal(sig: int) -> None:
    _check(_libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0), "prctl(PDEATHSIG)")


def set_not_dumpable() -> None:
    """Only a process with CAP_SYS_PTRACE may then read this one's ``/proc/<pid>/mem``,
    ``environ`` or ``maps``: a same-user process without it (a sandbox child) may not."""
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl(DUMPABLE)")


class SeccompProgram:
    """A classic-BPF filter laid out for ``prctl`` once, in the fork template, so that loading
    it in each child is a single call (less work, fewer copy-on-write faults per fork)."""

    def __init__(self, program: bytes) -> None:
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._prog = _SockFprog(len(program) // 8, ctypes.cast(self._buffer, ctypes.c_void_p))
        self.ref = ctypes.byref(self._prog)


def load_seccomp_bpf(program: SeccompProgram) -> None:
    """Install a precompiled seccomp filter (needs no_new_privs or root)."""
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program.ref, 0, 0), "prctl(SECCOMP)")


PR_SET_SECUREBITS = 28
# SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED and NO_CAP_AMBIENT_RAISE, each locked: an
# exec by uid 0 then gains no capabilities (the kernel's "root gets every capability" rule off)
_SECUREBITS_NO_ROOT = 0xEF


def set_securebits_no_root() -> None:
    """Before an exec as uid 0: the new program gets no capabilities back (needs
    CAP_SETPCAP, so call it before :func:`drop_capabilities`)."""
    _check(_libc.prctl(PR_SET_SECUREBITS, _SECUREBITS_NO_ROOT, 0, 0, 0), "prctl(SECUREBITS)")


_CAP_HEADER = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
_CAP_DATA = (ctypes.c_uint32 * 6)()  # two zeroed __user_cap_data_struct


def drop_capabilities() -> None:
    """Empty the effective, permitted and inheritable sets: a root child keeps uid 0 but can no
    longer raise hard limits, override file permissions or signal other users' processes."""
    if _SYS_CAPSET is not None:
        _check(_libc.syscall(_SYS_CAPSET, _CAP_HEADER, _CAP_DATA), "capset")


# ``os.fork`` runs Python's at-fork handlers; ``threading``'s alone makes ~150 copy-on-write
# faults (0.3 ms) in every child. PyDLL keeps the GIL across the call, so the child resumes in
# the same, consistent interpreter state.
_pylibc = ctypes.PyDLL(None, use_errno=True)
_pylibc.fork.restype = ctypes.c_int


def fork_lean() -> int:
    """``fork(2)`` without Python's at-fork handlers: only for a single-threaded process that
    holds no locks (the fork server starting its template). The child must reseed ``random``
    itself."""
    pid = _pylibc.fork()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "fork")
    return pid


_pylibc.syscall.restype = ctypes.c_long
_pylibc.pthread_self.restype = ctypes.c_void_p
_MACHINE = os.uname().machine
_SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(_MACHINE)
_CLONE_PARENT = 0x00008000
_CLONE_CHILD_SETTID = 0x01000000
_SIGCHLD = 17
_tid_slot: int | None = None
CAN_FORK_SIBLING = _SYS_CLONE is not None


def find_tid_slot() -> int | None:
    """Where glibc keeps the calling thread's id in its thread descriptor (``pthread_self()``
    plus an offset that differs between glibc versions: found by looking for the one 4-byte
    field that holds ``gettid()``). None when it is not exactly one place."""
    import threading

    base, tid = _pylibc.pthread_self(), threading.get_native_id()
    hits = [off for off in range(0, 0x900, 4) if ctypes.c_int.from_address(base + off).value == tid]
    return base + hits[0] if len(hits) == 1 else None


def fork_sibling() -> int:
    """``fork(2)`` with ``CLONE_PARENT``: the child is the caller's sibling, a child of the
    caller's parent, which can ``wait4`` it for its exit status and exact rusage. A raw
    ``clone``, as glibc's ``fork`` takes no flags; like :func:`fork_lean` it skips the at-fork
    work, so the caller must be single-threaded and hold no locks. The kernel writes the
    child's thread id into glibc's descriptor (``CLONE_CHILD_SETTID``, as glibc's ``fork``
    does), so ``pthread_*`` calls on the child's own thread address the child."""
    global _tid_slot
    if _SYS_CLONE is None:
        raise OSError(errno.ENOSYS, f"fork_sibling: no clone number for {_MACHINE}")
    if _tid_slot is None:
        _tid_slot = find_tid_slot() or 0
    flags = _CLONE_PARENT | _SIGCHLD | (_CLONE_CHILD_SETTID if _tid_slot else 0)
    slot, zero = ctypes.c_void_p(_tid_slot or None), ctypes.c_void_p(None)
    # x86_64: clone(flags, stack, parent_tid, child_tid, tls); arm64: (..., tls, child_tid).
    tail = (slot, zero) if _MACHINE == "x86_64" else (zero, slot)
    pid = _pylibc.syscall(ctypes.c_long(_SYS_CLONE), ctypes.c_ulong(flags), zero, zero, *tail)
    if pid < 0:
        raise OSError(ctypes.get_errno(), "clone(CLONE_PARENT)")
    return pid


def unshare(flags: int) -> bool:
    """Move into new namespaces (``CLONE_NEW*`` flags; root only, outside a user namespace).
    False when not permitted (no ``CAP_SYS_ADMIN``, a kernel without them)."""
    if _libc.unshare(flags) == 0:
        return True
    if ctypes.get_errno() in (errno.EPERM, errno.EINVAL, errno.ENOSYS):
        return False
    raise OSError(ctypes.get_errno(), f"unshare({flags:#x})")


def unshare_network() -> bool:
    """Move into a new, empty network namespace (root only). False when not permitted."""
    return unshare(CLONE_NEWNET)


MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
_libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    """``mount(2)``; raises ``OSError``."""
    args = [None if s is None else os.fsencode(s) for s in (source, target, fstype)]
    if _libc.mount(*args, flags, data.encode() or None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount({source!r}, {target!r}): {os.strerror(err)}")


def expose_paths(paths: list[str]) -> None:
    """Make each of ``paths`` (real paths) reachable by a user who owns nothing, in this
    mount namespace only (made private first: nothing propagates to the host's): each
    directory on the way that others may not search is covered by a read-only tmpfs that
    holds only the way on, bind mounts of its entries that lead to ``paths``. Its other
    entries are hidden; what lies beyond keeps its own permissions (and Landlock's rules,
    which are on the same inodes)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    seen: set[str] = set()
    while True:
        blocked = None
        for path in paths:
            parts = path.split("/")
            for end in range(2, len(parts)):
                way = "/".join(parts[:end])
                if not os.stat(way).st_mode & stat.S_IXOTH:
                    blocked = way
                    break
            if blocked is not None:
                break
        if blocked is None:
            return
        if blocked in seen:  # covered, and still not searchable: cannot be done
            raise OSError(f"cannot open the way to {blocked} for the sandbox's user")
        seen.add(blocked)
        names = sorted(
            {p[len(blocked) + 1 :].split("/")[0] for p in paths if p.startswith(blocked + "/")}
        )
        held = [
            (name, os.open(os.path.join(blocked, name), os.O_PATH | os.O_CLOEXEC)) for name in names
        ]
        quiet = MS_NOSUID | MS_NODEV | MS_NOEXEC
        mount("tmpfs", blocked, "tmpfs", quiet, f"mode=755,size=64k,nr_inodes={len(names) + 8}")
        for name, fd in held:
            target = os.path.join(blocked, name)
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                os.mkdir(target, 0o755)
            else:
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
            mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
            os.close(fd)
        mount(None, blocked, None, MS_REMOUNT | MS_RDONLY | quiet)


def mount_private_tmp(private: str, keep: list[str]) -> list[str]:
    """Mount the directory ``private`` at ``/tmp`` in this mount namespace (made private
    first: nothing propagates to the host's), so what a process here writes in ``/tmp`` lands
    in ``private`` and nothing reaches the host's ``/tmp``. Each path of ``keep`` (real paths)
    that lies in the host's ``/tmp`` stays reachable at its own path: a bind mount on a
    skeleton of root's directories made in ``private`` (mode 0711: searched, not listed or
    changed by others). Returns the skeleton's top-level names in ``private``, which whoever
    empties it must leave (removing a mount point from another namespace detaches the
    mount)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    tmp = os.path.realpath("/tmp")
    under = sorted({path for path in keep if in_host_tmp(path)})
    outermost = [p for p in under if not any(p.startswith(q + "/") for q in under)]
    for path in outermost:
        parts = path[len(tmp) + 1 :].split("/")
        for depth in range(1, len(parts)):  # the way to it
            _make_root_dir(os.path.join(private, *parts[:depth]))
        target = os.path.join(private, *parts)
        if os.path.isdir(path):
            _make_root_dir(target)
        else:
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600))
        mount(path, target, None, MS_BIND)
    mount(private, tmp, None, MS_BIND | MS_REC)
    return sorted({path[len(tmp) + 1 :].split("/")[0] for path in outermost})


def in_host_tmp(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` lies in the host's ``/tmp``, which a child with a private ``/tmp``
    (:func:`mount_private_tmp`) reaches only where the sandbox kept it."""
    return os.path.realpath(path).startswith(os.path.realpath("/tmp") + "/")


def _make_root_dir(path: str) -> None:
    try:
        os.mkdir(path, 0o711)
    except FileExistsError:
        return
    os.chmod(path, 0o711)  # whatever the umask


def kill_children() -> bool:
    """SIGKILL every child of this process (and the process group each leads) and reap them:
    what a process that ends its children's run calls until none is left (their own
    children, where it is a subreaper, are re-parented to it). False when it had none."""
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", "rb") as listing:
            pids = [int(pid) for pid in listing.read().split()]
    except OSError:
        pids = []
    for pid in pids:
        for kill in (os.killpg, os.kill):  # a child may lead its own group
            try:
                kill(pid, 9)  # SIGKILL (no signal module in the lean processes)
            except (ProcessLookupError, PermissionError):
                pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return bool(pids)


CHILD_ID_BASE = 0x70000000
"""A root grader runs its sandbox children (and its builds) as uid and gid ``CHILD_ID_BASE +
<a pid of its own>`` (a fork server's for its children, the grader's for its builds; a
profile's ``child_id_base`` moves the range): ids no account or file of a host has (above
every distribution's and container runtime's ranges, below 2^31 for tools that read ids as
signed), one per live process, so no two workers' children share a user while they run."""


def child_ids(pid: int, base: int | None = None) -> tuple[int, int]:
    """The uid and gid for the unprivileged processes of the live process ``pid``."""
    uid = (CHILD_ID_BASE if base is None else int(base)) + pid
    return uid, uid


def closed_to_others(path: str) -> bool:
    """Whether a user who owns nothing (who gets the "other" permission bits) cannot reach
    ``path``: a directory above it that others may not search (root's home, say, with an
    interpreter installed in it)."""
    parts = path.split("/")
    for end in range(2, len(parts)):
        try:
            if not os.stat("/".join(parts[:end])).st_mode & 0o001:
                return True
        except OSError:
            return False
    return False


def become(uid: int, gid: int) -> None:
    """Drop to ``uid``/``gid`` for good: no supplementary groups, real, effective and saved
    ids all changed (the kernel then clears every capability). Needs ``CAP_SETUID`` and
    ``CAP_SETGID``. The change clears the parent-death signal: set it again after."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def elf_interpreter(path: str) -> str | None:
    """The program interpreter (``PT_INTERP``, the dynamic loader) a 64-bit little-endian ELF
    file names; None for a static one or anything else."""
    try:
        with open(path, "rb") as file:
            head = file.read(64)
            if head[:6] != b"\x7fELF\x02\x01":
                return None
            phoff = int.from_bytes(head[32:40], "little")
            size, count = (
                int.from_bytes(head[54:56], "little"),
                int.from_bytes(head[56:58], "little"),
            )
            file.seek(phoff)
            table = file.read(size * count)
            for at in range(0, len(table) - size + 1, size):
                if int.from_bytes(table[at : at + 4], "little") == 3:  # PT_INTERP
                    offset = int.from_bytes(table[at + 8 : at + 16], "little")
                    length = int.from_bytes(table[at + 32 : at + 40], "little")
                    file.seek(offset)
                    return os.fsdecode(file.read(length).rstrip(b"\0")) or None
    except OSError:
        return None
    return None


_SYS_EXECVEAT = {"x86_64": 322, "aarch64": 281}.get(_MACHINE)
AT_EMPTY_PATH = 0x1000
# Where a child that runs a program file holds it for its exec: close-on-exec, so the program
# finds fd 3 free (its first open() gets it, as in a plain run).
PROGRAM_FD = 3

# The one exec of a program file (see evaluator.sandbox.profile.exec_variant): the exec
# variant of a filter sends every execveat to a user-space listener (SECCOMP_RET_USER_NOTIF)
# that the child holds close-on-exec. A thread of the child lets its own exec through; the
# exec closes the listener, and from then on the kernel fails every execveat with ENOSYS
# (a notification nobody can answer), whatever the program does with its descriptors.
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}.get(_MACHINE)
_SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
SECCOMP_RET_USER_NOTIF = 0x7FC00000
_NOTIF_RECV = 0xC0502100  # SECCOMP_IOCTL_NOTIF_RECV: _IOWR('!', 0, struct seccomp_notif)
_NOTIF_SEND = 0xC0182101  # SECCOMP_IOCTL_NOTIF_SEND: _IOWR('!', 1, struct seccomp_notif_resp)
_USER_NOTIF_FLAG_CONTINUE = 1
_libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]


def load_seccomp_listener(program: SeccompProgram) -> int:
    """Install a precompiled filter whose ``SECCOMP_RET_USER_NOTIF`` rules notify a listener;
    the listener's descriptor (close-on-exec). Needs no_new_privs."""
    if _SYS_SECCOMP is None:
        raise OSError(errno.ENOSYS, f"seccomp: no syscall number for {_MACHINE}")
    flags = _SECCOMP_FILTER_FLAG_NEW_LISTENER
    return _check(_libc.syscall(_SYS_SECCOMP, 1, flags, program.ref), "seccomp(NEW_LISTENER)")


def let_one_call_through(listener: int, tid: int) -> None:
    """Answer the listener's first notification: let the call go on when thread ``tid`` made
    it, refuse it (EPERM) otherwise. Blocks until it comes (CDLL: without the GIL); meant for
    a thread of its own."""
    request = ctypes.create_string_buffer(80)  # struct seccomp_notif, zeroed as the kernel wants
    while _libc.ioctl(listener, _NOTIF_RECV, request) != 0:
        if ctypes.get_errno() != errno.EINTR:
            return
        ctypes.memset(request, 0, 80)
    ident, caller = request.raw[:8], int.from_bytes(request.raw[8:12], "little")
    ours = caller == tid
    error = 0 if ours else -errno.EPERM
    flags = _USER_NOTIF_FLAG_CONTINUE if ours else 0
    answer = (
        ident + bytes(8) + error.to_bytes(4, "little", signed=True) + flags.to_bytes(4, "little")
    )
    _libc.ioctl(listener, _NOTIF_SEND, ctypes.create_string_buffer(answer, 24))


def execveat(fd: int, argv: list[str], env: dict[str, str]) -> None:
    """Replace this process by the program file open on ``fd`` (``execveat(fd, "", argv,
    envp, AT_EMPTY_PATH)``: the one exec a sandbox profile allows, see
    :func:`evaluator.sandbox.profile.exec_variant`). Returns only by raising ``OSError``."""
    if _SYS_EXECVEAT is None:
        raise OSError(errno.ENOSYS, f"execveat: no syscall number for {_MACHINE}")
    args = [a.encode("utf-8", "surrogateescape") for a in argv]
    envs = [f"{k}={v}".encode("utf-8", "surrogateescape") for k, v in env.items()]
    argv_c = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    env_c = (ctypes.c_char_p * (len(envs) + 1))(*envs, None)
    _libc.syscall(ctypes.c_long(_SYS_EXECVEAT), fd, b"", argv_c, env_c, AT_EMPTY_PATH)
    err = ctypes.get_errno()
    raise OSError(err, f"execveat: {os.strerror(err)}")
