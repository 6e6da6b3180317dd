"""The built-in pytest runner: runs a pytest file (KodCode's ``test``) against a program in
the sandbox child, as ``pytest test_solution.py`` runs it beside ``solution.py``, in a few
milliseconds instead of pytest's own ~0.2 s (``docs/kodcode.md`` has the numbers).

This file is never imported by the grader: :mod:`evaluator.harness.pytest_file` sends its
text with the job and the child executes it in a namespace of its own (with its own copy of
the builtins), before the program runs, then calls :func:`run`. Standard library only, and
nothing here may name the heavy packages the sandbox forks a second template for.

What it does:

1. A fresh ``pytest`` module (:func:`make_pytest`) for the program (only when its source
   names pytest) and another for the tests, so that a program that changes its ``pytest``
   changes nothing the tests use. ``import pytest`` anywhere finds one of them, never pytest.
2. The program runs as the module ``solution`` (its ``if __name__ == "__main__":`` block does
   not run, as when pytest imports ``solution.py``).
3. The tests run as the module ``test_solution``: ``from solution import *`` first (as
   KodCode's own ``test_solution.py`` starts), without names that would hide a builtin the
   tests call (a program cannot make the tests' ``len`` or ``all`` its own; the tests' own
   ``from solution import *`` reads the same), and a ``pytest`` the program imported replaced
   by the tests'; their builtins are a copy taken before the program ran. The tests' text is
   not where the program could read it (not in ``linecache``, not in a module's globals)
   until a test has failed.
4. Collection as pytest's defaults: ``test*`` functions, ``Test*`` classes (without
   ``__init__``) and their ``test*`` methods, ``unittest.TestCase`` subclasses;
   ``pytest.mark.parametrize`` (stacked: every combination), ``pytest.param``, fixtures
   (``pytest.fixture`` with scope, params, autouse, name; yield fixtures with their
   teardown; ``request``), ``usefixtures``, ``skip``/``skipif``/``xfail`` marks and
   ``pytest.skip``/``fail``/``xfail``/``importorskip``, xunit ``setup_*``/``teardown_*``.
   Built-in fixtures: ``capsys``, ``monkeypatch``, ``tmp_path``, ``caplog``, ``recwarn``,
   ``request``; any other fixture is an error (the grader refuses such tests before they
   run, naming the fixture).
5. Every collected test runs, in order, until one fails. :func:`run` returns only when every
   one passed (or was skipped or xfailed as its marks say) and at least one passed: then the
   harness reports ``check`` returned, its proof that the tests ran. Anything else raises,
   after the failure is written to stderr, and the last line names the test and why.
"""

from __future__ import annotations

import io
import linecache
import os
import re
import sys
import traceback
import types
from decimal import Decimal
from math import isinf, isnan
from numbers import Complex

# Taken now, before the program runs: a program that replaces these functions or modules
# changes nothing here.
_modules = sys.modules
_real_builtins = _modules["builtins"]
_re_search, _re_compile = re.search, re.compile
_getcwd, _mkdir, _path_join = os.getcwd, os.mkdir, os.path.join
_environ, _os_chdir = os.environ, os.chdir
_format_exception = traceback.format_exception
_lines = linecache.cache
_MethodType, _FunctionType, _ModuleType = types.MethodType, types.FunctionType, types.ModuleType

SOLUTION = "solution"  # the module the tests import the program as
TESTS = "test_solution"  # the tests' own module name
SOLUTION_FILE, TESTS_FILE = f"{SOLUTION}.py", f"{TESTS}.py"  # as tracebacks name them
_NAMES_PYTEST = _re_compile(r"\bpytest\b")
_NAMES_UNITTEST = _re_compile(r"\bunittest\b")

PASSED, SKIPPED, XFAILED, XPASSED = object(), object(), object(), object()
_CO_GENERATOR, _CO_COROUTINE = 0x20, 0x80  # inspect.CO_GENERATOR, inspect.CO_COROUTINE
_SCOPES = {"function": 0, "class": 1, "module": 2, "package": 3, "session": 4}
_NOTSET = object()
BUILTIN_FIXTURES = ("capsys", "monkeypatch", "tmp_path", "caplog", "recwarn", "request")
DEFAULT_REL, DEFAULT_ABS = 1e-6, 1e-12  # pytest.approx's defaults


class TestsFailed(AssertionError):
    """A test failed (or could not run): its message names the test and why."""


TestsFailed.__module__ = "builtins"  # its traceback's last line: "TestsFailed: FAILED ..."


class Unsupported(Exception):
    """The tests use something this runner does not do."""


def _text(value: object, limit: int = 160) -> str:
    """``str(value)`` cut to ``limit`` characters; never raises (a program's exception may
    have a broken ``__str__``)."""
    try:
        text = str(value)
    except BaseException:  # noqa: BLE001
        text = f"<{type(value).__name__} object>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the pytest module ---------------------------------------------------------------------


