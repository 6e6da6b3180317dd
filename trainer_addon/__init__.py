"""MicroCoder-GRPO: a thin add-on for TRL's GRPOTrainer (optional extra ``train``).

    from trainer_addon import MicroCoderGRPOTrainer, MicroCoderGRPOConfig

See ``trainer_addon/README.md``. Imported lazily so ``import trainer_addon`` needs no torch.
"""

from __future__ import annotations

from evaluator.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "MicroCoderGRPOTrainer": "trainer_addon.trainer",
        "MetricsJSONLCallback": "trainer_addon.trainer",
        "MicroCoderGRPOConfig": "trainer_addon.config",
        "parse_temperature_schedule": "trainer_addon.config",
        "masking_candidates": "trainer_addon.masking",
        "ends_in_repetition": "trainer_addon.masking",
        "distinct_ngram_ratio": "trainer_addon.diversity",
        "pairwise_jaccard_distance": "trainer_addon.diversity",
        "load_problem_dataset": "trainer_addon.problem_dataset",
    },
)
