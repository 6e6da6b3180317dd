"""Thin ctypes wrappers over the Linux interfaces the sandbox needs and Python lacks:
Landlock, seccomp filter loading, capabilities, namespaces, ``prctl``.

Everything here is called either once in the fork server or in a freshly forked child, so it
stays dependency-free (no pyseccomp at run time: filters arrive precompiled as BPF bytes).
"""

from __future__ import annotations

import ctypes
import errno
import os

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
SECCOMP_MODE_FILTER = 2
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


class SeccompProgram:
    """A classic-BPF filter laid out for ``prctl`` once, in the fork server, so that loading
    it in each child is a single call (less work, fewer copy-on-write faults per fork)."""

    def __init__(self, program: bytes) -> None:
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._prog = _SockFprog(len(program) // 8, ctypes.cast(self._buffer, ctypes.c_void_p))
        self.ref = ctypes.byref(self._prog)


def load_seccomp_bpf(program: SeccompProgram) -> None:
    """Install a precompiled seccomp filter (needs no_new_privs or root)."""
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program.ref, 0, 0), "prctl(SECCOMP)")


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
    holds no locks (the fork server). The child must reseed ``random`` itself."""
    pid = _pylibc.fork()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "fork")
    return pid


def unshare_network() -> bool:
    """Move into a new, empty network namespace (root only). False when not permitted."""
    if _libc.unshare(CLONE_NEWNET) == 0:
        return True
    if ctypes.get_errno() in (errno.EPERM, errno.EINVAL, errno.ENOSYS):
        return False
    raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
