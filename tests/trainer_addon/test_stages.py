"""Diversity-triggered temperature stages: the rule on crafted diversities, and the trainer
applying a move at its next generation batch (a tiny random model, real TRL, real sandbox)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trainer_addon.cli import main, temperature_options
from trainer_addon.config import MicroCoderGRPOConfig
from trainer_addon.stages import DiversityStages, floor_from_sweep, parse_temperature_stages


def _observe(stages: DiversityStages, diversities: list[float]) -> list[float]:
    """The temperature in force for each batch, a move applied from the batch after it."""
    temperatures = []
    for step, diversity in enumerate(diversities, 1):
        temperatures.append(stages.temperature)
        stages.observe(step, diversity)
    return temperatures


def test_starts_at_the_first_stage():
    stages = DiversityStages([0.6, 1.2], floor=0.5, window=3)
    assert stages.temperature == 0.6
    assert stages.rolling is None and stages.switches == []


def test_moves_when_the_rolling_mean_falls_below_the_floor():
    stages = DiversityStages([0.6, 1.2], floor=0.5, window=3)
    # one low batch among high ones keeps the rolling mean above the floor
    assert _observe(stages, [0.9, 0.2, 0.9, 0.8]) == [0.6] * 4
    assert stages.switches == []
    # the mean of the last three (0.8, 0.4, 0.2) = 0.467 < 0.5: the move is decided at step 6
    assert stages.observe(5, 0.4) is None
    assert stages.observe(6, 0.2) == 1.2
    assert stages.temperature == 1.2
    (switch,) = stages.switches
    assert (switch.triggered_at, switch.from_temperature, switch.to_temperature) == (6, 0.6, 1.2)
    assert switch.rolling == pytest.approx((0.8 + 0.4 + 0.2) / 3)


def test_at_most_one_move_per_window_and_never_back():
    stages = DiversityStages([0.6, 0.9, 1.2], floor=0.5, window=2)
    temperatures = _observe(stages, [0.1] * 7)
    # a move needs `window` fresh batches at the new stage; the last stage stays
    assert temperatures == [0.6, 0.6, 0.9, 0.9, 1.2, 1.2, 1.2]
    assert [s.triggered_at for s in stages.switches] == [2, 4]
    # high diversity at the last stage never moves back
    assert _observe(stages, [0.99] * 4) == [1.2] * 4
    assert len(stages.switches) == 2


def test_window_one_moves_on_a_single_low_batch():
    stages = DiversityStages([0.6, 1.2], floor=0.5, window=1)
    assert stages.observe(1, 0.7) is None
    assert stages.observe(2, 0.49) == 1.2


def test_last_stage_stays():
    stages = DiversityStages([1.0], floor=0.9, window=1)
    assert _observe(stages, [0.1, 0.1, 0.1]) == [1.0, 1.0, 1.0]
    assert stages.switches == []
    assert stages.rolling == pytest.approx(0.1)


def test_parse_stages():
    assert parse_temperature_stages("0.6, 1.2") == [0.6, 1.2]
    assert parse_temperature_stages("1.0") == [1.0]
    assert parse_temperature_stages(None) == [] and parse_temperature_stages(" ") == []


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("0.6,hot", "expected a number"),
        ("0.6,0", "must be > 0"),
        ("-1", "must be > 0"),
        ("0.6,1.2,0.6", "repeat"),
    ],
)
def test_parse_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_temperature_stages(spec)


def test_rule_rejects_bad_arguments():
    with pytest.raises(ValueError, match="at least one"):
        DiversityStages([], floor=0.5)
    with pytest.raises(ValueError, match="window"):
        DiversityStages([0.6], floor=0.5, window=0)


def test_config_checks_the_stage_options(tmp_path):
    def config(**kwargs):
        return MicroCoderGRPOConfig(output_dir=str(tmp_path), use_cpu=True, report_to=[], **kwargs)

    assert config(temperature_stages="0.7,1.3", diversity_floor=0.5).temperature == 0.7
    with pytest.raises(ValueError, match="needs a diversity_floor"):
        config(temperature_stages="0.7,1.3")
    with pytest.raises(ValueError, match="not both"):
        config(temperature_stages="0.7,1.3", diversity_floor=0.5, temperature_schedule="1.0@0")
    with pytest.raises(ValueError, match="diversity_window"):
        config(temperature_stages="0.7,1.3", diversity_floor=0.5, diversity_window=0)


def _sweep_file(tmp_path):
    path = tmp_path / "sweep.json"
    report = {
        "recommended": 1.2,
        "stable": True,
        "temperatures": [
            {"temperature": 0.6, "level": 0.40},
            {"temperature": 1.2, "level": 0.70},
        ],
    }
    path.write_text(json.dumps(report))
    return path


def test_floor_from_sweep(tmp_path):
    path = _sweep_file(tmp_path)
    assert floor_from_sweep(path, 0.6) == pytest.approx(0.36)
    assert floor_from_sweep(path, 1.2, fraction=0.5) == pytest.approx(0.35)
    with pytest.raises(ValueError, match=r"no diversity level at T=0\.8 \(measured: 0\.6, 1\.2\)"):
        floor_from_sweep(path, 0.8)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"recommended": 1.2}))
    with pytest.raises(ValueError, match="is not a sweep.json"):
        floor_from_sweep(other, 0.6)
    with pytest.raises(ValueError, match=r"cannot read .*missing\.json: No such file"):
        floor_from_sweep(tmp_path / "missing.json", 0.6)


def test_train_options_take_the_floor_from_a_sweep(tmp_path):
    sweep = str(_sweep_file(tmp_path))
    assert temperature_options(None, "0.6,1.2", None, sweep, 5) == (None, pytest.approx(0.36))
    assert temperature_options(None, "0.6,1.2", 0.5, None, 5) == (None, 0.5)
    # without stages: the schedule, 1.2 from step 0 by default
    assert temperature_options(None, None, None, None, 5) == ("1.2@0", None)
    assert temperature_options("0.6@0,1.2@9", None, None, None, 5) == ("0.6@0,1.2@9", None)


def _train(args):
    return CliRunner().invoke(main, ["train", *args], catch_exceptions=False)


def _step_records(path):
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [r for r in rows if "microcoder/temperature" in r]


def test_trainer_applies_a_move_at_the_next_batch_and_logs_it(
    tiny_model_dir, easy_problems_file, tmp_path
):
    out = tmp_path / "run"
    # a floor above any diversity (at most 1): the rolling mean of the first two batches
    # is below it, so the move is decided at step 2 and applied from step 3's batch
    result = _train(
        [
            "--model",
            str(tiny_model_dir),
            "--problems",
            str(easy_problems_file),
            "--output",
            str(out),
            "--steps",
            "5",
            "--num-generations",
            "2",
            "--max-completion-length",
            "8",
            "--temperature-stages",
            "0.7,1.3",
            "--diversity-floor",
            "1.5",
            "--diversity-window",
            "2",
            "--save-steps",
            "100",
            "--cpu",
            "--workers",
            "1",
        ]
    )
    assert result.exit_code == 0, result.output
    steps = _step_records(out / "metrics.jsonl")
    assert [r["step"] for r in steps] == [1, 2, 3, 4, 5]
    assert [r["microcoder/temperature"] for r in steps] == [0.7, 0.7, 1.3, 1.3, 1.3]
    assert [r["microcoder/temperature_switch"] for r in steps] == [0, 0, 1, 0, 0]
    # the rolling mean exists once a window is full (the move at step 2 logs the one that
    # triggered it), and needs a fresh window after the move
    assert ["microcoder/diversity_rolling" in r for r in steps] == [False, True, False, True, True]
    (switch,) = json.loads((out / "temperature_switches.json").read_text())
    assert switch["triggered_at"] == 2 and switch["step"] == 3
    assert (switch["from"], switch["to"]) == (0.7, 1.3)
    assert switch["rolling_diversity"] == pytest.approx(
        (steps[0]["microcoder/diversity"] + steps[1]["microcoder/diversity"]) / 2
    )
    assert "temperature stage 0.7 -> 1.3 from step 3" in result.output


def test_train_floor_from_sweep_and_bad_options(tiny_model_dir, easy_problems_file, tmp_path):
    base = [
        "--model",
        str(tiny_model_dir),
        "--problems",
        str(easy_problems_file),
        "--output",
        str(tmp_path / "bad"),
    ]
    cases = [
        (["--temperature-stages", "0.7,x", "--diversity-floor", "0.5"], "expected a number"),
        (["--temperature-stages", "0.7,1.3"], "needs --diversity-floor"),
        (["--diversity-floor", "0.5"], "--diversity-floor needs --temperature-stages"),
        (
            [
                "--temperature-stages",
                "0.7,1.3",
                "--diversity-floor",
                "0.5",
                "--temperature-schedule",
                "1@0",
            ],
            "not both",
        ),
        (
            [
                "--temperature-stages",
                "0.8,1.3",
                "--diversity-floor-from",
                str(_sweep_file(tmp_path)),
            ],
            "no diversity level at T=0.8",
        ),
    ]
    for extra, message in cases:
        result = _train(base + extra)
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.output, (extra, result.output)
        assert "Traceback" not in result.output
