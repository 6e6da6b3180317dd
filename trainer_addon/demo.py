"""``mctrain demo``: a CPU run on which SmolLM2-135M-Instruct's held-out pass@1 rises.

The loop, end to end: the problems are chosen the way MicroCoder-Dataset chooses them (sample
the base model, keep the problems whose pass rate is neither 0 nor 1, with the evaluator's
``filter_entries``, the library side of ``mcevaluate dataset filter``), split into training
and held-out problems; the held-out pass@1 is measured, the model trained with
:class:`~trainer_addon.trainer.MicroCoderGRPOTrainer` and the evaluator's reward, and the
held-out pass@1 measured again, with a paired bootstrap interval over held-out problems
(``evaluator.report.stats``).

The committed split (``data/demo_split.json``, with the base model's measured pass rates)
is used by default; ``--reselect`` samples the base model again and writes a new one.

Held-out pass@1 is sampled exactly as training samples (:mod:`trainer_addon.sampling`: the
same prompts, chat template, generation settings and length limit, left-padded batches; the
same reward, :class:`evaluator.CodeReward`, deciding what passes): ``samples`` answers per
problem at the evaluation temperature, the same seed before and after training (common
random numbers: the paired difference is less noisy).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .demo_results import describe, mean_rate, plot_training, read_metrics, summarize

if TYPE_CHECKING:
    from evaluator import CodeReward

DATA = Path(__file__).resolve().parent / "data"
DEMO_PROBLEMS = DATA / "demo_problems.jsonl"
DEMO_SPLIT = DATA / "demo_split.json"
DEMO_SWEEP = DATA / "demo_sweep.json"

Echo = Callable[[str], None]
# what samples the selection and the held-out answers (written into the split it measured)
SAMPLER = "trainer_addon.sampling (evaluator.generate.sample_completions)"


class DemoError(Exception):
    """A one-line reason the demo cannot run (bad input, nothing left to train on)."""


@dataclass
class DemoSettings:
    """Everything that shapes a demo run; written into ``summary.json``."""

    steps: int = 14
    prompts_per_step: int = 4
    num_generations: int = 4
    max_completion_length: int = 160
    # 5e-4 over 1e-3: three seeds learn more and keep their diversity (benchmarks/README.md,
    # results/train_seeds_lr5e4/); 1e-3 sharpened seed 0 to 0.72x its start diversity
    learning_rate: float = 5e-4
    lora_rank: int = 16  # 0: full fine-tune
    # the share of tests passed: a program that gets some tests right beats one that crashes,
    # so far fewer groups have all-equal rewards (no gradient) than with binary 0/1
    reward_mode: str = "fraction"
    temperature_stages: str | None = "0.6,0.8,1.0"
    # 0.9 x the base model's diversity level at T=0.6 on the training problems in groups of
    # num_generations, measured by `mctrain sweep-temperature` (data/demo_sweep.json, its
    # command in "settings"): `floor_from_sweep`
    diversity_floor: float | None = 0.64
    diversity_window: int = 3
    temperature: float = 0.8  # without stages
    # per held-out problem: with 30 problems, which problems are held out is most of the
    # interval; the first 8 of 16 answers gave about the same width and save ~7 min a seed
    # (benchmarks/README.md, issue 29)
    eval_samples: int = 8
    # held-out (and selection) temperature: the split's base rates were measured at it; None:
    # the last stage's
    eval_temperature: float | None = 0.8
    eval_problems: int | None = None  # use only the first N held-out problems
    # sequences per generate() call when sampling for selection/eval: 64 costs 1.84 s an answer
    # against 2.32 s at 32 on 2 cores in fp32 (the weights are read once per decoding step for
    # twice the rows; greedy answers are the same at any batch size)
    batch_size: int = 64
    # bf16 autocast (matmuls) on CPU, LoRA weights staying fp32; None: where the CPU has native
    # bf16 (trainer_addon.precision; emulated bf16 is ~250x slower than fp32)
    bf16: bool | None = None
    seed: int = 0
    workers: int | None = None
    # selection (--reselect)
    select_samples: int = 8
    eval_fraction: float = 0.5

    @property
    def last_temperature(self) -> float:
        """The temperature training ends at (once every stage has been reached)."""
        from .stages import parse_temperature_stages

        stages = parse_temperature_stages(self.temperature_stages)
        return stages[-1] if stages else self.temperature

    @property
    def sampling_temperature(self) -> float:
        """The held-out (and selection) sampling temperature."""
        return self.eval_temperature if self.eval_temperature is not None else self.last_temperature


# --- sampling and grading -----------------------------------------------------------------------


def sample_answers(model: Any, tokenizer: Any, *args: Any, **kwargs: Any) -> list[list[str]]:
    """:func:`sample_answer_ids`, decoded: the text of each answer, as the reward reads it."""
    from evaluator.generate import decode_completions

    return decode_completions(tokenizer, sample_answer_ids(model, tokenizer, *args, **kwargs))


def sample_answer_ids(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[list[dict[str, str]]],
    samples: int,
    temperature: float,
    max_new_tokens: int,
    batch_size: int = DemoSettings.batch_size,
    seed: int = 0,
    bf16: bool = False,
) -> list[list[list[int]]]:
    """``samples`` answers per chat prompt, sampled as the trainer samples a group
    (:mod:`trainer_addon.sampling`), ``batch_size`` sequences per ``generate`` call, as token
    ids (each ending with its stop token, as the trainer's completion ids), which the diversity
    measure reads. A progress bar on a terminal."""
    import sys

    from tqdm import tqdm

    from evaluator.generate import sample_completions

    from .sampling import chat_prompt_ids, trainer_sampling

    prompt_ids = chat_prompt_ids(tokenizer, prompts)
    sampling = trainer_sampling(temperature, max_new_tokens)
    # disable=None: a bar only on a terminal, nothing in a log file
    with tqdm(
        total=len(prompts) * samples, unit="sample", disable=None, file=sys.stderr, leave=False
    ) as bar:
        groups = sample_completions(
            model,
            tokenizer,
            prompt_ids,
            samples,
            sampling,
            batch_size=batch_size,
            seed=seed,
            bf16=bf16,
            progress=bar.update,
        )
    return groups


def grade_answers(
    reward: CodeReward, rows: Sequence[dict], answers: Sequence[list[str]]
) -> list[list[bool]]:
    """Whether each answer passes, by the training reward itself: 1.0 is every test passed,
    in both modes (binary: 1 or 0; fraction: the share of tests passed)."""
    flat = [
        ([{"role": "assistant", "content": a}], row["problem_json"])
        for row, group in zip(rows, answers, strict=True)
        for a in group
    ]
    scores = reward(completions=[c for c, _ in flat], problem_json=[p for _, p in flat])
    passed = iter(s == 1.0 for s in scores)
    return [[next(passed) for _ in group] for group in answers]


def write_answers(
    path: Path,
    phase: str,
    rows: Sequence[dict],
    answers: Sequence[list[str]],
    graded: Sequence[list[bool]],
    verdicts: Sequence[str | None] | None,
) -> None:
    """Append one JSON line per sampled answer, to audit what passed and what did not."""
    flat_verdicts = iter(verdicts or [])
    with path.open("a") as f:
        for row, group, passes in zip(rows, answers, graded, strict=True):
            for sample, (answer, ok) in enumerate(zip(group, passes, strict=True)):
                record = {
                    "phase": phase,
                    "question_id": row["question_id"],
                    "sample": sample,
                    "passed": ok,
                    "verdict": next(flat_verdicts, None),
                    "answer": answer,
                }
                f.write(json.dumps(record) + "\n")


def pass_rates_of(
    model: Any,
    tokenizer: Any,
    rows: Sequence[dict],
    reward: CodeReward,
    settings: DemoSettings,
    samples: int,
    answers_path: Path | None = None,
    phase: str = "",
) -> Sampled:
    """Whether each sample of ``rows`` passes, at the held-out sampling settings, and their
    diversity; every answer appended to ``answers_path`` (as ``phase``) when given."""
    from evaluator.generate import decode_completions

    ids = sample_answer_ids(
        model,
        tokenizer,
        [row["prompt"] for row in rows],
        samples,
        settings.sampling_temperature,
        settings.max_completion_length,
        settings.batch_size,
        settings.seed,
        settings.bf16,
    )
    answers = decode_completions(tokenizer, ids)
    graded = grade_answers(reward, rows, answers)
    if answers_path is not None:
        write_answers(answers_path, phase, rows, answers, graded, reward.last_verdicts)
    return Sampled(
        graded={row["question_id"]: g for row, g in zip(rows, graded, strict=True)},
        diversity=problem_diversity(ids, settings.num_generations),
    )


@dataclass(frozen=True)
class Sampled:
    """``graded``: ``{question_id: [passed per sample]}``; ``diversity``: the training
    diversity measure on these samples (:func:`problem_diversity`)."""

    graded: dict[str, list[bool]]
    diversity: float


def problem_diversity(groups: Sequence[list[list[int]]], group_size: int) -> float:
    """The trainer's group diversity (distinct-4-gram ratio) on held-out samples: each
    problem's samples cut into groups of ``group_size`` (the training group), averaged over
    problems. The same problems at the same temperature before and after training: unlike the
    training batches, whose problems and temperature change from step to step."""
    from .diversity import batch_diversity

    per_problem = [batch_diversity(ids, group_size)[0] for ids in groups if ids]
    return sum(per_problem) / len(per_problem) if per_problem else 0.0


# --- selection ----------------------------------------------------------------------------------


def split_problems(
    problems_path: str | Path,
    graded: dict[str, list[bool]],
    eval_fraction: float = 0.5,
    seed: int = 0,
) -> dict[str, Any]:
    """MicroCoder-Dataset's selection on measured pass rates, then a held-out split.

    ``graded`` is ``{question_id: [passed per sample]}`` of the base model. The pass-rate
    filter is ``evaluator.datasets.filter_entries`` (``mcevaluate dataset filter
    --results``): a problem every sample solves or none solves teaches GRPO nothing (its
    group's advantages are all 0). The kept problems are ordered by a seeded hash and every
    other one at the ``eval_fraction`` rate is held out, stratified by pass rate (sorted by
    rate first) so both halves span easy and hard."""
    from evaluator.datasets import filter_entries, read_entries

    results = [{"question_id": qid, "graded_list": g} for qid, g in graded.items()]
    kept, dropped = filter_entries(read_entries(problems_path), results=results)
    if len(kept) < 2:
        raise DemoError(
            f"only {len(kept)} of {len(graded)} problems have a pass rate strictly between 0 "
            "and 1: nothing to train on and hold out (more --select-samples, another model?)"
        )

    def rate(qid: str) -> float:
        return sum(graded[qid]) / len(graded[qid])

    def tiebreak(qid: str) -> str:
        return hashlib.sha256(f"{seed}:{qid}".encode()).hexdigest()

    ordered = sorted((e.id for e in kept), key=lambda q: (rate(q), tiebreak(q)))
    held = max(1, min(len(ordered) - 1, round(len(ordered) * eval_fraction)))
    step = len(ordered) / held
    offset = random.Random(seed).random() * step
    eval_ids = {ordered[int(offset + i * step)] for i in range(held)}
    return {
        "train": [q for q in ordered if q not in eval_ids],
        "eval": [q for q in ordered if q in eval_ids],
        "base_pass_rates": {q: [sum(g), len(g)] for q, g in sorted(graded.items())},
        "dropped": dict(sorted(dropped.items())),
    }


def select_split(
    model: Any,
    tokenizer: Any,
    reward: CodeReward,
    settings: DemoSettings,
    problems_path: Path,
    output: Path,
    echo: Echo,
) -> dict[str, Any]:
    """Sample the base model on every candidate problem and split the useful ones."""
    rows = {row["question_id"]: row for row in problem_rows(problems_path)}
    echo(
        f"selection: {settings.select_samples} samples of each of {len(rows)} problems "
        f"at T={settings.sampling_temperature:g}"
    )
    start = time.perf_counter()
    graded = pass_rates_of(
        model, tokenizer, list(rows.values()), reward, settings, settings.select_samples
    ).graded
    # what `mcevaluate grade --output` writes: `mcevaluate dataset filter --results` reads it
    results = [{"question_id": q, "graded_list": g} for q, g in graded.items()]
    (output / "selection_results.json").write_text(json.dumps(results) + "\n")
    split = split_problems(problems_path, graded, settings.eval_fraction, settings.seed)
    split["selection"] = {
        "sampler": SAMPLER,
        "samples": settings.select_samples,
        "temperature": settings.sampling_temperature,
        "max_completion_length": settings.max_completion_length,
        "batch_size": settings.batch_size,
        "bf16": settings.bf16,
        "seed": settings.seed,
        "seconds": round(time.perf_counter() - start, 1),
    }
    echo(f"selection: {len(split['train'])} training and {len(split['eval'])} held-out problems")
    return split


# --- the run ------------------------------------------------------------------------------------


def problem_rows(problems_path: str | Path) -> list[dict]:
    """The dataset rows (prompt, question_id, problem_json) of ``mctrain train``."""
    from evaluator.formats import read_problems, read_records

    from .problem_dataset import problems_to_rows

    problems = read_problems(problems_path)
    records = [record for _, record in read_records(problems_path)]
    return problems_to_rows(problems, records)


def write_training_problems(problems_path: str | Path, ids: Sequence[str], path: Path) -> None:
    """The training problems' records, as read, in ``ids``' order: what ``mctrain
    sweep-temperature --problems`` measures a diversity floor on."""
    from evaluator.datasets import read_entries, write_records

    by_id = {entry.id: entry.record for entry in read_entries(problems_path)}
    write_records(path, [by_id[q] for q in ids])


def load_split(path: str | Path, rows: dict[str, dict]) -> dict[str, Any]:
    try:
        split = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise DemoError(f"cannot read the split {path}: {exc}")
    for part in ("train", "eval"):
        ids = split.get(part)
        if not isinstance(ids, list) or not ids:
            raise DemoError(f"{path}: no {part!r} problem ids")
        missing = [q for q in ids if q not in rows]
        if missing:
            raise DemoError(f"{path}: {part} problem {missing[0]!r} is not in the problems file")
    overlap = set(split["train"]) & set(split["eval"])
    if overlap:
        raise DemoError(f"{path}: {sorted(overlap)[0]!r} is both a training and a held-out problem")
    return split


@dataclass
class Timer:
    """Wall seconds of the demo's phases, in order."""

    phases: dict[str, float] = field(default_factory=dict)
    _start: float = field(default_factory=time.perf_counter)

    def lap(self, name: str) -> float:
        now = time.perf_counter()
        self.phases[name] = round(now - self._start, 2)
        self._start = now
        return self.phases[name]


def run_demo(
    model_path: str,
    output: Path,
    settings: DemoSettings,
    problems_path: Path = DEMO_PROBLEMS,
    split_path: Path | None = DEMO_SPLIT,
    reselect: bool = False,
    select_only: bool = False,
    echo: Echo = print,
) -> dict[str, Any]:
    """The whole demo; writes ``output``/{metrics.jsonl, training.png, summary.json, split.json,
    train_problems.jsonl, heldout_answers.jsonl} and returns the summary."""
    from evaluator import CodeReward

    from .models import load_model_and_tokenizer

    output.mkdir(parents=True, exist_ok=True)
    settings = _with_precision(settings, echo)
    rows = {row["question_id"]: row for row in problem_rows(problems_path)}
    split = None if reselect else load_split(split_path, rows)
    timer = Timer()
    echo(f"loading {model_path}")
    model, tokenizer = load_model_and_tokenizer(model_path)
    timer.lap("load")
    with CodeReward(mode=settings.reward_mode, workers=settings.workers) as reward:
        if split is None:
            split = select_split(model, tokenizer, reward, settings, problems_path, output, echo)
            timer.lap("select")
        (output / "split.json").write_text(json.dumps(split, indent=2) + "\n")
        write_training_problems(problems_path, split["train"], output / "train_problems.jsonl")
        if select_only:
            return {"split": split, "wall_seconds": timer.phases}
        train_rows = [rows[q] for q in split["train"]]
        eval_rows = [rows[q] for q in split["eval"]][: settings.eval_problems]
        samples = settings.eval_samples
        echo(
            f"held-out pass@1 of the base model: {len(eval_rows)} problems x {samples} samples "
            f"at T={settings.sampling_temperature:g}"
        )
        answers_path = output / "heldout_answers.jsonl"
        answers_path.unlink(missing_ok=True)
        base = pass_rates_of(
            model, tokenizer, eval_rows, reward, settings, samples, answers_path, "base"
        )
        timer.lap("eval_base")
        echo(f"  base pass@1 {mean_rate(base.graded):.3f}, diversity {base.diversity:.3f}")
        trainer = train(model, tokenizer, train_rows, reward, settings, output, echo)
        timer.lap("train")
        trained_model = trainer.accelerator.unwrap_model(trainer.model, keep_fp32_wrapper=False)
        trained = pass_rates_of(
            trained_model, tokenizer, eval_rows, reward, settings, samples, answers_path, "trained"
        )
        timer.lap("eval_trained")
    records = read_metrics(output / "metrics.jsonl")
    summary = summarize(
        model_path,
        settings=asdict(settings),
        heldout_temperature=settings.sampling_temperature,
        split=split,
        base=base.graded,
        trained=trained.graded,
        diversity=(base.diversity, trained.diversity),
        records=records,
        switches=trainer.temperature_switches,
        phases=timer.phases,
    )
    (output / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot_training(records, summary, output / "training.png")
    echo(describe(summary))
    return summary


def _with_precision(settings: DemoSettings, echo: Echo) -> DemoSettings:
    """``settings`` with ``bf16`` decided (summary.json records what ran)."""
    from .precision import resolve_bf16

    bf16, why = resolve_bf16(settings.bf16)
    if why is not None:
        echo(why)
    return replace(settings, bf16=bf16)


def train(
    model: Any,
    tokenizer: Any,
    rows: Sequence[dict],
    reward: CodeReward,
    settings: DemoSettings,
    output: Path,
    echo: Echo,
) -> Any:
    """MicroCoder-GRPO on ``rows``: ``mctrain train``'s trainer, LoRA unless rank 0."""
    from datasets import Dataset
    from transformers.trainer_callback import PrinterCallback

    from .config import NO_ACTIVATION_CHECKPOINTING, MicroCoderGRPOConfig
    from .trainer import MetricsJSONLCallback, MicroCoderGRPOTrainer

    stages = settings.temperature_stages
    config = MicroCoderGRPOConfig(
        output_dir=str(output / "trainer"),
        max_steps=settings.steps,
        per_device_train_batch_size=settings.prompts_per_step * settings.num_generations,
        num_generations=settings.num_generations,
        max_completion_length=settings.max_completion_length,
        temperature_stages=stages,
        diversity_floor=settings.diversity_floor if stages else None,
        diversity_window=settings.diversity_window,
        temperature_schedule=None if stages else f"{settings.temperature}@0",
        learning_rate=settings.learning_rate,
        lr_scheduler_type="constant",
        warmup_steps=0,
        logging_steps=1,
        save_strategy="no",
        seed=settings.seed,
        bf16=settings.bf16,
        use_cpu=True,
        report_to=[],
        disable_tqdm=True,
        **NO_ACTIVATION_CHECKPOINTING,
    )
    peft_config = None
    if settings.lora_rank > 0:
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=settings.lora_rank,
            lora_alpha=2 * settings.lora_rank,
            lora_dropout=0.0,
            target_modules="all-linear",
            task_type="CAUSAL_LM",
        )
    metrics = output / "metrics.jsonl"
    metrics.unlink(missing_ok=True)
    trainer = MicroCoderGRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=config,
        train_dataset=Dataset.from_list(list(rows)),
        processing_class=tokenizer,
        peft_config=peft_config,
        callbacks=[MetricsJSONLCallback(metrics, echo=lambda r: _echo_step(echo, r))],
    )
    trainer.remove_callback(PrinterCallback)  # our one-line progress instead of TRL's dicts
    echo(f"training {settings.steps} steps on {len(rows)} problems")
    trainer.train()
    return trainer


def _echo_step(echo: Echo, record: dict) -> None:
    """One line per optimizer step (TRL's closing train_runtime record is not a step)."""
    if "microcoder/diversity" in record:
        echo(_progress_line(record))


def _progress_line(record: dict) -> str:
    shown = {
        "reward": "reward",
        "microcoder/verdicts/AC": "pass",
        "microcoder/diversity": "diversity",
        "microcoder/temperature": "T",
        "microcoder/time/wall_s": "seconds",
    }
    parts = [f"step {record.get('step')}"]
    parts += [
        f"{label}={record[k]:.3g}" for k, label in shown.items() if isinstance(record.get(k), float)
    ]
    return "  ".join(parts)
