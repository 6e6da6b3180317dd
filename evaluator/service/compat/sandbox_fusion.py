"""SandboxFusion's API, spoken by our grader: ``/run_code`` (one program, one stdin) and
``/submit`` (one completion against a problem's stdin tests, ``CommonOJDataset`` with
``provided_data``), their handlers :func:`run_code` and :func:`submit`.

Request and response fields are SandboxFusion's (its ``RunCodeRequest``/``RunCodeResponse``
and ``SubmitRequest``/``EvalResult``, as its server and its PyPI client define them); the
program runs in our sandbox as a plain run, ``python3 solution.py < stdin``, with
SandboxFusion's ``run_timeout`` as both the CPU and the wall-clock limit and
``memory_limit_MB`` as the memory limit. What differs from SandboxFusion is listed in
``docs/service.md`` and held by ``tests/service/``:

* a program that writes more than the output limit is stopped there (``Failed``, return
  code -9), where SandboxFusion would keep reading;
* Python, ``pytest`` (a test file run by pytest: :func:`~evaluator.harness.pytest_file.
  pytest_program`) and each language of :mod:`evaluator.languages` a tag names run (a
  compiled one built as our grader builds it, within ``compile_timeout`` when the request
  gives one, else the server's build limits); another language SandboxFusion knows answers
  its error shape (``SandboxError``); a language SandboxFusion does not know is a 422;
* ``files`` are written into the program's run directory before it starts and
  ``fetch_files`` read back from it after (the sandbox's ``Job.files``/``fetch_files``):
  relative paths below it only, regular files only, :data:`ANSWER_OUTPUT` bytes in all.
"""

from __future__ import annotations

import asyncio
import base64
import signal
from dataclasses import dataclass, field, replace
from typing import Any, get_args

from evaluator.formats.errors import InputError
from evaluator.formats.sources.sandbox_fusion import FORMAT as COMMON_OJ
from evaluator.harness.environments import PLAIN
from evaluator.harness.pytest_file import pytest_installed, pytest_program
from evaluator.harness.stdio import build_program_job
from evaluator.judges import JUDGES
from evaluator.languages import Build, BuildLimits, Language, get_language, languages
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, GradeResult, TestResult
from evaluator.runner.answers import resolve_program
from evaluator.sandbox import Isolation, Job, LimitHit, Limits, Mode, RunResult

from ..cancel import graded
from ..errors import BadRequest
from ..grade_endpoint import check_client_problems
from .fusion_requests import (
    Language as FusionLanguage,
)
from .fusion_requests import (
    RunCodeRequest,
    SubmitRequest,
    given_files,
    parse,
)

__all__ = [
    "LANGUAGES",
    "SUBMIT_TIMEOUT",
    "SUPPORTED",
    "RunCode",
    "Submission",
    "compile_failed_response",
    "compile_result",
    "fusion_source",
    "parse_run_code",
    "parse_submit",
    "run_code_response",
    "run_code",
    "run_language",
    "sandbox_error",
    "submit",
    "unsupported_language",
]

# SandboxFusion's languages (its ``Language`` literal): a request naming another is refused.
LANGUAGES = frozenset(get_args(FusionLanguage))
# What this server runs: Python; pytest files where pytest is installed (a Python program
# here: the file, run by pytest, SandboxFusion's ``pytest f.py``); and each SandboxFusion tag
# one of our compiled languages answers to by its name or a tag, in any case as every lookup
# of a language is (``nodejs`` is JavaScript, ``D_ut`` D's unit tests).
PYTHON_PROGRAMS = {"pytest": pytest_program}
SUPPORTED = frozenset(
    {"python"}
    | ({"pytest"} if pytest_installed() else set())
    | {
        tag
        for lang in languages().values()
        if lang.compiled
        for tag in LANGUAGES
        if tag.lower() in (lang.name, *lang.fence_tags)
    }
)


