"""Grading: a program against a problem, or many in parallel, over the sandbox pool.

The grader keeps the expected outputs; only the program and the test inputs go to the
sandbox. Every test runs unless early exit is asked for, and then the result says which
tests were skipped.

A stdin problem with a special judge (:mod:`evaluator.judges.checker`) is graded in two
steps that never block a pool thread on another pool job: the program's job runs as usual;
when it is done, each test whose run ended cleanly (no TLE/RE/MLE/OLE) is handed to the
checker (python checkers are queued as jobs of the checker pool and chained by future
callbacks; program checkers run in the thread that finished the program's job), and the
result is set when the last checker answers. With early exit, the run stops at the first
test that failed to run cleanly; checker verdicts come after the run, so tests after a
checker's wrong answer have still run and are judged.

Each program is graded apart: whatever it does, and whatever breaks in judging its output
(a judge or checker that raises, a return value the parent cannot read, a test input the
sandbox cannot encode), costs that program only: its result is an ERROR that says why, never
an exception out of :meth:`Grader.submit` or :meth:`Grader.grade_many`. Only a failure of the
machinery itself (a sandbox pool that cannot start workers, a closed pool) is raised.
"""

from __future__ import annotations

import collections
import re
import threading
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, field
from typing import Any, Self

from evaluator.harness import assertion, call, native_call, stdio, test_program
from evaluator.harness.environments import environment_for
from evaluator.harness.outcome import failure
from evaluator.judges import DEFAULT_JUDGE, Judge, get_judge
from evaluator.judges.cf_checker import CodeforcesChecker
from evaluator.judges.checker import (
    Outcome,
    ProgramChecker,
    PythonChecker,
    build_checker,
    is_checker_spec,
)
from evaluator.judges.floats import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, validate_tolerances
from evaluator.judges.returned import judge_printed, judge_return
from evaluator.judges.stdout import judge_stdout
from evaluator.languages import (
    Build,
    BuildLimits,
    Language,
    ToolchainMissing,
    get_language,
    runtimes,
)
from evaluator.languages.builds import Builder
from evaluator.problem import (
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIME_LIMIT,
    Harness,
    Problem,
    Verdict,
)
from evaluator.sandbox import (
    DEFAULT_PROFILE,
    Isolation,
    Job,
    JobResult,
    Limits,
    ProfileError,
    RunResult,
    SandboxPool,
)
from evaluator.sandbox.pool import WorkerDied
from evaluator.sandbox.shared_pool import PoolDirectoryError, SharedSandboxPool

_MESSAGE_CAP = 300
_EXCERPT_CAP = 200  # characters of a failing test's stdout and stderr kept in its result
_DIAGNOSTICS_CAP = 2000  # characters of a failed build's compiler output kept
_RUN_DIR = re.compile(r"(?:[^\s\"']*/)?mcsbx-\w+/run/")  # a worker's run directory (pool.py)


def clean_message(message: object, limit: int = _MESSAGE_CAP) -> str:
    """``message`` as text any JSON writer takes: at most ``limit`` characters, lone
    surrogates (undecodable output bytes, ``"\\ud800"`` in a problem file) written as their
    ``\\udXXX`` escapes, since UTF-8 (and orjson) refuses them."""
    text = message if type(message) is str else str(message)
    text = text[:limit]
    if not text.isascii():
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def excerpt(data: bytes, *, tail: bool = False, limit: int = _EXCERPT_CAP) -> str:
    """At most ``limit`` characters of a program's output stream, undecodable bytes escaped
    (``\\xff``): its start, or with ``tail`` its end; ``…`` marks where it was cut. Only
    ``4 * limit`` bytes are decoded, whatever the stream's size. The sandbox's own directory
    is left out of paths (``File "solution.py"``, as a run in the program's folder says), so
    the same program gives the same excerpt on every worker and machine."""
    part = bytes(data[-4 * limit :] if tail else data[: 4 * limit])
    text = _RUN_DIR.sub("", part.decode("utf-8", "backslashreplace"))
    if len(text) > limit or len(part) < len(data):
        return "…" + text[-(limit - 1) :] if tail else text[: limit - 1] + "…"
    return text


def describe_failure(exc: BaseException) -> str:
    """``KeyError: 'x' (grading.py:123)``: what broke and the innermost line where, so that a
    grader bug stays visible in the one sample it cost, in one line."""
    where = ""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    if frames:
        last = frames[-1]
        where = f" ({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__
        text = ""
    return clean_message(f"{type(exc).__name__}: {text[:200]}{where}")