def make_pytest() -> tuple[types.ModuleType, types.SimpleNamespace]:
    """A fresh ``pytest`` module and the classes behind it (the runner's ``kit``). Every call
    defines new classes: objects of one call are not instances of another's."""

    class OutcomeException(BaseException):
        """pytest's outcomes (skip, fail, xfail) are not ``Exception``s: ``except Exception``
        in a test does not swallow them, nor does ``pytest.raises(Exception)``."""

        def __init__(self, msg: str = "") -> None:
            BaseException.__init__(self, msg)
            self.msg = msg

    class Skipped(OutcomeException):
        allow_module_level = False

    class Failed(OutcomeException):
        pass

    class XFailed(Failed):
        pass

    def skip(reason: str = "", *, allow_module_level: bool = False) -> None:
        exc = Skipped(reason)
        exc.allow_module_level = allow_module_level
        raise exc

    def fail(reason: str = "", pytrace: bool = True) -> None:
        raise Failed(reason)

    def xfail(reason: str = "") -> None:
        raise XFailed(reason)

    skip.Exception, fail.Exception, xfail.Exception = Skipped, Failed, XFailed

    def importorskip(modname: str, minversion: str | None = None, reason: str | None = None):
        try:
            __import__(modname)
        except ImportError as exc:
            skipped = Skipped(reason or f"could not import {modname!r}: {exc}")
            skipped.allow_module_level = True
            raise skipped from None
        module = _modules[modname]
        if minversion is not None:
            have = str(getattr(module, "__version__", ""))
            if _version(have) < _version(minversion):
                raise Skipped(f"module {modname!r} has __version__ {have!r}, required {minversion}")
        return module

    def main(*args: object, **kwargs: object) -> int:
        raise Unsupported("pytest.main() inside the tests")

    # marks
    class Mark:
        __slots__ = ("name", "args", "kwargs")

        def __init__(self, name: str, args: tuple, kwargs: dict) -> None:
            self.name, self.args, self.kwargs = name, args, kwargs

        def __repr__(self) -> str:
            return f"Mark(name={self.name!r}, args={self.args!r}, kwargs={self.kwargs!r})"

    class MarkDecorator:
        __slots__ = ("mark",)

        def __init__(self, mark: Mark) -> None:
            self.mark = mark

        name = property(lambda self: self.mark.name)
        args = property(lambda self: self.mark.args)
        kwargs = property(lambda self: self.mark.kwargs)

        def with_args(self, *args: object, **kwargs: object) -> MarkDecorator:
            mark = self.mark
            return MarkDecorator(Mark(mark.name, mark.args + args, {**mark.kwargs, **kwargs}))

        def __call__(self, *args: object, **kwargs: object):
            if len(args) == 1 and not kwargs:
                target = args[0]
                if isinstance(target, type) or (
                    callable(target) and getattr(target, "__name__", "<lambda>") != "<lambda>"
                ):
                    store_mark(target, self.mark)
                    return target
            return self.with_args(*args, **kwargs)

        def __repr__(self) -> str:
            return f"<MarkDecorator {self.mark!r}>"

    def store_mark(target: object, mark: Mark) -> None:
        if isinstance(target, FixtureFunctionDefinition):
            target = target.func
        own = target.__dict__.get("pytestmark", []) if isinstance(target, type) else None
        if own is None:
            own = getattr(target, "pytestmark", [])
        target.pytestmark = [*_as_list(own), mark]

    class MarkGenerator:
        def __getattr__(self, name: str) -> MarkDecorator:
            if name.startswith("_"):
                raise AttributeError(name)
            return MarkDecorator(Mark(name, (), {}))

    class ParameterSet:
        __slots__ = ("values", "marks", "id")

        def __init__(self, values: tuple, marks: list, id: object) -> None:  # noqa: A002
            self.values, self.marks, self.id = values, marks, id

    def param(*values: object, marks: object = (), id: object = None) -> ParameterSet:  # noqa: A002
        found = [getattr(m, "mark", m) for m in _as_list(marks)]
        return ParameterSet(values, found, id)

    # fixtures
    class FixtureFunctionDefinition:
        def __init__(self, func, scope, params, autouse, ids, name) -> None:
            self.func, self.scope, self.autouse, self.ids = func, scope, autouse, ids
            self.params = None if params is None else list(params)
            self.name = name or func.__name__
            self.__name__ = self.name

        def __call__(self, *args: object, **kwargs: object) -> None:
            raise Failed(
                f'Fixture "{self.name}" called directly. Fixtures are not meant to be called '
                "directly, but are created automatically when test functions request them"
            )

        def __repr__(self) -> str:
            return f"<pytest_fixture({self.func!r})>"

    def fixture(
        fixture_function=None, *, scope="function", params=None, autouse=False, ids=None, name=None
    ):
        if not isinstance(scope, str) or scope not in _SCOPES:
            raise Unsupported(f"fixture scope {scope!r}")

        def wrap(func):
            if isinstance(func, FixtureFunctionDefinition):
                raise ValueError("fixture is being applied more than once to the same function")
            return FixtureFunctionDefinition(func, scope, params, autouse, ids, name)

        return wrap if fixture_function is None else wrap(fixture_function)

    # raises
    class ExceptionInfo:
        def __init__(self) -> None:
            self._value: BaseException | None = None

        @property
        def value(self) -> BaseException:
            if self._value is None:
                raise AssertionError(".value can only be used after the context manager exits")
            return self._value

        type = property(lambda self: type(self.value))
        tb = property(lambda self: self.value.__traceback__)
        typename = property(lambda self: type(self.value).__name__)
        traceback = property(lambda self: _frames(self.value.__traceback__))

        def errisinstance(self, exc: object) -> bool:
            return isinstance(self.value, exc)

        def exconly(self, tryshort: bool = False) -> str:
            return "".join(traceback.format_exception_only(type(self.value), self.value)).strip()

        def match(self, regexp: str | re.Pattern) -> bool:
            text = _match_text(self.value)
            if not _re_search(regexp, text):
                pattern = getattr(regexp, "pattern", regexp)
                raise AssertionError(
                    f"Regex pattern did not match.\n Regex: {pattern!r}\n Input: {text!r}"
                )
            return True

        def __repr__(self) -> str:
            if self._value is None:
                return "<ExceptionInfo for raises contextmanager>"
            return f"<ExceptionInfo {self.typename}({_text(self.value, 80)!r})>"

    class RaisesContext:
        def __init__(self, expected: object, match: object) -> None:
            self.expected, self.match = expected, match
            self.excinfo = ExceptionInfo()

        def __enter__(self) -> ExceptionInfo:
            return self.excinfo

        def __exit__(self, etype, value, tb) -> bool:
            if etype is None:
                raise Failed(f"DID NOT RAISE {_name_of(self.expected)}")
            if not issubclass(etype, self.expected):
                return False
            if value is None:
                value = etype()
            self.excinfo._value = value
            if self.match is not None:
                self.excinfo.match(self.match)
            return True

    def raises(expected_exception, *args, match=None, **kwargs):
        _check_exception_types(expected_exception)
        if not args:
            if kwargs:
                raise TypeError(f"unexpected keyword arguments to raises: {sorted(kwargs)}")
            return RaisesContext(expected_exception, match)
        func = args[0]
        if not callable(func):
            raise TypeError(f"{func!r} object (type: {type(func)}) must be callable")
        context = RaisesContext(expected_exception, match)
        with context as info:
            func(*args[1:], **kwargs)
        return info

    # warnings
    class WarningsRecorder:
        def __init__(self) -> None:
            self._list: list = []
            self._context = None

        list = property(lambda self: self._list)

        def __getitem__(self, index: int):
            return self._list[index]

        def __iter__(self):
            return iter(self._list)

        def __len__(self) -> int:
            return len(self._list)

        def pop(self, cls: type = Warning):
            for index, item in enumerate(self._list):
                if issubclass(item.category, cls):
                    return self._list.pop(index)
            raise AssertionError(f"{cls!r} not found in warning list")

        def clear(self) -> None:
            self._list[:] = []

        def __enter__(self) -> WarningsRecorder:
            import warnings

            self._context = warnings.catch_warnings(record=True)
            self._list = self._context.__enter__()
            warnings.simplefilter("always")
            return self

        def __exit__(self, *exc_info: object) -> None:
            self._context.__exit__(*exc_info)

    class WarningsChecker(WarningsRecorder):
        def __init__(self, expected: object, match: object) -> None:
            super().__init__()
            self.expected, self.match = expected, match

        def __exit__(self, etype, value, tb) -> None:
            super().__exit__(etype, value, tb)
            if etype is not None:
                return
            for item in self._list:
                if issubclass(item.category, self.expected) and (
                    self.match is None or _re_search(self.match, str(item.message))
                ):
                    return
            seen = [f"{item.category.__name__}({_text(item.message, 60)!r})" for item in self]
            raise Failed(
                f"DID NOT WARN. No warnings of type {_name_of(self.expected)} "
                f"{'matching ' + repr(self.match) + ' ' if self.match else ''}were emitted. "
                f"Emitted warnings: {seen}."
            )

    def warns(expected_warning=Warning, *args, match=None, **kwargs):
        if not args:
            return WarningsChecker(expected_warning, match)
        with WarningsChecker(expected_warning, match) as checker:
            args[0](*args[1:], **kwargs)
        return checker

    def deprecated_call(func=None, *args, **kwargs):
        kinds = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
        return warns(kinds, func, *args, **kwargs) if func is not None else warns(kinds)

    kit = types.SimpleNamespace(
        Skipped=Skipped,
        Failed=Failed,
        XFailed=XFailed,
        Mark=Mark,
        MarkDecorator=MarkDecorator,
        ParameterSet=ParameterSet,
        Fixture=FixtureFunctionDefinition,
        WarningsRecorder=WarningsRecorder,
        CaptureFixture=_capture_class(),
        MonkeyPatch=_monkeypatch_class(),
        LogCaptureFixture=_caplog_class(),
        FixtureRequest=_request_class(),
    )
    module = _ModuleType("pytest")
    module.__dict__.update(
        raises=raises,
        approx=_approx_function(),
        fixture=fixture,
        mark=MarkGenerator(),
        param=param,
        skip=skip,
        fail=fail,
        xfail=xfail,
        importorskip=importorskip,
        warns=warns,
        deprecated_call=deprecated_call,
        main=main,
        ExceptionInfo=ExceptionInfo,
        WarningsRecorder=WarningsRecorder,
        Mark=Mark,
        MarkDecorator=MarkDecorator,
        CaptureFixture=kit.CaptureFixture,
        MonkeyPatch=kit.MonkeyPatch,
        LogCaptureFixture=kit.LogCaptureFixture,
        FixtureRequest=kit.FixtureRequest,
    )
    return module, kit


def _as_list(value: object) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _version(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in re.split(r"[.+-]", text)[:3])


def _name_of(expected: object) -> str:
    if isinstance(expected, tuple):
        return "any of (" + ", ".join(_name_of(item) for item in expected) + ")"
    return f"<class '{getattr(expected, '__qualname__', expected)}'>"


def _check_exception_types(expected: object) -> None:
    kinds = expected if isinstance(expected, tuple) else (expected,)
    for kind in kinds:
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            raise TypeError(
                "expected exception must be a BaseException type, not "
                f"{type(kind).__name__ if not isinstance(kind, type) else kind.__name__}"
            )


def _match_text(value: BaseException) -> str:
    text = str(value)
    notes = getattr(value, "__notes__", None)
    if isinstance(notes, list) and notes:
        text = "\n".join([text, *map(str, notes)])
    return text


