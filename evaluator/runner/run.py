"""A grading run as a library object: samples planned into programs, the resume journal,
grading in parallel with progress, and the summary of the end.

The CLI (``grade``, ``demo``, ``lcb``) is this object plus options and messages. Everything
the run has to tell its user (unknown sample ids, stale journal entries) goes through the
``say`` callable it is given, one line at a time; what stops it is a :class:`RunError`,
whose text is that one line. The caller owns the process: signals, exit statuses, where
lines are printed.

>>> from evaluator.runner import GradeOptions, Grader
>>> run = GradingRun(problems, "samples.jsonl", GradeOptions())      # doctest: +SKIP
>>> with Grader() as grader:                                          # doctest: +SKIP
...     run.grade(grader)
>>> run.finish(label="my model").summary["pass@1"]                     # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import os
import platform
import random
import shlex
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

from evaluator import lcb_releases as lcb_data
from evaluator.formats import (
    BadProblem,
    InputError,
    Samples,
    read_records,
    read_samples,
    sample_format,
)
from evaluator.harness import assertion
from evaluator.languages import (
    DEFAULT_LANGUAGE,
    BuildLimits,
    Language,
    program_language,
)
from evaluator.problem import Harness, Problem, Verdict
from evaluator.provenance import grader_source, grader_version
from evaluator.runner.answers import problem_language, resolve_program, unsupported_message
from evaluator.runner.grading import GradeOptions, GradeResult
from evaluator.runner.journal import (
    Journal,
    JournalError,
    journal_path,
    problem_fingerprint,
    program_key,
    read_journal,
    result_from_dict,
)
from evaluator.runner.outputs import Finished, Item, RunError, per_problem
from evaluator.runner.protocol import ProgramGrader
from evaluator.sandbox import DEFAULT_PROFILE
from evaluator.summary import describe_file, k_warnings, summarize

__all__ = [
    "GradingRun",
    "RunError",
    "describe_file",
    "grade_all",
    "grader_version",
    "sample_program",
    "shown_ids",
]


def shown_ids(ids: Sequence[str]) -> str:
    """The first five of ``ids``, quoted, and ``...`` when there are more."""
    return ", ".join(map(repr, ids[:5])) + (" ..." if len(ids) > 5 else "")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


class GradingRun:
    """One grading run of the samples in ``samples_path`` against ``problems`` (or of
    ``samples`` already read, of format ``samples_kind``, that ``samples_path`` names).

    Building it reads the samples and plans one :class:`Item` per sample (a problem
    ``bad_problems`` names is graded as ERROR without running). Then, in order:
    :meth:`open_journal` (optional, to keep and resume progress), :meth:`grade` with any
    :class:`ProgramGrader`, :meth:`finish` for the rows and the summary.

    ``problem_files`` (where ``problems`` were read from) and ``command`` (the command line)
    are recorded in the summary's provenance, with the files' hashes.

    ``language``: what the programs are written in when their samples do not say (a
    ``language`` field wins); None: each raw answer's fence tag, else Python
    (:func:`~evaluator.languages.program_language`). Each program's language is resolved
    once, here, into its :class:`~evaluator.languages.Language` (``Item.language``), and
    handed to the grader as that object.
    """

    def __init__(
        self,
        problems: Sequence[Problem],
        samples_path: str,
        options: GradeOptions,
        *,
        ks: Sequence[int] = (1,),
        seed: int = 0,
        profile: str = DEFAULT_PROFILE,
        selection: lcb_data.Selection | None = None,
        bad_problems: Sequence[BadProblem] = (),
        say: Callable[[str], None] = _stderr,
        problem_files: Sequence[str] = (),
        command: str | None = None,
        samples: Mapping[str, Samples] | None = None,
        samples_kind: str | None = None,
        language: str | Language | None = None,
    ) -> None:
        self.samples_path = samples_path
        try:
            self.language = None if language is None else program_language(language)
        except ValueError as exc:
            raise RunError(str(exc)) from None
        self.problem_files = list(problem_files)
        self.command = command
        self.options = options
        self.ks = list(ks)
        self.seed = seed
        self.selection = selection
        self.bad_problems = list(bad_problems)
        self.say = say
        if samples is not None:  # already read (a service request): samples_path names them
            self.samples, self.kind = dict(samples), samples_kind
        else:
            try:
                self.samples = read_samples(samples_path)
                self.kind = _samples_kind(samples_path)
            except InputError as exc:
                raise RunError(str(exc)) from None
        for skipped in bad_problems:
            say(f"warning: skipped a bad problem: {skipped.error}")
        self._broken = {b.problem_id: b for b in bad_problems if b.problem_id is not None}
        everything = [*problems, *_placeholders(bad_problems, self.samples)]
        self.problems = {p.id: p for p in everything}
        self.graded = [p for p in everything if p.id in self.samples]
        self.unknown, self.outside = self._check_ids()
        self.missing = len(everything) - len(self.graded)
        if self.missing:
            say(f"warning: {self.missing} problem(s) have no samples and are not graded")
        if not self.graded:
            raise RunError(f"{samples_path}: no samples for any selected problem")
        self.items = self._plan()
        self.results: list[GradeResult | None] = [None] * len(self.items)
        self.journal: Journal | None = None
        self.resumed = 0
        self.journal_options = {
            "time_limit": options.time_limit,
            "memory_limit": options.memory_limit,
            "judge": options.judge,
            "isolation": options.isolation.value,
            "environment": options.environment,
            "profile": profile,
            "early_exit": options.early_exit,
        }
        # What only other languages' programs use, named only when it is not the default (a
        # journal of a run without them resumes as before).
        if self.language is not None:
            self.journal_options["language"] = self.language.name
        if options.compile_flags:
            self.journal_options["compile_flags"] = {  # as the journal's JSON holds them
                name: flags if isinstance(flags, str) else list(flags)
                for name, flags in sorted(options.compile_flags.items())
            }
        if options.build_limits != BuildLimits():
            self.journal_options["build_limits"] = dataclasses.asdict(options.build_limits)

    # --- planning -------------------------------------------------------------------------------

    def _check_ids(self) -> tuple[list[str], list[str]]:
        """Sample ids of no loaded problem: unknown ones (warned) and those the selection
        left out on purpose (noted)."""
        excluded = self.selection.excluded if self.selection is not None else set()
        stray = [pid for pid in self.samples if pid not in self.problems]
        unknown = [pid for pid in stray if pid not in excluded]
        outside = [pid for pid in stray if pid in excluded]
        if unknown:
            self.say(
                f"warning: {self.samples_path}: samples for {len(unknown)} unknown problem(s)"
                f"{_loaded_from(self.selection)}: {shown_ids(unknown)}"
            )
        if outside:
            self.say(
                f"note: samples for {len(outside)} problem(s) outside the selected "
                f"release/filters are not graded: {shown_ids(outside)}"
            )
        return unknown, outside

    def _plan(self) -> list[Item]:
        items: list[Item] = []
        for problem in self.graded:
            fingerprint = problem_fingerprint(problem)
            samples = self.samples[problem.id]
            stated = samples.language or self.language or problem_language(problem)
            for index, text in enumerate(samples.codes):
                program, language = sample_program(problem, samples, text, stated)
                name = language if isinstance(language, str) else language.name
                key = program_key(fingerprint, program, name)
                graded = None if isinstance(language, str) else language
                items.append(Item(problem, index, text, program, key, graded, name))
        return items

    # --- the journal ----------------------------------------------------------------------------

    def open_journal(self, output: str, *, resume: bool, quiet: bool = False) -> None:
        """Keep every result in ``output``'s journal as it arrives. A journal already there
        is an earlier, unfinished run: with ``resume`` its results that still match their
        problem and program are taken, otherwise it is a :class:`RunError`."""
        path = journal_path(output)
        try:
            if not path.exists():
                if resume and not quiet:
                    self.say(f"note: no journal {path} to resume from; grading everything")
                self.journal = Journal(path, self.journal_options, keep_bytes=None)
                return
            if not resume:
                raise RunError(
                    f"{path} holds results of an earlier, unfinished run: rerun with --resume "
                    "to grade only the rest, or delete it to start over"
                )
            keep = self._resume_from(path, quiet)
            self.journal = Journal(path, self.journal_options, keep_bytes=keep)
        except OSError as exc:
            where = exc.filename or path
            raise RunError(f"{where}: cannot open: {exc.strerror or exc}") from None

    def _resume_from(self, path: Any, quiet: bool) -> int:
        try:
            entries, keep = read_journal(path, self.journal_options)
        except JournalError as exc:
            raise RunError(str(exc)) from None
        except OSError as exc:
            raise RunError(f"{path}: cannot read: {exc.strerror or exc}") from None
        stale = 0
        for position, item in enumerate(self.items):
            entry = entries.get((item.problem.id, item.index))
            if entry is None:
                continue
            key, data = entry
            if key != item.key:
                stale += 1
                continue
            try:
                self.results[position] = result_from_dict(data, item.problem.id)
            except (KeyError, TypeError, ValueError):
                stale += 1
        self.resumed = sum(r is not None for r in self.results)
        if stale and not quiet:
            self.say(
                f"note: {stale} journaled result(s) no longer match their problem or program "
                "and are graded again"
            )
        return keep

    # --- grading --------------------------------------------------------------------------------

    def pending(self, *, by_problem: bool = False) -> list[int]:
        """Positions of the items still to grade, shuffled by the seed (a problem's slow
        programs spread over the run); ``by_problem`` keeps a problem's programs together
        (the Ray backend batches them per problem)."""
        todo = [i for i, r in enumerate(self.results) if r is None]
        random.Random(self.seed).shuffle(todo)
        if by_problem:
            todo.sort(key=lambda i: self.items[i].problem.id)
        return todo

    def grade(
        self, grader: ProgramGrader, *, progress: bool = True, by_problem: bool = False
    ) -> None:
        """Grade every item not graded yet, journaling each result. An interruption
        (``KeyboardInterrupt``) or a failure of the machinery propagates; what finished is in
        :attr:`results` and the journal (see :meth:`stop_message`)."""
        for position, item in enumerate(self.items):  # undecodable problems: nothing runs
            if self.results[position] is None and item.problem.id in self._broken:
                error = str(self._broken[item.problem.id].error)
                self.results[position] = GradeResult(item.problem.id, Verdict.ERROR, message=error)
            elif self.results[position] is None and item.language is None:
                message = unsupported_message(item.language_name)
                self.results[position] = GradeResult(
                    item.problem.id, Verdict.UNSUPPORTED, message=message
                )
        todo = self.pending(by_problem=by_problem)
        initial = Counter(str(r.verdict) for r in self.results if r is not None)

        def record(position: int, result: GradeResult) -> None:
            item = self.items[position]
            self.results[position] = result
            if self.journal is not None:
                self.journal.record(item.problem.id, item.index, item.key, result)

        jobs = [
            (self.items[i].problem, self.items[i].program, self.items[i].language) for i in todo
        ]
        grade_all(
            grader,
            jobs,
            on_result=lambda n, result: record(todo[n], result),
            progress=progress,
            total=len(self.items),
            counts=initial,
        )

    def stop_message(self, reason: str, output: str | None) -> str:
        """One line: why the run stopped, how much was graded and kept, and how to go on."""
        total = len(self.results)
        journal = self.journal
        if journal is not None:
            journal.close()  # results finishing from now on are not kept
        # What the journal holds: results that finished after it was closed are not kept.
        kept = self.resumed + journal.written if journal is not None else None
        done = kept if kept is not None else sum(r is not None for r in self.results)
        if output:
            return (
                f"{reason}: {done} of {total} programs graded, kept in {journal_path(output)}; "
                f"no result was written. Rerun the same command with --resume to grade the "
                f"other {total - done}."
            )
        return (
            f"{reason}: {done} of {total} programs graded; nothing was written "
            "(give --output to keep progress across interruptions)."
        )

    # --- the end ---------------------------------------------------------------------------------

    def finish(self, label: str) -> Finished:
        """The finished run: eval_all rows and the summary (every item must be graded).
        ``label`` names the run (a model's name; the report's title). A k that the samples
        cannot serve (fewer samples than k) is warned about through ``say``."""
        if any(r is None for r in self.results):
            raise RuntimeError("finish() before every program was graded")
        final: list[GradeResult] = self.results  # type: ignore[assignment]
        sizes = [len(self.samples[p.id].codes) for p in self.graded]
        for line in k_warnings(sizes, self.ks):
            self.say(f"warning: {line}")
        rows = per_problem(self.graded, self.samples, self.items, sizes, final)
        summary = summarize(rows, self.ks)
        summary.update(
            problems_without_samples=self.missing,
            unknown_sample_ids=self.unknown,
            samples_outside_selection=len(self.outside),
            samples_format=self.kind,
            languages=dict(Counter(item.language_name for item in self.items)),
            seed=self.seed,
            resumed=self.resumed,
            options=self.journal_options,
            grader_version=grader_version(),
            provenance=self._provenance(label),
        )
        if self.bad_problems:
            summary["bad_problems"] = [
                {"id": b.problem_id, "samples": len(self.samples[b.problem_id].codes)
                 if b.problem_id in self.samples else 0, "error": str(b.error)}
                for b in self.bad_problems
            ]  # fmt: skip
        if self.selection is not None:
            summary["selection"] = self.selection.describe()
        return Finished(
            self.kind, self.samples_path, self.problems, self.items, final, rows, summary, label
        )

    def _provenance(self, label: str) -> dict[str, Any]:
        """Where the run comes from, as pytest-html lists a test run's environment: its
        label, date, command line, input files with their hashes, grader, Python and
        platform; the working directory its relative paths are relative to; the grader's
        commit when it runs from a git checkout. The results file is added as it is written
        (:func:`~evaluator.runner.outputs.write_outputs`)."""
        return {
            "label": label,
            "date": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
            "command": self.command,
            "cwd": os.getcwd(),
            "problems": [describe_file(path) for path in self.problem_files],
            "samples": describe_file(self.samples_path),
            "grader": grader_version(),
            **grader_source(),
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "platform": platform.platform(),
            "toolchains": self._toolchains(),
        }

    def _toolchains(self) -> dict[str, dict[str, Any]]:
        """Per language of the programs graded: its compiler's or interpreter's version and,
        for a compiled one, the build flags its programs were built with (the options', else
        each problem's own, else the language's defaults; the grader adds only its own
        thread-stack unit and a precompiled header, which change no build's result), each
        flag set with its number of programs."""
        found: dict[str, dict[str, Any]] = {}
        for item in self.items:
            language = item.language
            if language is None or item.program is None:
                continue
            entry = found.get(language.name)
            if entry is None:
                try:
                    toolchain = language.version()
                except (OSError, subprocess.SubprocessError) as exc:
                    toolchain = f"unknown ({exc})"
                entry = found[language.name] = {"version": toolchain, "flags": Counter()}
            if language.compiled:
                try:
                    flags = self.options.flags_for(language, item.problem)
                except ValueError:  # that program's result is an ERROR saying why
                    continue
                entry["flags"][shlex.join(flags)] += 1
        return {
            name: {"version": e["version"], **({"flags": dict(e["flags"])} if e["flags"] else {})}
            for name, e in sorted(found.items())
        }


def grade_all(
    grader: ProgramGrader,
    jobs: Iterable[tuple[Problem, str | None] | tuple[Problem, str | None, Language | str | None]],
    *,
    on_result: Callable[[int, GradeResult], None] | None = None,
    progress: bool = True,
    total: int | None = None,
    counts: Counter[str] | None = None,
    unit: str = "prog",
) -> list[GradeResult]:
    """Grade ``jobs`` (``(problem, code)`` or ``(problem, code, language)``) in parallel over ``grader``, with a progress bar on stderr counting
    verdicts; results in input order. ``on_result(n, result)`` is called for the n-th job
    as it finishes (from a grader thread, one call at a time).

    At most two programs per worker are queued at a time, so an interruption only waits for
    those (a closing pool finishes what it was given). The first exception a result raises
    (the machinery failed) stops submitting and is raised here once the queued ones end.
    """
    from tqdm import tqdm

    jobs = list(jobs)
    results: list[GradeResult | None] = [None] * len(jobs)
    counts = Counter(counts or {})
    lock = threading.Condition()
    window = threading.Semaphore(max(2, 2 * grader.capacity))
    state: dict[str, Any] = {"finished": 0, "error": None}
    total = len(jobs) if total is None else total
    bar = tqdm(
        total=total,
        initial=total - len(jobs),
        unit=unit,
        disable=not progress,
        file=sys.stderr,
        dynamic_ncols=True,
    )

    def done(n: int, future: Future[GradeResult]) -> None:
        try:
            result = future.result()
            with lock:
                results[n] = result
                if on_result is not None:
                    on_result(n, result)
                counts[str(result.verdict)] += 1
                bar.set_postfix_str(" ".join(f"{v}={counts[v]}" for v in counts), refresh=False)
                bar.update()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            with lock:
                state["error"] = state["error"] or exc
        finally:
            window.release()
            with lock:
                state["finished"] += 1
                lock.notify_all()

    with bar:
        submitted = 0
        for n, job in enumerate(jobs):
            while not window.acquire(timeout=0.5):
                pass
            if state["error"] is not None:
                window.release()
                break
            future = grader.submit(*job)
            submitted += 1
            future.add_done_callback(lambda f, n=n: done(n, f))
        with lock:
            while state["finished"] < submitted:
                lock.wait(timeout=0.5)
    if state["error"] is not None:
        raise state["error"]
    return results  # type: ignore[return-value]


def _placeholders(bad: Sequence[BadProblem], samples: dict[str, Samples]) -> list[Problem]:
    """Problems standing in for the undecodable ones whose samples are graded as ERROR."""
    return [
        Problem(b.problem_id, Harness.STDIN, [], metadata=dict(b.metadata))
        for b in bad
        if b.problem_id is not None and b.problem_id in samples
    ]


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


def sample_program(
    problem: Problem, samples: Samples, text: str, stated: str | Language | None = None
) -> tuple[str | None, Language | str]:
    """What runs for one sample and its language, resolved once here: its code (extracted
    from a raw answer, whose fence may name the language), wrapped for assertion problems
    when it is Python; None when the answer holds no code. ``stated``: the language the
    samples (or the run) name, over the fence's. The language is its
    :class:`~evaluator.languages.Language`, or the stated name (text) of one not graded here."""
    program = resolve_program(text, stated, extract=samples.raw)
    code, language = program.code, program.language
    if language is None:  # a problem's own language not graded here: UNSUPPORTED, nothing runs
        return code, str(stated).strip().lower()
    if code is None:
        return None, language
    if problem.harness is Harness.ASSERTION and language.name == DEFAULT_LANGUAGE:
        return assertion.program(problem, code, samples.continues_prompt), language
    return code, language
