"""The grading run behind ``grade``, ``demo`` and ``lcb``: samples to programs, the resume
journal, grading in parallel with progress, interruptions (Ctrl-C, SIGTERM) and the end of a
run (summary, outputs, the table)."""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import click

from evaluator import lcb as lcb_data
from evaluator.cli.options import parse_ks
from evaluator.cli.outputs import Finished, json_text, per_problem, write_outputs
from evaluator.cli.tables import print_table, shown_ids
from evaluator.formats import (
    BadProblem,
    InputError,
    Samples,
    extract_code,
    read_records,
    read_samples,
    sample_format,
)
from evaluator.harness import assertion
from evaluator.problem import Harness, Problem, Verdict
from evaluator.results import (
    Journal,
    JournalError,
    journal_path,
    problem_fingerprint,
    program_key,
    read_journal,
    result_from_dict,
)
from evaluator.runner import GradeOptions, Grader, GradeResult
from evaluator.runner.grading import describe_failure
from evaluator.sandbox import Isolation, ProfileError
from evaluator.sandbox.pool import WorkerDied
from evaluator.summary import summarize

__all__ = ["EXIT_INTERRUPTED", "Item", "grader_version", "run"]

# Exit status of an interrupted run (128 + SIGINT, as shells report Ctrl-C).
EXIT_INTERRUPTED = 130


def grader_version() -> str:
    """This grader's version, as installed (``unknown`` when run from a bare source tree)."""
    try:
        return version("microcoder")
    except PackageNotFoundError:
        return "unknown"


@dataclass(slots=True)
class Item:
    """One sample of one problem, as the run grades it."""

    problem: Problem
    index: int  # sample index within the problem
    text: str  # what the samples file holds
    program: str | None  # what runs (None: no code in the answer)
    key: str  # journal key


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


