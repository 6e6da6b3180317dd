"""Rewards for RL training: TRL reward functions, a verl ``compute_score`` adapter, plain Python.

:class:`CodeReward` is called with TRL's reward-function signature::

    reward = CodeReward(mode="binary", no_code_penalty=-0.1)
    rewards = reward(prompts, completions, completion_ids, **columns)  # list[float | None]

* ``completions``: strings, or chat messages in TRL's conversational format (a list of
  ``{"role", "content"}`` dicts; the content of the last ``assistant`` message is the answer;
  a content given as a list of parts has its ``text`` parts joined).
* ``columns``: the dataset's fields, one list aligned with ``completions`` per field (a scalar
  is used for every sample). Two problem forms are read, per sample:

  - ours: a ``tests`` column (a list of ``{"input", "output"}`` or its JSON text) with
    a column for any other field of our schema (``harness``, ``func_name``, ``judge``,
    ``time_limit``, ``memory_limit``, ``test_code``/``entry_point`` for assertion problems,
    ``metadata`` as JSON text or dict, ``environment``), ``prompt_code`` for the schema's
    ``prompt`` and ``question_id`` or ``id`` for its id (see :mod:`evaluator.formats.ours`;
    the harness defaults to ``functional`` when a ``func_name`` is given, ``stdin``
    otherwise);
  - LiveCodeBench: ``public_test_cases``/``private_test_cases`` (JSON text, compressed form or
    lists), ``metadata`` (JSON text or dict, ``func_name`` for call-based problems), optional
    ``judge``, ``time_limit``, ``memory_limit``, ``question_id``.

  A non-empty ``tests`` value wins over LiveCodeBench fields. TRL's own keywords
  (``trainer_state``, ``log_extra``, ``log_metric``) are recognised and never taken for
  columns.

The code is the last fenced block of the answer after ``<think>`` sections are removed
(:func:`~evaluator.formats.extract.extract_code`). Rewards:

* ``binary``: 1.0 when every test passes, else 0.0 (early exit: grading stops at the first
  failing test); ``fraction``: the share of tests passed (every test runs);
* an answer with no code: ``no_code_penalty`` (default 0.0), nothing runs;
* a problem that cannot be decoded (bad or missing tests, functional without ``func_name``,
  zero tests, broken judge): ``None``, which TRL treats as a missing reward, verdict
  ``ERROR``. An ``ERROR`` that happened while the program ran (a sandbox worker that died
  three times on it, a checker that crashed on its output, a judge that broke on what it
  returned) scores 0.0, never ``None``: a program must not be able to turn its own reward
  into "missing". Every completion gets a score: nothing a program returns or prints (a list
  nested 300,000 deep, invalid UTF-8, an integer of millions of digits) raises out of the
  call; each completion is graded apart, so one that breaks something costs only itself.

Verdicts of the last call are in :attr:`CodeReward.last_verdicts` (``AC``, ``WA``, ``TLE``,
``MLE``, ``RE``, ``OLE``, ``NO_CODE``, ``ERROR``) and :attr:`CodeReward.last_results`
(:class:`~evaluator.runner.grading.GradeResult` or ``None``); :meth:`CodeReward.judged_wrong`
says whether a completion was judged and found wrong (what the trainer add-on masks on).

Defaults for RL: isolation ``adaptive`` (one sandboxed child runs a program's tests one
after another until a test changes the interpreter's state: several times less overhead per
test than ``test``, with its verdicts), early exit in binary mode, each problem's own time/memory limits or 6 s / 1024 MB. Pass ``options`` to change them.

The pool of fork servers is created on the first call and kept warm between calls;
:meth:`CodeReward.close` (or ``with CodeReward() as reward:``) stops it, and so does the exit of
the interpreter that started it: a reward pickled into another process (TRL's asynchronous
trainer spawns one for its rewards; a Ray actor) starts its own pool there, on first use, and
stops it, servers and temp dirs, when that process exits. Pass ``pool=`` to
share a :class:`~evaluator.sandbox.SandboxPool` (the reward then never closes it). Calls are
safe from any thread: the pool is thread-safe and each call keeps its own state (the
``last_*`` attributes are replaced as a whole when a call ends, so with concurrent calls they
describe whichever finished last; use the return value, or :meth:`CodeReward.score_details`).

:class:`AsyncCodeReward` has the same signature under ``async def`` (TRL runs async reward
functions concurrently); it never blocks the event loop.

verl: :func:`verl_compute_score`, :func:`verl_compute_score_async` (the ``async`` form verl's
reward loop awaits) and :func:`verl_compute_score_batch` (its ``BatchRewardManager``) follow
verl's ``compute_score`` conventions over one module-level shared :class:`CodeReward` and its
pool; see :func:`problem_from_ground_truth` for the accepted ``ground_truth`` forms.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import os
import threading
import time
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any

import orjson

from evaluator.formats.errors import InputError
from evaluator.formats.extract import extract_code
from evaluator.formats.livecodebench import problem_from_lcb
from evaluator.formats.ours import PROBLEM_FIELDS, problem_from_ours
from evaluator.problem import Problem, Verdict
from evaluator.runner.grading import GradeOptions, Grader, GradeResult
from evaluator.sandbox.records import Isolation

__all__ = [
    "AsyncCodeReward",
    "CodeReward",
    "RewardDetails",
    "VERDICT_NAMES",
    "WRONG_VERDICTS",
    "completion_text",
    "problem_from_columns",
    "problem_from_ground_truth",
    "verl_compute_score",
    "verl_compute_score_async",
    "verl_compute_score_batch",
    "verl_max_concurrent",
]

NO_CODE = "NO_CODE"
ERROR = "ERROR"
VERDICT_NAMES = ("AC", "WA", "TLE", "MLE", "RE", "OLE", NO_CODE, ERROR)
"""Every verdict a reward call reports (one ``<prefix>/verdict_<name>`` metric each)."""
WRONG_VERDICTS = frozenset({"WA", "TLE", "MLE", "RE", "OLE"})
"""Verdicts of completions judged and found wrong (``NO_CODE`` and ``ERROR`` are no
judgement: nothing ran, as in ``trainer_addon.masking``)."""

# Keywords TRL passes to reward functions that are not dataset columns.
_TRL_KEYWORDS = frozenset({"trainer_state", "log_extra", "log_metric"})
# Our schema's fields as columns: every Problem field but the id (from question_id, id or
# task_id), the tests (their own column) and the prompt (TRL's "prompt" column is the chat
# prompt: the code a sample continues comes as "prompt_code").
_OURS_COLUMNS = tuple(name for name in PROBLEM_FIELDS if name not in {"id", "tests", "prompt"})
_LCB_COLUMNS = (
    "public_test_cases",
    "private_test_cases",
    "metadata",
    "judge",
    "time_limit",
    "memory_limit",
)
_MODES = ("binary", "fraction")
# Every field problem_from_columns reads: the cache key (other columns, such as the
# statement, do not change the problem and are not hashed).
_PROBLEM_FIELDS = tuple(
    dict.fromkeys(
        ("problem_json", "tests", "question_id", "id", "task_id", "prompt_code")
        + _OURS_COLUMNS
        + _LCB_COLUMNS
    )
)


class ProblemError(ValueError):
    """A sample's problem cannot be decoded (its reward is None, its verdict ERROR)."""