def _frames(tb: types.TracebackType | None) -> list:
    found = []
    while tb is not None:
        found.append(tb)
        tb = tb.tb_next
    return found


# --- approx ----------------------------------------------------------------------------------


def _approx_function():
    """``pytest.approx``: numbers within ``max(rel * |expected|, abs)`` (rel 1e-6, abs 1e-12
    by default; only ``abs`` when only ``abs`` is given); lists, tuples and dicts of numbers
    compared item by item; arrays (objects with ``shape`` and ``tolist``) element by element;
    anything else by ``==``. Bools are compared as bools."""

    class Approx:
        __array_ufunc__ = None  # an array on the left defers to our __eq__
        __array_priority__ = 100
        __hash__ = None  # type: ignore[assignment]

        def __init__(self, expected, rel=None, abs=None, nan_ok=False) -> None:  # noqa: A002
            for name, value in (("rel", rel), ("abs", abs)):
                if value is not None:
                    if value < 0:
                        raise ValueError(f"{name} tolerance can't be negative: {value}")
                    if value != value:
                        raise ValueError(f"{name} tolerance can't be NaN.")
            self.expected, self.rel, self.abs, self.nan_ok = expected, rel, abs, nan_ok
            _approx_shape(expected)

        def __eq__(self, actual: object) -> bool:
            return _approx_equal(self.expected, actual, self.rel, self.abs, self.nan_ok)

        def __ne__(self, actual: object) -> bool:
            return not self.__eq__(actual)

        def __bool__(self) -> bool:
            raise AssertionError(
                "approx() is not supported in a boolean context.\nDid you mean: "
                "`assert a == approx(b)`?"
            )

        def __repr__(self) -> str:
            return f"approx({_approx_repr(self.expected, self.rel, self.abs)})"

    def approx(expected, rel=None, abs=None, nan_ok=False) -> Approx:  # noqa: A002
        return Approx(expected, rel, abs, nan_ok)

    return approx


def _is_array(value: object) -> bool:
    return hasattr(value, "shape") and hasattr(value, "tolist") and not isinstance(value, str)


def _is_sequence(value: object) -> bool:
    return isinstance(value, list | tuple) or (
        hasattr(value, "__getitem__")
        and hasattr(value, "__len__")
        and not isinstance(value, str | bytes | bytearray | dict)
        and not _is_mapping(value)
        and not _is_array(value)
    )


def _is_mapping(value: object) -> bool:
    return isinstance(value, dict) or (hasattr(value, "keys") and hasattr(value, "__getitem__"))


def _approx_shape(expected: object) -> None:
    """What pytest.approx refuses: a dict in a dict, a list in a list (of the same type),
    unordered collections. Other values inside are compared by ``==``."""
    if _is_array(expected):
        return
    if _is_mapping(expected):
        for value in expected.values():
            if isinstance(value, type(expected)):
                raise TypeError("pytest.approx() does not support nested dictionaries")
    elif _is_sequence(expected):
        for value in expected:
            if isinstance(value, type(expected)):
                raise TypeError("pytest.approx() does not support nested data structures")
    elif isinstance(expected, set | frozenset):
        raise TypeError(f"pytest.approx() only supports ordered sequences, but got: {expected!r}")


def _tolerance(expected, rel, abs_):
    if isinstance(expected, Decimal):
        absolute = Decimal(str(DEFAULT_ABS if abs_ is None else abs_))
        if rel is None and abs_ is not None:
            return absolute
        return max(Decimal(str(DEFAULT_REL if rel is None else rel)) * abs(expected), absolute)
    absolute = DEFAULT_ABS if abs_ is None else abs_
    if rel is None and abs_ is not None:
        return absolute
    return max((DEFAULT_REL if rel is None else rel) * abs(expected), absolute)


def _number(value: object) -> bool:
    return isinstance(value, Complex | Decimal)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"  # an array library's


def _scalar_equal(expected, actual, rel, abs_, nan_ok) -> bool:
    if _is_bool(expected):  # an expected bool takes only a bool (an actual bool is a number)
        return _is_bool(actual) and bool(actual == expected)
    try:
        if actual == expected:
            return True
    except Exception:  # noqa: BLE001 - an object that cannot compare
        return False
    if not (_number(expected) and _number(actual)):
        return False
    try:
        if isinstance(expected, complex) or isinstance(actual, complex):
            if isnan(abs(expected)):
                return nan_ok and isnan(abs(actual))
        elif isnan(expected):
            return nan_ok and isnan(actual)
        if isinf(abs(expected)):
            return False
        return abs(expected - actual) <= _tolerance(expected, rel, abs_)
    except (TypeError, ValueError, ArithmeticError):
        return False


def _approx_equal(expected, actual, rel, abs_, nan_ok) -> bool:
    if _is_array(expected):
        if _is_array(actual):
            if tuple(actual.shape) != tuple(expected.shape):
                return False
            return _all_equal(expected.tolist(), actual.tolist(), rel, abs_, nan_ok)
        if _is_sequence(actual):
            return _all_equal(expected.tolist(), _tolist(actual), rel, abs_, nan_ok)
        return _all_equal(expected.tolist(), actual, rel, abs_, nan_ok, broadcast=True)
    if _is_mapping(expected):
        if not _is_mapping(actual) or _is_array(actual):
            return False
        try:
            if set(actual.keys()) != set(expected.keys()):
                return False
            return all(
                _scalar_equal(expected[key], actual[key], rel, abs_, nan_ok) for key in expected
            )
        except Exception:  # noqa: BLE001
            return False
    if _is_sequence(expected):
        try:
            if _is_array(actual):
                actual = actual.tolist()
            if len(actual) != len(expected):
                return False
            return all(
                _scalar_equal(e, a, rel, abs_, nan_ok)
                for e, a in zip(expected, actual, strict=True)
            )
        except Exception:  # noqa: BLE001 - not a sequence
            return False
    if _is_array(actual):  # a number against every element
        return _all_equal(expected, actual.tolist(), rel, abs_, nan_ok, broadcast=True)
    return _scalar_equal(expected, actual, rel, abs_, nan_ok)


def _tolist(value: object) -> object:
    return [_tolist(item) for item in value] if _is_sequence(value) else value


def _all_equal(expected, actual, rel, abs_, nan_ok, broadcast: bool = False) -> bool:
    """Nested lists element by element; with ``broadcast`` one side is a scalar."""
    if broadcast:
        if isinstance(expected, list):
            return all(_all_equal(e, actual, rel, abs_, nan_ok, True) for e in expected)
        if isinstance(actual, list):
            return all(_all_equal(expected, a, rel, abs_, nan_ok, True) for a in actual)
        return _scalar_equal(expected, actual, rel, abs_, nan_ok)
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)):
            return False
        if len(expected) != len(actual):
            return False
        return all(
            _all_equal(e, a, rel, abs_, nan_ok) for e, a in zip(expected, actual, strict=True)
        )
    return _scalar_equal(expected, actual, rel, abs_, nan_ok)


def _approx_repr(expected, rel, abs_) -> str:
    def one(value):
        if not _number(value) or isinstance(value, bool):
            return repr(value)
        try:
            return f"{value} ± {_tolerance(value, rel, abs_):.1e}"
        except (TypeError, ValueError, ArithmeticError):
            return repr(value)

    if _is_array(expected):
        return repr(expected)
    if _is_mapping(expected):
        return "{" + ", ".join(f"{k!r}: {one(v)}" for k, v in expected.items()) + "}"
    if _is_sequence(expected):
        return "[" + ", ".join(one(v) for v in expected) + "]"
    return one(expected)


# --- built-in fixtures -------------------------------------------------------------------------


def _capture_class():
    class CaptureFixture:
        """``capsys``: ``sys.stdout``/``sys.stderr`` replaced for the test; ``readouterr()``
        returns what was written since the last call, as ``(out, err)``."""

        def __class_getitem__(cls, item):
            return cls

        def __init__(self) -> None:
            self._saved = (sys.stdout, sys.stderr)
            self._out, self._err = self._stream(sys.stdout), self._stream(sys.stderr)
            sys.stdout, sys.stderr = self._out, self._err

        @staticmethod
        def _stream(like):
            encoding = getattr(like, "encoding", None) or "utf-8"
            return io.TextIOWrapper(io.BytesIO(), encoding, newline="", write_through=True)

        def readouterr(self):
            values = []
            for stream in (self._out, self._err):
                stream.flush()
                values.append(stream.buffer.getvalue().decode(stream.encoding, "replace"))
                stream.seek(0)
                stream.truncate()
            return _capture_result()(*values)

        def disabled(self):
            fixture = self

            class Disabled:
                def __enter__(self):
                    sys.stdout, sys.stderr = fixture._saved

                def __exit__(self, *exc_info):
                    sys.stdout, sys.stderr = fixture._out, fixture._err

            return Disabled()

        def close(self) -> None:
            sys.stdout, sys.stderr = self._saved

    return CaptureFixture


