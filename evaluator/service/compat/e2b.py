"""open-r1's E2B router, spoken by our grader: ``POST /execute_batch``.

open-r1 (``huggingface/open-r1@1416fa0``) runs its code reward's scripts through E2B; with a
router (``scripts/e2b_router.py``) its client, ``src/open_r1/utils/routed_sandbox.py``
L41-100, posts a batch to ``http://{router}/execute_batch``::

    {"scripts": [str], "languages": ["python", ...], "timeout": 30, "request_timeout": 28}

and reads back one ``ScriptResult`` per script, in order: ``{"execution": {"results":
[{"text", ..., "is_main_result"}], "logs": {"stdout": [...], "stderr": [...]}, "error":
null | {"name", "value", "traceback"}, "execution_count"} | null, "exception_str": str |
null}``. Its ``E2BProvider`` (``utils/code_providers.py`` L88-105) takes
``float(execution.text)``, the text of the cell's main result (the value of its last
expression, as Jupyter shows it), as the reward, ``None`` when there is none.

Two kinds of script, both answered in that shape:

* open-r1's own evaluation script (``rewards.py`` L529-580: ``evaluate_code(code_snippet,
  test_cases)`` running the completion's code with ``python3 -c`` on each test): recognised
  by its exact text (the two literals aside) and graded here, as
  :func:`evaluator.reward.frameworks.open_r1.code_reward` grades it: the code against the test cases
  read by the registry (PrimeIntellect's ``test_cases``, their rule), 5 s per test, all in
  the server's warm pool in parallel. The main result is the share of tests passed, as the
  script's value (``repr`` of the float); ``logs.stdout`` holds our verdict and reason.
  A script whose test cases cannot be read answers an ``error`` (``ProblemError``, naming
  the field), as the script would raise; open-r1 then gives no reward.
* any other Python script: a plain run in our sandbox, as a Jupyter cell (IPython's clean-up
  of leading blank lines and indentation; the last statement's value, unless ``None`` or the
  line ends with ``;``, is the main result, its ``repr``), ``timeout`` as its CPU and
  wall-clock limit and the server's memory ceiling. Its stdout and stderr are the logs, an
  uncaught exception the ``error``. The sandbox runs no other process: a script that starts
  one (``subprocess``) gets the sandbox's refusal as its error. A script that ends without
  a result (a limit, ``os._exit``) answers ``execution: null`` and why in
  ``exception_str``, as the router does for a sandbox that timed out.

A script in another language answers ``execution: null`` with ``exception_str`` naming it
(only Python runs here). A body the router's ``BatchRequest`` refuses, or whose
``languages`` do not match its ``scripts`` one for one, is a 422 in FastAPI's shape naming
the field. ``request_timeout`` is read and not needed (each script's time is its limit).
Not covered: E2B's own sandbox API (sandbox lifecycle, files, commands, other languages);
only the router's batch endpoint.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import secrets
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.problem import Problem, Verdict
from evaluator.reward.columns import ProblemError
from evaluator.reward.frameworks.open_r1 import TEST_TIME_LIMIT
from evaluator.runner import GradeResult
from evaluator.sandbox import LimitHit, RunResult

from ..graders import grader_for, problem_cache
from .fusion_requests import MAX_TIMEOUT, Unprocessable, parse
from .sandbox_fusion import RunCode

__all__ = [
    "OPEN_R1_SCRIPT_DIGEST",
    "cell_source",
    "execute_batch",
    "open_r1_literals",
    "template_of",
]

OPEN_R1_SCRIPT_DIGEST = "46ad2650520f5cb0a60fbe86caf9221810a080d856a70d82f0755e3aa634ac76"
"""SHA-256 of open-r1's evaluation script template (``rewards.py`` L529-567 at ``1416fa0``,
unchanged since ``1b3bf04``, which added the router), its ``{code}`` and ``{test_cases}``
fields unfilled."""
RESULT_FIELDS = (
    "text", "html", "markdown", "svg", "png", "jpeg", "pdf", "latex", "json", "javascript",
    "data", "chart", "is_main_result", "extra",
)  # fmt: skip
"""e2b_code_interpreter's ``Result`` fields, every one in each result (None when unset)."""


class BatchRequest(BaseModel):
    """The router's ``BatchRequest`` (``scripts/e2b_router.py`` L32-45)."""

    model_config = ConfigDict(extra="ignore")
    scripts: list[str]
    languages: list[str]
    timeout: int
    request_timeout: int


# --- open-r1's evaluation script ---------------------------------------------------------------


def cell_source(script: str) -> str:
    """``script`` as IPython runs a cell: leading blank lines removed, and the first line's
    indentation removed from every line that starts with it (open-r1's scripts are indented
    by 4 spaces: plain Python would refuse them)."""
    lines = script.splitlines(keepends=True)
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ""
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip(" \t"))]
    if indent:
        lines = [line[len(indent) :] if line.startswith(indent) else line for line in lines]
    return "".join(lines)


