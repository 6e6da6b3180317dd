"""slime's reward (THUDM/slime): :func:`rm` for
``--custom-rm-path evaluator.reward.frameworks.slime.rm`` and its group form
:func:`batched_rm`, over the process's shared warm :class:`CodeReward`
(:func:`~evaluator.reward.shared.shared_reward`, closed at exit)::

    python train.py ... --label-key label \\
        --custom-rm-path evaluator.reward.frameworks.slime.rm [--group-rm]

slime imports the function by its dotted path (``slime/utils/misc.py``, ``load_function``) and
awaits it (``slime/rollout/rm_hub/__init__.py``): ``await rm(args, sample)`` per sample, and,
with ``--group-rm`` (or a custom generate function that returns several samples), the same
path ``await rm(args, samples)`` with the whole list: :func:`rm` takes either and answers a
float or a list of floats. Each sample's ``response`` is graded (special tokens at its end,
which slime's ``no_stop_trim`` keeps, stripped) against its ``label``: the dataset's
``--label-key`` value, a row of any source the format registry reads, as JSON text or an
object (:mod:`evaluator.reward.labels`). The reward is binary, a float, as slime's
``Sample.reward`` takes it without ``--reward-key``. A label that cannot be read raises naming
the sample (slime stops the rollout with the message); ``MICROCODER_ON_BAD_PROBLEM=skip``
scores it 0.0 instead, with one logged warning. slime's ``--rm-type remote_rm --rm-url`` form
is ``POST /slime/reward`` on ``mcevaluate serve`` (:mod:`evaluator.service.compat.slime`).

Nothing here imports slime: a sample is read by its attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator.reward.code_reward import RewardDetails
from evaluator.reward.labels import grade_labelled_async
from evaluator.reward.shared import shared_reward

__all__ = ["batched_rm", "grade_samples", "rm"]


def _field(sample: Any, position: int | None) -> str:
    index = getattr(sample, "index", None)
    where = f"index {index}" if index is not None else None
    if position is not None:
        where = f"{where}, " if where else ""
        where = f"{where}group position {position}"
    return f"sample.label ({where})" if where else "sample.label"


def _response(sample: Any, field: str) -> str:
    response = getattr(sample, "response", None)
    if not isinstance(response, str):
        raise TypeError(
            f"{field.replace('label', 'response', 1)}: expected the generated text, "
            f"got {type(response).__name__}"
        )
    return response


async def grade_samples(samples: Sequence[Any], group: bool = False) -> RewardDetails:
    """The shared reward's details for slime samples (their ``response`` and ``label``)."""
    fields = [_field(s, i if group else None) for i, s in enumerate(samples)]
    responses = [_response(s, f) for s, f in zip(samples, fields, strict=True)]
    labels = [getattr(s, "label", None) for s in samples]
    return await grade_labelled_async(shared_reward(), responses, labels, fields)


async def rm(args: Any, sample: Any, **kwargs: Any) -> float | list[float]:
    """slime's custom reward: 1.0 when the code in ``sample.response`` passes every test of
    the problem in ``sample.label``, else 0.0. Given a list of samples (``--group-rm``, or a
    custom generate function returning several), their rewards in order (:func:`batched_rm`).
    ``args`` (slime's namespace) and other keywords are accepted and not used."""
    if isinstance(sample, list | tuple):
        return await batched_rm(args, sample, **kwargs)
    details = await grade_samples([sample])
    return float(details.rewards[0])  # type: ignore[arg-type]


async def batched_rm(args: Any, samples: Sequence[Any], **kwargs: Any) -> list[float]:
    """slime's group reward (``--group-rm``): one float per sample, graded in parallel in the
    shared pool."""
    if not isinstance(samples, list | tuple):
        raise TypeError(
            f"batched_rm: expected a list of samples (slime passes one with --group-rm), got "
            f"{type(samples).__name__}: use evaluator.reward.frameworks.slime.rm, which takes "
            "either"
        )
    details = await grade_samples(list(samples), group=True)
    return [float(value) for value in details.rewards]  # type: ignore[arg-type]
