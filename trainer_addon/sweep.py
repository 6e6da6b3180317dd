"""Offline temperature sweep: diversity of sampled groups at candidate temperatures.

Procedure: the prompts are split into ``rounds`` consecutive batches; in each round, for each
candidate temperature T, ``k`` completions are sampled per prompt and the group diversity
(distinct-n-gram ratio, :mod:`trainer_addon.diversity`) is measured. A round is sampled as
the trainer samples a step's batch (:mod:`trainer_addon.sampling`: one left-padded batch of
each prompt k times, its generation settings), so the levels are the ones training logs as
``microcoder/diversity``. Per temperature:

* ``level`` = mean diversity over all groups;
* ``trend`` = least-squares slope of the per-round mean diversity against the round index;
* ``swing`` = standard deviation of the per-group diversity, divided by ``level``
  (coefficient of variation).

Criterion (the paper's "neither collapsing nor swinging", made precise): T *collapses* when
``level < collapse_level`` or ``trend < -trend_tolerance``; it *swings* when
``swing > swing_tolerance``. The recommendation is the highest stable (neither) temperature:
the most exploration that still converges. When none is stable, the one with the smallest
``swing`` among the non-collapsing ones (else the highest) is given, flagged as unstable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from evaluator.generate import sample_completions

from .diversity import distinct_ngram_ratio
from .sampling import Conversation, chat_prompt_ids, trainer_sampling


@dataclass
class TemperatureStats:
    temperature: float
    level: float
    trend: float
    swing: float
    per_round: list[float] = field(default_factory=list)
    per_group: list[float] = field(default_factory=list)
    collapsing: bool = False
    swinging: bool = False

    @property
    def stable(self) -> bool:
        return not (self.collapsing or self.swinging)


def _slope(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mx = (n - 1) / 2
    my = sum(values) / n
    den = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (v - my) for i, v in enumerate(values)) / den


def summarize(
    temperature: float,
    rounds: list[list[float]],
    collapse_level: float = 0.3,
    trend_tolerance: float = 0.05,
    swing_tolerance: float = 0.25,
) -> TemperatureStats:
    """Stats of one temperature from its per-round lists of group diversities."""
    groups = [d for r in rounds for d in r]
    level = sum(groups) / len(groups) if groups else 0.0
    per_round = [sum(r) / len(r) for r in rounds if r]
    std = math.sqrt(sum((d - level) ** 2 for d in groups) / len(groups)) if groups else 0.0
    swing = std / level if level > 0 else math.inf
    trend = _slope(per_round)
    return TemperatureStats(
        temperature=temperature,
        level=level,
        trend=trend,
        swing=swing,
        per_round=per_round,
        per_group=groups,
        collapsing=level < collapse_level or trend < -trend_tolerance,
        swinging=swing > swing_tolerance,
    )


def recommend(stats: list[TemperatureStats]) -> tuple[float, bool]:
    """(temperature, stable?) by the criterion in the module docstring."""
    if not stats:
        raise ValueError("no temperatures to choose from")
    stable = [s for s in stats if s.stable]
    if stable:
        return max(stable, key=lambda s: s.temperature).temperature, True
    alive = [s for s in stats if not s.collapsing]
    if alive:
        return min(alive, key=lambda s: s.swing).temperature, False
    return max(stats, key=lambda s: s.temperature).temperature, False


def sample_groups(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[Conversation],
    temperature: float,
    k: int,
    max_new_tokens: int,
    seed: int,
    bf16: bool = False,
) -> list[list[list[int]]]:
    """k sampled completions (token ids, up to and with the first stop) of each chat prompt,
    in one batch as the trainer samples one (``bf16``: as it samples with ``bf16``): the ids
    its diversity is measured on."""
    prompt_ids = chat_prompt_ids(tokenizer, prompts)
    sampling = trainer_sampling(temperature, max_new_tokens)
    return sample_completions(model, tokenizer, prompt_ids, k, sampling, seed=seed, bf16=bf16)


def run_sweep(
    model,
    tokenizer,
    prompts,
    temperatures,
    k: int = 8,
    rounds: int = 2,
    max_new_tokens: int = 128,
    n: int = 4,
    seed: int = 0,
    bf16: bool = False,
    progress=None,
    **criterion,
) -> tuple[list[TemperatureStats], float, bool]:
    per_round = max(1, len(prompts) // max(rounds, 1))
    batches = [prompts[i * per_round : (i + 1) * per_round] for i in range(max(rounds, 1))]
    batches = [b for b in batches if b]
    stats = []
    for temperature in temperatures:
        rounds_div = []
        for index, batch in enumerate(batches):
            groups = sample_groups(
                model, tokenizer, batch, temperature, k, max_new_tokens, seed + index, bf16
            )
            rounds_div.append([distinct_ngram_ratio(g, n) for g in groups])
            if progress is not None:
                progress(temperature, index, rounds_div[-1])
        stats.append(summarize(temperature, rounds_div, **criterion))
    best, stable = recommend(stats)
    return stats, best, stable


def plot_sweep(stats: list[TemperatureStats], best: float, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    temps = [s.temperature for s in stats]
    levels = [s.level for s in stats]
    errs = [s.swing * s.level if math.isfinite(s.swing) else 0.0 for s in stats]
    colors = [
        "tab:green" if s.stable else ("tab:blue" if s.collapsing else "tab:red") for s in stats
    ]
    ax1.errorbar(temps, levels, yerr=errs, fmt="-", color="gray", zorder=1)
    ax1.scatter(temps, levels, c=colors, zorder=2)
    ax1.axvline(best, linestyle="--", color="black", label=f"recommended T={best:g}")
    ax1.set_xlabel("temperature")
    ax1.set_ylabel("group diversity (distinct n-gram ratio)")
    ax1.set_title("level ± std (green stable, blue collapsing, red swinging)", fontsize=8)
    ax1.legend()
    for s in stats:
        ax2.plot(range(len(s.per_round)), s.per_round, marker="o", label=f"T={s.temperature:g}")
    ax2.set_xlabel("round")
    ax2.set_ylabel("mean diversity")
    ax2.set_title("trend over rounds", fontsize=8)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def stats_to_dict(stats: list[TemperatureStats]) -> list[dict]:
    return [{**asdict(s), "stable": s.stable} for s in stats]
