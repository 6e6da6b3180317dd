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
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.problem import Problem
from evaluator.reward.code_reward import CodeReward, Submission
from evaluator.reward.columns import (
    ON_BAD_PROBLEM_ENV,
    ProblemError,
    fingerprint,
    json_if_text,
    problem_of_record,
)
from evaluator.reward.shared import shared_reward
from evaluator.runner.answers import stated_language

# --- ground truths ------------------------------------------------------------------------------


def ground_truth_record(ground_truth: Any) -> dict[str, Any]:
    """A verl ``ground_truth`` (JSON text or the decoded value) as a problem record: an
    object is one as it is; a bare list is a list of tests (``{"tests": [...]}``)."""
    value = json_if_text(ground_truth, "ground_truth")
    if isinstance(value, list):
        return {"tests": value}
    if isinstance(value, Mapping):
        return dict(value)
    raise ProblemError(f"ground_truth: expected a JSON object or list, got {type(value).__name__}")


def problem_from_ground_truth(ground_truth: Any) -> Problem:
    """A :class:`Problem` from a verl ``ground_truth`` (a JSON text or the decoded value),
    read by the format registry exactly as the same record in a file or in dataset columns
    (:mod:`evaluator.formats`; ``docs/datasets.md``). The forms seen in verl datasets:

    * APPS/TACO ``input_output`` and verl's ``prime_code`` (Eurus-2-RL-Data, PRIME):
      ``{"inputs": [...], "outputs": [...], "fn_name"?: name}``, stdin texts (or lists of
      lines), call inputs as argument lists or JSON-lines texts; a call's expected value
      wrapped in a one-element list also accepts the bare value, as their graders do;
    * a list of tests (DeepCoder/rllm): ``{"input", "output"}`` texts, LiveCodeBench's
      ``testtype`` cases, PrimeIntellect's ``type`` cases;
    * a whole record of any known format (LiveCodeBench's ``public_test_cases``, ours with
      ``tests``, verl's sandbox_fusion ``assert_case``, ...).

    ``judge``, ``time_limit`` (CPU seconds per test) and ``memory_limit`` (MB) may be added to
    the objects. Raises :class:`ProblemError` for anything that cannot be read, naming the
    field."""
    return problem_of_record(ground_truth_record(ground_truth))


# --- the shared reward --------------------------------------------------------------------------

_shared_lock = threading.Lock()
_verl_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
_verl_limits = weakref.WeakKeyDictionary()

VERL_MAX_CONCURRENT_ENV = "MICROCODER_VERL_MAX_CONCURRENT"
"""Environment variable: how many solutions one event loop has in the shared pool at once
(see :func:`verl_max_concurrent`)."""


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


def _verl_problem(reward: CodeReward, ground_truth: Any) -> Problem | ProblemError:
    return reward.problems.get(
        ("ground_truth", fingerprint(ground_truth)),
        lambda: problem_from_ground_truth(ground_truth),
    )


def _bad_problem_action(kwargs: Mapping[str, Any]) -> str:
    value = kwargs.get("on_bad_problem") or os.environ.get(ON_BAD_PROBLEM_ENV, "").strip()
    return value or "raise"


def _checked_solutions(solution_strs: Sequence[Any]) -> list[str]:
    """verl's decoded responses, each a string: a missing one (None, a token list) is the
    caller's mistake, never a model's empty answer scored 0.0."""
    for index, solution in enumerate(solution_strs):
        if not isinstance(solution, str):
            raise TypeError(
                f"solution_strs[{index}]: verl's compute_score takes the decoded response as a "
                f"string, got {type(solution).__name__}"
            )
    return list(solution_strs)


def verl_compute_score(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> float:
    """verl's ``compute_score``: 1.0 when the code in ``solution_str`` passes every test of
    ``ground_truth`` (forms: :func:`problem_from_ground_truth`), else 0.0. A ground truth that
    cannot be read raises :class:`ProblemError` naming the field (a dataset's defect, not the
    model's); with ``on_bad_problem="skip"`` (a keyword of verl's ``reward_kwargs``, or
    ``$MICROCODER_ON_BAD_PROBLEM``) it scores 0.0, is logged once and counted in the shared
    reward's ``bad_problems``. The solution's language:
    :func:`~evaluator.runner.answers.stated_language`, else the problem's own, else its code fence (```` ```cpp ````), else Python; a language not graded
    here scores 0.0 (verdict ``UNSUPPORTED``). ``data_source``, ``extra_info`` and other
    keywords verl passes (a reward router's address) are accepted and not used."""
    return verl_compute_score_batch(
        [data_source], [solution_str], [ground_truth], [extra_info], **kwargs
    )[0]


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
    _checked_solutions([solution_str])
    reward = shared_reward()
    async with _verl_limit():

        def prepare() -> Submission:
            problem = _verl_problem(reward, ground_truth)
            language = stated_language(ground_truth, extra_info)
            return reward.submit([problem], [solution_str], [language], _bad_problem_action(kwargs))

        submission = await asyncio.to_thread(prepare)
        value = (await submission.details_async()).rewards[0]
    return 0.0 if value is None else float(value)


def verl_compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any] | None = None,
    **kwargs: Any,
) -> list[float]:
    """verl's batched ``compute_score`` (``BatchRewardManager``, which passes its
    ``reward_kwargs`` as keywords: ``on_bad_problem`` is read, the others accepted and not
    used): one float per solution, graded in parallel in the shared pool."""
    if not (len(data_sources) == len(solution_strs) == len(ground_truths)):
        raise ValueError("data_sources, solution_strs and ground_truths differ in length")
    reward = shared_reward()
    problems = [_verl_problem(reward, gt) for gt in ground_truths]
    infos = list(extra_infos) if extra_infos is not None else [None] * len(ground_truths)
    languages = [stated_language(gt, info) for gt, info in zip(ground_truths, infos, strict=True)]
    solutions = _checked_solutions(solution_strs)
    rewards = reward.score(problems, solutions, languages, _bad_problem_action(kwargs))
    return [0.0 if value is None else float(value) for value in rewards]
