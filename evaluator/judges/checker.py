"""Special judges (checkers) for problems with many valid answers.

A stdin problem's ``judge`` may be a checker spec instead of a judge name:

``{"type": "python", "code": "def check(input, output, expected): ..."}``
    ``check`` gets the test input, the program's stdout (decoded as UTF-8, undecodable bytes
    as surrogate escapes) and the expected output, all ``str``. It returns ``True``
    (accepted), ``False`` (wrong answer), or a pair ``(bool, message)``. It runs in the
    sandbox pool as a separate :attr:`~evaluator.sandbox.Mode.CALL` job, never in the
    grader's process: its one test input is three JSON lines (input, output, expected) and
    its return value comes back as strict JSON. The job follows no dataset's convention (no
    names found without an import; ``check`` is the program's top-level function).
    Anything else returned (``1``, ``None``, ``[True]``, ``(1, "x")``), an exception, a syntax
    error, or a limit hit is a judge failure: verdict ERROR, never WA.

``{"type": "program", "path": P}``
    An executable following testlib's convention ``P input.txt output.txt answer.txt``,
    run in a fresh temp dir (its working directory) that holds those three files and a copy
    of the executable (read once, when the judge is built: a regular file of one link, at
    most :data:`PROGRAM_BYTES`).
    ``P`` is a file the problem ships: relative to the directory the grader is given for
    checkers (``checker_dir``: ``mcevaluate grade``'s problems file's, ``--checker-dir``), and
    inside it once every link is followed; any other path (``/bin/sh``, ``../x``) is refused,
    unless the operator names ``/`` as that directory. No directory given: no program checker. Exit
    status 0 is accepted; 1 (testlib ``_wa``) and 2 (testlib ``_pe``, presentation error)
    are a wrong answer; any other status, a signal, a timeout, or a failure to start it is a
    judge failure (ERROR). Its stderr, else its stdout, is the message. The program is
    free to run programs (the sandbox profile forbids ``exec``) but not trusted: it is
    started, as builds are, through the grader's one launcher for trusted programs
    (:mod:`.trusted`, :mod:`evaluator.sandbox.launcher`): rlimits (CPU, data segment, file
    size, tasks, no core dumps), PID and IPC namespaces of its own (nothing it starts or
    makes outlives it), a wall-clock timeout, Landlock (it reads the toolchain and the
    grader's interpreter, writes only its directory), no network, the default profile's
    seccomp refusals, an unprivileged user of its own (never uid 0), an environment of
    ``PATH`` and the C locale.

``{"type": "codeforces", "code": "<python source>"}``
    open-r1/codeforces' convention (:mod:`.cf_checker`): the source is run as ``checker.py
    input correct_output solution_output`` and accepts by printing ``1`` or ``100``; printing
    anything else or exiting non-zero is a wrong answer, a signal or a timeout an ERROR.
    Run like a program checker.

All take optional ``time_limit`` (CPU seconds, default 10) and ``memory_limit`` (MB, default
1024), within the ceilings of a limit from data (:mod:`evaluator.default_limits`: 600 s, 1 TiB;
past them the spec is broken, an ERROR naming the key). Checkers are called only for tests
whose run ended cleanly: a TLE, RE, MLE or OLE keeps its verdict. Expected outputs go only to
the checker, never to the candidate's job. A python checker's job carries the expected output
through a fork server. Its children never see it (they are forked from a template that never
sees a job), but as a second line of defence the grader runs checkers in a pool of their own
(one worker, started at the first checker call) unless it is given a ``checker_pool``: no
server that runs candidates ever holds an expected output.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from evaluator.default_limits import memory_limit_fault, time_limit_fault
from evaluator.harness.outcome import failure
from evaluator.languages.base import read_program
from evaluator.problem import Verdict
from evaluator.sandbox import Isolation, Job, Limits, Mode, RunResult, SandboxPool

from .base import MAX_MESSAGE, cap
from .cf_checker import CodeforcesChecker
from .jsonvalue import decode
from .trusted import file_bytes, run_checker

Outcome = tuple[Verdict, str]

CHECKER_TYPES = ("python", "program", "codeforces")
TRUSTED_CHECKER_TYPES = frozenset({"program", "codeforces"})
"""Checkers that run outside the sandbox (the problem setter's code, trusted): a server must
not take them from its clients (``mcevaluate serve --trust-checkers`` says otherwise)."""
_REQUIRED = {"python": "code", "program": "path", "codeforces": "code"}  # each type's key
DEFAULT_CHECKER_LIMITS = Limits(time_limit=10.0)  # and a program's default memory limit
_WA_STATUSES = (1, 2)  # testlib: _wa, _pe
PROGRAM_BYTES = 64 << 20  # the largest program checker read (a static testlib one is ~2 MB)
PROGRAM_FILE = "checker"  # its copy, in the directory it runs in


def runs_outside_sandbox(spec: object) -> bool:
    """True for a checker spec whose checker runs outside the sandbox (:data:`TRUSTED_CHECKER_TYPES`)."""
    return isinstance(spec, dict) and spec.get("type") in TRUSTED_CHECKER_TYPES


def is_checker_spec(spec: object) -> bool:
    """True when ``spec`` is a special-judge spec (``{"type": <one of CHECKER_TYPES>, ...}``)."""
    return isinstance(spec, dict) and spec.get("type") in CHECKER_TYPES


def build_checker(
    spec: dict[str, Any], checker_dir: str | None = None
) -> PythonChecker | ProgramChecker | CodeforcesChecker:
    """The checker a spec describes; a program checker's path is read in ``checker_dir``
    (see the module doc). Raises ``ValueError`` for a broken spec (unknown keys, missing code
    or path, code that does not compile, a path that is not an executable file inside
    ``checker_dir``), so the problem is an ERROR before anything runs."""
    kind = spec.get("type")
    required = _REQUIRED.get(kind)  # type: ignore[arg-type]
    if required is None:
        raise ValueError(f"special judge type must be one of {CHECKER_TYPES}, not {kind!r}")
    unknown = sorted(set(spec) - {"type", required, "time_limit", "memory_limit"})
    if unknown:
        raise ValueError(
            f"{kind} checker takes {required}, time_limit, memory_limit; got {unknown}"
        )
    value = spec.get(required)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{kind} checker needs a non-empty string {required!r}")
    limits = _limits(spec)
    if kind == "python":
        try:
            compile(value, "<checker>", "exec")  # compiling runs nothing
        except (SyntaxError, ValueError) as exc:
            raise ValueError(f"python checker does not compile: {exc}") from None
        return PythonChecker(value, limits)
    if kind == "codeforces":
        return CodeforcesChecker.build(value, limits)  # ValueError if it does not compile
    return ProgramChecker(_shipped_program(value, checker_dir), limits)


def _shipped_program(path: str, checker_dir: str | None) -> bytes:
    """The bytes of the program checker ``path`` names, a file inside ``checker_dir``."""
    if checker_dir is None:
        raise ValueError(
            f"program checker {path!r}: no checker directory was given, so no program a "
            "problem names is run (mcevaluate grade: --checker-dir)"
        )
    base = os.path.realpath(checker_dir)
    real = os.path.realpath(os.path.join(base, path))
    if os.path.commonpath([base, real]) != base:
        raise ValueError(f"program checker {path!r} is outside the checker directory {base}")
    program, why = read_program(os.path.dirname(real), os.path.basename(real), PROGRAM_BYTES)
    if program is None:
        raise ValueError(f"program checker {path!r}: {why}")
    if not os.stat(real, follow_symlinks=False).st_mode & 0o111:
        raise ValueError(f"program checker {path!r} is not an executable file")
    return program


def _limits(spec: dict[str, Any]) -> Limits:
    """The spec's ``time_limit`` and ``memory_limit``, each within the ceilings of a limit
    from data (:mod:`evaluator.default_limits`); ValueError naming the key otherwise."""
    cpu = spec.get("time_limit", DEFAULT_CHECKER_LIMITS.time_limit)
    memory = spec.get("memory_limit", DEFAULT_CHECKER_LIMITS.memory_limit)
    if isinstance(cpu, bool) or not isinstance(cpu, int | float):
        raise ValueError(f"checker time_limit must be a positive number, not {cpu!r}")
    if isinstance(memory, bool) or not isinstance(memory, int):
        raise ValueError(f"checker memory_limit must be a positive integer (MB), not {memory!r}")
    for key, fault in (
        ("time_limit", time_limit_fault(cpu)),
        ("memory_limit", memory_limit_fault(memory)),
    ):
        if fault is not None:
            raise ValueError(f"checker {key}: {fault}")
    return Limits(time_limit=float(cpu), memory_limit=memory)


def decode_output(stdout: bytes) -> str:
    """The program's stdout as the python checker sees it (UTF-8, surrogate escapes)."""
    return stdout.decode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True)
