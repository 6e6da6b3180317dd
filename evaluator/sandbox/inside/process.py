"""What the kernel keeps for a process that one test can set and the next can read back: the
half of adaptive isolation's check that is not the interpreter's (:mod:`.state`).

- **Settings** (:func:`settings`): every ``prctl`` value the sandbox's seccomp profile lets a
  program change and that reads back (timer slack, dumpable, parent-death signal, child
  subreaper, keep-capabilities, transparent huge pages, machine-check policy, speculation
  controls, memory-deny-write-execute, the core-scheduling cookie, the futex hash, the TID
  address, per architecture the TSC, tagged-address and vector-length settings), the
  scheduling attributes (policy, priority, utilization clamps), the I/O priority, the memory
  policy, the signal stack, the robust-futex list, the floating-point control (rounding,
  traps, flush-to-zero), on x86-64 the GS base, CPUID faulting and AMX permission, the
  POSIX timers (``/proc/self/timers``), and the stable lines of ``/proc/self/status`` (the
  name, the umask, signal dispositions and pending signals, capabilities, no-new-privileges,
  seccomp filters, speculation, CPU and memory-node affinity, THP, locked memory).
  Two settings cannot be read back, so the profile refuses them instead: syscall user
  dispatch (``PR_SET_SYSCALL_USER_DISPATCH``) and a Landlock domain of the program's own.
- **Mappings** (:class:`Mappings`): the address ranges mapped, compared with the fork
  template's when the mapped size (heap and stack aside) changed.

The descriptors are opened before confinement (Landlock forbids ``/proc`` after it) and read
with ``pread``; every foreign function and buffer is made at import, in the fork template, so
a child's check makes none (making one would raise an audit event).
"""

from __future__ import annotations

import ctypes
import itertools
import operator
import os
import struct
import sys
from typing import Any

_MACHINE = os.uname().machine
_PAGE = os.sysconf("SC_PAGE_SIZE")
# CPython's object allocator takes memory from the kernel in arenas of this size and keeps
# some after a test (one empty arena, and those its caches still use): whole arenas of
# anonymous memory are the allocator's (3.10+: 1 MiB on 64-bit builds, 256 KiB otherwise).
ARENA = 1 << 20 if sys.maxsize > 1 << 32 else 256 << 10

_libc = ctypes.CDLL(None)
_ulong = ctypes.c_ulong
_prctl = _libc.prctl
_prctl.restype = ctypes.c_int
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_sbrk = _libc.sbrk  # the C library's idea of the program break (no system call)
_sbrk.restype = ctypes.c_void_p
_ZERO = _ulong(0)


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd",
            "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


_mallinfo2 = getattr(_libc, "mallinfo2", None)  # glibc 2.33+
if _mallinfo2 is not None:
    _mallinfo2.restype = _MallInfo2
    _mallinfo2.argtypes = []


def malloc_mapped() -> int:
    """Bytes the C library's allocator holds in mappings of its own: each block above its
    mmap threshold (a big list's or dict's table) is an anonymous mapping of the block's size,
    made, moved, grown and unmapped as the block is. 0 where the library cannot say (not
    glibc 2.33+): every such mapping then counts as the program's."""
    return _mallinfo2().hblkhd if _mallinfo2 is not None else 0


_OUT = ctypes.create_string_buffer(512)  # where the probes that answer through memory write
_OUT_AT = ctypes.addressof(_OUT)

# Syscall numbers by architecture (x86-64, arm64).
_SYSCALLS = {
    "x86_64": {
        "sched_getattr": 315,
        "ioprio_get": 252,
        "get_mempolicy": 239,
        "get_robust_list": 274,
    },
    "aarch64": {
        "sched_getattr": 275,
        "ioprio_get": 31,
        "get_mempolicy": 236,
        "get_robust_list": 100,
    },
}.get(_MACHINE, {})
_ARCH_PRCTL = 158  # x86-64 only: the GS base (FS holds the C library's thread data), CPUID
_ARCH_GET = {"GS base": 0x1004, "CPUID faulting": 0x1011, "AMX permission": 0x1022}