# The two literals open-r1's ``str.format`` writes into its template (``json.dumps`` texts: no
# raw newline or unescaped quote inside), in the order the template has them.
_LITERALS = re.compile(
    r'code_snippet = ("(?:[^"\\\n]|\\.)*")\n[ \t]*test_cases = json\.loads\(("(?:[^"\\\n]|\\.)*")\)'
)


def template_of(script: str) -> tuple[str, str, str] | None:
    """``(template, code literal, test cases literal)``: ``script`` with its two literals put
    back as the template's ``{code}`` and ``{test_cases}``; None when it has not that shape."""
    found = _LITERALS.search(script)
    if found is None:
        return None
    template = "".join(
        (
            script[: found.start(1)],
            "{code}",
            script[found.end(1) : found.start(2)],
            "{test_cases}",
            script[found.end(2) :],
        )
    )
    return template, found.group(1), found.group(2)


def _string(literal: str) -> str:
    """A string literal's value: JSON's reading (open-r1 writes them with ``json.dumps``, and
    JSON joins surrogate pairs where Python would keep two lone surrogates)."""
    value = json.loads(literal)
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value


def open_r1_literals(script: str) -> tuple[str, str] | None:
    """The ``code_snippet`` and ``test_cases`` literals (their source text) when ``script`` is
    open-r1's evaluation script (its template, character for character, with two JSON string
    literals in it), else None."""
    if "evaluate_code(code_snippet, test_cases)" not in script:  # most other scripts stop here
        return None
    found = template_of(script)
    if found is None:
        return None
    template, code, cases = found
    digest = hashlib.sha256(template.encode("utf-8", "surrogatepass")).hexdigest()
    return (code, cases) if digest == OPEN_R1_SCRIPT_DIGEST else None


# --- a plain run of any other script, as a Jupyter cell ----------------------------------------

_DRIVER = """\
import ast as _ast, json as _json, os as _os, sys as _sys, traceback as _traceback


def _run_cell(source, marker):
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    result = error = None
    try:
        tree = _ast.parse(source, "<cell>")
        last = None
        if tree.body and isinstance(tree.body[-1], _ast.Expr):
            last = tree.body.pop()
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(_ast.Expression(last.value), "<cell>", "eval"), namespace)
            if value is not None and not source.rstrip().endswith(";"):
                result = repr(value)
    except BaseException as exc:
        try:
            text = str(exc)
        except BaseException:
            text = ""
        error = {
            "name": type(exc).__name__,
            "value": text,
            "traceback": "".join(_traceback.format_exception(exc)),
        }
    for stream in (_sys.stdout, _sys.stderr, _sys.__stdout__, _sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass
    payload = _json.dumps({"result": result, "error": error})
    _os.write(1, (marker + payload + "\\n").encode())
"""


def _driver(script: str, marker: str) -> str:
    return f"{_DRIVER}\n_run_cell({cell_source(script)!r}, {marker!r})\n"


def _plain_run(service: Any, script: str, timeout: float) -> tuple[str, Any]:
    marker = f"\n@@mc-e2b-result-{secrets.token_hex(16)}@@"
    request = RunCode(_driver(script, marker), "", "python", timeout, None)
    job = request.job(service.settings.memory_limit)
    return marker, service.pool.submit(job)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _result(text: str) -> dict[str, Any]:
    result = dict.fromkeys(RESULT_FIELDS)
    result.update(text=text, is_main_result=True)
    return result


def _execution(
    results: Sequence[str], stdout: str, stderr: str, error: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "execution": {
            "results": [_result(text) for text in results],
            "logs": {"stdout": [stdout] if stdout else [], "stderr": [stderr] if stderr else []},
            "error": error,
            "execution_count": 1,
        },
        "exception_str": None,
    }


def _failed(why: str) -> dict[str, Any]:
    return {"execution": None, "exception_str": why}


def _why_no_result(run: RunResult, timeout: float) -> str:
    if run.limit in (LimitHit.CPU, LimitHit.WALL):
        return f"the script ran past its time limit ({timeout:g} s)"
    if run.limit is LimitHit.MEMORY:
        return "the script ran out of memory (the server's limit)"
    if run.limit is LimitHit.OUTPUT:
        return "the script wrote more output than the limit"
    if run.signal is not None:
        return f"the script was killed by {run.signal_name}"
    return f"the script ended without a result (status {run.status}, exit {run.exit_code})"