class PythonChecker:
    """``check(input, output, expected)`` run as a CALL job in a sandbox pool."""

    code: str
    limits: Limits = field(default_factory=lambda: DEFAULT_CHECKER_LIMITS)

    def job(self, test_input: str, output: bytes, expected: str) -> Job:
        """The sandbox job: one test whose input is three JSON lines (``json.dumps`` escapes
        newlines, so each argument is exactly one line for the call harness)."""
        args = "\n".join(json.dumps(a) for a in (test_input, decode_output(output), expected))
        return Job(
            code=self.code,
            inputs=[args],
            mode=Mode.CALL,
            func_name="check",
            limits=self.limits,
            isolation=Isolation.TEST,
        )

    def submit(
        self, pool: SandboxPool, test_input: str, output: bytes, expected: str
    ) -> Future[Outcome]:
        """Queue the checker job; the future resolves to the verdict (never to an exception:
        a failure to run the checker is an ERROR verdict). Never blocks."""
        outcome: Future[Outcome] = Future()
        try:
            running = pool.submit(self.job(test_input, output, expected))
        except Exception as exc:  # noqa: BLE001 - e.g. the pool is closed
            outcome.set_result((Verdict.ERROR, f"checker not run: {exc}"))
            return outcome

        def done(finished: Future[Any]) -> None:
            try:
                runs = finished.result().runs
                outcome.set_result(
                    interpret_call(runs[0]) if runs else (Verdict.ERROR, "checker: no result")
                )
            except Exception as exc:  # noqa: BLE001 - reported as the judge's failure
                outcome.set_result((Verdict.ERROR, f"checker: {exc}"))

        running.add_done_callback(done)
        return outcome


