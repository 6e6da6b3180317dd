"""`MicroCoderGRPOTrainer`: a thin subclass of TRL's `GRPOTrainer` (TRL 1.16).

Override points (everything else is TRL's):

* ``_calculate_rewards``: calls TRL's, then keeps this batch's completion token ids and the
  verdicts of the first reward function exposing ``last_verdicts`` (local completions).
* ``_generate_and_score_completions``: before TRL's, applies the staged temperature for the
  current step (sampling *and* training log-prob temperature, see :meth:`set_temperature`);
  after it (advantages already group-normalised), zeroes the advantages the masking rule
  chooses (:mod:`trainer_addon.masking`) and logs the ``microcoder/*`` metrics.

The temperature only changes when a generation batch is produced, so every batch is scored
(old log-probs and the loss's log-probs) at the temperature it was sampled at. Two ways to
change it: a step schedule (``temperature_schedule``) or diversity-triggered stages
(``temperature_stages`` + ``diversity_floor``, :mod:`trainer_addon.stages`), whose move is
decided from one batch's diversity and applied at the next batch.

``_generate_single_turn``: TRL's, in :func:`evaluator.generate.bf16_inference` with ``bf16``
(TRL samples a PEFT model in fp32 and scores it in bf16); the held-out and sweep samplers
sample the same way.

``training_step`` is timed too: ``microcoder/time/{step,generate,reward}_s`` say where a
step's wall time goes (``generate``: sampling plus TRL's scoring bookkeeping, without the
reward; the rest of ``step`` is the loss forward and backward).
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections import Counter
from pathlib import Path

import torch
from accelerate.utils import gather_object, is_peft_model
from transformers import TrainerCallback
from trl import GRPOTrainer
from trl.trainer.utils import add_fused_lm_head

from evaluator import VERDICT_NAMES
from evaluator.generate import bf16_inference

from .config import parse_temperature_schedule, temperature_at
from .diversity import batch_diversity
from .masking import PREDICATES, draw_masks, is_truncated, maskable
from .stages import stages_from_options

logger = logging.getLogger(__name__)


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
        self.temperature_schedule = parse_temperature_schedule(
            getattr(a, "temperature_schedule", None)
        )
        self.diversity_stages = stages_from_options(
            getattr(a, "temperature_stages", None),
            getattr(a, "diversity_floor", None),
            getattr(a, "diversity_window", 5),
            bool(self.temperature_schedule),
        )
        self._pending_temperature: float | None = None
        self._reward_seconds = 0.0
        self._generate_seconds = 0.0
        seed = getattr(a, "mask_seed", None)
        seed = a.seed if seed is None else seed
        self.mask_rng = random.Random(seed * 1_000_003 + self.accelerator.process_index)
        self._lm_heads: dict[tuple[int, float], object] = {}
        self._batch_completion_ids: list[list[int]] | None = None
        self._batch_verdicts: list[str] | None = None
        if self.temperature_schedule:
            self.set_temperature(temperature_at(self.temperature_schedule, 0, self.temperature))
        elif self.diversity_stages is not None:
            self.set_temperature(self.diversity_stages.temperature)

    @property
    def temperature_switches(self) -> list[dict]:
        """The moves of the diversity-triggered stages so far (``[]`` without stages)."""
        if self.diversity_stages is None:
            return []
        return [s.as_dict() for s in self.diversity_stages.switches]

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
        start = time.perf_counter()
        rewards = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._reward_seconds += time.perf_counter() - start
        self._batch_completion_ids = [list(ids) for ids in completion_ids_list]
        self._batch_verdicts = None
        for func in self.reward_funcs:
            verdicts = getattr(func, "last_verdicts", None)
            if verdicts is not None and len(verdicts) == len(completion_ids_list):
                self._batch_verdicts = [str(v) if v is not None else None for v in verdicts]
                break
        return rewards

    # --- generation, masking, metrics ----------------------------------------------------------

    def training_step(self, model, inputs, num_items_in_batch=None):
        start = time.perf_counter()
        self._reward_seconds = self._generate_seconds = 0.0
        loss = super().training_step(model, inputs, num_items_in_batch)
        metrics = self._metrics["train"]
        metrics["microcoder/time/step_s"].append(time.perf_counter() - start)
        metrics["microcoder/time/generate_s"].append(self._generate_seconds)
        metrics["microcoder/time/reward_s"].append(self._reward_seconds)
        return loss

    def _apply_temperature_for_batch(self) -> bool:
        """Before a training batch is sampled: the schedule's temperature for this step, or
        the stage move decided from the previous batch. True when a stage move happened."""
        if self.temperature_schedule:
            step = self.state.global_step
            self.set_temperature(temperature_at(self.temperature_schedule, step, self.temperature))
            return False
        if self._pending_temperature is None:
            return False
        self.set_temperature(self._pending_temperature)
        self._pending_temperature = None
        switch = self.diversity_stages.switches[-1]
        switch.step = self.state.global_step + 1  # the step this batch is logged under
        logger.info(
            "temperature stage %g -> %g from step %d (rolling diversity %.4f < floor %.4f)",
            switch.from_temperature,
            switch.to_temperature,
            switch.step,
            switch.rolling,
            self.diversity_stages.floor,
        )
        return True

    def _generate_single_turn(self, *args, **kwargs):
        """TRL's, in bf16 when training is (:func:`evaluator.generate.bf16_inference`):
        accelerate's autocast wraps the model's ``forward``, which a PEFT model's ``generate``
        does not call, so LoRA runs would sample in fp32 what the loss scores in bf16 (and
        recast the frozen weights at every decoding step)."""
        if not self.args.bf16 or self.use_vllm or getattr(self.args, "use_transformers_paged", 0):
            return super()._generate_single_turn(*args, **kwargs)
        with bf16_inference(self.accelerator.unwrap_model(self.model)):
            return super()._generate_single_turn(*args, **kwargs)

    def _generate_and_score_completions(self, inputs):
        mode = "train" if self.model.training else "eval"
        switched = self._apply_temperature_for_batch() if mode == "train" else False
        start = time.perf_counter()
        reward_before = self._reward_seconds
        output = super()._generate_and_score_completions(inputs)
        self._generate_seconds += (time.perf_counter() - start) - (
            self._reward_seconds - reward_before
        )
        ids_list = self._batch_completion_ids or []
        verdicts = self._batch_verdicts
        truncated = [
            is_truncated(ids, self.max_completion_length, self.eos_token_ids) for ids in ids_list
        ]
        eligible = maskable(verdicts, truncated, ids_list, self.repeat_window, self.non_incorrect)
        rho = self.truncation_mask_ratio if mode == "train" else 0.0
        masked = draw_masks(eligible, rho, self.mask_rng)
        advantages = output["advantages"]
        if any(masked):
            keep = torch.tensor(
                [not m for m in masked], dtype=advantages.dtype, device=advantages.device
            )
            output["advantages"] = advantages * (
                keep if advantages.dim() == 1 else keep.unsqueeze(1)
            )
        diversity = self._log_microcoder_metrics(
            mode, ids_list, verdicts, truncated, eligible, masked
        )
        if mode == "train" and self.diversity_stages is not None:
            stages = self.diversity_stages
            # logged at the temperature this batch was sampled at, before any move it triggers
            metrics = self._metrics[mode]
            metrics["microcoder/temperature_switch"].append(1.0 if switched else 0.0)
            moved = stages.observe(self.state.global_step + 1, diversity)
            rolling = stages.switches[-1].rolling if moved is not None else stages.rolling
            if rolling is not None:
                metrics["microcoder/diversity_rolling"].append(rolling)
            if moved is not None:
                self._pending_temperature = moved
        return output

    def _log_microcoder_metrics(
        self, mode, ids_list, verdicts, truncated, eligible, masked
    ) -> float:
        """Log the ``microcoder/*`` metrics of one batch; returns its (gathered) diversity."""
        device = self.accelerator.device
        counts = Counter(
            v if v in VERDICT_NAMES else "UNKNOWN" for v in (verdicts or [None] * len(ids_list))
        )
        names = (*VERDICT_NAMES, "UNKNOWN")
        local = torch.tensor(
            [
                len(ids_list),
                sum(truncated),
                sum(masked),
                sum(eligible),
                *(counts.get(n, 0) for n in names),
            ],
            dtype=torch.float64,
            device=device,
        )
        total = self.accelerator.gather(local.unsqueeze(0)).sum(dim=0).tolist()
        n = max(total[0], 1.0)
        metrics = self._metrics[mode]
        metrics["microcoder/truncated_ratio"].append(total[1] / n)
        metrics["microcoder/masked_ratio"].append(total[2] / n)
        metrics["microcoder/masked_of_truncated"].append(total[2] / max(total[1], 1.0))
        # before the rho draw: truncated, non-incorrect, no repetition (why masked is 0 or not)
        metrics["microcoder/maskable_ratio"].append(total[3] / n)
        for name, count in zip(names, total[4:], strict=True):
            metrics[f"microcoder/verdicts/{name}"].append(count / n)
        group = self.num_generations if mode == "train" else self.num_generations_eval
        all_ids = gather_object(ids_list)
        distinct, jaccard = batch_diversity(all_ids, group, self.diversity_ngram)
        metrics["microcoder/diversity"].append(distinct)
        metrics["microcoder/diversity_jaccard"].append(jaccard)
        metrics["microcoder/temperature"].append(float(self.temperature))
        return distinct


class MetricsJSONLCallback(TrainerCallback):
    """Appends every log record (TRL's and ``microcoder/*``) as one JSON line, with its step,
    and ``microcoder/time/wall_s``: the whole optimizer step's wall time (sampling, reward,
    loss and optimizer; ``training_step``'s timers miss the optimizer)."""

    def __init__(self, path, echo=None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.echo = echo
        self._step_start: float | None = None
        self._step_wall: float | None = None

    def on_step_begin(self, args, state, control, **kwargs):
        self._step_start = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        if self._step_start is not None:
            self._step_wall = time.perf_counter() - self._step_start

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        record = {"step": state.global_step, **{k: _plain(v) for k, v in logs.items()}}
        if self._step_wall is not None and "microcoder/time/step_s" in record:
            record["microcoder/time/wall_s"] = self._step_wall
            self._step_wall = None
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
