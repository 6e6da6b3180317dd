"""Conditional truncation masking and the diversity measure, on crafted inputs."""

from __future__ import annotations

import random

import pytest
import torch

from trainer_addon.config import MicroCoderGRPOConfig, parse_temperature_schedule, temperature_at
from trainer_addon.diversity import batch_diversity, distinct_ngram_ratio, pairwise_jaccard_distance
from trainer_addon.masking import ends_in_repetition, is_truncated, maskable, masking_candidates

M = 4
PLAIN = list(range(20))  # no repetition at the end
LOOP = list(range(10)) + [7, 8, 9, 1] * 2  # last 4 tokens == the 4 before them


def test_truncated_and_passed_is_masked_at_rho_one():
    assert masking_candidates(["AC"], [True], [PLAIN], M, 1.0, random.Random(0)) == [True]


def test_no_code_and_unknown_count_as_not_wrong():
    mask = masking_candidates(
        ["NO_CODE", None], [True, True], [PLAIN, PLAIN], M, 1.0, random.Random(0)
    )
    assert mask == [True, True]
    assert masking_candidates(None, [True], [PLAIN], M, 1.0, random.Random(0)) == [True]


@pytest.mark.parametrize("verdict", ["WA", "TLE", "RE", "MLE", "OLE"])
def test_truncated_and_wrong_is_not_masked(verdict):
    assert masking_candidates([verdict], [True], [PLAIN], M, 1.0, random.Random(0)) == [False]


def test_truncated_and_repeating_is_not_masked():
    assert ends_in_repetition(LOOP, M)
    assert not ends_in_repetition(PLAIN, M)
    assert masking_candidates(["AC"], [True], [LOOP], M, 1.0, random.Random(0)) == [False]


def test_finished_is_never_masked():
    verdicts = ["AC", "NO_CODE", None, "WA"]
    mask = masking_candidates(verdicts, [False] * 4, [PLAIN] * 4, M, 1.0, random.Random(0))
    assert mask == [False] * 4


def test_rho_zero_masks_nothing():
    mask = masking_candidates(["AC"] * 100, [True] * 100, [PLAIN] * 100, M, 0.0, random.Random(0))
    assert not any(mask)


def test_masked_fraction_follows_rho():
    rng = random.Random(123)
    n = 20000
    for rho in (0.1, 0.3):
        mask = masking_candidates(["AC"] * n, [True] * n, [PLAIN] * n, M, rho, rng)
        assert abs(sum(mask) / n - rho) < 0.015


def test_seeded_draws_are_reproducible():
    args = (["AC"] * 50, [True] * 50, [PLAIN] * 50, M, 0.5)
    assert masking_candidates(*args, random.Random(7)) == masking_candidates(
        *args, random.Random(7)
    )


def test_passed_predicate():
    mask = masking_candidates(
        ["AC", "NO_CODE"], [True, True], [PLAIN, PLAIN], M, 1.0, random.Random(0), "passed"
    )
    assert mask == [True, False]


def test_maskable_is_the_rule_before_its_draw():
    verdicts = ["AC", "WA", "NO_CODE", "AC", "RE"]
    truncated = [True, True, True, False, False]
    ids = [PLAIN, PLAIN, [3, 4] * M, PLAIN, PLAIN]  # the third ends in a repetition
    assert maskable(verdicts, truncated, ids, M) == [True, False, False, False, False]
    for rho in (0.0, 0.3, 1.0):
        mask = masking_candidates(verdicts, truncated, ids, M, rho, random.Random(3))
        assert all(e for e, m in zip(maskable(verdicts, truncated, ids, M), mask, strict=True) if m)
    assert masking_candidates(verdicts, truncated, ids, M, 0.0, random.Random(3)) == [False] * 5
    assert masking_candidates(verdicts, truncated, ids, M, 1.0, random.Random(3))[0]


def test_is_truncated():
    assert is_truncated([1, 2, 3], 3, [9])
    assert not is_truncated([1, 2, 9], 3, [9])
    assert not is_truncated([1, 9], 3, [9])