def is_machinery_failure(exc: BaseException) -> bool:
    """True for failures of the grading machinery (workers that cannot start, a closed or
    cancelled pool, Ctrl-C), which stop a run; False for a failure one program's job or output
    caused, which is that program's ERROR."""
    if not isinstance(exc, Exception) or isinstance(exc, CancelledError):
        return True
    if isinstance(exc, RecursionError | MemoryError):
        return False
    return isinstance(exc, WorkerDied | ProfileError | OSError | RuntimeError)


@dataclass(slots=True)
class TestResult:
    """One test's verdict, resources, and for a failure the first difference or the error.
    The first failing test of a program also keeps excerpts of what the program wrote:
    ``stdout`` (its start) and ``stderr`` (its end, where a traceback ends). ``limit``: the
    limit that ended the test, as the sandbox says (``cpu``: CPU time, ``wall``: the
    wall-clock backstop, ``memory``, ``output``), None when none did."""

    __test__ = False  # not a pytest class

    verdict: Verdict
    cpu_time: float = 0.0
    wall_time: float = 0.0
    peak_memory_kb: int = 0
    message: str = ""
    stdout: str = ""
    stderr: str = ""
    limit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "verdict": str(self.verdict),
            "cpu_time": round(self.cpu_time, 4),
            "wall_time": round(self.wall_time, 4),
            "peak_memory_kb": self.peak_memory_kb,
        }
        if self.message:
            data["message"] = clean_message(self.message)
        if self.stdout:
            data["stdout"] = clean_message(self.stdout, _EXCERPT_CAP + 1)
        if self.stderr:
            data["stderr"] = clean_message(self.stderr, _EXCERPT_CAP + 1)
        if self.limit:
            data["limit"] = self.limit
        return data


UNCHECKED_NOTE = (
    "the statement accepts many answers and the problem has no checker: compared with the "
    "one expected output"
)


@dataclass(slots=True)
class GradeResult:
    """A program's result on a problem. ``verdict`` is the first non-AC verdict in test order
    (AC when every test passed); a problem with zero tests is an ERROR and never passes.
    ``limits``: those its tests ran under, as the sandbox returned them with the run (None
    when no test ran: a compile error, no code, a broken problem); what results record."""

    problem_id: str
    verdict: Verdict
    tests: list[TestResult] = field(default_factory=list)
    message: str = ""
    limits: Limits | None = None
    # a WA on a problem whose statement accepts many answers and which has no checker: the
    # one expected output was compared, and a right answer may be among those it refused
    unchecked: bool = False

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.AC

    @property
    def fraction(self) -> float:
        """Share of tests passed (skipped tests count as not passed)."""
        if not self.tests:
            return 0.0
        return sum(t.verdict is Verdict.AC for t in self.tests) / len(self.tests)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "verdict": str(self.verdict),
            "passed": self.passed,
            "fraction": round(self.fraction, 6),
            "tests": [t.to_dict() for t in self.tests],
        }
        if self.message:
            data["message"] = clean_message(self.message)
        if self.limits is not None:
            data.update(limits_record(self.limits))
        if self.unchecked:
            data["unchecked"] = True
        return data


def limits_record(limits: Limits) -> dict[str, float]:
    """What a result records of the limits its tests ran under, by the names a problem and
    the options use: ``time_limit`` (CPU seconds), ``memory_limit`` (MB), ``wall_limit``
    (seconds, the backstop in force)."""
    return {
        "time_limit": limits.time_limit,
        "memory_limit": limits.memory_limit,
        "wall_limit": round(limits.effective_wall_limit, 6),
    }


