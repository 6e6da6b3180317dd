"""The report page of a 10,000-program run: its size and the time to its first table row in
headless Chromium, against a baseline checkout's page for the same run, in the same run.

A synthetic results file is made in code (``tests/report/full_release.py``: 1,000 problems x
10 samples by default, each program with its tests' verdicts, CPU times and memory, the
failing tests' excerpts) with its summary; each checkout renders it with its own
``mcevaluate report`` (a process run from that checkout, so it imports that checkout's
``evaluator``); then each page is opened ``--repeat`` times in one headless Chromium,
baseline and current in turn, and measured:

* bytes: the page's size on disk (one self-contained file);
* first row: milliseconds from navigation until the page's script has drawn the table's
  first page (``document.body.dataset.ready``, which both pages set); the first rows are also
  in the HTML itself, for a reader without JavaScript;
* DOMContentLoaded: milliseconds until the HTML (with its inline data) is parsed;
* render: seconds ``mcevaluate report`` takes (one run each).

Medians (and the fastest load: the machine's noise only ever adds), and current / baseline
ratios.

    git worktree add /tmp/base 7154b0f        # the baseline checkout
    python benchmarks/report_page.py --baseline /tmp/base
    python benchmarks/report_page.py --baseline /tmp/base --problems 100 --repeat 3  # quick
    python benchmarks/report_page.py --baseline /tmp/base --json benchmarks/results/report_page.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "report"))  # the generator and the browser helper


def render(tree: Path, results: Path, summary: Path, page: Path) -> float:
    """``mcevaluate report`` of ``tree`` (its own ``evaluator``); the seconds it took."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "evaluator.cli", "report", str(results), "--summary",
               str(summary), "-o", str(page)]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, cwd=tree, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def measure(driver: Any, page: Path) -> dict[str, float]:
    """One load of ``page``: milliseconds to the drawn first row and to DOMContentLoaded."""
    from browser import open_page

    driver.get("about:blank")
    _, ready = open_page(driver, page)
    loaded = driver.execute_script(
        "return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
    )
    rows = driver.execute_script("return document.querySelectorAll('#problems tbody tr').length")
    assert rows > 0, f"{page}: no table row"
    return {"first_row_ms": float(ready), "dom_content_loaded_ms": float(loaded)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, type=Path, help="a baseline checkout")
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args()

    from browser import browser
    from full_release import full_release_rows, full_release_summary

    from evaluator.formats import write_lcb_results

    trees = {"baseline": args.baseline.resolve(), "current": ROOT}
    with tempfile.TemporaryDirectory(prefix="report-page-") as folder:
        work = Path(folder)
        rows = full_release_rows(problems=args.problems, samples=args.samples)
        results, summary = work / "results.json", work / "summary.json"
        write_lcb_results(results, rows)
        summary.write_text(json.dumps(full_release_summary(rows)))
        pages = {name: work / f"{name}.html" for name in trees}
        renders = {
            name: render(tree, results, summary, pages[name]) for name, tree in trees.items()
        }
        loads: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        with browser() as driver:
            for name in trees:  # a first load of each, not counted (Chromium warms up)
                measure(driver, pages[name])
            for _ in range(args.repeat):
                for name in trees:
                    loads[name].append(measure(driver, pages[name]))
        numbers: dict[str, Any] = {
            "programs": args.problems * args.samples,
            "problems": args.problems,
            "results_bytes": results.stat().st_size,
            "repeat": args.repeat,
        }
        for name in trees:
            numbers[name] = {
                "bytes": pages[name].stat().st_size,
                "render_s": round(renders[name], 2),
                **{
                    key: statistics.median(load[key] for load in loads[name])
                    for key in ("first_row_ms", "dom_content_loaded_ms")
                },
                "first_row_ms_min": min(load["first_row_ms"] for load in loads[name]),
                "first_row_ms_all": [load["first_row_ms"] for load in loads[name]],
            }
    base, now = numbers["baseline"], numbers["current"]
    numbers["ratio"] = {
        key: round(now[key] / base[key], 3)
        for key in (
            "bytes",
            "first_row_ms",
            "first_row_ms_min",
            "dom_content_loaded_ms",
            "render_s",
        )
    }
    print(f"{numbers['programs']:,} programs ({args.problems:,} problems), results file "
          f"{numbers['results_bytes'] / 1e6:.1f} MB; medians of {args.repeat} loads")  # fmt: skip
    print(f"{'':10} {'bytes':>12} {'first row ms':>13} {'(fastest)':>10} "
          f"{'DOMContentLoaded ms':>20} {'render s':>9}")  # fmt: skip
    for name in ("baseline", "current"):
        n = numbers[name]
        print(f"{name:10} {n['bytes']:>12,} {n['first_row_ms']:>13.0f} {n['first_row_ms_min']:>10.0f} "
              f"{n['dom_content_loaded_ms']:>20.0f} {n['render_s']:>9.2f}")  # fmt: skip
    ratio = numbers["ratio"]
    print(f"{'ratio':10} {ratio['bytes']:>12.3f} {ratio['first_row_ms']:>13.3f} "
          f"{ratio['first_row_ms_min']:>10.3f} {ratio['dom_content_loaded_ms']:>20.3f} "
          f"{ratio['render_s']:>9.3f}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2) + "\n")


if __name__ == "__main__":
    main()
