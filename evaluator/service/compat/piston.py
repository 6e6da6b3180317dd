"""Piston's execute API for open-r1's Codeforces reward, spoken by our grader:
``POST /api/v2/execute`` and ``GET /api/v2/runtimes``.

open-r1 (``huggingface/open-r1@1416fa0``) grades Codeforces submissions through Piston
workers running guipenedo's ``codeforces`` package (``guipenedo/piston@7a38da2``,
``packages/codeforces/1.0.0/``). Its client (``src/open_r1/utils/competitive_programming/
piston_client.py`` L137-198) posts, per test (``cf_scoring.py`` L12-55), to
``{PISTON_ENDPOINTS}/execute``::

    {"language": "cf_python3" | "c++17", "version": "*",
     "files": [{"name": "main.python" | "main.cpp", "content": <the submission>},
               {"name": "checker.py", "content": <generated_checker>}?,
               {"name": "input.txt", ...}, {"name": "correct_output.txt", ...},
               {"name": "grader_config", "content": "TIME_LIMIT=2.0\\nMEMORY_LIMIT=256.0\\n
                                                      INPUT_MODE=stdio"}],
     "run_timeout": (time_limit + 10) * 1000}

and counts the test passed when ``run.code == 0`` and ``run.stdout.strip() == "1"``, the
submission a compile failure when ``compile.code != 0``. This endpoint implements that
package's ``compile`` and ``run`` with our sandbox and our grader:

* the first ``utf8`` file is the program: Python (``python3``, alias ``cf_python3``, no
  compile step) or C++ (``c++``, ``c++0x``, ``c++11``, ``c++14``, ``c++17``, ``c++20`` and
  their aliases: ``g++ -std=... -O2 -DONLINE_JUDGE``, built once per source); ``version``
  ``*`` or one 1.0.0 satisfies;
* with ``correct_output.txt``, the one test is graded as our ``codeforces`` format grades
  an open-r1/codeforces test (``docs/datasets.md``): ``TIME_LIMIT`` (CPU seconds; else
  ``run_timeout``, else the grading default), ``MEMORY_LIMIT`` (MB; else
  ``run_memory_limit``, else the server's ceiling), ``INPUT_MODE=file`` (``input.txt`` /
  ``output.txt``), the answer compared by the package's rule (yes/no in any case, tokens)
  or by ``checker.py`` (``checker.py input correct_output output``, 1 or 100 accepts). The
  run answers as the package does: ``stdout`` ``1`` (passed) or ``0``, exit code 0, or 124
  (time limit), 134 (memory limit), the program's or the checker's non-zero status; a
  program that does not build answers ``compile.code`` 1 with the compiler's diagnostics
  (and ``run`` the same, as Piston does when no run stage starts). A second ``stderr`` line
  gives our verdict and why;
* without ``correct_output.txt``, the program runs on ``input.txt`` and its output (empty
  lines dropped) is ``run.stdout``, as the package's run mode (stdio only here).

``checker.py`` is the problem setter's code. A server started with ``--trust-checkers``
runs it as the grader runs a Codeforces checker (outside the sandbox profile, with rlimits:
:mod:`evaluator.judges.cf_checker`); otherwise it runs **inside the sandbox**, in a job of
its own in the server's pool (a python checker job: the three files written in its run
directory, ``checker.py`` executed as ``__main__`` with its three arguments, its stdout
captured), with the same verdicts. A test whose judge itself failed (a checker that hangs
past 10 s, dies or runs out of memory) answers ``run.status`` ``"XX"`` (Piston's internal
error), ``code`` null and the reason in ``run.message``: never the program's ``1``.

Errors are Piston's: 400 ``{"message": ...}`` (with our ``error`` beside it) naming the
field (``language is required as a string``, ``files[0].content is required as a string``,
``<language>-<version> runtime is unknown``, a ``grader_config`` value that is not a
number). Not covered: the other runtimes (``cms_ioi`` for open-r1's IOI reward, the
package's Java and Kotlin, Piston's stock languages), ``stdin`` and ``args`` (the package
reads ``input.txt``), package management (``/api/v2/packages``) and the websocket
``/api/v2/connect``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import math
import re
import signal
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from evaluator.formats.sources.codeforces import CPP_FLAGS
from evaluator.languages import get_language
from evaluator.languages.builds import Builder
from evaluator.problem import DEFAULT_TIME_LIMIT, Problem, Verdict
from evaluator.reward.columns import ProblemError, problem_of_record
from evaluator.runner import GradeResult
from evaluator.sandbox import LimitHit, RunResult

from ..cancel import graded
from ..errors import BadRequest
from ..grade_endpoint import check_client_problems
from ..graders import grader_for
from .sandbox_fusion import RunCode

__all__ = ["RUNTIMES", "execute", "runtimes_endpoint", "sandboxed_checker", "with_message"]

VERSION = "1.0.0"
PACKAGE = "codeforces"


@dataclass(frozen=True, slots=True)
class Runtime:
    """One language the ``codeforces`` package provides and this server runs."""

    language: str
    aliases: tuple[str, ...]
    ours: str  # our language's name
    flags: tuple[str, ...] = ()  # C++ build flags (the package's compile script)

    def listed(self) -> dict[str, Any]:
        return {
            "language": self.language,
            "version": VERSION,
            "aliases": list(self.aliases),
            "runtime": PACKAGE,
        }


def _cpp(language: str, aliases: tuple[str, ...], std: str | None) -> Runtime:
    flags = (*((f"-std={std}",) if std else ()), "-O2", "-DONLINE_JUDGE")
    return Runtime(language, aliases, "cpp", flags)


RUNTIMES = (
    _cpp("c++", ("GNU C++", "cf_c++"), None),
    _cpp("c++0x", ("GNU C++0x", "cf_c++0x"), "c++0x"),
    _cpp("c++11", ("GNU C++11", "cf_c++11"), "c++11"),
    _cpp("c++14", ("C++14 (GCC 6-32)", "cf_c++14"), "c++14"),
    _cpp("c++17", ("C++17 (GCC 7-32)", "C++17 (GCC 9-64)", "cf_c++17"), "c++17"),
    _cpp("c++20", ("C++20 (GCC 11-64)", "C++20 (GCC 13-64)", "cf_c++20"), "c++20"),
    Runtime("python3", ("Python 3", "cf_python3"), "python"),
)
"""The ``codeforces`` package's languages run here (its ``metadata.json``; not Java, Kotlin)."""
assert RUNTIMES[4].flags == CPP_FLAGS  # c++17: what the codeforces format builds


