"""Filtered views of the report's problem table (#46 item 13), in headless Chromium: the
pass@1 and count of the rows a filter leaves, beside the whole run's, equal to what the
summary computes for the same problems (one rounding); a contest-date range; the filtered
rows saved as CSV, built in the browser; the header row on screen while the rows scroll, at
1400 and 420 px, with and without JavaScript."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path

from browser import By, Select, open_page, phone, visible_ids
from report_cli import invoke
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

from evaluator.report import load_run, render_report
from evaluator.summary import pass_rates, pct


def _choose(driver, select: str, value: str) -> None:
    Select(driver.find_element(By.ID, select)).select_by_value(value)


def _set_date(driver, field: str, value: str) -> None:
    """Type a day into a date input as a reader's date picker leaves it (its value, then a
    change event)."""
    driver.execute_script(
        "var e = document.getElementById(arguments[0]); e.value = arguments[1];"
        "e.dispatchEvent(new Event('change'))",
        field,
        value,
    )


def _metric(driver, name: str) -> str:
    found = driver.find_elements(By.CSS_SELECTOR, f"#shown-pass [data-metric='{name}']")
    return found[0].text if found else ""


def _shown_pass(driver) -> tuple[str, str]:
    """The filtered rows' count and pass@1 as the page shows them ('' when not shown)."""
    return _metric(driver, "shown-problems"), _metric(driver, "shown-pass@1")


def _expected(rows: list[dict]) -> tuple[str, str]:
    """What the page must show for ``rows``: their count and the summary's pass@1 of them."""
    return f"{len(rows):,}", pct(pass_rates([r["graded_list"] for r in rows], [1])["pass@1"])


def test_filtered_rows_show_their_pass_at_1_beside_the_whole_run(full_release, driver):
    """Each difficulty and platform alone gives the summary's figure for it (the tables
    above use the same), a combined filter the summary's computation over its rows; the
    whole run's figure stays beside it."""
    a, _ = full_release
    summary, rows = a.summary_data, a.rows
    open_page(driver, a.report)
    whole = (pct(summary["pass@1"]), f"{summary['problems']:,}")
    assert (_metric(driver, "whole-pass@1"), _metric(driver, "whole-problems")) == whole
    assert _shown_pass(driver) == ("", "")  # nothing filtered: the whole run's figure alone
    for select, key in (("filter-difficulty", "by_difficulty"), ("filter-platform", "by_platform")):
        for name, group in summary[key].items():
            _choose(driver, select, name)
            assert _shown_pass(driver) == (f"{group['problems']:,}", pct(group["pass@1"]))
            assert (_metric(driver, "whole-pass@1"), _metric(driver, "whole-problems")) == whole
        _choose(driver, select, "")
    _choose(driver, "filter-difficulty", "medium")
    _choose(driver, "filter-verdict", "v:TLE")
    chosen = [
        r for r in rows
        if r["difficulty"] == "medium" and any(d["verdict"] == "TLE" for d in r["details"])
    ]  # fmt: skip
    assert 50 < len(chosen) < len(rows) and _shown_pass(driver) == _expected(chosen)
    driver.find_element(By.ID, "filter-id").send_keys("nothing has this id")
    assert _shown_pass(driver) == ("0", "-")
    text = driver.find_element(By.ID, "shown-pass").text
    assert text == f"the 0 problems shown: pass@1 - · whole run: pass@1 {whole[0]} over all {whole[1]} problems"  # fmt: skip


