"""The demo's held-out answers and the sweep's groups are sampled as the trainer samples: the
same seed gives the very completions TRL's GRPOTrainer generates for the same prompts (tiny
random model, real TRL, real transformers ``generate``)."""

from __future__ import annotations

import pytest
import torch
from datasets import Dataset
from peft import LoraConfig

from evaluator.generate import generation_config, stop_token_ids
from tests.conftest import make_model
from trainer_addon import MicroCoderGRPOConfig, MicroCoderGRPOTrainer
from trainer_addon.demo import sample_answers
from trainer_addon.sampling import trainer_sampling
from trainer_addon.sweep import sample_groups

TEMPERATURE, LENGTH, GROUP, SEED = 0.9, 6, 3, 5
# prompts of different lengths: the batch is left-padded
PROMPTS = [
    [{"role": "user", "content": "Print twice the number."}],
    [
        {"role": "system", "content": "You are an expert competitive programmer."},
        {"role": "user", "content": "Reverse the string."},
    ],
]
# A third of the vocabulary declared end-of-turn by the model: completions stop early, and
# stopping at any declared EOS (not only the tokenizer's) is what is compared.
DECLARED_STOPS = list(range(100, 200))


def _trainer(tokenizer, tmp_path, bf16: bool = False, lora: bool = False) -> MicroCoderGRPOTrainer:
    model = make_model(tokenizer)
    model.generation_config.eos_token_id = DECLARED_STOPS
    config = MicroCoderGRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=len(PROMPTS) * GROUP,
        num_generations=GROUP,
        max_completion_length=LENGTH,
        temperature=TEMPERATURE,
        bf16=bf16,
        report_to=[],
        use_cpu=True,
    )
    peft_config = LoraConfig(r=4, lora_alpha=8, target_modules="all-linear") if lora else None
    return MicroCoderGRPOTrainer(
        model=model,
        reward_funcs=[lambda completions, **kw: [0.0] * len(completions)],
        args=config,
        train_dataset=Dataset.from_list([{"prompt": p} for p in PROMPTS]),
        processing_class=tokenizer,
        peft_config=peft_config,
    )


def _trainer_samples(trainer) -> tuple[list[list[int]], list[str]]:
    """TRL's own generation of one batch: each prompt GROUP times in a row, as its sampler
    repeats them."""
    torch.manual_seed(SEED)
    repeated = [prompt for prompt in PROMPTS for _ in range(GROUP)]
    _, completion_ids, _, completions, *_ = trainer._generate(repeated)
    return [list(ids) for ids in completion_ids], [c[0]["content"] for c in completions]


def _grouped(flat: list) -> list[list]:
    return [flat[i : i + GROUP] for i in range(0, len(flat), GROUP)]


def test_sampling_settings_are_the_trainers(tiny_tokenizer, tmp_path):
    trainer = _trainer(tiny_tokenizer, tmp_path)
    model = trainer.model
    stops = stop_token_ids(model, tiny_tokenizer)
    assert stops == trainer.eos_token_ids == [tiny_tokenizer.eos_token_id, *DECLARED_STOPS]
    ours = generation_config(trainer_sampling(TEMPERATURE, LENGTH), tiny_tokenizer, stops)
    assert ours.to_dict() == trainer.generation_config.to_dict()


@pytest.mark.parametrize(
    "bf16, lora",
    [(False, False), (True, True)],
    ids=["fp32", "bf16-lora"],  # bf16 with LoRA: TRL alone would sample it in fp32
)
def test_demo_and_sweep_sample_what_the_trainer_samples(tiny_tokenizer, tmp_path, bf16, lora):
    trainer = _trainer(tiny_tokenizer, tmp_path, bf16=bf16, lora=lora)
    seen: set[torch.dtype] = set()  # what the model's layers compute in while TRL samples
    layer = next(m for n, m in trainer.model.named_modules() if n.endswith("layers.0.mlp"))
    hook = layer.register_forward_hook(lambda module, args, out: seen.add(out.dtype))
    trainer_ids, trainer_texts = _trainer_samples(trainer)
    hook.remove()
    assert seen == {torch.bfloat16 if bf16 else torch.float32}
    # not a trivial batch: some completions stop early, at declared stops, others run to the
    # limit, and a group's completions differ
    stopped = [ids for ids in trainer_ids if len(ids) < LENGTH]
    assert stopped and all(ids[-1] in DECLARED_STOPS for ids in stopped)
    assert any(len(ids) == LENGTH for ids in trainer_ids)
    assert all(len({tuple(ids) for ids in group}) > 1 for group in _grouped(trainer_ids))

    model = trainer.model
    groups = sample_groups(
        model, tiny_tokenizer, PROMPTS, TEMPERATURE, GROUP, LENGTH, seed=SEED, bf16=bf16
    )
    assert groups == _grouped(trainer_ids)

    answers = sample_answers(
        model,
        tiny_tokenizer,
        PROMPTS,
        GROUP,
        TEMPERATURE,
        LENGTH,
        batch_size=len(PROMPTS) * GROUP,  # the trainer's generation batch: one generate call
        seed=SEED,
        bf16=bf16,
    )
    assert answers == _grouped(trainer_texts)


def test_greedy_answers_do_not_depend_on_the_batch_size(tiny_tokenizer):
    """The held-out batch size (64 by default) is a speed setting only: a prompt's greedy
    answer is the same alone and left-padded beside longer prompts."""
    model = make_model(tiny_tokenizer)
    with torch.no_grad():  # peaked logits: the default init's near-uniform ones all decode alike
        for name, param in model.named_parameters():
            if "norm" not in name:
                param.mul_(10)
    prompts = PROMPTS + [[{"role": "user", "content": "Sum the list of numbers given."}]]
    alone = [sample_answers(model, tiny_tokenizer, [p], 1, 0, 12, batch_size=1)[0] for p in prompts]
    together = sample_answers(model, tiny_tokenizer, prompts, 1, 0, 12, batch_size=len(prompts))
    assert together == alone
    assert len({answer for (answer,) in alone}) > 1  # different prompts, different answers
