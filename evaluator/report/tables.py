"""The numbers of a run's report: pass@k overall and by difficulty, platform and contest
month with a bootstrap interval on pass@1, the verdict counts, and the order groups are
shown in. The pass@k values are the summary's (:mod:`evaluator.summary`), so report and
terminal agree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.problem import Verdict
from evaluator.report.runs import ProblemRun, Run
from evaluator.report.stats import bootstrap_interval
from evaluator.summary import grouped, pass_rates

__all__ = [
    "SECTIONS",
    "SMALL_GROUP",
    "GroupRow",
    "as_plain",
    "default_ks",
    "group_order",
    "pass1_interval",
    "pass_table",
    "verdict_counts",
    "verdict_order",
]

_DIFFICULTIES = ("easy", "medium", "hard")
_VERDICTS = [str(v) for v in Verdict]
SECTIONS = (("difficulty", "difficulty"), ("platform", "platform"), ("contest month", "month"))
# Below this many problems a group's pass@1 moves by 10 points or more per problem, and the
# bootstrap interval of so few is itself unreliable: such groups are marked "few problems".
SMALL_GROUP = 10


@dataclass(frozen=True, slots=True)
class GroupRow:
    """One row of a pass@k table: a group's problem and sample counts, pass@k (percent,
    None where no problem has k samples) and the bootstrap interval of its pass@1 (percent;
    None for fewer than two problems with samples)."""

    name: str
    problems: int
    samples: int
    rates: dict[str, float | None]
    interval: tuple[float, float] | None = None

    @property
    def small(self) -> bool:
        """Too few problems to read much into (see :data:`SMALL_GROUP`)."""
        return self.problems < SMALL_GROUP


def group_order(section: str, names: Iterable[str]) -> list[str]:
    """Group names as tables list them: difficulties easy, medium, hard, then the others;
    platforms by name; months in time order; ``unknown`` last."""
    names = set(names)

    def key(name: str) -> tuple[int, int, str]:
        rank = _DIFFICULTIES.index(name) if section == "difficulty" and name in _DIFFICULTIES else 3
        return (name == "unknown", rank, name)

    return sorted(names, key=key)


def _row(name: str, problems: Sequence[ProblemRun], ks: Sequence[int]) -> GroupRow:
    return GroupRow(
        name=name,
        problems=len(problems),
        samples=sum(len(p.samples) for p in problems),
        rates=pass_rates([p.graded for p in problems], ks),
        interval=pass1_interval(problems),
    )


def pass1_interval(problems: Sequence[ProblemRun]) -> tuple[float, float] | None:
    """The bootstrap interval (over problems, percent) of pass@1, as pass@1 is averaged:
    over the problems with samples. None for fewer than two: one problem resampled is
    always itself, and its zero-width interval would claim a certainty there is not."""
    scores = [p.pass1 for p in problems if p.samples]
    if len(scores) < 2:
        return None
    low, high = bootstrap_interval(scores)
    return 100 * low, 100 * high


def pass_table(run: Run, ks: Sequence[int]) -> dict[str, list[GroupRow]]:
    """``{"all": [row], "difficulty": rows, "platform": rows, "contest month": rows}``."""
    table: dict[str, list[GroupRow]] = {"all": [_row("all", run.problems, ks)]}
    for title, attribute in SECTIONS:
        groups = grouped(run.problems, lambda p, attribute=attribute: getattr(p, attribute))
        order = group_order(attribute, groups)
        table[title] = [_row(name, groups[name], ks) for name in order]
    return table


def verdict_order(verdicts: Iterable[str]) -> list[str]:
    """Verdicts in :class:`Verdict` order, then any others (``failed``...) by name."""
    verdicts = set(verdicts)
    known = [v for v in _VERDICTS if v in verdicts]
    return known + sorted(verdicts - set(known))


def verdict_counts(run: Run) -> dict[str, int]:
    """How many samples got each verdict, in :func:`verdict_order`."""
    counts = Counter(s.verdict for p in run.problems for s in p.samples)
    return {v: counts[v] for v in verdict_order(counts)}


def default_ks(run: Run) -> list[int]:
    """The k values of the run's summary, else 1 (and 10 when every problem has 10 samples
    or more)."""
    if run.summary is not None:
        ks = sorted(int(k[5:]) for k in run.summary if k.startswith("pass@") and k[5:].isdigit())
        if ks:
            return ks
    fewest = min((len(p.samples) for p in run.problems), default=0)
    return [1, 10] if fewest >= 10 else [1]


def as_plain(table: dict[str, list[GroupRow]]) -> dict[str, Any]:
    """A pass table as plain data (for tests and the page's data)."""
    return {
        section: [
            {"name": r.name, "problems": r.problems, "samples": r.samples, **r.rates} for r in rows
        ]
        for section, rows in table.items()
    }
