"""MicroCoder-GRPO: a thin add-on for TRL's GRPOTrainer (optional extra ``train``).

    from trainer_addon import MicroCoderGRPOTrainer, MicroCoderGRPOConfig

See ``trainer_addon/README.md``. Imported lazily so ``import trainer_addon`` needs no torch.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "MicroCoderGRPOTrainer": "trainer_addon.trainer",
    "MetricsJSONLCallback": "trainer_addon.trainer",
    "MicroCoderGRPOConfig": "trainer_addon.config",
    "parse_temperature_schedule": "trainer_addon.config",
    "masking_candidates": "trainer_addon.masking",
    "ends_in_repetition": "trainer_addon.masking",
    "distinct_ngram_ratio": "trainer_addon.diversity",
    "pairwise_jaccard_distance": "trainer_addon.diversity",
    "EvaluatorReward": "trainer_addon.reward",
    "make_reward": "trainer_addon.reward",
    "load_problem_dataset": "trainer_addon.reward",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'trainer_addon' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