@dataclass(frozen=True, slots=True)
class GradeOptions:
    """Defaults for problems that do not set their own. ``judge`` is the stdin judge used
    when a problem names none. ``early_exit`` stops at the first failing test."""

    time_limit: float = DEFAULT_TIME_LIMIT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    judge: str = DEFAULT_JUDGE
    isolation: Isolation = Isolation.ADAPTIVE
    early_exit: bool = False
    # an interpreter environment for every problem (evaluator.harness.environments); None:
    # each problem's own, else its platform's, else a plain run's
    environment: str | None = None
    # The wall-clock backstop is ``wall_factor * time_limit + wall_slack`` seconds; None keeps
    # the sandbox's default (default_test_wall), generous so that machine load never changes a
    # verdict.
    # RL rewards may tighten it (a sleeping or starved program then costs less wall time).
    wall_factor: float | None = None
    wall_slack: float = 1.0
    # Compiled languages (evaluator.languages): flags by language name ({"cpp": "-std=c++20
    # -O2"} or a list) that replace a problem's own ("cpp_flags" in its metadata) and the
    # language's defaults: the operator's, trusted (given to the compiler as they are, and
    # prepared for: a problem's own must be shapes evaluator.languages.flag_rules allows);
    # and what one build may use (past it, a CE).
    compile_flags: Mapping[str, Sequence[str] | str] | None = None
    build_limits: BuildLimits = field(default_factory=BuildLimits)
    # Where a problem's program checker ({"type": "program", "path": P}) must lie: P is read
    # relative to it and must stay inside it (a dataset row names the program it wants run);
    # "/" trusts every path. None: no program checker is run (evaluator.judges.checker).
    checker_dir: str | None = None

    def flags_for(self, language: Language, problem: Problem) -> tuple[str, ...]:
        """The build flags of ``language`` on ``problem`` (``ValueError`` if they are not
        text, or if the problem's own have a flag its language does not take from data)."""
        return language.flags(problem.metadata, self.operator_flags(language))

    def operator_flags(self, language: Language) -> Sequence[str] | str | None:
        """The flags these options give ``language`` (the operator's, trusted), or None."""
        return (self.compile_flags or {}).get(language.name)

    def limits_for(self, problem: Problem) -> Limits:
        """The limits ``problem``'s tests run under: its own, else these options'. Computed
        once per program, when its job is built; the result carries them back."""
        time_limit = problem.time_limit or self.time_limit
        wall_limit = (
            None if self.wall_factor is None else self.wall_factor * time_limit + self.wall_slack
        )
        return Limits(
            time_limit=time_limit,
            wall_limit=wall_limit,
            memory_limit=problem.memory_limit or self.memory_limit,
        )


class _Judging:
    """How one problem's tests are judged; built before running, so a broken judge spec is
    an ERROR without running anything."""

    def __init__(self, problem: Problem, options: GradeOptions, printed: bool = False) -> None:
        self.problem = problem
        # a call's return value: printed on stdout by a compiled program's driver, else
        # written by the sandbox's encoder
        self._judge_call = judge_printed if printed else judge_return
        spec = problem.judge if problem.judge is not None else options.judge
        self.check: Judge | None = None
        self.checker: PythonChecker | ProgramChecker | CodeforcesChecker | None = None
        self.tolerance: dict[str, Any] = {}
        if problem.harness is Harness.STDIN and is_checker_spec(spec):
            assert isinstance(spec, dict)
            self.checker = build_checker(spec, options.checker_dir)
        elif problem.harness is Harness.STDIN:
            self.check = _judge_from_spec(spec)
        elif problem.harness is Harness.FUNCTIONAL and isinstance(problem.judge, dict):
            options = ("abs_tol", "rel_tol", "bool_as_int", "unwrap", "any_order")
            self.tolerance = {k: v for k, v in problem.judge.items() if k in options}
            validate_tolerances(
                self.tolerance.get("abs_tol", DEFAULT_ABS_TOL),
                self.tolerance.get("rel_tol", DEFAULT_REL_TOL),
            )

    def verdict(self, index: int, run: RunResult) -> Outcome | None:
        """The test's verdict; None when the run ended cleanly and the checker decides.
        Never raises: a judge that breaks on this output is this test's ERROR."""
        try:
            return self._verdict(index, run)
        except Exception as exc:  # noqa: BLE001 - one program's output, one ERROR
            return Verdict.ERROR, f"the grader failed on this test: {describe_failure(exc)}"

    def _verdict(self, index: int, run: RunResult) -> Outcome | None:
        if (missing := stdio.file_failure(run)) is not None:  # no answer for judge or checker
            return missing
        if self.checker is not None:
            return failure(run)
        if self.problem.harness is Harness.ASSERTION:
            return assertion.judge(run)
        test = self.problem.tests[index]
        if self.problem.harness is Harness.FUNCTIONAL:
            return self._judge_call(test, run, self.tolerance)
        assert self.check is not None
        return judge_stdout(test, run, self.check)

    def ask_checker(
        self, pool: Callable[[], SandboxPool], index: int, run: RunResult
    ) -> Future[Outcome]:
        """The checker's verdict on a cleanly ended run (a future; never blocks on the pool,
        never raises: a checker that cannot be asked is this test's ERROR)."""
        assert self.checker is not None
        test = self.problem.tests[index]
        try:
            return self.checker.submit(pool(), test.input, run.stdout, test.output)
        except Exception as exc:  # noqa: BLE001 - e.g. the checker pool cannot start
            failed: Future[Outcome] = Future()
            failed.set_result((Verdict.ERROR, f"checker not run: {describe_failure(exc)}"))
            return failed


