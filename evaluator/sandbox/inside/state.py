"""What a test may leave behind in a sandbox child: the check behind adaptive isolation.

A batch child runs a submission's tests one after another. Before each test it puts back what
a fresh child would have and is cheap to restore exactly (the streams, ``__main__``, the
recursion and int/str digit limits, the GC settings, the thread stack size, the random seed,
the decimal context, ``sys.argv``, the soft resource limits, the run directory); after each test :meth:`Baseline.changed`
compares the rest of the interpreter's global state with what it was before the first test.
Anything else that changed (builtins, ``sys`` attributes, other modules' globals, imported
modules replaced or removed, threads started, signal handlers or timers, ``atexit`` handlers,
audit hooks, the working directory, the umask, the environment, open descriptors, the locale,
the priority, a hard resource limit lowered, memory kept by the process, asynchronous-generator
hooks, the codec registry, the signal wake-up descriptor, and what the
kernel keeps for the process: its settings and its memory mappings, :mod:`.process`) makes the
child stop: the server runs the rest of the tests in a fresh child. A module imported for the
first time is not a change.

Module globals are compared through CPython 3.11's dict version tags (bumped by every
insertion, replacement or deletion), read with ctypes, and only a dict whose tag moved is
compared entry by entry. Not seen: in-place changes to objects held in other modules (a class
attribute set on ``collections.Counter``, an item appended to ``warnings.filters`` is seen
only through ``warnings``' own bookkeeping); test isolation is there for programs that might.
"""

from __future__ import annotations

import _signal
import _thread
import atexit
import builtins
import ctypes
import gc
import operator
import os
import resource
import select
import sys
import time
from typing import Any

from evaluator.sandbox.inside import process

# sys attributes every test sets afresh (the harness's streams, PyErr_Print's last_*).
_PER_TEST_SYS = frozenset(
    {"stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__"}
    | {"last_type", "last_value", "last_traceback"}
)
_DICT_VERSION_OFFSET = 3 * ctypes.sizeof(ctypes.c_void_p)  # PyDictObject.ma_version_tag
_PAGE = os.sysconf("SC_PAGE_SIZE")
MEMORY_SLACK = 16 << 20  # data kept by earlier tests beyond this: the next test runs fresh


def _version_tags_work() -> bool:
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
        return False
    probe: dict[str, int] = {}
    before = _tag(probe)
    probe["x"] = 1
    return _tag(probe) != before


def _tag(namespace: dict[str, Any]) -> int:
    return ctypes.c_uint64.from_address(id(namespace) + _DICT_VERSION_OFFSET).value


_TAGS = _version_tags_work()


class _Namespace:
    """A dict (a module's globals, builtins, sys) as it was: its version tag and entries."""

    __slots__ = ("name", "namespace", "cell", "tag", "entries")

    def __init__(self, name: str, namespace: dict[str, Any]) -> None:
        self.name, self.namespace = name, namespace
        # The tag is read through a ctypes cell made here, in the template: making one in a
        # child raises an audit event (the harness's hook would run for each module), and
        # touching the dict itself (a reference count) would cost a copy-on-write fault.
        address = id(namespace) + _DICT_VERSION_OFFSET
        self.cell = ctypes.c_uint64.from_address(address) if _TAGS else None
        self.tag = self.cell.value if self.cell is not None else 0
        self.entries = dict(namespace)  # holds the values: their ids cannot be reused

    def changed(self, ignore: frozenset[str] = frozenset()) -> str | None:
        if self.cell is not None and self.cell.value == self.tag:
            return None
        now, before = self.namespace, self.entries
        for key, value in before.items():
            if key not in ignore and (key not in now or now[key] is not value):
                return f"{self.name}.{key}"
        for key in now.keys() - before.keys() - ignore:
            if not isinstance(now[key], type(sys)):  # a submodule imported: allowed
                return f"{self.name}.{key} (new)"
        return None

    def rebase(self) -> None:
        """Take what the dict holds now as its baseline, if it changed since the snapshot."""
        if self.cell is None or self.cell.value != self.tag:
            self.tag = self.cell.value if self.cell is not None else 0
            self.entries = dict(self.namespace)


