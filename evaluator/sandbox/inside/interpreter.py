"""A plain run, rebuilt in a forked sandbox child.

The reference for how a program runs is ``python3 solution.py < input > output`` on the same
interpreter, as a contest judge runs it. A sandbox child is not started that way (it is a copy
of the fork template), so this module rebuilds what such a run has, from CPython's own start-up
and shutdown code (``Python/pylifecycle.c``, ``Modules/main.c``):

- the standard streams as ``create_stdio`` makes them for files: ``TextIOWrapper`` over a
  ``BufferedReader``/``BufferedWriter`` over a ``FileIO`` named ``<stdin>``...; stdout
  block-buffered, stderr line-buffered with ``backslashreplace``; ``newline="\\n"`` (no
  translation of ``\\r\\n``), the encoding and error handler a plain run measured
  (:mod:`evaluator.sandbox.reference`);
- ``__main__`` with the names and order a plain run gives it (``__file__`` absolute,
  ``__loader__`` a ``SourceFileLoader``, ``__annotations__``, ``__builtins__`` the module);
- the exit path of ``Py_RunMain``: ``SystemExit`` by ``_Py_HandleSystemExit``'s rules, other
  exceptions through ``sys.excepthook`` (status 1; ``KeyboardInterrupt`` ends by ``SIGINT``),
  then ``Py_FinalizeEx`` as far as the program's objects go: non-daemon threads joined
  (``threading._shutdown``), ``atexit`` handlers, ``sys.stdout``/``sys.stderr`` flushed (status
  120 when that fails), the original streams restored and the program's module released, so
  unclosed files are flushed (or lost) in the order a plain run flushes them.

What still differs from a plain run, and why, is the table in ``docs/plain-run.md``; the
differential suite in ``tests/python/`` holds this module to it.
"""

from __future__ import annotations

import atexit
import builtins
import ctypes
import fcntl
import gc
import io
import linecache
import os
import signal
import sys
import traceback
import types
import weakref
from importlib.machinery import SourceFileLoader
from typing import Any

SCRIPT = "solution.py"  # what a plain run was started with: ``python3 solution.py``
STATUS_SIGINT = -2  # the uncaught exception was KeyboardInterrupt: end by SIGINT
_FLUSH_FAILED = 120  # Py_RunMain's status when flushing the streams at exit fails
_STDIO = (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w"))
# The C library's own end of a process, resolved once in the template: what a plain run's
# exit(3) does after Py_FinalizeEx (C stdio flushed, C atexit handlers run) is what a child
# does too; os._exit would drop a line a C extension or ctypes printf left in C's buffer.
_LIBC = ctypes.CDLL(None)
_C_FFLUSH = _LIBC.fflush
_C_EXIT = _LIBC.exit


class Stdio:
    """How a plain run's streams are made: its encoding and the error handler it measured."""

    __slots__ = ("encoding", "errors", "premade")

    def __init__(self, encoding: str = "utf-8", errors: str = "surrogateescape") -> None:
        self.encoding, self.errors = encoding, errors
        self.premade = False  # the template made the first set (see premake)

    def install(self) -> None:
        """New ``sys.stdin``/``stdout``/``stderr`` (and their ``__std*__``) over fds 0-2, as
        ``create_stdio`` makes them when the fds are files. A child's first set was made by
        the fork template, untouched since (:meth:`premake`)."""
        if self.premade:
            self.premade = False
            return
        self._make()

    def premake(self) -> None:
        """In the template: make the streams a child's first test gets, over a memfd on fds
        0-2 (so they read its block size and that it is no terminal), then give the template
        its own descriptors back. Made here once, not in every child: the objects and the
        codec lookups they need cost a child ~90 copy-on-write faults."""
        saved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (0, 1, 2)]
        memfd = os.memfd_create("stdio", os.MFD_CLOEXEC)
        try:
            for fd in (0, 1, 2):
                os.dup2(memfd, fd)
            self._make()
            self.premade = True
        finally:
            for fd, copy in zip((0, 1, 2), saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)
            os.close(memfd)

    def _make(self) -> None:
        for name, fd, mode in _STDIO:
            binary = open(fd, mode + "b", -1, closefd=False)  # noqa: SIM115 - it is sys.std*
            binary.raw.name = f"<{name}>"
            stream = io.TextIOWrapper(
                binary,
                self.encoding,
                "backslashreplace" if fd == 2 else self.errors,
                "\n",
                fd == 2,  # stderr is line-buffered since 3.9, stdout only on a terminal
                False,
            )
            stream.mode = mode
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)


