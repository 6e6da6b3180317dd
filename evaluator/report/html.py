"""The report and comparison pages: one self-contained HTML file each (inline CSS, JS and
SVG; no CDN, no server), rendered with Jinja2 (autoescaped: ids, messages and program output
are the programs' text, never markup).

The per-problem tables are data (:mod:`.pagedata`): one JSON blob, rendered a page of rows at
a time by a small script, so a full LiveCodeBench release with 10 samples per problem opens in
a second; their first page is also rendered here, so that the page reads without
JavaScript. Everything else (tables, plots) is rendered here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

from evaluator.report import svg
from evaluator.report.code import PROGRAM_CAP
from evaluator.report.compare import Comparison
from evaluator.report.pagedata import (
    PAGE_SIZE,
    comparison_data,
    date_range,
    first_pairs,
    first_problems,
    report_data,
    script_json,
)
from evaluator.report.runs import ProblemRun, Run
from evaluator.report.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from evaluator.report.tables import (
    SECTIONS,
    SMALL_GROUP,
    GroupRow,
    default_ks,
    pass_table,
    verdict_counts,
)
from evaluator.report.words import limit_endings, limits_text, option_rows, size_text
from evaluator.summary import k_warnings, pass_rates, pct

__all__ = [
    "PAGE_SIZE",
    "p_text",
    "render_comparison",
    "render_report",
    "report_data",
    "script_json",
]

_TEMPLATES = Path(__file__).with_name("templates")
_TIME_UNIT, _MEMORY_UNIT = "s CPU per test", "MB"


@cache
def _environment() -> Any:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(
        pct=pct,
        pp=_pp,
        p=p_text,
        p_clause=_p_clause,
        interval=_interval_text,
        verdict_class=verdict_class,
    )
    return environment


def verdict_class(verdict: str) -> str:
    """The CSS class of a verdict's chip (``verdictClass`` in table.js): ``v-`` and the
    verdict, any character outside ``[A-Za-z0-9_-]`` as ``_``."""
    return "v-" + re.sub(r"[^A-Za-z0-9_-]", "_", verdict)


def _pp(value: float) -> str:
    """A difference in percentage points, with :func:`~evaluator.summary.pct`'s one decimal:
    ``+1.3 pp``."""
    return f"{value:+.1f} pp"


def _interval_text(interval: tuple[float, float] | None) -> str:
    """``31.3% to 68.8%``; ``-`` for none (fewer than two problems)."""
    return "-" if interval is None else f"{pct(interval[0])} to {pct(interval[1])}"


def p_text(value: float) -> str:
    """A p-value: three significant digits, ``< 0.0001`` below that."""
    return "< 0.0001" if value < 1e-4 else f"{value:.3g}"


def _p_clause(value: float) -> str:
    """``p = 0.0226``, ``p < 0.0001``."""
    text = p_text(value)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


@cache
def _static(name: str) -> Markup:
    """A CSS or JS file of the templates folder, inlined as is (our own code)."""
    return Markup((_TEMPLATES / name).read_text(encoding="utf-8"))


def _utf8(page: str) -> str:
    """``page`` as text UTF-8 can encode: lone surrogates (undecodable bytes in a program's
    output, ``"\\ud800"`` escapes in a results file) written as their ``\\udXXX`` escapes."""
    return page.encode("utf-8", "backslashreplace").decode("utf-8")


def _file_text(entry: Any) -> str:
    """A file of the provenance: ``path (absolute path /x/path; 12,345 bytes, sha256
    ab12...)``, the absolute path where it differs from the path as given."""
    if not isinstance(entry, Mapping):
        return str(entry)
    path = str(entry.get("path", "?"))
    where, facts = [], []
    absolute = entry.get("absolute")
    if isinstance(absolute, str) and absolute and absolute != path:
        where.append(f"absolute path {absolute}")
    if isinstance(entry.get("bytes"), int):
        facts.append(size_text(entry["bytes"]))
    if entry.get("sha256"):
        facts.append(f"sha256 {entry['sha256']}")
    details = "; ".join([*where, ", ".join(facts)] if facts else where)
    return f"{path} ({details})" if details else path


def _results_rows(run: Run, recorded: Any) -> list[tuple[str, str]]:
    """The results file as given, then with its absolute path, size and hash: as read (hashed
    now), else as the summary recorded it when it was written beside it; and whether the
    file read is that one, byte for byte (the summary was checked to describe these results:
    the same problems and passes, in any order)."""
    recorded = recorded if isinstance(recorded, Mapping) else None
    rows = [("results", run.label)]
    shown = run.results_file or recorded
    if shown and shown.get("sha256"):
        rows.append(("results file", _file_text({**shown, "path": run.label})))
    if run.results_file and recorded and recorded.get("sha256"):
        if recorded["sha256"] == run.results_file.get("sha256"):
            check = "this file (the same sha256)"
        else:
            check = (
                f"not this file byte for byte: {_file_text(recorded)}; the same results (the "
                f"summary's results digest matches), written again since"
            )
        rows.append(("summary's results file", check))
    return rows


def _grader_commit(provenance: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The grader's commit when it ran from a git checkout, and whether its package had
    changes not committed (unknown without a git program)."""
    commit = provenance.get("grader_commit")
    if not commit:
        return []
    dirty = provenance.get("grader_dirty")
    state = {
        True: "with uncommitted changes to the evaluator package",
        False: "no uncommitted changes",
    }.get(dirty, "uncommitted changes unknown: no git program")
    return [("grader commit", f"{commit} ({state})")]