@dataclass(frozen=True, slots=True)
class RunCode:
    """A ``/run_code`` request, checked."""

    code: str
    stdin: str
    language: str
    run_timeout: float
    memory_limit: int | None  # MB (SandboxFusion's memory_limit_MB); None: the server's
    compile_timeout: float | None = None  # given by the client: else the server's limits
    files: dict[str, bytes] = field(default_factory=dict)
    fetch_files: tuple[str, ...] = ()

    def build_limits(self, default: BuildLimits) -> BuildLimits:
        """The build's limits: SandboxFusion's ``compile_timeout`` is the compiler's
        wall-clock limit (``asyncio.wait_for`` around it, ``sandbox/runners/base.py``); here
        the build's wall and CPU time, when the request gives it, else ``default``."""
        if self.compile_timeout is None:
            return default
        return replace(default, time_limit=self.compile_timeout, wall_limit=self.compile_timeout)

    def with_files(self, job: Job) -> Job:
        """``job`` with the request's files to write and to read back (a stdin job's)."""
        job.files, job.fetch_files = dict(self.files), list(self.fetch_files)
        job.fetch_bytes = ANSWER_OUTPUT
        return job

    def limits(self, default_memory_limit: int) -> Limits:
        return Limits(
            time_limit=self.run_timeout,
            wall_limit=self.run_timeout,
            wall_counts_wait=True,  # a client's deadline, as SandboxFusion's asyncio timeout
            memory_limit=self.memory_limit or default_memory_limit,
        )

    def program_job(self, build: Build, language: Language, default_memory_limit: int) -> Job:
        """The built program run on ``stdin`` (``./solution < stdin``), as a grader runs it."""
        problem = Problem("run_code", Harness.STDIN, [TestCase(self.stdin, "")])
        job = build_program_job(problem, build, language, self.limits(default_memory_limit))
        return self.with_files(job)

    def job(self, default_memory_limit: int) -> Job:
        """The plain run of ``code`` on ``stdin`` (a fresh process: one test)."""
        limits = self.limits(default_memory_limit)
        job = Job(
            code=self.code,
            inputs=[self.stdin],
            mode=Mode.STDIN,
            limits=limits,
            isolation=Isolation.TEST,
            names=PLAIN.stdin_names,
            environment=PLAIN.overrides(),
        )
        return self.with_files(job)


@dataclass(frozen=True, slots=True)
class Submission:
    """A ``/submit`` request, checked: the completion and its problem."""

    id: str | int
    completion: str
    problem: Problem


def fusion_source(language: str, code: str) -> str:
    """The program SandboxFusion runs for ``code`` in ``language``: PHP's stripped of its
    leading blanks and given a ``<?php`` line first when it does not start with the tag
    (its ``run_php``: ``ensure_php_tag_in_string``, for ``/run_code`` and ``/submit`` alike;
    ``php`` would print code outside the tag as text); a ``pytest`` file the Python program
    that runs it under pytest (:data:`PYTHON_PROGRAMS`); any other as given."""
    if language in PYTHON_PROGRAMS:
        return PYTHON_PROGRAMS[language](code)
    if language != "php":
        return code
    code = code.lstrip()
    return code if code.startswith("<?php") else "<?php\n" + code


def parse_run_code(body: Any) -> RunCode:
    """The checked request (:mod:`.fusion_requests`: as leniently as SandboxFusion reads it),
    or :class:`~.fusion_requests.Unprocessable` naming the field. ``memory_limit_MB`` absent
    or not positive: SandboxFusion sets no limit, this server its own ceiling (``serve
    --memory-limit``), so that no program can take the host's memory."""
    request = parse(RunCodeRequest, body)
    memory = request.memory_limit_MB if request.memory_limit_MB > 0 else None
    given = "compile_timeout" in request.model_fields_set
    return RunCode(
        fusion_source(request.language, request.code),
        request.stdin or "",
        request.language,
        request.run_timeout,
        memory,
        compile_timeout=request.compile_timeout if given else None,
        files=given_files(request),
        fetch_files=tuple(request.fetch_files),
    )


# Tags whose runner differs from our language of that name: SandboxFusion's ``run_java``
# compiles with javatuples on the class path and runs ``java -ea`` (its asserts checked),
# our ``java_assert``; a ``pytest`` file is a Python program (:func:`fusion_source`).
RUN_AS = {"java": "java_assert", **{tag: "python" for tag in PYTHON_PROGRAMS}}


def run_language(tag: str) -> str:
    """The language of ours a served tag runs as (:data:`RUN_AS`, else the tag's own)."""
    return RUN_AS.get(tag, tag)


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


