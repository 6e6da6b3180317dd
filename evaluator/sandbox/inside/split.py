"""Split assertion tests, the in-sandbox half: the candidate and the problem's tests run in two
sandboxed processes. The tests' process calls their function (the job's ``check_name``) with a
proxy that sends the
arguments as plain data to the candidate's process and gets the return value back as plain
data: the candidate never shares an address space with the asserts or with the report channel
that says they passed, so it can neither forge that report nor hand the asserts an object whose
``__eq__`` lies. (The parent's side: :mod:`evaluator.harness.assertion`.)"""

from __future__ import annotations

import builtins
import os
import sys
import traceback
import types
from typing import Any

from evaluator.sandbox.inside import interpreter, plain
from evaluator.sandbox.inside.harness import TRACEBACK_FRAMES, Module, fresh_main, fresh_stdio
from evaluator.sandbox.wire import read_frame, write_frames

CALLS_IN_FD, CALLS_OUT_FD = -1, -1  # set by the child from its descriptor layout


class ProgramGone(BaseException):
    """The candidate's process ended (exit, crash or limit) before answering a call."""


class CannotSplit(BaseException):
    """The tests passed the candidate something that is not plain data (e.g. a lambda)."""


def serve_calls(module: Module, func_name: str) -> None:
    """The candidate's side: run the program (``module``) as ``__main__``, say whether it
    loaded, then answer each call with ``("ok", value, args after the call)`` or ``("raise",
    type, text)``. ``SystemExit`` ends the process with its status, as it would end an
    in-process test."""
    stdout, stderr = fresh_stdio()

    def reply(frame: bytes) -> None:
        _flush(stdout, stderr)  # the server kills this process once the tests have reported:
        write_frames(CALLS_OUT_FD, frame)  # what it printed must be in the memfds by then

    try:
        try:
            func = module.entry(func_name)
            reply(plain.dumps(("ready",)))
        except SystemExit:
            raise
        except BaseException as exc:  # noqa: BLE001 - the program's failure, the tests' to see
            traceback.print_exception(exc, limit=-TRACEBACK_FRAMES, file=stderr)
            reply(plain.dumps(_raised(exc)))
            return
        while (request := read_frame(CALLS_IN_FD)) is not None:
            args, kwargs = plain.loads(request)
            reply(_call(func, args, kwargs))
    except SystemExit as exc:
        _flush(stdout, stderr)
        os._exit(interpreter.system_exit_status(exc))
    finally:
        _flush(stdout, stderr)


def _call(func: Any, args: list[Any], kwargs: dict[str, Any]) -> bytes:
    try:
        value = func(*args, **kwargs)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - raised by the candidate: the tests may expect it
        return plain.dumps(_raised(exc))
    try:
        return plain.dumps(("ok", plain.to_plain(value), _after(args)))
    except (TypeError, ValueError, RecursionError) as exc:
        return plain.dumps(("raise", "TypeError", f"return value is not plain data: {exc}"))


def _after(args: list[Any]) -> Any:
    """The arguments after the call (the tests may check an in-place change), when plain."""
    try:
        return plain.to_plain(args)
    except (TypeError, ValueError, RecursionError):
        return None


def _raised(exc: BaseException) -> tuple[str, str, str]:
    try:
        text = str(exc)[:2000]
    except BaseException:  # noqa: BLE001 - a broken __str__
        text = ""
    return ("raise", type(exc).__name__, text)


def _flush(*streams: Any) -> None:
    for stream in (sys.stdout, sys.stderr, *streams):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a closed or replaced stream
            pass


def _rebuild(name: str, text: str) -> Exception:
    """The candidate's exception on the tests' side: the built-in class of that name (so
    ``except ValueError`` in a test works), else a new ``Exception`` subclass named so."""
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = type(name, (Exception,), {})
    try:
        return cls(text)
    except BaseException:  # noqa: BLE001 - a class whose constructor wants other arguments
        return type(name, (Exception,), {})(text)


def _proxy(func_name: str, trouble: list[BaseException]) -> Any:
    """The candidate as the tests see it. ``trouble`` keeps a lost program or an argument that
    cannot cross, so a test that swallows every exception still cannot turn them into a pass."""

    def candidate(*args: Any, **kwargs: Any) -> Any:
        if trouble:
            raise trouble[0]
        try:
            request = plain.dumps((list(args), kwargs))
        except (TypeError, ValueError, RecursionError) as exc:
            trouble.append(CannotSplit(str(exc)))
            raise trouble[0] from None
        try:
            write_frames(CALLS_OUT_FD, request)
            reply = read_frame(CALLS_IN_FD)
        except OSError:
            reply = None
        if reply is None:
            trouble.append(ProgramGone())
            raise trouble[0]
        answer = plain.loads(reply)
        if answer[0] != "ok":
            raise _rebuild(answer[1], answer[2])
        _copy_back(args, answer[2])
        return answer[1]

    candidate.__name__ = candidate.__qualname__ = func_name
    return candidate


def _copy_back(args: tuple[Any, ...], after: Any) -> None:
    if not isinstance(after, list) or len(after) != len(args):
        return
    for before, now in zip(args, after, strict=True):
        if type(before) is list and type(now) is list:
            before[:] = now
        elif type(before) is dict and type(now) is dict:
            before.clear()
            before.update(now)


def run_check(
    support: types.CodeType | None, tests: types.CodeType, func_name: str, check_name: str
) -> dict[str, Any]:
    """The tests' side: run the problem's trusted code (``support``: e.g. the prompt's
    helpers; then the tests), bind the entry point to the proxy and call the tests'
    ``check_name``. Only this process can report ``checked``."""
    stdout, stderr = fresh_stdio()
    namespace = fresh_main("", None)
    report: dict[str, Any] = {"status": "ok"}
    trouble: list[BaseException] = []
    try:
        ready = read_frame(CALLS_IN_FD)
        if ready is None:
            raise ProgramGone
        answer = plain.loads(ready)
        if answer[0] != "ready":
            raise _rebuild(answer[1], answer[2])
        if support is not None:
            exec(support, namespace)
        exec(tests, namespace)
        proxy = _proxy(func_name, trouble)
        namespace[func_name] = proxy
        check = namespace.get(check_name)
        if not callable(check):
            raise NameError(f"the tests define no {check_name}(candidate)")
        check(proxy)
        if trouble:
            raise trouble[0]
        report["checked"] = True
    except ProgramGone:
        report = {"status": "program_gone"}
    except CannotSplit as exc:
        report = {"status": "unsplittable", "exception": str(exc)}
    except BaseException as exc:  # noqa: BLE001 - a failed assert, or the candidate's error
        report = {"status": "exception", "exception": type(exc).__name__}
        try:
            traceback.print_exception(exc, limit=-TRACEBACK_FRAMES, file=stderr)
        except BaseException:  # noqa: BLE001
            pass
    _flush(stdout, stderr)
    return report