def _origin_rows(run: Run) -> list[tuple[str, str]]:
    """Where the run comes from: its label, date and command, the working directory, its
    input files and results file with their hashes, the grader (version and commit),
    Python and platform (as pytest-html lists a run's environment)."""
    provenance = run.provenance or {}
    rows = [("label", run.title)] if run.title != run.label else []
    rows += _results_rows(run, provenance.get("results"))
    rows.append(("format", run.kind))
    rows += [(name, str(provenance[name])) for name in ("date", "command") if provenance.get(name)]
    if provenance.get("cwd"):
        rows.append(("working directory", str(provenance["cwd"])))
    problems = provenance.get("problems")
    rows += [("problems", _file_text(e)) for e in (problems if isinstance(problems, list) else [])]
    if provenance.get("samples"):
        rows.append(("samples", _file_text(provenance["samples"])))
    rows += [
        ("grader version", provenance.get("grader") or (run.summary or {}).get("grader_version"))
    ]
    rows += _grader_commit(provenance)
    rows += [(name, provenance.get(name)) for name in ("python", "platform")]
    return [(name, str(value)) for name, value in rows if value] + _toolchain_rows(
        provenance.get("toolchains")
    )


def _toolchain_rows(toolchains: Any) -> list[tuple[str, str]]:
    """Per language graded, its compiler's or interpreter's version and its build flags
    (``cpp``: ``g++ (Debian 12.2.0-14) 12.2.0; flags: -std=c++17 -O2 (12 programs)``)."""
    if not isinstance(toolchains, Mapping):
        return []
    rows = []
    for name, entry in toolchains.items():
        if not isinstance(entry, Mapping):
            continue
        text = str(entry.get("version") or "version not recorded")
        flags = entry.get("flags")
        if isinstance(flags, Mapping) and flags:
            sets = [
                (shown or "(none)") + (f" ({n} program{'s' * (n != 1)})" if len(flags) > 1 else "")
                for shown, n in flags.items()
            ]
            text += "; flags: " + ", ".join(sets)
        rows.append((f"{name} toolchain", text))
    return rows


def _limit_rows(run: Run) -> list[tuple[str, str]]:
    """The limits the problems ran with, from their rows (older results do not say)."""
    if not run.limits_known:
        return []
    times = [p.time_limit or 0.0 for p in run.problems]
    memories = [p.memory_limit or 0.0 for p in run.problems]
    return [
        ("time limit", limits_text(times, _TIME_UNIT)),
        ("memory limit", limits_text(memories, _MEMORY_UNIT)),
    ]


