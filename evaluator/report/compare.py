"""Two runs on the same problems, paired: which problems one solves and the other does not,
pass@1 of each (with its bootstrap interval, as each run's report shows it) overall, by
difficulty, by platform and by contest month, and the difference ``B - A`` with a paired
bootstrap interval and a paired test (:mod:`evaluator.report.stats`).

Runs are comparable when they grade the same problems with the same options; otherwise
:func:`compare_runs` raises :class:`CompareError`, in one line, unless asked to compare their
common problems (``common``) or to ignore the options (``any_options``). The limits compared
are those each problem ran with, when both runs' results say (a ``--time-limit`` that no
problem used changes nothing); otherwise the options' limits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.report.runs import ProblemRun, Run
from evaluator.report.stats import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_intervals,
    mcnemar_exact,
    sign_flip_test,
)
from evaluator.report.tables import SECTIONS, SMALL_GROUP, group_order
from evaluator.report.words import option_name, option_value
from evaluator.summary import grouped

__all__ = ["CompareError", "Comparison", "GroupComparison", "compare_runs"]

_SHOWN_IDS = 3  # problem ids an error message names
_LIMITS = ("time_limit", "memory_limit")


class CompareError(Exception):
    """Two runs that cannot be compared as asked (one-line reason)."""


@dataclass(frozen=True, slots=True)
class GroupComparison:
    """Pass@1 of both runs on a group of paired problems, in percent, each with its bootstrap
    interval, and ``B - A`` in percentage points with its interval and p-value."""

    section: str  # "all", "difficulty", "platform" or "contest month"
    name: str
    problems: int
    a_pass1: float
    b_pass1: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    discordant: int  # problems whose pass@1 differs between the runs
    # each run's pass@1 interval on the group (None for one problem), percent
    a_interval: tuple[float, float] | None = None
    b_interval: tuple[float, float] | None = None

    @property
    def small(self) -> bool:
        """Too few problems to read much into, as the report marks its groups
        (:data:`~evaluator.report.tables.SMALL_GROUP`)."""
        return self.problems < SMALL_GROUP

    def to_dict(self) -> dict[str, Any]:
        return {
            "problems": self.problems,
            "a_pass@1": round(self.a_pass1, 4),
            "b_pass@1": round(self.b_pass1, 4),
            "diff": round(self.diff, 4),
            "ci": [round(self.ci_low, 4), round(self.ci_high, 4)],
            "p_value": self.p_value,
            "discordant": self.discordant,
            "a_ci": _rounded(self.a_interval),
            "b_ci": _rounded(self.b_interval),
        }


@dataclass(slots=True)
class Comparison:
    """The paired comparison of run ``b`` against run ``a``."""

    a: Run
    b: Run
    pairs: list[tuple[ProblemRun, ProblemRun]]
    groups: list[GroupComparison]
    only_a: list[str]  # ids of problems only A solves (some sample passes)
    only_b: list[str]
    test: str  # the paired test behind the p-values
    resamples: int
    seed: int
    level: float
    left_out: tuple[int, int] = (0, 0)  # problems only in A, only in B (with common)
    option_differences: list[str] = field(default_factory=list)  # with any_options

    @property
    def overall(self) -> GroupComparison:
        return self.groups[0]

    def to_dict(self) -> dict[str, Any]:
        """The comparison as plain data (``compare --json``)."""
        sections: dict[str, Any] = {title: {} for title, _ in SECTIONS}
        for group in self.groups[1:]:
            sections[group.section][group.name] = group.to_dict()
        return {
            "a": self.a.label,
            "b": self.b.label,
            "problems": len(self.pairs),
            "left_out": {"only_in_a": self.left_out[0], "only_in_b": self.left_out[1]},
            "all": self.overall.to_dict(),
            "by_difficulty": sections["difficulty"],
            "by_platform": sections["platform"],
            "by_contest_month": sections["contest month"],
            "solved_only_by_a": self.only_a,
            "solved_only_by_b": self.only_b,
            "method": {
                "interval": f"paired bootstrap over problems, {self.resamples} resamples, "
                f"{self.level:.0%} percentile interval",
                "test": self.test,
                "seed": self.seed,
            },
            "option_differences": self.option_differences,
        }


def compare_runs(
    a: Run,
    b: Run,
    *,
    common: bool = False,
    any_options: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Comparison:
    """Compare run ``b`` against run ``a`` on their problems (see the module docstring)."""
    per_problem = a.limits_known and b.limits_known
    differences = _option_differences(a, b, skip=_LIMITS if per_problem else ())
    _refuse(a, b, differences, any_options)
    pairs, left_out = _pairs(a, b, common)
    if per_problem:
        limits = _limit_differences(pairs)
        _refuse(a, b, limits, any_options)
        differences += limits
    single = all(len(x.samples) == 1 and len(y.samples) == 1 for x, y in pairs)
    if single:
        test = "McNemar exact test (one sample per problem)"
    else:
        test = "paired sign-flip permutation test (exact up to 16 differing problems)"
    groups = [_group("all", "all", pairs, single, resamples, seed, level)]
    for section, key in SECTIONS:
        members = grouped(pairs, lambda pair, key=key: getattr(pair[0], key))
        for name in group_order(key, members):
            groups.append(_group(section, name, members[name], single, resamples, seed, level))
    return Comparison(
        a=a,
        b=b,
        pairs=pairs,
        groups=groups,
        only_a=[x.id for x, y in pairs if x.solved and not y.solved],
        only_b=[x.id for x, y in pairs if y.solved and not x.solved],
        test=test,
        resamples=resamples,
        seed=seed,
        level=level,
        left_out=left_out,
        option_differences=differences,
    )


def _refuse(a: Run, b: Run, differences: Sequence[str], any_options: bool) -> None:
    if differences and not any_options:
        raise CompareError(
            f"{a.label} and {b.label} were graded with other options "
            f"({'; '.join(differences)}): pass --any-options to compare them anyway"
        )


def _option_differences(a: Run, b: Run, skip: Sequence[str] = ()) -> list[str]:
    """``name: A's value in A, B's in B``, in words, for each grading option the summaries
    disagree on, but those in ``skip`` (none when either run has no summary)."""
    theirs, ours = a.options, b.options
    if theirs is None or ours is None:
        return []
    return [
        f"{option_name(name)}: {option_value(name, theirs.get(name))} in A, "
        f"{option_value(name, ours.get(name))} in B"
        for name in sorted(set(theirs) | set(ours))
        if theirs.get(name) != ours.get(name) and name not in skip
    ]


def _limit_differences(pairs: Sequence[tuple[ProblemRun, ProblemRun]]) -> list[str]:
    """For each limit that some paired problem ran with in A and not in B: on how many
    problems, and the first one's values."""
    differences = []
    for name, unit in (("time_limit", "s"), ("memory_limit", "MB")):
        differing = [(x, y) for x, y in pairs if getattr(x, name) != getattr(y, name)]
        if differing:
            x, y = differing[0]
            differences.append(
                f"{name.replace('_', ' ')} differs on {len(differing)} of {len(pairs)} problems "
                f"({x.id!r}: {getattr(x, name):g} {unit} in A, {getattr(y, name):g} {unit} in B)"
            )
    return differences


