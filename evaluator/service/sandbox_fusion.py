"""SandboxFusion's API, spoken by our grader: ``/run_code`` (one program, one stdin) and
``/submit`` (one completion against a problem's stdin tests, ``CommonOJDataset`` with
``provided_data``).

Request and response fields are SandboxFusion's (its ``RunCodeRequest``/``RunCodeResponse``
and ``SubmitRequest``/``EvalResult``, as its server and its PyPI client define them); the
program runs in our sandbox as a plain run, ``python3 solution.py < stdin``, with
SandboxFusion's ``run_timeout`` as both the CPU and the wall-clock limit and
``memory_limit_MB`` as the memory limit. What differs from SandboxFusion is listed in
README's "Use it as a service" and held by ``tests/service/``:

* a program that writes more than the output limit is stopped there (``Failed``, return
  code -9), where SandboxFusion would keep reading;
* Python and C++ run (C++ built as our grader builds it, ``g++ -std=c++17 -O2``, under the
  server's build limits: ``compile_timeout`` is checked, not used); another language
  SandboxFusion knows answers its error shape (``SandboxError``); a language SandboxFusion
  does not know is a 400.
"""

from __future__ import annotations

import base64
import binascii
import math
import signal
from dataclasses import dataclass, replace
from typing import Any

from evaluator.formats.errors import InputError
from evaluator.formats.sandbox_fusion import FORMAT as COMMON_OJ
from evaluator.harness.stdio import build_program_job
from evaluator.languages import Build, Language, languages
from evaluator.problem import Harness, Problem, TestCase
from evaluator.sandbox import Isolation, Job, LimitHit, Limits, Mode, RunResult
from evaluator.sandbox.environments import PLAIN

from .errors import BadRequest

__all__ = [
    "LANGUAGES",
    "SUPPORTED",
    "RunCode",
    "Submission",
    "compile_failed_response",
    "compile_result",
    "parse_run_code",
    "parse_submit",
    "run_code_response",
    "sandbox_error",
    "unsupported_language",
]

# SandboxFusion's languages (its ``Language`` literal): a request naming another is refused.
LANGUAGES = frozenset(
    {
        "python", "python2", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash",
        "typescript", "sql", "rust", "cuda", "lua", "R", "perl", "D_ut", "ruby", "scala",
        "julia", "pytest", "junit", "kotlin_script", "jest", "verilog", "python_gpu", "lean",
        "swift", "racket", "gtest", "react",
    }
)  # fmt: skip
# What this server runs: Python, and each of our compiled languages SandboxFusion names alike.
SUPPORTED = frozenset(
    {"python"} | {name for name, lang in languages().items() if lang.compiled and name in LANGUAGES}
)
DEFAULT_TIMEOUT = 10.0  # seconds: SandboxFusion's default compile and run timeouts
MAX_TIMEOUT = 600.0  # seconds: a request asking more is refused rather than held


@dataclass(frozen=True, slots=True)
class RunCode:
    """A ``/run_code`` request, checked."""

    code: str
    stdin: str
    language: str
    run_timeout: float
    memory_mb: int | None

    def limits(self, default_memory_mb: int) -> Limits:
        return Limits(
            cpu_time=self.run_timeout,
            wall_time=self.run_timeout,
            memory_mb=self.memory_mb or default_memory_mb,
        )

    def program_job(self, build: Build, language: Language, default_memory_mb: int) -> Job:
        """The built program run on ``stdin`` (``./solution < stdin``), as a grader runs it."""
        problem = Problem("run_code", Harness.STDIN, [TestCase(self.stdin, "")])
        return build_program_job(problem, build, language, self.limits(default_memory_mb))

    def job(self, default_memory_mb: int) -> Job:
        """The plain run of ``code`` on ``stdin`` (a fresh process: one test)."""
        limits = self.limits(default_memory_mb)
        return Job(
            code=self.code,
            inputs=[self.stdin],
            mode=Mode.STDIN,
            limits=limits,
            isolation=Isolation.TEST,
            preamble=PLAIN.stdin_preamble,
            environment=PLAIN.overrides(),
        )


