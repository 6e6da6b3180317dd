"""The data behind the pages' per-problem tables: one JSON blob per page, rendered a page of
rows at a time by the page's script (``report.js``, ``compare.js``), and the first page of
rows as that script renders it, for a page read without JavaScript.

Texts are interned (a message or a test shared by many samples is stored once) and programs
are highlighted once each (:mod:`.code`); the script writes every text with
``textContent``, so nothing in the data is ever parsed as markup.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from evaluator.report.code import CLASSES, highlight_runs, shown_program
from evaluator.report.compare import Comparison
from evaluator.report.runs import FailingTest, ProblemRun, Run, Sample
from evaluator.report.tables import group_order, verdict_order
from evaluator.report.words import seconds
from evaluator.summary import fixed

__all__ = [
    "PAGE_SIZE",
    "comparison_data",
    "date_range",
    "first_pairs",
    "first_problems",
    "report_data",
    "report_link",
    "script_json",
]

PAGE_SIZE = 50  # problem rows per page of the tables
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")  # a contest date's day, as the date filter reads it


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


class _Programs:
    """Distinct programs, each highlighted once: ``[shown text, highlighted runs, full
    length]``; index 0 is no program."""

    def __init__(self) -> None:
        self.items: list[list[Any]] = [["", [], 0]]
        self._index: dict[str, int] = {"": 0}

    def __call__(self, code: str, python: bool = True) -> int:
        """The index of ``code``, highlighted as Python only when it is Python (a C++ program
        read by Python's tokenizer is coloured wrongly: shown plain)."""
        key = code if python else "\0" + code
        index = self._index.get(key)
        if index is None:
            text = shown_program(code)
            index = self._index[key] = len(self.items)
            self.items.append([text, highlight_runs(text) if python else [], len(code)])
        return index


def report_data(run: Run) -> dict[str, Any]:
    """The per-problem data of the report page. Each problem is ``[id, difficulty,
    platform, contest date, month, samples, time limit or null, memory limit or null,
    failing tests, language, title ('' when none), page url ('' when none)]``; each sample ``[verdict index, passed (0/1), fraction of tests passed
    or null, tests, first failing test (1-based) or 0, message, stdout, stderr (string
    indices), CPU seconds of the slowest test or null, peak memory kB or null, program
    index, answer without code (NO_CODE: string index, else 0), its length, the limit that
    ended its failing test (string index: cpu, wall, memory, output; 0: none)]``; each failing test ``[number, public (1/0/null), input, its length, expected
    output, its length]`` (texts as string indices). ``programs`` are ``[text, highlighted
    runs, full length]``, the runs' classes named by ``codeClasses``."""
    verdicts = verdict_order(s.verdict for p in run.problems for s in p.samples)
    code = {v: i for i, v in enumerate(verdicts)}
    strings, programs = _Strings(), _Programs()

    def sample(s: Sample, python: bool) -> list[Any]:
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
            programs(s.code, python),
            strings(s.answer),
            s.answer_chars,
            strings(s.limit),
        ]

    def failing(t: FailingTest) -> list[Any]:
        public = None if t.public is None else int(t.public)
        return [
            t.number,
            public,
            strings(t.input),
            t.input_chars,
            strings(t.output),
            t.output_chars,
        ]

    problems = [
        [p.id, p.difficulty, p.platform, p.contest_date, p.month]
        + [[sample(s, _python(p)) for s in p.samples]]
        + [p.time_limit, p.memory_limit, [failing(t) for t in p.failing_tests], language(p)]
        + [p.title, p.url, p.judge_reason, p.needs_checker]
        for p in run.problems
    ]
    return {
        "verdicts": verdicts,
        "strings": strings.items,
        "programs": programs.items,
        "codeClasses": list(CLASSES),
        "problems": problems,
        "groups": _group_names(run.problems, ("difficulty", "platform", "month")),
        "pageSize": PAGE_SIZE,
    }


