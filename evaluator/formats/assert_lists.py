"""Problems whose tests are a list of assert statements calling the function by its name: the
decoder the sources of such lists share.

MBPP's ``test_list`` (:mod:`.sources.mbpp`) and verl sandbox_fusion's ``assert_case``
(:mod:`.sources.assert_case`) hold statements such as
``assert kth_element([12, 3, 5], 3, 2) == 3``: they name the function under test themselves. :func:`assertion_problem` makes them an assertion-harness problem
(:mod:`evaluator.harness.assertion`): ``test_code`` is the imports and setup the source gives,
then ``check(candidate)``, which binds the function's name to ``candidate`` and runs the
statements as written::

    import math

    def check(candidate):
        kth_element = candidate
        assert kth_element([12, 3, 5], 3, 2) == 3

so the tests run in a process apart from the program when they can (the harness's split
mode) and joined with it when they use other names the program defines. A program that does
not define the function fails (``NameError``), and so does one that exits before the asserts
have run (``sys.exit(0)``): the harness passes a program only on the report that ``check``
returned. The function's name is the source's (``fn_name``) or else the first function the
statements call that is neither a builtin nor bound by the imports and setup.
"""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Iterable
from typing import Any

from ..problem import Problem
from .code_tests import tests_function_problem
from .errors import InputError
from .fields import expect_list, expect_str, python_source

__all__ = ["assertion_problem"]

_BUILTINS = frozenset(dir(builtins))


def _bound(trees: Iterable[ast.Module]) -> set[str]:
    """Names the trusted code (imports, setup) binds at its top level or anywhere."""
    bound: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.alias):
                bound.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
    return bound


def _called_function(trees: list[ast.Module], bound: set[str]) -> str | None:
    """The first function (in source order) the statements call by a plain name that neither
    Python nor the trusted code provides: ``set(similar_elements(a, b))`` calls
    ``similar_elements``."""
    for tree in trees:
        calls = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        ]
        calls.sort(key=lambda node: (node.lineno, node.col_offset))
        for call in calls:
            name = call.func.id  # type: ignore[attr-defined]
            if name not in _BUILTINS and name not in bound:
                return name
    return None


def _indented(text: str, tree: ast.Module) -> list[str]:
    """The statement's lines inside ``check``'s body: its own text indented, or, for a
    statement of several lines (whose string literals indenting could change), the same
    statements written back from their syntax tree."""
    if "\n" not in text.strip():
        return ["    " + text.strip()]
    return ["    " + line for line in ast.unparse(tree).splitlines()]


def assertion_problem(
    problem_id: str,
    asserts: Any,
    field: str,
    *,
    entry_point: str | None = None,
    entry_field: str = "fn_name",
    imports: Iterable[tuple[str, str]] = (),
    setup: tuple[str, str] | None = None,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    metadata: dict[str, Any] | None = None,
) -> Problem:
    """The assertion-harness problem of ``asserts`` (a list of statement texts, in the record
    at ``field``) calling ``entry_point`` (None: found in the statements, see the module
    docstring). ``imports`` are ``(text, field)`` pairs of import statements and ``setup`` a
    ``(code, field)`` pair of code the tests need (MBPP's ``test_setup_code``), both run at
    the top of ``test_code``. An empty list of statements gives a problem without tests
    (grading says ERROR: a check with nothing in it would pass any program)."""
    statements = expect_list(asserts, field)
    texts: list[str] = []
    trees: list[ast.Module] = []
    for index, item in enumerate(statements):
        where = f"{field}[{index}]"
        text = expect_str(item, where, non_empty=True).replace("\r\n", "\n")
        texts.append(text)
        trees.append(python_source(text, where))
    head: list[str] = []
    trusted: list[ast.Module] = []
    for text, where in imports:
        text = expect_str(text, where).replace("\r\n", "\n").strip()
        if text:
            trusted.append(python_source(text, where))
            head.append(text)
    if setup is not None:
        code, where = setup
        code = expect_str(code, where).replace("\r\n", "\n").strip("\n")
        if code.strip():
            trusted.append(python_source(code, where))
            head.append(code)
    if entry_point is not None:
        entry_point = expect_str(entry_point, entry_field, non_empty=True).strip()
        if not entry_point.isidentifier() or keyword.iskeyword(entry_point):
            raise InputError(f"{entry_point!r} is not a function name", field=entry_field)
    elif trees:
        entry_point = _called_function(trees, _bound(trusted))
        if entry_point is None:
            raise InputError(
                "no statement calls a function by its name (name the function under test)",
                field=field,
            )
    body = [f"    {entry_point} = candidate"] if entry_point else []
    for text, tree in zip(texts, trees, strict=True):
        body.extend(_indented(text, tree))
    parts = [*head, "def check(candidate):\n" + "\n".join(body or ["    pass"])]
    test_code = "\n\n\n".join(parts) + "\n"
    return tests_function_problem(
        problem_id,
        test_code=test_code,
        entry_point=entry_point or "",
        time_limit=time_limit,
        memory_limit=memory_limit,
        metadata=metadata or {},
        runs=bool(texts),
    )