def test_trainer_masks_only_chosen_advantages(tiny_model, tiny_tokenizer, tmp_path):
    """Drive the trainer's post-normalisation step on a crafted batch: rho=1."""

    trainer = _trainer(tiny_model, tiny_tokenizer, tmp_path, truncation_mask_ratio=1.0)
    eos = tiny_tokenizer.eos_token_id
    L = trainer.max_completion_length
    ids = [
        [5] * (L - 1) + [6],  # truncated, AC -> masked
        list(range(10, 10 + L)),  # truncated, WA -> kept
        [5, 6, eos],  # finished, AC -> kept
        list(range(10, 10 + L - 8)) + [3, 4, 5, 6] * 2,  # truncated, NO_CODE, repeating -> kept
    ]
    trainer._batch_completion_ids = ids
    trainer._batch_verdicts = ["AC", "WA", "AC", "NO_CODE"]
    advantages = torch.tensor([1.5, -0.5, 0.7, -1.7])
    with torch.no_grad():
        from trl import GRPOTrainer

        original = GRPOTrainer._generate_and_score_completions
        try:
            GRPOTrainer._generate_and_score_completions = lambda self, inputs: {
                "advantages": advantages
            }
            out = trainer._generate_and_score_completions([])
        finally:
            GRPOTrainer._generate_and_score_completions = original
    assert out["advantages"].tolist() == pytest.approx([0.0, -0.5, 0.7, -1.7])
    metrics = trainer._metrics["train"]
    assert metrics["microcoder/masked_ratio"][-1] == 0.25
    assert metrics["microcoder/maskable_ratio"][-1] == 0.25
    assert metrics["microcoder/truncated_ratio"][-1] == 0.75
    assert metrics["microcoder/verdicts/AC"][-1] == 0.5


def _trainer(model, tokenizer, tmp_path, **overrides):
    from datasets import Dataset

    from trainer_addon import MicroCoderGRPOConfig, MicroCoderGRPOTrainer

    config = MicroCoderGRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=16,
        repeat_window=4,
        report_to=[],
        use_cpu=True,
        **overrides,
    )
    dataset = Dataset.from_list([{"prompt": [{"role": "user", "content": "x"}]}] * 4)
    return MicroCoderGRPOTrainer(
        model=model,
        reward_funcs=[lambda completions, **kw: [0.0] * len(completions)],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
    )


def test_config_defaults(tmp_path):
    config = MicroCoderGRPOConfig(output_dir=str(tmp_path), report_to=[], use_cpu=True)
    assert config.beta == 0.0 and config.epsilon == 0.2 and config.epsilon_high == 0.28
    assert config.loss_type == "dapo"
    assert config.truncation_mask_ratio == 0.1 and config.repeat_window == 128
    assert config.non_incorrect == "not_wrong" and config.mask_truncated_completions is False


def test_temperature_schedule_parsing():
    stages = parse_temperature_schedule("1.2@140, 0.6@0")
    assert stages == [(0, 0.6), (140, 1.2)]
    assert temperature_at(stages, 0, 1.0) == 0.6
    assert temperature_at(stages, 139, 1.0) == 0.6
    assert temperature_at(stages, 140, 1.0) == 1.2
    assert temperature_at([], 5, 0.9) == 0.9
    with pytest.raises(ValueError):
        parse_temperature_schedule("hot@1")
    with pytest.raises(ValueError):
        parse_temperature_schedule("1.0@0,2.0@0")


def test_diversity_measures():
    same = [[1, 2, 3, 4, 5]] * 4
    different = [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15], [16, 17, 18, 19, 20]]
    assert distinct_ngram_ratio(same) == pytest.approx(0.25)
    assert distinct_ngram_ratio(different) == 1.0
    assert pairwise_jaccard_distance(same) == 0.0
    assert pairwise_jaccard_distance(different) == 1.0
    distinct, jaccard = batch_diversity(same + different, 4)
    assert distinct == pytest.approx((0.25 + 1.0) / 2)
    assert jaccard == pytest.approx(0.5)
