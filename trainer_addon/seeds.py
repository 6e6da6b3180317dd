"""``mctrain demo --seeds 0,1,2``: the demo once per seed, and whether held-out pass@1 rose
beyond the noise of one run.

Each seed is a whole demo (:func:`~trainer_addon.demo.run_demo` in ``OUTPUT/seed-<s>``): the
base model loaded afresh, held-out pass@1 sampled with that seed, training seeded with it,
held-out pass@1 sampled again with it. The held-out problems are the same for every seed.

Per seed and pooled over the seeds, the paired difference of held-out pass@1 (trained minus
base) is reported with

* ``interval95``: a two-level bootstrap interval, over problems *and* samples: each resample
  draws the held-out problems with replacement (the same draw for every seed: the problems
  are shared) and then, for each seed and drawn problem, that problem's base and trained
  samples with replacement (a binomial draw at its measured rate). Sampling noise, which 16
  samples per problem leave large, is in the interval, not only the spread between problems;
* ``interval95_problems`` and ``sign_flip_p``: the evaluator's paired bootstrap over problems
  and its sign-flip test (``evaluator.report``) on the per-problem rates (pooled: each
  problem's rates averaged over the seeds).

Diversity beside pass@1, as the ratio end / start (the goal: at least 0.8), two ways:

* ``diversity``: ``microcoder/diversity`` (the group diversity of each training batch)
  averaged over the first and over the last ``diversity_window`` steps. What the temperature
  rule watches; its first and last batches hold other problems at other temperatures;
* ``heldout_diversity``: the same measure on the held-out samples before and after training:
  the same problems at the same temperature.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .demo_results import diversity_change, read_metrics

if TYPE_CHECKING:
    import numpy as np

    from .demo import DemoSettings, Echo

RESAMPLES = 10_000
LEVEL = 0.95
DIVERSITY_KEPT = 0.8  # the goal: diversity at the end at least this share of its start


def parse_seeds(spec: str) -> list[int]:
    """``"0,1,2"`` -> ``[0, 1, 2]``; a ``ValueError`` naming the bad item otherwise."""
    seeds = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            seeds.append(int(item))
        except ValueError:
            raise ValueError(f"bad seed {item!r}: expected an integer")
    if not seeds:
        raise ValueError("no seeds given")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds {spec!r} repeat a seed")
    return seeds


def _rates(summaries: Sequence[dict]) -> tuple[list[str], np.ndarray, np.ndarray, int]:
    """(problem ids, base rates [seed, problem], trained rates, samples per problem)."""
    import numpy as np

    ids = sorted(summaries[0]["heldout"]["per_problem"])
    for summary in summaries:
        if sorted(summary["heldout"]["per_problem"]) != ids:
            raise ValueError("the seeds' runs held out different problems")
    samples = {s["heldout"]["samples_per_problem"] for s in summaries}
    if len(samples) != 1:
        raise ValueError("the seeds' runs sampled different numbers of answers per problem")
    per = [s["heldout"]["per_problem"] for s in summaries]
    base = np.array([[p[q]["base"] for q in ids] for p in per], dtype=float)
    trained = np.array([[p[q]["trained"] for q in ids] for p in per], dtype=float)
    return ids, base, trained, samples.pop()


def two_level_means(
    rates: np.ndarray,
    samples: int,
    problems: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Resampled mean pass@1 of ``rates`` [seed, problem], one per row of ``problems``
    [resample, drawn problem]: each drawn problem's ``samples`` answers redrawn with
    replacement (a binomial draw at its rate), averaged over the seeds and drawn problems."""
    drawn = rates[:, problems]  # [seed, resample, drawn problem]
    passed = rng.binomial(samples, drawn)
    return passed.mean(axis=(0, 2)) / samples