_CAPTURE_RESULT: list = []


def _capture_result():
    if not _CAPTURE_RESULT:
        from collections import namedtuple

        _CAPTURE_RESULT.append(namedtuple("CaptureResult", ["out", "err"]))
    return _CAPTURE_RESULT[0]


def _monkeypatch_class():
    class MonkeyPatch:
        """``monkeypatch``: every change is undone after the test, last first."""

        def __class_getitem__(cls, item):
            return cls

        def __init__(self) -> None:
            self._undo: list = []
            self._cwd: str | None = None
            self._path: list | None = None

        @classmethod
        def context(cls):
            class Context:
                def __enter__(self):
                    self.patch = cls()
                    return self.patch

                def __exit__(self, *exc_info):
                    self.patch.undo()

            return Context()

        def setattr(self, target, name=_NOTSET, value=_NOTSET, raising=True):
            if value is _NOTSET:
                if not isinstance(target, str):
                    raise TypeError(
                        "use setattr(target, name, value) or setattr(target, value) with "
                        "target being a dotted import string"
                    )
                value, (name, target) = name, _resolve_dotted(target)
            if not isinstance(name, str):
                raise TypeError("attribute name must be a string")
            old = getattr(target, name, _NOTSET)
            if raising and old is _NOTSET:
                raise AttributeError(f"{target!r} has no attribute {name!r}")
            if isinstance(target, type):
                old = target.__dict__.get(name, _NOTSET)
            self._undo.append(("attr", target, name, old))
            setattr(target, name, value)

        def delattr(self, target, name=_NOTSET, raising=True):
            if name is _NOTSET:
                if not isinstance(target, str):
                    raise TypeError("use delattr(target, name) or delattr(dotted_string)")
                name, target = _resolve_dotted(target)
            if not hasattr(target, name):
                if raising:
                    raise AttributeError(name)
                return
            old = getattr(target, name)
            if isinstance(target, type):
                old = target.__dict__.get(name, _NOTSET)
            self._undo.append(("attr", target, name, old))
            delattr(target, name)

        def setitem(self, dic, name, value):
            self._undo.append(("item", dic, name, dic.get(name, _NOTSET)))
            dic[name] = value

        def delitem(self, dic, name, raising=True):
            if name not in dic:
                if raising:
                    raise KeyError(name)
                return
            self._undo.append(("item", dic, name, dic.get(name, _NOTSET)))
            del dic[name]

        def setenv(self, name, value, prepend=None):
            value = str(value)
            if prepend and name in _environ:
                value = value + prepend + _environ[name]
            self.setitem(_environ, str(name), value)

        def delenv(self, name, raising=True):
            self.delitem(_environ, name, raising=raising)

        def syspath_prepend(self, path):
            if self._path is None:
                self._path = sys.path[:]
            sys.path.insert(0, str(path))

        def chdir(self, path):
            if self._cwd is None:
                self._cwd = _getcwd()
            _os_chdir(path)

        def undo(self) -> None:
            for kind, target, name, old in reversed(self._undo):
                if kind == "attr":
                    if old is _NOTSET:
                        delattr(target, name)
                    else:
                        setattr(target, name, old)
                elif old is _NOTSET:
                    target.pop(name, None)
                else:
                    target[name] = old
            self._undo[:] = []
            if self._path is not None:
                sys.path[:] = self._path
                self._path = None
            if self._cwd is not None:
                _os_chdir(self._cwd)
                self._cwd = None

    return MonkeyPatch


def _resolve_dotted(target: str) -> tuple[str, object]:
    """``"package.module.attr"``: the attribute's name and the object that holds it."""
    if "." not in target:
        raise ValueError(f"must be absolute import path string, not {target!r}")
    holder_path, name = target.rsplit(".", 1)
    parts = holder_path.split(".")
    found = None
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            __import__(module_name)
        except ImportError:
            continue
        found = _modules[module_name]
        for attr in parts[cut:]:
            found = getattr(found, attr)
        break
    if found is None:
        raise ImportError(f"import error in {holder_path}")
    return name, found


def _caplog_class():
    class LogCaptureFixture:
        """``caplog``: the log records of the test, as pytest's handler on the root logger
        sees them (the loggers' own levels still apply; ``set_level`` changes them)."""

        def __class_getitem__(cls, item):
            return cls

        def __init__(self) -> None:
            import logging

            self._logging = logging
            fixture = self

            class Handler(logging.Handler):
                def emit(self, record):
                    fixture.records.append(record)
                    fixture._text.append(self.format(record))

            self.handler = Handler(0)
            self.handler.setFormatter(
                logging.Formatter("%(levelname)-8s %(name)s:%(filename)s:%(lineno)d %(message)s")
            )
            self.records: list = []
            self._text: list = []
            self._levels: list = []
            logging.getLogger().addHandler(self.handler)

        text = property(lambda self: "\n".join(self._text) + ("\n" if self._text else ""))
        record_tuples = property(
            lambda self: [(r.name, r.levelno, r.getMessage()) for r in self.records]
        )
        messages = property(lambda self: [r.getMessage() for r in self.records])

        def clear(self) -> None:
            self.records[:] = []
            self._text[:] = []

        def set_level(self, level, logger=None) -> None:
            target = self._logging.getLogger(logger)
            self._levels.append((target, target.level, self.handler.level))
            target.setLevel(level)
            self.handler.setLevel(level)

        def at_level(self, level, logger=None):
            fixture = self

            class AtLevel:
                def __enter__(self):
                    target = fixture._logging.getLogger(logger)
                    self.saved = (target, target.level, fixture.handler.level)
                    target.setLevel(level)
                    fixture.handler.setLevel(level)

                def __exit__(self, *exc_info):
                    target, level, handler_level = self.saved
                    target.setLevel(level)
                    fixture.handler.setLevel(handler_level)

            return AtLevel()

        def close(self) -> None:
            for target, level, handler_level in reversed(self._levels):
                target.setLevel(level)
                self.handler.setLevel(handler_level)
            self._logging.getLogger().removeHandler(self.handler)

    return LogCaptureFixture


def _request_class():
    class FixtureRequest:
        """``request``: the test (``node.name``, ``function``, ``cls``, ``instance``,
        ``module``), the fixture's ``param``, ``fixturename`` and ``scope``,
        ``addfinalizer`` and ``getfixturevalue``."""

        def __class_getitem__(cls, item):
            return cls

        def __init__(self, item, fixtures, scope, name, param, finalizers) -> None:
            self._item, self._fixtures, self._finalizers = item, fixtures, finalizers
            self.scope, self.fixturename = scope, name
            self.node = types.SimpleNamespace(name=item.name, nodeid=item.nodeid)
            self.function, self.cls = item.function, item.cls
            self.instance, self.module = item.instance, item.module
            if param is not _NOTSET:
                self.param = param

        def addfinalizer(self, finalizer) -> None:
            self._finalizers.append(finalizer)

        def getfixturevalue(self, name: str):
            return self._fixtures.value(name, self._item, _SCOPES[self.scope], ())

    return FixtureRequest


# --- collection --------------------------------------------------------------------------------


class Item:
    """One test to run: a function (with one set of parameters), or a unittest case."""

    __slots__ = (
        "name",
        "nodeid",
        "function",
        "cls",
        "attr",
        "instance",
        "module",
        "argnames",
        "params",
        "fixture_params",
        "marks",
        "closure",
        "empty",
        "unittest",
    )

    def __init__(self, name, nodeid, function, cls, attr, module) -> None:
        self.name, self.nodeid, self.function, self.cls, self.attr = (
            name,
            nodeid,
            function,
            cls,
            attr,
        )
        self.module, self.instance = module, None
        self.argnames: tuple = ()
        self.params: dict = {}
        self.fixture_params: dict = {}
        self.marks: list = []
        self.closure: list = []
        self.empty = False
        self.unittest = None

    @property
    def attr_name(self) -> str:
        """The test's name in its module or class (without its parameters' id)."""
        return self.name.split("[")[0]