ANSWER_OUTPUT = 8 << 20
"""Bytes of a run's stdout, and of its stderr, put in an answer: more is cut there and said
(``stdout_truncated``/``stderr_truncated``), rather than shipping up to the output limit
(64 MiB) inside one JSON answer. The judge (``/submit``) sees the whole output."""


def command_result(run: RunResult) -> dict[str, Any]:
    """SandboxFusion's ``CommandRunResult`` of one run (our ``cpu_time`` and the two
    ``*_truncated`` flags added: SandboxFusion's clients ignore fields they do not know)."""
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
        "stdout": _text(run.stdout[:ANSWER_OUTPUT]),
        "stderr": _text(run.stderr[:ANSWER_OUTPUT]),
        "stdout_truncated": len(run.stdout) > ANSWER_OUTPUT,
        "stderr_truncated": len(run.stderr) > ANSWER_OUTPUT,
    }


def compile_result(build: Build) -> dict[str, Any]:
    """SandboxFusion's ``CommandRunResult`` of a build: return code 0 when it built, else 1
    with the compiler's diagnostics (or the limit it ran into) on stderr."""
    stderr = build.output if build.output or build.ok else build.message
    if build.timed_out:  # SandboxFusion's compile past compile_timeout: no return code
        return {
            "status": "TimeLimitExceeded",
            "execution_time": round(build.seconds, 6),
            "cpu_time": None,
            "return_code": None,
            "stdout": "",
            "stderr": stderr,
        }
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
    files, not_read = run.fetched()
    return {
        "status": "Failed" if failed else "Success",
        "message": "",
        "compile_result": None if build is None else compile_result(build),
        "run_result": result,
        "executor_pod_name": None,
        "files": {path: base64.b64encode(data).decode() for path, data in files.items()},
        # ours: why each other fetched path is not in ``files`` (SandboxFusion leaves it out)
        "files_not_fetched": not_read,
    }


# --- /submit -----------------------------------------------------------------------------------

_DATASET_TYPES = frozenset({"CommonOJDataset"})


def parse_submit(body: Any) -> tuple[Submission, dict[str, Any]]:
    """The checked ``/submit`` request and its ``config``. Only problems given in the
    request are graded (``config.provided_data`` with ``test``: SandboxFusion's
    ``CommonOJDataset`` rows, ``[{"input": {"stdin": ...}, "output": {"stdout": ...}}]``):
    this server holds no datasets. A body SandboxFusion refuses is an
    :class:`~.fusion_requests.Unprocessable`; one it would take but this server cannot serve
    (another dataset, no tests given) a :class:`BadRequest`."""
    request = parse(SubmitRequest, body)
    config = request.config
    dataset_type = config.dataset_type or "CommonOJDataset"
    if dataset_type not in _DATASET_TYPES:
        raise BadRequest(
            f"field 'config.dataset_type': {dataset_type!r} is not served here "
            "(CommonOJDataset with config.provided_data; or use /grade)"
        )
    if config.language is None:  # SandboxFusion's CommonOJDataset answers 400 so too
        raise BadRequest("field 'config.language' must exist for CommonOJDataset, got None")
    data = config.provided_data
    if not isinstance(data, dict) or "test" not in data:
        raise BadRequest(
            "field 'config.provided_data': expected an object with 'test' (this server holds "
            "no datasets: give the problem's tests in the request)"
        )
    row = {"id": request.id, "test": data["test"]}
    judge = config.extra.get("judge")
    if judge is not None:  # one of our judges by name, over SandboxFusion's own rule
        if not isinstance(judge, str) or judge not in JUDGES:
            known = ", ".join(sorted(JUDGES))
            raise BadRequest(f"field 'config.extra.judge': expected one of {known}, got {judge!r}")
        row["judge"] = judge
    try:  # the registry's reader of SandboxFusion's problems (evaluator.formats.sources.sandbox_fusion)
        problem = COMMON_OJ.read(row, None)
    except InputError as exc:
        raise BadRequest(f"field 'config.provided_data.{exc.field}': {exc.message}") from None
    problem = replace(problem, time_limit=config.run_timeout, environment=PLAIN.name)
    plain = config.model_dump()
    return Submission(request.id, request.completion, problem), plain


# --- the endpoints ---------------------------------------------------------------------------------

SUBMIT_TIMEOUT = 20.0  # seconds per test: SandboxFusion's default for interpreted languages