def _judge_from_spec(spec: str | dict[str, Any]) -> Judge:
    if isinstance(spec, str):
        return get_judge(spec)
    if isinstance(spec, dict) and isinstance(spec.get("type"), str):
        options = {k: v for k, v in spec.items() if k != "type"}
        return get_judge(spec["type"], **options)
    raise ValueError(f"a judge is a name or {{'type': name, ...options}}, not {spec!r}")


_BUILDERS = {
    Harness.STDIN: stdio.build_job,
    Harness.FUNCTIONAL: call.build_job,
    Harness.ASSERTION: assertion.build_job,
}


Items = Iterable[tuple[Problem, str | None] | tuple[Problem, str | None, Language | str | None]]


class BaseGrader:
    """What a grader (:class:`~evaluator.runner.protocol.ProgramGrader`) builds on its
    ``submit`` and ``close``, written once for :class:`Grader` and
    :class:`~evaluator.backends.ray_backend.RayGrader`: ``grade``, ``imap``, ``grade_many``
    and the context manager."""

    max_pending: int | None = None
    """The programs ``imap`` and ``grade_many`` keep submitted and unfinished (None: every
    item is submitted before the first result is waited for)."""

    def submit(
        self, problem: Problem, code: str | None, language: Language | str | None = None
    ) -> Future[GradeResult]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def grade(
        self, problem: Problem, code: str | None, language: Language | str | None = None
    ) -> GradeResult:
        """Grade one program and wait for its result."""
        return self.submit(problem, code, language).result()

    def imap(
        self, items: Items, progress: Callable[[GradeResult], None] | None = None
    ) -> Iterator[GradeResult]:
        """Results in input order, as they become available (items: ``(problem, code)`` or
        ``(problem, code, language)``); ``items`` is read lazily, at most ``max_pending``
        programs submitted and unfinished at a time. ``progress`` is called as each result
        completes (any order, from the grader's threads)."""
        window: collections.deque[Future[GradeResult]] = collections.deque()
        for item in items:
            if self.max_pending is not None and len(window) >= self.max_pending:
                yield window.popleft().result()
            future = self.submit(*item)
            if progress is not None:
                future.add_done_callback(lambda f: progress(f.result()))
            window.append(future)
        while window:
            yield window.popleft().result()

    def grade_many(
        self, items: Items, progress: Callable[[GradeResult], None] | None = None
    ) -> list[GradeResult]:
        """Grade in parallel; results in input order (:meth:`imap`'s); ``progress`` per
        finished result."""
        return list(self.imap(items, progress))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _own_pool(workers: int | None, profile: str, started: int | None, shared: bool) -> SandboxPool:
    """A grader's own pool: in the user's pool daemon when ``shared`` and its directory can be
    used (else, with a warning naming why, servers of this process's own)."""
    if shared:
        try:
            return SharedSandboxPool(workers, profile, start=started, runtimes=runtimes())
        except PoolDirectoryError as exc:
            warnings.warn(f"{exc}: grading in fork servers of this process's own", stacklevel=3)
    return SandboxPool(workers, profile, start=started, runtimes=runtimes())