def _placeholders(bad: Sequence[BadProblem], samples: dict[str, Samples]) -> list[Problem]:
    """Problems standing in for the undecodable ones whose samples are graded as ERROR."""
    return [
        Problem(b.problem_id, Harness.STDIN, [], metadata=dict(b.metadata))
        for b in bad
        if b.problem_id is not None and b.problem_id in samples
    ]


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
    **options: Any,
) -> None:
    """Grade the samples in ``samples_path`` of ``problems`` with the grading options, then
    write what was asked (results, summary, report) and print the summary. Resumes from the
    journal with ``resume``; an interruption or a failure of the machinery stops the command
    with one line, keeping what was graded."""
    ks = parse_ks(options.pop("ks"))
    quiet, as_json = options.pop("quiet"), options.pop("as_json")
    workers, profile = options.pop("workers"), options.pop("profile")
    backend, address = options.pop("backend"), options.pop("address")
    grade_options = GradeOptions(
        time_limit=options["time_limit"],
        memory_limit=options["memory_limit"],
        judge=options["judge"],
        isolation=Isolation(options["isolation"]),
        early_exit=options["early_exit"],
        environment=options["environment"],
    )
    try:
        samples = read_samples(samples_path)
        kind = _samples_kind(samples_path)
    except InputError as exc:
        raise click.ClickException(str(exc)) from None
    for skipped in bad_problems:
        click.echo(f"warning: skipped a bad problem: {skipped.error}", err=True)
    broken = {b.problem_id: b for b in bad_problems if b.problem_id is not None}
    problems = [*problems, *_placeholders(bad_problems, samples)]
    by_id = {p.id: p for p in problems}
    excluded = selection.excluded if selection is not None else set()
    unknown = [pid for pid in samples if pid not in by_id and pid not in excluded]
    outside = [pid for pid in samples if pid not in by_id and pid in excluded]
    if unknown:
        click.echo(
            f"warning: {samples_path}: samples for {len(unknown)} unknown problem(s)"
            f"{_loaded_from(selection)}: {shown_ids(unknown)}",
            err=True,
        )
    if outside:
        click.echo(
            f"note: samples for {len(outside)} problem(s) outside the selected release/filters "
            f"are not graded: {shown_ids(outside)}",
            err=True,
        )
    graded = [p for p in problems if p.id in samples]
    missing = len(problems) - len(graded)
    if missing:
        click.echo(f"warning: {missing} problem(s) have no samples and are not graded", err=True)
    if not graded:
        raise click.ClickException(f"{samples_path}: no samples for any selected problem")
    items: list[Item] = []
    for problem in graded:
        fingerprint = problem_fingerprint(problem)
        for index, text in enumerate(samples[problem.id].codes):
            program = _program(problem, samples[problem.id], text)
            items.append(Item(problem, index, text, program, program_key(fingerprint, program)))

    journal_options = {
        "time_limit": grade_options.time_limit,
        "memory_limit": grade_options.memory_limit,
        "judge": grade_options.judge,
        "isolation": grade_options.isolation.value,
        "environment": grade_options.environment,
        "profile": profile,
        "early_exit": grade_options.early_exit,
    }
    results: list[GradeResult | None] = [None] * len(items)
    journal: Journal | None = None
    if output:
        try:
            journal = _open_journal(
                output, items, results, journal_options, resume, quiet or as_json
            )
        except OSError as exc:
            where = exc.filename or journal_path(output)
            raise click.ClickException(f"{where}: cannot open: {exc.strerror or exc}") from None
    resumed = sum(r is not None for r in results)
    for position, item in enumerate(items):  # undecodable problems: ERROR, nothing runs
        if item.problem.id in broken:
            results[position] = GradeResult(
                item.problem.id, Verdict.ERROR, message=str(broken[item.problem.id].error)
            )
    todo = [i for i, r in enumerate(results) if r is None]
    random.Random(seed).shuffle(todo)
    if backend == "ray":  # keep a problem's programs together: Ray batches them per problem
        todo.sort(key=lambda i: items[i].problem.id)

    try:
        grader = _make_grader(backend, address, grade_options, workers, profile)
        with _sigterm_interrupts(), grader as g:
            try:
                _grade(g, items, todo, results, journal, quiet or as_json)
            except (KeyboardInterrupt, _Interrupted) as exc:
                if journal is not None:
                    journal.close()  # results finishing from now on are not kept
                signum = exc.signum if isinstance(exc, _Interrupted) else signal.SIGINT
                name = signal.Signals(signum).name
                _report_stop(f"interrupted ({name})", results, output, resumed, journal)
                sys.exit(128 + signum)
    except click.ClickException:
        raise
    except Exception as exc:  # noqa: BLE001 - the machinery failed: one line, progress kept
        if journal is not None:
            journal.close()
        reason = str(exc) if isinstance(exc, ProfileError | WorkerDied | OSError) else None
        _report_stop(f"error: {reason or describe_failure(exc)}", results, output, resumed, journal)
        sys.exit(1)
    assert all(r is not None for r in results)
    final: list[GradeResult] = results  # type: ignore[assignment]

    sizes = [len(samples[p.id].codes) for p in graded]
    rows = per_problem(graded, samples, items, sizes, final)
    summary = summarize(rows, ks)
    summary.update(
        problems_without_samples=missing,
        unknown_sample_ids=unknown,
        samples_outside_selection=len(outside),
        samples_format=kind,
        seed=seed,
        resumed=resumed,
        options=journal_options,
        grader_version=grader_version(),
    )
    if bad_problems:
        summary["bad_problems"] = [
            {"id": b.problem_id, "samples": len(samples[b.problem_id].codes)
             if b.problem_id in samples else 0, "error": str(b.error)}
            for b in bad_problems
        ]  # fmt: skip
    if selection is not None:
        summary["selection"] = selection.describe()
    label = output or os.path.basename(samples_path)
    finished = Finished(kind, samples_path, by_id, items, final, rows, summary, label)
    write_outputs(
        finished,
        output=output,
        summary_path=summary_path,
        report_path=report_path,
        journal=journal,
    )
    if as_json:
        click.echo(json_text(summary))
    else:
        print_table(summary)
        if resumed and not quiet:
            click.echo(f"{resumed} result(s) reused from the journal of an earlier run")
        if output:
            click.echo(f"results written to {output}")
    if report_path:
        click.echo(f"report written to {report_path}", err=as_json)


def _loaded_from(selection: lcb_data.Selection | None) -> str:
    """Where unknown samples' problems are not: ``(not in the files of release_v6)``."""
    if selection is None or selection.release is None or selection.by_window:
        return ""
    return f" (not in the files of {selection.release.tag})"


def _samples_kind(path: str) -> str | None:
    """The samples file's format, from its first record (None for an empty file)."""
    for _, record in read_records(path):
        return sample_format(record)
    return None


