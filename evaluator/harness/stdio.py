"""stdin/stdout harness (LiveCodeBench ``testtype: "stdin"``): the program runs as
``__main__`` with the test's input on a real fd 0; its stdout is compared by a judge
(:mod:`evaluator.judges.stdout`). A compiled language's program (:mod:`evaluator.languages`)
is its built file, run as ``./solution < input`` (:func:`build_program_job`).

A problem with ``input_file``/``output_file`` runs as a file-mode judge runs it: the test's
input is that file in the program's working directory (stdin empty), and the output file's
bytes are the answer judged (the sandbox puts them in the run's ``stdout``)."""

from __future__ import annotations

from dataclasses import replace

from evaluator.harness.environments import Environment
from evaluator.languages import Build, Language
from evaluator.problem import Problem, Verdict
from evaluator.sandbox import Isolation, Job, Limits, Mode, RunResult

from .outcome import failure
from .tests_job import tests_job


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    return tests_job(
        problem,
        code,
        limits,
        isolation,
        environment,
        Mode.STDIN,
        names=environment.stdin_names,
        input_file=problem.input_file,
        output_file=problem.output_file,
    )


def build_program_job(problem: Problem, build: Build, language: Language, limits: Limits) -> Job:
    """A built program on every test's input, a fresh process per test (a program file runs
    once per input, as a judge runs it); the verdict from its exit status and stdout. A
    runtime that needs more open files than the limits give to start at all (R) gets
    those (:attr:`~evaluator.languages.Language.open_files`)."""
    assert build.ok
    if language.open_files > limits.open_files:
        limits = replace(limits, open_files=language.open_files)
    return Job(
        code="",
        inputs=[t.input for t in problem.tests],
        mode=Mode.STDIN,
        limits=limits,
        isolation=Isolation.TEST,
        executable=build.binary,
        runtime=None if build.binary is not None else language.runtime(),
        program_files=dict(build.files or {}),
        argv=language.argv(build, limits.memory_limit),
        memory_marks=list(language.memory_marks),
        program_environment=language.run_environment(),
        input_file=problem.input_file,
        output_file=problem.output_file,
    )


def file_failure(run: RunResult) -> tuple[Verdict, str] | None:
    """The verdict of a run whose output file could not be read (missing, or not a regular
    file): its own failure (TLE, RE...) if it had one, else a WA saying why; None when the
    file was read (or the problem has none) and its answer should be judged."""
    if run.file_error is None:
        return None
    return failure(run) or (Verdict.WA, run.file_error)