def new_main(program_source: str, directory: str) -> dict[str, Any]:
    """A fresh ``__main__`` as ``python3 solution.py`` run in ``directory`` has it (its dict
    keys in the same order), registered in ``sys.modules`` and held only there (its objects
    are released at exit as a plain run releases them); its namespace. The source goes to
    ``linecache``, so tracebacks and ``inspect`` show it."""
    path = os.path.join(directory, SCRIPT)
    module = _main_module(path)  # not premade: a frozen dict would never be collected
    namespace = module.__dict__
    sys.modules["__main__"] = module
    linecache.cache[path] = (len(program_source), None, program_source.splitlines(True), path)
    return namespace


def _main_module(path: str) -> types.ModuleType:
    module = types.ModuleType("__main__")
    namespace = module.__dict__
    namespace["__loader__"] = SourceFileLoader("__main__", path)
    namespace["__spec__"] = None
    namespace["__annotations__"] = {}
    namespace["__builtins__"] = builtins
    namespace["__file__"] = path
    namespace["__cached__"] = None
    return module


def run_script(
    program: types.CodeType, namespace: dict[str, Any]
) -> tuple[int, str | None, int | None]:
    """Run ``program`` in ``namespace`` as ``_PyRun_SimpleFileObject`` runs a script file: the
    exit status before shutdown, and the name and errno of an uncaught exception (not the
    exception: a reference to it would keep the program's frames alive past where a plain
    run frees them). After the code: the streams flushed (``flush_io``), then the exception
    printed through ``sys.excepthook`` (without this frame), and ``__file__``/``__cached__``
    removed from ``__main__`` unless ``SystemExit`` ended the run (that path exits at once)."""
    try:
        exec(program, namespace)
    except SystemExit as exc:
        _flush_io()
        return system_exit_status(exc), None, None
    except BaseException as exc:  # noqa: BLE001 - the program's own failure: print it as CPython
        _flush_io()
        report_uncaught(exc)
        status = STATUS_SIGINT if isinstance(exc, KeyboardInterrupt) else 1
        name, errno = type(exc).__name__, getattr(exc, "errno", None)
        del exc
    else:
        _flush_io()
        status, name, errno = 0, None, None
    namespace.pop("__file__", None)
    namespace.pop("__cached__", None)
    return status, name, errno


def _flush_io() -> None:
    """``flush_io``: stderr then stdout, errors ignored."""
    for name in ("stderr", "stdout"):
        _flush_quietly(getattr(sys, name, None))


def system_exit_status(exc: SystemExit) -> int:
    """``_Py_HandleSystemExit``: ``None`` is 0; an int (``bool`` included) is its C ``long``
    (out of range: -1) as an exit status; anything else is printed to ``sys.stderr`` and is 1."""
    code = getattr(exc, "code", None)
    if code is None:
        return 0
    if isinstance(code, int):
        if -(1 << 63) <= int.__int__(code) < 1 << 63:
            return int.__and__(code, 0xFF)
        return 0xFF
    _write_stderr(code)
    return 1


def _write_stderr(value: Any) -> None:
    stream = getattr(sys, "stderr", None)
    try:
        if stream is None:
            raise AttributeError
        stream.write(str(value))
        stream.write("\n")
    except BaseException:  # noqa: BLE001 - as PyFile_WriteObject's fallback: the C stderr
        try:
            os.write(2, f"{value}\n".encode("utf-8", "backslashreplace"))
        except BaseException:  # noqa: BLE001
            pass