@dataclass(frozen=True, slots=True)
class Submission:
    """A ``/submit`` request, checked: the completion and its problem."""

    id: str | int
    completion: str
    problem: Problem


def _field(body: dict[str, Any], name: str, kinds: tuple[type, ...], default: Any) -> Any:
    value = body.get(name, default)
    if value is None and default is None:
        return None
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        names = "/".join(k.__name__ for k in kinds)
        raise BadRequest(f"field {name!r}: expected {names}, got {type(value).__name__}")
    return value


def _timeout(body: dict[str, Any], name: str) -> float:
    value = float(_field(body, name, (int, float), DEFAULT_TIMEOUT))
    if not math.isfinite(value) or value <= 0:
        raise BadRequest(f"field {name!r}: expected a positive number of seconds, got {value}")
    if value > MAX_TIMEOUT:
        raise BadRequest(f"field {name!r}: at most {MAX_TIMEOUT:g} seconds, got {value:g}")
    return value


def _language(body: dict[str, Any]) -> str:
    if "language" not in body:
        raise BadRequest("missing field 'language'")
    language = _field(body, "language", (str,), None)
    if language not in LANGUAGES:
        raise BadRequest(f"field 'language': unknown language {language!r}")
    return language


def parse_run_code(body: Any) -> RunCode:
    """The checked request, or :class:`BadRequest` naming the field."""
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    if "code" not in body:
        raise BadRequest("missing field 'code'")
    code = _field(body, "code", (str,), None)
    stdin = _field(body, "stdin", (str,), "") or ""
    language = _language(body)
    run_timeout = _timeout(body, "run_timeout")
    _timeout(body, "compile_timeout")  # checked; builds run under the server's build limits
    memory = _field(body, "memory_limit_MB", (int,), -1)
    files = _field(body, "files", (dict,), {})
    for path, content in files.items():
        if content is not None:  # SandboxFusion: base64 text, None for an empty file
            try:
                base64.b64decode(content, validate=True)
            except (binascii.Error, TypeError, ValueError):
                raise BadRequest(f"field 'files': {path!r} is not base64 text") from None
    if files:
        raise BadRequest("field 'files': files are not supported by this server")
    _field(body, "fetch_files", (list,), [])
    return RunCode(code, stdin, language, run_timeout, memory if memory > 0 else None)


def unsupported_language(language: str) -> dict[str, Any]:
    """SandboxFusion's answer for a language it knows and this server does not run."""
    supported = ", ".join(sorted(SUPPORTED))
    return sandbox_error(f"language {language!r} is not supported by this server ({supported})")


def sandbox_error(message: str) -> dict[str, Any]:
    """SandboxFusion's answer when its sandbox, not the program, failed."""
    return {
        "status": "SandboxError",
        "message": message,
        "compile_result": None,
        "run_result": None,
        "executor_pod_name": None,
        "files": {},
    }


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _return_code(run: RunResult) -> int:
    """The exit status a plain run would report (``subprocess``'s convention: minus the
    signal for a killed process)."""
    if run.status == "ok":
        return 0
    if run.status == "exit":
        return run.exit_code if run.exit_code is not None else 0
    if run.status in ("exception", "compile"):
        return 1  # CPython prints the traceback and exits 1
    if run.signal is not None:
        return -run.signal
    return run.exit_code if run.exit_code is not None else -signal.SIGKILL


def command_result(run: RunResult) -> dict[str, Any]:
    """SandboxFusion's ``CommandRunResult`` of one run."""
    timed_out = run.limit in (LimitHit.CPU, LimitHit.WALL)
    if run.limit in (LimitHit.MEMORY, LimitHit.OUTPUT) and run.status not in ("exception",):
        code = -signal.SIGKILL  # stopped by the sandbox at the limit
    else:
        code = _return_code(run)
    return {
        "status": "TimeLimitExceeded" if timed_out else "Finished",
        "execution_time": round(run.wall_time, 6),
        "cpu_time": round(run.cpu_time, 6),
        "return_code": None if timed_out else code,
        "stdout": _text(run.stdout),
        "stderr": _text(run.stderr),
    }


