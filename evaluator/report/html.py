"""The report and comparison pages: one self-contained HTML file each (inline CSS, JS and
SVG; no CDN, no server), rendered with Jinja2 (autoescaped: ids, messages and program output
are the programs' text, never markup).

The per-problem tables are data, not markup: one JSON blob in a ``<script
type="application/json">`` element, rendered a page of rows at a time by a small script, so a
full LiveCodeBench release with 10 samples per problem is a few MB and opens in a second.
Everything else (tables, plots) is rendered here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

from evaluator.report import svg
from evaluator.report.compare import Comparison
from evaluator.report.runs import ProblemRun, Run, Sample
from evaluator.report.tables import (
    GroupRow,
    default_ks,
    group_order,
    pass_table,
    verdict_counts,
    verdict_order,
)

__all__ = ["p_text", "render_comparison", "render_report", "report_data", "script_json"]

_TEMPLATES = Path(__file__).with_name("templates")
PAGE_SIZE = 50  # problem rows per page of the tables
_OPTION_UNITS = {"time_limit": " s CPU per test", "memory_limit": " MB"}


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
    environment.filters.update(pct=_pct, pp=_pp, p=p_text, p_clause=_p_clause)
    return environment


def _pct(value: float | None) -> str:
    """A percentage as the pages show it: ``50.00%``, ``-`` for none."""
    return "-" if value is None else f"{value:.2f}%"


def _pp(value: float) -> str:
    """A difference in percentage points: ``+1.25 pp``."""
    return f"{value:+.2f} pp"


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


def script_json(value: Any) -> Markup:
    """``value`` as JSON that is safe inside a ``<script>`` element: ASCII, and ``<``, ``>``
    and ``&`` escaped, so no text in it can close the element or open a comment."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


class _Strings:
    """Interned texts: repeated messages and excerpts are stored once in the page."""

    def __init__(self) -> None:
        self.items: list[str] = [""]
        self._index: dict[str, int] = {"": 0}

    def __call__(self, text: str) -> int:
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self.items)
            self.items.append(text)
        return index


def report_data(run: Run) -> dict[str, Any]:
    """The per-problem data of the report page. Each problem is ``[id, difficulty,
    platform, contest date, month, samples]``; each sample ``[verdict index, passed (0/1),
    fraction of tests passed or null, tests, first failing test (1-based) or 0, message,
    stdout, stderr (string indices), CPU seconds of the slowest test or null, peak memory
    kB or null]``."""
    verdicts = verdict_order(s.verdict for p in run.problems for s in p.samples)
    code = {v: i for i, v in enumerate(verdicts)}
    strings = _Strings()

    def sample(s: Sample) -> list[Any]:
        return [
            code[s.verdict],
            int(s.passed),
            None if s.fraction is None else round(s.fraction, 4),
            s.tests,
            s.failed_test or 0,
            strings(s.message),
            strings(s.stdout),
            strings(s.stderr),
            None if s.cpu_time is None else round(s.cpu_time, 4),
            s.peak_memory_kb,
        ]

    problems = [
        [p.id, p.difficulty, p.platform, p.contest_date, p.month, [sample(s) for s in p.samples]]
        for p in run.problems
    ]
    return {
        "verdicts": verdicts,
        "strings": strings.items,
        "problems": problems,
        "groups": _group_names(run.problems, ("difficulty", "platform", "month")),
        "pageSize": PAGE_SIZE,
    }


def _group_names(problems: Sequence[ProblemRun], attributes: Sequence[str]) -> dict[str, Any]:
    """Per attribute the group names of ``problems``, in table order (the filters' options)."""
    return {name: group_order(name, {getattr(p, name) for p in problems}) for name in attributes}


def _provenance(run: Run) -> list[tuple[str, str]]:
    """``(what, value)`` rows: where the results come from and how they were graded."""
    rows = [("results", run.label), ("format", run.kind)]
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
        "grader version": summary.get("grader_version"),
        "samples format": summary.get("samples_format"),
        "seed": summary.get("seed"),
        "results reused from a journal": summary.get("resumed"),
        "problems without samples": summary.get("problems_without_samples"),
        "undecodable problems (ERROR)": len(bad) if isinstance(bad, list) and bad else None,
    }
    for name, value in (run.options or {}).items():
        unit = _OPTION_UNITS.get(name, "")
        described[name.replace("_", " ")] = f"{value}{unit}" if value is not None else None
    for name, value in described.items():
        if value is not None and value != []:
            text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            rows.append((name, text))
    return rows