def trust_runtimes(builder: Builder) -> None:
    """Count the runtimes' build flags among the grader's own on ``builder`` (they are this
    module's, never a client's): their builds, and a graded test's whose problem carries
    them, share a prepared header."""
    for runtime in RUNTIMES:
        if runtime.flags:
            builder.trust(get_language(runtime.ours), runtime.flags)


def _satisfied(selector: str) -> bool:
    """Whether version 1.0.0 satisfies ``selector`` (the forms clients send: ``*``, ``x``,
    ``1``, ``1.0``, ``1.0.0``, ``1.x``, with ``^``, ``~``, ``=``, ``>=`` or ``v`` before)."""
    text = selector.strip()
    if text in ("*", "x", "X", ""):
        return True
    for prefix in (">=", "^", "~", "=", "v"):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
            if prefix == ">=":
                parts = text.split(".")
                return all(p.isdigit() for p in parts) and tuple(map(int, parts)) <= (1, 0, 0)
            break
    parts = text.split(".")
    if len(parts) > 3:
        return False
    return all(
        want in ("x", "X", "*") or want == have
        for want, have in zip(parts, "100"[: len(parts)], strict=True)
    )


def _runtime(language: str, version: str) -> Runtime:
    for runtime in RUNTIMES:
        named = language == runtime.language or language in runtime.aliases
        if named and _satisfied(version):
            return runtime
    served = ", ".join(r.language for r in RUNTIMES)
    raise BadRequest(
        f"{language}-{version} runtime is unknown (this server runs the {PACKAGE} package's "
        f"{served}, version {VERSION}: GET /api/v2/runtimes)"
    )