def test_contest_date_range(full_release, driver, driver_without_js, tmp_path):
    """From and to (both included) leave the problems of those days, with their pass@1; the
    inputs span the run's first and last day; a run without dates has no date filter, and
    without JavaScript (where it could not work) none is shown."""
    a, _ = full_release
    rows = a.rows
    days = sorted(r["contest_date"][:10] for r in rows)
    open_page(driver, a.report)
    start, end = driver.find_element(By.ID, "filter-from"), driver.find_element(By.ID, "filter-to")
    assert start.is_displayed() and end.is_displayed()
    assert (start.get_attribute("min"), start.get_attribute("max")) == (days[0], days[-1])
    assert (end.get_attribute("min"), end.get_attribute("max")) == (days[0], days[-1])
    _set_date(driver, "filter-from", "2024-01-01")
    _set_date(driver, "filter-to", "2024-03-31")
    inside = [r for r in rows if "2024-01-01" <= r["contest_date"][:10] <= "2024-03-31"]
    assert 50 < len(inside) < len(rows)
    assert _shown_pass(driver) == _expected(inside)
    assert visible_ids(driver, "problems") == [r["question_id"] for r in inside][:50]
    assert driver.find_element(By.ID, "shown-count").text == f"{len(inside)} of {len(rows)} problems"  # fmt: skip
    # one day only: both ends are included
    one = rows[7]["contest_date"][:10]
    _set_date(driver, "filter-from", one)
    _set_date(driver, "filter-to", one)
    assert visible_ids(driver, "problems") == [r["question_id"] for r in rows if r["contest_date"][:10] == one]  # fmt: skip
    _set_date(driver, "filter-to", "")
    later = [r for r in rows if r["contest_date"][:10] >= one]
    assert _shown_pass(driver) == _expected(later)

    driver_without_js.get(Path(a.report).resolve().as_uri())
    assert not driver_without_js.find_element(By.ID, "filter-from").is_displayed()
    assert not driver_without_js.find_element(By.ID, "export-csv").is_displayed()
    # the whole run's pass@1 is in the page itself
    whole = driver_without_js.find_element(By.CSS_SELECTOR, "#shown-pass [data-metric='whole-pass@1']")  # fmt: skip
    assert whole.text == pct(a.summary_data["pass@1"])

    undated = tmp_path / "undated.json"
    undated.write_text(json.dumps([{"question_id": "x", "graded_list": [True, False]}]))
    page = tmp_path / "undated.html"
    page.write_text(render_report(load_run(str(undated))))
    open_page(driver, page)
    assert driver.find_elements(By.ID, "filter-from") == []
    assert driver.find_element(By.ID, "export-csv").is_displayed()


def _download(driver, folder: Path) -> list[list[str]]:
    """Click CSV and read the file the browser saves."""
    folder.mkdir(exist_ok=True)
    driver.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)}
    )
    driver.find_element(By.ID, "export-csv").click()
    saved = folder / "problems.csv"
    deadline = time.monotonic() + 60  # a wait for the file, not a timed assertion
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    data = saved.read_bytes()
    assert b"\r\n" in data and data.endswith(b"\r\n")  # RFC 4180's line ends
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


HEADER = ["problem", "title", "url", "difficulty", "platform", "language", "contest date",
          "samples", "passed", "pass@1 (%)", "verdicts", "slowest CPU (s)"]  # fmt: skip


def test_csv_of_the_filtered_rows(full_release, driver, tmp_path):
    """Every filtered row (not one page: all of them), in the table's order, read back by
    Python's csv module; titles with commas, quotes, line breaks and other scripts survive
    the quoting."""
    a, _ = full_release
    open_page(driver, a.report)
    _choose(driver, "filter-difficulty", "hard")
    driver.find_element(By.CSS_SELECTOR, "#problems th[data-sort='5'] button").click()  # pass@1
    table = _download(driver, tmp_path / "hard")
    hard = [r for r in a.rows if r["difficulty"] == "hard"]
    assert len(hard) > 50 and table[0] == HEADER
    ordered = sorted(hard, key=lambda r: sum(r["graded_list"]) / len(r["graded_list"]))  # stable
    assert [line[0] for line in table[1:]] == [r["question_id"] for r in ordered]
    first = ordered[0]
    slowest = max(t["cpu_time"] for d in first["details"] for t in d["tests"])
    passed = sum(first["graded_list"])
    assert table[1] == [
        first["question_id"], "", "", "hard", first["platform"], "-", first["contest_date"],
        "10", str(passed), f"{10 * passed:.1f}", " ".join(d["verdict"] for d in first["details"]),
        str(round(slowest, 4)),
    ]  # fmt: skip

    titles = ['Sum, then "product"', "two, lines", "naïve — 数列", "=1+1", "plain"]
    rows = [
        {"question_id": f"p{n}", "graded_list": [n % 2 == 0], "question_title": title,
         "contest_date": f"2024-05-0{n + 1}", "url": f"https://example.org/p?n={n},x"}
        for n, title in enumerate(titles)
    ]  # fmt: skip
    rows[1]["difficulty"] = "very\nhard"  # a line break in a field (titles are one line)
    results, page = tmp_path / "r.json", tmp_path / "r.html"
    results.write_text(json.dumps(rows))
    assert invoke("report", results, "-o", page).exit_code == 0
    open_page(driver, page)
    _set_date(driver, "filter-to", "2024-05-04")
    table = _download(driver, tmp_path / "quoted")
    assert [line[:2] for line in table[1:]] == [[f"p{n}", t] for n, t in enumerate(titles[:4])]
    assert table[1][2] == "https://example.org/p?n=0,x"
    assert table[2][3] == "very\nhard" and len(table) == 5