async def run_code(service: Any, body: Any) -> tuple[dict[str, Any], str]:
    """``POST /run_code``: one program on one stdin, answered with a ``RunCodeResponse``."""
    request = parse_run_code(body)
    if request.language not in SUPPORTED:
        return unsupported_language(request.language), "SandboxError"
    assert service.pool is not None
    language = get_language(run_language(request.language))
    build = None
    if language.compiled:
        try:
            build = await asyncio.wrap_future(
                service.builder.submit(
                    language,
                    request.code,
                    language.default_flags,
                    request.build_limits(service.builder.limits),
                )
            )
        except OSError as exc:  # no toolchain on this machine
            return sandbox_error(f"cannot build {language.name}: {exc}"), "SandboxError"
        if not build.ok:
            return compile_failed_response(build), "CE"
        job = request.program_job(build, language, service.settings.memory_limit)
    else:
        job = request.job(service.settings.memory_limit)
    assert service.programs is not None
    result = await service.programs.run_async(job)  # cancelled with the request: killed
    # an interpreted language reports no compile, as SandboxFusion's (compile_result null)
    answer = run_code_response(result.runs[0], None if language.interpreted else build)
    return answer, answer["status"]


async def submit(service: Any, body: Any) -> tuple[dict[str, Any], str]:
    """``POST /submit``: one completion against its problem's stdin tests, answered with an
    ``EvalResult``; the program is the answer's (:func:`~evaluator.runner.answers.
    resolve_program`), in the language the request names."""
    request, config = parse_submit(body)
    check_client_problems([request.problem], service.settings.trust_checkers)
    supported = config["language"] in SUPPORTED
    stated = run_language(config["language"]) if supported else None
    answer = resolve_program(request.completion, stated)
    code = answer.code
    evaluation: dict[str, Any] = {
        "id": request.id,
        "accepted": False,
        "extracted_code": code or "",
        "full_code": code,
        "test_code": None,
        "tests": [],
        "extracted_type": "fenced" if code is not None else "empty",
        "extra": None,
    }
    if not supported or code is None:
        return evaluation, "not run"
    problem = request.problem
    options = GradeOptions(
        time_limit=problem.time_limit or SUBMIT_TIMEOUT,
        memory_limit=service.settings.memory_limit,
        early_exit=not (config.get("extra") or {}).get("run_all_cases", False),
    )
    with service.grader(options) as grader:
        program = fusion_source(config["language"], code)
        language = answer.language
        assert language is not None  # SUPPORTED names only languages graded here
        result: GradeResult = await graded(grader.submit(problem, program, language.name))
    ran = [
        (test, outcome)
        for test, outcome in zip(problem.tests, result.tests, strict=False)
        if outcome.verdict is not Verdict.SKIPPED
    ]
    evaluation["accepted"] = result.passed
    evaluation["tests"] = [_eval_test_case(test, outcome) for test, outcome in ran]
    return evaluation, str(result.verdict)


def _eval_test_case(test: Any, outcome: TestResult) -> dict[str, Any]:
    """SandboxFusion's ``EvalTestCase`` from one of our test results."""
    finished = outcome.verdict not in (Verdict.TLE, Verdict.ERROR)
    # an empty program (NO_CODE here) runs there, exits 0 and answers wrong
    code = {Verdict.AC: 0, Verdict.WA: 0, Verdict.NO_CODE: 0, Verdict.RE: 1}.get(
        outcome.verdict, -9
    )
    status = "Success" if outcome.verdict in (Verdict.AC, Verdict.WA, Verdict.NO_CODE) else "Failed"
    if outcome.verdict is Verdict.ERROR:
        status = "SandboxError"
    run = {
        "status": "Finished" if finished else "TimeLimitExceeded",
        "execution_time": round(outcome.wall_time, 6),
        "cpu_time": round(outcome.cpu_time, 6),
        "return_code": code if finished else None,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
    }
    return {
        "passed": outcome.verdict is Verdict.AC,
        "exec_info": {
            "status": status,
            "message": outcome.message if outcome.verdict is Verdict.ERROR else "",
            "compile_result": None,
            "run_result": run,
            "executor_pod_name": None,
            "files": {},
        },
        "test_info": {
            "input": {"stdin": test.input[:1000]},
            "output": {"stdout": test.output[:1000]},
            "verdict": str(outcome.verdict),
        },
    }
