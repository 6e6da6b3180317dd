"""The results of ``mctrain demo``: the per-step records, held-out pass@1 before and after
with its paired interval, ``summary.json``, the one-paragraph description and the plot."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def read_metrics(path: Path) -> list[dict]:
    """The per-step records of ``metrics.jsonl`` (TRL's final summary line left out)."""
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if "microcoder/diversity" in r]


def mean_rate(graded: dict[str, list[bool]]) -> float:
    rates = [sum(g) / len(g) for g in graded.values() if g]
    return sum(rates) / len(rates) if rates else 0.0


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def step_times(records: Sequence[dict]) -> dict[str, float]:
    """Mean seconds per training step and where they go: ``generate`` (sampling and TRL's
    scoring bookkeeping), ``reward`` (the sandbox), ``update`` (the rest: the loss's forward
    and backward, the optimizer)."""

    def column(name: str) -> list[float]:
        return [float(r[name]) for r in records if isinstance(r.get(name), (int, float))]

    wall = _mean(column("microcoder/time/wall_s"))
    generate = _mean(column("microcoder/time/generate_s"))
    reward = _mean(column("microcoder/time/reward_s"))
    return {
        "wall": round(wall, 2),
        "generate": round(generate, 2),
        "reward": round(reward, 2),
        "update": round(max(wall - generate - reward, 0.0), 2),
    }


def compare(base: dict[str, list[bool]], trained: dict[str, list[bool]]) -> dict[str, Any]:
    """pass@1 before and after, their paired difference with a 95% bootstrap interval over
    held-out problems and the sign-flip test's p (``evaluator.report.stats``)."""
    from evaluator.report import paired_bootstrap, sign_flip_test

    ids = sorted(base)
    a = [sum(base[q]) / len(base[q]) for q in ids]
    b = [sum(trained[q]) / len(trained[q]) for q in ids]
    low, high = paired_bootstrap(a, b)
    return {
        "base": round(_mean(a), 4),
        "trained": round(_mean(b), 4),
        "difference": round(_mean(b) - _mean(a), 4),
        "interval95": [round(low, 4), round(high, 4)],
        "sign_flip_p": round(sign_flip_test(a, b), 4),
        "problems": len(ids),
        "samples_per_problem": len(base[ids[0]]) if ids else 0,
        "per_problem": {q: {"base": x, "trained": y} for q, x, y in zip(ids, a, b, strict=True)},
    }


def diversity_change(start: float, end: float) -> dict[str, float | None]:
    """Diversity at the start and the end, and the ratio end / start (None when start is 0)."""
    return {
        "start": round(start, 4),
        "end": round(end, 4),
        "ratio": round(end / start, 4) if start else None,
    }


def summarize(
    model_path: str,
    *,
    settings: dict[str, Any],
    heldout_temperature: float,
    split: dict[str, Any],
    base: dict[str, list[bool]],
    trained: dict[str, list[bool]],
    diversity: tuple[float, float],
    records: Sequence[dict],
    switches: list[dict],
    phases: dict[str, float],
) -> dict[str, Any]:
    """``summary.json``: the run's settings (plain data: results depend on no demo type), the
    held-out comparison at ``heldout_temperature`` (``diversity``: the held-out samples'
    group diversity before and after) and where the time went (``phases``: wall seconds by
    phase)."""
    return {
        "model": Path(model_path).name,
        "settings": settings,
        "train_problems": split["train"],
        "heldout": {
            **compare(base, trained),
            "temperature": heldout_temperature,
            "diversity": diversity_change(*diversity),
        },
        "temperature_switches": switches,
        "steps": len(records),
        "seconds_per_step": step_times(records),
        "wall_seconds": {**phases, "total": round(sum(phases.values()), 1)},
    }