def _limit(run: Run, name: str) -> float | None:
    value = (run.options or {}).get(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _pass_plot(rows: Sequence[GroupRow], metric: str, title: str) -> Markup:
    return svg.bars([(r.name, r.rates.get(metric)) for r in rows], title=title, scale=100.0)


def render_report(run: Run, ks: Sequence[int] | None = None) -> str:
    """The report page of ``run``: provenance, pass@k tables and plots, verdicts, resources,
    and the per-problem table; pass@k for ``ks`` (default: the summary's, else 1)."""
    ks = list(ks or default_ks(run))
    table = pass_table(run, ks)
    metric = f"pass@{ks[0]}"
    counts = verdict_counts(run)
    total = sum(counts.values())
    time_limit, memory_limit = _limit(run, "time_limit"), _limit(run, "memory_limit")
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
            verdicts=[(v, n, f"{100 * n / total:.1f}%") for v, n in counts.items()],
            verdict_plot=svg.bars(
                list(counts.items()),
                title="samples by verdict",
                fmt=lambda v: f"{v:.0f}",
                classes=[f"v-{v}" for v in counts],
            ),
            cpu_plot=svg.histogram(
                run.cpu_times, title="CPU time per test", unit="s", limit=time_limit
            ),
            memory_plot=svg.histogram(
                [kb / 1024 for kb in run.memory_kb],
                title="peak memory per test",
                unit="MB",
                limit=memory_limit,
            ),
            tests_measured=len(run.cpu_times),
            time_limit=time_limit,
            memory_limit=memory_limit,
            provenance=_provenance(run),
            data=script_json(report_data(run)),
            css=_static("page.css"),
            table_js=_static("table.js"),
            page_js=_static("report.js"),
        )
    )


def comparison_data(comparison: Comparison) -> dict[str, Any]:
    """The per-problem data of the comparison page: ``[id, difficulty, platform, A's
    passing samples, A's samples, B's passing samples, B's samples]`` per problem."""
    return {
        "problems": [
            [a.id, a.difficulty, a.platform, sum(a.graded), len(a.samples)]
            + [sum(b.graded), len(b.samples)]
            for a, b in comparison.pairs
        ],
        "groups": _group_names([a for a, _ in comparison.pairs], ("difficulty", "platform")),
        "pageSize": PAGE_SIZE,
    }


def _samples_text(run: Run) -> str:
    """``40 (10 per problem)`` or ``38 (1-10 per problem)``."""
    sizes = [len(p.samples) for p in run.problems]
    low, high = min(sizes), max(sizes)
    each = str(low) if low == high else f"{low}-{high}"
    return f"{sum(sizes)} ({each} per problem)"


def render_comparison(comparison: Comparison) -> str:
    """The comparison page: both runs, the paired table with intervals and p-values, plots,
    the problems one run solves and the other does not, and the per-problem table."""
    groups = comparison.groups
    sections = {
        section: [g for g in groups if g.section == section]
        for section in ("all", "difficulty", "platform")
    }
    plotted = [*sections["all"], *sections["difficulty"]]
    labels = [g.name for g in plotted]
    page = _environment().get_template("compare.html.j2")
    return _utf8(
        page.render(
            c=comparison,
            overall=groups[0],
            table_sections=[(name, rows) for name, rows in sections.items() if rows],
            runs=[("A", comparison.a), ("B", comparison.b)],
            run_samples={"A": _samples_text(comparison.a), "B": _samples_text(comparison.b)},
            forest_plot=svg.forest(
                [(g.name, g.diff, g.ci_low, g.ci_high) for g in plotted],
                title="B - A pass@1 with its interval",
            ),
            pass_plot=svg.grouped_bars(
                labels,
                [("A", [g.a_pass1 for g in plotted]), ("B", [g.b_pass1 for g in plotted])],
                title="pass@1 of A and B",
            ),
            data=script_json(comparison_data(comparison)),
            css=_static("page.css"),
            table_js=_static("table.js"),
            page_js=_static("compare.js"),
        )
    )