# --- the request -------------------------------------------------------------------------------

_LIMITS = tuple(
    f"{stage}_{kind}"
    for kind in ("memory_limit", "timeout", "cpu_time")
    for stage in ("compile", "run")
)


@dataclass(frozen=True, slots=True)
class Execute:
    """A checked ``/execute`` body."""

    runtime: Runtime
    program: str
    files: dict[str, str]  # by name (the program's own file included)
    run_timeout: float | None  # ms
    run_memory_limit: float | None  # bytes


def _content(file: Mapping[str, Any], index: int) -> tuple[str, bool]:
    """A file's text (bytes as surrogate escapes) and whether it is ``utf8``."""
    content = file["content"]
    encoding = file.get("encoding")
    if encoding not in ("base64", "hex"):  # Piston: anything else is utf8
        return content, True
    try:
        data = (
            base64.b64decode(content, validate=True)
            if encoding == "base64"
            else (bytes.fromhex(content))
        )
    except (binascii.Error, ValueError):
        raise BadRequest(f"files[{index}].content is not {encoding} text") from None
    return data.decode("utf-8", "surrogateescape"), False


def parse_execute(body: Any) -> Execute:
    """The checked request; :class:`BadRequest` with Piston's message otherwise."""
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    for name in ("language", "version"):
        if not isinstance(body.get(name), str) or not body[name]:
            raise BadRequest(f"{name} is required as a string")
    files = body.get("files")
    if not isinstance(files, list):
        raise BadRequest("files is required as an array")
    for index, file in enumerate(files):
        if not isinstance(file, dict) or not isinstance(file.get("content"), str):
            raise BadRequest(f"files[{index}].content is required as a string")
    runtime = _runtime(body["language"], body["version"])
    for name in _LIMITS:
        value = body.get(name)
        if not value:  # Piston skips 0, null and absent
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadRequest(f"If specified, {name} must be a number")
        if value < 0 or not math.isfinite(value):
            raise BadRequest(f"{name} must be non-negative")
    named: dict[str, str] = {}
    program = None
    for index, file in enumerate(files):
        text, utf8 = _content(file, index)
        name = file.get("name") if isinstance(file.get("name"), str) else None
        named[name or f"file{index}.code"] = text
        if utf8 and program is None:
            program = text
    if program is None:
        raise BadRequest("files must include at least one utf8 encoded file")
    return Execute(
        runtime,
        program,
        named,
        body.get("run_timeout") or None,
        body.get("run_memory_limit") or None,
    )