def _unwrapped(function: object) -> object:
    """``function`` through ``functools.wraps`` wrappers and bound methods."""
    seen = 0
    while hasattr(function, "__wrapped__") and seen < 100:
        function, seen = function.__wrapped__, seen + 1
    return function.__func__ if isinstance(function, _MethodType) else function


def _argnames(function: object, method: bool) -> tuple:
    """The names a test or fixture function asks for, as pytest reads them: its parameters
    without defaults (through ``functools.wraps`` wrappers), less ``self``/``cls`` and the
    leading ones ``unittest.mock.patch`` decorators fill."""
    mock = _modules.get("unittest.mock")
    patched = 0
    if mock is not None:
        for patch in getattr(function, "patchings", None) or ():
            if getattr(patch, "attribute_name", None) is None and patch.new is mock.DEFAULT:
                patched += 1
    seen = 0
    while hasattr(function, "__wrapped__") and seen < 100:
        function, seen = function.__wrapped__, seen + 1
    if isinstance(function, _MethodType):
        function, method = function.__func__, True
    code = getattr(function, "__code__", None)
    if code is None:
        return ()
    count = code.co_argcount
    positional = code.co_varnames[:count]
    defaults = len(getattr(function, "__defaults__", None) or ())
    names = list(positional[: count - defaults])
    kwdefaults = getattr(function, "__kwdefaults__", None) or {}
    for name in code.co_varnames[count : count + code.co_kwonlyargcount]:
        if name not in kwdefaults:
            names.append(name)
    if method and names:
        names = names[1:]
    return tuple(names[patched:])


def _marks(obj: object, kit) -> list:
    """The tests' marks on ``obj`` (marks made by another ``pytest`` module are not)."""
    found = []
    for value in _as_list(getattr(obj, "pytestmark", None)):
        value = value.mark if isinstance(value, kit.MarkDecorator) else value
        if isinstance(value, kit.Mark):
            found.append(value)
    return found


def _class_marks(cls: type, kit) -> list:
    found = []
    for base in cls.__mro__:
        for value in _as_list(base.__dict__.get("pytestmark")):
            value = value.mark if isinstance(value, kit.MarkDecorator) else value
            if isinstance(value, kit.Mark):
                found.append(value)
    return found


def _is_test_class(name: str, obj: type) -> bool:
    test = getattr(obj, "__test__", None)
    return bool(test) if test is not None else name.startswith("Test")


class Collector:
    def __init__(self, module: types.ModuleType, kit) -> None:
        self.module, self.kit = module, kit
        self.items: list[Item] = []
        self.module_marks = _marks(module, kit)
        self.module_fixtures = self._fixtures(vars(module))

    def _fixtures(self, namespace: dict) -> dict:
        found = {}
        for value in list(namespace.values()):
            if isinstance(value, self.kit.Fixture):
                found[value.name] = value
        return found

    def collect(self, unittest: types.ModuleType | None) -> list[Item]:
        """The tests, in the module's order; ``unittest``: the module when the tests use it
        (then its ``TestCase`` classes are tests; a program's own are not collected)."""
        case = _modules["unittest"].TestCase if "unittest" in _modules else None
        for name, obj in list(vars(self.module).items()):
            if isinstance(obj, type):
                if case is not None and issubclass(obj, case):
                    if unittest is not None and obj is not case and getattr(obj, "__test__", True):
                        self._unittest(name, obj, unittest)
                elif _is_test_class(name, obj) and not getattr(obj, "__abstractmethods__", None):
                    self._class(obj, name, [])
            elif self._is_test_function(name, obj):
                self._function(name, name, obj, None, None, self.module_marks)
        return self.items

    @staticmethod
    def _is_test_function(name: str, obj: object) -> bool:
        """A function (through ``functools.wraps`` wrappers) named ``test*``, or marked
        ``__test__ = True``; not one with ``__test__ = False``."""
        if isinstance(obj, staticmethod | classmethod):
            obj = obj.__func__
        test = getattr(obj, "__test__", None)
        if not (bool(test) if test is not None else name.startswith("test")):
            return False
        seen = 0
        while not isinstance(obj, _FunctionType) and hasattr(obj, "__wrapped__") and seen < 100:
            obj, seen = obj.__wrapped__, seen + 1
        return isinstance(obj, _FunctionType)

    def _class(self, cls: type, prefix: str, outer: list) -> None:
        if cls.__init__ is not object.__init__ or cls.__new__ is not object.__new__:
            return  # pytest: "cannot collect test class because it has a __init__ constructor"
        marks = [*_class_marks(cls, self.kit), *outer]
        seen: set[str] = set()
        for base in cls.__mro__:
            if base is object:
                continue
            for name, raw in list(vars(base).items()):
                if name in seen:
                    continue
                seen.add(name)
                if isinstance(raw, type):
                    if _is_test_class(name, raw):
                        self._class(raw, f"{prefix}::{name}", marks)
                elif self._is_test_function(name, raw):
                    function = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
                    self._function(name, f"{prefix}::{name}", function, cls, raw, marks)

    def _unittest(self, name: str, cls: type, unittest) -> None:
        loader = unittest.TestLoader()
        names = loader.getTestCaseNames(cls)
        if not names:
            return
        item = Item(name, name, None, cls, None, self.module)
        item.unittest = list(names)
        self.items.append(item)

    def _function(self, name, nodeid, function, cls, raw, outer_marks) -> None:
        method = cls is not None and not isinstance(raw, staticmethod)
        marks = [*_marks(function, self.kit), *outer_marks]
        argnames = _argnames(function, method)
        fixtures = dict(self.module_fixtures)
        if cls is not None:
            for base in reversed(cls.__mro__):
                fixtures.update(self._fixtures(vars(base)))
        # each call: (direct parameters, id parts, marks of pytest.param, fixture parameters)
        calls: list[tuple[dict, list, list, dict]] = [({}, [], [], {})]
        parametrized: list[str] = []
        empty = False
        for mark in marks:
            if mark.name != "parametrize":
                continue
            names, values, ids = _parametrize_args(mark)
            for one in names:
                if one in parametrized:
                    raise TestsFailed(
                        f"ERROR collecting {TESTS_FILE}::{nodeid} - duplicate parametrization "
                        f"of {one!r}"
                    )
                if one not in argnames and one not in fixtures and one not in BUILTIN_FIXTURES:
                    raise TestsFailed(
                        f"ERROR collecting {TESTS_FILE}::{nodeid} - In {name}: function uses no "
                        f"argument {one!r}"
                    )
            parametrized.extend(names)
            if not values:
                empty = True
                continue
            sets = [self._parameter_set(value, len(names), nodeid) for value in values]
            calls = [
                (
                    {**params, **dict(zip(names, ps.values, strict=True))},
                    [*id_parts, _param_id(ps, names, index, ids)],
                    [*extra, *ps.marks],
                    fixture_params,
                )
                for params, id_parts, extra, fixture_params in calls
                for index, ps in enumerate(sets)
            ]
        closure, with_params = self._closure(argnames, marks, fixtures, set(parametrized), cls)
        for fixture in with_params:
            calls = [
                (
                    params,
                    [*id_parts, _fixture_param_id(fixture, index)],
                    extra,
                    {**fixture_params, fixture.name: (index, value)},
                )
                for params, id_parts, extra, fixture_params in calls
                for index, value in enumerate(fixture.params)
            ]
        for params, id_parts, extra, fixture_params in calls:
            suffix = f"[{'-'.join(id_parts)}]" if id_parts else ""
            item = Item(name + suffix, nodeid + suffix, function, cls, raw, self.module)
            item.argnames, item.params, item.fixture_params = argnames, params, fixture_params
            item.marks, item.closure, item.empty = [*extra, *marks], closure, empty
            self.items.append(item)

    def _parameter_set(self, value, count: int, nodeid: str):
        kit = self.kit
        if isinstance(value, kit.ParameterSet):
            values = value.values
        elif count == 1:
            return kit.ParameterSet((value,), [], None)
        else:
            try:
                values = tuple(value)
            except TypeError:
                values = (value,)
            value = kit.ParameterSet(values, [], None)
        if len(values) != count:
            raise TestsFailed(
                f"ERROR collecting {TESTS_FILE}::{nodeid} - wrong number of values: "
                f"{len(values)} for {count} names"
            )
        return value

    def _closure(self, argnames, marks, fixtures, parametrized, cls):
        """The fixtures a test needs (autouse first, then ``usefixtures``, then its own
        arguments, each after those it depends on) and those of them with ``params``."""
        wanted = [f.name for f in fixtures.values() if f.autouse]
        for mark in marks:
            if mark.name == "usefixtures":
                wanted.extend(str(arg) for arg in mark.args)
        wanted.extend(argnames)
        order: list[str] = []
        with_params = []

        def visit(name: str, depth: int) -> None:
            if name in order or name in parametrized or name == "request" or depth > 200:
                return
            fixture = fixtures.get(name)
            if fixture is not None:
                method = cls is not None and name in _class_fixture_names(cls, self.kit)
                for dependency in _argnames(fixture.func, method):
                    visit(dependency, depth + 1)
                if fixture.params is not None:
                    with_params.append(fixture)
            order.append(name)

        for name in wanted:
            visit(name, 0)
        # pytest sets up the higher scopes first (a fixture's own dependencies are never of a
        # lower scope, so this order keeps them first too)
        order.sort(key=lambda name: -_SCOPES[getattr(fixtures.get(name), "scope", "function")])
        return order, with_params


