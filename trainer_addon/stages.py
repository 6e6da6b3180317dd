"""Diversity-triggered temperature stages: an online rule for MicroCoder-GRPO's temperature.

The paper chooses the sampling temperature by how group diversity evolves: too low and
diversity keeps falling until training collapses, and staged switches from a low to a higher
temperature beat both a constant temperature and a continuous ramp. It states no online rule;
this module makes one precise:

* training starts at the first of the stage temperatures ``T_0 < T_1 < ...`` (any order is
  accepted; stages are taken in the order given);
* after every training generation batch, its diversity (``microcoder/diversity``, the
  distinct-4-gram ratio of each group, averaged) is observed;
* once ``window`` batches have been observed at the current stage, the rolling mean of the
  last ``window`` of them is compared with ``floor``: below it, the next stage is chosen;
* a move clears the observations, so the next one needs ``window`` fresh batches at the new
  temperature (at most one move per window), and there is never a move back.

The trainer applies a chosen move at its *next* generation batch: the batch whose diversity
triggered it has already been sampled, and its loss must use the temperature it was sampled
at. ``floor`` can be read off ``mctrain sweep-temperature``'s report
(:func:`floor_from_sweep`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


def parse_temperature_stages(spec: str | None) -> list[float]:
    """``"0.6,1.2"`` -> ``[0.6, 1.2]``; ``None`` or blank -> ``[]``."""
    if spec is None or not str(spec).strip():
        return []
    stages = []
    for item in str(spec).split(","):
        item = item.strip()
        if not item:
            continue
        try:
            value = float(item)
        except ValueError:
            raise ValueError(f"bad temperature stage {item!r}: expected a number")
        if not value > 0:
            raise ValueError(f"bad temperature stage {item!r}: temperature must be > 0")
        stages.append(value)
    if len(set(stages)) != len(stages):
        raise ValueError(f"temperature stages {spec!r} repeat a temperature")
    return stages


def stages_from_options(
    spec: str | None, floor: float | None, window: int, has_schedule: bool
) -> DiversityStages | None:
    """The rule the trainer options ask for (``None``: no stages), or the ``ValueError`` that
    says why they do not fit together."""
    temperatures = parse_temperature_stages(spec)
    if not temperatures:
        return None
    if has_schedule:
        raise ValueError("give temperature_schedule or temperature_stages, not both")
    if floor is None:
        raise ValueError("temperature_stages needs a diversity_floor")
    return DiversityStages(temperatures, float(floor), int(window))


@dataclass
class StageSwitch:
    """One move: decided from the diversity of step ``triggered_at`` (rolling mean
    ``rolling``), applied from the generation batch of step ``step`` on."""

    triggered_at: int
    step: int | None
    from_temperature: float
    to_temperature: float
    rolling: float

    def as_dict(self) -> dict:
        return {
            "triggered_at": self.triggered_at,
            "step": self.step,
            "from": self.from_temperature,
            "to": self.to_temperature,
            "rolling_diversity": self.rolling,
        }


@dataclass
class DiversityStages:
    """The online rule (module docstring). ``observe`` after each batch; ``temperature`` is the
    stage in force; ``switches`` lists the moves made."""

    temperatures: list[float]
    floor: float
    window: int = 5
    index: int = 0
    recent: list[float] = field(default_factory=list)
    switches: list[StageSwitch] = field(default_factory=list)

    def __post_init__(self):
        self.temperatures = [float(t) for t in self.temperatures]
        if not self.temperatures:
            raise ValueError("diversity stages need at least one temperature")
        if self.window < 1:
            raise ValueError("the diversity window must be >= 1")

    @property
    def temperature(self) -> float:
        return self.temperatures[self.index]

    @property
    def rolling(self) -> float | None:
        """Mean of the last ``window`` observations at this stage (``None`` before ``window``)."""
        if len(self.recent) < self.window:
            return None
        tail = self.recent[-self.window :]
        return sum(tail) / len(tail)

    def observe(self, step: int, diversity: float) -> float | None:
        """Record the diversity of the batch of ``step``; return the next stage's temperature
        when this observation moves to it, else ``None``."""
        self.recent.append(float(diversity))
        rolling = self.rolling
        if rolling is None or rolling >= self.floor or self.index + 1 >= len(self.temperatures):
            return None
        old = self.temperature
        self.index += 1
        self.recent = []
        self.switches.append(StageSwitch(step, None, old, self.temperature, rolling))
        return self.temperature


def floor_from_sweep(path: str | Path, temperature: float, fraction: float = 0.9) -> float:
    """A diversity floor from ``mctrain sweep-temperature``'s ``sweep.json``: ``fraction`` of
    the diversity level the untrained model has at ``temperature`` (the first stage).

    Training that sharpens the policy lowers group diversity; falling a tenth below what the
    model had at the start is the "keeps falling" the paper sees at a too-low temperature.
    The temperature must be one the sweep measured."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}")
    try:
        report = json.loads(text)
        levels = {float(e["temperature"]): float(e["level"]) for e in report["temperatures"]}
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path} is not a sweep.json of mctrain sweep-temperature ({exc!r})")
    for measured, level in levels.items():
        if abs(measured - float(temperature)) < 1e-9:
            return level * float(fraction)
    measured = ", ".join(f"{t:g}" for t in levels)
    raise ValueError(f"{path} has no diversity level at T={temperature:g} (measured: {measured})")