def grader_config(text: str) -> dict[str, str]:
    """``grader_config``'s ``KEY=VALUE`` lines (the package ``source``\\ s it with bash)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def _number(config: Mapping[str, str], key: str) -> float | None:
    value = config.get(key)
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except ValueError:
        raise BadRequest(f"grader_config: {key}={value!r} is not a number") from None
    if not math.isfinite(number) or number <= 0:
        raise BadRequest(f"grader_config: {key}={value!r} must be a positive number")
    return number


# --- the checker inside the sandbox ------------------------------------------------------------

_SANDBOXED_CHECKER = '''\
import io as _io, re as _re, sys as _sys, traceback as _traceback

_SOURCE = {source!r}


def _lines(text):
    return "".join(line + "\\n" for line in text.split("\\n") if line)


def check(input, output, expected):
    """open-r1's checker.py convention, run in this sandboxed process."""
    head, newline, tail = output.rpartition("\\n")
    files = {{
        "input.txt": input,
        "correct_output.txt": _lines(_re.sub("\\r(?=\\n|\\\\Z)", "", expected)),
        "output.txt": (_lines(head) if newline else "") + tail,
    }}
    for name, text in files.items():
        with open(name, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
    argv, stdout = _sys.argv, _sys.stdout
    captured = _io.StringIO()
    _sys.argv = ["checker.py", "input.txt", "correct_output.txt", "output.txt"]
    _sys.stdout = captured
    status, last = 0, ""
    try:
        code = compile(_SOURCE, "checker.py", "exec")
        exec(code, {{"__name__": "__main__", "__file__": "checker.py",
                     "__builtins__": __builtins__}})
    except SystemExit as exc:
        status = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    except MemoryError:
        raise
    except BaseException as exc:
        status, last = 1, _traceback.format_exception_only(exc)[-1].strip()
    finally:
        _sys.argv, _sys.stdout = argv, stdout
    printed = captured.getvalue().strip()
    if status == 0 and printed in ("1", "100"):
        return True
    if status == 0:
        return [False, "rejected by the checker: it printed " + repr(printed[:80])]
    why = "rejected by the checker: it exited with status %d" % status
    return [False, why + (": " + last if last else "")]
'''


def sandboxed_checker(source: str) -> dict[str, Any]:
    """A python checker spec that runs the Codeforces ``checker.py`` ``source`` by open-r1's
    convention inside the sandbox (the files as piston writes them; AC when it exits 0
    having printed 1 or 100, WA otherwise; a checker out of memory, past its limit or killed
    is an ERROR)."""
    return {"type": "python", "code": _SANDBOXED_CHECKER.format(source=source)}


# --- the answer --------------------------------------------------------------------------------


def _stage(
    stdout: str,
    stderr: str,
    code: int | None,
    *,
    status: str | None = None,
    message: str | None = None,
    cpu: float | None = None,
    wall: float | None = None,
    memory_kb: int | None = None,
) -> dict[str, Any]:
    return {
        "stdout": stdout,
        "stderr": stderr,
        "output": stdout + stderr,
        "code": code,
        "signal": None,
        "message": message,
        "status": status if status is not None else ("RE" if code else None),
        "memory": None if memory_kb is None else memory_kb * 1024,
        "cpu_time": None if cpu is None else round(cpu * 1000),
        "wall_time": None if wall is None else round(wall * 1000),
    }


_STATUS = re.compile(r"(?:exit(?:ed with)? status) (-?\d+)")
_SIGNAL = re.compile(r"killed by (SIG[A-Z0-9]+)")


def _exit_code(message: str, default: int = 1) -> int:
    """The exit status bash would see for a run our message describes."""
    found = _STATUS.search(message)
    if found:
        return int(found.group(1)) & 0xFF or default
    found = _SIGNAL.search(message)
    if found:
        try:
            return 128 + signal.Signals[found.group(1)].value
        except KeyError:
            return default
    return default


def _compile_ok(runtime: Runtime) -> dict[str, Any]:
    if runtime.ours == "python":
        return _stage(f"Skipping compile - {runtime.language}\n", "", 0)
    return _stage("", "", 0)


def judged_answer(
    runtime: Runtime, problem: Problem, result: GradeResult, checker: bool
) -> tuple[dict[str, Any], str]:
    """The package's answer for one judged test, and our verdict line."""
    test = result.tests[0] if result.tests else None
    verdict = test.verdict if test is not None else result.verdict
    message = (test.message if test is not None else "") or result.message
    note = f"{verdict}: {message}" if message else str(verdict)
    figures = {}
    if test is not None:
        figures = {"cpu": test.cpu_time, "wall": test.wall_time, "memory_kb": test.peak_memory_kb}
    answer: dict[str, Any] = {"language": runtime.language, "version": VERSION}
    if verdict is Verdict.CE:
        diagnostics = (test.stderr if test is not None else "") or message
        answer["compile"] = _stage("", diagnostics + "\n", 1)
        answer["run"] = answer["compile"]
        return answer, note
    answer["compile"] = _compile_ok(runtime)
    how = "checker" if checker else "diff"
    if verdict is Verdict.AC:
        run = _stage("1\n", f"Output is correct ({how})\n", 0, **figures)
    elif verdict in (Verdict.WA, Verdict.NO_CODE):  # no code: a wrong answer, as Piston's
        code = _exit_code(message, 0) if "exited with status" in message else 0
        run = _stage("0\n", f"Output isn't correct ({how})\n{note}\n", code, **figures)
    elif verdict is Verdict.TLE:
        limit = f"Time limit exceeded ({problem.time_limit or ''}s)"
        run = _stage("0\n", f"{limit}\n{note}\n", 124, **figures)
    elif verdict is Verdict.MLE:
        limit = f"Memory limit exceeded ({problem.memory_limit or ''}MB)"
        run = _stage("0\n", f"{limit}\n{note}\n", 134, **figures)
    elif verdict in (Verdict.RE, Verdict.OLE):
        code = _exit_code(message)
        run = _stage("0\n", f"Runtime error with exit code {code}\n{note}\n", code, **figures)
    else:  # ERROR (the judge failed) or anything unforeseen: no verdict on the program
        run = _stage("", f"{note}\n", None, status="XX", message=note, **figures)
    answer["run"] = run
    return answer, note


def _problem(request: Execute, config: Mapping[str, str], trust: bool) -> Problem:
    files = request.files
    time_limit = _number(config, "TIME_LIMIT")
    if time_limit is None and request.run_timeout:
        time_limit = request.run_timeout / 1000
    memory_limit = _number(config, "MEMORY_LIMIT")
    if memory_limit is None and request.run_memory_limit and request.run_memory_limit > 0:
        memory_limit = request.run_memory_limit / (1 << 20)
    checker = files.get("checker.py")
    record = {
        "id": "piston",
        "official_tests": [
            {"input": files.get("input.txt", ""), "output": files["correct_output.txt"]}
        ],
        "time_limit": time_limit,
        "memory_limit": memory_limit,
        "input_mode": "file" if config.get("INPUT_MODE") == "file" else "stdio",
        "generated_checker": checker,
    }
    try:
        problem = problem_of_record(record)
    except ProblemError as exc:
        raise BadRequest(str(exc)) from None
    if checker and not trust:
        problem = replace(problem, judge=sandboxed_checker(checker))
    if request.runtime.flags:
        metadata = {**problem.metadata, "cpp_flags": list(request.runtime.flags)}
        problem = replace(problem, metadata=metadata)
    try:
        check_client_problems([problem], trust)
    except BadRequest as exc:
        raise BadRequest(f"grader_config or limits: {exc}") from None
    return problem


def _drop_empty_lines(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return "".join(line + "\n" for line in text.split("\n") if line)


def _run_answer(request: Execute, run: RunResult, timeout: float) -> dict[str, Any]:
    """The package's run mode (no ``correct_output.txt``): the program's output."""
    runtime = request.runtime
    figures = {"cpu": run.cpu_time, "wall": run.wall_time, "memory_kb": run.peak_memory_kb}
    answer: dict[str, Any] = {"language": runtime.language, "version": VERSION}
    answer["compile"] = _compile_ok(runtime)
    if run.limit in (LimitHit.CPU, LimitHit.WALL):
        answer["run"] = _stage("0\n", f"Time limit exceeded ({timeout:g}s)\n", 124, **figures)
    elif run.limit is LimitHit.MEMORY:
        answer["run"] = _stage("0\n", "Memory limit exceeded\n", 134, **figures)
    elif run.status == "ok" or (run.status == "exit" and run.exit_code == 0):
        answer["run"] = _stage(_drop_empty_lines(run.stdout), "", 0, **figures)
    else:
        code = run.exit_code if run.status == "exit" and run.exit_code else 1
        if run.signal is not None:
            code = 128 + run.signal
        stderr = f"Runtime error with exit code {code}\n"
        answer["run"] = _stage("0\n", stderr, code, **figures)
    return answer


async def _run_mode(service: Any, request: Execute, config: Mapping[str, str]) -> dict[str, Any]:
    if config.get("INPUT_MODE") == "file":
        raise BadRequest(
            "INPUT_MODE=file without correct_output.txt (the package's run mode with files) "
            "is not supported by this server"
        )
    timeout = _number(config, "TIME_LIMIT") or (
        request.run_timeout / 1000 if request.run_timeout else DEFAULT_TIME_LIMIT
    )
    memory = _number(config, "MEMORY_LIMIT")
    job_request = RunCode(
        request.program,
        request.files.get("input.txt", ""),
        "python",
        timeout,
        None if memory is None else max(32, math.ceil(memory)),
    )
    runtime = request.runtime
    if runtime.ours == "python":
        job = job_request.job(service.settings.memory_limit)
    else:
        language = get_language(runtime.ours)
        build = await asyncio.wrap_future(
            service.builder.submit(language, request.program, runtime.flags)
        )
        if not build.ok:
            answer = {"language": runtime.language, "version": VERSION}
            answer["compile"] = _stage("", (build.output or build.message) + "\n", 1)
            answer["run"] = answer["compile"]
            return answer
        job = job_request.program_job(build, language, service.settings.memory_limit)
    result = await asyncio.wrap_future(service.pool.submit(job))
    return _run_answer(request, result.runs[0], timeout)


async def execute(service: Any, body: Any) -> tuple[dict[str, Any], str]:
    """``POST /api/v2/execute``: the ``codeforces`` package's run of one test."""
    request = parse_execute(body)
    config = grader_config(request.files.get("grader_config", ""))
    if "correct_output.txt" not in request.files:
        answer = await _run_mode(service, request, config)
        return answer, f"{request.runtime.language}: run, exit {answer['run']['code']}"
    trust = service.settings.trust_checkers
    problem = _problem(request, config, trust)
    grader = grader_for(service, early_exit=True)
    result = await graded(grader.submit(problem, request.program, request.runtime.ours))
    checker = "checker.py" in request.files
    answer, note = judged_answer(request.runtime, problem, result, checker)
    where = "" if not checker else " (checker trusted)" if trust else " (checker sandboxed)"
    return answer, f"{request.runtime.language}: {note}{where}"[:300]


# --- the endpoints' wrappers -------------------------------------------------------------------


def with_message(
    endpoint: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """``endpoint`` (one of the server's, whose errors are ``{"error": line}``) with Piston's
    error shape added: the same line as ``message``, which Piston's clients read."""

    async def piston_endpoint(request: Request) -> Response:
        response = await endpoint(request)
        if response.status_code < 400 or response.media_type != "application/json":
            return response
        try:
            payload = orjson.loads(response.body)
        except orjson.JSONDecodeError:
            return response
        if isinstance(payload, dict) and "error" in payload:
            payload.setdefault("message", payload["error"])
        headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
        return Response(
            orjson.dumps(payload),
            status_code=response.status_code,
            media_type="application/json",
            headers=headers,
        )

    return piston_endpoint


def runtimes_endpoint(
    authorised: Callable[[Request], bool],
) -> Callable[[Request], Awaitable[Response]]:
    """``GET /api/v2/runtimes`` (behind the server's token, checked by ``authorised``)."""
    listed = orjson.dumps([runtime.listed() for runtime in RUNTIMES])

    async def runtimes(request: Request) -> Response:
        if not authorised(request):
            body = orjson.dumps({"message": "bad or missing bearer token"})
            headers = {"WWW-Authenticate": "Bearer"}
            return Response(body, 401, media_type="application/json", headers=headers)
        return Response(listed, media_type="application/json")

    return runtimes
