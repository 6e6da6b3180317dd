"""``mcevaluate``: grade model outputs on LiveCodeBench-style problem sets.

Examples::

    mcevaluate demo
    mcevaluate grade --problems problems.jsonl --samples samples.jsonl --output results.json
    mcevaluate grade --problems p.jsonl --samples s.jsonl --judge float --workers 8 --json
"""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import click

from evaluator.formats import (
    InputError,
    Samples,
    extract_code,
    pass_at_k,
    read_problems,
    read_samples,
    write_lcb_results,
)
from evaluator.harness import assertion
from evaluator.judges import JUDGES
from evaluator.problem import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, Harness, Problem, Verdict
from evaluator.runner import GradeOptions, Grader, GradeResult
from evaluator.sandbox import Isolation, ProfileError, available_profiles
from evaluator.sandbox.pool import WorkerDied

_VERDICT_ORDER = [v for v in Verdict]


def _grading_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options every grading command shares."""
    options = [
        click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=None,
            help="Parallel sandbox workers [default: CPU cores].",
        ),
        click.option(
            "--time-limit",
            type=click.FloatRange(min=0.01),
            default=DEFAULT_TIME_LIMIT,
            show_default=True,
            help="CPU seconds per test, for problems without their own.",
        ),
        click.option(
            "--memory-limit",
            type=click.IntRange(min=16),
            default=DEFAULT_MEMORY_LIMIT,
            show_default=True,
            help="MB per program, for problems without their own.",
        ),
        click.option(
            "--judge",
            type=click.Choice(sorted(JUDGES)),
            default="lines",
            show_default=True,
            help="Output judge for stdin problems without their own.",
        ),
        click.option(
            "--isolation",
            type=click.Choice([i.value for i in Isolation]),
            default=Isolation.TEST.value,
            show_default=True,
            help="'test': a fresh process per test; 'submission': one per program.",
        ),
        click.option(
            "--profile",
            default="default",
            show_default=True,
            help=f"Sandbox profile: {', '.join(available_profiles())}, or a JSON path.",
        ),
        click.option(
            "--early-exit",
            is_flag=True,
            help="Stop a program at its first failing test (the rest are SKIPPED).",
        ),
        click.option(
            "--k", "ks", default="1", show_default=True, help="Comma-separated k values for pass@k."
        ),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
        click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="microcoder")
def main() -> None:
    """MicroCoder-Evaluator: grade LLM-written programs fast, safely and exactly."""


@main.command()
@click.option(
    "--problems",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Problems: LiveCodeBench, HumanEval/EvalPlus or our JSONL (also .gz, .json, .parquet).",
)
@click.option(
    "--samples",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Samples: {question_id, code_list|output_list} or {task_id, completion|solution}.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write LiveCodeBench eval_all-style results (JSON list) here.",
)
@_grading_options
def grade(problems: str, samples: str, output: str | None, **options: Any) -> None:
    """Grade SAMPLES against PROBLEMS and print pass@k and verdict counts.

    \b
    Example:
      mcevaluate grade --problems problems.jsonl --samples samples.jsonl -o results.json
    """
    _run(problems, samples, output, **options)


@main.command()
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the results JSON here.",
)
@_grading_options
def demo(output: str | None, **options: Any) -> None:
    """Grade the bundled demo set: small original problems with solutions of every verdict.

    \b
    Example:
      mcevaluate demo --time-limit 1
    """
    from evaluator.data import DEMO_PROBLEMS, DEMO_SAMPLES

    _run(str(DEMO_PROBLEMS), str(DEMO_SAMPLES), output, **options)


def _run(problems_path: str, samples_path: str, output: str | None, **options: Any) -> None:
    ks = _parse_ks(options.pop("ks"))
    quiet, as_json = options.pop("quiet"), options.pop("as_json")
    workers, profile = options.pop("workers"), options.pop("profile")
    grade_options = GradeOptions(
        time_limit=options["time_limit"],
        memory_limit=options["memory_limit"],
        judge=options["judge"],
        isolation=Isolation(options["isolation"]),
        early_exit=options["early_exit"],
    )
    try:
        problems = read_problems(problems_path)
        samples = read_samples(samples_path)
    except InputError as exc:
        raise click.ClickException(str(exc)) from None
    by_id = {p.id: p for p in problems}
    unknown = [pid for pid in samples if pid not in by_id]
    if unknown:
        shown = ", ".join(map(repr, unknown[:5])) + (" ..." if len(unknown) > 5 else "")
        click.echo(
            f"warning: {samples_path}: samples for {len(unknown)} unknown problem(s): {shown}",
            err=True,
        )
    graded = [p for p in problems if p.id in samples]
    missing = len(problems) - len(graded)
    if missing:
        click.echo(f"warning: {missing} problem(s) have no samples and are not graded", err=True)
    items = [(p, _program(p, samples[p.id], code)) for p in graded for code in samples[p.id].codes]
    try:
        with Grader(grade_options, workers=workers, profile=profile) as grader:
            results = _grade_with_progress(grader, items, quiet or as_json)
    except (ProfileError, WorkerDied) as exc:
        raise click.ClickException(str(exc)) from None
    per_problem = _per_problem(graded, [len(samples[p.id].codes) for p in graded], results)
    if output:
        write_lcb_results(output, per_problem)
    summary = _summary(graded, per_problem, results, ks)
    summary["problems_without_samples"] = missing
    summary["unknown_sample_ids"] = unknown
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        _print_table(summary)
        if output:
            click.echo(f"results written to {output}")


def _program(problem: Problem, samples: Samples, text: str) -> str | None:
    code = extract_code(text) if samples.raw else text
    if code is None:
        return None
    if problem.harness is Harness.ASSERTION:
        return assertion.program(problem, code, samples.continues_prompt)
    return code


def _parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(k) for k in text.split(",") if k.strip()})
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a comma-separated list of integers", param_hint="--k"
        )
    if not ks or ks[0] < 1:
        raise click.BadParameter("k values must be positive", param_hint="--k")
    return ks


def _grade_with_progress(
    grader: Grader, items: Sequence[tuple[Problem, str | None]], quiet: bool
) -> list[GradeResult]:
    from tqdm import tqdm

    counts: Counter[str] = Counter()
    lock = threading.Lock()
    with tqdm(
        total=len(items), unit="prog", disable=quiet, file=sys.stderr, dynamic_ncols=True
    ) as bar:

        def progress(result: GradeResult) -> None:
            with lock:
                counts[str(result.verdict)] += 1
                bar.set_postfix_str(" ".join(f"{v}={counts[v]}" for v in counts), refresh=False)
                bar.update()

        return grader.grade_many(items, progress=progress)


def _per_problem(
    problems: list[Problem], sizes: list[int], results: list[GradeResult]
) -> list[dict[str, Any]]:
    rows, start = [], 0
    for problem, size in zip(problems, sizes, strict=True):
        chunk = results[start : start + size]
        start += size
        graded = [r.passed for r in chunk]
        rows.append(
            {
                "question_id": problem.id,
                "graded_list": graded,
                "pass@1": sum(graded) / len(graded) if graded else 0.0,
                "details": [r.to_dict() for r in chunk],
                "platform": problem.metadata.get("platform"),
                "difficulty": problem.metadata.get("difficulty"),
            }
        )
    return rows


def _summary(
    problems: list[Problem], rows: list[dict[str, Any]], results: list[GradeResult], ks: list[int]
) -> dict[str, Any]:
    def pass_rates(selected: list[dict[str, Any]]) -> dict[str, float | None]:
        rates: dict[str, float | None] = {}
        for k in ks:
            usable = [r for r in selected if len(r["graded_list"]) >= k]
            rates[f"pass@{k}"] = (
                round(
                    100
                    * sum(
                        pass_at_k(len(r["graded_list"]), sum(r["graded_list"]), k) for r in usable
                    )
                    / len(usable),
                    2,
                )
                if usable
                else None
            )
        return rates

    groups: dict[str, dict[str, list[dict[str, Any]]]] = {
        "difficulty": defaultdict(list),
        "platform": defaultdict(list),
    }
    for row in rows:
        for key in groups:
            groups[key][row[key] or "unknown"].append(row)
    verdicts = Counter(str(r.verdict) for r in results)
    return {
        "problems": len(problems),
        "samples": len(results),
        **pass_rates(rows),
        "by_difficulty": {
            k: {"problems": len(v), **pass_rates(v)} for k, v in groups["difficulty"].items()
        },
        "by_platform": {
            k: {"problems": len(v), **pass_rates(v)} for k, v in groups["platform"].items()
        },
        "verdicts": {str(v): verdicts[str(v)] for v in _VERDICT_ORDER if verdicts[str(v)]},
    }


def _print_table(summary: dict[str, Any]) -> None:
    metrics = [k for k in summary if k.startswith("pass@")]
    width = max(
        [len(name) for section in ("by_difficulty", "by_platform") for name in summary[section]]
        + [12]
    )
    header = f"{'':{width}}  {'problems':>8}  " + "  ".join(f"{m:>8}" for m in metrics)
    click.echo(header)
    click.echo("-" * len(header))

    def line(name: str, row: dict[str, Any]) -> None:
        values = "  ".join(f"{_pct(row[m]):>8}" for m in metrics)
        click.echo(f"{name:{width}}  {row['problems']:>8}  {values}")

    line("all", summary)
    for section in ("by_difficulty", "by_platform"):
        for name, row in sorted(summary[section].items()):
            line(f"  {name}", row)
    counts = ", ".join(f"{v} {n}" for v, n in summary["verdicts"].items())
    click.echo(f"\n{summary['samples']} samples: {counts}")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


if __name__ == "__main__":
    main()