class Snapshot:
    """Module globals and ``sys.modules`` as the fork template leaves them to its children
    (made in the template: a child compares against it without touching every module)."""

    def __init__(self) -> None:
        self.namespaces = [_Namespace("builtins", builtins.__dict__)]
        self.namespaces += [
            _Namespace(name, module.__dict__)
            for name, module in list(sys.modules.items())
            if isinstance(module, type(sys)) and name not in ("__main__", "builtins", "sys")
        ]
        self.namespaces.append(_Namespace("os.environ", os.environ._data))  # type: ignore[attr-defined]
        self.cells = [ns.cell for ns in self.namespaces if ns.cell is not None]
        self.sys = _Namespace("sys", sys.__dict__)
        self.sys_keys = [key for key in sys.__dict__ if key not in _PER_TEST_SYS]
        self.sys_values = [sys.__dict__[key] for key in self.sys_keys]
        self.module_names = [name for name in sys.modules if name != "__main__"]
        self.module_objects = [sys.modules[name] for name in self.module_names]
        self.codec_search, self.codec_errors = _codec_registries()
        self.mappings = process.template_layout()
        self.malloc_mapped = process.malloc_mapped()  # as the layout was read

    def tags(self) -> list[int]:
        return list(map(_CELL_VALUE, self.cells))

    def sys_changed(self) -> str | None:
        """A ``sys`` attribute replaced, removed or added (the streams and ``last_*``, which
        every test sets, aside): compared in C, ``sys`` changes every test."""
        now = sys.__dict__
        values = list(map(now.get, self.sys_keys))
        extra = len(now) - len(self.sys_keys) - sum(key in now for key in _PER_TEST_SYS)
        if extra == 0 and _identical(values, self.sys_values):
            return None
        return self.sys.changed(_PER_TEST_SYS) or "sys (an attribute added)"

    def modules_changed(self) -> str | None:
        if _identical(list(map(sys.modules.get, self.module_names)), self.module_objects):
            return None
        for name, module in zip(self.module_names, self.module_objects, strict=True):
            if sys.modules.get(name) is not module:
                return f"sys.modules[{name!r}]"
        return None


_CELL_VALUE = operator.attrgetter("value")
_SIGNALS = sorted(int(s) for s in _signal.valid_signals())