# --- completions -------------------------------------------------------------------------------


def completion_text(completion: Any) -> str | None:
    """The answer text of a TRL completion: a string, or chat messages (the last assistant
    message's content; content parts' ``text`` joined). None when there is none."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content_text(completion.get("content"))
    if isinstance(completion, Sequence):
        messages = [m for m in completion if isinstance(m, Mapping)]
        for message in reversed(messages):
            if message.get("role", "assistant") == "assistant":
                return _content_text(message.get("content"))
        return None
    return None


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def _code_of(completion: Any) -> str | None:
    text = completion_text(completion)
    return None if text is None else extract_code(text)  # extract_code strips <think> first


# --- problems from dataset columns ---------------------------------------------------------------


def _fingerprint(value: Any) -> Any:
    """A cheap, hashable stand-in for a column value (long texts and containers hashed)."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        if len(value) <= 256:
            return value
        data = value.encode("utf-8", "surrogatepass")
    else:
        try:
            data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
        except TypeError:
            data = repr(value).encode("utf-8", "surrogatepass")
    return (len(data), hashlib.blake2b(data, digest_size=16).digest())


def _sample_id(fields: Mapping[str, Any]) -> str:
    for key in ("question_id", "id", "task_id"):
        value = fields.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return "sample"


def _json_if_text(value: Any, field: str) -> Any:
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            raise ProblemError(f"{field}: not valid JSON ({exc})") from None
    return value