def comparison_data(comparison: Comparison, links: Sequence[str | None]) -> dict[str, Any]:
    """The per-problem data of the comparison page: ``[id, difficulty, platform, A's
    passing samples, A's samples, B's passing samples, B's samples, A's verdicts, B's
    verdicts, A's messages, B's messages]`` per problem (verdicts as indices into
    ``verdicts``, each sample's message, its first failure's difference or error, as an index
    into ``strings``); ``reports``: the link to each run's report page, or null."""
    verdicts = verdict_order(
        s.verdict for pair in comparison.pairs for problem in pair for s in problem.samples
    )
    code = {v: i for i, v in enumerate(verdicts)}
    strings = _Strings()
    return {
        "verdicts": verdicts,
        "strings": strings.items,
        "problems": [
            [a.id, a.difficulty, a.platform, sum(a.graded), len(a.samples)]
            + [sum(b.graded), len(b.samples)]
            + [[code[s.verdict] for s in a.samples], [code[s.verdict] for s in b.samples]]
            + [[strings(s.message) for s in a.samples], [strings(s.message) for s in b.samples]]
            for a, b in comparison.pairs
        ],
        "reports": list(links),
        "groups": _group_names([a for a, _ in comparison.pairs], ("difficulty", "platform")),
        "pageSize": PAGE_SIZE,
    }


def report_link(report: str, page: str) -> str:
    """The link from the page written to ``page`` to the report ``report``: a relative,
    percent-encoded path (the two files stay linked when their folder moves; ``:`` is
    encoded too, so no path can read as a ``javascript:`` or other scheme)."""
    folder = os.path.dirname(os.path.abspath(page))
    relative = os.path.relpath(os.path.abspath(report), folder)
    return quote(relative.replace(os.sep, "/"), safe="/")


def _group_names(problems: Sequence[ProblemRun], attributes: Sequence[str]) -> dict[str, Any]:
    """Per attribute the group names of ``problems``, in table order (the filters' options)."""
    return {name: group_order(name, {getattr(p, name) for p in problems}) for name in attributes}


def date_range(run: Run) -> tuple[str, str] | None:
    """The first and last contest day (``YYYY-MM-DD``) of the run's problems, the bounds of
    the report's date filter; None when no problem carries a date (the filter is left out).
    ``report.js`` reads a problem's day the same way: the date's first ten characters."""
    days = [p.contest_date[:10] for p in run.problems if _DAY.fullmatch(p.contest_date[:10])]
    return (min(days), max(days)) if days else None


def _share(passed: int, samples: int) -> str:
    """A share as the tables' script shows it (``percent`` in table.js)."""
    return "-" if not samples else f"{fixed(100 * passed / samples, 1)}%"


def _python(problem: ProblemRun) -> bool:
    """Whether the problem's programs are Python (or the results do not say: Python is the
    grader's default), so that the page colours them with Python's tokenizer."""
    return all(name in ("python", "python3") for name in problem.languages)


def language(problem: ProblemRun) -> str:
    """What the problem table's language column shows: its programs' languages, ``-`` when
    the results do not say."""
    return ", ".join(problem.languages) or "-"


def first_problems(run: Run) -> list[dict[str, Any]]:
    """The report's problem table, first page, as ``report.js`` renders it."""
    rows = []
    for p in run.problems[:PAGE_SIZE]:
        # rounded as in the data the script reads, so both give the same text
        times = [round(s.cpu_time, 4) for s in p.samples if s.cpu_time is not None]
        passed = sum(p.graded)
        rows.append(
            {
                "id": p.id,
                "title": p.title,
                "url": p.url,
                "difficulty": p.difficulty,
                "platform": p.platform,
                "language": language(p),
                "date": p.contest_date[:10],
                "pass1": _share(passed, len(p.samples)),
                "passed": f"{passed}/{len(p.samples)}",
                "verdicts": [s.verdict for s in p.samples],
                "cpu": seconds(max(times) if times else None),
            }
        )
    return rows


_OUTCOMES = {(True, True): "both solve", (True, False): "A only", (False, True): "B only"}


def first_pairs(comparison: Comparison) -> list[dict[str, Any]]:
    """The comparison's problem table, first page, as ``compare.js`` renders it."""
    rows = []
    for a, b in comparison.pairs[:PAGE_SIZE]:
        diff = b.pass1 - a.pass1
        rows.append(
            {
                "id": a.id,
                "difficulty": a.difficulty,
                "platform": a.platform,
                "a": f"{_share(sum(a.graded), len(a.samples))} ({sum(a.graded)}/{len(a.samples)})",
                "b": f"{_share(sum(b.graded), len(b.samples))} ({sum(b.graded)}/{len(b.samples)})",
                "diff": ("+" if diff > 0 else "") + f"{fixed(100 * diff, 1)} pp",
                "sign": "pos" if diff > 0 else "neg" if diff < 0 else "",
                "outcome": _OUTCOMES.get((a.solved, b.solved), "neither"),
            }
        )
    return rows