def interpret_call(run: RunResult) -> Outcome:
    """The verdict from a python checker's run: its return value must be exactly ``true``,
    ``false`` or ``[bool, str]``; every other result or a failed run is an ERROR. Total: any
    run (any value text, any depth or size) gives a verdict with a capped message."""
    failed = failure(run)
    if failed is not None:
        return Verdict.ERROR, cap(f"checker failed: {failed[0]}: {failed[1]}")
    if run.status != "ok" or run.value is None:
        why = str(run.exception or run.status)[: MAX_MESSAGE + 1]
        return Verdict.ERROR, cap(f"checker failed: {why}")
    try:
        value = decode(run.value)
    except ValueError:
        return Verdict.ERROR, "checker returned an unreadable value"
    if type(value) is bool:
        return (Verdict.AC, "") if value else (Verdict.WA, "rejected by the checker")
    if type(value) is list and len(value) == 2 and type(value[0]) is bool and type(value[1]) is str:
        ok, message = value
        if ok:
            return Verdict.AC, cap(message)
        return Verdict.WA, cap(message) or "rejected by the checker"
    shown = str(run.value)[: MAX_MESSAGE + 1]
    return Verdict.ERROR, cap(f"checker returned {shown}, not a bool or (bool, message)")


@dataclass(frozen=True, slots=True)
class ProgramChecker:
    """A testlib-style executable (its bytes), run from a copy in its directory, started as
    every trusted program is (see the module doc)."""

    program: bytes = field(repr=False)
    limits: Limits = field(default_factory=lambda: DEFAULT_CHECKER_LIMITS)

    def run(self, test_input: str, output: bytes, expected: str) -> Outcome:
        """Run the checker on one test and return its verdict. Blocks up to the wall-clock
        limit (``2 * time_limit + 1`` seconds)."""
        files = {
            PROGRAM_FILE: self.program,
            "input.txt": file_bytes(test_input),
            "output.txt": output,
            "answer.txt": file_bytes(expected),
        }
        argv = [PROGRAM_FILE, "input.txt", "output.txt", "answer.txt"]
        run = run_checker(argv, files, self.limits)
        return exit_verdict(run.status, cap(run.stderr.strip()) or cap(run.stdout.strip()))

    def submit(
        self, pool: SandboxPool, test_input: str, output: bytes, expected: str
    ) -> Future[Outcome]:
        """Run now, in the calling thread (no pool job: it blocks this thread only, never
        waits on the pool), and return a completed future. ``pool`` is unused."""
        outcome: Future[Outcome] = Future()
        try:
            outcome.set_result(self.run(test_input, output, expected))
        except Exception as exc:  # noqa: BLE001 - reported as the judge's failure
            outcome.set_result((Verdict.ERROR, f"checker not run: {exc}"))
        return outcome


def exit_verdict(status: int | None, message: str) -> Outcome:
    """testlib exit statuses: 0 AC, 1 WA, 2 (presentation error) WA; anything else ERROR.
    ``status`` None is a timeout; negative is death by a signal."""
    if status == 0:
        return Verdict.AC, message
    if status in _WA_STATUSES:
        return Verdict.WA, message or "rejected by the checker"
    if status is None:
        why = "checker timed out"
    elif status < 0:
        why = f"checker killed by signal {-status}"
    else:
        why = f"checker failed with exit status {status}"
    return Verdict.ERROR, cap(f"{why}: {message}" if message else why)
