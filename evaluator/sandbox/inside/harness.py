"""The in-sandbox half of the harnesses: runs inside the forked child, after the limits and
the seccomp/Landlock confinement are in place, and reports one test's outcome on its report
channel (what a report may say, and what the server takes from the kernel instead: the fork
server's :class:`~evaluator.sandbox.watchdog.Child`, docs/plain-run.md).

Imported by the fork template at start-up so each child gets it for free; it must stay small
and import nothing heavy. Nothing here decides a verdict: the child only runs the program
and reports what happened; comparing with expected outputs happens in the grader. Nothing
here knows a dataset's or a platform's convention either: which names a program finds without
an import, which class holds its entry point and which function its tests define come in the
job as plain data (``Job.names``, ``entry_class``, ``check_name``), chosen by the harness layer
above the sandbox.
"""

from __future__ import annotations

import builtins
import json
import marshal
import os
import struct
import sys
import traceback
import types
from typing import Any

from evaluator.sandbox import reports
from evaluator.sandbox.inside import interpreter, plain, state, wipe

SOURCE_NAME = interpreter.SCRIPT
TRACEBACK_FRAMES = 30  # the last frames only: a RecursionError at depth 1e6 is huge

# Audit events that mean the program tried something the sandbox refuses. When a test dies of
# PermissionError/OSError right after one of them, it is reported as ``blocked``.
_SENSITIVE = {
    "os.system": "os.system",
    "os.exec": "exec",
    "os.posix_spawn": "posix_spawn",
    "os.fork": "fork",
    "os.forkpty": "fork",
    "subprocess.Popen": "subprocess",
    "socket.__new__": "socket",
    "socket.connect": "socket",
    "os.kill": "kill",
    "os.killpg": "kill",
    "os.remove": "delete file",
    "os.rmdir": "delete dir",
    "os.rename": "rename",
    "shutil.rmtree": "delete dir",
    "resource.setrlimit": "setrlimit",
    "resource.prlimit": "setrlimit",
}
_last_sensitive: list[str | None] = [None]


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "sys.addaudithook":
        state.AUDIT_HOOKS_ADDED[0] = True
        return
    what = _SENSITIVE.get(event)
    if what is not None:
        _last_sensitive[0] = what
    elif event == "open" and len(args) >= 3:
        mode, flags = args[1], args[2]
        if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
        ):
            _last_sensitive[0] = f"write {args[0]!r}"


def install_audit_hook() -> None:
    sys.addaudithook(_audit)


# -- names a program finds without an import (Job.names) ---------------------------------------

_STAR: dict[str, dict[str, Any]] = {}  # a module's public names (builtins' own left out)
_OVERLAYS: dict[tuple[tuple[str, ...], tuple[str, ...]], dict[str, Any]] = {}


def _module(name: str) -> types.ModuleType:
    """The module ``name``, imported now if no one has (the template preloads the usual)."""
    module = sys.modules.get(name)
    if module is None:
        __import__(name)
        module = sys.modules[name]
    return module


def star_names(name: str) -> dict[str, Any]:
    """What ``from name import *`` binds, but the builtins' names (never shadowed); kept, so
    that the template makes them once for the modules it preloads and children only merge."""
    found = _STAR.get(name)
    if found is None:
        module = _module(name)
        public = getattr(module, "__all__", None) or [
            n for n in dir(module) if not n.startswith("_")
        ]
        found = {
            n: getattr(module, n) for n in public if not hasattr(builtins, n) and hasattr(module, n)
        }
        _STAR[name] = found
    return found


def builtins_with(names: dict[str, Any] | None) -> dict[str, Any] | None:
    """The builtins namespace of a program given ``names`` (a job's :class:`Names` as its
    wire dict): the builtins, then each star module's names, then the modules under their own
    names; None when there are none (the program gets the plain builtins). The names live in
    the builtins, not in the program's globals, so ``from __future__`` stays first and the
    program's own definitions win. Made once per process and shared by its tests."""
    star = tuple((names or {}).get("star") or ())
    modules = tuple((names or {}).get("modules") or ())
    if not star and not modules:
        return None
    overlay = _OVERLAYS.get((star, modules))
    if overlay is None:
        overlay = dict(builtins.__dict__)
        for name in star:
            overlay.update(star_names(name))
        for name in modules:
            overlay[name] = _module(name)
        _OVERLAYS[(star, modules)] = overlay
    return overlay


def fresh_stdio() -> tuple[Any, Any]:
    """New stdin/stdout/stderr objects over the real fds 0-2 for each test, made as a plain
    run makes them (no state, no buffered bytes carried over from a previous test)."""
    for fd in (0, 1, 2):
        os.lseek(fd, 0, os.SEEK_SET)
    interpreter.STDIO.install()
    return sys.stdout, sys.stderr


