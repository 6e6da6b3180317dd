"""``mcevaluate report`` (a run as one self-contained HTML page) and ``mcevaluate compare``
(two runs, paired over problems). The work is in :mod:`evaluator.report`, imported only when
a command runs."""

from __future__ import annotations

import os
from typing import Any

import click

from evaluator.cli.options import parse_ks
from evaluator.cli.paths import writable
from evaluator.cli.terminal_tables import print_comparison
from evaluator.formats import InputError
from evaluator.report.stats_defaults import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from evaluator.runner.journal import write_atomic
from evaluator.runner.outputs import json_text

__all__ = ["compare", "report"]

_RESULTS = click.Path(exists=True, dir_okay=False)


def _load(path: str, summary: str | None) -> Any:
    """The run of ``path`` (see :func:`evaluator.report.load_run`); bad input stops the
    command with one line naming file, record and field."""
    from evaluator.report import load_run

    try:
        return load_run(path, summary)
    except InputError as exc:
        raise click.ClickException(str(exc)) from None


def _warn_ks(run: Any, ks: list[int]) -> None:
    """A warning line on stderr for each k the run's samples cannot serve."""
    from evaluator.summary import k_warnings

    for line in k_warnings([len(p.samples) for p in run.problems], ks):
        click.echo(f"warning: {line}", err=True)


def _write_page(path: str, html: str) -> int:
    """Write a page atomically; its size in bytes."""
    data = html.encode("utf-8")
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(data)


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 100_000 else f"{count / 1e3:.0f} kB"


@click.command()
@click.argument("results", type=_RESULTS)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the report here (replaced if it exists) [default: RESULTS with .html].",
)
@click.option(
    "--summary",
    "summary_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The run's --summary file: adds its provenance (label, date, command line, input "
    "files and their hashes, versions) and options (release or date window, isolation, "
    "judge, seed). The limits each problem ran with are in RESULTS' rows; for older "
    "results, the summary's limits are marked on the plots.",
)
@click.option(
    "--k",
    "ks",
    default=None,
    help="Comma-separated k values for pass@k [default: the summary's, else 1 (and 10 when "
    "every problem has 10 samples)].",
)
@click.option(
    "--label",
    default=None,
    help="What to call the run (the model's name) [default: the summary's --label, else RESULTS].",
)
def report(
    results: str, output: str | None, summary_path: str | None, ks: str | None, label: str | None
) -> None:
    """Write RESULTS (what grade, lcb or demo wrote to --output) as one HTML page.

    The page works offline (no CDN, no server): the run's provenance (label, date, command,
    input files and their hashes, versions) and options, pass@k overall and by difficulty,
    platform and contest month (tables and plots, pass@1 with a bootstrap interval), the
    verdicts, CPU time and memory per test with each problem's limits marked, and a
    sortable, filterable table of the problems with each sample's verdict, its program
    (highlighted, never run), its first failing test (input, expected output, public or
    private), its difference or error and the excerpts of its stdout and stderr.

    \b
    Examples:
      mcevaluate report results.json --summary summary.json -o report.html
      mcevaluate report samples.jsonl_results.jsonl --k 1,10
      mcevaluate lcb --samples s.jsonl --release v6 -o results.json --report report.html
    """
    from evaluator.report import render_report

    output = output or f"{os.path.splitext(results)[0]}.html"
    if os.path.abspath(output) == os.path.abspath(results):
        raise click.UsageError("--output names RESULTS itself")
    writable(output, "--output")
    run = _load(results, summary_path)
    run.name = label
    chosen = parse_ks(ks) if ks else None
    if chosen:
        _warn_ks(run, chosen)
    size = _write_page(output, render_report(run, chosen))
    samples = sum(len(p.samples) for p in run.problems)
    click.echo(
        f"report of {len(run.problems)} problems, {samples} samples written to {output} "
        f"({_size(size)})"
    )


@click.command()
@click.argument("a", type=_RESULTS)
@click.argument("b", type=_RESULTS)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the comparison as one HTML page here (replaced if it exists).",
)
@click.option(
    "--summaries",
    nargs=2,
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="A_SUMMARY B_SUMMARY",
    help="The two runs' --summary files: their grading options must then agree.",
)
@click.option(
    "--reports",
    nargs=2,
    type=click.Path(dir_okay=False),
    default=None,
    metavar="A_REPORT B_REPORT",
    help="The two runs' report pages, which the page's rows link to [default: RESULTS with "
    ".html, where that file exists (what `mcevaluate report` writes)].",
)
@click.option(
    "--common",
    is_flag=True,
    help="Compare the problems both runs graded when their problem sets differ [default: refuse].",
)
@click.option(
    "--any-options",
    is_flag=True,
    help="Compare runs graded with other options (other limits, judge...) [default: refuse].",
)
@click.option(
    "--resamples",
    type=click.IntRange(min=100),
    default=DEFAULT_RESAMPLES,
    show_default=True,
    help="Bootstrap resamples of the problems (and random sign patterns of the paired test).",
)
@click.option(
    "--level",
    type=click.FloatRange(min=0.5, max=0.999),
    default=DEFAULT_LEVEL,
    show_default=True,
    help="Confidence level of the interval.",
)
@click.option(
    "--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Seed of the resampling."
)
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare(
    a: str,
    b: str,
    output: str | None,
    summaries: tuple[str, str] | None,
    reports: tuple[str, str] | None,
    common: bool,
    any_options: bool,
    resamples: int,
    level: float,
    seed: int,
    as_json: bool,
) -> None:
    """Compare run B against run A (results files of grade, lcb or demo), paired by problem.

    Prints pass@1 of each run overall, by difficulty and by platform, the difference B - A
    with a paired bootstrap interval over problems and a paired test's p-value (McNemar's
    exact test for one sample per problem, else a sign-flip permutation test), and the
    problems one run solves (some sample passes) and the other does not. Refuses, in one
    line, runs of other problems (--common compares those both graded), problems that ran
    with other limits or, with --summaries, other grading options (--any-options). With -o,
    the page's rows open to each sample's verdict in both runs and link to the problem in
    each run's report (--reports).

    \b
    Examples:
      mcevaluate compare a.json b.json
      mcevaluate compare a.json b.json -o compare.html --summaries a_sum.json b_sum.json
      mcevaluate compare base.json tuned.json --common --resamples 20000 --json
    """
    from evaluator.report import CompareError, compare_runs, render_comparison

    if output:
        writable(output, "--output")
    first, second = summaries or (None, None)
    run_a, run_b = _load(a, first), _load(b, second)
    try:
        comparison = compare_runs(
            run_a,
            run_b,
            common=common,
            any_options=any_options,
            resamples=resamples,
            seed=seed,
            level=level,
        )
    except CompareError as exc:
        raise click.ClickException(str(exc)) from None
    if summaries is None:
        click.echo("note: grading options not compared (give --summaries)", err=True)
    if as_json:
        click.echo(json_text(comparison.to_dict()))
    else:
        print_comparison(comparison)
    if output:
        links = _report_links(output, (a, b), reports)
        size = _write_page(output, render_comparison(comparison, links))
        click.echo(f"comparison written to {output} ({_size(size)})", err=as_json)


def _report_links(
    page: str, results: tuple[str, str], reports: tuple[str, str] | None
) -> list[str | None]:
    """The links from the comparison page to each run's report: those given, else the
    report ``mcevaluate report`` writes by default (RESULTS with .html) where it exists."""
    from evaluator.report import report_link

    chosen = reports or tuple(f"{os.path.splitext(r)[0]}.html" for r in results)
    return [report_link(path, page) if reports or os.path.isfile(path) else None for path in chosen]
