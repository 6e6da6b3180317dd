"""The reward TRL calls: :class:`CodeReward` (and :class:`AsyncCodeReward`, its ``async``
form) grades each completion's code against its sample's tests in a warm pool of fork
servers; the call contract, the rewards and the defaults are in :mod:`evaluator.reward`."""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any

from evaluator.languages import program_language
from evaluator.problem import Problem, Verdict
from evaluator.reward.columns import ProblemCache, languages_column, program_of
from evaluator.runner.grading import GradeOptions, Grader, GradeResult
from evaluator.sandbox.records import Isolation

NO_CODE = "NO_CODE"
ERROR = "ERROR"
VERDICT_NAMES = ("AC", "WA", "TLE", "MLE", "RE", "OLE", "CE", NO_CODE, ERROR)
"""Every verdict a reward call reports (one ``<prefix>/verdict_<name>`` metric each)."""
WRONG_VERDICTS = frozenset({"WA", "TLE", "MLE", "RE", "OLE", "CE"})
"""Verdicts of completions judged and found wrong (``NO_CODE`` and ``ERROR`` are no
judgement: nothing ran, as in ``trainer_addon.masking``; a C++ program that does not build
is judged, as a Python one with a syntax error is an ``RE``)."""

_MODES = ("binary", "fraction")


@dataclass(slots=True)
class RewardDetails:
    """Everything one reward call decided, in completion order."""

    rewards: list[float | None]
    verdicts: list[str]
    results: list[GradeResult | None]
    seconds: float