def fresh_main(code: str, overlay: dict[str, Any] | None) -> dict[str, Any]:
    """A plain run's ``__main__`` (its namespace); with ``overlay`` (:func:`builtins_with`)
    as its builtins."""
    namespace = interpreter.new_main(code, interpreter.DIRECTORY)
    if overlay is not None:
        namespace["__builtins__"] = overlay
    return namespace


def resolve(namespace: dict[str, Any], name: str, entry_class: str | None) -> Any:
    """The method ``name`` of a fresh instance of the class ``entry_class`` when the program
    defines that class with that method, else its top-level ``name``. Missing names raise
    inside the test, so they are the program's runtime error."""
    owner = namespace.get(entry_class) if entry_class else None
    if isinstance(owner, type) and hasattr(owner, name):
        return getattr(owner(), name)
    if name in namespace:
        return namespace[name]
    if entry_class:
        raise NameError(f"the program defines neither {entry_class}.{name} nor {name}()")
    raise NameError(f"the program defines no {name}()")


def encode_strict(value: Any) -> str:
    """Serialise a return value that is plain data (None, bool, int, float, str, list,
    tuple, dict) to JSON; anything else raises ``TypeError``. Subclasses are read through
    their base type (an overridden ``__eq__``/``__repr__``/``__iter__`` is never called) and
    NumPy scalars and arrays through ``tolist()``, by :func:`plain.to_plain`. NaN and
    infinities are written as ``NaN``/``Infinity`` (Python's json reads them).

    Fast path: ``marshal`` refuses every subclass of a built-in type, but writes any object
    with the buffer protocol (NumPy scalars and arrays, a ``bytearray``, a class with
    ``__buffer__``) as if it were ``bytes``. So the value is read back from marshal's bytes
    (:func:`_exact_copy`): only exact built-in types, which the json module's C encoder reads
    without calling anything of the program's (it would iterate a list subclass through its
    ``__iter__``); where a ``bytes`` stands in that copy, the value held something marshal
    took for one and :func:`plain.to_plain` reads the original instead."""
    original = value
    try:
        value = _exact_copy(value)
        encoder = _EXACT_ENCODER
    except ValueError as refused:  # a subclass, too deep for marshal, or not data
        # marshal's words for depth; were they to change, the copy below is only slower
        too_deep = "deeply nested" in str(refused)
        with _harness_room():
            if not (too_deep and plain.only_exact_types(value, DEEPEST)):
                value = plain.to_plain(value, limit=DEEPEST)
        encoder = _ENCODER
    try:
        return _encode(encoder, value)
    except _HeldBytes:  # a NumPy value (or other buffer) where marshal wrote bytes
        with _harness_room():
            value = plain.to_plain(original, limit=DEEPEST)
        return _encode(_ENCODER, value)


def _exact_copy(value: Any) -> Any:
    """``value`` as exact built-in types (``ValueError`` for what marshal refuses): itself
    when marshal's bytes hold no ``bytes`` code at all (then it held no buffer either: the
    usual case, no copy), else read back from them, with ``bytes`` wherever it held a buffer."""
    data = marshal.dumps(value)
    if _BYTES_CODE not in data and _BYTES_CODE_REF not in data:
        return value
    return marshal.loads(data)


# marshal's type code of bytes and of any buffer ("s"), also with its FLAG_REF bit; the same
# byte inside other data only costs a copy
_BYTES_CODE, _BYTES_CODE_REF = b"s", bytes([ord("s") | 0x80])


def _encode(encoder: json.JSONEncoder, value: Any) -> str:
    """JSON of ``value``, under the program's limits first (enough for nearly every value,
    and cheaper), then in the harness's room (very deep, or an int of more digits than the
    program's limit)."""
    try:
        return encoder.encode(value)
    except (RecursionError, ValueError) as exc:
        if "Circular reference" in str(exc):
            raise TypeError("return value contains a reference cycle") from None
    with _harness_room():
        return encoder.encode(value)


class _HeldBytes(Exception):
    """Marshal's copy of a return value holds ``bytes``: the original must be read again."""


def _held_bytes(value: Any) -> Any:
    raise _HeldBytes


def _not_plain(value: Any) -> Any:
    kind = type(value)
    raise TypeError(f"return value contains a {kind.__qualname__}, which is not plain data")


_ENCODER = json.JSONEncoder(allow_nan=True, separators=(",", ":"), default=_not_plain)
# for marshal's copies: anything not JSON there is a bytes (or a code object) that marshal made
_EXACT_ENCODER = json.JSONEncoder(allow_nan=True, separators=(",", ":"), default=_held_bytes)


DEEPEST = 1_000_000  # nesting the harness decodes and encodes (the main stack is 1 GiB)