def describe(summary: dict[str, Any]) -> str:
    h = summary["heldout"]
    t = summary["seconds_per_step"]
    low, high = h["interval95"]
    lines = [
        f"held-out pass@1: {h['base']:.3f} -> {h['trained']:.3f} "
        f"({h['difference']:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}], sign-flip p={h['sign_flip_p']:.3g}; "
        f"{h['problems']} problems x {h['samples_per_problem']} samples)",
    ]
    d = h.get("diversity")  # absent from runs before it was measured
    if d:
        ratio = f" ({d['ratio']:.2f}x)" if d["ratio"] is not None else ""
        lines.append(
            f"held-out diversity at T={h['temperature']:g}: {d['start']:.3f} -> {d['end']:.3f}{ratio}"
        )
    lines.append(
        f"{summary['steps']} steps, {t['wall']:.1f} s/step: generate {t['generate']:.1f}, "
        f"reward {t['reward']:.1f}, update {t['update']:.1f}; "
        f"total {summary['wall_seconds']['total']:.0f} s"
    )
    for s in summary["temperature_switches"]:
        lines.append(
            f"temperature {s['from']:g} -> {s['to']:g} from step {s['step']} "
            f"(rolling diversity {s['rolling_diversity']:.3f})"
        )
    return "\n".join(lines)