def problem_from_columns(fields: Mapping[str, Any]) -> Problem:
    """One sample's :class:`Problem` from its dataset fields (the forms are in the module
    docstring; a ``problem_json`` field, a whole record of our schema as JSON text or dict,
    wins over both). Raises :class:`ProblemError` when it cannot be decoded."""
    try:
        if fields.get("problem_json") is not None:  # a whole record of ours (trainer_addon)
            record = _json_if_text(fields["problem_json"], "problem_json")
            if not isinstance(record, dict):
                raise ProblemError("problem_json: expected a JSON object")
            return problem_from_ours(record)
        if fields.get("tests") is not None:
            tests = _json_if_text(fields["tests"], "tests")
            record: dict[str, Any] = {"id": _sample_id(fields), "tests": tests}
            for key in _OURS_COLUMNS:
                if fields.get(key) is not None:
                    record[key] = fields[key]
            if "metadata" in record:  # JSON text in a parquet file, as LiveCodeBench's
                record["metadata"] = _json_if_text(record["metadata"], "metadata")
            if "harness" not in record:
                record["harness"] = "functional" if record.get("func_name") else "stdin"
            if isinstance(fields.get("prompt_code"), str):
                record["prompt"] = fields["prompt_code"]
            return problem_from_ours(record)
        if any(fields.get(key) is not None for key in ("public_test_cases", "private_test_cases")):
            record = {"question_id": _sample_id(fields)}
            for key in _LCB_COLUMNS:
                if fields.get(key) is not None:
                    record[key] = fields[key]
            return problem_from_lcb(record)
    except InputError as exc:
        raise ProblemError(str(exc)) from None
    raise ProblemError(
        "no tests: expected a 'tests' column or LiveCodeBench's "
        "'public_test_cases'/'private_test_cases'"
    )


def _decode_ground_truth(ground_truth: Any) -> Problem:
    gt = _json_if_text(ground_truth, "ground_truth")
    if isinstance(gt, list):  # ours: a bare list of {"input", "output"}
        return problem_from_columns({"tests": gt})
    if not isinstance(gt, Mapping):
        raise ProblemError(f"ground_truth: expected a JSON object or list, got {type(gt).__name__}")
    if "inputs" in gt or "outputs" in gt:
        return _problem_from_io(gt)
    return problem_from_columns(gt)