class Baseline:
    """A batch child's global state before its first test, and the per-test reset. With
    ``adaptive`` False (submission isolation) only the reset is used."""

    def __init__(
        self,
        snapshot: Snapshot,
        adaptive: bool,
        program_fds: range = range(0),
        run_dir: str = "",
    ) -> None:
        self.recursion_limit = sys.getrecursionlimit()  # the environment's, set by the child
        self.int_max_str_digits = sys.get_int_max_str_digits()
        self.gc = (gc.isenabled(), gc.get_threshold(), gc.get_debug())
        self.argv, self.orig_argv = list(sys.argv), list(sys.orig_argv)
        self.random_state = _random_state()  # the child's own seed: nothing has drawn yet
        self.rlimits = resource_limits()  # the sandbox's, set by the child before confinement
        if not adaptive:
            return
        remember_thread_counter()
        self.snapshot = snapshot
        for namespace in snapshot.namespaces + [snapshot.sys]:
            namespace.rebase()  # what the child's own start-up changed is its baseline
        self.tags = snapshot.tags()
        self.lists = self._lists()
        self.values = self._values()
        self.module_count = len(sys.modules)
        # The program's own range (fds 0-2 are put back before each test; the harness's own,
        # above it, break only the program's run if it closes or replaces them).
        self.fds = select.poll()
        for fd in program_fds or range(resource.getrlimit(resource.RLIMIT_NOFILE)[0]):
            self.fds.register(fd, 0)
        self.open_fds = self._open_fds()
        self.status = process.Status(PROC.status)
        self.memory = self.status.pages(b"VmData")
        self.settings = process.settings(PROC.timers)
        self.mappings = process.Mappings(
            snapshot.mappings, self.status, PROC.maps, PROC.stat, run_dir, snapshot.malloc_mapped
        )

    # -- before a test ---------------------------------------------------------------------

    def reset(self) -> None:
        """Put back what a fresh child has and can be restored exactly."""
        sys.setrecursionlimit(self.recursion_limit)
        sys.set_int_max_str_digits(self.int_max_str_digits)
        enabled, threshold, debug = self.gc
        (gc.enable if enabled else gc.disable)()
        gc.set_threshold(*threshold)
        gc.set_debug(debug)
        _thread.stack_size(0)
        sys.argv[:] = self.argv
        sys.orig_argv[:] = self.orig_argv
        for name in ("last_type", "last_value", "last_traceback"):
            sys.__dict__.pop(name, None)
        # A generator nothing drew from since it was seeded is as good as a fresh one: seeded
        # again (64 fresh bits, a fifth of seed()'s cost) only when the last test used it.
        random = sys.modules.get("random")
        if random is not None and (
            self.random_state is None or _random_state() != self.random_state
        ):
            random.seed(int.from_bytes(os.urandom(8), "big"))
            self.random_state = _random_state()
        decimal = sys.modules.get("decimal")
        if decimal is not None:
            decimal.setcontext(decimal.DefaultContext.copy())
        restore_resource_limits(self.rlimits)

    # -- after a test ----------------------------------------------------------------------

    def changed(self) -> str | None:
        """What differs from the baseline (a short name), or None: the next test may run in
        this child."""
        if AUDIT_HOOKS_ADDED[0]:
            return "an audit hook was added"
        status = self.status.again()  # read once: threads, settings, memory
        if threads_started(status.number(b"Threads")):  # again: an atexit handler or
            return "threads were started"  # __del__ may have started one
        snapshot = self.snapshot
        if snapshot.tags() != self.tags:
            for namespace in snapshot.namespaces:
                if (what := namespace.changed()) is not None:
                    return what
        if (what := snapshot.sys_changed()) is not None:
            return what
        if (what := snapshot.modules_changed()) is not None:
            return what
        imported = len(sys.modules) > self.module_count  # a first import may register things
        if (what := _changed_lists(self.lists, self._lists(), imported)) is not None:
            return what
        if (what := _first_difference(self.values, self._values())) is not None:
            return what
        if _hard_limits(resource_limits()) != _hard_limits(self.rlimits):
            return "resource limits"  # a hard limit lowered: only a fresh child has it back
        if self._open_fds() != self.open_fds:
            return "open file descriptors"
        return self._process_changed(status, imported)

    def _process_changed(self, status: process.Status, imported: bool) -> str | None:
        """What the kernel keeps for the process (:mod:`.process`) and the memory it holds."""
        if what := process.first_setting_changed(self.settings, process.settings(PROC.timers)):
            return f"process settings ({what})"
        if (what := self.status.first_change(status)) is not None:
            return f"process status ({what})"
        memory = status.pages(b"VmData")
        if imported:  # a module's own data stays in a fresh child that imports it too
            self.memory = max(self.memory, memory)
        elif memory - self.memory > MEMORY_SLACK // _PAGE:
            return "memory kept by the process"
        return self.mappings.changed(status, imported)

    def _lists(self) -> dict[str, list[int]]:
        """Mutable containers whose content matters (compared by the identity of items)."""
        found = {
            "sys.path": sys.path,
            "sys.meta_path": sys.meta_path,
            "sys.path_hooks": sys.path_hooks,
            "gc.callbacks": gc.callbacks,
            "gc.garbage": gc.garbage,
        }
        warnings = sys.modules.get("warnings")
        if warnings is not None:
            found["warnings.filters"] = warnings.filters
        threading = sys.modules.get("threading")
        if threading is not None:
            found["threading atexit"] = threading._threading_atexits
        snapshot = self.snapshot
        if snapshot.codec_search is not None:
            found["codec search functions"] = snapshot.codec_search
        if snapshot.codec_errors is not None:
            found["codec error handlers"] = [
                *snapshot.codec_errors,
                *snapshot.codec_errors.values(),
            ]
        return {name: list(items) for name, items in found.items()}  # items by identity

    def _values(self) -> dict[str, Any]:
        """Settings read through getters (compared by value)."""
        umask = os.umask(0o022)
        os.umask(umask)
        values: dict[str, Any] = {
            "signal handlers": _Same(list(map(_signal.getsignal, _SIGNALS))),
            "timers": [_signal.getitimer(which) for which in (0, 1, 2)],
            "blocked signals": sorted(_signal.pthread_sigmask(_signal.SIG_BLOCK, ())),
            "atexit handlers": atexit_count(),
            "switch interval": sys.getswitchinterval(),
            "trace": _Same([sys.gettrace(), sys.getprofile()]),
            "dlopen flags": sys.getdlopenflags(),
            "cwd": _cwd(),
            "umask": umask,
            "priority": os.getpriority(os.PRIO_PROCESS, 0),
            "argv list": _Same([sys.argv, sys.orig_argv]),
            "asynchronous generator hooks": _Same(list(sys.get_asyncgen_hooks())),
            "coroutine origin tracking": sys.get_coroutine_origin_tracking_depth(),
            "signal wake-up descriptor": _wakeup_fd(),
        }
        locale = sys.modules.get("_locale")
        if locale is not None:
            values["locale"] = locale.setlocale(locale.LC_ALL)
        for name, probe in (("faulthandler", "is_enabled"), ("tracemalloc", "is_tracing")):
            module = sys.modules.get(name)
            if module is not None:
                values[name] = getattr(module, probe)()
        return values

    def _open_fds(self) -> list[tuple[int, int]]:
        """Descriptors that are open (poll flags every closed one with POLLNVAL)."""
        return [(fd, bool(events & select.POLLNVAL)) for fd, events in self.fds.poll(0)]


