"""`mctrain demo --seeds`: each seed a whole demo (tiny random model, real TRL, real sandbox),
then the paired differences per seed and pooled, with intervals over problems and samples."""

from __future__ import annotations

import importlib.util
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from trainer_addon.demo import DEMO_SPLIT, DemoSettings
from trainer_addon.seeds import diversity_kept, finished_run, parse_seeds, two_level_interval

from .test_demo import _demo


def test_seeds_run_each_seed_and_report_them_pooled(tiny_model_dir, tmp_path):
    out = tmp_path / "seeds"
    args = [
        "--model",
        str(tiny_model_dir),
        "--output",
        str(out),
        "--seeds",
        "3,5",
        "--steps",
        "2",
        "--prompts-per-step",
        "2",
        "--num-generations",
        "2",
        "--max-completion-length",
        "8",
        "--eval-samples",
        "2",
        "--eval-problems",
        "3",
        "--diversity-window",
        "1",
        "--workers",
        "1",
    ]
    result = _demo(args)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "seeds.json").read_text())
    assert [s["seed"] for s in report["seeds"]] == [3, 5]
    assert (report["problems"], report["samples_per_problem"]) == (3, 2)
    held_out = json.loads(DEMO_SPLIT.read_text())["eval"][:3]
    assert sorted(report["per_problem"]) == sorted(held_out)
    for row, seed in zip(report["seeds"], (3, 5), strict=True):
        summary = json.loads((out / f"seed-{seed}" / "summary.json").read_text())
        assert summary["settings"]["seed"] == seed
        assert summary["steps"] == 2
        assert row["difference"] == pytest.approx(summary["heldout"]["difference"], abs=1e-4)
        assert row["wall_seconds"] == summary["wall_seconds"]["total"]
        steps = [
            json.loads(line)
            for line in (out / f"seed-{seed}" / "metrics.jsonl").read_text().splitlines()
        ]
        diversities = [r["microcoder/diversity"] for r in steps if "microcoder/diversity" in r]
        assert row["diversity"]["start"] == pytest.approx(diversities[0], abs=1e-4)
        assert row["diversity"]["end"] == pytest.approx(diversities[-1], abs=1e-4)
        assert row["heldout_diversity"] == summary["heldout"]["diversity"]
        low, high = row["interval95"]
        assert low <= row["difference"] <= high
    pooled = report["pooled"]
    mean = sum(s["difference"] for s in report["seeds"]) / 2
    assert pooled["difference"] == pytest.approx(mean, abs=1e-3)
    assert pooled["interval95"][0] <= pooled["difference"] <= pooled["interval95"][1]
    assert 0 <= pooled["sign_flip_p"] <= 1
    verdict = report["verdict"]
    assert verdict["seeds_positive"] == sum(s["difference"] > 0 for s in report["seeds"])
    assert verdict["learns"] == (pooled["interval95"][0] > 0 and verdict["seeds_positive"] >= 2)
    ratios = [s["heldout_diversity"]["ratio"] for s in report["seeds"]]
    assert verdict["heldout_diversity_kept"] == all(r >= 0.8 for r in ratios)
    assert (out / "learning.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "pooled (2 seeds): held-out pass@1" in result.output
    assert "seed 3: held-out pass@1" in result.output

    # Run again, the seeds are read back, not run: the files stay as they were.
    before = {f: f.read_bytes() for f in out.rglob("*") if f.is_file() and f.suffix != ".png"}
    again = _demo(args)
    assert again.exit_code == 0, again.output
    assert f"seed 3: read from {out / 'seed-3' / 'summary.json'}" in again.output
    assert "loading" not in again.output  # no model loaded: nothing ran
    assert {f: f.read_bytes() for f in before} == before
    _check_finished_run(shutil.copytree(out / "seed-5", tmp_path / "copy"), tiny_model_dir)

    # benchmarks/plot_results.py redraws the plot from the run's files
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "plot_results.py"
    spec = importlib.util.spec_from_file_location("plot_results", script)
    plot_results = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_results)
    results = tmp_path / "results"
    results.mkdir()
    out.rename(results / "train_seeds")
    (results / "train_seeds" / "learning.png").unlink()
    assert plot_results.plot_train_seeds(results) == [results / "train_seeds" / "learning.png"]
    assert (results / "train_seeds" / "learning.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _check_finished_run(run: Path, model_dir: Path) -> None:
    """A seed's finished run is taken only for its own settings, model and split."""
    summary = json.loads((run / "summary.json").read_text())
    settings = DemoSettings(**{**summary["settings"], "bf16": None, "workers": 2})
    assert finished_run(run, str(model_dir), settings, DEMO_SPLIT) == summary
    assert finished_run(run, str(model_dir), replace(settings, steps=3), DEMO_SPLIT) is None
    assert finished_run(run, str(model_dir), replace(settings, seed=6), DEMO_SPLIT) is None
    other_precision = replace(settings, bf16=not summary["settings"]["bf16"])
    assert finished_run(run, str(model_dir), other_precision, DEMO_SPLIT) is None
    assert finished_run(run, str(model_dir.with_name("other")), settings, DEMO_SPLIT) is None
    longer = replace(settings, eval_problems=4)  # another held-out set
    assert finished_run(run, str(model_dir), longer, DEMO_SPLIT) is None
    (run / "metrics.jsonl").unlink()  # stopped before its end
    assert finished_run(run, str(model_dir), settings, DEMO_SPLIT) is None


def test_the_interval_counts_sampling_noise():
    """Two problems each at 0.5 in both runs: the problems agree, so an interval over problems
    alone has no width; over problems and samples (16 each) it has."""
    base = np.array([[0.5, 0.5]])
    low, high = two_level_interval(base, base.copy(), 16)
    assert low < -0.05 and high > 0.05
    assert low == pytest.approx(-high, abs=0.05)
    solved, unsolved = np.ones((1, 4)), np.zeros((1, 4))
    assert two_level_interval(unsolved, solved, 16) == (1.0, 1.0)
    assert two_level_interval(solved, None, 16) == (1.0, 1.0)
    # more seeds of the same rates: the pooled interval narrows
    one = two_level_interval(base, base.copy(), 16)
    three = two_level_interval(np.repeat(base, 3, axis=0), np.repeat(base, 3, axis=0), 16)
    assert three[1] - three[0] < one[1] - one[0]


def test_diversity_kept_averages_the_first_and_last_window():
    records = [{"microcoder/diversity": d} for d in (0.8, 0.6, 0.5, 0.4, 0.3)]
    assert diversity_kept(records, 2) == {"start": 0.7, "end": 0.35, "ratio": 0.5}
    assert diversity_kept([], 2) == {"start": None, "end": None, "ratio": None}


def test_parse_seeds():
    assert parse_seeds("0, 1,2") == [0, 1, 2]
    with pytest.raises(ValueError, match="bad seed 'x'"):
        parse_seeds("0,x")
    with pytest.raises(ValueError, match="repeat a seed"):
        parse_seeds("1,1")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seeds", "0,one"], "bad seed 'one'"),
        (["--seeds", "0,1", "--reselect"], "--seeds holds out the same problems for every seed"),
    ],
)
def test_bad_seeds_are_one_line(args, message, tmp_path):
    result = _demo(["--output", str(tmp_path / "x"), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
