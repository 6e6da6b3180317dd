"""Fixtures for the report tests: the demo run graded for real, a full release's results made
in code, and one headless browser for the session."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMEDRIVER, CHROMIUM, browser
from full_release import full_release_rows, full_release_summary
from report_cli import invoke

from evaluator.formats import write_lcb_results
from tests.extras import missing_browser

LABEL = "demo model <v1>"  # the demo run's --label (markup in it is text)


@dataclass(frozen=True)
class Graded:
    """A run on disk: results, summary and report, with the results and summary read back."""

    results: Path
    summary: Path
    report: Path
    rows: list[dict[str, Any]]
    summary_data: dict[str, Any]


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> Graded:
    """``mcevaluate demo`` as a user runs it: the bundled set, graded in the real sandbox."""
    folder = tmp_path_factory.mktemp("demo")
    results, summary, report = folder / "r.json", folder / "s.json", folder / "report.html"
    done = invoke(
        "demo", "-q", "-o", results, "--summary", summary, "--report", report, "--label", LABEL
    )
    assert done.exit_code == 0, done.output
    assert f"report written to {report}" in done.output
    return Graded(
        results, summary, report, json.loads(results.read_text()), json.loads(summary.read_text())
    )


@pytest.fixture(scope="session")
def full_release(tmp_path_factory) -> tuple[Graded, Graded]:
    """Two runs on a full release (1,055 problems x 10 samples), B a little better than A,
    with their summaries and reports (written by ``mcevaluate report``)."""
    folder = tmp_path_factory.mktemp("full")
    runs = []
    for name, sample_seed, skill in (("a", 0, 0.0), ("b", 1, 0.03)):
        rows = full_release_rows(sample_seed=sample_seed, skill=skill)
        results, summary = folder / f"{name}.json", folder / f"{name}_summary.json"
        write_lcb_results(results, rows)
        summary_data = full_release_summary(rows, label=f"model {name.upper()}")
        summary.write_text(json.dumps(summary_data))
        report = folder / f"{name}.html"
        done = invoke("report", results, "--summary", summary, "-o", report)
        assert done.exit_code == 0, done.output
        runs.append(Graded(results, summary, report, rows, summary_data))
    return runs[0], runs[1]


def _browser(javascript: bool = True):
    reason = missing_browser(CHROMIUM, CHROMEDRIVER)
    if reason is not None:
        pytest.skip(reason)
    return browser(javascript=javascript)


@pytest.fixture(scope="session")
def driver():
    with _browser() as chromium:
        yield chromium


@pytest.fixture(scope="session")
def driver_without_js():
    """A browser whose pages run no script."""
    with _browser(javascript=False) as chromium:
        yield chromium
