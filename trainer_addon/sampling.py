"""Sampling outside training, the way :class:`~trainer_addon.trainer.MicroCoderGRPOTrainer`
samples inside it: the demo's held-out (and selection) answers and the temperature sweep's
groups are :func:`evaluator.generate.sample_completions` of :func:`chat_prompt_ids` with
:func:`trainer_sampling`, so their pass rates and diversities measure what training samples.

The trainer is TRL's ``GRPOTrainer`` generating with transformers: the chat template over the
batch with the generation prompt, each prompt repeated G times in a row, left padding, its
``GenerationConfig`` (temperature, top-p, top-k, min-p, repetition penalty, the cache, then
``generation_kwargs``; every declared EOS a stop) and completions cut after their first stop.
The loop is the evaluator's (``mcevaluate generate`` runs it too); what is the trainer's is
here: its settings and its prompts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator.generate import Sampling

Conversation = list[dict[str, str]]

# MicroCoderGRPOConfig's fields that shape a sample besides temperature and length (Sampling's
# fields of the same names): `mctrain train` and the demo's training set none of them, so
# their defaults are what training runs with.
_SAMPLING_FIELDS = (
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "cache_implementation",
    "generation_kwargs",
)


def trainer_sampling(temperature: float, max_new_tokens: int) -> Sampling:
    """How the trainer samples at ``temperature`` with completions of ``max_new_tokens`` at
    most: MicroCoderGRPOConfig's defaults for everything else."""
    from .config import MicroCoderGRPOConfig

    fields = MicroCoderGRPOConfig.__dataclass_fields__
    defaults = {name: fields[name].default for name in _SAMPLING_FIELDS}
    return Sampling(max_new_tokens=max_new_tokens, temperature=temperature, **defaults)


def chat_prompt_ids(tokenizer: Any, conversations: Sequence[Conversation]) -> list[list[int]]:
    """The prompts' token ids as the trainer makes them: one chat-template call over the
    batch, with the generation prompt."""
    encoded = tokenizer.apply_chat_template(
        conversation=list(conversations),
        add_generation_prompt=True,
        tokenize=True,
        return_dict=True,
    )
    return [list(ids) for ids in encoded["input_ids"]]