def _class_fixture_names(cls: type, kit) -> set[str]:
    return {
        value.name
        for base in cls.__mro__
        for value in vars(base).values()
        if isinstance(value, kit.Fixture)
    }


def _parametrize_args(mark) -> tuple[list[str], list, object]:
    args, kwargs = mark.args, mark.kwargs
    names = args[0] if args else kwargs.get("argnames")
    values = args[1] if len(args) > 1 else kwargs.get("argvalues")
    if kwargs.get("indirect"):
        raise Unsupported("indirect parametrization")
    ids = args[3] if len(args) > 3 else kwargs.get("ids")
    if isinstance(names, str):
        names = [part.strip() for part in names.split(",") if part.strip()]
    else:
        names = [str(part) for part in names or ()]
    if not names:
        raise Unsupported("parametrize without argument names")
    return names, list(values if values is not None else ()), ids


def _param_id(ps, names, index, ids) -> str:
    if ps.id is not None:
        return str(ps.id)
    if isinstance(ids, list | tuple) and index < len(ids) and ids[index] is not None:
        return str(ids[index])
    if callable(ids):
        parts = []
        for name, value in zip(names, ps.values, strict=True):
            try:
                made = ids(value)
            except Exception:  # noqa: BLE001
                made = None
            parts.append(str(made) if made is not None else _value_id(name, value, index))
        return "-".join(parts)
    return "-".join(
        _value_id(name, value, index) for name, value in zip(names, ps.values, strict=True)
    )


def _value_id(name: str, value: object, index: int) -> str:
    if value is None or isinstance(value, bool | int | float | complex):
        return str(value)
    if isinstance(value, str):
        return value if value.isascii() and value.isprintable() else repr(value)[1:-1]
    return f"{name}{index}"


def _fixture_param_id(fixture, index: int) -> str:
    ids = fixture.ids
    if isinstance(ids, list | tuple) and index < len(ids):
        return str(ids[index])
    return _value_id(fixture.name, fixture.params[index], index)


# --- running -----------------------------------------------------------------------------------


class _Scope:
    __slots__ = ("values", "finalizers")

    def __init__(self) -> None:
        self.values: dict = {}
        self.finalizers: list = []


class Fixtures:
    """Fixture values by scope: each made once per scope (and parameter), torn down, last
    made first, when its scope ends."""

    def __init__(self, kit, collector: Collector, cwd: str) -> None:
        self.kit, self.collector, self.cwd = kit, collector, cwd
        self.function = _Scope()
        self.classes: dict = {}
        self.module = _Scope()
        self.tmp_count = 0

    def scope_of(self, rank: int, item: Item) -> _Scope:
        if rank == 0:
            return self.function
        if rank == 1 and item.cls is not None:
            return self.classes.setdefault(item.cls, _Scope())
        return self.module

    def definition(self, name: str, item: Item):
        if item.cls is not None:
            for base in item.cls.__mro__:
                for value in vars(base).values():
                    if isinstance(value, self.kit.Fixture) and value.name == name:
                        return value, True
        fixture = self.collector.module_fixtures.get(name)
        return (fixture, False) if fixture is not None else (None, False)

    def value(self, name: str, item: Item, rank: int, chain: tuple):
        if name in item.params:
            return item.params[name]
        if name == "request":
            return self.kit.FixtureRequest(
                item, self, "function", item.name, _NOTSET, self.function.finalizers
            )
        fixture, method = self.definition(name, item)
        if fixture is None:
            if name in BUILTIN_FIXTURES:
                return self._builtin(name, item, rank)
            raise TestsFailed(
                f"ERROR at setup of {TESTS_FILE}::{item.nodeid} - fixture {name!r} not found"
            )
        own = _SCOPES[fixture.scope]
        if own < rank:
            raise TestsFailed(
                f"ERROR at setup of {TESTS_FILE}::{item.nodeid} - ScopeMismatch: fixture {name!r} "
                f"({fixture.scope}) requested by a higher-scoped fixture"
            )
        index, param = item.fixture_params.get(fixture.name, (None, _NOTSET))
        key = (id(fixture), index)
        scope = self.scope_of(own, item)
        if key in scope.values:
            return scope.values[key][1]
        if key in chain:
            raise TestsFailed(
                f"ERROR at setup of {TESTS_FILE}::{item.nodeid} - recursive dependency involving "
                f"fixture {name!r}"
            )
        func = fixture.func
        if method:
            func = func.__get__(item.instance, item.cls) if item.instance is not None else func
        kwargs = {}
        for dependency in _argnames(fixture.func, method):
            if dependency == "request":
                kwargs[dependency] = self.kit.FixtureRequest(
                    item, self, fixture.scope, fixture.name, param, scope.finalizers
                )
            else:
                kwargs[dependency] = self.value(dependency, item, own, (*chain, key))
        result = func(**kwargs)
        if isinstance(result, types.GeneratorType):
            try:
                value = next(result)
            except StopIteration:
                raise ValueError(f"{fixture.name} did not yield a value") from None
            scope.finalizers.append(_finish_generator(result, fixture.name))
        elif isinstance(result, types.CoroutineType):
            result.close()
            raise Unsupported(f"async fixture {fixture.name!r}")
        else:
            value = result
        scope.values[key] = (fixture, value)  # kept alive with the scope
        return value

    def _builtin(self, name: str, item: Item, rank: int):
        if rank > 0:
            raise TestsFailed(
                f"ERROR at setup of {TESTS_FILE}::{item.nodeid} - ScopeMismatch: the "
                f"function-scoped fixture {name!r} requested by a higher-scoped fixture"
            )
        values, finalizers = self.function.values, self.function.finalizers
        if name in values:
            return values[name]
        kit = self.kit
        if name == "capsys":
            value = kit.CaptureFixture()
            finalizers.append(value.close)
        elif name == "monkeypatch":
            value = kit.MonkeyPatch()
            finalizers.append(value.undo)
        elif name == "caplog":
            value = kit.LogCaptureFixture()
            finalizers.append(value.close)
        elif name == "recwarn":
            value = kit.WarningsRecorder()
            value.__enter__()
            finalizers.append(lambda: value.__exit__(None, None, None))
        else:  # tmp_path
            from pathlib import Path

            self.tmp_count += 1
            base = _path_join(self.cwd, "pytest-tmp")
            try:
                _mkdir(base)
            except FileExistsError:
                pass
            stem = "".join(c if c.isalnum() or c == "_" else "_" for c in item.name)[:30]
            path = _path_join(base, f"{stem}{self.tmp_count}")
            _mkdir(path)
            value = Path(path)
        values[name] = value
        return value

    def end(self, scope: _Scope, errors: list) -> None:
        while scope.finalizers:
            finalizer = scope.finalizers.pop()
            try:
                finalizer()
            except BaseException as exc:  # noqa: BLE001 - reported as the teardown's error
                errors.append(exc)
        scope.values.clear()


