"""``mctrain``: MicroCoder-GRPO training and the offline temperature sweep."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


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


@main.command()
@click.option("--model", "model_path", required=True, help="Model directory, or a .gguf file.")
@click.option(
    "--problems",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Problem set in any format mcevaluate reads.",
)
@click.option("--output", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--steps", default=100, show_default=True, help="Optimizer steps.")
@click.option(
    "--prompts-per-step", default=1, show_default=True, help="Problems per step (per device)."
)
@click.option("--num-generations", default=4, show_default=True, help="G: completions per problem.")
@click.option("--max-completion-length", default=256, show_default=True, help="L_max, in tokens.")
@click.option(
    "--temperature-schedule",
    default="1.2@0",
    show_default=True,
    help="Staged temperature, TEMP@STEP,... e.g. 0.6@0,1.2@140.",
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
    """Train a model with MicroCoder-GRPO; writes checkpoints and OUTPUT/metrics.jsonl."""
    from .config import MicroCoderGRPOConfig
    from .models import load_model_and_tokenizer
    from .reward import load_problem_dataset, make_reward
    from .trainer import MetricsJSONLCallback, MicroCoderGRPOTrainer

    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    click.echo(f"loading {model_path}", err=True)
    model, tokenizer = load_model_and_tokenizer(model_path)
    dataset = load_problem_dataset(problems, limit=max_problems)
    click.echo(f"{len(dataset)} problems from {problems}", err=True)
    reward = make_reward(mode=reward_mode, workers=workers)
    config = MicroCoderGRPOConfig(
        output_dir=str(out),
        max_steps=steps,
        per_device_train_batch_size=prompts_per_step * num_generations,
        num_generations=num_generations,
        max_completion_length=max_completion_length,
        temperature_schedule=temperature_schedule,
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
        gradient_checkpointing=False,
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
        trainer.train()
        trainer.save_model(str(out / "final"))
        tokenizer.save_pretrained(str(out / "final"))
    finally:
        close = getattr(reward, "close", None)
        if close is not None:
            close()
    click.echo(f"done: model in {out / 'final'}, metrics in {metrics_path}", err=True)


@main.command("sweep-temperature")
@click.option("--model", "model_path", required=True, help="Model directory, or a .gguf file.")
@click.option("--problems", required=True, type=click.Path(exists=True, dir_okay=False))
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
):
    """Sample k completions per prompt at each temperature, measure group diversity, and
    recommend the highest temperature whose diversity neither collapses nor swings.

    Writes OUTPUT/sweep.json and OUTPUT/sweep.png. See trainer_addon/sweep.py for the
    exact criterion."""
    from .models import load_model_and_tokenizer
    from .reward import load_problem_dataset
    from .sweep import plot_sweep, run_sweep, stats_to_dict

    try:
        temps = [float(t) for t in temperatures.split(",") if t.strip()]
    except ValueError:
        raise click.BadParameter("comma-separated numbers expected", param_hint="--temperatures")
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
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
        progress=progress,
        collapse_level=collapse_level,
        trend_tolerance=trend_tolerance,
        swing_tolerance=swing_tolerance,
    )
    report = {"recommended": best, "stable": stable, "temperatures": stats_to_dict(stats)}
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
