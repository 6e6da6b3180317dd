"""The reward TRL calls: :class:`CodeReward` (and :class:`AsyncCodeReward`, its ``async``
form) grades each completion's code against its sample's tests in a warm pool of fork
servers; the call contract, the rewards and the defaults are in :mod:`evaluator.reward`."""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator.languages import program_language
from evaluator.problem import Problem, Verdict
from evaluator.reward.columns import ProblemCache, ProblemError, languages_column
from evaluator.runner.answers import problem_language, resolve_program, unsupported_message
from evaluator.runner.grading import UNCHECKED_NOTE, GradeOptions, Grader, GradeResult
from evaluator.sandbox.jobs import Isolation

__all__ = [
    "BAD_PROBLEM_ACTIONS",
    "ERROR",
    "NO_CODE",
    "UNSUPPORTED",
    "VERDICT_NAMES",
    "WRONG_VERDICTS",
    "AsyncCodeReward",
    "CodeReward",
    "NotRun",
    "RewardDetails",
    "Submission",
]

NO_CODE = "NO_CODE"
ERROR = "ERROR"
UNSUPPORTED = "UNSUPPORTED"
VERDICT_NAMES = ("AC", "WA", "TLE", "MLE", "RE", "OLE", "CE", NO_CODE, ERROR, UNSUPPORTED)
"""Every verdict a reward call reports (one ``<prefix>/verdict_<name>`` metric each)."""
WRONG_VERDICTS = frozenset({"WA", "TLE", "MLE", "RE", "OLE", "CE"})
"""Verdicts of completions judged and found wrong (``NO_CODE``, ``ERROR`` and
``UNSUPPORTED`` are no judgement: nothing ran, as in ``trainer_addon.masking``; a C++ program that does not build
is judged, as a Python one with a syntax error is an ``RE``)."""

_MODES = ("binary", "fraction")
BAD_PROBLEM_ACTIONS = ("raise", "skip")
"""What a reward does with a row whose problem cannot be read (``on_bad_problem``)."""
_LOG = logging.getLogger("evaluator.reward")
# Names other frameworks give a reward's arguments: told apart from dataset columns only to say
# what a wrong call passed (CodeReward is called TRL's way; the adapters take the others').
_OTHER_FRAMEWORKS_ARGUMENTS = frozenset(
    {"completion", "answer", "info", "solution_str", "solution_strs", "ground_truth",
     "response", "responses", "label", "labels", "queries", "query", "sample", "samples"}
)  # fmt: skip


# What a pickled reward leaves behind: its process's state (a pool, a cache, a lock, what it
# was given to share), which the copy makes anew in its own process.
_NOT_PICKLED = frozenset(
    {"_grader", "_lock", "_problems", "_pool", "_closed", "_exit_hook", "_warned",
     "_given_problems", "_given_grader"}
)  # fmt: skip


@dataclass(slots=True)
class RewardDetails:
    """Everything one reward call decided, in completion order; ``reasons``: why each
    completion got its verdict, in a line ("" for an AC)."""

    rewards: list[float | None]
    verdicts: list[str]
    results: list[GradeResult | None]
    seconds: float
    reasons: list[str] = field(default_factory=list)