class Grader(BaseGrader):
    """Grades programs over a :class:`SandboxPool` (its own, or one you pass in), building
    compiled languages' programs with a :class:`~evaluator.languages.builds.Builder` (its own,
    or one you pass in to share its cache and precompiled headers between graders).
    ``grade``, ``imap`` and ``grade_many`` are :class:`BaseGrader`'s: every program is
    submitted at once (``max_pending`` None: the pool queues them).

    >>> from evaluator.problem import Harness, Problem, TestCase
    >>> problem = Problem("rev", Harness.STDIN, [TestCase("abc\\n", "cba\\n")])
    >>> with Grader(workers=1) as grader:
    ...     grader.grade(problem, "print(input()[::-1])").verdict
    <Verdict.AC: 'AC'>
    """

    def __init__(
        self,
        options: GradeOptions | None = None,
        *,
        pool: SandboxPool | None = None,
        workers: int | None = None,
        profile: str = DEFAULT_PROFILE,
        checker_pool: SandboxPool | None = None,
        precompiled_headers: bool = True,
        builder: Builder | None = None,
        started: int | None = None,
        shared_pool: bool = False,
    ) -> None:
        """``started``: of its own pool's ``workers``, the servers started now (default all;
        the others start when jobs overlap: :class:`SandboxPool`'s ``start``).
        ``shared_pool``: its own pool runs its jobs in the user's pool daemon, whose fork
        servers every process shares (:class:`~evaluator.sandbox.shared_pool.SharedSandboxPool`;
        ``workers`` and ``started`` then count this grader's jobs in it at once)."""
        self.options = options or GradeOptions()
        self._own_pool = pool is None
        self.pool = pool or _own_pool(workers, profile, started, shared_pool)
        # Python checkers run here; a separate pool keeps expected outputs out of the fork
        # servers that run candidates (default: the same pool, see evaluator.judges.checker).
        # Python checkers see expected outputs: never in the servers that fork candidates.
        self._checker_pool = checker_pool
        self._own_checker_pool = checker_pool is None
        self._profile = profile
        self._lock = threading.Lock()
        # Compiled languages' builds (evaluator.languages.builds): the one given (shared, left
        # open), else this grader's, started on first use; a language's prepared work (C++'s
        # precompiled header) with ``precompiled_headers``.
        self._builder: Builder | None = builder
        self._own_builder = builder is None
        self._prepare_builds = precompiled_headers

    @property
    def capacity(self) -> int:
        """Programs run at once: the pool's fork servers."""
        return self.pool.size

    @property
    def checker_pool(self) -> SandboxPool:
        """Where python checkers run: the given pool, or a one-worker pool started on first use."""
        with self._lock:
            if self._checker_pool is None:
                self._checker_pool = SandboxPool(workers=1, profile=self._profile)
            return self._checker_pool

    @property
    def builder(self) -> Builder:
        """Where compiled languages' programs are built: as many at once as the pool has
        workers, each source once (started on first use)."""
        with self._lock:
            if self._builder is None:
                self._builder = Builder(
                    self.pool.size, self.options.build_limits, prepare=self._prepare_builds
                )
            return self._builder

    def submit(
        self, problem: Problem, code: str | None, language: Language | str | None = None
    ) -> Future[GradeResult]:
        """Start grading; ``code`` None means the model gave no code (NO_CODE, a failure).
        ``language``: the program's :class:`~evaluator.languages.Language` as a run resolved
        it, or for a caller that has only its name, a name or code-fence tag of
        :mod:`evaluator.languages` (``"cpp"``, resolved here); None: Python."""
        outcome: Future[GradeResult] = Future()
        try:
            chosen = get_language(language)
            refused = _refused_language(problem, chosen)
        except ValueError as exc:  # an unknown language, or the problem names one
            outcome.set_result(GradeResult(problem.id, Verdict.ERROR, message=clean_message(exc)))
            return outcome
        if refused is not None:
            outcome.set_result(refused)
            return outcome
        if code is not None and code.strip():  # HumanEval-X's: the tests joined around it
            code = test_program.program(problem, code)
        if chosen.compiled:
            self._submit_built(problem, code, chosen, outcome)
            return outcome
        early = _early_result(problem, code)
        if early is not None:
            outcome.set_result(early)
            return outcome
        assert code is not None
        try:
            judging = _Judging(problem, self.options)
            environment = environment_for(
                self.options.environment or problem.environment, problem.metadata
            )
            job = _BUILDERS[problem.harness](
                problem, code, self.options.limits_for(problem), self.options.isolation, environment
            )
        except ValueError as exc:  # a broken judge spec, tolerance or environment
            outcome.set_result(GradeResult(problem.id, Verdict.ERROR, message=clean_message(exc)))
            return outcome
        except Exception as exc:  # noqa: BLE001 - a problem the grader cannot handle
            reason = f"cannot grade this problem: {describe_failure(exc)}"
            outcome.set_result(GradeResult(problem.id, Verdict.ERROR, message=reason))
            return outcome
        self._run(problem, judging, job, outcome)
        return outcome

    def _submit_built(
        self, problem: Problem, code: str | None, language: Language, outcome: Future[GradeResult]
    ) -> None:
        """A compiled language's program: built once (a CE when it does not build), then its
        binary run on every test as a Python program's job would be, judged alike."""
        early = _early_result(problem, code, check_text=False)  # the build says if it is text
        if early is None and problem.harness is not Harness.STDIN:
            code, early = _driven_program(problem, code, language)
        if early is not None:
            outcome.set_result(early)
            return
        assert code is not None
        try:
            judging = _Judging(problem, self.options, printed=True)
            flags = self.options.flags_for(language, problem)
            limits = self.options.limits_for(problem)
            if self.options.operator_flags(language) is not None:
                self.builder.trust(language, flags)  # the operator's: prepared for
            language.runtime()  # installed, or the program is UNSUPPORTED (below)
            building = self.builder.submit(language, code, flags)
        except ValueError as exc:  # a broken judge spec, or flags refused
            outcome.set_result(GradeResult(problem.id, Verdict.ERROR, message=clean_message(exc)))
            return
        except ToolchainMissing as exc:  # not installed here: nothing ran, no judgement
            outcome.set_result(_unsupported(problem, language, exc))
            return
        except OSError as exc:  # a toolchain that cannot run here
            reason = f"cannot build {language.name} programs here: {describe_failure(exc)}"
            outcome.set_result(GradeResult(problem.id, Verdict.ERROR, message=reason))
            return

        def built(done: Future[Build]) -> None:
            try:
                build = done.result()
            except ToolchainMissing as exc:
                outcome.set_result(_unsupported(problem, language, exc))
                return
            except Exception as exc:  # noqa: BLE001 - the toolchain, not the program
                reason = f"cannot build {language.name} programs here: {describe_failure(exc)}"
                outcome.set_result(GradeResult(problem.id, Verdict.ERROR, message=reason))
                return
            if not build.ok:
                outcome.set_result(_compile_error(problem, build))
                return
            try:
                job = stdio.build_program_job(problem, build, language, limits)
                self._run(problem, judging, job, outcome)
            except BaseException as exc:  # noqa: BLE001 - e.g. a closed pool: the caller's
                outcome.set_exception(exc)

        building.add_done_callback(built)

    def _run(self, problem: Problem, judging: _Judging, job: Job, outcome: Future[GradeResult]):
        """Run ``job`` in the pool and set ``outcome`` from its runs' verdicts (checkers
        asked after the run, never blocking a pool thread)."""
        verdicts: dict[int, Outcome] = {}
        on_result = _stop_at_failure(judging, verdicts) if self.options.early_exit else None
        running = self.pool.submit(job, on_result)

        def finish(done: Future[JobResult]) -> None:
            try:
                result = done.result()
            except BaseException as exc:  # noqa: BLE001 - decided below
                if is_machinery_failure(exc):
                    outcome.set_exception(exc)  # the run cannot go on: the caller decides
                else:  # this program's job broke the sandbox side: its ERROR, not the run's
                    why = f"the sandbox could not run this program: {describe_failure(exc)}"
                    outcome.set_result(_broken(problem, why))
                return
            checks: dict[int, Future[Outcome]] = {}
            for index, run in enumerate(result.runs):
                if index not in verdicts:
                    verdict = judging.verdict(index, run)
                    if verdict is None:
                        checks[index] = judging.ask_checker(_checker_pool, index, run)
                    else:
                        verdicts[index] = verdict
            _when_all(
                checks,
                verdicts,
                lambda: _collect(problem, result, verdicts),
                outcome,
                lambda reason: _broken(problem, reason),
            )

        def _checker_pool() -> SandboxPool:
            return self.checker_pool

        running.add_done_callback(finish)

    def close(self) -> None:
        if self._own_builder and self._builder is not None:  # first: finished builds
            self._builder.close()  # still queue their jobs
        if self._own_pool:
            self.pool.close()
        if self._own_checker_pool and self._checker_pool is not None:
            self._checker_pool.close()