def compile_result(build: Build) -> dict[str, Any]:
    """SandboxFusion's ``CommandRunResult`` of a build: return code 0 when it built, else 1
    with the compiler's diagnostics (or the limit it ran into) on stderr."""
    stderr = build.output if build.output or build.ok else build.message
    return {
        "status": "Finished",
        "execution_time": round(build.seconds, 6),
        "cpu_time": None,
        "return_code": 0 if build.ok else 1,
        "stdout": "",
        "stderr": stderr,
    }


def compile_failed_response(build: Build) -> dict[str, Any]:
    """SandboxFusion's answer for a program that does not build: ``Failed``, the compile
    result, no run."""
    return {
        "status": "Failed",
        "message": build.message,
        "compile_result": compile_result(build),
        "run_result": None,
        "executor_pod_name": None,
        "files": {},
    }


def run_code_response(run: RunResult, build: Build | None = None) -> dict[str, Any]:
    """SandboxFusion's ``RunCodeResponse`` for a run (of a built program: with its
    ``build``'s compile result): ``Success`` when it ended with status 0 within its limits,
    else ``Failed``."""
    result = command_result(run)
    failed = result["status"] != "Finished" or result["return_code"] != 0
    return {
        "status": "Failed" if failed else "Success",
        "message": "",
        "compile_result": None if build is None else compile_result(build),
        "run_result": result,
        "executor_pod_name": None,
        "files": {},
    }


# --- /submit -----------------------------------------------------------------------------------

_DATASET_TYPES = frozenset({"CommonOJDataset"})


def parse_submit(body: Any) -> tuple[Submission, dict[str, Any]]:
    """The checked ``/submit`` request and its ``config``. Only problems given in the
    request are graded (``config.provided_data`` with ``test``: SandboxFusion's
    ``CommonOJDataset`` rows, ``[{"input": {"stdin": ...}, "output": {"stdout": ...}}]``):
    this server holds no datasets."""
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    for name in ("dataset", "id", "completion", "config"):
        if name not in body:
            raise BadRequest(f"missing field {name!r}")
    completion = _field(body, "completion", (str,), None)
    config = _field(body, "config", (dict,), None)
    problem_id = body["id"]
    if not isinstance(problem_id, str | int) or isinstance(problem_id, bool):
        raise BadRequest("field 'id': expected a string or an integer")
    dataset_type = config.get("dataset_type") or "CommonOJDataset"
    if dataset_type not in _DATASET_TYPES:
        raise BadRequest(
            f"field 'config.dataset_type': {dataset_type!r} is not served here "
            "(CommonOJDataset with config.provided_data; or use /grade)"
        )
    language = config.get("language")
    if language is None:
        raise BadRequest("missing field 'config.language'")
    if language not in LANGUAGES:
        raise BadRequest(f"field 'config.language': unknown language {language!r}")
    data = config.get("provided_data")
    if not isinstance(data, dict) or "test" not in data:
        raise BadRequest(
            "field 'config.provided_data': expected an object with 'test' (this server holds "
            "no datasets: give the problem's tests in the request)"
        )
    run_timeout = config.get("run_timeout")
    time_limit = _timeout({"t": run_timeout}, "t") if run_timeout is not None else None
    try:  # the registry's reader of SandboxFusion's problems (evaluator.formats.sandbox_fusion)
        problem = COMMON_OJ.read({"id": problem_id, "test": data["test"]}, None)
    except InputError as exc:
        raise BadRequest(f"field 'config.provided_data.{exc.field}': {exc.message}") from None
    problem = replace(problem, time_limit=time_limit, environment=PLAIN.name)
    return Submission(problem_id, completion, problem), config
