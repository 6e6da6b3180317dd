"""Grading a framework's request on the server's warm pool: what every RL framework's endpoint
shares (OpenRLHF's ``/get_reward``, slime's ``/slime/reward``, NeMo-Gym's ``/verify``,
open-r1's E2B router ``/execute_batch`` and Piston ``/api/v2/execute``).

* :func:`grader_for`: the server's grader for an early-exit or run-every-test request, made
  once per server on first use over the server's own pool and builder, with the reward's RL
  defaults (adaptive isolation, a tight wall-clock backstop). It owns nothing to close: python
  checkers (the sandboxed Codeforces checkers of :mod:`.piston`) run in the server's pool too,
  so that the server's stop (its lifespan: builder, then pool) leaves nothing behind.
* :func:`problem_cache`: the server's cache of decoded problems, so that a problem is decoded
  once however many requests carry it (a framework that sends one request per completion, as
  NeMo-Gym, OpenRLHF and slime do, sends the same tests again and again).
* :func:`grade_labels`: binary rewards of (response, label) pairs, a label being a dataset row
  of any source, through the server's one labelled :class:`~evaluator.reward.CodeReward`
  (over the early-exit grader and the cache above: nothing is made or closed per request). A
  label that cannot be read, or that asks what a client may not (a checker outside the
  sandbox without ``--trust-checkers``, limits out of bounds), is a 400 naming its field;
  with ``MICROCODER_ON_BAD_PROBLEM=skip`` in the server's environment an unreadable label
  scores 0.0 instead (verdict ``ERROR``, one logged warning per label).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from evaluator.problem import Problem
from evaluator.reward import CodeReward, RewardDetails
from evaluator.reward.columns import ProblemCache
from evaluator.reward.labels import LabelError, grade_labelled_async
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation

from . import grade_endpoint
from .errors import BadRequest

__all__ = ["grade_labels", "grader_for", "labelled_reward", "problem_cache"]

_lock = threading.Lock()
# Per server (the app's Service), gone with it: its graders by (early_exit, time_limit), its
# cache of decoded problems, its labelled reward.
_graders: weakref.WeakKeyDictionary[Any, dict[tuple[bool, float | None], Grader]]
_graders = weakref.WeakKeyDictionary()
_caches: weakref.WeakKeyDictionary[Any, ProblemCache] = weakref.WeakKeyDictionary()
_rewards: weakref.WeakKeyDictionary[Any, CodeReward] = weakref.WeakKeyDictionary()


def grader_for(service: Any, *, early_exit: bool, time_limit: float | None = None) -> Grader:
    """The server's grader that stops at a program's first failing test (``early_exit``) or
    runs them all, with ``time_limit`` CPU seconds per test for problems that set none
    (None: the grading default)."""
    key = (early_exit, time_limit)
    with _lock:
        graders = _graders.setdefault(service, {})
        grader = graders.get(key)
        if grader is None:
            options = GradeOptions(
                isolation=Isolation.ADAPTIVE,
                early_exit=early_exit,
                memory_limit=service.settings.memory_limit,
                wall_factor=1.0,  # as CodeReward: a slow program costs its limit + 0.5 s
                wall_slack=0.5,
                checker_dir=grade_endpoint.trusted_checker_dir(service.settings.trust_checkers),
            )
            if time_limit is not None:
                options = replace(options, time_limit=time_limit)
            grader = graders[key] = Grader(
                options, pool=service.pool, builder=service.builder, checker_pool=service.pool
            )
        return grader


def problem_cache(service: Any) -> ProblemCache:
    """The server's cache of decoded problems."""
    with _lock:
        cache = _caches.get(service)
        if cache is None:
            cache = _caches[service] = ProblemCache()
        return cache


def labelled_reward(service: Any) -> CodeReward:
    """The server's binary reward for labelled requests: the early-exit grader and the
    problem cache above, made on first use and kept (a reward and a grader per request cost
    more than the request's own parsing)."""
    grader = grader_for(service, early_exit=True)
    problems = problem_cache(service)
    with _lock:
        reward = _rewards.get(service)
        if reward is None:
            reward = CodeReward(mode="binary", grader=grader, problems=problems)
            _rewards[service] = reward
        return reward


async def grade_labels(
    service: Any, responses: Sequence[str], labels: Sequence[Any], fields: Sequence[str]
) -> RewardDetails:
    """Binary rewards, verdicts and reasons of ``responses`` against their ``labels``'
    problems (rows of any source), graded on ``service``'s pool (the app's
    :class:`~evaluator.service.app.Service`); :class:`BadRequest` naming the field of a label
    that cannot be read or is refused."""
    assert service.pool is not None
    trust = service.settings.trust_checkers

    def check(problem: Problem, field: str) -> None:
        try:
            grade_endpoint.check_client_problems([problem], trust)
        except BadRequest as exc:
            raise BadRequest(f"field {field!r}: {exc}") from None

    try:
        return await grade_labelled_async(
            labelled_reward(service), responses, labels, fields, check
        )
    except LabelError as exc:
        # the label's own text after its field, with the hint on what to do
        raise BadRequest(
            f"field {exc.field!r}: {str(exc).removeprefix(exc.field + ': ')}"
        ) from None