def _broken(problem: Problem, reason: str) -> GradeResult:
    """The ERROR result of a program whose grading broke after it ran: every test says why
    (so a reward scores it 0.0, never "missing": see :mod:`evaluator.reward`)."""
    count = 1 if problem.harness is Harness.ASSERTION else max(len(problem.tests), 1)
    reason = clean_message(reason)
    tests = [TestResult(Verdict.ERROR, message=reason) for _ in range(count)]
    return GradeResult(problem.id, Verdict.ERROR, tests, message=reason)


def _not_text(text: object) -> str | None:
    """Why ``text`` cannot be handed to the sandbox, or None. Texts travel as UTF-8 with
    surrogate escapes (undecodable bytes read as ``\\udc80``-``\\udcff``); any other lone
    surrogate (a ``"\\ud800"`` escape in a JSON file) is not text at all."""
    if type(text) is not str:
        return f"it is {type(text).__name__}, not text"
    if text.isascii():
        return None
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        return f"it holds a lone surrogate, {text[exc.start]!r}, at character {exc.start}"
    return None


def _output_arg_problem(problem: Problem) -> str | None:
    """Why the problem's ``output_arg`` (the argument an in-place answer is read from) cannot
    be, or None: it is for functional problems only, and every test must pass that argument
    (its input has one JSON value per non-blank line, one per argument)."""
    index = problem.output_arg
    if problem.harness is not Harness.FUNCTIONAL:
        return f"output_arg is for functional problems only, not {problem.harness}"
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        return f"output_arg must be an argument's position (0 or more), not {index!r}"
    for number, test in enumerate(problem.tests):
        count = sum(1 for line in test.input.split("\n") if line.strip())
        if index >= count:
            return f"test {number} has {count} arguments: none at output_arg {index}"
    return None