_RLIMITS = tuple(
    sorted(getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_"))
)


def resource_limits() -> list[tuple[int, int]]:
    """The process's (soft, hard) resource limits, every one the system has."""
    return [resource.getrlimit(which) for which in _RLIMITS]


def restore_resource_limits(baseline: list[tuple[int, int]]) -> None:
    """Put back the limits a stdin test may have changed (a program may set its own below the
    hard limits, as in a plain run, which a later test must not inherit). A soft limit comes
    back exactly; a hard limit the program lowered cannot be raised again (no capability):
    the soft one then goes as near as it can, and adaptive isolation ends the child
    (:meth:`Baseline.changed`)."""
    now = resource_limits()
    if now == baseline:
        return
    for which, was, limits in zip(_RLIMITS, baseline, now, strict=True):
        if limits != was:
            hard = was[1] if _at_most(was[1], limits[1]) else limits[1]
            soft = was[0] if _at_most(was[0], hard) else hard
            try:
                resource.setrlimit(which, (soft, hard))
            except (ValueError, OSError):
                pass


def _at_most(limit: int, bound: int) -> bool:
    """Whether resource limit ``limit`` is no more than ``bound`` (RLIM_INFINITY is most)."""
    if bound == resource.RLIM_INFINITY:
        return True
    return limit != resource.RLIM_INFINITY and limit <= bound


def _hard_limits(limits: list[tuple[int, int]]) -> list[int]:
    return [hard for _, hard in limits]


def _kernel_threads() -> int:
    """The threads the kernel counts in this process (``/proc/self/stat``'s num_threads: a
    thread exists there from the moment it is cloned); 1 where it cannot be read."""
    try:
        return int(process.stat_fields(PROC.stat)[17])
    except (ValueError, IndexError):
        return 1


class ProcFiles:
    """The ``/proc/self`` files a batch child reads (opened by :func:`open_proc_files`)."""

    COUNT = 4  # the harness's descriptors they take (template.Layout)

    def __init__(self) -> None:
        self.stat: int | None = None
        self.status: int | None = None
        self.maps: int | None = None
        self.timers: int | None = None


PROC = ProcFiles()
AUDIT_HOOKS_ADDED = [False]  # set by the harness's audit hook: a program's hook sees later tests


def open_proc_files(place: Any) -> None:
    """Open the ``/proc/self`` files the checks read (``stat``, ``status``, ``maps``,
    ``timers``) while the child can (Landlock forbids /proc after confinement); ``place(fd)``
    moves each where the harness keeps its descriptors and says where."""
    for name in ("stat", "status", "maps", "timers"):
        setattr(PROC, name, _open(f"/proc/self/{name}", place))


def _open(path: str, place: Any) -> int | None:
    try:
        return place(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
    except OSError:
        return None


def threads_started(kernel_threads: int | None = None) -> bool:
    """Whether the program started any thread (running or ended): Python's threads, or any
    thread of the process that has used CPU (ctypes' ``pthread_create`` too).
    ``kernel_threads``: the threads the kernel counts, if the caller has read them."""
    if kernel_threads is None:
        kernel_threads = _kernel_threads()
    if _thread._count() or kernel_threads > 1:
        return True
    threading = sys.modules.get("threading")
    if threading is not None and repr(threading._counter.__self__) != _COUNTER_AT_START:
        return True
    # The process's CPU clock counts every thread it ever had, the thread clock only this one;
    # they differ by rounding, and a thread that ran costs far more.
    return _clock(_PROCESS_CLOCK) - _clock(_THREAD_CLOCK) > 1e-3


_clock = time.clock_gettime
_PROCESS_CLOCK, _THREAD_CLOCK = time.CLOCK_PROCESS_CPUTIME_ID, time.CLOCK_THREAD_CPUTIME_ID


_COUNTER_AT_START = "count(1)"


def remember_thread_counter() -> None:
    """Called in the child before its first test: threading's name counter as it starts."""
    global _COUNTER_AT_START
    threading = sys.modules.get("threading")
    if threading is not None:
        _COUNTER_AT_START = repr(threading._counter.__self__)


def atexit_count() -> int:
    return atexit._ncallbacks()


def _random_state() -> bytes | None:
    """The Mersenne Twister state of ``random``'s shared generator (its ``index`` and the 624
    words after the object's header), read in place: any draw or seeding changes it. None
    where the layout is not CPython's (then every test seeds afresh)."""
    random = sys.modules.get("random")
    instance = getattr(random, "_inst", None)
    if not _MT_LAYOUT or type(instance) is not getattr(random, "Random", None):
        return None
    return ctypes.string_at(id(instance) + _MT_OFFSET, _MT_SIZE)


_MT_OFFSET = 2 * ctypes.sizeof(ctypes.c_void_p)  # after PyObject_HEAD: int index, state[624]
_MT_SIZE = 4 + 624 * 4


def _mt_layout_known() -> bool:
    import _random
    import struct

    probe = _random.Random(12345)
    state = probe.getstate()  # the 624 words and the index
    raw = ctypes.string_at(id(probe) + _MT_OFFSET, _MT_SIZE)
    return raw == struct.pack("=i624I", state[-1], *state[:-1])


_MT_LAYOUT = sys.implementation.name == "cpython" and _mt_layout_known()


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError as exc:
        return f"<{exc.errno}>"


class _Same:
    """Objects compared by identity (``id()`` would raise an audit event per call, and the
    program's objects may define ``__eq__``)."""

    __slots__ = ("items",)

    def __init__(self, items: list[Any]) -> None:
        self.items = items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and _identical(self.items, other.items)

    __hash__ = None  # type: ignore[assignment]


def _identical(old: list[Any], new: list[Any]) -> bool:
    return len(old) == len(new) and all(map(operator.is_, old, new))


def _changed_lists(
    before: dict[str, list[Any]], now: dict[str, list[Any]], imported: bool
) -> str | None:
    """The first list that differs (items by identity); after a first import, lists that
    only gained items (``import numpy`` adds warning filters, some packages add import hooks)
    are unchanged."""
    for key in before.keys() | now.keys():
        old, new = before.get(key), now.get(key)
        if old is not None and new is not None and _identical(old, new):
            continue
        if imported and old is not None and new is not None and _kept_in_order(old, new):
            continue
        return key
    return None


def _kept_in_order(old: list[Any], new: list[Any]) -> bool:
    items = iter(new)
    return all(any(item is other for other in items) for item in old)


def _first_difference(before: dict[str, Any], now: dict[str, Any]) -> str | None:
    for key in before.keys() | now.keys():
        if before.get(key) != now.get(key):
            return key
    return None


def _wakeup_fd() -> int:
    """The signal wake-up descriptor (``signal.set_wakeup_fd``), read by setting none: a
    test that set one ends its child anyway."""
    try:
        return _signal.set_wakeup_fd(-1)
    except ValueError:  # only the main thread may (the harness runs in it)
        return -1


def _codec_registries() -> tuple[list[Any] | None, dict[str, Any] | None]:
    """The interpreter's codec search functions and error handlers (``codecs.register``,
    ``codecs.register_error``): found once, in the template, as the list that holds
    ``encodings``' search function and the dict that holds the ``strict`` handler."""
    import codecs

    encodings = sys.modules.get("encodings")
    search = getattr(encodings, "search_function", None)
    lists = [o for o in gc.get_referrers(search) if type(o) is list] if search else []
    strict = codecs.lookup_error("strict")
    dicts = [
        o
        for o in gc.get_referrers(strict)
        if type(o) is dict and o.get("strict") is strict and "surrogateescape" in o
    ]
    return (lists[0] if len(lists) == 1 else None), (dicts[0] if len(dicts) == 1 else None)