def _provenance(run: Run) -> list[tuple[str, str]]:
    """``(what, value)`` rows, in words: where the results come from, the limits the
    problems ran with and how they were graded."""
    rows = _origin_rows(run) + _limit_rows(run)
    summary = run.summary
    if summary is None:
        rows.append(("options", "unknown: no --summary file given"))
        return rows
    selection = summary.get("selection")
    selection = selection if isinstance(selection, Mapping) else {}
    bad = summary.get("bad_problems")
    described = {
        "release": selection.get("release"),
        "release chosen by": selection.get("release_by"),
        "contest dates from": selection.get("start_date"),
        "contest dates to": selection.get("end_date"),
        "platforms": selection.get("platforms"),
        "difficulties": selection.get("difficulties"),
        "samples format": summary.get("samples_format"),
        "seed": summary.get("seed"),
        "results reused from a journal": summary.get("resumed"),
        "problems without samples": summary.get("problems_without_samples"),
        "undecodable problems (ERROR)": len(bad) if isinstance(bad, list) and bad else None,
    }
    for name, value in described.items():
        if value is not None and value != []:
            text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            rows.append((name, text))
    return rows + option_rows(run.options or {})


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _test_limits(run: Run) -> tuple[list[float | None], list[float | None]]:
    """Each measured test's time and memory limit: its problem's own, else (results that
    do not say) the options' when the summary gives them."""
    if run.limits_known:
        return [t for t, _ in run.test_limits], [m for _, m in run.test_limits]
    options = run.options or {}
    time, memory = _number(options.get("time_limit")), _number(options.get("memory_limit"))
    count = len(run.cpu_times)
    return [time] * count, [memory] * count


def _resource_plots(run: Run) -> dict[str, Any]:
    """The CPU time and memory histograms, each test against its own problem's limits."""
    megabytes = [kb / 1024 for kb in run.memory_kb]
    time_limits, memory_limits = _test_limits(run)
    return {
        "cpu_plot": svg.histogram(
            run.cpu_times, title="CPU time per test", unit="s", limits=time_limits
        ),
        "memory_plot": svg.histogram(
            megabytes, title="peak memory per test", unit="MB", limits=memory_limits
        ),
        "time_limits": sorted({t for t in time_limits if t is not None}),
        "memory_limits": sorted({m for m in memory_limits if m is not None}),
    }


def _pass_plot(rows: Sequence[GroupRow], metric: str, title: str) -> Markup:
    """A breakdown's bars: each group's ``metric``, with its pass@1 interval (the table's)
    when the metric is pass@1, and its ``few`` mark."""
    return svg.bars(
        [(r.name, r.rates.get(metric)) for r in rows],
        title=title,
        scale=100.0,
        intervals=[r.interval for r in rows] if metric == "pass@1" else None,
        few=[r.small for r in rows],
    )


def render_report(run: Run, ks: Sequence[int] | None = None) -> str:
    """The report page of ``run``: provenance, pass@k tables (pass@1 with its interval) and
    plots, verdicts, resources, and the per-problem table with each sample's program and
    failing test; pass@k for ``ks`` (default: the summary's, else 1)."""
    ks = list(ks or default_ks(run))
    table = pass_table(run, ks)
    metric = f"pass@{ks[0]}"
    counts = verdict_counts(run)
    total = sum(counts.values())
    sections = [
        (title, rows, _pass_plot(rows, metric, f"{metric} by {title}"))
        for title, rows in table.items()
        if title != "all" and {r.name for r in rows} != {"unknown"}
    ]
    page = _environment().get_template("report.html.j2")
    return _utf8(
        page.render(
            run=run,
            ks=ks,
            metrics=[f"pass@{k}" for k in ks],
            overall=table["all"][0],
            sections=sections,
            small_group=SMALL_GROUP,
            level=DEFAULT_LEVEL,
            resamples=DEFAULT_RESAMPLES,
            k_warnings=k_warnings([len(p.samples) for p in run.problems], ks),
            verdicts=[(v, n, pct(100 * n / total)) for v, n in counts.items()],
            tle_endings=limit_endings(
                s.limit for p in run.problems for s in p.samples if s.verdict == "TLE"
            ),
            verdict_plot=svg.bars(
                list(counts.items()),
                title="samples by verdict",
                fmt=lambda v: f"{v:.0f}",
                classes=[verdict_class(v) for v in counts],
            ),
            tests_measured=len(run.cpu_times),
            limits_known=run.limits_known,
            **_resource_plots(run),
            provenance=_provenance(run),
            first_page=first_problems(run),
            whole_pass1=pass_rates([p.graded for p in run.problems], [1])["pass@1"],
            dates=date_range(run),
            page_size=PAGE_SIZE,
            program_cap=PROGRAM_CAP,
            data=script_json(report_data(run)),
            css=_static("page.css"),
            table_js=_static("table.js"),
            page_js=_static("report.js"),
        )
    )


def _samples_text(run: Run) -> str:
    """``40 (10 per problem)`` or ``38 (1-10 per problem)``."""
    sizes = [len(p.samples) for p in run.problems]
    low, high = min(sizes), max(sizes)
    each = str(low) if low == high else f"{low}-{high}"
    return f"{sum(sizes)} ({each} per problem)"