class CodeReward:
    """Reward of code completions by running them against each sample's tests (the call, the
    rewards and the defaults: :mod:`evaluator.reward`).

    ``mode``: ``"binary"`` or ``"fraction"``; ``no_code_penalty``: the reward of an answer
    without code; ``options``: grading defaults (RL defaults when None); ``workers``: fork
    servers of the pool this reward makes (default: CPU cores); ``pool``: a pool to share
    instead; ``log_metric``: called as ``log_metric(name, value)`` after each
    call (TRL's ``log_metric`` keyword, when TRL passes one, is used as well);
    ``time_limit``/``memory_limit``: defaults (CPU seconds per test, MB) for problems that set
    none, overriding those of ``options``;
    ``metric_prefix``: the metrics' name prefix; ``cache_size``: decoded problems kept;
    ``language``: what completions are written in when their ``language`` column does not say
    (None: each answer's code fence, else Python; :func:`~evaluator.languages.program_language`).
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
    ) -> None:
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
        self.log_metric = log_metric
        self.metric_prefix = metric_prefix
        self.cache_size = max(1, cache_size)
        self._pool = pool
        self._init_state()
        self.last_results: list[GradeResult | None] = []
        self.last_verdicts: list[str] = []
        self.last_rewards: list[float | None] = []

    def _init_state(self) -> None:
        self._grader: Grader | None = None
        self._lock = threading.Lock()
        self._problems = ProblemCache(self.cache_size)
        self._closed = False

    # -- pickling (e.g. to a Ray actor): the pool stays behind, the copy makes its own --------

    def __getstate__(self) -> dict[str, Any]:
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("_grader", "_lock", "_problems", "_pool", "_closed", "_exit_hook")
        }
        state["last_results"], state["last_verdicts"], state["last_rewards"] = [], [], []
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._pool = None
        self._init_state()

    # -- the warm grader ----------------------------------------------------------------------

    @property
    def grader(self) -> Grader:
        """The grader (and its pool), created on first use and kept between calls."""
        grader = self._grader
        if grader is not None:
            return grader
        with self._lock:
            if self._closed:
                raise RuntimeError("this CodeReward is closed")
            if self._grader is None:
                if self.backend == "ray":  # actors with their own sandbox pools, per node
                    from evaluator.backends.ray_backend import RayGrader

                    options = {"address": self.ray_address, **(self.ray_options or {})}
                    self._grader = RayGrader(self.options, **options)
                elif self._pool is not None:
                    self._grader = Grader(self.options, pool=self._pool)
                else:
                    self._grader = Grader(self.options, workers=self.workers)
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
    def cache_hits(self) -> int:
        """Problems found in the cache (:class:`~evaluator.reward.columns.ProblemCache`)."""
        return self._problems.hits

    @property
    def cache_misses(self) -> int:
        """Problems decoded (each distinct problem once, while it stays in the cache)."""
        return self._problems.misses

    def problem_for(self, fields: Mapping[str, Any]) -> Problem | None:
        """The sample's problem, decoded once per distinct problem (LRU cache); None when it
        cannot be decoded."""
        return self._problems.for_fields(fields)

    # -- grading -------------------------------------------------------------------------------

    def _submit(
        self,
        problems: Sequence[Problem | None],
        completions: Sequence[Any],
        languages: Sequence[str | None] | None = None,
    ) -> list[Future[GradeResult] | str]:
        """A future per completion that needs running, or its verdict when nothing runs.
        ``languages``: each completion's stated language (None: this reward's, else its
        fence's)."""
        if len(problems) != len(completions):
            raise ValueError(f"{len(problems)} problems for {len(completions)} completions")
        stated = list(languages) if languages is not None else [None] * len(completions)
        grader = self.grader
        pending: list[Future[GradeResult] | str] = []
        for problem, completion, language in zip(problems, completions, stated, strict=True):
            if problem is None:
                pending.append(ERROR)
                continue
            code, fence = program_of(completion)
            if code is None or not code.strip():
                pending.append(NO_CODE)
                continue
            try:
                name = program_language(language or self.language, fence)
            except ValueError:  # a row naming a language not graded here: that row's ERROR
                pending.append(ERROR)
                continue
            pending.append(grader.submit(problem, code, name))
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
        for item, outcome in zip(pending, outcomes, strict=True):
            if isinstance(item, str):
                results.append(None)
                verdicts.append(item)
                rewards.append(self.no_code_penalty if item == NO_CODE else None)
                continue
            if not isinstance(outcome, GradeResult):  # the grader failed: never the program's win
                results.append(None)
                verdicts.append(ERROR)
                rewards.append(0.0)
                continue
            results.append(outcome)
            verdicts.append(str(outcome.verdict))
            rewards.append(self._reward_of(outcome))
        details = RewardDetails(rewards, verdicts, results, time.perf_counter() - started)
        self.last_results, self.last_verdicts, self.last_rewards = results, verdicts, rewards
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
        for sink in dict.fromkeys(sinks):
            for name, value in metrics.items():
                try:
                    sink(name, value)
                except Exception:  # noqa: BLE001 - logging must never cost a training step
                    pass

    # -- entry points --------------------------------------------------------------------------

    def score_details(
        self,
        problems: Sequence[Problem | None],
        completions: Sequence[Any],
        log_metric: Callable[[str, float], None] | None = None,
        languages: Sequence[str | None] | None = None,
    ) -> RewardDetails:
        """Grade completions against already-built problems (None: undecodable), blocking;
        ``languages``: each completion's, where it is stated."""
        started = time.perf_counter()
        pending = self._submit(problems, completions, languages)
        outcomes = self._wait(pending)
        return self._finish(pending, outcomes, started, log_metric)

    def score(
        self,
        problems: Sequence[Problem | None],
        completions: Sequence[Any],
        languages: Sequence[str | None] | None = None,
    ) -> list[float | None]:
        """Plain-Python form: rewards of ``completions`` against ``problems``, in order."""
        return self.score_details(problems, completions, languages=languages).rewards

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        completions = list(completions or [])
        problems = self._problems.for_columns(len(completions), columns)
        languages = languages_column(len(completions), columns)
        return self.score_details(
            problems, completions, columns.get("log_metric"), languages
        ).rewards

    def judged_wrong(self, index: int) -> bool:
        """Whether completion ``index`` of the last call was judged and found wrong (WA, TLE,
        MLE, RE, OLE, CE); False for AC, NO_CODE and ERROR (nothing was judged)."""
        return self.last_verdicts[index] in WRONG_VERDICTS


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
        completions = list(completions or [])
        started = time.perf_counter()

        def prepare():
            problems = self._problems.for_columns(len(completions), columns)
            return self._submit(problems, completions, languages_column(len(completions), columns))

        pending = await asyncio.to_thread(prepare)
        outcomes = await self._gather(pending)
        return self._finish(pending, outcomes, started, columns.get("log_metric")).rewards

    @staticmethod
    async def _gather(pending: Sequence[Future[GradeResult] | str]) -> list[Any]:
        waits = [asyncio.wrap_future(item) for item in pending if not isinstance(item, str)]
        done = iter(await asyncio.gather(*waits, return_exceptions=True))
        return [None if isinstance(item, str) else next(done) for item in pending]

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
