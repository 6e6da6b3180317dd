"""A temperature switch changes the sampling and the training log-prob temperature together."""

from __future__ import annotations

import torch

from .test_masking import _trainer


def _logps_reference(model, input_ids, logits_to_keep, temperature):
    with torch.no_grad():
        logits = model(input_ids=input_ids).logits[:, :-1] / temperature
    logps = torch.log_softmax(logits.float(), dim=-1)
    picked = logps.gather(-1, input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    return picked[:, -logits_to_keep:]


def test_switch_moves_sampling_and_logprob_temperature(tiny_model, tiny_tokenizer, tmp_path):
    trainer = _trainer(tiny_model, tiny_tokenizer, tmp_path, temperature_schedule="0.7@0,1.6@3")
    assert trainer.temperature == 0.7 and trainer.generation_config.temperature == 0.7

    torch.manual_seed(0)
    input_ids = torch.randint(3, len(tiny_tokenizer), (2, 12))
    mask = torch.ones_like(input_ids)
    keep = 6

    def trainer_logps():
        with torch.no_grad():
            logps, _, _ = trainer._get_per_token_logps_and_entropies(
                trainer.model, input_ids, mask, keep
            )
        return logps

    before = trainer_logps()
    torch.testing.assert_close(
        before, _logps_reference(trainer.model, input_ids, keep, 0.7), atol=5e-3, rtol=1e-3
    )

    # The schedule is applied when a generation batch is produced, from its step on.
    trainer.state.global_step = 3
    from trl import GRPOTrainer

    original = GRPOTrainer._generate_and_score_completions
    seen = {}

    def fake(self, inputs):
        seen["sampling"] = self.generation_config.temperature
        seen["kwargs"] = self.generation_kwargs["temperature"]
        return {"advantages": torch.zeros(0)}

    try:
        GRPOTrainer._generate_and_score_completions = fake
        trainer._batch_completion_ids, trainer._batch_verdicts = [], None
        trainer._generate_and_score_completions([])
    finally:
        GRPOTrainer._generate_and_score_completions = original
    assert seen == {"sampling": 1.6, "kwargs": 1.6}
    assert trainer.temperature == 1.6
    assert trainer._metrics["train"]["microcoder/temperature"][-1] == 1.6

    after = trainer_logps()
    torch.testing.assert_close(
        after, _logps_reference(trainer.model, input_ids, keep, 1.6), atol=5e-3, rtol=1e-3
    )
    assert not torch.allclose(before, after)

    # Back to a temperature seen before: the cached head is reused, no wrappers stack up.
    trainer.set_temperature(0.7)
    torch.testing.assert_close(trainer_logps(), before)
    assert trainer.generation_config.temperature == 0.7