def _settle(driver, table: str) -> None:
    """Wait until a wheel scroll has stopped moving the window and the table's box: the next
    step is computed from where they are, not from where an animation was."""
    where = None
    for _ in range(40):
        now = driver.execute_script(
            f"return [window.scrollY, document.getElementById('{table}').parentElement.scrollTop];"
        )
        if now == where:
            return
        where = now
        time.sleep(0.02)


def _header_while_reading(driver, table: str, height: int, from_table: bool = False) -> bool:
    """Scroll with the mouse wheel, the pointer over the table's first column in the window's
    middle, as a reader goes down the rows, from the page's top, until the table's 41st row
    reaches the middle; whether the header row is then on screen, above that row.

    ``from_table``: the table scrolls in a box as tall as the window (a phone without the
    script): from the box's top at the window's top, until the row reaches the middle or the
    box its end (its last rows stay in its lower half)."""
    driver.execute_script("window.scrollTo(0, 0)")
    if from_table:
        driver.execute_script(f"document.getElementById('{table}').scrollIntoView()")
    rows = f"#{table} tbody tr.item"
    x = int(driver.execute_script(
        f"return document.querySelector('{rows}').getBoundingClientRect().left + 20"
    ))  # fmt: skip
    for _ in range(400):
        top, left = driver.execute_script(
            f"var box = document.getElementById('{table}').parentElement;"
            f"return [document.querySelectorAll('{rows}')[40].getBoundingClientRect().top,"
            "  box.scrollHeight - box.clientHeight - box.scrollTop];"
        )
        if top <= height / 2 or (from_table and left <= 1):
            break
        # In the box, never more than it has left: a wheel step past its end would scroll
        # the page on (scroll chaining) and take the box's header off screen with it.
        step = max(1, min(150, int(left))) if from_table else 150
        origin = ScrollOrigin.from_viewport(x, height // 2)
        ActionChains(driver).scroll_from_origin(origin, 0, step).perform()
        _settle(driver, table)
    # The header and the row measured together, once the last wheel scroll has settled (a
    # scroll may still be moving the box after perform() returns: read apart, the two
    # rectangles could come from different scroll positions, a flaky failure at 420 px).
    head = row = None
    for _ in range(20):
        head, row = driver.execute_script(
            f"return [document.querySelector('#{table} thead th').getBoundingClientRect(),"
            f"  document.querySelectorAll('{rows}')[40].getBoundingClientRect().top];"
        )
        if row == top:
            break
        top = row
        time.sleep(0.05)
    box_end = left <= 1
    # the row on screen (in the window's upper half unless the box ended), below the header
    reached = top <= height / 2 or (from_table and box_end and top < height - 40)
    return reached and head["top"] > -1 and head["bottom"] <= top  # (-1: subpixels)


def test_header_stays_on_screen(full_release, driver, driver_without_js, tmp_path):
    """The report's and the comparison's tables, at 1400 and 420 px, with and without
    JavaScript (without it, on a phone, the table scrolls in a box as tall as the window
    whose header stays at its top: read from the table's top)."""
    a, b = full_release
    compare = tmp_path / "compare.html"
    assert invoke("compare", a.results, b.results, "-o", compare).exit_code == 0
    for page, table in ((a.report, "problems"), (compare, "pairs")):
        for width in (1400, 420):
            with phone(driver, width, 900):
                open_page(driver, page)
                assert _header_while_reading(driver, table, 900), (page.name, width)
            with phone(driver_without_js, width, 900):
                driver_without_js.get(Path(page).resolve().as_uri())
                pane = width < 1000
                assert _header_while_reading(driver_without_js, table, 900, pane), (
                    page.name,
                    width,
                )
