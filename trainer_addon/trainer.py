"""`MicroCoderGRPOTrainer`: a thin subclass of TRL's `GRPOTrainer` (TRL 1.16).

Override points (everything else is TRL's):

* ``_calculate_rewards``: calls TRL's, then keeps this batch's completion token ids and the
  verdicts of the first reward function exposing ``last_verdicts`` (local completions).
* ``_generate_and_score_completions``: before TRL's, applies the staged temperature for the
  current step (sampling *and* training log-prob temperature, see :meth:`set_temperature`);
  after it (advantages already group-normalised), zeroes the advantages chosen by
  :func:`~trainer_addon.masking.masking_candidates` and logs the ``microcoder/*`` metrics.

The temperature only changes when a generation batch is produced, so every batch is scored
(old log-probs and the loss's log-probs) at the temperature it was sampled at.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import torch
from accelerate.utils import gather_object, is_peft_model
from transformers import TrainerCallback
from trl import GRPOTrainer
from trl.trainer.utils import add_fused_lm_head

from .config import parse_temperature_schedule, temperature_at
from .diversity import batch_diversity
from .masking import PREDICATES, is_truncated, masking_candidates

VERDICT_NAMES = ("AC", "WA", "TLE", "RE", "MLE", "OLE", "ERROR", "NO_CODE")


class MicroCoderGRPOTrainer(GRPOTrainer):
    """GRPO with conditional truncation masking, staged temperature and diversity logging.

    Accepts a plain ``GRPOConfig`` too (then the add-on's fields take their defaults).
    """

    _tag_names = ["trl", "grpo", "microcoder-grpo"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        a = self.args
        self.truncation_mask_ratio = float(getattr(a, "truncation_mask_ratio", 0.1))
        self.repeat_window = int(getattr(a, "repeat_window", 128))
        self.non_incorrect = PREDICATES[getattr(a, "non_incorrect", "not_wrong")]
        self.diversity_ngram = int(getattr(a, "diversity_ngram", 4))
        self.temperature_stages = parse_temperature_schedule(
            getattr(a, "temperature_schedule", None)
        )
        seed = getattr(a, "mask_seed", None)
        seed = a.seed if seed is None else seed
        self.mask_rng = random.Random(seed * 1_000_003 + self.accelerator.process_index)
        self._lm_heads: dict[tuple[int, float], object] = {}
        self._batch_completion_ids: list[list[int]] | None = None
        self._batch_verdicts: list[str] | None = None
        if self.temperature_stages:
            self.set_temperature(temperature_at(self.temperature_stages, 0, self.temperature))

    # --- temperature -------------------------------------------------------------------------

    def _patchable_models(self):
        models = [self.accelerator.unwrap_model(self.model)]
        if self.ref_model is not None:
            models.append(self.accelerator.unwrap_model(self.ref_model))
        return [m.get_base_model() if is_peft_model(m) else m for m in models]

    def set_temperature(self, temperature: float) -> None:
        """Set the sampling temperature (transformers ``generate``, continuous batching and vLLM)
        and the temperature TRL's fused LM head divides the training logits by, together."""
        temperature = float(temperature)
        old = float(self.temperature)
        if temperature == old:
            return
        for model in self._patchable_models():
            # Remember the head at the old temperature, then install (or reuse) one at the new.
            # New heads always wrap the first one seen, so wrappers never stack up.
            self._lm_heads.setdefault((id(model), old), model.forward)
            base_key = next(k for k in self._lm_heads if k[0] == id(model))
            key = (id(model), temperature)
            if key not in self._lm_heads:
                model.forward = self._lm_heads[base_key]
                add_fused_lm_head(
                    model,
                    temperature=temperature,
                    cast_lm_head_to_fp32=self.args.cast_lm_head_to_fp32,
                    outputs=("log_probs", "entropy"),
                )
                self._lm_heads[key] = model.forward
            model.forward = self._lm_heads[key]
        self.temperature = temperature
        self.args.temperature = temperature
        if getattr(self, "generation_config", None) is not None:
            self.generation_config.temperature = temperature
        if getattr(self, "generation_kwargs", None) is not None:
            self.generation_kwargs["temperature"] = temperature
        if self.use_vllm and getattr(self, "vllm_generation", None) is not None:
            self.vllm_generation.temperature = temperature

    # --- rewards: keep ids and verdicts --------------------------------------------------------

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        for func in self.reward_funcs:
            if hasattr(func, "last_verdicts"):
                try:
                    func.last_verdicts = None
                except AttributeError:
                    pass
        rewards = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._batch_completion_ids = [list(ids) for ids in completion_ids_list]
        self._batch_verdicts = None
        for func in self.reward_funcs:
            verdicts = getattr(func, "last_verdicts", None)
            if verdicts is not None and len(verdicts) == len(completion_ids_list):
                self._batch_verdicts = [str(v) if v is not None else None for v in verdicts]
                break
        return rewards

    # --- generation, masking, metrics ----------------------------------------------------------

    def _generate_and_score_completions(self, inputs):
        mode = "train" if self.model.training else "eval"
        if mode == "train" and self.temperature_stages:
            step = self.state.global_step
            self.set_temperature(temperature_at(self.temperature_stages, step, self.temperature))
        output = super()._generate_and_score_completions(inputs)
        ids_list = self._batch_completion_ids or []
        verdicts = self._batch_verdicts
        truncated = [
            is_truncated(ids, self.max_completion_length, self.eos_token_ids) for ids in ids_list
        ]
        masked = masking_candidates(
            verdicts,
            truncated,
            ids_list,
            self.repeat_window,
            self.truncation_mask_ratio if mode == "train" else 0.0,
            self.mask_rng,
            self.non_incorrect,
        )
        advantages = output["advantages"]
        if any(masked):
            keep = torch.tensor(
                [not m for m in masked], dtype=advantages.dtype, device=advantages.device
            )
            output["advantages"] = advantages * (
                keep if advantages.dim() == 1 else keep.unsqueeze(1)
            )
        self._log_microcoder_metrics(mode, ids_list, verdicts, truncated, masked)
        return output

    def _log_microcoder_metrics(self, mode, ids_list, verdicts, truncated, masked):
        device = self.accelerator.device
        counts = Counter(
            v if v in VERDICT_NAMES else "UNKNOWN" for v in (verdicts or [None] * len(ids_list))
        )
        names = (*VERDICT_NAMES, "UNKNOWN")
        local = torch.tensor(
            [len(ids_list), sum(truncated), sum(masked), *(counts.get(n, 0) for n in names)],
            dtype=torch.float64,
            device=device,
        )
        total = self.accelerator.gather(local.unsqueeze(0)).sum(dim=0).tolist()
        n = max(total[0], 1.0)
        metrics = self._metrics[mode]
        metrics["microcoder/truncated_ratio"].append(total[1] / n)
        metrics["microcoder/masked_ratio"].append(total[2] / n)
        metrics["microcoder/masked_of_truncated"].append(total[2] / max(total[1], 1.0))
        for name, count in zip(names, total[3:], strict=True):
            metrics[f"microcoder/verdicts/{name}"].append(count / n)
        group = self.num_generations if mode == "train" else self.num_generations_eval
        all_ids = gather_object(ids_list)
        distinct, jaccard = batch_diversity(all_ids, group, self.diversity_ngram)
        metrics["microcoder/diversity"].append(distinct)
        metrics["microcoder/diversity_jaccard"].append(jaccard)
        metrics["microcoder/temperature"].append(float(self.temperature))


class MetricsJSONLCallback(TrainerCallback):
    """Appends every log record (TRL's and ``microcoder/*``) as one JSON line, with its step."""

    def __init__(self, path, echo=None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.echo = echo

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        record = {"step": state.global_step, **{k: _plain(v) for k, v in logs.items()}}
        with self.path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        if self.echo is not None:
            self.echo(record)


def _plain(value):
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)
