"""Looking at results: a run as one self-contained HTML page (``mcevaluate report``) and two
runs compared, paired over problems (``mcevaluate compare``).

* :mod:`.runs`: a results file (and its summary) read back as a :class:`Run`;
* :mod:`.tables`: pass@k overall and by difficulty, platform and contest month, verdicts;
* :mod:`.stats`: the paired bootstrap interval and the paired tests; their defaults in
  :mod:`.stats_defaults`;
* :mod:`.compare`: two runs paired, refused when their problems or options differ;
* :mod:`.svg`: the plots, as inline SVG;
* :mod:`.code`: programs highlighted (tokenized, never run);
* :mod:`.words`: options, limits and sizes in words;
* :mod:`.pagedata`: the per-problem tables' data and their first page;
* :mod:`.html`: the pages (Jinja2 templates in ``templates/``).

Imported lazily: each name is imported from its module on first use, so that the command line
takes :mod:`.stats_defaults` at its start without importing NumPy or Jinja2.
"""

from __future__ import annotations

from evaluator.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "CompareError": ".compare",
        "Comparison": ".compare",
        "compare_runs": ".compare",
        "render_comparison": ".html",
        "render_report": ".html",
        "report_link": ".pagedata",
        "FailingTest": ".runs",
        "ProblemRun": ".runs",
        "Run": ".runs",
        "Sample": ".runs",
        "load_run": ".runs",
        "load_summary": ".runs",
        "run_from_rows": ".runs",
        "bootstrap_interval": ".stats",
        "paired_bootstrap": ".stats",
        "sign_flip_test": ".stats",
    },
)