# prctl options a program may set, read back by their GET counterparts: (name, option,
# argument, answers through memory). What status shows (name, no-new-privileges, seccomp,
# capabilities, THP, store-bypass and indirect-branch speculation) is read there; what needs a
# capability no child has is left out.
_PRCTL_GETS = [
    ("parent-death signal", 2, 0, True),  # PR_GET_PDEATHSIG
    ("dumpable", 3, 0, False),  # PR_GET_DUMPABLE
    ("keep capabilities", 7, 0, False),  # PR_GET_KEEPCAPS
    ("timer slack", 30, 0, False),  # PR_GET_TIMERSLACK
    ("machine-check kill policy", 34, 0, False),  # PR_MCE_KILL_GET
    ("child subreaper", 37, 0, True),  # PR_GET_CHILD_SUBREAPER
    ("TID address", 40, 0, True),  # PR_GET_TID_ADDRESS
    ("speculation: L1D flush", 52, 2, False),  # PR_GET_SPECULATION_CTRL (status: the rest)
    ("memory-deny-write-execute", 66, 0, False),  # PR_GET_MDWE
    ("futex hash slots", 78, 2, False),  # PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS
    ("timer ID restore", 77, 2, False),  # PR_TIMER_CREATE_RESTORE_IDS, _GET
]
_PRCTL_GETS += {
    "x86_64": [("TSC mode", 25, 0, True)],  # PR_GET_TSC
    "aarch64": [
        ("SVE vector length", 51, 0, False),  # PR_SVE_GET_VL
        ("tagged addresses", 56, 0, False),  # PR_GET_TAGGED_ADDR_CTRL
        ("pointer-auth keys", 61, 0, False),  # PR_PAC_GET_ENABLED_KEYS
        ("SME vector length", 64, 0, False),  # PR_SME_GET_VL
        ("shadow stack", 74, 0, True),  # PR_GET_SHADOW_STACK_STATUS
    ],
}.get(_MACHINE, [])