def report_uncaught(exc: BaseException) -> None:
    """``PyErr_Print``: ``sys.last_*`` set, then ``sys.excepthook`` (its own failure and the
    original exception printed by the built-in hook, as CPython does)."""
    tb = exc.__traceback__
    tb = tb.tb_next if tb is not None else None  # this module's frame is not the program's
    exc.__traceback__ = tb
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    hook = getattr(sys, "excepthook", None)
    try:
        if hook is None:
            _write_stderr("sys.excepthook is missing")
            sys.__excepthook__(type(exc), exc, tb)
        elif hook is sys.__excepthook__:
            _print_default(exc, tb)
        else:
            hook(type(exc), exc, tb)
    except SystemExit:
        raise
    except BaseException as failure:  # noqa: BLE001 - as _PyErr_PrintEx
        _write_stderr("Error in sys.excepthook:")
        _builtin_print(failure)
        _write_stderr("\nOriginal exception was:")
        _builtin_print(exc)


def _print_default(exc: BaseException, tb: types.TracebackType | None) -> None:
    """The built-in hook's text, source lines included. CPython's C hook (3.11, 3.12) reads
    each line from the script's file on disk, and the program's file is not on disk here
    (it reaches the child compiled): the ``traceback`` module prints the same text (its
    carets too) from ``linecache``, where :func:`new_main` put the source. Without a
    ``sys.stderr`` it prints nothing, as the C hook; a text that cannot be made (a
    ``__str__`` that raises deep down, say) is left to the C hook, source lines or not."""
    stream = getattr(sys, "stderr", None)
    try:
        if stream is None:
            raise LookupError  # the C hook says it has no stderr, as a plain run's does
        text = "".join(traceback.format_exception(type(exc), exc, tb))
    except Exception:  # noqa: BLE001 - the built-in hook's own text is the fallback
        sys.__excepthook__(type(exc), exc, tb)
        return
    stream.write(text)


def _builtin_print(exc: BaseException) -> None:
    try:
        sys.__excepthook__(type(exc), exc, exc.__traceback__)
    except BaseException:  # noqa: BLE001
        pass


def finish(status: int, *, final: bool = True) -> int:
    """``Py_FinalizeEx`` for the program: the exit status it ends with.

    ``final``: the process ends after this (test isolation, or a batch child's last test);
    else it runs another test and must stay usable (the caller has checked that the program
    started no thread, so there is nothing to join)."""
    if final:
        _wait_for_thread_shutdown()
    else:
        join_threads()
    _run_atexit()
    if not flush_std_files():
        status = _FLUSH_FAILED if status != STATUS_SIGINT else status
    if gc.isenabled():
        gc.collect()
    _release_program(final)
    for name in ("__stdout__", "__stderr__"):  # what clearing sys at shutdown flushes
        _flush_quietly(getattr(sys, name, None))
    if not final:  # the process goes on: what exit(3) would flush is this test's output
        flush_c_streams()
    return status


def flush_c_streams() -> None:
    """``fflush(NULL)``: the C library's buffered output (a C extension's or ctypes'
    ``printf``) written out, as ``exit(3)`` writes it at the end of a plain run."""
    _C_FFLUSH(None)


def _wait_for_thread_shutdown() -> None:
    threading = sys.modules.get("threading")
    if threading is None or not _threads_to_wait_for(threading):
        return
    try:
        threading._shutdown()
    except BaseException as exc:  # noqa: BLE001 - CPython writes it as unraisable and goes on
        _unraisable(exc, threading)


def _threads_to_wait_for(threading: Any) -> bool:
    """Whether ``threading._shutdown`` has anything to do: a thread started through
    ``threading`` (its name counter moved) or a callback of ``threading._register_atexit``.
    Without either it only marks the main thread stopped, which nothing sees at exit."""
    counter = getattr(threading, "_counter", None)
    moved = repr(getattr(counter, "__self__", None)) != _THREAD_COUNTER[0]
    return moved or bool(getattr(threading, "_threading_atexits", None))


_THREAD_COUNTER = ["count(1)"]  # threading's name counter as the template left it


