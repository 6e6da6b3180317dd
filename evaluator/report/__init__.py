"""Looking at results: a run as one self-contained HTML page (``mcevaluate report``) and two
runs compared, paired over problems (``mcevaluate compare``).

* :mod:`.runs`: a results file (and its summary) read back as a :class:`Run`;
* :mod:`.tables`: pass@k overall and by difficulty, platform and contest month, verdicts;
* :mod:`.stats`: the paired bootstrap interval and the paired tests;
* :mod:`.compare`: two runs paired, refused when their problems or options differ;
* :mod:`.svg`: the plots, as inline SVG;
* :mod:`.code`: programs highlighted (tokenized, never run);
* :mod:`.words`: options, limits and sizes in words;
* :mod:`.pagedata`: the per-problem tables' data and their first page;
* :mod:`.html`: the pages (Jinja2 templates in ``templates/``).
"""

from __future__ import annotations

from evaluator.report.compare import CompareError, Comparison, compare_runs
from evaluator.report.html import render_comparison, render_report
from evaluator.report.pagedata import report_link
from evaluator.report.runs import (
    FailingTest,
    ProblemRun,
    Run,
    Sample,
    load_run,
    load_summary,
    run_from_rows,
)
from evaluator.report.stats import bootstrap_interval, paired_bootstrap, sign_flip_test

__all__ = [
    "CompareError",
    "Comparison",
    "FailingTest",
    "ProblemRun",
    "Run",
    "Sample",
    "bootstrap_interval",
    "compare_runs",
    "load_run",
    "load_summary",
    "paired_bootstrap",
    "render_comparison",
    "render_report",
    "report_link",
    "run_from_rows",
    "sign_flip_test",
]
