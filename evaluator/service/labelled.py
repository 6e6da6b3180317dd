"""Rewards of (response, label) pairs on the server's warm pool: what the RL frameworks'
reward endpoints share (OpenRLHF's ``/get_reward``, slime's ``/slime/reward``).

Each request grades through a :class:`~evaluator.reward.CodeReward` (binary) over the
server's pool and builder, its grader closed with the request as ``/grade``'s is; decoded
problems are kept between requests (one cache for the process, keyed by the labels' content).
A label that cannot be read, or that asks what a client may not (a checker outside the
sandbox without ``--trust-checkers``, limits out of bounds), is a 400 naming its field; with
``MICROCODER_ON_BAD_PROBLEM=skip`` in the server's environment an unreadable label scores 0.0
instead (verdict ``ERROR``, one logged warning per label)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator.problem import Problem
from evaluator.reward import CodeReward
from evaluator.reward.code_reward import RewardDetails
from evaluator.reward.columns import ProblemCache
from evaluator.reward.labels import LabelError, grade_labelled_async

from . import batch
from .errors import BadRequest

__all__ = ["grade_labels"]

_PROBLEMS = ProblemCache(4096)


async def grade_labels(
    service: Any, responses: Sequence[str], labels: Sequence[Any], fields: Sequence[str]
) -> RewardDetails:
    """Binary rewards, verdicts and reasons of ``responses`` against their ``labels``' problems
    (rows of any source), graded on ``service``'s pool (the app's
    :class:`~evaluator.service.app.Service`); :class:`BadRequest` naming the field of a label
    that cannot be read or is refused."""
    assert service.pool is not None
    reward = CodeReward(mode="binary", pool=service.pool)
    reward._problems = _PROBLEMS
    reward._grader = service.grader(reward.options)  # the server's builder; the pool stays up
    trust = service.settings.trust_checkers

    def check(problem: Problem, field: str) -> None:
        try:
            batch.check_client_problems([problem], trust)
        except BadRequest as exc:
            raise BadRequest(f"field {field!r}: {exc}") from None

    try:
        return await grade_labelled_async(reward, responses, labels, fields, check)
    except LabelError as exc:
        raise BadRequest(
            f"field {exc.field!r}: {str(exc).removeprefix(exc.field + ': ')}"
        ) from None
    finally:
        reward.close()