def _pairs(
    a: Run, b: Run, common: bool
) -> tuple[list[tuple[ProblemRun, ProblemRun]], tuple[int, int]]:
    """The problems both runs graded, in A's order, and how many only one did. Refused unless
    both graded the same problems, or ``common`` and they share some."""
    theirs = {p.id: p for p in b.problems}
    ours = {p.id for p in a.problems}
    only_a = [p.id for p in a.problems if p.id not in theirs]
    only_b = [p.id for p in b.problems if p.id not in ours]
    pairs = [(p, theirs[p.id]) for p in a.problems if p.id in theirs]
    if (only_a or only_b) and not common:
        raise CompareError(
            f"{a.label} and {b.label} grade different problems ({_listed(only_a, 'A')}, "
            f"{_listed(only_b, 'B')}): pass --common to compare the {len(pairs)} they share"
        )
    if not pairs:
        raise CompareError(f"{a.label} and {b.label} have no problem in common")
    if any(not x.samples or not y.samples for x, y in pairs):
        empty = next(x.id for x, y in pairs if not x.samples or not y.samples)
        raise CompareError(f"problem {empty!r} has no samples in one of the runs")
    return pairs, (len(only_a), len(only_b))


def _listed(ids: Sequence[str], run: str) -> str:
    shown = ", ".join(repr(i) for i in ids[:_SHOWN_IDS]) + (" ..." if len(ids) > _SHOWN_IDS else "")
    return f"{len(ids)} only in {run}" + (f": {shown}" if ids else "")


def _group(
    section: str,
    name: str,
    pairs: Sequence[tuple[ProblemRun, ProblemRun]],
    single: bool,
    resamples: int,
    seed: int,
    level: float,
) -> GroupComparison:
    a = [x.pass1 for x, _ in pairs]
    b = [y.pass1 for _, y in pairs]
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    # B - A's paired interval, and each run's own as its report's table shows it (none for
    # one problem): the same resamples of the problems for all three
    (low, high), *own = bootstrap_intervals(
        [diffs, a, b], resamples=resamples, seed=seed, level=level
    )
    intervals: list[tuple[float, float] | None] = [*own] if len(pairs) > 1 else [None, None]
    if single:
        only_a = sum(x > y for x, y in zip(a, b, strict=True))
        p_value = mcnemar_exact(only_a, sum(y > x for x, y in zip(a, b, strict=True)))
    else:
        p_value = sign_flip_test(a, b, resamples=resamples, seed=seed)
    mean_a, mean_b = 100 * sum(a) / len(a), 100 * sum(b) / len(b)
    return GroupComparison(
        section=section,
        name=name,
        problems=len(pairs),
        a_pass1=mean_a,
        b_pass1=mean_b,
        diff=mean_b - mean_a,
        ci_low=100 * low,
        ci_high=100 * high,
        p_value=p_value,
        discordant=sum(x != y for x, y in zip(a, b, strict=True)),
        a_interval=_percent(intervals[0]),
        b_interval=_percent(intervals[1]),
    )


def _rounded(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else [round(interval[0], 4), round(interval[1], 4)]


def _percent(interval: tuple[float, float] | None) -> tuple[float, float] | None:
    return None if interval is None else (100 * interval[0], 100 * interval[1])
