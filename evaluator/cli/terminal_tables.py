"""The tables ``mcevaluate`` prints: a run's summary and the comparison of two runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from evaluator.runner.run import shown_ids
from evaluator.summary import GROUP_NAME_CAP, pct

if TYPE_CHECKING:
    from evaluator.report import Comparison

__all__ = ["pct", "print_comparison", "print_table", "shown_name"]


def shown_name(name: str, limit: int = GROUP_NAME_CAP) -> str:
    """A name as the terminal shows it: control characters and lone surrogates escaped, so
    that no name can break the table or the output encoding; at most ``limit`` characters."""
    if not (name.isprintable() and name.isascii()):
        name = "".join(
            c if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF else ascii(c)[1:-1]
            for c in name
        )
    return name if len(name) <= limit else name[: limit - 1] + "…"


def print_table(summary: dict[str, Any]) -> None:
    """The summary as a table: all problems, then per difficulty and per platform. A section
    whose problems are all ``unknown`` is left out: its one row would repeat ``all``."""
    metrics = [k for k in summary if k.startswith("pass@")]
    sections = [
        (title, [(shown_name(name), row) for name, row in sorted(summary[key].items())])
        for title, key in (("difficulty", "by_difficulty"), ("platform", "by_platform"))
        if set(summary[key]) != {"unknown"}
    ]
    names = [f"  {name}" for _, rows in sections for name, _ in rows]
    width = max([len(name) for name in names] + [len(title) for title, _ in sections] + [12])
    header = f"{'':{width}}  {'problems':>8}  " + "  ".join(f"{m:>8}" for m in metrics)
    click.echo(header)
    click.echo("-" * len(header))

    def line(name: str, row: dict[str, Any]) -> None:
        values = "  ".join(f"{pct(row[m]):>8}" for m in metrics)
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
            f"sample(s) are ERROR. First: {shown_name(bad[0]['error'], 300)}"
        )


def print_comparison(comparison: Comparison) -> None:
    """A comparison as a table: pass@1 of A and B, B - A with its interval and p-value,
    overall, by difficulty and by platform (by contest month: the page and ``--json``); then
    the problems one run solves alone."""
    from evaluator.report.html import p_text  # loaded with the comparison already

    groups = [g for g in comparison.groups if g.section != "contest month"]
    level = f"{comparison.level:.0%} interval"
    names = [shown_name(g.name) for g in groups]
    width = max([len(n) + 2 for n in names] + [12])
    header = (
        f"{'':{width}}  {'problems':>8}  {'A pass@1':>8}  {'B pass@1':>8}  {'B - A':>9}  "
        f"{level:>18}  {'p':>8}"
    )
    click.echo(f"A: {shown_name(comparison.a.label, 300)}")
    click.echo(f"B: {shown_name(comparison.b.label, 300)}")
    click.echo(header)
    click.echo("-" * len(header))
    section = "all"
    for group, name in zip(groups, names, strict=True):
        if group.section != section:
            section = group.section
            click.echo(section)
        label = name if group.section == "all" else f"  {name}"
        interval = f"[{group.ci_low:+.1f}, {group.ci_high:+.1f}]"
        click.echo(
            f"{label:{width}}  {group.problems:>8}  {pct(group.a_pass1):>8}  "
            f"{pct(group.b_pass1):>8}  {group.diff:>+6.1f} pp  {interval:>18}  "
            f"{p_text(group.p_value):>8}"
        )
    click.echo("")
    for run, ids in (("A", comparison.only_a), ("B", comparison.only_b)):
        shown = shown_ids([shown_name(i) for i in ids[:6]])
        click.echo(f"solved by {run} only: {len(ids)}" + (f" ({shown})" if ids else ""))
    if comparison.left_out != (0, 0):
        only_a, only_b = comparison.left_out
        click.echo(f"left out (--common): {only_a} problem(s) only in A, {only_b} only in B")
    click.echo(
        f"interval: paired bootstrap over problems, {comparison.resamples} resamples, seed "
        f"{comparison.seed}, percentile; p: {comparison.test}"
    )