def _problem_from_io(gt: Mapping[str, Any]) -> Problem:
    """verl/PRIME/APPS form: ``{"inputs": [...], "outputs": [...], "fn_name"?: str}``."""
    inputs, outputs = gt.get("inputs"), gt.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise ProblemError("ground_truth: 'inputs' and 'outputs' must be lists")
    if len(inputs) != len(outputs):
        raise ProblemError(f"ground_truth: {len(inputs)} inputs but {len(outputs)} outputs")
    fn_name = gt.get("fn_name") or gt.get("func_name")
    tests: list[dict[str, str]] = []
    for index, (given, wanted) in enumerate(zip(inputs, outputs, strict=True)):
        if fn_name and isinstance(given, str):  # verl's prime_code form: already JSON texts
            text_out = wanted if isinstance(wanted, str) else orjson.dumps(wanted).decode()
            tests.append({"input": given, "output": text_out})
        elif fn_name:  # APPS/TACO form: decoded values
            args = given if isinstance(given, list) else [given]
            text_in = "\n".join(orjson.dumps(arg).decode() for arg in args)
            tests.append({"input": text_in, "output": orjson.dumps(wanted).decode()})
        else:
            tests.append({"input": _io_text(given, index), "output": _io_text(wanted, index)})
    fields: dict[str, Any] = {"tests": tests, "question_id": gt.get("question_id") or "verl"}
    if fn_name:
        fields["func_name"] = fn_name
    for key in ("judge", "time_limit", "memory_limit"):
        if gt.get(key) is not None:
            fields[key] = gt[key]
    return problem_from_columns(fields)


def _io_text(value: Any, index: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value) + ("\n" if value else "")
    raise ProblemError(f"ground_truth: test {index} of a stdin problem is not text")


def problem_from_ground_truth(ground_truth: Any) -> Problem:
    """A :class:`Problem` from a verl ``ground_truth`` (a JSON text or the decoded value).

    Accepted forms:

    * verl/PRIME/APPS (TACO) ``{"inputs": [...], "outputs": [...], "fn_name"?: name}``. Without
      ``fn_name`` (stdin) each input/output is a text (or a list of lines, joined with
      newlines). With ``fn_name`` (call-based), in verl's ``prime_code`` form each input is a
      text with one JSON value per line (one line per argument) and each output the JSON text
      of the return value; in the APPS/TACO form each input is the list of arguments (a
      non-list is one argument) and each output the expected return value, taken as is
      (APPS files that wrap it in a one-element list must be unwrapped first). The form is
      told apart per test: an input that is a text means JSON texts;
    * LiveCodeBench: an object with ``public_test_cases``/``private_test_cases`` and
      ``metadata`` (``question_id`` optional);
    * ours: an object with ``tests`` (and optional ``harness``, ``func_name``, ``judge``,
      ``time_limit``, ``memory_limit``), or a bare list of ``{"input", "output"}``.

    ``judge``, ``time_limit`` (CPU seconds per test) and ``memory_limit`` (MB) may be added to
    the verl/APPS and LiveCodeBench objects too.

    Raises :class:`ProblemError` for anything else.
    """
    return _decode_ground_truth(ground_truth)


# --- the reward ---------------------------------------------------------------------------------


@dataclass(slots=True)
class RewardDetails:
    """Everything one reward call decided, in completion order."""

    rewards: list[float | None]
    verdicts: list[str]
    results: list[GradeResult | None]
    seconds: float