class _harness_room:
    """The harness's own conversions (test arguments in, return values out) are not the
    program's: no int/str digit limit and room for values nested up to :data:`DEEPEST`
    levels, whatever the environment (or the program) set."""

    def __enter__(self) -> None:
        self.digits, self.depth = sys.get_int_max_str_digits(), sys.getrecursionlimit()
        sys.set_int_max_str_digits(0)
        sys.setrecursionlimit(max(self.depth, DEEPEST + 100))

    def __exit__(self, *exc_info: object) -> None:
        sys.set_int_max_str_digits(self.digits)
        sys.setrecursionlimit(self.depth)


def run_script_test(
    code: str, program: types.CodeType, policy: str, overlay: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any], bool]:
    """A stdin test, run as ``python3 solution.py < input > output`` runs: the exit status at
    the end of its exit path, what the report adds (the uncaught exception's name, an
    operation the sandbox refused) and whether this was the process's last test.
    ``policy``: ``final`` (the process ends after this test), ``adaptive`` (it ends after it
    if the program started a thread: those are joined as at interpreter exit) or
    ``continue`` (submission isolation: threads are joined and the process goes on).
    ``overlay``: the builtins with the job's names (:func:`builtins_with`), copied for the
    test: what one test puts there is not the next one's."""
    fresh_stdio()
    _last_sensitive[0] = None
    namespace = fresh_main(code, None if overlay is None else dict(overlay))
    status, name, errno = interpreter.run_script(program, namespace)
    del namespace  # held only by sys.modules now, as in a plain run
    final = (
        policy == "final"
        or status == interpreter.STATUS_SIGINT
        or (policy == "adaptive" and state.threads_started())
    )
    report: dict[str, Any] = {}
    if name is not None:
        report["exception"] = name
        if errno in (1, 13, 38) and _last_sensitive[0]:
            report["blocked"] = _last_sensitive[0]
    status = interpreter.finish(status, final=final)
    return status, report, final


def script_report(status: int, extra: dict[str, Any]) -> dict[str, Any]:
    """The report of a stdin test that ended with exit status ``status``."""
    if status == 0:
        return {"status": "ok", "exit_code": 0, **extra}
    if extra.get("exception") and status == 1:
        return {"status": "exception", "exit_code": 1, **extra}
    return {"status": "exit", "exit_code": status & 0xFF, **extra}


class Module:
    """The program's module as its call-based tests find it: executed once, then kept (the
    entry point looked up again and its class instantiated afresh for each test; class
    attributes and module globals carry from test to test). A module whose execution raised
    is not kept: the next test executes it afresh and fails (or not) on its own."""

    __slots__ = ("code", "program", "overlay", "entry_class", "namespace")

    def __init__(
        self,
        code: str,
        program: types.CodeType,
        overlay: dict[str, Any] | None,
        entry_class: str | None,
    ) -> None:
        self.code, self.program, self.overlay = code, program, overlay
        self.entry_class = entry_class
        self.namespace: dict[str, Any] | None = None

    def load(self) -> dict[str, Any]:
        """The executed module's namespace (executing it now if no test has yet)."""
        if self.namespace is None:
            namespace = fresh_main(self.code, self.overlay)
            exec(self.program, namespace)
            self.namespace = namespace
        return self.namespace

    def entry(self, name: str) -> Any:
        """What a test calls: ``name`` looked up afresh (:func:`resolve`)."""
        return resolve(self.load(), name, self.entry_class)


def run_call(
    module: Module,
    func_name: str,
    raw_input: bytearray,
    stderr: Any,
    output_arg: int | None = None,
) -> dict[str, Any]:
    """One call-based test in this (already confined) process: its arguments decoded from
    ``raw_input`` (one JSON value per line), the entry point called (:meth:`Module.entry`),
    its return value encoded (with ``output_arg``, that argument's value after the call
    instead: an in-place problem); what happened, as the report says it. The harness's copies
    of the input (the bytes, their text, the arguments) are wiped once the program no longer
    holds them, so a later test cannot find them in this process's memory."""
    _last_sensitive[0] = None
    try:
        args = _arguments(raw_input)
    except (ValueError, RecursionError) as exc:
        return {"status": "bad_input", "exception": f"test input is not JSON: {exc}"}
    report: dict[str, Any] = {"status": "ok"}
    try:
        value = module.entry(func_name)(*args)
        if output_arg is not None:  # judged by the argument as the call left it
            value = args[output_arg] if 0 <= output_arg < len(args) else _NO_ARGUMENT
        try:
            report["value"] = encode_strict(value)
        except (TypeError, RecursionError, ValueError) as exc:
            report = {"status": "error", "exception": f"unserialisable result: {exc}"}
        del value
    except BaseException as exc:  # noqa: BLE001 - the program's own failure, reported
        report = _failure(exc, stderr)
    finally:
        wipe.objects(args)
        del args
    interpreter.join_threads()
    return report


