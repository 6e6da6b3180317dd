"""open-r1's code rewards, in its reward functions' own signatures, graded here.

open-r1 (``huggingface/open-r1@1416fa0``, git only) registers its rewards in
``src/open_r1/rewards.py``'s ``get_reward_funcs`` and TRL calls each with the completions and
every other dataset column as a keyword (one list per column). The functions below take the
same arguments and return the same list of floats, from one warm sandbox pool per process
(the pool of :func:`~evaluator.reward.shared.shared_reward`, closed at interpreter exit):

* :func:`code_reward` (``"code"``): the share of a problem's tests the completion's program
  passes. open-r1 reads the ``verification_info`` column (``{"language", "test_cases":
  [{"input", "output", ...}]}``); here every column is read by the format registry as a row
  of its source (``docs/datasets.md``: PrimeIntellect's ``verification_info``, its
  ``metadata`` limits, or any other source's row), so the tests are judged by that source's
  rule. Each test has 5 s (the ``exec_timeout`` of open-r1's evaluation script) unless the
  row gives a limit.
* :func:`binary_code_reward` (``"binary_code"``): 1.0 when every test passes, else 0.0.
* :func:`cf_code_reward` (``"cf_code"``): open-r1/codeforces rows (``official_tests``,
  ``generated_checker``, ``time_limit``, ``memory_limit``, ``input_mode``, ``language``),
  scored as ``cf_scoring.py`` scores them: ``weighted_sum`` (default) = 1.0 if every test
  passes, plus 0.1 x the share passed; ``partial`` = the share; ``pass_fail`` = 1.0 or 0.0; a
  program that does not compile -0.1; an answer without code -1.0. The generated tests are
  read from ``$CF_TESTS_FOLDER`` (``test_cases_{contest:04d}.parquet``) when it is set, as
  open-r1 reads them; without it, the official tests only (logged once).

Differences from open-r1, on purpose: the program is the last fenced block of the answer
(any tag, ``<think>`` removed: :func:`~evaluator.formats.extract.extract_program`), where
open-r1 wants exactly ```` ```python ```` (or the row's language); its stdin tests are
judged by the row's source rule (for ``verification_info``: tokens, reals within 1e-6), where
open-r1's evaluation script compares zipped lines (a missing last line passes there); a test
that runs past its limit fails that test, where open-r1's script stops with
``TimeoutExpired`` (no reward). A row that cannot be read raises
:class:`~evaluator.reward.ProblemError` naming the row and field (``on_bad_problem="skip"``,
a keyword the functions take, gives it ``None`` instead). Verdict counts go to TRL's
``log_metric`` when TRL passes one. ``num_parallel``, ``provider_type`` and
``test_batch_size`` are taken and not needed (the pool runs a batch in parallel). open-r1's
IOI reward (``ioi_code``: subtasks, C++ graders) is not provided.

The service answers the same scripts and Piston requests by URL
(:mod:`evaluator.service.compat.e2b`, :mod:`evaluator.service.compat.piston`).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.formats.errors import InputError
from evaluator.formats.registry import get_format
from evaluator.problem import Problem, Verdict
from evaluator.reward.code_reward import NO_CODE, CodeReward, RewardDetails
from evaluator.reward.columns import ProblemCache, ProblemError, languages_column
from evaluator.reward.shared import shared_reward

__all__ = [
    "CF_TESTS_FOLDER_ENV",
    "NO_COMPILE_REWARD",
    "NO_SUBMISSION_REWARD",
    "SCORING_MODES",
    "TEST_TIME_LIMIT",
    "binary_code_reward",
    "cf_code_reward",
    "cf_score",
    "code_reward",
]

TEST_TIME_LIMIT = 5.0
"""Seconds per test for :func:`code_reward` on rows that give none: the ``exec_timeout`` of
open-r1's evaluation script (``rewards.py`` L532)."""
SCORING_MODES = ("pass_fail", "partial", "weighted_sum")
"""``cf_scoring.py``'s ``scoring_mode`` values (L94-146)."""
NO_COMPILE_REWARD = -0.1
NO_SUBMISSION_REWARD = -1.0
CF_TESTS_FOLDER_ENV = "CF_TESTS_FOLDER"
"""Where open-r1/codeforces' generated tests are (``test_cases_{contest:04d}.parquet``)."""

_LOG = logging.getLogger("evaluator.reward.frameworks.open_r1")
# Keywords TRL or a caller passes that are not dataset columns.
_NOT_COLUMNS = frozenset({"prompts", "completion_ids", "on_bad_problem"})

_lock = threading.Lock()
# Each mode's reward beside the shared reward whose pool it grades in: remade when that one is
# (a closed shared reward's pool is gone).
_rewards: dict[tuple[str, float | None], tuple[CodeReward, CodeReward]] = {}
_problems = ProblemCache()
_warned_no_tests_folder = False


def _reward(mode: str, time_limit: float | None) -> CodeReward:
    """A warm reward in ``mode`` over the shared reward's pool (one per mode and default time
    limit, made on first use; its own builds and checkers closed at interpreter exit, before
    the shared pool, which the shared reward closes)."""
    shared = shared_reward()
    key = (mode, time_limit)
    with _lock:
        found = _rewards.get(key)
        if found is not None and found[0] is shared and not found[1].closed:
            return found[1]
        if found is not None:
            found[1].close()
        reward = CodeReward(mode=mode, pool=shared.grader.pool, time_limit=time_limit)
        atexit.register(reward.close)
        _rewards[key] = (shared, reward)
        return reward


def _columns(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in kwargs.items() if name not in _NOT_COLUMNS}