def _finish_generator(generator, name: str):
    def finish() -> None:
        try:
            next(generator)
        except StopIteration:
            return
        raise ValueError(f"fixture function {name!r} has more than one 'yield'")

    return finish


def _call_optional(function, argument) -> None:
    """xunit setup/teardown: called with ``argument`` when it takes one."""
    target = function.__func__ if isinstance(function, _MethodType) else function
    code = getattr(target, "__code__", None)
    count = code.co_argcount if code is not None else 0
    if isinstance(function, _MethodType):
        count -= 1
    function(argument) if count > 0 else function()


class Outcome:
    __slots__ = ("status", "phase", "error")

    def __init__(self, status, phase: str = "", error: BaseException | None = None) -> None:
        self.status, self.phase, self.error = status, phase, error


class Guard:
    """unittest as it was before the program ran: a test case's asserts and result are
    unittest's, so a program that changes them (``TestCase.assertEqual = ...``) fails its
    unittest tests instead of passing them."""

    def __init__(self) -> None:
        __import__("unittest")
        names = (
            "unittest",
            "unittest.case",
            "unittest.suite",
            "unittest.result",
            "unittest.loader",
        )
        spaces = [vars(_modules[name]) for name in names]
        unittest = _modules["unittest"]
        for cls in (
            unittest.TestCase,
            unittest.TestSuite,
            unittest.TestResult,
            unittest.TestLoader,
            *unittest.TestSuite.__mro__[1:-1],
            getattr(_modules["unittest.case"], "_Outcome", object),
        ):
            spaces.append(vars(cls))
        self.saved = [(space, dict(space)) for space in spaces]

    def changed(self) -> str | None:
        """What the program changed (a name), or None."""
        for space, saved in self.saved:
            for name, value in saved.items():
                if space.get(name, _NOTSET) is not value:
                    return f"{space.get('__name__', '')}.{name}".lstrip(".")
        return None


class Session:
    def __init__(self, module, kit, collector, cwd, report, guard) -> None:
        self.module, self.kit, self.report, self.guard = module, kit, report, guard
        self.fixtures = Fixtures(kit, collector, cwd)

    def condition(self, mark, item: Item) -> tuple[bool, str]:
        """A skipif/xfail mark's condition (True when absent) and reason."""
        reason = str(mark.kwargs.get("reason", ""))
        kwargs = mark.kwargs
        conditions = [kwargs["condition"]] if "condition" in kwargs else list(mark.args)
        if not conditions:
            return True, reason
        for condition in conditions:
            if isinstance(condition, str):
                import platform

                namespace = {"os": os, "sys": sys, "platform": platform}
                namespace.update(vars(self.module))
                value = eval(compile(condition, f"<{mark.name} condition>", "eval"), namespace)
            else:
                value = condition
            if value:
                return True, reason or (condition if isinstance(condition, str) else "")
        return False, reason

    def run_item(self, item: Item) -> Outcome:
        if item.unittest is not None:
            return self.run_unittest(item)
        xfail = None
        for mark in item.marks:
            if mark.name == "skip":
                return Outcome(SKIPPED)
            if mark.name == "skipif" and self.condition(mark, item)[0]:
                return Outcome(SKIPPED)
        for mark in item.marks:
            if mark.name == "xfail" and self.condition(mark, item)[0]:
                xfail = mark
                break
        if item.empty:
            return Outcome(SKIPPED)
        if xfail is not None and not xfail.kwargs.get("run", True):
            return Outcome(XFAILED)
        kit = self.kit
        outcome = None
        try:
            item.instance = item.cls() if item.cls is not None else None
            if item.instance is not None:
                setup = getattr(item.instance, "setup_method", None)
                if setup is not None:
                    _call_optional(setup, getattr(item.instance, item.name.split("[")[0]))
            else:
                setup = vars(self.module).get("setup_function")
                if callable(setup):
                    _call_optional(setup, item.function)
            kwargs = {}
            for name in item.closure:
                value = self.fixtures.value(name, item, 0, ())
                if name in item.argnames:
                    kwargs[name] = value
            for name in item.argnames:
                if name not in kwargs:
                    kwargs[name] = self.fixtures.value(name, item, 0, ())
        except kit.Skipped:
            outcome = Outcome(SKIPPED)
        except kit.XFailed:
            outcome = Outcome(XFAILED)
        except BaseException as exc:  # noqa: BLE001 - the setup's error
            outcome = Outcome(None, "setup", exc)
        if outcome is None:
            outcome = self.call(item, kwargs, xfail)
        errors: list = []
        try:
            if item.instance is not None:
                teardown = getattr(item.instance, "teardown_method", None)
                if teardown is not None:
                    _call_optional(teardown, getattr(item.instance, item.name.split("[")[0]))
            else:
                teardown = vars(self.module).get("teardown_function")
                if callable(teardown):
                    _call_optional(teardown, item.function)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        self.fixtures.end(self.fixtures.function, errors)
        item.instance = None
        if errors and outcome.error is None:
            return Outcome(None, "teardown", errors[0])
        return outcome

    def call(self, item: Item, kwargs: dict, xfail) -> Outcome:
        kit = self.kit
        try:
            target = getattr(item.instance, item.attr_name) if item.instance is not None else None
        except AttributeError:
            target = None
        function = target if target is not None else item.function
        flags = getattr(getattr(_unwrapped(function), "__code__", None), "co_flags", 0)
        if flags & _CO_GENERATOR:  # pytest 8.3: "yield tests were removed": xfail, not run
            return Outcome(XFAILED)
        if flags & _CO_COROUTINE:  # pytest 8.3: "async def functions are not natively
            return Outcome(SKIPPED)  # supported and have been skipped"
        try:
            result = function(**kwargs)
            if isinstance(result, types.CoroutineType):
                result.close()
                return Outcome(SKIPPED)
        except kit.Skipped:
            return Outcome(SKIPPED)
        except kit.XFailed:
            return Outcome(XFAILED)
        except BaseException as exc:  # noqa: BLE001 - the test failed
            if xfail is not None:
                raises = xfail.kwargs.get("raises")
                if raises is None or isinstance(exc, raises):
                    return Outcome(XFAILED)
            return Outcome(None, "call", exc)
        if xfail is not None:
            if xfail.kwargs.get("strict", False):
                reason = xfail.kwargs.get("reason", "")
                return Outcome(None, "call", kit.Failed(f"[XPASS(strict)] {reason}".strip()))
            return Outcome(XPASSED)
        return Outcome(PASSED)

    def run_unittest(self, item: Item) -> Outcome:
        unittest = _modules["unittest"]
        guard = self.guard
        changed = guard.changed()
        if changed is None:
            suite = unittest.TestSuite([item.cls(name) for name in item.unittest])
            result = unittest.TestResult()
            suite.run(result)
            changed = guard.changed()
        if changed is not None:
            return Outcome(None, "call", Unsupported(f"the program changed unittest ({changed})"))
        problems = [*result.errors, *result.failures]
        if problems:
            case, text = problems[0]
            self.report.write(text)
            last = text.strip().splitlines()[-1] if text.strip() else "failed"
            return Outcome(None, "call", AssertionError(f"{case.id()}: {last}"))
        if result.unexpectedSuccesses:
            case = result.unexpectedSuccesses[0]
            return Outcome(None, "call", AssertionError(f"{case.id()}: unexpected success"))
        if result.testsRun != len(item.unittest):
            return Outcome(None, "call", AssertionError("not every unittest case ran"))
        ran = result.testsRun - len(result.skipped) - len(result.expectedFailures)
        return Outcome(PASSED if ran > 0 else SKIPPED)


# --- reporting ---------------------------------------------------------------------------------