class CodeReward:
    """Reward of code completions by running them against each sample's tests (the call, the
    rewards and the defaults: :mod:`evaluator.reward`).

    ``mode``: ``"binary"`` or ``"fraction"``; ``no_code_penalty``: the reward of an answer
    without code; ``options``: grading defaults (RL defaults when None); ``workers``: fork
    servers of the pool this reward makes (default: CPU cores), of which ``started`` start
    with it (default all; the rest as calls overlap); ``shared_pool``: that pool's jobs run in
    the user's pool daemon, whose fork servers every process shares and which outlives this
    one (:class:`~evaluator.sandbox.shared_pool.SharedSandboxPool`: nothing to start in a
    short-lived process); ``pool``: a pool to share instead; ``log_metric``: called as
    ``log_metric(name, value)`` after each call (TRL's ``log_metric`` keyword, when TRL passes
    one, is used as well); ``time_limit``/``memory_limit``: defaults (CPU seconds per test, MB)
    for problems that set none, overriding those of ``options``;
    ``metric_prefix``: the metrics' name prefix; ``cache_size``: decoded problems kept;
    ``language``: what completions are written in when their ``language`` column does not say
    (None: each answer's code fence, else Python; :func:`~evaluator.languages.program_language`).
    ``on_bad_problem``: what a row whose problem cannot be read does (a dataset's defect, not a
    model's mistake): ``"raise"`` (default) raises :class:`~evaluator.reward.ProblemError`
    naming the row and field before anything runs; ``"skip"`` gives that row no reward
    (``None``, verdict ``ERROR``), logs one warning per distinct problem and counts it in
    :attr:`bad_problems` and the ``<prefix>/bad_problems`` metric.
    ``problems``: a cache of decoded problems to share with other rewards (a server's, for
    every request) instead of one of ``cache_size`` of its own; ``grader``: a grader to grade
    with instead of making one (a server's, over its pool and builder): its owner closes it,
    this reward never does, and a pickled copy makes its own.
    """

    __name__ = "code_reward"

    def __init__(
        self,
        *,
        mode: str = "binary",
        no_code_penalty: float = 0.0,
        options: GradeOptions | None = None,
        workers: int | None = None,
        pool: Any = None,
        log_metric: Callable[[str, float], None] | None = None,
        time_limit: float | None = None,
        memory_limit: int | None = None,
        metric_prefix: str = "reward",
        cache_size: int = 4096,
        backend: str = "local",
        ray_address: str | None = None,
        ray_options: dict[str, Any] | None = None,
        language: str | None = None,
        on_bad_problem: str = "raise",
        problems: ProblemCache | None = None,
        grader: Grader | None = None,
        started: int | None = None,
        shared_pool: bool = False,
    ) -> None:
        if on_bad_problem not in BAD_PROBLEM_ACTIONS:
            raise ValueError(
                f"on_bad_problem must be one of {BAD_PROBLEM_ACTIONS}, not {on_bad_problem!r}"
            )
        self.on_bad_problem = on_bad_problem
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, not {mode!r}")
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray', not {backend!r}")
        self.backend, self.ray_address, self.ray_options = backend, ray_address, ray_options
        self.mode = mode
        self.language = None if language is None else program_language(language)
        self.no_code_penalty = float(no_code_penalty)
        options = options or GradeOptions(
            isolation=Isolation.ADAPTIVE,
            early_exit=mode == "binary",
            wall_factor=1.0,  # a training step waits for its slowest completion: 1x + 0.5 s
            wall_slack=0.5,
        )
        if time_limit is not None:
            options = replace(options, time_limit=float(time_limit))
        if memory_limit is not None:
            options = replace(options, memory_limit=int(memory_limit))
        self.options = options
        self.workers = workers
        self.started = started
        self.shared_pool = shared_pool
        self.log_metric = log_metric
        self.metric_prefix = metric_prefix
        self.cache_size = max(1, cache_size)
        self._pool = pool
        self._given_problems, self._given_grader = problems, grader
        self._init_state()
        self.last_results: list[GradeResult | None] = []
        self.last_verdicts: list[str] = []
        self.last_rewards: list[float | None] = []
        self.last_reasons: list[str] = []

    def _init_state(self) -> None:
        self._grader: Grader | None = None
        self._lock = threading.Lock()
        self._problems = self._given_problems or ProblemCache(self.cache_size)
        self._closed = False
        self._warned: set[str] = set()  # bad problems already logged (on_bad_problem="skip")
        self.bad_problems = 0  # rows skipped for a problem that cannot be read

    # -- pickling (e.g. to a Ray actor): the pool stays behind, the copy makes its own --------

    def __getstate__(self) -> dict[str, Any]:
        state = {key: value for key, value in self.__dict__.items() if key not in _NOT_PICKLED}
        state["last_results"], state["last_verdicts"], state["last_rewards"] = [], [], []
        state["last_reasons"] = []
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._pool = None
        self._given_problems, self._given_grader = None, None  # the process's own, not a copy
        self._init_state()

    # -- the warm grader ----------------------------------------------------------------------

    @property
    def grader(self) -> Grader:
        """The grader (and its pool), created on first use and kept between calls (or the
        ``grader=`` given)."""
        grader = self._grader if self._given_grader is None else self._given_grader
        if grader is not None and not self._closed:
            return grader
        with self._lock:
            if self._closed:
                raise RuntimeError("this CodeReward is closed")
            if self._given_grader is not None:  # its owner closes it: no exit hook
                return self._given_grader
            if self._grader is None:
                if self.backend == "ray":  # actors with their own sandbox pools, per node
                    from evaluator.backends.ray_backend import RayGrader

                    options = {"address": self.ray_address, **(self.ray_options or {})}
                    self._grader = RayGrader(self.options, **options)
                elif self._pool is not None:
                    self._grader = Grader(self.options, pool=self._pool)
                else:
                    self._grader = Grader(
                        self.options,
                        workers=self.workers,
                        started=self.started,
                        shared_pool=self.shared_pool,
                    )
                if self._pool is None:  # what this reward started, it stops
                    self._close_at_exit()
            return self._grader

    def _close_at_exit(self) -> None:
        """Stop the grader when the interpreter exits, if :meth:`close` has not: a reward
        pickled into another process (TRL's rollout process, a Ray actor) starts its pool
        there and must stop it, servers and temp dirs, when that process ends."""
        if "_exit_hook" in self.__dict__:
            return
        ref = weakref.ref(self)

        def close_at_exit() -> None:
            reward = ref()
            if reward is not None:
                reward.__dict__.pop("_exit_hook", None)
                reward._shutdown()

        self._exit_hook = close_at_exit
        atexit.register(close_at_exit)

    def close(self) -> None:
        """Stop the pool this reward made (a shared ``pool=`` is left running)."""
        hook = self.__dict__.pop("_exit_hook", None)
        if hook is not None:
            atexit.unregister(hook)
        self._shutdown()

    def _shutdown(self) -> None:
        with self._lock:
            grader, self._grader = self._grader, None
            self._closed = True
        if grader is not None:
            grader.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (a closed reward grades nothing more)."""
        return self._closed

    def __enter__(self) -> CodeReward:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            grader = self.__dict__.get("_grader")
            if grader is not None:
                self._grader = None
                grader.close()
        except Exception:  # noqa: BLE001 - never raise from a finaliser (e.g. at shutdown)
            pass

    # -- problems ------------------------------------------------------------------------------

    @property
    def problems(self) -> ProblemCache:
        """The cache of decoded problems (``problems=`` when one was given): adapters that read
        problems from their framework's own fields decode each distinct one once through it
        (:meth:`ProblemCache.get`, :meth:`ProblemCache.for_record`)."""
        return self._problems

    @property
    def cache_hits(self) -> int:
        """Problems found in the cache (:class:`~evaluator.reward.columns.ProblemCache`)."""
        return self._problems.hits

    @property
    def cache_misses(self) -> int:
        """Problems decoded (each distinct problem once, while it stays in the cache)."""
        return self._problems.misses

    def _readable(
        self, problems: Sequence[Problem | ProblemError | None], action: str | None = None
    ) -> list[Problem | ProblemError | None]:
        """``problems`` as they are, once every one that cannot be read has been dealt with by
        ``action`` (default: ``on_bad_problem``): the first raises (naming its row) or each
        is logged once and counted."""
        action = action or self.on_bad_problem
        if action not in BAD_PROBLEM_ACTIONS:
            raise ValueError(f"on_bad_problem must be one of {BAD_PROBLEM_ACTIONS}, not {action!r}")
        for index, problem in enumerate(problems):
            if not isinstance(problem, ProblemError):
                continue
            if action == "raise":
                raise ProblemError(
                    f"row {index} of the batch: {problem} (a dataset's defect: fix the row, or "
                    "pass on_bad_problem='skip' to give such rows no reward)"
                ) from None
            with self._lock:
                self.bad_problems += 1
                first = str(problem) not in self._warned
                self._warned.add(str(problem))
            if first:
                _LOG.warning("skipping a problem that cannot be read: %s", problem)
        return list(problems)

    # -- grading -------------------------------------------------------------------------------

    def submit(
        self,
        problems: Sequence[Problem | ProblemError | None],
        completions: Sequence[Any],
        languages: Sequence[str | None] | None = None,
        on_bad_problem: str | None = None,
    ) -> Submission:
        """Hand ``completions`` to the pool against ``problems`` without waiting (the problems
        and arguments as :meth:`score_details` takes them); the :class:`Submission`'s
        :meth:`~Submission.details` (or ``await`` :meth:`~Submission.details_async`) scores
        them. A problem that cannot be read raises here, before anything runs, unless
        ``on_bad_problem`` is ``"skip"``. For adapters that decode their framework's problems
        and submit in a worker thread, then await the results on an event loop."""
        started = time.perf_counter()
        pending = self._submit(problems, completions, languages, on_bad_problem)
        return Submission(self, pending, started)

    def _submit(
        self,
        problems: Sequence[Problem | ProblemError | None],
        completions: Sequence[Any],
        languages: Sequence[str | None] | None = None,
        on_bad_problem: str | None = None,
    ) -> list[Future[GradeResult] | str]:
        """A future per completion that needs running, or its verdict when nothing runs.
        ``languages``: each completion's stated language (None: this reward's, else its
        fence's). A problem that cannot be read (a :class:`ProblemError`) raises first,
        before anything runs, unless ``on_bad_problem`` (default: this reward's) is
        ``"skip"``."""
        if len(problems) != len(completions):
            raise ValueError(f"{len(problems)} problems for {len(completions)} completions")
        problems = self._readable(problems, on_bad_problem)
        stated = list(languages) if languages is not None else [None] * len(completions)
        grader = self.grader
        pending: list[Future[GradeResult] | str] = []
        for problem, completion, language in zip(problems, completions, stated, strict=True):
            if problem is None or isinstance(problem, ProblemError):
                pending.append(NotRun(ERROR, str(problem or "no problem given")))
                continue
            program = resolve_program(
                completion, language, self.language, problem_language(problem)
            )
            if program.code is None or not program.code.strip():
                pending.append(NotRun(NO_CODE, "the answer holds no code"))
                continue
            if program.language is None:  # not graded here: nothing runs, no judgement
                pending.append(NotRun(UNSUPPORTED, unsupported_message(str(program.stated))))
                continue
            pending.append(grader.submit(problem, program.code, program.language))
        return pending

    @staticmethod
    def _wait(pending: Sequence[Future[GradeResult] | str]) -> list[Any]:
        outcomes: list[GradeResult | BaseException | None] = []
        for item in pending:
            if isinstance(item, str):
                outcomes.append(None)
                continue
            try:
                outcomes.append(item.result())
            except BaseException as exc:  # noqa: BLE001 - one failure is one ERROR
                outcomes.append(exc)
        return outcomes

    def _finish(
        self,
        pending: Sequence[Future[GradeResult] | str],
        outcomes: Sequence[GradeResult | BaseException | None],
        started: float,
        log_metric: Callable[[str, float], None] | None,
    ) -> RewardDetails:
        rewards: list[float | None] = []
        verdicts: list[str] = []
        results: list[GradeResult | None] = []
        reasons: list[str] = []
        for item, outcome in zip(pending, outcomes, strict=True):
            if isinstance(item, str):
                results.append(None)
                verdicts.append(item)
                rewards.append(self.no_code_penalty if item == NO_CODE else None)
                reasons.append(getattr(item, "reason", item))
                continue
            if not isinstance(outcome, GradeResult):  # the grader failed: never the program's win
                results.append(None)
                verdicts.append(ERROR)
                rewards.append(0.0)
                reasons.append(f"the grader failed: {outcome!r}"[:300])
                continue
            results.append(outcome)
            verdicts.append(str(outcome.verdict))
            rewards.append(self._reward_of(outcome))
            reasons.append(_reason(outcome))
        details = RewardDetails(rewards, verdicts, results, time.perf_counter() - started, reasons)
        self.last_results, self.last_verdicts, self.last_rewards = results, verdicts, rewards
        self.last_reasons = reasons
        self._log(details, log_metric)
        return details

    def _reward_of(self, result: GradeResult) -> float | None:
        if result.verdict is Verdict.ERROR and not result.tests:
            return None  # nothing ran: the problem is broken (zero tests, bad judge spec)
        if self.mode == "binary":
            return 1.0 if result.passed else 0.0
        return result.fraction

    def _log(self, details: RewardDetails, extra: Callable[[str, float], None] | None) -> None:
        sinks = [sink for sink in (self.log_metric, extra) if sink is not None]
        if not sinks:
            return
        counts = Counter(details.verdicts)
        graded = [r for r in details.results if r is not None]
        tests_run = [sum(t.verdict is not Verdict.SKIPPED for t in r.tests) for r in graded]
        metrics: dict[str, float] = {
            f"{self.metric_prefix}/verdict_{name}": float(counts.get(name, 0))
            for name in VERDICT_NAMES
        }
        metrics[f"{self.metric_prefix}/tests_run_mean"] = (
            sum(tests_run) / len(tests_run) if tests_run else 0.0
        )
        metrics[f"{self.metric_prefix}/grading_seconds"] = details.seconds
        metrics[f"{self.metric_prefix}/bad_problems"] = float(self.bad_problems)
        # WAs on problems whose statements accept many answers, without a checker: rewards
        # of 0 that may be right answers (evaluator.formats.statement)
        metrics[f"{self.metric_prefix}/unchecked_wrong"] = float(sum(r.unchecked for r in graded))
        for sink in dict.fromkeys(sinks):
            for name, value in metrics.items():
                try:
                    sink(name, value)
                except Exception:  # noqa: BLE001 - logging must never cost a training step
                    pass

    # -- entry points --------------------------------------------------------------------------

    def score_details(
        self,
        problems: Sequence[Problem | ProblemError | None],
        completions: Sequence[Any],
        log_metric: Callable[[str, float], None] | None = None,
        languages: Sequence[str | None] | None = None,
        on_bad_problem: str | None = None,
    ) -> RewardDetails:
        """Grade completions against already-built problems (None: no problem, that
        completion's ERROR; a :class:`ProblemError`: as ``on_bad_problem`` says), blocking;
        ``languages``: each completion's, where it is stated."""
        return self.submit(problems, completions, languages, on_bad_problem).details(log_metric)

    def score(
        self,
        problems: Sequence[Problem | ProblemError | None],
        completions: Sequence[Any],
        languages: Sequence[str | None] | None = None,
        on_bad_problem: str | None = None,
    ) -> list[float | None]:
        """Plain-Python form: rewards of ``completions`` against ``problems``, in order."""
        return self.score_details(
            problems, completions, languages=languages, on_bad_problem=on_bad_problem
        ).rewards

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        completions = _completions(completions, columns)
        problems = self._problems.for_columns(len(completions), columns)
        languages = languages_column(len(completions), columns)
        return self.score_details(
            problems, completions, columns.get("log_metric"), languages
        ).rewards

    def judged_wrong(self, index: int) -> bool:
        """Whether completion ``index`` of the last call was judged and found wrong (WA, TLE,
        MLE, RE, OLE, CE); False for AC, NO_CODE and ERROR (nothing was judged)."""
        return self.last_verdicts[index] in WRONG_VERDICTS


@dataclass(slots=True)
class Submission:
    """Completions in the pool (:meth:`CodeReward.submit`): each one's future, or its verdict
    where nothing runs. Scored once, by :meth:`details` or :meth:`details_async`."""

    reward: CodeReward
    pending: list[Future[GradeResult] | str]
    started: float

    def details(self, log_metric: Callable[[str, float], None] | None = None) -> RewardDetails:
        """The rewards, verdicts and reasons, waiting for every program (blocking); the
        reward's ``last_*`` attributes and metrics (and ``log_metric``'s) as a call's."""
        outcomes = self.reward._wait(self.pending)
        return self.reward._finish(self.pending, outcomes, self.started, log_metric)

    async def details_async(
        self, log_metric: Callable[[str, float], None] | None = None
    ) -> RewardDetails:
        """:meth:`details` without blocking the event loop: it awaits the programs' futures."""
        outcomes = await _gather(self.pending)
        return self.reward._finish(self.pending, outcomes, self.started, log_metric)


async def _gather(pending: Sequence[Future[GradeResult] | str]) -> list[Any]:
    """Each pending item's outcome (a result, or the exception it raised; None for a verdict
    given without running), awaited together on the running loop."""
    waits = [asyncio.wrap_future(item) for item in pending if not isinstance(item, str)]
    done = iter(await asyncio.gather(*waits, return_exceptions=True))
    return [None if isinstance(item, str) else next(done) for item in pending]


class NotRun(str):
    """The verdict of a completion that is not run (``NO_CODE``, ``ERROR``), with its reason."""

    reason: str

    def __new__(cls, verdict: str, reason: str) -> NotRun:
        item = super().__new__(cls, verdict)
        item.reason = reason
        return item


def _reason(result: GradeResult) -> str:
    """Why a graded completion got its verdict: its first test that did not pass (number,
    verdict, message) or the result's own message; "" when it passed."""
    if result.passed:
        return ""
    for index, test in enumerate(result.tests):
        if test.verdict is not Verdict.AC and test.verdict is not Verdict.SKIPPED:
            message = f": {test.message}" if test.message else ""
            # the trace of an unchecked many-answer WA first: the test's message may be long
            note = f"({UNCHECKED_NOTE}) " if result.unchecked else ""
            return f"{note}test {index + 1}: {test.verdict}{message}"[:300]
    return f"{result.verdict}: {result.message}"[:300] if result.message else str(result.verdict)


def _completions(completions: Any, columns: Mapping[str, Any]) -> list[Any]:
    """The completions of a TRL-style call, checked: a call without them (another framework's
    argument names, a misspelt keyword) raises naming what it got and what is expected,
    rather than returning no rewards."""
    if completions is None or isinstance(completions, str | bytes):
        got = ", ".join(sorted(columns)) or "no keywords"
        hint = sorted(_OTHER_FRAMEWORKS_ARGUMENTS & set(columns))
        other = (
            f" ({', '.join(hint)} is how other frameworks call a reward: use their adapters "
            "in evaluator.reward)"
            if hint
            else ""
        )
        what = "a string" if completions is not None else "none"
        raise TypeError(
            f"CodeReward is called as reward(prompts, completions, completion_ids, **columns) "
            f"with a list of completions; got {what} for completions and {got}{other}"
        )
    return list(completions)


class AsyncCodeReward(CodeReward):
    """:class:`CodeReward` as ``async def __call__``: TRL awaits it alongside its other async
    reward functions. Decoding runs in a worker thread, grading in the pool; the event loop
    only awaits futures. ``inspect.iscoroutinefunction(reward)`` is True, which is how TRL
    tells async reward functions apart."""

    async def __call__(  # type: ignore[override]
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        completions = _completions(completions, columns)

        def prepare() -> Submission:
            problems = self._problems.for_columns(len(completions), columns)
            return self.submit(problems, completions, languages_column(len(completions), columns))

        submission = await asyncio.to_thread(prepare)
        return (await submission.details_async(columns.get("log_metric"))).rewards

    # Function-like attributes so that inspect.iscoroutinefunction() (and asyncio's) say True
    # for instances on Python 3.11, where an async __call__ alone is not enough.
    __code__ = __call__.__code__
    __defaults__ = None
    __kwdefaults__ = None

    @property
    def __signature__(self) -> Any:
        import inspect

        return inspect.signature(type(self).__call__).replace(
            parameters=list(inspect.signature(type(self).__call__).parameters.values())[1:]
        )