def _cell_answer(run: RunResult, marker: str, timeout: float) -> dict[str, Any]:
    stdout = run.stdout
    at = stdout.rfind(marker.encode())
    if at < 0:
        return _failed(_why_no_result(run, timeout))
    try:
        payload = json.loads(stdout[at + len(marker) :])
    except ValueError:
        return _failed(_why_no_result(run, timeout))
    result = payload.get("result")
    return _execution(
        [result] if isinstance(result, str) else [],
        _text(stdout[:at]),
        _text(run.stderr),
        payload.get("error"),
    )


# --- the batch ---------------------------------------------------------------------------------


def _graded_answer(result: GradeResult) -> dict[str, Any]:
    fraction = result.fraction
    line = f"{result.verdict}: {result.message or 'all tests passed'}" if result.tests else ""
    if not result.passed:
        for index, test in enumerate(result.tests):
            if test.verdict not in (Verdict.AC, Verdict.SKIPPED):
                detail = f": {test.message}" if test.message else ""
                line = f"{result.verdict}: test {index + 1}: {test.verdict}{detail}"
                break
    return _execution([repr(fraction)], line + "\n" if line else "", "", None)


def _problem_error(error: ProblemError) -> dict[str, Any]:
    return _execution(
        [], "", "", {"name": "ProblemError", "value": str(error), "traceback": str(error)}
    )


def _check(request: BatchRequest) -> None:
    if len(request.languages) != len(request.scripts):
        raise Unprocessable(
            [
                {
                    "type": "value_error",
                    "loc": ["body", "languages"],
                    "msg": f"{len(request.languages)} languages for {len(request.scripts)} "
                    "scripts: one language per script",
                    "input": None,
                }
            ]
        )
    if not 0 < request.timeout <= MAX_TIMEOUT:
        raise Unprocessable(
            [
                {
                    "type": "value_error",
                    "loc": ["body", "timeout"],
                    "msg": f"expected seconds in (0, {MAX_TIMEOUT:g}]",
                    "input": request.timeout,
                }
            ]
        )


def _code(literals: tuple[str, str] | None) -> str | None:
    if literals is None:
        return None
    try:
        return _string(literals[0])
    except ValueError:
        return None


def _cases_problem(cache: Any, literal: str) -> Problem | ProblemError:
    """The problem of a script's ``test_cases`` literal (PrimeIntellect's test cases, read by
    the registry)."""
    try:
        cases = json.loads(_string(literal))
    except ValueError as exc:
        return ProblemError(f"test_cases: not a JSON text in a string ({exc})")
    return cache.for_record({"test_cases": cases, "language": "python"})


async def execute_batch(service: Any, body: Any) -> tuple[list[dict[str, Any]], str]:
    """``POST /execute_batch``: one ``ScriptResult`` per script, in order."""
    request: BatchRequest = parse(BatchRequest, body)
    _check(request)
    timeout = float(request.timeout)
    answers: list[dict[str, Any] | None] = [None] * len(request.scripts)
    kinds: Counter[str] = Counter()
    cache = problem_cache(service)
    grader = grader_for(service, early_exit=False, time_limit=TEST_TIME_LIMIT)

    def prepare() -> list[tuple[int, Any, str | None]]:
        """Recognise, decode and submit every script (off the event loop): (index, future,
        the plain run's marker or None for a graded one)."""
        problems: dict[str, Problem | ProblemError] = {}
        waits = []
        for index, (script, language) in enumerate(
            zip(request.scripts, request.languages, strict=True)
        ):
            if language.strip().lower() != "python":
                answers[index] = _failed(
                    f"language {language!r} is not run by this server (python only)"
                )
                kinds["other languages"] += 1
                continue
            literals = open_r1_literals(script)
            code = _code(literals)
            if literals is None or code is None:
                marker, future = _plain_run(service, script, timeout)
                waits.append((index, future, marker))
                continue
            found = problems.get(literals[1])
            if found is None:  # once per distinct test cases (a group shares them)
                found = problems[literals[1]] = _cases_problem(cache, literals[1])
            if isinstance(found, ProblemError):
                answers[index] = _problem_error(found)
                kinds["unreadable tests"] += 1
                continue
            waits.append((index, grader.submit(found, code, "python"), None))
        return waits

    waits = await asyncio.to_thread(prepare)
    outcomes = await asyncio.gather(
        *(asyncio.wrap_future(future) for _, future, _ in waits), return_exceptions=True
    )
    for (index, _, marker), outcome in zip(waits, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            answers[index] = _failed(f"the grader failed: {type(outcome).__name__}: {outcome}")
            kinds["grader failures"] += 1
        elif marker is None:
            answers[index] = _graded_answer(outcome)
            kinds[str(outcome.verdict)] += 1
        else:
            answers[index] = _cell_answer(outcome.runs[0], marker, timeout)
            kinds["plain runs"] += 1
    what = ", ".join(f"{count} {name}" for name, count in sorted(kinds.items()))
    return [a for a in answers if a is not None], f"{len(request.scripts)} scripts: {what}"
