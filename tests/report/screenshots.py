"""Make the screenshots README.md and docs/reports.md show:
``python tests/report/screenshots.py [DIR]``.

``docs/demo-report.png``: the report of ``mcevaluate demo`` (graded for real), one problem's
samples opened, with a wrong sample's program and failing test. ``docs/compare-report.png``:
the comparison of two generated full-release runs (``full_release.py``; B's solve rates 3
points higher), down to its first problem opened to its samples' verdicts and messages in
both runs. Both are taken in
the same headless Chromium the browser tests use.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from browser import By, browser, open_page, screenshot
from click.testing import CliRunner
from full_release import full_release_rows, full_release_summary

from evaluator.cli import main
from evaluator.formats import write_lcb_results

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> None:
    done = CliRunner().invoke(main, list(args))
    if done.exit_code:
        raise SystemExit(done.output)


def _pages() -> None:
    """The demo's report and a full-release comparison, in the current directory."""
    _run("demo", "-q", "-o", "demo.json", "--report", "demo.html", "--label", "demo samples")
    for name, sample_seed, skill in (("a", 0, 0.0), ("b", 1, 0.03)):
        rows = full_release_rows(sample_seed=sample_seed, skill=skill)
        write_lcb_results(f"{name}.json", rows)
        Path(f"{name}_summary.json").write_text(
            json.dumps(full_release_summary(rows, label=f"model {name.upper()}"))
        )
        _run("report", f"{name}.json", "--summary", f"{name}_summary.json", "--label", f"model {name.upper()}")  # fmt: skip
    _run("compare", "a.json", "b.json", "--summaries", "a_summary.json", "b_summary.json",
         "-o", "compare.html")  # fmt: skip


def make(folder: Path) -> list[Path]:
    """Write both screenshots into ``folder``; their paths."""
    folder = folder.resolve()
    work = Path(tempfile.mkdtemp(prefix="mcevaluate-shots-"))
    here = os.getcwd()
    try:
        os.chdir(work)  # the pages name their files as given: short, relative names
        _pages()
    finally:
        os.chdir(here)
    shots = []
    with browser() as driver:
        open_page(driver, work / "demo.html")
        toggle = "#problems tr[data-key='demo_pair_sums'] .toggle"
        driver.find_element(By.CSS_SELECTOR, toggle).click()
        for box in driver.find_elements(By.CSS_SELECTOR, "tr.sample-more")[1].find_elements(
            By.TAG_NAME, "details"
        ):  # the wrong answer's program and the test it failed
            driver.execute_script("arguments[0].open = true", box)
        shots.append(screenshot(driver, folder / "demo-report.png"))
        driver.set_window_size(1400, 1000)
        open_page(driver, work / "compare.html")
        driver.execute_script("document.querySelector('#pairs .toggle').click()")
        bottom = driver.execute_script(  # down to the opened problem's samples
            "var box = document.querySelector('#pairs tr.detail').getBoundingClientRect();"
            "return Math.ceil(box.bottom + window.scrollY) + 16"
        )
        shots.append(screenshot(driver, folder / "compare-report.png", height=bottom))
    shutil.rmtree(work)
    return shots


if __name__ == "__main__":
    for shot in make(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"):
        print(shot)