def join_threads() -> None:
    """Wait for the program's non-daemon threads, as ``threading._shutdown`` does, without
    marking the main thread stopped (the child goes on)."""
    threading = sys.modules.get("threading")
    if threading is None or len(threading._active) + len(threading._limbo) <= 1:
        return  # only this thread (the common case, without threading's lock)
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon:
            try:
                thread.join()
            except BaseException:  # noqa: BLE001 - e.g. a thread object the program broke
                pass


def _run_atexit() -> None:
    try:
        atexit._run_exitfuncs()
    except BaseException as exc:  # noqa: BLE001 - a KeyboardInterrupt in a handler, say
        _unraisable(exc, None)


def flush_std_files() -> bool:
    """``flush_std_files``: flush ``sys.stdout`` then ``sys.stderr`` unless missing, None or
    closed; False when a flush raised (stdout's failure is printed as unraisable)."""
    ok = True
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name, None)
        if stream is None or _is_closed(stream):
            continue
        try:
            stream.flush()
        except BaseException as exc:  # noqa: BLE001
            ok = False
            if name == "stdout":
                _unraisable(exc, stream)
    return ok


def _is_closed(stream: Any) -> bool:
    try:
        return bool(stream.closed)
    except BaseException:  # noqa: BLE001 - CPython's file_is_closed treats errors as open
        return False


# What finalize_modules_delete_special sets to None before modules go (a plain run's objects
# whose __del__ runs at exit see them so); kept in a batch child, which goes on.
_SYS_CLEARED_AT_EXIT = ("path", "argv", "ps1", "ps2", "path_hooks", "path_importer_cache")
_SYS_CLEARED_AT_EXIT += ("meta_path", "__interactivehook__")


def _release_program(final: bool) -> None:
    """``finalize_modules`` for the program's objects: ``sys.last_*`` dropped and the original
    streams put back in ``sys`` (a replacement is released here: a file it wraps is flushed,
    or closes fd 1 first), ``__main__`` dropped from ``sys.modules`` and collected, its
    namespace cleared if something still holds it (underscore names first, as
    ``_PyModule_ClearDict``)."""
    for name in ("last_type", "last_value", "last_traceback"):
        if final:
            setattr(sys, name, None)
        else:
            sys.__dict__.pop(name, None)
    if final:
        for name in _SYS_CLEARED_AT_EXIT:
            setattr(sys, name, None)
    for name in ("stdin", "stdout", "stderr"):
        setattr(sys, name, getattr(sys, f"__{name}__", None))
    module = sys.modules.get("__main__")
    if not isinstance(module, types.ModuleType):
        return
    alive = weakref.ref(module)
    sys.modules["__main__"] = None  # type: ignore[assignment]
    del module
    gc.collect()
    module = alive()
    if module is not None:  # held by something else: cleared, as modules left alive are
        _clear_namespace(module.__dict__)


def _clear_namespace(namespace: dict[str, Any]) -> None:
    for first in (True, False):
        for key in list(namespace):
            if key == "__builtins__" or not isinstance(key, str):
                continue
            if first != (key.startswith("_") and not key.startswith("__")):
                continue
            try:
                namespace[key] = None
            except BaseException as exc:  # noqa: BLE001 - a __del__ that raised
                _unraisable(exc, None)


def _flush_quietly(stream: Any) -> None:
    if stream is None:
        return
    try:
        stream.flush()
    except BaseException:  # noqa: BLE001 - a dealloc-time flush: errors are dropped
        pass


def _unraisable(exc: BaseException, obj: Any) -> None:
    """``PyErr_WriteUnraisable``, through ``sys.unraisablehook``'s default output."""
    import traceback

    try:
        where = f"Exception ignored in: {obj!r}\n" if obj is not None else "Exception ignored:\n"
        text = where + "".join(traceback.format_exception(exc))
        os.write(2, text.encode("utf-8", "backslashreplace"))
    except BaseException:  # noqa: BLE001
        pass