class CodeReward:
    """Reward of code completions by running them against each sample's tests (module doc).

    ``mode``: ``"binary"`` or ``"fraction"``; ``no_code_penalty``: the reward of an answer
    without code; ``options``: grading defaults (RL defaults when None, see the module doc);
    ``workers``: fork servers of the pool this reward makes (default: CPU cores); ``pool``:
    a pool to share instead; ``log_metric``: called as ``log_metric(name, value)`` after each
    call (TRL's ``log_metric`` keyword, when TRL passes one, is used as well);
    ``time_limit``/``memory_limit``: defaults (CPU seconds per test, MB) for problems that set
    none, overriding those of ``options``;
    ``metric_prefix``: the metrics' name prefix; ``cache_size``: decoded problems kept.
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
    ) -> None:
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, not {mode!r}")
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray', not {backend!r}")
        self.backend, self.ray_address, self.ray_options = backend, ray_address, ray_options
        self.mode = mode
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
        self._cache: OrderedDict[Any, Problem | ProblemError] = OrderedDict()
        self.cache_hits = 0
        self.cache_misses = 0
        self._closed = False

    # -- pickling (e.g. to a Ray actor): the pool stays behind, the copy makes its own --------

    def __getstate__(self) -> dict[str, Any]:
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("_grader", "_lock", "_cache", "_pool", "_closed", "_exit_hook")
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

    def problem_for(self, fields: Mapping[str, Any]) -> Problem | None:
        """The sample's problem, decoded once per distinct problem (LRU cache); None when it
        cannot be decoded."""
        found = self._cached(
            (
                "columns",
                tuple(
                    (key, _fingerprint(fields.get(key)))
                    for key in _PROBLEM_FIELDS
                    if fields.get(key) is not None
                ),
            ),
            lambda: problem_from_columns(fields),
        )
        return found if isinstance(found, Problem) else None

    def _cached(self, key: Any, decode: Callable[[], Problem]) -> Problem | ProblemError:
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                self.cache_hits += 1
                return found
            self.cache_misses += 1
        try:
            found = decode()
        except ProblemError as exc:
            found = exc
        except Exception as exc:  # noqa: BLE001 - a broken row is that row's ERROR only
            found = ProblemError(f"{type(exc).__name__}: {exc}")
        with self._lock:
            self._cache[key] = found
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return found

    def _problems_from_columns(
        self, count: int, columns: Mapping[str, Any]
    ) -> list[Problem | None]:
        aligned: dict[str, Sequence[Any] | None] = {}
        for name, value in columns.items():
            if name in _TRL_KEYWORDS:
                continue
            is_list = isinstance(value, Sequence) and not isinstance(value, str | bytes)
            if is_list and len(value) != count and name in ("tests", "public_test_cases"):
                raise ValueError(f"column {name!r} has {len(value)} values for {count} completions")
            aligned[name] = value if is_list and len(value) == count else None
        problems: list[Problem | None] = []
        memo: dict[tuple[int, ...], Problem | None] = {}
        relevant = [name for name in aligned if name in _PROBLEM_FIELDS]
        for index in range(count):
            fields = {
                name: (values[index] if values is not None else columns[name])
                for name, values in aligned.items()
            }
            # The G completions of a group often share the very same objects: skip hashing.
            identity = tuple(id(fields[name]) for name in relevant)
            if identity in memo:
                with self._lock:
                    self.cache_hits += 1
                problems.append(memo[identity])
                continue
            problem = self.problem_for(fields)
            memo[identity] = problem
            problems.append(problem)
        return problems

    # -- grading -------------------------------------------------------------------------------

    def _submit(
        self, problems: Sequence[Problem | None], completions: Sequence[Any]
    ) -> list[Future[GradeResult] | str]:
        """A future per completion that needs running, or its verdict when nothing runs."""
        if len(problems) != len(completions):
            raise ValueError(f"{len(problems)} problems for {len(completions)} completions")
        grader = self.grader
        pending: list[Future[GradeResult] | str] = []
        for problem, completion in zip(problems, completions, strict=True):
            if problem is None:
                pending.append(ERROR)
                continue
            code = _code_of(completion)
            if code is None or not code.strip():
                pending.append(NO_CODE)
                continue
            pending.append(grader.submit(problem, code))
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
    ) -> RewardDetails:
        """Grade completions against already-built problems (None: undecodable), blocking."""
        started = time.perf_counter()
        pending = self._submit(problems, completions)
        outcomes = self._wait(pending)
        return self._finish(pending, outcomes, started, log_metric)

    def score(
        self, problems: Sequence[Problem | None], completions: Sequence[Any]
    ) -> list[float | None]:
        """Plain-Python form: rewards of ``completions`` against ``problems``, in order."""
        return self.score_details(problems, completions).rewards

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        completions = list(completions or [])
        problems = self._problems_from_columns(len(completions), columns)
        return self.score_details(problems, completions, columns.get("log_metric")).rewards

    def judged_wrong(self, index: int) -> bool:
        """Whether completion ``index`` of the last call was judged and found wrong (WA, TLE,
        MLE, RE, OLE); False for AC, NO_CODE and ERROR (nothing was judged)."""
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
            problems = self._problems_from_columns(len(completions), columns)
            return self._submit(problems, completions)

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


# --- verl ---------------------------------------------------------------------------------------

_shared: CodeReward | None = None
_shared_lock = threading.Lock()
_verl_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
_verl_limits = weakref.WeakKeyDictionary()

VERL_MAX_CONCURRENT_ENV = "MICROCODER_VERL_MAX_CONCURRENT"
"""Environment variable: how many solutions one event loop has in the shared pool at once
(see :func:`verl_max_concurrent`)."""


def shared_reward() -> CodeReward:
    """The module-level :class:`CodeReward` the verl adapter uses, sync and async alike (binary
    mode, one pool of one fork server per CPU core, made on first use, closed at interpreter
    exit)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared._closed:
            _shared = CodeReward(mode="binary")
        return _shared