def _details(
    mode: str,
    time_limit: float | None,
    completions: Sequence[Any],
    problems: Sequence[Problem | ProblemError],
    kwargs: Mapping[str, Any],
) -> RewardDetails:
    reward = _reward(mode, time_limit)
    return reward.score_details(
        problems,
        list(completions),
        log_metric=kwargs.get("log_metric"),
        languages=languages_column(len(completions), kwargs),
        on_bad_problem=kwargs.get("on_bad_problem"),
    )


def _checked_completions(completions: Any, name: str) -> list[Any]:
    if completions is None or isinstance(completions, str | bytes):
        raise TypeError(
            f"open-r1's {name} is called as {name}(completions, **dataset_columns) with a list "
            f"of completions; got {type(completions).__name__}"
        )
    return list(completions)


def code_reward(
    completions: Sequence[Any],
    num_parallel: int = 2,
    provider_type: str = "e2b",
    enforce_same_language: bool = False,
    **kwargs: Any,
) -> list[float | None]:
    """open-r1's ``code_reward``: each completion's share of its row's tests passed (see the
    module docstring); ``None`` where nothing could be judged (a row's language not graded
    here; a row that cannot be read, with ``on_bad_problem="skip"``)."""
    completions = _checked_completions(completions, "code_reward")
    problems = _problems.for_columns(len(completions), _columns(kwargs))
    if enforce_same_language:
        found = {p.metadata.get("language", "python") for p in problems if isinstance(p, Problem)}
        if len(found) > 1:
            raise ValueError(f"All verification_info must have the same language: {sorted(found)}")
    return _details("fraction", TEST_TIME_LIMIT, completions, problems, kwargs).rewards


def binary_code_reward(
    completions: Sequence[Any],
    num_parallel: int = 2,
    provider_type: str = "e2b",
    enforce_same_language: bool = False,
    **kwargs: Any,
) -> list[float | None]:
    """open-r1's ``binary_code_reward``: 1.0 when the program passes every test of its row,
    else 0.0 (grading stops at the first failing test); ``None`` kept as :func:`code_reward`
    gives it."""
    completions = _checked_completions(completions, "binary_code_reward")
    problems = _problems.for_columns(len(completions), _columns(kwargs))
    return _details("binary", TEST_TIME_LIMIT, completions, problems, kwargs).rewards


def _with_generated_tests(problem: Problem | ProblemError) -> Problem | ProblemError:
    """``problem`` with open-r1/codeforces' generated tests from ``$CF_TESTS_FOLDER``."""
    global _warned_no_tests_folder
    if not isinstance(problem, Problem):
        return problem
    folder = os.environ.get(CF_TESTS_FOLDER_ENV, "").strip()
    if not folder:
        if not _warned_no_tests_folder:
            _warned_no_tests_folder = True
            _LOG.warning(
                "%s is not set: Codeforces problems are graded on their official tests only "
                "(open-r1 also runs the generated tests from that folder)",
                CF_TESTS_FOLDER_ENV,
            )
        return problem
    fmt = get_format("codeforces")
    if fmt.attach_tests is None or problem.metadata.get("platform") != "codeforces":
        return problem
    try:
        return fmt.attach_tests(problem, folder)
    except InputError as exc:
        return ProblemError(f"{CF_TESTS_FOLDER_ENV}: {exc}")


def cf_score(
    verdict: str,
    reward: float | None,
    result: Any,
    scoring_mode: str = "weighted_sum",
) -> float | None:
    """One completion's Codeforces reward from its verdict, its :class:`CodeReward` reward
    and its :class:`~evaluator.runner.grading.GradeResult` (None when nothing ran), by
    ``cf_scoring.py``'s ``score_submission`` (L94-146)."""
    if scoring_mode not in SCORING_MODES:
        raise ValueError(f"scoring_mode must be one of {SCORING_MODES}, not {scoring_mode!r}")
    if verdict == NO_CODE:
        return NO_SUBMISSION_REWARD
    if verdict == str(Verdict.CE):
        return NO_COMPILE_REWARD
    if result is None or not result.tests:
        return reward  # nothing judged (None), or the grader failed on it (0.0)
    passed = sum(test.verdict is Verdict.AC for test in result.tests)
    total = len(result.tests)
    all_passed = 1.0 if passed == total else 0.0
    if scoring_mode == "pass_fail":
        return all_passed
    if scoring_mode == "partial":
        return passed / total
    return all_passed + 0.1 * (passed / total)


def cf_code_reward(
    completions: Sequence[Any],
    test_batch_size: int = 1,
    patch_code: bool = False,
    scoring_mode: str = "weighted_sum",
    **kwargs: Any,
) -> list[float | None]:
    """open-r1's ``cf_code_reward`` over open-r1/codeforces rows (see the module docstring):
    one float per completion (``None`` where nothing could be judged)."""
    completions = _checked_completions(completions, "cf_code_reward")
    if scoring_mode not in SCORING_MODES:
        raise ValueError(f"scoring_mode must be one of {SCORING_MODES}, not {scoring_mode!r}")
    if patch_code:
        raise ValueError(
            "patch_code=True (open-r1's cf_patch_code, which rewrites old Python and C++ "
            "sources) is not supported here: programs are graded as written"
        )
    problems = [
        _with_generated_tests(p) for p in _problems.for_columns(len(completions), _columns(kwargs))
    ]
    mode = "binary" if scoring_mode == "pass_fail" else "fraction"
    details = _details(mode, None, completions, problems, kwargs)
    return [
        cf_score(verdict, reward, result, scoring_mode)
        for verdict, reward, result in zip(
            details.verdicts, details.rewards, details.results, strict=True
        )
    ]
