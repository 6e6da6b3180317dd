"""The report and comparison pages in a real headless browser (Debian's chromium): they load
without console errors, the numbers in the DOM are the results file's, filters and sorting
change the rows shown, and program text is shown as text, never run as markup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import By, Select, cells, open_page, screenshot, visible_ids
from report_cli import invoke

from evaluator.report import load_run, render_report, run_from_rows

PNG = b"\x89PNG\r\n\x1a\n"


def _errors(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["level"] in ("SEVERE", "WARNING")]


def _choose(driver, select: str, value: str) -> None:
    Select(driver.find_element(By.ID, select)).select_by_value(value)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}%"


def test_demo_report_shows_the_results_file(demo_run, driver, tmp_path):
    entries, ready = open_page(driver, demo_run.report)
    assert _errors(entries) == [] and ready > 0
    summary, rows = demo_run.summary_data, demo_run.rows

    # Headline and pass@1 tables: the summary's numbers.
    headline = driver.find_element(By.CSS_SELECTOR, "#headline [data-metric='pass@1']")
    assert headline.text == _pct(summary["pass@1"])
    overall = "#pass-all tr[data-group='all']"
    assert cells(driver, f"{overall} [data-metric='problems']") == [str(summary["problems"])]
    assert cells(driver, f"{overall} [data-metric='samples']") == [str(summary["samples"])]
    for table, key in (("difficulty", "by_difficulty"), ("platform", "by_platform")):
        for name, group in summary[key].items():
            row = f"#pass-{table} tr[data-group='{name}']"
            assert cells(driver, f"{row} [data-metric='pass@1']") == [_pct(group["pass@1"])]
            assert cells(driver, f"{row} [data-metric='problems']") == [str(group["problems"])]
    shown = {
        row.get_attribute("data-verdict"): int(row.find_element(By.CSS_SELECTOR, "td.num").text)
        for row in driver.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr")
    }
    assert shown == summary["verdicts"]
    assert cells(driver, "#provenance [data-field='time limit']") == ["6.0 s CPU per test"]
    assert cells(driver, "#provenance [data-field='grader version']") == [summary["grader_version"]]

    # The problem table: one row per problem, each one's pass@1 and samples' verdicts.
    assert visible_ids(driver, "problems") == [r["question_id"] for r in rows]
    assert driver.find_element(By.ID, "shown-count").text == f"{len(rows)} problems"
    for row in rows:
        selector = f"#problems tr[data-key='{row['question_id']}']"
        assert cells(driver, f"{selector} .c-pass1") == [f"{100 * row['pass@1']:.1f}%"]
        passed = f"{sum(row['graded_list'])}/{len(row['graded_list'])}"
        assert cells(driver, f"{selector} .c-passed") == [passed]
        assert cells(driver, f"{selector} .chip") == [d["verdict"] for d in row["details"]]

    # Filters change the rows shown.
    with_tle = [r["question_id"] for r in rows if any(d["verdict"] == "TLE" for d in r["details"])]
    _choose(driver, "filter-verdict", "v:TLE")
    assert visible_ids(driver, "problems") == with_tle and len(with_tle) == 1
    assert driver.find_element(By.ID, "shown-count").text == f"1 of {len(rows)} problems"
    _choose(driver, "filter-verdict", "")
    _choose(driver, "filter-difficulty", "medium")
    medium = [r["question_id"] for r in rows if r["difficulty"] == "medium"]
    assert visible_ids(driver, "problems") == medium and len(medium) == 4
    _choose(driver, "filter-difficulty", "")
    _choose(driver, "filter-platform", "leetcode")
    assert visible_ids(driver, "problems") == [
        r["question_id"] for r in rows if r["platform"] == "leetcode"
    ]
    _choose(driver, "filter-platform", "")
    driver.find_element(By.ID, "filter-id").send_keys("spiral")
    assert visible_ids(driver, "problems") == ["demo-spiral-walk"]
    driver.find_element(By.ID, "filter-id").clear()
    driver.execute_script("document.getElementById('filter-id').dispatchEvent(new Event('input'))")
    assert len(visible_ids(driver, "problems")) == len(rows)

    # Sorting by pass@1: ascending, ties in file order; a second click reverses.
    header = driver.find_element(By.CSS_SELECTOR, "#problems th[data-sort='4']")
    header.click()
    by_pass = sorted(rows, key=lambda r: r["pass@1"])
    assert visible_ids(driver, "problems") == [r["question_id"] for r in by_pass]
    header.click()
    descending = sorted(rows, key=lambda r: -r["pass@1"])
    assert visible_ids(driver, "problems") == [r["question_id"] for r in descending]

    # A problem's samples: the failing test's difference or error, stdout and stderr.
    driver.find_element(By.CSS_SELECTOR, "#problems tr[data-key='demo_pair_sums'] .toggle").click()
    details = driver.find_elements(By.CSS_SELECTOR, "#problems tr.detail table.samples tbody tr")
    row = next(r for r in rows if r["question_id"] == "demo_pair_sums")
    assert len(details) == len(row["details"])
    texts = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in details]
    assert [t[1] for t in texts] == [d["verdict"] for d in row["details"]]
    assert [t[6] for t in texts] == [d.get("message", "") for d in row["details"]]
    wrong = next(i for i, d in enumerate(row["details"]) if d["verdict"] == "WA")
    failing = next(t for t in row["details"][wrong]["tests"] if t["verdict"] != "AC")
    assert texts[wrong][7] == failing["stdout"].strip() and failing["stdout"]
    error = next(i for i, d in enumerate(row["details"]) if d["verdict"] == "RE")
    assert texts[error][8].endswith("IndexError: list index out of range")

    picture = screenshot(driver, tmp_path / "demo-report.png")
    assert picture.read_bytes().startswith(PNG) and picture.stat().st_size > 20_000


def test_full_release_report_opens_and_pages(full_release, driver, capsys):
    run, _ = full_release
    size = run.report.stat().st_size
    entries, ready = open_page(driver, run.report)
    assert _errors(entries) == []
    rows = run.rows
    with capsys.disabled():
        print(f"\nfull-release report: {size / 1e6:.2f} MB, table rendered {ready} ms after load")
    assert size < 5_000_000  # a few MB for 10,550 samples
    assert driver.find_element(By.ID, "shown-count").text == "1055 problems"
    assert visible_ids(driver, "problems") == [r["question_id"] for r in rows[:50]]
    assert driver.find_element(By.ID, "page-info").text == "rows 1–50, page 1 of 22"
    driver.find_element(By.ID, "page-next").click()
    assert visible_ids(driver, "problems") == [r["question_id"] for r in rows[50:100]]
    hard = [r["question_id"] for r in rows if r["difficulty"] == "hard"]
    _choose(driver, "filter-difficulty", "hard")
    assert driver.find_element(By.ID, "shown-count").text == f"{len(hard)} of 1055 problems"
    assert visible_ids(driver, "problems") == hard[:50]
    _choose(driver, "filter-verdict", "unsolved")
    unsolved = [
        r["question_id"] for r in rows if r["difficulty"] == "hard" and not any(r["graded_list"])
    ]
    assert driver.find_element(By.ID, "shown-count").text == f"{len(unsolved)} of 1055 problems"
    headline = driver.find_element(By.CSS_SELECTOR, "#headline [data-metric='pass@10']")
    assert headline.text == _pct(run.summary_data["pass@10"])
    month = "#pass-contest-month tr[data-group='2024-01'] [data-metric='problems']"
    assert cells(driver, month) == [str(sum(r["contest_date"][:7] == "2024-01" for r in rows))]


def test_comparison_page_shows_the_comparison(full_release, driver, tmp_path):
    a, b = full_release
    page = tmp_path / "compare.html"
    done = invoke(
        "compare", a.results, b.results, "--summaries", a.summary, b.summary, "-o", page, "--json"
    )
    assert done.exit_code == 0, done.output
    numbers = json.loads(done.stdout)
    entries, _ = open_page(driver, page)
    assert _errors(entries) == []
    overall = numbers["all"]
    assert cells(driver, "#headline [data-metric='a']") == [_pct(overall["a_pass@1"])]
    assert cells(driver, "#headline [data-metric='b']") == [_pct(overall["b_pass@1"])]
    assert cells(driver, "#headline [data-metric='diff']") == [f"{overall['diff']:+.2f} pp"]
    for name, group in numbers["by_difficulty"].items():
        row = f"#compare-table tr[data-section='difficulty'][data-group='{name}']"
        low, high = group["ci"]
        assert cells(driver, f"{row} [data-metric='ci']") == [f"{low:+.2f} pp to {high:+.2f} pp"]
        assert cells(driver, f"{row} [data-metric='problems']") == [str(group["problems"])]
    assert driver.find_element(By.ID, "only-a-count").text == str(len(numbers["solved_only_by_a"]))
    _choose(driver, "filter-outcome", "b")
    only_b = numbers["solved_only_by_b"]
    assert driver.find_element(By.ID, "shown-count").text == f"{len(only_b)} of 1055 problems"
    assert visible_ids(driver, "pairs") == only_b[:50]
    _choose(driver, "filter-outcome", "a")
    assert visible_ids(driver, "pairs") == numbers["solved_only_by_a"][:50]
    first = numbers["solved_only_by_a"][0]
    assert cells(driver, f"#pairs tr[data-key='{first}'] .c-outcome") == ["A only"]
    picture = screenshot(driver, tmp_path / "compare.png")
    assert picture.read_bytes().startswith(PNG)


HOSTILE = [
    "<img src=x onerror=\"window.__pwned='img'\">",
    "</script><script>window.__pwned='script'</script>",
    "<!--",
    "\ud800 lone surrogate & <b>bold</b>",
]


@pytest.mark.parametrize("page", ["report", "compare"])
def test_program_text_is_shown_never_run(driver, tmp_path, page):
    rows = [
        {
            "question_id": text,
            "graded_list": [False],
            "platform": text,
            "difficulty": "<i>hard</i>",
            "details": [
                {
                    "verdict": "WA",
                    "passed": False,
                    "message": text,
                    "tests": [{"verdict": "WA", "stdout": text, "stderr": text}],
                }
            ],
        }
        for text in HOSTILE
    ]
    results = tmp_path / "r.json"
    results.write_text(json.dumps(rows))
    html = tmp_path / f"{page}.html"
    if page == "report":
        html.write_text(render_report(run_from_rows(rows, HOSTILE[0])))
    else:
        done = invoke("compare", results, results, "-o", html)
        assert done.exit_code == 0, done.output
    entries, _ = open_page(driver, html)
    assert _errors(entries) == []
    assert driver.execute_script("return window.__pwned === undefined")
    table = "problems" if page == "report" else "pairs"
    assert len(driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr.item")) == len(HOSTILE)
    assert len(load_run(str(results)).problems) == len(HOSTILE)
    assert driver.find_elements(By.CSS_SELECTOR, f"img, #{table} tbody b, #{table} tbody i") == []
    # (lone surrogates cannot cross the WebDriver protocol: texts are read with them replaced)
    texts = driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]))"
        ".map(e => e.textContent.replace(/[\\ud800-\\udfff]/g, '?'))",
        f"#{table} .c-id",
    )
    assert [c[-len(t) :] for c, t in zip(texts, HOSTILE[:3], strict=False)] == HOSTILE[:3]
    assert texts[3].endswith("? lone surrogate & <b>bold</b>")
    assert "<i>hard</i>" in cells(driver, f"#{table} .c-difficulty")


def test_screenshot_of_the_demo_report_is_committed():
    """docs/demo-report.png (made by tests/report/screenshots.py) is in the README."""
    root = Path(__file__).resolve().parents[2]
    picture = root / "docs" / "demo-report.png"
    assert picture.read_bytes().startswith(PNG)
    assert "docs/demo-report.png" in (root / "README.md").read_text()