def verl_max_concurrent() -> int:
    """How many solutions :func:`verl_compute_score_async` lets one event loop have in the
    shared pool at once, being decoded, queued or run: ``$MICROCODER_VERL_MAX_CONCURRENT``, else
    twice the pool's workers (enough to keep every worker busy). The others wait, without
    holding a thread, for a place."""
    value = os.environ.get(VERL_MAX_CONCURRENT_ENV, "").strip()
    if value:
        return max(1, int(value))
    return 2 * max(1, os.cpu_count() or 1)


def _verl_limit() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    with _shared_lock:
        limit = _verl_limits.get(loop)
        if limit is None:
            limit = _verl_limits[loop] = asyncio.Semaphore(verl_max_concurrent())
        return limit


def _verl_problem(reward: CodeReward, ground_truth: Any) -> Problem | None:
    found = reward._cached(
        ("ground_truth", _fingerprint(ground_truth)), lambda: _decode_ground_truth(ground_truth)
    )
    return found if isinstance(found, Problem) else None


def verl_compute_score(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> float:
    """verl's ``compute_score``: 1.0 when the code in ``solution_str`` passes every test of
    ``ground_truth`` (forms: :func:`problem_from_ground_truth`), else 0.0. An undecodable
    ground truth scores 0.0 (verl wants a float) and is logged as ERROR in the shared reward's
    ``last_verdicts``. ``data_source``, ``extra_info`` and other keywords verl passes (its
    ``reward_kwargs``, a reward router's address) are accepted and not used."""
    return verl_compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


async def verl_compute_score_async(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> float:
    """:func:`verl_compute_score` as ``async def``, the form verl's reward loop awaits (its
    ``NaiveRewardManager.run_single``, one task per sample) instead of running it in a thread.

    Same score and same module-level pool (:func:`shared_reward`) as the sync function. The
    event loop is never blocked: decoding the ground truth and building the job run in a
    worker thread, the program runs in the pool, and the loop only awaits a future. At most
    :func:`verl_max_concurrent` solutions per event loop are in the pool at once; a looping
    program costs its own time limit only, while the other samples' tasks go on."""
    reward = shared_reward()
    started = time.perf_counter()
    async with _verl_limit():

        def prepare() -> list[Future[GradeResult] | str]:
            return reward._submit([_verl_problem(reward, ground_truth)], [solution_str])

        pending = await asyncio.to_thread(prepare)
        outcomes = await AsyncCodeReward._gather(pending)
    value = reward._finish(pending, outcomes, started, None).rewards[0]
    return 0.0 if value is None else float(value)


def verl_compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any] | None = None,
    **kwargs: Any,
) -> list[float]:
    """verl's batched ``compute_score`` (``BatchRewardManager``, which passes its
    ``reward_kwargs`` as keywords: accepted and not used): one float per solution, graded in
    parallel in the shared pool."""
    if not (len(data_sources) == len(solution_strs) == len(ground_truths)):
        raise ValueError("data_sources, solution_strs and ground_truths differ in length")
    reward = shared_reward()
    problems = [_verl_problem(reward, gt) for gt in ground_truths]
    rewards = reward.score(problems, list(solution_strs))
    return [0.0 if value is None else float(value) for value in rewards]