class _Probes:
    """Calls made once per check, each with its arguments made here; one that answers through
    memory has its slot in :data:`_OUT` (8 bytes, or the size of its structure)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.calls: list[tuple[Any, tuple[Any, ...]]] = []
        self.slots: list[tuple[int, int, str]] = []  # (offset, end, whose)
        self.used = 0

    def slot(self, name: str, size: int = 8) -> int:
        at = self.used
        self.used += (size + 7) // 8 * 8
        if self.used > len(_OUT):
            raise RuntimeError("process probes: _OUT too small")
        self.slots.append((at, self.used, name))
        return _OUT_AT + at

    def add(self, name: str, function: Any, *args: int) -> None:
        self.names.append(name)
        self.calls.append((function, tuple(_ulong(arg) for arg in args)))

    def owner(self, offset: int) -> str:
        return next(name for start, end, name in self.slots if start <= offset < end)


def _probes() -> _Probes:
    probes = _Probes()
    for name, option, argument, through_memory in _PRCTL_GETS:
        argument = probes.slot(name) if through_memory else argument
        probes.add(name, _prctl, option, argument, 0, 0, 0)
    name = "core-scheduling cookie"  # PR_SCHED_CORE, PR_SCHED_CORE_GET of this thread
    probes.add(name, _prctl, 62, 0, 0, 0, probes.slot(name))
    if _SYSCALLS:
        name = "scheduling attributes"  # struct sched_attr: policy, nice, priority, clamps
        attr = probes.slot(name, 56)
        probes.add(name, _syscall, _SYSCALLS["sched_getattr"], 0, attr, 56, 0)
        probes.add("I/O priority", _syscall, _SYSCALLS["ioprio_get"], 1, 0)  # this process
        name = "memory policy"
        probes.add(name, _syscall, _SYSCALLS["get_mempolicy"], probes.slot(name), 0, 0, 0, 0)
        name = "robust futex list"
        head, length = probes.slot(name), probes.slot(name)
        probes.add(name, _syscall, _SYSCALLS["get_robust_list"], 0, head, length)
    probes.add("signal stack", _libc.sigaltstack, 0, probes.slot("signal stack", 24))
    if _MACHINE == "x86_64":
        for name, code in _ARCH_GET.items():
            probes.add(name, _syscall, _ARCH_PRCTL, code, probes.slot(name))
    return probes


_PROBES = _probes()
_CALLS = _PROBES.calls
_OUT_SIZE = _PROBES.used
_FENV = ctypes.create_string_buffer(64)  # fenv_t: 32 bytes on x86-64, 8 on arm64
_fegetenv = getattr(_libc, "fegetenv", None)


def _pread(fd: int | None, size: int) -> bytes:
    """The start of a ``/proc`` file read through ``fd``; empty if there is none."""
    if fd is None:
        return b""
    try:
        return os.pread(fd, size, 0)
    except OSError:
        return b""


def _float_control() -> tuple[int, ...]:
    """The floating-point environment's control part (rounding, traps, flush-to-zero,
    denormals-are-zero), without its status flags, which any arithmetic sets."""
    if _fegetenv is None or _fegetenv(_FENV) != 0:
        return ()
    if _MACHINE == "x86_64":  # x87 control word; MXCSR without its six exception flags
        control, mxcsr = struct.unpack_from("=H26xI", _FENV)
        return control, mxcsr & ~0x3F
    if _MACHINE == "aarch64":  # FPCR
        return struct.unpack_from("=I", _FENV)
    return ()


def settings(timers_fd: int | None) -> list[Any]:
    """Every setting above but status's: each probe's answer, then what they wrote to memory,
    the floating-point control and the POSIX timers."""
    values: list[Any] = [function(*args) for function, args in _CALLS]
    values.append(_OUT.raw[:_OUT_SIZE])
    values.append(_float_control())
    values.append(_pread(timers_fd, 4096))
    return values


def first_setting_changed(before: list[Any], now: list[Any]) -> str | None:
    """The name of the first setting that differs, or None."""
    if before == now:
        return None
    calls = len(_CALLS)
    for name, old, new in zip(_PROBES.names, before[:calls], now[:calls], strict=True):
        if old != new:
            return name
    if before[calls] != now[calls]:
        pairs = zip(before[calls], now[calls], strict=True)
        return _PROBES.owner(next(i for i, (a, b) in enumerate(pairs) if a != b))
    return "floating-point control" if before[calls + 1] != now[calls + 1] else "POSIX timers"


# -- /proc/self/status --------------------------------------------------------------------------

# Lines that change by themselves (the process's state and memory, context switches) or are
# compared elsewhere (threads); every other line is a setting.
_VOLATILE = (
    b"State:",
    b"FDSize:",
    b"VmPeak:",
    b"VmSize:",
    b"VmHWM:",
    b"VmRSS:",
    b"RssAnon:",
    b"RssFile:",
    b"RssShmem:",
    b"VmData:",
    b"VmStk:",
    b"VmExe:",
    b"VmLib:",
    b"VmPTE:",
    b"VmSwap:",
    b"HugetlbPages:",
    b"CoreDumping:",
    b"Threads:",
    b"voluntary_ctxt_switches:",
    b"nonvoluntary_ctxt_switches:",
)


_NUMBERS = (b"VmSize", b"VmData", b"VmStk", b"Threads")


class Status:
    """``/proc/self/status`` as read once per check: its settings (every line but the
    volatile ones, picked by their place, found at the first read: a process's status has
    the same lines all its life) and its memory figures."""

    __slots__ = ("fd", "lines", "pick", "numbers")

    def __init__(self, fd: int | None, like: Status | None = None) -> None:
        self.fd = fd
        self.lines = _pread(fd, 8192).split(b"\n")
        if like is None:
            labels = [line.partition(b":")[0] for line in self.lines]
            keep = [i for i, line in enumerate(self.lines) if not line.startswith(_VOLATILE)]
            self.pick = operator.itemgetter(*keep) if len(keep) > 1 else None
            self.numbers = {name: labels.index(name) for name in _NUMBERS if name in labels}
        else:
            self.pick, self.numbers = like.pick, like.numbers

    def again(self) -> Status:
        """The file read again, picked as this read was."""
        return Status(self.fd, self)

    def settings(self) -> tuple[bytes, ...]:
        return self.pick(self.lines) if self.pick is not None else ()

    def first_change(self, now: Status) -> str | None:
        """The label of the first setting that differs in ``now``, or None."""
        if len(now.lines) != len(self.lines):
            return "its lines"
        before, after = self.settings(), now.settings()
        if before == after:
            return None
        old, new = next((a, b) for a, b in zip(before, after, strict=True) if a != b)
        return (old or new).partition(b":")[0].decode("ascii", "replace")

    def number(self, name: bytes) -> int | None:
        """``VmSize``, ``VmData``, ``VmStk`` (kB) or ``Threads``; None if unreadable."""
        at = self.numbers.get(name)
        try:
            return int(self.lines[at].split()[1]) if at is not None else None
        except (IndexError, ValueError):
            return None

    def pages(self, name: bytes) -> int:
        """``VmSize``, ``VmData`` or ``VmStk`` in pages; 0 where status could not be read."""
        return (self.number(name) or 0) * 1024 // _PAGE


# -- mappings -----------------------------------------------------------------------------------


def read_all(fd: int) -> bytes:
    """A whole ``/proc`` file (``maps`` answers at most a page per read)."""
    os.lseek(fd, 0, os.SEEK_SET)
    parts = []
    while chunk := os.read(fd, 1 << 16):
        parts.append(chunk)
    return b"".join(parts)


Range = tuple[int, int, tuple[Any, ...]]


def parse_maps(text: bytes) -> list[Range]:
    """``/proc/self/maps`` as ``(start, end, kind)``: for memory of no file, its permissions
    and name (``''``, ``[heap]``, ``[stack]``...); for a file's, its permissions, device,
    inode, path and where the file starts (so that a mapping split in two keeps its kind)."""
    ranges = []
    for line in text.splitlines():
        fields = line.split(None, 5)
        if len(fields) < 5:
            continue
        low, _, high = fields[0].partition(b"-")
        start, end = int(low, 16), int(high, 16)
        perms, offset, device, inode = fields[1], int(fields[2], 16), fields[3], int(fields[4])
        path = fields[5].strip() if len(fields) > 5 else b""
        if inode == 0 and not path.startswith(b"/"):
            kind: tuple[Any, ...] = (perms, path)
        else:
            kind = (perms, device, inode, path, start - offset)
        ranges.append((start, end, kind))
    return ranges


def template_layout() -> list[Range]:
    """The fork template's mappings, which its children start with (read once, there)."""
    try:
        fd = os.open("/proc/self/maps", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return []
    try:
        return parse_maps(read_all(fd))
    finally:
        os.close(fd)


_ANONYMOUS = (b"rw-p", b"")
_GROWS = {b"[heap]", b"[stack]"}


class Mappings:
    """A batch child's mappings against what it started with: the test that maps memory of
    its own (a page at a fixed address, a file, a mapping made executable or read-only) or
    unmaps some of the process's ends the child.

    Allowed, as a fresh process running the same test leaves them: the heap and the stack
    growing or shrinking, whole arenas of anonymous memory coming and going (the object
    allocator's), and, after a test that imported a module for the first time, the module's
    library files and anonymous memory (``memory kept``, in :mod:`.state`, bounds their size).
    ``/proc/self/maps`` costs ~0.3-1 ms to read, so it is read only when the mapped size,
    heap and stack aside, differs from the last layout accepted."""

    __slots__ = ("layout", "malloc_mapped", "size", "run_dir", "maps_fd", "heap_start")

    def __init__(
        self,
        layout: list[Range],
        status: Status,
        maps_fd: int | None,
        stat_fd: int | None,
        run_dir: str,
        layout_malloc_mapped: int = 0,
    ) -> None:
        """``layout_malloc_mapped``: :func:`malloc_mapped` when ``layout`` was read."""
        self.layout, self.run_dir, self.maps_fd = layout, run_dir.encode(), maps_fd
        self.malloc_mapped = layout_malloc_mapped
        self.heap_start = _heap_start(stat_fd)
        self.size = self._size(status)

    def _size(self, status: Status) -> int:
        return status.pages(b"VmSize") - status.pages(b"VmStk") - self._heap_pages()

    def _heap_pages(self) -> int:
        """The heap's pages, as the C library's allocator grew it (a break moved behind its
        back only makes the next check read the mappings)."""
        brk = _sbrk(_ZERO) or 0
        if not self.heap_start or brk < self.heap_start:
            return 0
        return -(-(brk - self.heap_start) // _PAGE)

    def changed(self, status: Status, imported: bool) -> str | None:
        """What differs (a short name), or None; ``status``: read after the test."""
        size = self._size(status)
        if size == self.size or self.maps_fd is None or not self.layout:
            return None
        try:
            now = parse_maps(read_all(self.maps_fd))
        except OSError:
            return "memory mappings (unreadable)"
        mapped = malloc_mapped()
        what = self._difference(now, imported, mapped - self.malloc_mapped)
        if what is None:  # the allocators', or an import's: the next test starts from here
            self.layout, self.size, self.malloc_mapped = now, size, mapped
        return what

    def _difference(self, now: list[Range], imported: bool, by_malloc: int = 0) -> str | None:
        """What differs in a way a fresh process running the same test would not show;
        ``by_malloc``: the change in :func:`malloc_mapped` since the layout was read."""
        anonymous = 0  # bytes of anonymous memory mapped, less those unmapped
        for low, high, before, after in _changes(self.layout, now):
            if before == _ANONYMOUS:
                anonymous -= high - low
            elif before is not None and not _grows(before):
                return f"memory mappings (changed at {low:#x})"
            if after == _ANONYMOUS:
                anonymous += high - low
            elif (
                after is not None and not _grows(after) and not (imported and self._library(after))
            ):
                return f"memory mappings (mapped at {low:#x})"
        # The object allocator maps and unmaps whole arenas, though not always at the same
        # place (a new one may straddle where two were), the C library's allocator its big
        # blocks (a table that doubled: 204 KiB unmapped, 408 KiB mapped), as many bytes as
        # it says; an import's data is as large as it is.
        if (anonymous - by_malloc) % ARENA and not imported:
            return f"memory mappings ({anonymous:+} bytes of anonymous memory)"
        return None

    def _library(self, kind: tuple[Any, ...]) -> bool:
        """A file an import loaded: one outside the run directory that still exists."""
        if len(kind) < 5:
            return False
        path = kind[3]
        return (
            path.startswith(b"/")
            and not path.endswith(b" (deleted)")
            and not (path + b"/").startswith(self.run_dir + b"/")
        )


def stat_fields(stat_fd: int | None) -> list[bytes]:
    """``/proc/self/stat``'s fields after the command name (the state, field 3, first)."""
    return _pread(stat_fd, 1024).rpartition(b")")[2].split()


def _heap_start(stat_fd: int | None) -> int:
    """Where the heap starts (``/proc/self/stat``'s ``start_brk``); 0 if unknown."""
    fields = stat_fields(stat_fd)
    try:
        return int(fields[44])  # field 47, counting from 1, of which 2 are before ")"
    except (IndexError, ValueError):
        return 0


def _grows(kind: tuple[Any, ...] | None) -> bool:
    return kind is not None and len(kind) == 2 and kind[1] in _GROWS


def _changes(before: list[Range], now: list[Range]) -> list[tuple[int, int, Any, Any]]:
    """The address ranges whose kind differs, as ``(low, high, kind before, kind now)`` with
    None for unmapped; mappings the same in both are set aside first (most of them)."""
    same = set(before) & set(now)
    old = [r for r in before if r not in same]
    new = [r for r in now if r not in same]
    edges = sorted({edge for start, end, _ in old + new for edge in (start, end)})
    found = []
    for low, high in itertools.pairwise(edges):
        was, now_kind = _kind_at(old, low), _kind_at(new, low)
        if was != now_kind:
            found.append((low, high, was, now_kind))
    return found


def _kind_at(ranges: list[Range], address: int) -> tuple[Any, ...] | None:
    for start, end, kind in ranges:
        if start <= address < end:
            return kind
    return None