def two_level_interval(
    base: np.ndarray,
    trained: np.ndarray | None,
    samples: int,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
) -> tuple[float, float]:
    """The percentile interval of mean pass@1 ``trained - base`` (or of ``base`` alone when
    ``trained`` is None) over problems and samples (module docstring); ``[seed, problem]``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    count = base.shape[1]
    problems = rng.integers(0, count, (resamples, count))
    means = two_level_means(base, samples, problems, rng)
    if trained is not None:
        means = two_level_means(trained, samples, problems, rng) - means
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def paired_result(base: np.ndarray, trained: np.ndarray, samples: int) -> dict[str, Any]:
    """pass@1 before and after (each with its interval), their paired difference with the
    two-level interval, the evaluator's interval over problems and its sign-flip p, for the
    seeds (rows) of ``base``/``trained`` pooled."""
    from evaluator.report import paired_bootstrap, sign_flip_test

    a = base.mean(axis=0).tolist()
    b = trained.mean(axis=0).tolist()
    low, high = two_level_interval(base, trained, samples)
    p_low, p_high = paired_bootstrap(a, b)

    def rounded(pair: tuple[float, float]) -> list[float]:
        return [round(pair[0], 4), round(pair[1], 4)]

    return {
        "base": round(float(base.mean()), 4),
        "base_interval95": rounded(two_level_interval(base, None, samples)),
        "trained": round(float(trained.mean()), 4),
        "trained_interval95": rounded(two_level_interval(trained, None, samples)),
        "difference": round(float(trained.mean() - base.mean()), 4),
        "interval95": rounded((low, high)),
        "interval95_problems": rounded((p_low, p_high)),
        "sign_flip_p": round(sign_flip_test(a, b), 4),
        "problems_up": int(sum(y > x for x, y in zip(a, b, strict=True))),
        "problems_down": int(sum(y < x for x, y in zip(a, b, strict=True))),
    }


def diversity_kept(records: Sequence[dict], window: int) -> dict[str, float | None]:
    """Group diversity averaged over the first and the last ``window`` training steps, and
    the ratio end / start."""
    values = [float(r["microcoder/diversity"]) for r in records if "microcoder/diversity" in r]
    if not values:
        return {"start": None, "end": None, "ratio": None}
    start = sum(values[:window]) / len(values[:window])
    end = sum(values[-window:]) / len(values[-window:])
    return diversity_change(start, end)


def _kept(diversity: dict | None) -> bool:
    return bool(diversity) and (diversity["ratio"] or 0.0) >= DIVERSITY_KEPT


def seeds_report(
    seeds: Sequence[int], summaries: Sequence[dict], records: Sequence[Sequence[dict]]
) -> dict[str, Any]:
    """``seeds.json``: per seed and pooled, the paired held-out difference and the training
    diversity at start and end; ``verdict``: whether the rule for calling it learning holds
    (the pooled interval above 0 and at least two thirds of the seeds' differences above 0)."""
    ids, base, trained, samples = _rates(summaries)
    window = int(summaries[0]["settings"]["diversity_window"])
    per_seed = []
    for row, (seed, summary, steps) in enumerate(zip(seeds, summaries, records, strict=True)):
        result = paired_result(base[row : row + 1], trained[row : row + 1], samples)
        per_seed.append(
            {
                "seed": seed,
                **result,
                "diversity": diversity_kept(steps, window),
                "heldout_diversity": summary["heldout"].get("diversity"),
                "reward_first": steps[0].get("reward") if steps else None,
                "reward_last": steps[-1].get("reward") if steps else None,
                "temperature_switches": summary["temperature_switches"],
                "wall_seconds": summary["wall_seconds"]["total"],
            }
        )
    pooled = paired_result(base, trained, samples)
    positive = sum(s["difference"] > 0 for s in per_seed)
    return {
        "problems": len(ids),
        "samples_per_problem": samples,
        "heldout_temperature": summaries[0]["heldout"]["temperature"],
        "settings": {k: v for k, v in summaries[0]["settings"].items() if k != "seed"},
        "seeds": per_seed,
        "pooled": pooled,
        "verdict": {
            "pooled_interval_above_zero": pooled["interval95"][0] > 0,
            "seeds_positive": positive,
            "learns": pooled["interval95"][0] > 0 and 3 * positive >= 2 * len(per_seed),
            "diversity_kept": all(_kept(s["diversity"]) for s in per_seed),
            # None for runs from before the held-out samples' diversity was measured
            "heldout_diversity_kept": (
                None
                if any(s["heldout_diversity"] is None for s in per_seed)
                else all(_kept(s["heldout_diversity"]) for s in per_seed)
            ),
        },
        "per_problem": {
            q: {"base": base[:, i].round(4).tolist(), "trained": trained[:, i].round(4).tolist()}
            for i, q in enumerate(ids)
        },
    }


def describe_seeds(report: dict[str, Any]) -> str:
    """The report in a few lines: one per seed, then the pooled one and the verdict."""

    def line(label: str, r: dict) -> str:
        low, high = r["interval95"]
        return (
            f"{label}: held-out pass@1 {r['base']:.3f} -> {r['trained']:.3f} "
            f"({r['difference']:+.3f}, 95% CI over problems and samples [{low:+.3f}, {high:+.3f}], "
            f"sign-flip p={r['sign_flip_p']:.3g})"
        )

    lines = []
    for s in report["seeds"]:
        d = s["diversity"]
        kept = f"diversity {d['start']:.3f} -> {d['end']:.3f}" if d["start"] is not None else ""
        if s.get("heldout_diversity"):
            h = s["heldout_diversity"]
            kept += f" (held-out {h['start']:.3f} -> {h['end']:.3f})"
        label = f"seed {s['seed']}"
        lines.append(f"{line(label, s)}; {kept}; {s['wall_seconds']:.0f} s")
    lines.append(line(f"pooled ({len(report['seeds'])} seeds)", report["pooled"]))
    v = report["verdict"]
    lines.append(
        f"{v['seeds_positive']} of {len(report['seeds'])} seeds positive; pooled interval "
        f"{'excludes' if v['pooled_interval_above_zero'] else 'does not exclude'} 0; "
        f"diversity kept (>= {DIVERSITY_KEPT}x start) in every seed: {v['diversity_kept']} "
        f"(held-out: {v['heldout_diversity_kept']})"
    )
    return "\n".join(lines)


def finished_run(
    run: Path, model_path: str, settings: DemoSettings, split_path: Path | None
) -> dict[str, Any] | None:
    """The summary of a seed's run already in ``run``, when it ran to its end (summary.json
    and metrics.jsonl written) with ``settings`` on the same model and split; else None.

    A multi-seed run takes most of an hour: one stopped midway goes on from the first seed
    that did not finish. A seed's directory from other settings is run again (overwritten)."""
    from dataclasses import asdict

    try:
        summary = json.loads((run / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    if not (run / "metrics.jsonl").is_file() or summary.get("model") != Path(model_path).name:
        return None
    wanted = asdict(settings)
    ran = summary.get("settings", {})
    # Not compared: how many sandbox workers graded it (the verdicts do not depend on it), and
    # bf16 when it is left to the CPU (the earlier run recorded what it decided).
    skipped = {"workers"} | ({"bf16"} if settings.bf16 is None else set())
    if any(ran.get(key) != value for key, value in wanted.items() if key not in skipped):
        return None
    if split_path is not None:
        try:
            split = json.loads(Path(split_path).read_text())
        except (OSError, ValueError):
            return None
        held_out = split.get("eval", [])[: settings.eval_problems]
        per_problem = summary.get("heldout", {}).get("per_problem", {})
        if summary.get("train_problems") != split.get("train"):
            return None
        if sorted(per_problem) != sorted(held_out):
            return None
    return summary


def run_seeds(
    model_path: str,
    output: Path,
    settings: DemoSettings,
    seeds: Sequence[int],
    echo: Echo = print,
    **demo_options: Any,
) -> dict[str, Any]:
    """The demo once per seed in ``output``/seed-<s> (a seed already run there with these
    settings is read, not run again: :func:`finished_run`), and ``output``/{seeds.json,
    learning.png} of the seeds done, rewritten after each; returns the last report."""
    from .demo import DEMO_SPLIT, run_demo
    from .demo_results import plot_learning

    output.mkdir(parents=True, exist_ok=True)
    summaries, records = [], []
    for done, seed in enumerate(seeds, start=1):
        echo(f"--- seed {seed}")
        run = output / f"seed-{seed}"
        seeded = replace(settings, seed=seed)
        split = demo_options.get("split_path", DEMO_SPLIT)  # run_demo's default split
        summary = finished_run(run, model_path, seeded, split)
        if summary is not None:
            echo(f"seed {seed}: read from {run / 'summary.json'} (run before with these settings)")
        else:
            summary = run_demo(model_path, run, seeded, echo=echo, **demo_options)
        summaries.append(summary)
        records.append(read_metrics(run / "metrics.jsonl"))
        report = seeds_report(seeds[:done], summaries, records)
        (output / "seeds.json").write_text(json.dumps(report, indent=2) + "\n")
        plot_learning(report, records, output / "learning.png")
    echo(describe_seeds(report))
    return report