def plot_training(records: Sequence[dict], summary: dict[str, Any], path: Path) -> None:
    """Per-step curves (reward, pass rate, length, truncated/masked, diversity, temperature,
    time) with the stage switch marked, and the held-out pass@1 before/after."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in records]

    def series(name: str) -> list[float]:
        return [float(r.get(name, float("nan"))) for r in records]

    fig, axes = plt.subplots(2, 4, figsize=(17, 7.5))
    panels = [
        (
            "reward / pass rate",
            [("reward", "reward"), ("microcoder/verdicts/AC", "pass rate (AC)")],
        ),
        ("completion length (tokens)", [("completions/mean_length", "mean")]),
        (
            "truncated / maskable / masked",
            [
                ("microcoder/truncated_ratio", "truncated"),
                ("microcoder/maskable_ratio", "maskable (before the rho draw)"),
                ("microcoder/masked_ratio", "masked"),
            ],
        ),
        (
            "group diversity (distinct 4-grams)",
            [("microcoder/diversity", "batch"), ("microcoder/diversity_rolling", "rolling")],
        ),
        ("sampling temperature", [("microcoder/temperature", "T")]),
        (
            "verdicts",
            [(f"microcoder/verdicts/{v}", v) for v in ("AC", "WA", "RE", "NO_CODE")],
        ),
        (
            "seconds per step",
            [
                ("microcoder/time/wall_s", "wall"),
                ("microcoder/time/generate_s", "generate"),
                ("microcoder/time/reward_s", "reward"),
            ],
        ),
    ]
    switch_steps = [s["step"] for s in summary.get("temperature_switches", []) if s.get("step")]
    for ax, (title, lines) in zip(axes.flat, panels, strict=False):
        for name, label in lines:
            ax.plot(steps, series(name), marker=".", label=label)
        for s in switch_steps:
            ax.axvline(s, color="black", linestyle="--", linewidth=1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("step")
        if len(lines) > 1:
            ax.legend(fontsize=7)
    floor = summary["settings"].get("diversity_floor")
    if floor is not None and summary["settings"].get("temperature_stages"):
        axes.flat[3].axhline(floor, color="tab:red", linestyle=":", label="floor")
        axes.flat[3].legend(fontsize=7)
    h = summary["heldout"]
    ax = axes.flat[7]
    low, high = h["interval95"]
    ax.bar(["base", "trained"], [h["base"], h["trained"]], color=["tab:gray", "tab:green"])
    ax.errorbar(
        ["trained"],
        [h["trained"]],
        yerr=[[h["trained"] - (h["base"] + low)], [h["base"] + high - h["trained"]]],
        color="black",
        capsize=6,
    )
    ax.set_title(
        f"held-out pass@1 ({h['problems']} problems x {h['samples_per_problem']})\n"
        f"diff {h['difference']:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}]",
        fontsize=10,
    )
    label = ", ".join(
        f"T {s['from']:g}->{s['to']:g} at step {s['step']}"
        for s in summary.get("temperature_switches", [])
    )
    fig.suptitle(f"mctrain demo: {summary['model']}" + (f" (dashed: {label})" if label else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_learning(report: dict[str, Any], records: Sequence[Sequence[dict]], path: Path) -> None:
    """The learning plot of ``mctrain demo --seeds``, one figure: training reward per step,
    held-out pass@1 before and after per seed (and pooled) with 95% intervals over problems
    and samples, the paired differences, group diversity and temperature per step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seeds = report["seeds"]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, axes = plt.subplots(1, 5, figsize=(22, 4.6))
    reward, heldout, difference, diversity, temperature = axes
    for i, (seed, steps) in enumerate(zip(seeds, records, strict=True)):
        color = colors[i % len(colors)]
        x = [r["step"] for r in steps]
        label = f"seed {seed['seed']}"
        for ax, name in (
            (reward, "reward"),
            (diversity, "microcoder/diversity"),
            (temperature, "microcoder/temperature"),
        ):
            ax.plot(x, [float(r.get(name, float("nan"))) for r in steps], ".-", color=color)
        reward.lines[-1].set_label(label)
        start = seed["diversity"]["start"]
        if start is not None:
            diversity.axhline(0.8 * start, color=color, linestyle=":", linewidth=1)
    floor = report["settings"].get("diversity_floor")
    if floor is not None and report["settings"].get("temperature_stages"):
        diversity.axhline(floor, color="tab:red", linestyle="--", linewidth=1, label="stage floor")
        diversity.legend(fontsize=7, title="dotted: 0.8 x each seed's start", title_fontsize=7)
    rows = [*seeds, {"seed": "pooled", **report["pooled"]}]
    for i, row in enumerate(rows):
        color = "black" if row["seed"] == "pooled" else colors[i % len(colors)]
        for x, key in ((0, "base"), (1, "trained")):
            low, high = row[f"{key}_interval95"]
            heldout.errorbar(
                x + (i - len(rows) / 2) * 0.06,
                row[key],
                yerr=[[row[key] - low], [high - row[key]]],
                fmt="o",
                color=color,
                capsize=3,
            )
        heldout.plot(
            [(i - len(rows) / 2) * 0.06, 1 + (i - len(rows) / 2) * 0.06],
            [row["base"], row["trained"]],
            color=color,
            alpha=0.5,
        )
        low, high = row["interval95"]
        difference.errorbar(
            i,
            row["difference"],
            yerr=[[row["difference"] - low], [high - row["difference"]]],
            fmt="o",
            color=color,
            capsize=4,
        )
    heldout.set_xticks([0, 1], ["base", "trained"])
    difference.axhline(0, color="gray", linewidth=1)
    difference.set_xticks(range(len(rows)), [str(r["seed"]) for r in rows])
    difference.set_xlabel("seed")
    titles = (
        (reward, "training reward per step"),
        (
            heldout,
            f"held-out pass@1 ({report['problems']} problems x "
            f"{report['samples_per_problem']}, T={report['heldout_temperature']:g})",
        ),
        (difference, "paired difference, 95% CI over problems and samples"),
        (diversity, "group diversity per step"),
        (temperature, "sampling temperature per step"),
    )
    for ax, title in titles:
        ax.set_title(title, fontsize=9)
        if ax is not heldout and ax is not difference:
            ax.set_xlabel("step")
    reward.legend(fontsize=7)
    v = report["verdict"]
    pooled = report["pooled"]
    low, high = pooled["interval95"]
    fig.suptitle(
        f"mctrain demo, seeds {', '.join(str(s['seed']) for s in seeds)}: pooled difference "
        f"{pooled['difference']:+.3f} [{low:+.3f}, {high:+.3f}], "
        f"{v['seeds_positive']} of {len(seeds)} positive",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