class _NoArgument:
    """Stands for the ``output_arg`` a test does not have (the grader refuses such problems
    before they run: :func:`evaluator.runner.grading`'s checks); never plain data."""


_NO_ARGUMENT = _NoArgument()


def run_assertion(module: Module, func_name: str, check_name: str) -> dict[str, Any]:
    """One assertion test whose ``module`` (not yet executed) holds the candidate and the
    tests, joined: the report says ``checked`` only when the tests' ``check_name(candidate)``
    returned."""
    _last_sensitive[0] = None
    stdout, stderr = fresh_stdio()
    try:
        namespace = module.load()
        check = namespace.get(check_name)
        if not callable(check):
            raise NameError(f"the tests define no {check_name}(candidate)")
        check(module.entry(func_name))
        report: dict[str, Any] = {"status": "ok", "checked": True}  # every assert passed
    except BaseException as exc:  # noqa: BLE001 - the program's own failure, reported
        report = _failure(exc, stderr)
    interpreter.join_threads()
    flush_streams(stdout, stderr)
    return report


def _arguments(raw_input: bytearray) -> list[Any]:
    """A call's arguments: one JSON value per non-blank line. The text decoded from the bytes
    is wiped as soon as it is parsed."""
    text = raw_input.decode("utf-8", "surrogateescape")
    try:
        try:  # under the test's limits first: enough for nearly every input, and cheaper
            return [json.loads(line) for line in text.split("\n") if line.strip()]
        except (RecursionError, ValueError):
            pass
        with _harness_room():  # very deep, or an int of more digits than the test's limit
            return [json.loads(line) for line in text.split("\n") if line.strip()]
    finally:
        wipe.text(text)
        del text


def _failure(exc: BaseException, stderr: Any) -> dict[str, Any]:
    """The report of a test the program ended with ``exc``; its traceback goes to ``stderr``
    (the harness's stream, whatever the program did to ``sys.stderr``)."""
    if isinstance(exc, SystemExit):
        return {"status": "exit", "exit_code": interpreter.system_exit_status(exc)}
    report: dict[str, Any] = {"status": "exception", "exception": type(exc).__name__}
    if isinstance(exc, OSError) and exc.errno in (1, 13, 38) and _last_sensitive[0]:
        report["blocked"] = _last_sensitive[0]
    try:
        traceback.print_exception(exc, limit=-TRACEBACK_FRAMES, file=stderr)
    except BaseException:  # noqa: BLE001
        pass
    return report


def flush_streams(*streams: Any) -> None:
    """Flush the program's ``sys.stdout``/``sys.stderr`` and the harness's own ``streams``
    (a closed or replaced stream is skipped)."""
    for stream in (sys.stdout, sys.stderr, *streams):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a closed or replaced stream
            pass


def _unarmed(report: dict[str, Any]) -> None:
    raise RuntimeError("arm_reports() was not called")


_send = _unarmed
_LENGTH = struct.Struct(">I")  # a frame's length (evaluator.sandbox.wire)
_test = [0]  # the number of the test in progress in this child (counted from its first)
_write = os.write  # bound here, in the template: a program that replaces os.write does not
# rewrite the reports (one that finds this binding can, and gains nothing: see below)


def arm_reports(key: bytes, fd: int) -> None:
    """Bind the run's report key and channel into the sender.

    The key only tells the harness's frames from bytes a program writes on the channel by
    chance: it is no secret from the program, which shares this process (it can call the
    sender, or read the key from memory). What the server accepts does not rest on it: one
    report per test, bound to the test's number, counted only when the child is done with
    the test (a per-test child once it has exited cleanly), its CPU time and memory the
    kernel's, and of its fields only those a program could make its harness say anyway
    (:func:`evaluator.sandbox.reports.child_fields`)."""
    global _send

    def send(report: dict[str, Any]) -> None:
        head, value = reports.pack_signed(key, _test[0], report)
        data = memoryview(_LENGTH.pack(len(head)) + head + _LENGTH.pack(len(value)) + value)
        while data:
            data = data[_write(fd, data) :]

    _send = send


def begin_test(number: int) -> None:
    """A batch child starts its test ``number``: its report says so."""
    _test[0] = number


def send_report(report: dict[str, Any]) -> None:
    """Write the test's report on the report channel (:mod:`evaluator.sandbox.reports`:
    signed with the run's key and the test's number)."""
    _send(report)


def input_is_json(text: str) -> bool:
    """Whether a call-based test's input is one JSON value per non-blank line, as
    :func:`run_call` reads it: the fork server's check of a child that says its test's
    input is not (a program could otherwise claim a broken test, which is not judged)."""
    try:
        with _harness_room():
            for line in text.split("\n"):
                if line.strip():
                    json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True