def _open_journal(
    output: str,
    items: list[Item],
    results: list[GradeResult | None],
    options: dict[str, Any],
    resume: bool,
    quiet: bool,
) -> Journal:
    """The journal of ``output``: a new one, or with ``resume`` the existing one, whose
    results still matching their problem and program fill ``results``."""
    path = journal_path(output)
    if not path.exists():
        if resume and not quiet:
            click.echo(f"note: no journal {path} to resume from; grading everything", err=True)
        return Journal(path, options, keep_bytes=None)
    if not resume:
        raise click.ClickException(
            f"{path} holds results of an earlier, unfinished run: rerun with --resume to "
            "grade only the rest, or delete it to start over"
        )
    try:
        entries, keep = read_journal(path, options)
    except JournalError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot read: {exc.strerror or exc}") from None
    stale = 0
    for position, item in enumerate(items):
        entry = entries.get((item.problem.id, item.index))
        if entry is None:
            continue
        key, data = entry
        if key != item.key:
            stale += 1
            continue
        try:
            results[position] = result_from_dict(data, item.problem.id)
        except (KeyError, TypeError, ValueError):
            stale += 1
    if stale and not quiet:
        click.echo(
            f"note: {stale} journaled result(s) no longer match their problem or program "
            "and are graded again",
            err=True,
        )
    return Journal(path, options, keep_bytes=keep)


def _report_stop(
    reason: str,
    results: Sequence[GradeResult | None],
    output: str | None,
    resumed: int,
    journal: Journal | None,
) -> None:
    """Say, in one line on stderr, why the run stopped, how much was graded and kept, and how
    to go on."""
    total = len(results)
    # What the journal holds: results that finished after it was closed are not kept.
    kept = resumed + journal.written if journal is not None else None
    done = kept if kept is not None else sum(r is not None for r in results)
    if output:
        where = journal_path(output)
        click.echo(
            f"{reason}: {done} of {total} programs graded, kept in {where}; no result was "
            f"written. Rerun the same command with --resume to grade the other {total - done}.",
            err=True,
        )
    else:
        click.echo(
            f"{reason}: {done} of {total} programs graded; nothing was written "
            "(give --output to keep progress across interruptions).",
            err=True,
        )


def _grade(
    grader: Grader,
    items: Sequence[Item],
    todo: Sequence[int],
    results: list[GradeResult | None],
    journal: Journal | None,
    quiet: bool,
) -> None:
    """Grade ``items[i]`` for ``i`` in ``todo`` into ``results``, journaling each result.

    At most two programs per worker are queued at a time, so an interruption only waits for
    those (a closing pool finishes what it was given).
    """
    from tqdm import tqdm

    counts: Counter[str] = Counter(str(r.verdict) for r in results if r is not None)
    lock = threading.Condition()
    window = threading.Semaphore(max(2, 2 * grader.pool.size))
    state = {"finished": 0, "error": None}
    with tqdm(
        total=len(items),
        initial=len(items) - len(todo),
        unit="prog",
        disable=quiet,
        file=sys.stderr,
        dynamic_ncols=True,
    ) as bar:

        def done(position: int, future: Any) -> None:
            try:
                result = future.result()
                item = items[position]
                results[position] = result
                if journal is not None:
                    journal.record(item.problem.id, item.index, item.key, result)
                with lock:
                    counts[str(result.verdict)] += 1
                    bar.set_postfix_str(" ".join(f"{v}={counts[v]}" for v in counts), refresh=False)
                    bar.update()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
                with lock:
                    state["error"] = state["error"] or exc
            finally:
                window.release()
                with lock:
                    state["finished"] += 1
                    lock.notify_all()

        submitted = 0
        for position in todo:
            while not window.acquire(timeout=0.5):
                pass
            if state["error"] is not None:
                window.release()
                break
            item = items[position]
            future = grader.submit(item.problem, item.program)
            submitted += 1
            future.add_done_callback(lambda f, position=position: done(position, f))
        with lock:
            while state["finished"] < submitted:
                lock.wait(timeout=0.5)
    if state["error"] is not None:
        raise state["error"]


def _make_grader(
    backend: str, address: str | None, options: GradeOptions, workers: int | None, profile: str
) -> Any:
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


def _program(problem: Problem, samples: Samples, text: str) -> str | None:
    """What runs for one sample: its code (extracted from a raw answer), wrapped for
    assertion problems; None when the answer holds no code."""
    code = extract_code(text) if samples.raw else text
    if code is None:
        return None
    if problem.harness is Harness.ASSERTION:
        return assertion.program(problem, code, samples.continues_prompt)
    return code