def _unsendable(problem: Problem) -> str | None:
    """Why the problem's tests cannot be given to the sandbox, or None (its fault: ERROR)."""
    for index, test in enumerate(problem.tests):
        why = _not_text(test.input)
        if why is not None:
            return f"the input of test {index + 1} cannot be run: {why}"
    for name in ("test_code", "prompt") if problem.harness is Harness.ASSERTION else ():
        why = _not_text(getattr(problem, name))
        if why is not None:
            return f"the problem's {name} cannot be run: {why}"
    return None


def _refused_language(problem: Problem, language: Language) -> GradeResult | None:
    """A CE when the problem accepts only other languages (``metadata["languages"]``, a
    list of names); ``ValueError`` when that list is not one of known languages."""
    allowed = problem.metadata.get("languages")
    if allowed is None:
        return None
    if isinstance(allowed, str) or not isinstance(allowed, list | tuple):
        raise ValueError(f"the problem's languages must be a list of names, not {allowed!r}")
    names = [get_language(name).name for name in allowed]
    if language.name in names:
        return None
    message = f"this problem accepts {', '.join(names) or 'no'} programs, not {language.name}"
    tests = [TestResult(Verdict.CE, message=message) for _ in range(max(len(problem.tests), 1))]
    return GradeResult(problem.id, Verdict.CE, tests, message=message)


def _unsupported(problem: Problem, language: Language, missing: ToolchainMissing) -> GradeResult:
    """A program whose language's toolchain is not installed here: nothing ran, no judgement;
    the message names what to install (``mcevaluate languages`` lists them)."""
    message = f"{language.name} programs are not graded on this machine: {missing}"
    return GradeResult(problem.id, Verdict.UNSUPPORTED, message=message)


def _compile_error(problem: Problem, build: Build) -> GradeResult:
    """The result of a program that did not build: every test a CE saying why (the
    compiler's first error, or the limit it ran into); the first keeps the start of the
    compiler's diagnostics, where the first error is."""
    message = clean_message(build.message or "compilation failed")
    tests = [TestResult(Verdict.CE, message=message) for _ in problem.tests]
    # the compiler's diagnostics from their start, where the first error is: longer than a
    # program's stderr excerpt (one g++ error with its context is often past 200 characters)
    tests[0].stderr = excerpt(build.output.encode("utf-8", "replace"), limit=_DIAGNOSTICS_CAP)
    return GradeResult(problem.id, Verdict.CE, tests, message=message)


def _driven_program(
    problem: Problem, code: str | None, language: Language
) -> tuple[str | None, GradeResult | None]:
    """A compiled program on a problem that is not stdin: the source joined with its
    language's call driver (:mod:`evaluator.harness.native_call`), or the ERROR saying why
    it cannot be graded."""
    if problem.harness is Harness.FUNCTIONAL and language.name in native_call.driven_languages():
        try:
            return native_call.program(problem, code or "", language.name), None
        except ValueError as exc:
            return code, GradeResult(problem.id, Verdict.ERROR, message=clean_message(exc))
    takes = "stdin problems"
    if language.name in native_call.driven_languages():
        takes += " and functional ones"
    why = f"{language.name} programs are graded on {takes}, not {problem.harness}"
    return code, GradeResult(problem.id, Verdict.ERROR, message=why)


