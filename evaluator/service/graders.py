"""The graders and the problem cache the frameworks' endpoints share (NeMo-Gym's ``/verify``,
open-r1's E2B router ``/execute_batch`` and Piston ``/api/v2/execute``).

Each is made once per server on first use, over the server's own warm pool and builder, with
the reward's RL defaults (adaptive isolation, a tight wall-clock backstop). They own nothing
to close: python checkers (the sandboxed Codeforces checkers of :mod:`.piston`) run in the
server's pool too, so that the server's stop (its lifespan: builder, then pool) leaves
nothing behind. Problems are decoded once per distinct problem (a framework that sends one
request per completion, as NeMo-Gym does, sends the same tests again and again)."""

from __future__ import annotations

import threading
import weakref
from dataclasses import replace
from typing import Any

from evaluator.reward.columns import ProblemCache
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation

__all__ = ["grader_for", "problem_cache"]

_lock = threading.Lock()
_graders: weakref.WeakKeyDictionary[Any, dict[tuple[bool, float | None], Grader]]
_graders = weakref.WeakKeyDictionary()
_caches: weakref.WeakKeyDictionary[Any, ProblemCache] = weakref.WeakKeyDictionary()


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
