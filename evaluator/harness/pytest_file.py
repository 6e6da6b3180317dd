"""Pytest-file tests (KodCode): the problem's ``test_code`` is a pytest file that imports the
program as the module ``solution``; the built-in runner (:mod:`.pytest_runner`) runs it in the
sandbox child, in place of pytest (``docs/kodcode.md``: pytest costs ~0.2 s a submission in
the sandbox, this runner a few milliseconds).

A problem says its tests are such a file with ``metadata["test_runner"] == "pytest"``
(:data:`PYTEST_TESTS`); :func:`evaluator.harness.assertion.build_job` hands it here. The job
is one assertion run (the harness's verdicts: a pass needs the report that ``check``
returned, which the runner allows only when every collected test ran and passed), joined: the
tests use many names of the program (functions, classes), not one entry point, so they run in
the program's process, as under pytest.

The job's code is a small bootstrap plus the runner (compiled and marshalled once per grader
process; compiling its source in every child would cost ~30 ms), the program and the tests
as string constants. The program is compiled and run by the runner as ``solution``, so its
``if __name__ == "__main__":`` block does not run.

Before anything runs, :func:`unsupported` reads the tests (once per text): a feature the
runner lacks (a fixture such as ``capfd`` or ``tmpdir``, ``pytest.X`` it does not provide,
indirect parametrization, an async test, a pytest hook) makes the problem's ``ERROR`` naming
it, never a run that could pass.
"""

from __future__ import annotations

import ast
import base64
import functools
import marshal
import sys
import zlib
from importlib import resources

from evaluator.harness.environments import Environment
from evaluator.problem import Problem
from evaluator.sandbox import Isolation, Job, Limits, Mode

from .conventions import CHECK_FUNCTION

__all__ = [
    "PYTEST_TESTS",
    "build_job",
    "is_pytest_problem",
    "job_code",
    "runner_source",
    "unsupported",
]

PYTEST_TESTS = ("test_runner", "pytest")
"""``metadata[PYTEST_TESTS[0]] == PYTEST_TESTS[1]``: the problem's ``test_code`` is a pytest
file run by the built-in runner."""

RUNNER_FILE = "pytest_runner.py"
ENTRY = "run_tests"  # the bootstrap's function the harness passes to check()

# Runs in the child as __main__: takes the program and the tests out of the module's globals
# and the job's source out of linecache (where a program could read the tests), then runs
# the runner in a namespace of its own, with a copy of the builtins made before the program
# runs. check() returns only when the runner's run() does.
_BOOTSTRAP = """\
import builtins as _builtins, linecache as _linecache, sys as _sys

def check(candidate):
    candidate()

def run_tests():
    space = globals()
    program, tests = space.pop("PROGRAM"), space.pop("TESTS")
    tag, compiled = space.pop("RUNNER")
    _linecache.cache.pop(__file__, None)
    if tag != _sys.implementation.cache_tag:
        raise RuntimeError(f"the pytest runner was compiled by {tag}, not {_sys.implementation.cache_tag}")
    import binascii, marshal, zlib
    code = marshal.loads(zlib.decompress(binascii.a2b_base64(compiled)))
    runner = {"__name__": "pytest_runner", "__file__": code.co_filename}
    runner["__builtins__"] = dict(vars(_builtins))
    exec(code, runner)
    runner["run"](program, tests)

"""


def is_pytest_problem(problem: Problem) -> bool:
    """Whether the problem's ``test_code`` is a pytest file for the built-in runner."""
    return problem.metadata.get(PYTEST_TESTS[0]) == PYTEST_TESTS[1]


@functools.cache
def runner_source() -> str:
    """The runner's source text (:mod:`.pytest_runner`, read as a file: never imported)."""
    return resources.files(__package__).joinpath(RUNNER_FILE).read_text(encoding="utf-8")


@functools.cache
def _runner_payload() -> str:
    """The runner as the bootstrap's ``RUNNER`` constant: this interpreter's cache tag and
    the runner's marshalled code (docstrings dropped), compressed, in base64: the child
    decodes it in ~1.5 ms (compiling the source there would cost ~30 ms), and a constant of
    this size costs the fork server ~0.5 ms to compile. The sandbox runs the grader's own
    interpreter; the tag makes another one fail loudly rather than misread the code."""
    code = compile(runner_source(), RUNNER_FILE, "exec", dont_inherit=True, optimize=2)
    packed = base64.b64encode(zlib.compress(marshal.dumps(code), 9)).decode("ascii")
    return repr((sys.implementation.cache_tag, packed))


