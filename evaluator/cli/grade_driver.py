"""The click side of a grading run (``grade``, ``demo``, ``lcb``): options to a
:class:`~evaluator.runner.run.GradingRun`, the grader it runs on, interruptions (Ctrl-C,
SIGTERM), exit statuses and what is printed. The run itself is the library object."""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from evaluator import lcb_releases as lcb_data
from evaluator.cli.options import compile_flags, parse_ks, shipped_with
from evaluator.cli.terminal_tables import print_table
from evaluator.formats import BadProblem
from evaluator.languages.base import parse_flags
from evaluator.problem import Problem
from evaluator.runner import GradeOptions, Grader
from evaluator.runner.grading import describe_failure
from evaluator.runner.outputs import RunError, json_text, write_outputs
from evaluator.runner.protocol import ProgramGrader
from evaluator.runner.run import GradingRun
from evaluator.sandbox import Isolation, ProfileError
from evaluator.sandbox.pool import WorkerDied

__all__ = ["EXIT_INTERRUPTED", "run"]

# Exit status of an interrupted run (128 + SIGINT, as shells report Ctrl-C).
EXIT_INTERRUPTED = 130


class _Interrupted(Exception):
    """SIGTERM arrived: the run stops as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (a batch scheduler stopping the job) interrupts like Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Interrupted(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _say(line: str) -> None:
    click.echo(line, err=True)


def run(
    problems: list[Problem],
    samples_path: str,
    *,
    output: str | None,
    summary_path: str | None,
    report_path: str | None,
    resume: bool,
    seed: int,
    selection: lcb_data.Selection | None = None,
    bad_problems: Sequence[BadProblem] = (),
    problem_files: Sequence[str] = (),
    **options: Any,
) -> None:
    """Grade the samples in ``samples_path`` of ``problems`` (read from ``problem_files``)
    with the grading options, then write what was asked (results, summary, report) and print
    the summary. Resumes from the journal with ``resume``; an interruption or a failure of
    the machinery stops the command with one line, keeping what was graded."""
    ks = parse_ks(options.pop("ks"))
    label = options.pop("label") or output or os.path.basename(samples_path)
    quiet, as_json = options.pop("quiet"), options.pop("as_json")
    workers, profile = options.pop("workers"), options.pop("profile")
    backend, address = options.pop("backend"), options.pop("address")
    language = options.pop("language")
    flags = compile_flags(options)
    for name, text in flags.items():
        try:
            parse_flags(text, f"--{name}-flags")
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint=f"--{name}-flags") from None
    grade_options = GradeOptions(
        time_limit=options["time_limit"],
        memory_limit=options["memory_limit"],
        judge=options["judge"],
        isolation=Isolation(options["isolation"]),
        early_exit=options["early_exit"],
        environment=options["environment"],
        compile_flags=flags or None,
        checker_dir=options["checker_dir"] or shipped_with(*problem_files),
    )
    try:
        grading = GradingRun(
            problems,
            samples_path,
            grade_options,
            ks=ks,
            seed=seed,
            profile=profile,
            selection=selection,
            bad_problems=bad_problems,
            say=_say,
            problem_files=problem_files,
            command=_command_line(),
            language=language,
        )
        if output:
            grading.open_journal(output, resume=resume, quiet=quiet or as_json)
    except RunError as exc:
        raise click.ClickException(str(exc)) from None
    _grade(grading, backend, address, grade_options, workers, profile, output, quiet or as_json)

    finished = grading.finish(label=label)
    try:
        write_outputs(
            finished,
            output=output,
            summary_path=summary_path,
            report_path=report_path,
            journal=grading.journal,
        )
    except RunError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json_text(finished.summary))
    else:
        print_table(finished.summary)
        if grading.resumed and not quiet:
            click.echo(f"{grading.resumed} result(s) reused from the journal of an earlier run")
        if output:
            click.echo(f"results written to {output}")
    if report_path:
        click.echo(f"report written to {report_path}", err=as_json)


def _command_line() -> str:
    """The command as it was typed (as far as ``sys.argv`` keeps it), for the provenance."""
    return shlex.join([os.path.basename(sys.argv[0]), *sys.argv[1:]])


def _grade(
    grading: GradingRun,
    backend: str,
    address: str | None,
    options: GradeOptions,
    workers: int | None,
    profile: str,
    output: str | None,
    quiet: bool,
) -> None:
    """Grade what is left of ``grading``; an interruption or a failure of the machinery
    exits with one line (128 + the signal, or 1), keeping what the journal holds."""
    try:
        grader = _make_grader(backend, address, options, workers, profile)
        with _sigterm_interrupts(), grader as g:
            try:
                grading.grade(g, progress=not quiet, by_problem=backend == "ray")
            except (KeyboardInterrupt, _Interrupted) as exc:
                signum = exc.signum if isinstance(exc, _Interrupted) else signal.SIGINT
                name = signal.Signals(signum).name
                click.echo(grading.stop_message(f"interrupted ({name})", output), err=True)
                sys.exit(128 + signum)
    except click.ClickException:
        raise
    except Exception as exc:  # noqa: BLE001 - the machinery failed: one line, progress kept
        reason = str(exc) if isinstance(exc, ProfileError | WorkerDied | OSError) else None
        line = grading.stop_message(f"error: {reason or describe_failure(exc)}", output)
        click.echo(line, err=True)
        sys.exit(1)


def _make_grader(
    backend: str, address: str | None, options: GradeOptions, workers: int | None, profile: str
) -> ProgramGrader:
    """This machine's grader, or Ray's (``--backend ray``; one line when Ray is missing)."""
    if backend == "local":
        return Grader(options, workers=workers, profile=profile)
    try:
        from evaluator.backends.ray_backend import RayGrader
    except ImportError as exc:
        raise click.ClickException(
            f"--backend ray needs Ray: pip install 'microcoder[ray]' ({exc})"
        ) from None
    return RayGrader(options, address=address, profile=profile, workers_per_actor=workers)
