"""`MicroCoderGRPOConfig`: TRL's `GRPOConfig` with the paper's defaults and the add-on's fields."""

from __future__ import annotations

from dataclasses import dataclass, field

from trl import GRPOConfig

from .stages import stages_from_options

NON_INCORRECT_CHOICES = ("not_wrong", "passed", "unjudged")

# Training without activation checkpointing (GRPOConfig turns it on): transformers 5 renamed
# the field and warns on the old name, which 4.x still needs.
NO_ACTIVATION_CHECKPOINTING = {
    (
        "activation_checkpointing"
        if "activation_checkpointing" in GRPOConfig.__dataclass_fields__
        else "gradient_checkpointing"
    ): False
}


def parse_temperature_schedule(spec: str | None) -> list[tuple[int, float]]:
    """Parse ``"0.6@0,1.2@140"`` into ``[(0, 0.6), (140, 1.2)]``, sorted by step.

    Each item is ``TEMPERATURE@STEP``: the temperature used from that optimizer step on. A bare
    ``"1.2"`` means ``1.2@0``. When no item starts at step 0, the first one applies from 0 too.
    """
    if spec is None or not str(spec).strip():
        return []
    stages: list[tuple[int, float]] = []
    for item in str(spec).split(","):
        item = item.strip()
        if not item:
            continue
        temp_text, _, step_text = item.partition("@")
        try:
            temperature = float(temp_text)
            step = int(step_text) if step_text.strip() else 0
        except ValueError:
            raise ValueError(f"bad temperature schedule item {item!r}: expected TEMPERATURE@STEP")
        if temperature <= 0:
            raise ValueError(f"bad temperature schedule item {item!r}: temperature must be > 0")
        if step < 0:
            raise ValueError(f"bad temperature schedule item {item!r}: step must be >= 0")
        stages.append((step, temperature))
    stages.sort()
    steps = [s for s, _ in stages]
    if len(set(steps)) != len(steps):
        raise ValueError(f"temperature schedule {spec!r} names a step twice")
    return stages


def temperature_at(stages: list[tuple[int, float]], step: int, default: float) -> float:
    """The temperature of a staged schedule at ``step`` (``default`` when there is no schedule)."""
    if not stages:
        return default
    current = stages[0][1]
    for start, temperature in stages:
        if step >= start:
            current = temperature
        else:
            break
    return current


@dataclass
class MicroCoderGRPOConfig(GRPOConfig):
    """GRPO settings of MicroCoder-GRPO (see ``trainer_addon/README.md``).

    Paper defaults on top of `GRPOConfig`: ``beta=0`` (no KL, no reference model),
    ``epsilon=0.2``/``epsilon_high=0.28`` (asymmetric "clip-higher"), ``loss_type="dapo"``
    (token-level aggregation over all active tokens of the batch).
    """

    beta: float = field(default=0.0, metadata={"help": "KL coefficient; the paper uses none."})
    epsilon: float = field(default=0.2, metadata={"help": "Lower clip range (eps_low)."})
    epsilon_high: float | None = field(
        default=0.28, metadata={"help": "Upper clip range (eps_high)."}
    )
    loss_type: str = field(
        default="dapo", metadata={"help": "Token-level (DAPO) loss aggregation."}
    )
    truncation_mask_ratio: float = field(
        default=0.1,
        metadata={
            "help": "rho: probability that a qualifying truncated completion (hit max_completion_length, not "
            "judged wrong, not ending in a repetition) gets a zero advantage. 0 disables the masking."
        },
    )
    repeat_window: int = field(
        default=128,
        metadata={
            "help": "m: a completion whose last m tokens equal the m before them is a repetition."
        },
    )
    non_incorrect: str = field(
        default="not_wrong",
        metadata={
            "help": "Which truncated completions count as 'non-incorrect': 'not_wrong' (passed, no code to judge, "
            "or no verdict known), 'passed' (AC only), 'unjudged' (no code or no verdict only)."
        },
    )
    temperature_schedule: str | None = field(
        default=None,
        metadata={
            "help": "Staged temperature, e.g. '0.6@0,1.2@140': sampling and training log-prob temperature from "
            "each step on. Overrides `temperature`."
        },
    )
    temperature_stages: str | None = field(
        default=None,
        metadata={
            "help": "Diversity-triggered stages, e.g. '0.6,1.2': start at the first temperature and move to "
            "the next when the rolling diversity of `diversity_window` batches falls below "
            "`diversity_floor` (never back; see trainer_addon/stages.py). Excludes `temperature_schedule`."
        },
    )
    diversity_floor: float | None = field(
        default=None,
        metadata={
            "help": "Floor of the rolling diversity that moves to the next temperature stage."
        },
    )
    diversity_window: int = field(
        default=5,
        metadata={
            "help": "Batches in the rolling diversity mean (and the least between two moves)."
        },
    )
    mask_seed: int | None = field(
        default=None, metadata={"help": "Seed of the masking draws (default: `seed`)."}
    )
    diversity_ngram: int = field(
        default=4, metadata={"help": "n of the distinct-n-gram diversity measure."}
    )

    def __post_init__(self):
        stages = parse_temperature_schedule(self.temperature_schedule)
        if stages:
            self.temperature = temperature_at(stages, 0, self.temperature)
        if self.diversity_window < 1:
            raise ValueError("diversity_window must be >= 1")
        diversity_stages = stages_from_options(
            self.temperature_stages, self.diversity_floor, self.diversity_window, bool(stages)
        )
        if diversity_stages is not None:
            self.temperature = diversity_stages.temperature
        if not 0.0 <= self.truncation_mask_ratio <= 1.0:
            raise ValueError("truncation_mask_ratio must be in [0, 1]")
        if self.repeat_window < 1:
            raise ValueError("repeat_window must be >= 1")
        if self.non_incorrect not in NON_INCORRECT_CHOICES:
            raise ValueError(f"non_incorrect must be one of {NON_INCORRECT_CHOICES}")
        super().__post_init__()

    @property
    def schedule_stages(self) -> list[tuple[int, float]]:
        """``temperature_schedule`` parsed: ``[(step, temperature), ...]``."""
        return parse_temperature_schedule(self.temperature_schedule)