def job_code(program: str, tests: str) -> str:
    """The job's code: the bootstrap, the runner, then the program and the tests as
    constants (``repr`` keeps any text, NUL and lone surrogates included, a constant)."""
    return f"{_BOOTSTRAP}RUNNER = {_runner_payload()}\nPROGRAM = {program!r}\nTESTS = {tests!r}\n"


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    """The job of a pytest-file problem. Raises ``ValueError`` naming what the tests use that
    the runner does not do (the grader makes that the problem's ``ERROR``)."""
    why = unsupported(problem.test_code)
    if why is not None:
        raise ValueError(why)
    return Job(
        code=job_code(code, problem.test_code),
        inputs=[""],
        mode=Mode.ASSERTION,
        func_name=ENTRY,
        check_name=CHECK_FUNCTION,
        limits=limits,
        isolation=isolation,
        environment=environment.overrides(),
    )


# --- what the runner does not do -----------------------------------------------------------

_PYTEST_NAMES = frozenset(
    {
        "raises",
        "approx",
        "fixture",
        "mark",
        "param",
        "skip",
        "fail",
        "xfail",
        "importorskip",
        "warns",
        "deprecated_call",
        "main",
        "ExceptionInfo",
        "WarningsRecorder",
        "Mark",
        "MarkDecorator",
        "CaptureFixture",
        "MonkeyPatch",
        "LogCaptureFixture",
        "FixtureRequest",
    }
)
"""What the runner's ``pytest`` module has."""

_MARKS_MISSPELT = frozenset({"parameterize", "parametrise", "parameterise"})

_FIXTURES = frozenset({"capsys", "monkeypatch", "tmp_path", "caplog", "recwarn", "request"})
"""The built-in fixtures the runner provides."""

_PYTEST_FIXTURES = frozenset(
    {
        "cache",
        "capfd",
        "capfdbinary",
        "capsysbinary",
        "doctest_namespace",
        "pytestconfig",
        "record_property",
        "record_testsuite_property",
        "record_xml_attribute",
        "subtests",
        "testdir",
        "pytester",
        "tmp_path_factory",
        "tmpdir",
        "tmpdir_factory",
        "cov",
        "no_cover",
        "mocker",
        "module_mocker",
        "class_mocker",
        "session_mocker",
        "event_loop",
        "benchmark",
        "httpserver",
        "requests_mock",
        "freezer",
    }
)
"""Fixtures of pytest itself or of common plugins (pytest-cov, pytest-mock, pytest-asyncio,
pytest-benchmark, ...): named as such in the error."""

_FIXTURE_ATTRIBUTES = {
    "capsys": frozenset({"readouterr", "disabled"}),
    "monkeypatch": frozenset(
        {
            "setattr",
            "delattr",
            "setitem",
            "delitem",
            "setenv",
            "delenv",
            "syspath_prepend",
            "chdir",
            "undo",
            "context",
        }
    ),
    "caplog": frozenset(
        {"records", "record_tuples", "messages", "text", "clear", "set_level", "at_level"}
    ),
    "recwarn": frozenset({"list", "pop", "clear"}),
    "request": frozenset(
        {
            "param",
            "fixturename",
            "scope",
            "node",
            "function",
            "cls",
            "instance",
            "module",
            "addfinalizer",
            "getfixturevalue",
        }
    ),
}
"""What the runner's built-in fixtures have (a test that asks a fixture for more is refused)."""

_NODE_ATTRIBUTES = frozenset({"name", "nodeid"})


@functools.lru_cache(maxsize=4096)
def unsupported(tests: str) -> str | None:
    """Why the built-in runner cannot run the pytest file ``tests`` as pytest would (one
    sentence naming the feature), or None. Read, never run; cached (a reward grades one
    problem many times)."""
    try:
        tree = ast.parse(tests)
    except (SyntaxError, ValueError) as exc:
        return f"the tests do not compile: {type(exc).__name__}: {exc}"
    return _Reader(tree).problem()