class Report:
    """Failures, on the harness's stderr (taken before the program could replace it)."""

    def __init__(self, stream, tests: str) -> None:
        self.stream, self.tests = stream, tests

    def stop(self, message: str) -> None:
        """Raise ``message`` (the runner's own finding: no test ran, not every test ran)."""
        self.write(f"{message}\n")
        raise TestsFailed(_text(message, 190))

    def fail(self, where: str, exc: BaseException) -> None:
        """Write ``exc``'s traceback (from the test's frames on, not the runner's) and raise
        the one-line summary: where, the exception, and for an assert its line."""
        if isinstance(exc, TestsFailed):  # the runner's own message, complete
            self.stop(str(exc))
        # the tests' source only now: while the program ran, linecache did not hold it
        _lines[TESTS_FILE] = (len(self.tests), None, self.tests.splitlines(True), TESTS_FILE)
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_globals is _GLOBALS:
            tb = tb.tb_next
        try:
            text = "".join(_format_exception(type(exc), exc, tb, limit=-25))
        except BaseException:  # noqa: BLE001 - a broken exception
            text = f"{type(exc).__name__}\n"
        self.write(f"{'_' * 20} {where} {'_' * 20}\n{text}")
        raise TestsFailed(_text(f"{where} - {self._summary(exc, tb)}", 190)) from None

    def _summary(self, exc: BaseException, tb) -> str:
        name = type(exc).__name__
        message = _text(exc, 100)
        if isinstance(exc, AssertionError):
            line = ""
            for frame in _frames(tb):
                if frame.tb_frame.f_code.co_filename == TESTS_FILE:
                    line = linecache.getline(TESTS_FILE, frame.tb_lineno).strip()
            if line:
                return f"{name}: {message} ({line})" if message else f"{name} ({line})"
        return f"{name}: {message}" if message else name

    def write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except BaseException:  # noqa: BLE001 - a closed stream: the summary still raises
            pass


# --- the run -------------------------------------------------------------------------------------

_GLOBALS = globals()  # the runner's frames are the ones whose globals these are


def run(program: str, tests: str) -> None:
    """Run ``tests`` (a pytest file) against ``program``; return only when they passed."""
    cwd = _getcwd()
    report = Report(sys.stderr, tests)
    builtins_copy = dict(vars(_real_builtins))
    tests_pytest, kit = make_pytest()
    program_pytest = make_pytest()[0] if _NAMES_PYTEST.search(program) else None
    guard = Guard() if _NAMES_UNITTEST.search(tests) else None

    # the program, as the module ``solution``
    solution = _ModuleType(SOLUTION)
    solution.__file__ = _path_join(cwd, SOLUTION_FILE)
    solution.__builtins__ = _real_builtins
    _modules[SOLUTION] = solution
    _modules["pytest"] = program_pytest  # None: ``import pytest`` is an ImportError
    try:
        code = compile(program, SOLUTION_FILE, "exec", dont_inherit=True)
        _lines[SOLUTION_FILE] = (len(program), None, program.splitlines(True), SOLUTION_FILE)
        exec(code, vars(solution))
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: a failed import
        report.fail(f"ERROR collecting {TESTS_FILE} (importing {SOLUTION_FILE})", exc)

    # the tests, as the module ``test_solution``
    module = _ModuleType(TESTS)
    namespace = vars(module)
    tests_builtins = dict(builtins_copy)
    tests_builtins["__import__"] = _tests_import(
        builtins_copy["__import__"], solution, builtins_copy
    )
    namespace.update(__file__=_path_join(cwd, TESTS_FILE), __builtins__=tests_builtins)
    _modules["pytest"] = tests_pytest
    try:
        view = _star_view(solution, builtins_copy)  # KodCode's files start with this import
        namespace.update((name, getattr(view, name)) for name in view.__all__)
        if "pytest" in namespace:  # the program's own import of pytest: the tests' is another
            namespace["pytest"] = tests_pytest
        exec(compile(tests, TESTS_FILE, "exec", dont_inherit=True), namespace)
    except kit.Skipped as exc:
        if not exc.allow_module_level:
            report.fail(f"ERROR collecting {TESTS_FILE}", exc)
        report.stop(f"{TESTS_FILE} - no test ran: the module was skipped ({_text(exc.msg)})")
    except BaseException as exc:  # noqa: BLE001
        report.fail(f"ERROR collecting {TESTS_FILE}", exc)
    finally:
        _modules["pytest"] = program_pytest

    try:
        collector = Collector(module, kit)
        items = collector.collect(_modules["unittest"] if guard is not None else None)
    except BaseException as exc:  # noqa: BLE001
        report.fail(f"ERROR collecting {TESTS_FILE}", exc)
    if not items:
        report.stop(f"{TESTS_FILE} - no test ran: the tests define none")
    _run_items(Session(module, kit, collector, cwd, report, guard), items)


def _star_view(solution, builtins_copy: dict) -> types.ModuleType:
    """What ``from solution import *`` gives the tests: the names it would import (``__all__``,
    else the public ones), less those that would hide a builtin the tests call (a program
    cannot make the tests' ``all`` or ``len`` its own; ``from solution import all`` still
    imports it, as asked)."""
    names = vars(solution).get("__all__")
    if names is None:
        names = [name for name in list(vars(solution)) if not name.startswith("_")]
    view = _ModuleType(SOLUTION)
    kept = []
    for name in list(names):
        value = getattr(solution, name)
        if name in builtins_copy and value is not builtins_copy[name]:
            continue
        setattr(view, name, value)
        kept.append(name)
    view.__all__ = kept
    return view


def _tests_import(real_import, solution, builtins_copy: dict):
    """The tests' ``__import__``: ``from solution import *`` reads :func:`_star_view`."""

    def tests_import(name, globals=None, locals=None, fromlist=(), level=0):
        module = real_import(name, globals, locals, fromlist, level)
        if level == 0 and name == SOLUTION and fromlist and "*" in fromlist:
            return _star_view(module, builtins_copy)
        return module

    return tests_import


def _run_items(session: Session, items: list[Item]) -> None:
    module, report, fixtures = session.module, session.report, session.fixtures
    counts = {PASSED: 0, SKIPPED: 0, XFAILED: 0, XPASSED: 0}
    setup = vars(module).get("setup_module") or vars(module).get("setUpModule")
    if callable(setup):
        try:
            _call_optional(setup, module)
        except BaseException as exc:  # noqa: BLE001
            report.fail(f"ERROR at setup of {TESTS_FILE} (setup_module)", exc)
    current = None
    for item in items:
        if item.cls is not current:
            _end_class(current, fixtures, report)
            current = item.cls
            if current is not None and item.unittest is None:
                setup = getattr(current, "setup_class", None)
                if setup is not None:
                    try:
                        setup() if isinstance(setup, _MethodType) else setup(current)
                    except BaseException as exc:  # noqa: BLE001
                        report.fail(f"ERROR at setup of {TESTS_FILE}::{item.nodeid}", exc)
        try:
            outcome = session.run_item(item)
        except BaseException as exc:  # noqa: BLE001 - the runner's own trouble, on this test
            outcome = Outcome(None, "setup", exc)
        if outcome.status not in counts:
            errors: list = []
            fixtures.end(fixtures.function, errors)
            where = {"setup": "ERROR at setup of", "teardown": "ERROR at teardown of"}
            report.fail(
                f"{where.get(outcome.phase, 'FAILED')} {TESTS_FILE}::{item.nodeid}", outcome.error
            )
        counts[outcome.status] += 1
    _end_class(current, fixtures, report)
    errors: list = []
    fixtures.end(fixtures.module, errors)
    teardown = vars(module).get("teardown_module") or vars(module).get("tearDownModule")
    if callable(teardown):
        try:
            _call_optional(teardown, module)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
    if errors:
        report.fail(f"ERROR at teardown of {TESTS_FILE}", errors[0])
    accounted = counts[PASSED] + counts[SKIPPED] + counts[XFAILED] + counts[XPASSED]
    if accounted != len(items):
        report.stop(f"{TESTS_FILE} - not every collected test ran")
    if counts[PASSED] < 1:
        report.stop(f"{TESTS_FILE} - no test passed: every test was skipped or xfailed")


def _end_class(cls, fixtures: Fixtures, report: Report) -> None:
    if cls is None:
        return
    errors: list = []
    scope = fixtures.classes.pop(cls, None)
    if scope is not None:
        fixtures.end(scope, errors)
    teardown = getattr(cls, "teardown_class", None)
    if teardown is not None and not issubclass(cls, _unittest_case()):
        try:
            teardown() if isinstance(teardown, _MethodType) else teardown(cls)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
    if errors:
        report.fail(f"ERROR at teardown of {TESTS_FILE}::{cls.__name__}", errors[0])


def _unittest_case() -> tuple:
    unittest = _modules.get("unittest")
    return (unittest.TestCase,) if unittest is not None else ()
