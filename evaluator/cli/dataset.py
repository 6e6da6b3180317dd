"""``mcevaluate dataset``: build, check and filter problem sets (see evaluator/datasets/).

Examples::

    mcevaluate dataset convert --from taco taco_train.parquet taco.jsonl
    mcevaluate dataset convert --from codeforces cf.parquet cf.jsonl --tests cf_tests/
    mcevaluate dataset convert --from leetcode v0.3.1-test.jsonl.gz lcd.jsonl
    mcevaluate dataset convert --from humaneval HumanEval.jsonl.gz he.jsonl
    mcevaluate dataset convert --from debugbench debugbench/ db.jsonl \\
        --tests v0.2.0-train.jsonl.gz --correct-out oracle.jsonl --wrong-out buggy.jsonl
    mcevaluate dataset check lcd.jsonl --report report.json --clean clean.jsonl --calibrate
    mcevaluate dataset strength db.jsonl --correct oracle.jsonl --wrong buggy.jsonl
    mcevaluate dataset filter lcd.jsonl out.jsonl --results results.json --after 2024-08-01
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from typing import Any

import click

from evaluator.cli.options import shipped_with
from evaluator.datasets.check import (
    DEFAULT_FLOOR,
    DEFAULT_MULTIPLIER,
    REFERENCE_TIME_LIMIT,
    check_entries,
    strength,
)
from evaluator.datasets.convert import (
    Skipped,
    debugbench_pairs,
    evalplus_to_lcb,
    leetcode_to_lcb,
    read_debugbench,
    read_leetcode,
)
from evaluator.datasets.entries import (
    RecordWriter,
    convert_entries,
    iter_entries,
    read_entries,
    set_time_limit,
    to_format,
    write_records,
)
from evaluator.datasets.filter import filter_entries, parse_mix
from evaluator.formats import InputError, read_problems, read_samples
from evaluator.judges.generated import CheckerTargetError, attach_checkers, load_checkers
from evaluator.languages import runtimes
from evaluator.problem import DEFAULT_TIME_LIMIT
from evaluator.sandbox import SandboxPool
from evaluator.summary import pct

__all__ = ["dataset"]


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _load(path: str, format: str | None = None):
    try:
        return read_entries(path, format=format)
    except (InputError, ValueError) as exc:
        _fail(str(exc))


FORMAT_OPTION = click.option(
    "--format",
    "problem_format",
    help="Read PROBLEMS as this format instead of detecting it (`mcevaluate formats`).",
)


def _samples(path: str | None):
    if path is None:
        return None
    try:
        return read_samples(path)
    except InputError as exc:
        _fail(str(exc))


def _pct(value: float | None) -> str:
    """A share (0..1) as every table shows a percentage (:func:`evaluator.summary.pct`)."""
    return pct(None if value is None else 100 * value)


@click.group()
def dataset() -> None:
    """Build, check and filter problem sets (convert, check, strength, filter)."""


_RUNNING_CONVERTERS = ("leetcode", "humaneval", "debugbench")


def _source(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if value in _RUNNING_CONVERTERS:
        return value
    from evaluator.formats import get_format

    try:
        return get_format(value).name
    except ValueError as exc:
        raise click.BadParameter(f"{exc}; or one of {', '.join(_RUNNING_CONVERTERS)}") from None


@dataset.command()
@click.option(
    "--from",
    "source",
    callback=_source,
    required=True,
    help="Any problem format (`mcevaluate formats`: taco, apps, codecontests, deepcoder, "
    "primeintellect, kodcode, codeforces, mbpp, ...): read as it ships and written in --to's "
    "format, one record at a time. Or, converters that run code: leetcode (LeetCodeDataset "
    "JSONL(.gz)); humaneval (HumanEval/HumanEval+/MBPP+, outputs computed by running the "
    "canonical solution); debugbench (DebugBench's folder, joined by slug with --tests).",
)
@click.argument("source_path", type=click.Path(exists=True))
@click.argument("output", type=click.Path())
@click.option(
    "--to",
    "target",
    type=click.Choice(["ours", "lcb"]),
    default="ours",
    show_default=True,
    help="Output format of a --from format (the running converters write lcb).",
)
@click.option(
    "--tests",
    type=click.Path(exists=True),
    help="debugbench: LeetCodeDataset file; codeforces: the folder of generated tests.",
)
@click.option("--correct-out", type=click.Path(), help="debugbench: oracle samples out.")
@click.option("--wrong-out", type=click.Path(), help="debugbench: buggy samples out.")
@click.option("--limit", type=int, help="Convert at most this many problems (pairs).")
@click.option("--workers", type=int, default=2, show_default=True)
def convert(
    source, source_path, output, target, tests, correct_out, wrong_out, limit, workers
) -> None:
    """Convert SOURCE_PATH into problem records (JSONL) at OUTPUT.

    A format of the registry is read as it ships, each problem by its source's rule (judge,
    limits, file I/O), and written as our records (or LiveCodeBench's) carrying the
    statement and a reference solution; it streams, so files of gigabytes convert in
    bounded memory. The running converters write LiveCodeBench records with
    `reference_solution` and `source`. Skipped problems are listed with their reason.
    """
    if source not in _RUNNING_CONVERTERS:
        _convert_format(source, source_path, output, target, tests, limit)
        return
    skipped: dict[str, str] = {}
    if source == "humaneval":
        try:
            problems = read_problems(source_path)
        except InputError as exc:
            _fail(str(exc))
        problems = problems[:limit] if limit else problems
        with SandboxPool(workers=workers, runtimes=runtimes()) as pool:
            records, skipped = evalplus_to_lcb(problems, pool)
    else:
        lcd_path = source_path if source == "leetcode" else tests
        if lcd_path is None:
            _fail("--from debugbench needs --tests (a LeetCodeDataset file)")
        records = []
        by_slug: dict[str, dict[str, Any]] = {}
        for raw in read_leetcode(lcd_path):
            try:
                record = leetcode_to_lcb(raw, source=f"LeetCodeDataset:{lcd_path}")
            except Skipped as exc:
                skipped[str(raw.get("task_id"))] = str(exc)
                continue
            by_slug[record["question_id"]] = record
        if source == "leetcode":
            records = list(by_slug.values())[:limit] if limit else list(by_slug.values())
        else:
            pairs = list(debugbench_pairs(read_debugbench(source_path), set(by_slug)))
            pairs = pairs[:limit] if limit else pairs
            oracle: dict[str, list[str]] = defaultdict(list)
            buggy: dict[str, list[str]] = defaultdict(list)
            for pair in pairs:
                oracle[pair.slug].append(pair.oracle)
                buggy[pair.slug].append(pair.buggy)
            records = [by_slug[slug] for slug in oracle]
            for path, codes in ((correct_out, oracle), (wrong_out, buggy)):
                if path:
                    write_records(
                        path, [{"question_id": s, "code_list": c} for s, c in codes.items()]
                    )
            click.echo(f"{len(pairs)} DebugBench pairs over {len(records)} problems")
    write_records(output, records)
    click.echo(f"wrote {len(records)} problems to {output}; skipped {len(skipped)}")
    for reason, n in Counter(skipped.values()).most_common(10):
        click.echo(f"  {n:5d}  {reason}")


def _convert_format(
    source: str, path: str, output: str, target: str, tests: str | None, limit: int | None
) -> None:
    skipped: dict[str, str] = {}
    try:
        with RecordWriter(output) as writer:
            entries = iter_entries(path, format=source)
            for entry, record, why in convert_entries(entries, target, tests):
                if record is None:
                    skipped[entry.id] = why
                    continue
                writer.write(record)
                if limit is not None and writer.count >= limit:
                    break
    except InputError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or output}: {exc.strerror or exc}")
    click.echo(f"wrote {writer.count} problems to {output}; skipped {len(skipped)}")
    for problem_id, reason in list(skipped.items())[:10]:
        click.echo(f"  {problem_id}: {reason[:160]}")


@dataset.command()
@click.argument("problems", type=click.Path(exists=True))
@click.option("--solutions", type=click.Path(exists=True), help="Reference solutions (samples).")
@click.option("--wrong", type=click.Path(exists=True), help="Known-wrong solutions (samples).")
@click.option("--report", type=click.Path(), required=True, help="JSON report out.")
@click.option("--clean", type=click.Path(), help="Problems that passed the checks, JSONL.")
@click.option("--calibrate", is_flag=True, help="Write time_limit into the cleaned problems.")
@click.option("--floor", type=float, default=DEFAULT_FLOOR, show_default=True, help="Seconds.")
@click.option("--multiplier", type=float, default=DEFAULT_MULTIPLIER, show_default=True)
@click.option(
    "--time-limit",
    type=float,
    default=REFERENCE_TIME_LIMIT,
    show_default=True,
    help="CPU seconds per test given to solutions while checking.",
)
@click.option("--drop-weak", is_flag=True, help="Remove problems a known-wrong solution passes.")
@click.option(
    "--checkers",
    "show_checkers",
    is_flag=True,
    help="Report which problems need a special judge and why (the statement says many "
    "answers are right, or the references disagree), and how many have one.",
)
@click.option(
    "--checker-file",
    type=click.Path(exists=True, dir_okay=False),
    help='Checkers made elsewhere, one per problem (JSONL {"id", "check"}: the file '
    "`grade --checkers` takes): each judges its problem here and is validated as ScaleBox "
    "validates generated judges (every reference accepted, empty output rejected).",
)
@click.option(
    "--unchecked",
    type=click.Choice(["keep", "flag", "drop"]),
    default="keep",
    show_default=True,
    help="What --clean does with a problem that needs a checker and has none: keep it as it "
    "is, flag it (needs_checker: true in its record; the reward counts its wrong answers), "
    "or drop it.",
)
@click.option("--workers", type=int, default=2, show_default=True)
@FORMAT_OPTION
def check(
    problems,
    solutions,
    wrong,
    report,
    clean,
    calibrate,
    floor,
    multiplier,
    time_limit,
    drop_weak,
    show_checkers,
    checker_file,
    unchecked,
    workers,
    problem_format,
) -> None:
    """Check PROBLEMS: decodable non-empty tests, no contradictory tests, references pass
    (the source's own, such as TACO's and CodeContests' solutions, and --solutions), known-wrong
    solutions fail (CodeContests' incorrect_solutions, --wrong); measure reference CPU time
    per test; find the problems that need a checker (--checkers, --unchecked)."""
    entries = _load(problems, problem_format)
    generated = _attach_checker_file(entries, checker_file) if checker_file else set()
    with SandboxPool(workers=workers, runtimes=runtimes()) as pool:
        checks = check_entries(
            entries,
            pool,
            solutions=_samples(solutions),
            wrong=_samples(wrong),
            time_limit=time_limit,
            calibrate=calibrate,
            floor=floor,
            multiplier=multiplier,
            drop_weak=drop_weak,
            progress=sys.stderr.isatty(),
            checker_dir=shipped_with(problems),
            generated=generated,
        )
    removed = [c for c in checks if c.removed]
    reasons = Counter(c.reasons[0].split(" (")[0].split(":")[0] for c in removed)
    summary = {
        "problems": len(checks),
        "kept": len(checks) - len(removed),
        "removed": len(removed),
        "removed_by_reason": dict(reasons.most_common()),
        "warnings": sum(bool(c.warnings) for c in checks),
        "calibration": {"floor": floor, "multiplier": multiplier} if calibrate else None,
        "checkers": {
            "need": sum(c.needs_checker is not None for c in checks),
            "have": sum(c.has_checker for c in checks),
            "unchecked": sum(c.unchecked for c in checks),
            "generated": sum(c.generated_checker is not None for c in checks),
            "generated_valid": sum(c.generated_checker == "valid" for c in checks),
        },
    }
    with open(report, "w") as fh:
        json.dump({"summary": summary, "problems": [c.to_dict() for c in checks]}, fh, indent=2)
    if clean:
        kept = []
        for entry, result in zip(entries, checks, strict=True):
            if result.removed or (unchecked == "drop" and result.unchecked):
                continue
            can_limit = result.time_limit is not None and entry.format in ("livecodebench", "ours")
            record = set_time_limit(entry, result.time_limit) if can_limit else entry.record
            if unchecked == "flag" and result.unchecked:
                record = {**record, "needs_checker": True}
            kept.append(record)
        write_records(clean, kept)
    _print_checks(checks, summary)
    if show_checkers:
        _print_checker_needs(checks, summary["checkers"])


def _attach_checker_file(entries, path: str) -> set[str]:
    """Give each entry's problem its checker from the side file at ``path``; the ids given
    one. A broken file, or a checker for a problem that is not a stdin one, stops here."""
    try:
        checkers = load_checkers(path)
        attached: set[str] = set()
        for entry in entries:
            if entry.problem is not None:
                [entry.problem] = attach_checkers([entry.problem], checkers, attached)
    except (ValueError, OSError, CheckerTargetError) as exc:
        _fail(f"--checker-file: {exc}")
    return attached


def _print_checker_needs(checks, counts) -> None:
    needing = [c for c in checks if c.needs_checker is not None]
    for c in needing[:40]:
        has = "has one" if c.has_checker else "has none"
        click.echo(f"{c.id[:40]:40} needs a checker ({has}): {c.needs_checker[:90]}")
    if len(needing) > 40:
        click.echo(f"... {len(needing) - 40} more in the report")
    for c in checks:
        if c.generated_checker is not None and c.generated_checker != "valid":
            click.echo(f"{c.id[:40]:40} its generated checker is {c.generated_checker[:90]}")
    click.echo(
        f"{counts['need']} of {len(checks)} problems need a checker; "
        f"{counts['have']} have one; {counts['unchecked']} need one and have none"
        + (
            f"; {counts['generated_valid']} of {counts['generated']} generated checkers valid"
            if counts["generated"]
            else ""
        )
    )


def _print_checks(checks, summary) -> None:
    header = f"{'problem':40} {'tests':>6} {'dup':>4} {'contra':>6} {'refs':>6} {'wrong':>7} "
    click.echo(header + f"{'cpu max':>8} {'limit':>6}  status")
    shown = [c for c in checks if c.removed or c.warnings][:40] or checks[:20]
    for c in shown:
        refs = f"{c.references_passed}/{c.references}"
        wrong = f"{c.wrong_rejected}/{c.wrong}" if c.wrong else "-"
        cpu = "-" if c.ref_cpu_max is None else f"{c.ref_cpu_max:.3f}"
        limit = "-" if c.time_limit is None else f"{c.time_limit:g}"
        status = ("removed: " + c.reasons[0]) if c.removed else ("; ".join(c.warnings) or "ok")
        click.echo(
            f"{c.id[:40]:40} {c.tests:6d} {c.duplicates:4d} {c.contradictory:6d} {refs:>6} "
            f"{wrong:>7} {cpu:>8} {limit:>6}  {status[:70]}"
        )
    if len(shown) < len(checks):
        click.echo(f"... {len(checks) - len(shown)} more in the report")
    click.echo(
        f"{summary['problems']} problems: {summary['kept']} kept, {summary['removed']} removed "
        f"{summary['removed_by_reason'] or ''}, {summary['warnings']} with warnings"
    )


@dataset.command(name="strength")
@click.argument("problems", type=click.Path(exists=True))
@click.option("--correct", type=click.Path(exists=True), required=True, help="Samples file.")
@click.option("--wrong", type=click.Path(exists=True), required=True, help="Samples file.")
@click.option("--report", type=click.Path(), help="JSON report out.")
@click.option("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, show_default=True)
@click.option("--workers", type=int, default=2, show_default=True)
@FORMAT_OPTION
def strength_command(problems, correct, wrong, report, time_limit, workers, problem_format) -> None:
    """Test strength: how often the tests accept CORRECT and reject WRONG solutions."""
    entries = _load(problems, problem_format)
    with SandboxPool(workers=workers, runtimes=runtimes()) as pool:
        data = strength(
            entries,
            pool,
            _samples(correct),
            _samples(wrong),
            time_limit=time_limit,
            progress=sys.stderr.isatty(),
            checker_dir=shipped_with(problems),
        )
    if report:
        with open(report, "w") as fh:
            json.dump(data, fh, indent=2)
    click.echo(f"{'problem':50} {'accepted':>9} {'caught':>9}")
    for row in data["per_problem"][:40]:
        click.echo(
            f"{row['id'][:50]:50} {row['accepted']:>4}/{row['correct']:<4} "
            f"{row['caught']:>4}/{row['wrong']:<4}"
        )
    click.echo(
        f"{data['problems']} problems, {data['correct']} correct and {data['wrong']} wrong "
        f"solutions: accept rate {_pct(data['accept_rate']['micro'])} "
        f"(per-problem mean {_pct(data['accept_rate']['macro'])}), catch rate "
        f"{_pct(data['catch_rate']['micro'])} (per-problem mean "
        f"{_pct(data['catch_rate']['macro'])}); caught by {data['caught_by_verdict']}"
    )


def _iso_date(ctx, param, value):
    if value is None:
        return None
    import datetime

    try:
        return datetime.date.fromisoformat(value).isoformat()
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a YYYY-MM-DD date") from None


@dataset.command(name="filter")
@click.argument("problems", type=click.Path(exists=True))
@click.argument("output", type=click.Path())
@click.option("--results", type=click.Path(exists=True), help="`mcevaluate grade --output` JSON.")
@click.option("--after", callback=_iso_date, help="Keep problems dated on/after YYYY-MM-DD.")
@click.option("--before", callback=_iso_date, help="Keep problems dated before YYYY-MM-DD.")
@click.option("--platform", "platforms", multiple=True, help="Keep this platform (repeatable).")
@click.option("--dedup", is_flag=True, help="Drop problems whose normalised statement repeats.")
@click.option("--mix", help="Difficulty mix, e.g. easy=0.2,medium=0.5,hard=0.3.")
@click.option("--count", type=int, help="Number of problems to keep (with --mix or alone).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--to", "target", type=click.Choice(["lcb", "ours"]), help="Output format.")
@click.option("--dropped", type=click.Path(), help="JSON {id: reason} of dropped problems.")
@FORMAT_OPTION
def filter_command(
    problems,
    output,
    results,
    after,
    before,
    platforms,
    dedup,
    mix,
    count,
    seed,
    target,
    dropped,
    problem_format,
) -> None:
    """Filter PROBLEMS into OUTPUT (JSONL) by pass rate, date, platform, statement and mix."""
    entries = _load(problems, problem_format)
    bad = [e for e in entries if e.problem is None]
    if bad:
        _fail(f"{bad[0].error} (run `mcevaluate dataset check` to clean the set)")
    rows = None
    if results:
        with open(results) as fh:
            rows = json.load(fh)
        if not isinstance(rows, list):
            _fail(f"{results}: expected the JSON list written by `mcevaluate grade --output`")
    try:
        mix_shares = parse_mix(mix) if mix else None
    except ValueError as exc:
        _fail(f"--mix: {exc}")
    kept, why = filter_entries(
        entries,
        results=rows,
        after=after,
        before=before,
        platforms=platforms,
        dedup=dedup,
        mix=mix_shares,
        count=count,
        seed=seed,
    )
    out = []
    for entry in kept:
        try:
            out.append(to_format(entry, target) if target else entry.record)
        except ValueError as exc:
            why[entry.id] = f"cannot convert: {exc}"
    write_records(output, out)
    if dropped:
        with open(dropped, "w") as fh:
            json.dump(why, fh, indent=2)
    click.echo(f"kept {len(out)} of {len(entries)} problems in {output}")
    kinds = Counter(re.sub(r"\d[\d-]*", "N", r.split(":")[0]) for r in why.values())
    for reason, n in kinds.most_common(10):
        click.echo(f"  {n:5d}  {reason}")