def end_process(status: int) -> None:
    """Leave as a plain run does: the C library's ``exit(status)`` (C stdio flushed, C
    ``atexit`` handlers and library destructors run), or die by SIGINT after an uncaught
    ``KeyboardInterrupt`` (``exit_sigint``). Never returns."""
    if status == STATUS_SIGINT:
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException:  # noqa: BLE001
            pass
        status = 128 + int(signal.SIGINT)
    try:
        _C_EXIT(status & 0xFF)
    finally:  # never reached unless a handler raised into Python (a ctypes callback)
        os._exit(status & 0xFF)


# -- the fork template: what every child inherits ---------------------------------------------

STDIO = Stdio()
DIRECTORY = "."  # the run directory: the script's directory and the working directory
THREAD_STACK = 8 << 20  # glibc's default for new threads (RLIMIT_STACK would give each 1 GiB)


def prepare(reference: dict[str, Any], run_dir: str) -> None:
    """Make the fork template look to its children like a plain run started in ``run_dir``
    (``reference``: what :func:`evaluator.sandbox.reference.plain_run` measured): its
    ``sys.flags``, import path and ``argv``, ``site``'s builtins, default thread stacks,
    and none of this project's modules (the fork server imported them to run)."""
    global STDIO, DIRECTORY
    DIRECTORY = run_dir
    streams = reference["streams"]["stdout"]
    STDIO = Stdio(streams["encoding"], streams["errors"])
    import site  # before sys.flags says no_site=0: with -S its import runs nothing

    site.setquit()
    site.setcopyright()
    site.sethelper()
    _copy_flags(reference["flags"])
    sys.path[:] = [run_dir, *reference["path"]]
    sys.prefix, sys.exec_prefix = reference["prefix"], reference["exec_prefix"]
    sys.path_importer_cache.clear()  # finders for the server's own path entries
    sys.argv = list(reference["argv"])
    sys.orig_argv = [sys.executable, *reference["argv"]]
    sys.setrecursionlimit(int(reference["recursion_limit"]))
    sys.set_int_max_str_digits(int(reference["int_max_str_digits"]))
    _default_thread_stack(THREAD_STACK)
    hide_own_modules()
    sys.modules["__main__"] = types.ModuleType("__main__")
    threading = sys.modules.get("threading")
    if threading is not None:
        _THREAD_COUNTER[0] = repr(threading._counter.__self__)
    STDIO.premake()


def hide_own_modules() -> None:
    """Drop this project's modules from ``sys.modules`` (their code stays with whatever uses
    it): a program finds none of them, nor the harness's report key through them."""
    own = [name for name in sys.modules if name == "evaluator" or name.startswith("evaluator.")]
    for name in own:
        del sys.modules[name]


def _copy_flags(values: list[Any]) -> None:
    """``sys.flags`` with a plain run's values (the type cannot be instantiated from Python:
    the instance is made with the C API, as the interpreter makes its own)."""
    import ctypes

    api = ctypes.pythonapi
    api.PyStructSequence_New.restype = ctypes.py_object
    api.PyStructSequence_New.argtypes = [ctypes.py_object]
    api.PyStructSequence_SetItem.restype = None
    api.PyStructSequence_SetItem.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.py_object]
    api.Py_IncRef.argtypes = [ctypes.py_object]
    kind = type(sys.flags)
    if len(values) != len(sys.flags):
        return
    flags = api.PyStructSequence_New(kind)
    for index, value in enumerate(values):
        value = type(sys.flags[index])(value)
        api.Py_IncRef(value)  # SetItem steals a reference
        api.PyStructSequence_SetItem(id(flags), index, value)
    sys.flags = flags


def _default_thread_stack(size: int) -> None:
    """New threads get ``size`` bytes of stack by glibc's default attributes, so
    ``threading.stack_size()`` reads 0 as in a plain run."""
    import _thread
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(256)  # pthread_attr_t: 56 bytes on x86_64, 64 on arm64
    if libc.pthread_attr_init(attr) != 0:
        return
    try:
        if (
            libc.pthread_attr_setstacksize(attr, ctypes.c_size_t(size)) == 0
            and libc.pthread_setattr_default_np(attr) == 0
        ):
            _thread.stack_size(0)
            return
    finally:
        libc.pthread_attr_destroy(attr)
    _thread.stack_size(size)  # no default attributes to set: Python's own setting, then