def _options_text(run: Run) -> str:
    """A run's grading options in words, for the comparison's table of runs."""
    if run.options is None:
        return "unknown (no --summaries)"
    return "; ".join(f"{name}: {value}" for name, value in option_rows(run.options))


def _comparison_plots(comparison: Comparison) -> list[tuple[str, Markup, Markup | None]]:
    """Per breakdown (difficulty with all problems first, platform, contest month): its
    title, the forest plot of ``B - A`` with its interval and the bars of both runs' pass@1
    with theirs (none by month: two bars for each of a release's 20 or more months make a
    plot several screens tall, the forest plot shows them in one), groups of few problems
    marked."""
    plots: list[tuple[str, Markup, Markup | None]] = []
    for title, _ in SECTIONS:
        groups = [g for g in comparison.groups if g.section == title]
        if not groups or {g.name for g in groups} == {"unknown"}:
            continue
        if title == "difficulty":
            groups = [comparison.overall, *groups]
        few = [g.small for g in groups]
        forest = svg.forest(
            [(g.name, g.diff, g.ci_low, g.ci_high) for g in groups],
            title=f"B - A pass@1 by {title}, with its interval",
            few=few,
        )
        bars = None
        if title != "contest month":
            bars = svg.grouped_bars(
                [g.name for g in groups],
                [("A", [g.a_pass1 for g in groups]), ("B", [g.b_pass1 for g in groups])],
                title=f"pass@1 of A and B by {title}, with their intervals",
                intervals=[[g.a_interval for g in groups], [g.b_interval for g in groups]],
                few=few,
            )
        plots.append((title, forest, bars))
    return plots


def render_comparison(comparison: Comparison, links: Sequence[str | None] = (None, None)) -> str:
    """The comparison page: both runs, the paired table with intervals and p-values, plots,
    the problems one run solves and the other does not, and the per-problem table whose rows
    open to each sample's verdict and message in both runs; ``links`` to each run's report
    page (see :func:`evaluator.report.report_link`), None where there is none."""
    groups = comparison.groups
    sections = {
        section: [g for g in groups if g.section == section]
        for section in ("all", *(title for title, _ in SECTIONS))
    }
    page = _environment().get_template("compare.html.j2")
    runs = [("A", comparison.a), ("B", comparison.b)]
    return _utf8(
        page.render(
            c=comparison,
            overall=groups[0],
            table_sections=[
                (name, rows)
                for name, rows in sections.items()
                if rows and (name != "contest month" or {g.name for g in rows} != {"unknown"})
            ],
            runs=runs,
            run_samples={name: _samples_text(run) for name, run in runs},
            run_options={name: _options_text(run) for name, run in runs},
            run_limits={name: dict(_limit_rows(run)) for name, run in runs},
            provenance=_paired_rows([_provenance(run) for _, run in runs]),
            links=dict(zip(("A", "B"), links, strict=True)),
            plots=_comparison_plots(comparison),
            small_group=SMALL_GROUP,
            solved_alone=_solved_alone(comparison),
            first_page=first_pairs(comparison),
            page_size=PAGE_SIZE,
            data=script_json(comparison_data(comparison, links)),
            css=_static("page.css"),
            table_js=_static("table.js"),
            page_js=_static("compare.js"),
        )
    )


def _paired_rows(runs: Sequence[Sequence[tuple[str, str]]]) -> list[tuple[str, list[str]]]:
    """The provenance rows of several runs side by side: each name (in the order first met)
    with each run's values for it (``-`` where a run has none; a name a run lists several
    times, as its problems files, joined by line)."""
    names: dict[str, None] = {}
    values: list[dict[str, list[str]]] = []
    for rows in runs:
        own: dict[str, list[str]] = {}
        for name, value in rows:
            names.setdefault(name)
            own.setdefault(name, []).append(value)
        values.append(own)
    return [(name, ["\n".join(own.get(name, ["-"])) for own in values]) for name in names]


def _solved_alone(comparison: Comparison) -> list[tuple[str, str, list[ProblemRun]]]:
    """The problems one run solves and the other does not: ``(run, its name, problems)``
    for A and B, each problem as A has it."""
    by_id = {a.id: a for a, _ in comparison.pairs}
    return [
        ("a", "A", [by_id[i] for i in comparison.only_a]),
        ("b", "B", [by_id[i] for i in comparison.only_b]),
    ]