class _Reader:
    """The tests' use of pytest, from their syntax tree."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.modules: set[str] = set()  # names bound to the pytest module
        self.names: dict[str, str] = {}  # names imported from pytest: local -> pytest's

    def problem(self) -> str | None:
        for check in (self._imports, self._attributes, self._definitions):
            found = check()
            if found is not None:
                return found
        return None

    def _imports(self) -> str | None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    if alias.name == "pytest":
                        self.modules.add(alias.asname or "pytest")
                    elif _plugin(top):
                        return f"the tests import {alias.name}, which the built-in runner lacks"
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                top = node.module.split(".")[0]
                if node.module == "pytest":
                    for alias in node.names:
                        if alias.name not in _PYTEST_NAMES:
                            return _no_pytest(alias.name)
                        self.names[alias.asname or alias.name] = alias.name
                elif _plugin(top):
                    return f"the tests import {node.module}, which the built-in runner lacks"
        self.modules.add("pytest")  # rllm's file and ours bind it even when the tests do not
        return None

    def _pytest_attribute(self, node: ast.AST) -> str | None:
        """``X`` when ``node`` is ``pytest.X`` (or a name imported from pytest as ``X``)."""
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.modules
        ):
            return node.attr
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.names[node.id]
        return None

    def _attributes(self) -> str | None:
        for node in ast.walk(self.tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in self.modules
                and node.attr not in _PYTEST_NAMES
            ):
                return _no_pytest(node.attr)
            if (
                isinstance(node, ast.Attribute)
                and node.attr in _MARKS_MISSPELT
                and self._pytest_attribute(node.value) == "mark"
            ):
                return f"the tests use the unknown mark pytest.mark.{node.attr}"
            if isinstance(node, ast.Call):
                if self._is_mark(node.func, "parametrize"):
                    for keyword in node.keywords:
                        if keyword.arg == "indirect" and not _false(keyword.value):
                            return (
                                "the tests use indirect parametrization, which the built-in "
                                "runner does not support"
                            )
                if self._pytest_attribute(node.func) == "fixture":
                    for keyword in node.keywords:
                        if keyword.arg == "scope" and not (
                            isinstance(keyword.value, ast.Constant)
                            and keyword.value.value
                            in ("function", "class", "module", "package", "session")
                        ):
                            return (
                                "the tests give a fixture a scope the built-in runner does not "
                                f"support: {ast.unparse(keyword.value)}"
                            )
            if isinstance(node, ast.Name) and node.id == "_pytest":
                return "the tests use pytest's internals (_pytest)"
        return None

    def _is_mark(self, node: ast.AST, name: str) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == name
            and (self._pytest_attribute(node.value) == "mark")
        )

    def _is_fixture(self, decorator: ast.AST) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return self._pytest_attribute(target) == "fixture"

    def _fixture_name(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        for decorator in function.decorator_list:
            if self._is_fixture(decorator):
                if isinstance(decorator, ast.Call):
                    for keyword in decorator.keywords:
                        if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                            return str(keyword.value.value)
                return function.name
        return None

    def _definitions(self) -> str | None:
        body = self.tree.body
        fixtures = {
            name
            for node in body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for name in [self._fixture_name(node)]
            if name is not None
        }
        module_params = self._module_parametrized()
        tests = 0
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("pytest_"):
                    return f"the tests define the pytest hook {node.name}(), which the built-in runner does not call"
                is_fixture = self._fixture_name(node) is not None
                if node.name.startswith("test") or is_fixture:
                    tests += not is_fixture
                    found = self._function(node, fixtures, module_params, method=False)
                    if found is not None:
                        return found
            elif isinstance(node, ast.ClassDef):
                unit = any(_names_testcase(base) for base in node.bases)
                if unit and _has_tests(node):
                    tests += 1
                elif node.name.startswith("Test"):
                    found, count = self._class(node, fixtures, module_params)
                    if found is not None:
                        return found
                    tests += count
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets
            ):
                return "the tests load pytest plugins (pytest_plugins)"
        if tests == 0:
            return "the tests define no test function (test_*) or Test* class"
        return None

    def _module_parametrized(self) -> set[str] | None:
        """The names ``pytestmark`` parametrizes for every test (None: not readable)."""
        names: set[str] = set()
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                values = (
                    node.value.elts
                    if isinstance(node.value, ast.List | ast.Tuple)
                    else [node.value]
                )
                for value in values:
                    found = self._parametrized([value])
                    if found is None:
                        return None
                    names |= found
        return names

    def _class(
        self, node: ast.ClassDef, fixtures: set[str], module_params
    ) -> tuple[str | None, int]:
        if any(isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body):
            return None, 0  # pytest does not collect it
        own = set(fixtures)
        own |= {
            name
            for item in node.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            for name in [self._fixture_name(item)]
            if name is not None
        }
        class_params = self._parametrized(node.decorator_list)
        params = (
            None if class_params is None or module_params is None else class_params | module_params
        )
        count = 0
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                is_fixture = self._fixture_name(item) is not None
                if item.name.startswith("test") or is_fixture:
                    count += not is_fixture
                    static = any(
                        isinstance(d, ast.Name) and d.id == "staticmethod"
                        for d in item.decorator_list
                    )
                    found = self._function(item, own, params, method=not static)
                    if found is not None:
                        return found, count
            elif isinstance(item, ast.ClassDef) and item.name.startswith("Test"):
                found, inner = self._class(item, own, params)
                if found is not None:
                    return found, count
                count += inner
        return None, count

    def _parametrized(self, decorators: list[ast.expr]) -> set[str] | None:
        """The argument names ``parametrize`` marks among ``decorators`` give (None: a name
        list that is not a literal)."""
        names: set[str] = set()
        for decorator in decorators:
            if not (
                isinstance(decorator, ast.Call) and self._is_mark(decorator.func, "parametrize")
            ):
                continue
            argnames = decorator.args[0] if decorator.args else None
            for keyword in decorator.keywords:
                if keyword.arg == "argnames":
                    argnames = keyword.value
            if isinstance(argnames, ast.Constant) and isinstance(argnames.value, str):
                names |= {part.strip() for part in argnames.value.split(",") if part.strip()}
            elif isinstance(argnames, ast.List | ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in argnames.elts
            ):
                names |= {e.value for e in argnames.elts}
            else:
                return None
        return names

    def _function(self, node, fixtures: set[str], outer_params, method: bool) -> str | None:
        if isinstance(node, ast.AsyncFunctionDef) and self._fixture_name(node) is not None:
            return (
                f"the tests define the async fixture {node.name}(), which needs a plugin the "
                "built-in runner lacks"
            )
        own = self._parametrized(node.decorator_list)
        if own is None or outer_params is None:
            return self._attributes_of(node, _requested(node, method, set()))
        requested = _requested(node, method, own | outer_params)
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and self._is_mark(decorator.func, "usefixtures"):
                requested += [
                    arg.value
                    for arg in decorator.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                ]
        for name in requested:
            if name in fixtures or name in _FIXTURES:
                continue
            if name in _PYTEST_FIXTURES:
                return (
                    f"the tests use the fixture {name!r} (pytest's or a plugin's), which the "
                    "built-in runner does not support"
                )
            return f"the tests request the fixture {name!r}, which neither they nor pytest define"
        return self._attributes_of(node, requested)

    def _attributes_of(self, node, requested: list[str]) -> str | None:
        """``capsys.X``, ``request.X``... in ``node``: X must be what the runner provides."""
        watched = {name for name in requested if name in _FIXTURE_ATTRIBUTES}
        if not watched:
            return None
        for child in ast.walk(node):
            if (
                isinstance(child, ast.Attribute)
                and isinstance(child.value, ast.Name)
                and child.value.id in watched
                and child.attr not in _FIXTURE_ATTRIBUTES[child.value.id]
            ):
                return (
                    f"the tests use {child.value.id}.{child.attr}, which the built-in "
                    "runner's fixture does not have"
                )
            if (
                isinstance(child, ast.Attribute)
                and isinstance(child.value, ast.Attribute)
                and isinstance(child.value.value, ast.Name)
                and child.value.value.id == "request"
                and "request" in watched
                and child.value.attr == "node"
                and child.attr not in _NODE_ATTRIBUTES
            ):
                return f"the tests use request.node.{child.attr}, which the built-in runner lacks"
        return None


def _plugin(module: str) -> bool:
    return module.startswith("pytest_") or module in ("_pytest", "xdist")


def _no_pytest(name: str) -> str:
    return f"the tests use pytest.{name}, which the built-in runner does not provide"


def _false(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and not node.value


def _names_testcase(base: ast.AST) -> bool:
    return (isinstance(base, ast.Name) and base.id == "TestCase") or (
        isinstance(base, ast.Attribute) and base.attr == "TestCase"
    )


def _has_tests(node: ast.ClassDef) -> bool:
    return any(
        isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test")
        for item in node.body
    )


def _requested(node, method: bool, parametrized: set[str]) -> list[str]:
    """The fixtures a function asks for: its parameters without defaults, less ``self`` and
    those ``unittest.mock.patch`` decorators fill and those parametrized."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    names = [a.arg for a in positional[: len(positional) - len(args.defaults)]]
    names += [
        a.arg
        for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        if default is None
    ]
    if method and names:
        names = names[1:]
    names = names[_mock_patches(node) :]
    return [name for name in names if name not in parametrized]


def _mock_patches(node) -> int:
    """How many leading parameters ``unittest.mock.patch`` decorators fill (those without a
    ``new`` value)."""
    count = 0
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        func = decorator.func
        dotted = ast.unparse(func)
        if dotted.endswith("patch.object"):
            given = len(decorator.args) >= 3
        elif dotted.split(".")[-1] == "patch":
            given = len(decorator.args) >= 2
        else:
            continue
        given = given or any(k.arg == "new" for k in decorator.keywords)
        count += not given
    return count
