"""Tests in the shapes datasets ship them, decoded to :class:`~evaluator.problem.TestCase`\\ s.

The source readers share these; each says which shapes its records hold:

* **inputs/outputs** (APPS, TACO, verl's ``prime_code``, DeepCoder's ``taco``, rStar-Coder):
  ``{"inputs": [...], "outputs": [...], "fn_name"?: name}``. Without ``fn_name`` each input
  and output is a text, or a list of lines (joined with newlines). With ``fn_name`` each
  input is the list of the call's arguments (a non-list: one argument) and each output the
  expected value, often wrapped in a one-element list; in verl's ``prime_code`` form an input
  is instead a text of one JSON value per line and an output a JSON text. The form is told
  apart per test: an input that is a text is the ``prime_code`` form.
* **a list of cases**: ``{"input", "output"}`` texts (ours, Codeforces, CodeElo), with
  LiveCodeBench's ``testtype`` (``stdin``/``functional``; DeepCoder's ``lcbv5``), or
  PrimeIntellect's ``{"type": "stdin_stdout" | "function_call", "input", "output",
  "fn_name"}`` (a call's input is the literal of its argument list, its output the literal
  of the value).

Call-based tests become the harness's texts: one JSON value per argument per line, and the
JSON of the expected value.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..problem import Harness, Problem, TestCase
from .errors import InputError, json_error_detail
from .fields import describe_type, expect_dict, expect_list, expect_str
from .record_files import dumps_json, loads_json

__all__ = [
    "DecodedTests",
    "call_input",
    "case_list",
    "decode_text",
    "io_tests",
    "json_text",
    "literal_value",
    "stdin_text",
    "tests_value",
]


@dataclass(slots=True)
class DecodedTests:
    """A problem's tests, their harness and the function they call. ``wrapped``: some
    expected value is a one-element list (the APPS/TACO wrapping; the readers whose sources
    accept the wrapped and the bare value say so in the problem's judge). ``shape``: which
    shape they came in (``inputs_outputs``, ``testtype`` (LiveCodeBench's), ``type``
    (PrimeIntellect's) or ``plain``), so a reader can apply the rule of the source the shape
    comes from."""

    harness: Harness
    tests: list[TestCase]
    func_name: str | None = None
    wrapped: bool = False
    shape: str = "plain"

    def problem(
        self,
        problem_id: str,
        *,
        judge: Any = None,
        rule: Callable[[DecodedTests], Any] | None = None,
        time_limit: float | None = None,
        memory_limit: int | None = None,
        metadata: dict[str, Any] | None = None,
        input_file: str | None = None,
        output_file: str | None = None,
        output_arg: int | None = None,
    ) -> Problem:
        """The problem of these tests, with the facts its reader gathered from the row: the
        one place a source's decoded tests become a :class:`~evaluator.problem.Problem`, so
        a field a row can give is added here once. ``judge`` is the record's own (None: it
        names none); ``rule`` the source's, applied to these tests when the record names
        none (None: the harness's default)."""
        if judge is None and rule is not None:
            judge = rule(self)
        return Problem(
            id=problem_id,
            harness=self.harness,
            tests=self.tests,
            func_name=self.func_name,
            judge=judge,
            time_limit=time_limit,
            memory_limit=memory_limit,
            metadata=metadata if metadata is not None else {},
            input_file=input_file,
            output_file=output_file,
            output_arg=output_arg,
        )


def json_text(value: Any) -> str:
    """``value`` as compact JSON text (tuples as lists; integers of any size; NaN kept)."""
    return dumps_json(value).decode("utf-8")


def decode_text(value: Any, field: str, *, literal: bool = False) -> Any:
    """A field that holds JSON as text, decoded (a value already decoded is returned as it
    is). ``literal``: a Python literal is accepted too (PrimeIntellect writes its
    ``verification_info`` as ``repr`` of a dict); JSON is tried first."""
    if not isinstance(value, str):
        return value
    try:
        return loads_json(value)
    except ValueError as exc:
        reason = json_error_detail(exc)
    if literal:
        try:
            return _plain(ast.literal_eval(value.strip()), field)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
        raise InputError(f"neither JSON ({reason}) nor a Python literal", field=field)
    raise InputError(f"not valid JSON ({reason})", field=field)


def literal_value(text: str, field: str) -> Any:
    """A value written as JSON or as a Python literal (``True``, ``(1, 2)``, ``None``);
    a text that is neither is that text itself (a call that returns a string)."""
    try:
        return loads_json(text)
    except ValueError:
        pass
    try:
        return _plain(ast.literal_eval(text.strip()), field)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _plain(value: Any, field: str) -> Any:
    """A Python literal's value as JSON data: tuples as lists; sets, bytes and complex
    numbers refused (JSON cannot hold them, nor can the expected value of a test)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item, field) for item in value]
    if isinstance(value, dict):
        return {_key(key, field): _plain(item, field) for key, item in value.items()}
    raise InputError(f"a {type(value).__name__} is not JSON data", field=field)


def _key(key: Any, field: str) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool | int | float) or key is None:
        return json_text(key)  # as JSON writes a dict's keys
    raise InputError(f"a dict key of type {type(key).__name__} is not JSON data", field=field)


def stdin_text(value: Any, field: str) -> str:
    """A stdin test's input or output: a text, or a list of lines joined with newlines (and
    ended with one), as APPS writes some."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value) + ("\n" if value else "")
    raise InputError(f"expected a text or a list of lines, got {describe_type(value)}", field=field)


def call_input(args: Any, field: str) -> str:
    """The harness's input text of a call with ``args`` (a list of arguments; anything else
    is the one argument)."""
    values = args if isinstance(args, list) else [args]
    try:
        return "\n".join(json_text(value) for value in values)
    except (TypeError, ValueError) as exc:
        raise InputError(f"arguments are not JSON data: {exc}", field=field) from None


def _is_wrapped(value: Any) -> bool:
    return type(value) is list and len(value) == 1


def io_tests(value: Mapping[str, Any], field: str) -> DecodedTests:
    """The ``{"inputs", "outputs", "fn_name"?}`` shape (see the module docstring)."""
    inputs = expect_list(value.get("inputs"), f"{field}.inputs")
    outputs = expect_list(value.get("outputs"), f"{field}.outputs")
    if len(inputs) != len(outputs):
        raise InputError(f"{len(inputs)} inputs but {len(outputs)} outputs", field=field)
    fn_name = value.get("fn_name") or value.get("func_name")
    if fn_name is None:
        tests = [
            TestCase(
                stdin_text(given, f"{field}.inputs[{i}]"),
                stdin_text(wanted, f"{field}.outputs[{i}]"),
            )
            for i, (given, wanted) in enumerate(zip(inputs, outputs, strict=True))
        ]
        return DecodedTests(Harness.STDIN, tests, shape="inputs_outputs")
    fn_name = expect_str(fn_name, f"{field}.fn_name", non_empty=True)
    tests, wrapped = [], False
    for i, (given, wanted) in enumerate(zip(inputs, outputs, strict=True)):
        if isinstance(given, str):  # verl's prime_code form: JSON texts already
            where = f"{field}.outputs[{i}]"
            if not isinstance(wanted, str):
                wanted = json_text(wanted)
            wrapped = wrapped or _is_wrapped(decode_text(wanted, where))
            tests.append(TestCase(given, wanted))
        else:
            wrapped = wrapped or _is_wrapped(wanted)
            text = _expected_text(wanted, f"{field}.outputs[{i}]")
            tests.append(TestCase(call_input(given, f"{field}.inputs[{i}]"), text))
    return DecodedTests(Harness.FUNCTIONAL, tests, fn_name, wrapped, "inputs_outputs")


def _expected_text(value: Any, field: str) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return json_text(value)
    try:
        return json_text(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"not JSON data: {exc}", field=field) from None


_TESTTYPES = {
    "stdin": Harness.STDIN,
    "stdin_stdout": Harness.STDIN,
    "functional": Harness.FUNCTIONAL,
    "function_call": Harness.FUNCTIONAL,
}


def case_list(value: list[Any], field: str, *, func_name: str | None = None) -> DecodedTests:
    """A list of cases (see the module docstring). Every case must be of one type; cases
    that say none are stdin cases, or calls of ``func_name`` when one is given."""
    harness: Harness | None = None
    tests: list[TestCase] = []
    shape = "plain"
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        case = expect_dict(item, where)
        kind_key = "testtype" if "testtype" in case else "type"
        kind = case.get(kind_key)
        if kind is not None:
            shape = kind_key
        this = Harness.FUNCTIONAL if kind is None and func_name else Harness.STDIN
        if kind is not None:
            this = _TESTTYPES.get(kind) if isinstance(kind, str) else None
            if this is None:
                raise InputError(
                    f"unknown test type {kind!r} (expected one of {', '.join(_TESTTYPES)})",
                    field=f"{where}.{kind_key}",
                )
        if harness is None:
            harness = this
        elif this is not harness:
            raise InputError(
                f"a {this.value} test among {harness.value} ones: a problem's tests must all "
                "be of one type",
                field=f"{where}.{kind_key}",
            )
        if this is Harness.FUNCTIONAL and case.get("fn_name") is not None:
            name = expect_str(case["fn_name"], f"{where}.fn_name", non_empty=True)
            func_name = func_name or name
        tests.append(_case(case, where, kind == "function_call"))
    harness = harness or (Harness.FUNCTIONAL if func_name else Harness.STDIN)
    if harness is Harness.FUNCTIONAL and not func_name:
        raise InputError(
            "call-based tests need the function's name ('fn_name', or 'func_name' in metadata)",
            field=field,
        )
    func_name = func_name if harness is Harness.FUNCTIONAL else None
    return DecodedTests(harness, tests, func_name, shape=shape)


def _case(case: Mapping[str, Any], where: str, literal: bool) -> TestCase:
    for key in ("input", "output"):
        if case.get(key) is None:
            raise InputError("missing required field", field=f"{where}.{key}")
    if not literal:
        return TestCase(
            expect_str(case["input"], f"{where}.input"),
            expect_str(case["output"], f"{where}.output"),
        )
    # PrimeIntellect's function_call: the literal of the argument list, the value's literal
    args, value = case["input"], case["output"]
    if isinstance(args, str):
        args = _argument_list(args, f"{where}.input")
    if isinstance(value, str):
        value = literal_value(value, f"{where}.output")
    return TestCase(call_input(args, f"{where}.input"), _expected_text(value, f"{where}.output"))


def _argument_list(text: str, field: str) -> list[Any]:
    """A call's arguments written as the literal of their list (``[[1, 2], 3]``), or as one
    JSON value per line (LiveCodeBench's way)."""
    value = literal_value(text, field)
    if isinstance(value, list):
        return value
    lines = text.strip().split("\n")
    if len(lines) > 1:
        return [literal_value(line, f"{field} line {n}") for n, line in enumerate(lines, 1)]
    raise InputError(f"expected the literal of a list of arguments, got {text[:60]!r}", field=field)


def tests_value(value: Any, field: str, *, func_name: str | None = None) -> DecodedTests:
    """Tests in any shape above, decoded from JSON text first when they come as text."""
    value = decode_text(value, field)
    if isinstance(value, Mapping) and ("inputs" in value or "outputs" in value):
        return io_tests(value, field)
    if isinstance(value, list):
        return case_list(value, field, func_name=func_name)
    raise InputError(
        f"expected a list of tests or an object with 'inputs' and 'outputs', got "
        f"{describe_type(value)}",
        field=field,
    )
