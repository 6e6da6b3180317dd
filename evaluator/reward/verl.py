"""verl's reward functions: :func:`verl_compute_score`, :func:`verl_compute_score_async` (the
``async`` form verl's reward loop awaits) and :func:`verl_compute_score_batch` (its
``BatchRewardManager``) follow verl's ``compute_score`` conventions over one module-level
shared :class:`~evaluator.reward.code_reward.CodeReward` and its pool
(:func:`shared_reward`); :func:`problem_from_ground_truth` reads the ``ground_truth`` forms.
verl loads them by module path: ``custom_reward_function.path=pkg://evaluator.reward``
(which re-exports them) with ``custom_reward_function.name`` one of the three."""

from __future__ import annotations

import asyncio
import os
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import orjson

from evaluator.problem import Problem
from evaluator.reward.code_reward import AsyncCodeReward, CodeReward
from evaluator.reward.columns import ProblemError, _fingerprint, _json_if_text, problem_from_columns
from evaluator.runner.grading import GradeResult

# --- ground truths ------------------------------------------------------------------------------


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


# --- the shared reward --------------------------------------------------------------------------

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
    found = reward._problems.get(
        ("ground_truth", _fingerprint(ground_truth)), lambda: _decode_ground_truth(ground_truth)
    )
    return found if isinstance(found, Problem) else None


def stated_language(ground_truth: Any, extra_info: Any = None) -> str | None:
    """The language a verl sample says its solution is in: ``extra_info["language"]``, else
    the ground truth's ``"language"`` field; None when neither says (the solution's code
    fence then names it, else it is Python)."""
    if isinstance(extra_info, Mapping) and isinstance(extra_info.get("language"), str):
        return extra_info["language"]
    if isinstance(ground_truth, str):
        if '"language"' not in ground_truth:  # most ground truths: no decoding here
            return None
        try:
            ground_truth = orjson.loads(ground_truth)
        except orjson.JSONDecodeError:
            return None
    if isinstance(ground_truth, Mapping) and isinstance(ground_truth.get("language"), str):
        return ground_truth["language"]
    return None


def verl_compute_score(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> float:
    """verl's ``compute_score``: 1.0 when the code in ``solution_str`` passes every test of
    ``ground_truth`` (forms: :func:`problem_from_ground_truth`), else 0.0. An undecodable
    ground truth scores 0.0 (verl wants a float) and is logged as ERROR in the shared reward's
    ``last_verdicts``. The solution's language: :func:`stated_language`, else its code fence
    (```` ```cpp ````), else Python; a language not graded here scores 0.0. ``data_source``, ``extra_info`` and other keywords verl passes (its
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
            problem = _verl_problem(reward, ground_truth)
            language = stated_language(ground_truth, extra_info)
            return reward._submit([problem], [solution_str], [language])

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
    infos = list(extra_infos) if extra_infos is not None else [None] * len(ground_truths)
    languages = [stated_language(gt, info) for gt, info in zip(ground_truths, infos, strict=True)]
    rewards = reward.score(problems, list(solution_strs), languages)
    return [0.0 if value is None else float(value) for value in rewards]