def _early_result(
    problem: Problem, code: str | None, check_text: bool = True
) -> GradeResult | None:
    if not problem.tests:
        return GradeResult(problem.id, Verdict.ERROR, message="the problem has no tests")
    unsendable = _unsendable(problem)
    if unsendable is not None:
        return GradeResult(problem.id, Verdict.ERROR, message=clean_message(unsendable))
    if problem.harness is Harness.FUNCTIONAL and not problem.func_name:
        return GradeResult(
            problem.id, Verdict.ERROR, message="functional problem without func_name"
        )
    if problem.output_arg is not None:
        wrong = _output_arg_problem(problem)
        if wrong is not None:
            return GradeResult(problem.id, Verdict.ERROR, message=wrong)
    if problem.harness is not Harness.STDIN and (problem.input_file or problem.output_file):
        why = f"input_file/output_file are for stdin problems only, not {problem.harness}"
        return GradeResult(problem.id, Verdict.ERROR, message=why)
    if code is None or not code.strip():
        tests = [TestResult(Verdict.NO_CODE, message="no code") for _ in problem.tests]
        return GradeResult(problem.id, Verdict.NO_CODE, tests, message="no code in the answer")
    why = _not_text(code) if check_text else None
    if why is not None:  # what a plain run says of a source file that is not UTF-8
        message = clean_message(f"SyntaxError: the program is not UTF-8 text: {why}")
        count = 1 if problem.harness is Harness.ASSERTION else len(problem.tests)
        tests = [TestResult(Verdict.RE, message=message) for _ in range(count)]
        return GradeResult(problem.id, Verdict.RE, tests, message=message)
    return None


def _stop_at_failure(judging: _Judging, verdicts: dict[int, Outcome]):
    def on_result(index: int, run: RunResult) -> bool:
        verdict = judging.verdict(index, run)
        if verdict is None:  # the checker decides after the run: go on
            return True
        verdicts[index] = verdict
        return verdict[0] is Verdict.AC

    return on_result


def _when_all(
    checks: Mapping[int, Future[Outcome]],
    verdicts: dict[int, Outcome],
    collect: Callable[[], GradeResult],
    outcome: Future[GradeResult],
    broken: Callable[[str], GradeResult],
) -> None:
    """Store each checker's verdict as it arrives; when the last one has, set ``outcome`` to
    ``collect()`` (``broken(reason)`` if that fails). Only callbacks: no thread ever waits."""
    remaining = [len(checks)]
    lock = threading.Lock()

    def settle() -> None:
        try:
            result = collect()
        except Exception as exc:  # noqa: BLE001 - this program's result only
            result = broken(f"the grader failed collecting the verdicts: {describe_failure(exc)}")
        outcome.set_result(result)

    def arrived(index: int, future: Future[Outcome]) -> None:
        try:
            verdict = future.result()
        except BaseException as exc:  # noqa: BLE001 - the checker's failure, not the program's
            verdict = (Verdict.ERROR, f"checker: {exc}")
        with lock:
            verdicts[index] = verdict
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            settle()

    if not checks:
        settle()
        return
    for index, future in checks.items():
        future.add_done_callback(lambda done, index=index: arrived(index, done))


def _collect(problem: Problem, job: JobResult, verdicts: dict[int, Outcome]) -> GradeResult:
    """The result once every run has its verdict in ``verdicts``."""
    tests: list[TestResult] = []
    excerpted = False
    for index, run in enumerate(job.runs):
        verdict, message = verdicts[index]
        test = TestResult(
            Verdict(verdict),
            float(run.cpu_time),
            float(run.wall_time),
            int(run.peak_memory_kb),
            clean_message(message),
            limit=None if run.limit is None else str(run.limit),
        )
        if test.verdict is not Verdict.AC and not excerpted:  # the first failure only
            test.stdout, test.stderr = excerpt(run.stdout), excerpt(run.stderr, tail=True)
            excerpted = True
        tests.append(test)
    expected = 1 if problem.harness is Harness.ASSERTION else len(problem.tests)
    tests += [TestResult(Verdict.SKIPPED) for _ in range(expected - len(tests))]
    failed = next((t for t in tests if t.verdict is not Verdict.AC), None)
    if failed is None:
        return GradeResult(problem.id, Verdict.AC, tests, limits=job.limits)
    if problem.needs_checker and failed.verdict is Verdict.WA:
        message = f"{failed.message} ({UNCHECKED_NOTE})"
        return GradeResult(problem.id, failed.verdict, tests, message, job.limits, unchecked=True)
    return GradeResult(problem.id, failed.verdict, tests, failed.message, job.limits)


def grade(
    problem: Problem,
    code: str | None,
    options: GradeOptions | None = None,
    language: Language | str | None = None,
) -> GradeResult:
    """Grade one program on one problem with a short-lived single-worker pool."""
    with Grader(options, workers=1, precompiled_headers=False) as grader:
        return grader.grade(problem, code, language)


def grade_many(
    items: Sequence[tuple[Problem, str | None]],
    options: GradeOptions | None = None,
    workers: int | None = None,
) -> list[GradeResult]:
    """Grade many (problem, program) pairs in parallel; results in input order."""
    with Grader(options, workers=workers) as grader:
        return grader.grade_many(items)
