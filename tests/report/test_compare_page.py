"""The comparison page's marks and gaps (#46 items 9 and 11), in a real headless browser:
groups of few problems marked in its table and plots (and the report's plots), each bar's
interval drawn, plot text readable on a phone, each sample's message beside its verdict, the
runs' commands and file hashes, the --any-options caveat as a warning, the problems one run
solves alone listed without JavaScript, and the platform and contest-month breakdowns."""

from __future__ import annotations

import json
from pathlib import Path

from browser import By, cells, open_page, overflowing, phone
from report_cli import invoke

from evaluator.report.tables import SMALL_GROUP
from evaluator.summary import pct

# A run of 30 problems, one sample each: 21 on AtCoder, 9 on LeetCode (fewer than
# SMALL_GROUP: a "few" group), in two contest months of 15; A solves the even ones, B the
# ones whose number is not 1 modulo 3. Failures say which run failed them, so the page's
# messages can be told apart.
_PROBLEMS = 30
_LEETCODE = 9


def _rows(run: str) -> list[dict]:
    rows = []
    for n in range(_PROBLEMS):
        passed = n % 2 == 0 if run == "a" else n % 3 != 1
        rows.append(
            {
                "question_id": f"p{n:02d}",
                "graded_list": [passed],
                "platform": "leetcode" if n < _LEETCODE else "atcoder",
                "difficulty": "easy" if n % 2 else "hard",
                "contest_date": "2024-01-15T00:00:00" if n < 15 else "2024-02-15T00:00:00",
                "details": [
                    {
                        "verdict": "AC" if passed else "WA",
                        "passed": passed,
                        "message": ""
                        if passed
                        else f"run {run} got {n} on line 1, expected {n + 1}",
                        "tests": [],
                    }
                ],
            }
        )
    return rows


def _compare(tmp_path: Path, *extra: object) -> tuple[Path, dict]:
    """The comparison page of the two made-up runs, and its ``--json`` numbers."""
    files = []
    for run in ("a", "b"):
        path = tmp_path / f"{run}.json"
        path.write_text(json.dumps(_rows(run)))
        files.append(path)
    page = tmp_path / "compare.html"
    done = invoke("compare", *files, "-o", page, "--json", *extra)
    assert done.exit_code == 0, done.output
    return page, json.loads(done.stdout)


def _errors(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["level"] in ("SEVERE", "WARNING")]


def test_groups_of_few_problems_are_marked_in_table_and_plots(tmp_path, driver):
    """The 9-problem LeetCode row is marked ``few``, as the report marks its groups (one
    definition: SMALL_GROUP); the 21-problem AtCoder row is not; the plots mark it too."""
    page, numbers = _compare(tmp_path)
    assert numbers["by_platform"]["leetcode"]["problems"] == _LEETCODE < SMALL_GROUP
    entries, _ = open_page(driver, page)
    assert _errors(entries) == []
    small = [
        (row.get_attribute("data-section"), row.get_attribute("data-group"))
        for row in driver.find_elements(By.CSS_SELECTOR, "table.paired tr.small")
    ]
    sizes = {
        (section, name): group["problems"]
        for section, key in (
            ("difficulty", "by_difficulty"),
            ("platform", "by_platform"),
            ("contest month", "by_contest_month"),
        )  # fmt: skip
        for name, group in numbers[key].items()
    }
    assert ("platform", "leetcode") in small and ("platform", "atcoder") not in small
    assert sorted(small) == sorted(k for k, n in sizes.items() if n < SMALL_GROUP)
    assert cells(driver, "#compare-table tr[data-group='leetcode'] .few") == ["few"]
    assert cells(driver, "#compare-table tr[data-group='atcoder'] .few") == []
    assert "fewer than 10 problems" in driver.find_element(By.ID, "interval-note").text
    # both platform plots mark LeetCode and only it
    marked = driver.execute_script(
        "return Array.from(document.querySelectorAll("
        "  '.plots[data-section=\"platform\"] svg text .few-mark'))"
        ".map(m => m.parentNode.textContent)"
    )
    assert marked == ["leetcode few", "leetcode few"]


def test_report_plots_mark_few_and_draw_the_tables_interval(demo_run, driver):
    """The report's breakdown plots: each bar's whisker is the pass@1 interval its table
    row shows, and a group of few problems is marked in the plot as in the table."""
    open_page(driver, demo_run.report)
    for table in ("difficulty", "platform"):
        rows = driver.find_elements(By.CSS_SELECTOR, f"#pass-{table} tbody tr")
        plot = driver.find_element(By.CSS_SELECTOR, f"#pass-{table}").find_element(
            By.XPATH, "ancestor::div[contains(@class,'row')]//*[local-name()='svg']"
        )
        tips = driver.execute_script(
            "return Array.from(arguments[0].querySelectorAll('g.whisker title'))"
            ".map(t => t.textContent)",
            plot,
        )
        intervals = [r.find_element(By.CSS_SELECTOR, "[data-metric='interval']").text for r in rows]
        assert tips == [i for i in intervals if i != "-"] and tips
        few = driver.execute_script(
            "return Array.from(arguments[0].querySelectorAll('text .few-mark'))"
            ".map(m => m.parentNode.textContent.replace(/ few$/, ''))",
            plot,
        )
        small = [r.get_attribute("data-group") for r in rows if "small" in (r.get_attribute("class") or "")]  # fmt: skip
        assert few == small and few


def test_compare_bars_draw_each_runs_interval(full_release, driver, tmp_path):
    """Each pass@1 bar carries a whisker from its run's interval (``--json``'s a_ci/b_ci,
    each run's bootstrap, as its report shows it) to the other end, placed on the axis."""
    a, b = full_release
    page = tmp_path / "compare.html"
    done = invoke("compare", a.results, b.results, "-o", page, "--json")
    assert done.exit_code == 0, done.output
    numbers = json.loads(done.stdout)
    open_page(driver, page)
    for section, key in (("difficulty", "by_difficulty"), ("platform", "by_platform")):
        groups = ([numbers["all"]] if section == "difficulty" else []) + list(numbers[key].values())  # fmt: skip
        expected = [
            f"{pct(g[run][0])} to {pct(g[run][1])}" for g in groups for run in ("a_ci", "b_ci")
        ]
        bars = f".plots[data-section='{section}'] div:nth-child(2) svg"
        tips = driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(t => t.textContent)",
            f"{bars} g.whisker title",
        )
        assert tips == expected
        ends = driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]))"
            ".map(l => [l.x1.baseVal.value, l.x2.baseVal.value])",
            f"{bars} g.whisker line:first-of-type",
        )
        flat = [g[run] for g in groups for run in ("a_ci", "b_ci")]
        for (x1, x2), (low, high) in zip(ends, flat, strict=True):
            assert abs(x1 - (150 + 3.2 * low)) < 0.1 and abs(x2 - (150 + 3.2 * high)) < 0.1
    # the B - A plots by platform and by month carry the table's intervals too
    for section in ("platform", "contest month"):
        forest = driver.find_elements(By.CSS_SELECTOR, f".plots[data-section='{section}'] svg line.interval")  # fmt: skip
        key = "by_platform" if section == "platform" else "by_contest_month"
        assert len(forest) == len(numbers[key])


_FONT_SIZES = """
return Array.from(document.querySelectorAll('svg.plot text')).map(function (t) {
  var m = t.getScreenCTM();  // scaled, and rotated for an axis's title
  return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
});
"""


def test_plot_text_is_readable_on_a_phone(demo_run, full_release, driver, tmp_path):
    """Every plot's text renders at 11 px or more, at 1400 px and on a 420 px phone where the
    plots scale down to the screen; the page still fits the phone."""
    a, b = full_release
    page = tmp_path / "compare.html"
    assert invoke("compare", a.results, b.results, "-o", page).exit_code == 0
    for width in (1400, 420):
        with phone(driver, width, 900):
            for path in (demo_run.report, a.report, page):
                open_page(driver, path)
                sizes = driver.execute_script(_FONT_SIZES)
                assert sizes and min(sizes) >= 10.95, (width, path.name, min(sizes))
                # nothing (a tick's label set larger) reaches past the screen's edge
                assert overflowing(driver) == {"extra": 0, "elements": []}


def test_row_details_show_each_runs_message(tmp_path, driver):
    """An opened problem shows each sample's message (its first failure's difference or
    error) under its verdict, in A's and in B's column."""
    page, _ = _compare(tmp_path)
    open_page(driver, page)
    messages = {run: {r["question_id"]: r["details"][0]["message"] for r in _rows(run)} for run in "ab"}  # fmt: skip
    for key in ("p01", "p03", "p04"):  # A fails, B passes; both fail; A passes, B fails
        driver.find_element(By.CSS_SELECTOR, f"#pairs tr[data-key='{key}'] .toggle").click()
        detail = driver.find_element(
            By.XPATH, f"//table[@id='pairs']//tr[@data-key='{key}']/following-sibling::tr[1]"
        )
        for run in "AB":
            cell = detail.find_element(By.CSS_SELECTOR, f"tr.sample td[data-run='{run}']")
            shown = [e.text for e in cell.find_elements(By.CSS_SELECTOR, "pre.message")]
            expected = messages[run.lower()][key]
            assert shown == ([expected] if expected else []), (key, run)


def test_provenance_gives_each_runs_command_and_file_hashes(demo_run, driver, tmp_path):
    """The folded provenance lists, for A and for B, the grading command, the results file
    with its size and sha256, and the problems and samples files with theirs."""
    page = tmp_path / "compare.html"
    done = invoke(
        "compare", demo_run.results, demo_run.results, "--summaries", demo_run.summary,
        demo_run.summary, "-o", page,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    open_page(driver, page)
    driver.find_element(By.CSS_SELECTOR, "#runs-box summary").click()
    provenance = demo_run.summary_data["provenance"]
    [problems] = provenance["problems"]
    digest = __import__("hashlib").sha256(demo_run.results.read_bytes()).hexdigest()
    size = demo_run.results.stat().st_size
    for run in "AB":

        def field(name: str, run: str = run) -> list[str]:
            return cells(driver, f"#runs-provenance td[data-field='{name}'][data-run='{run}']")

        assert field("command") == [provenance["command"]]
        assert field("results file") == [f"{demo_run.results} ({size:,} bytes, sha256 {digest})"]
        assert field("problems") == [f"{problems['path']} ({problems['bytes']:,} bytes, sha256 {problems['sha256']})"]  # fmt: skip
        assert provenance["samples"]["sha256"] in field("samples")[0]
    # on a phone each stacked value says whose it is
    with phone(driver):
        label = driver.execute_script(
            "return getComputedStyle(document.querySelector("
            "'#runs-provenance td[data-run=\"B\"]'), '::before').content"
        )
        assert label == '"B: "'


def test_any_options_caveat_is_a_warning(demo_run, driver, tmp_path):
    """Runs graded with other options, compared with --any-options: the page says so in an
    alert box (role=alert, the warning colour, a border), not in grey note text."""
    summary = dict(demo_run.summary_data)
    summary["options"] = {**summary["options"], "judge": "float"}
    other = tmp_path / "other_summary.json"
    other.write_text(json.dumps(summary))
    page = tmp_path / "compare.html"
    done = invoke(
        "compare", demo_run.results, demo_run.results, "--summaries", demo_run.summary, other,
        "--any-options", "-o", page,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    for width in (1400, 420):
        with phone(driver, width, 900):
            open_page(driver, page)
            box = driver.find_element(By.ID, "option-differences")
            assert box.get_attribute("role") == "alert" and box.is_displayed()
            assert "output judge (problems without their own): tokens in A, float in B" in box.text
            style = driver.execute_script(
                "var s = getComputedStyle(arguments[0]), muted = getComputedStyle("
                "document.querySelector('.note')).color;"
                "return [s.color !== muted, parseFloat(s.borderTopWidth), s.backgroundColor]",
                box,
            )
            assert style[0] and style[1] >= 1 and style[2] != "rgba(0, 0, 0, 0)"
            assert box.rect["x"] + box.rect["width"] <= width


def test_problems_solved_by_one_run_are_listed_without_javascript(
    full_release, driver_without_js, tmp_path
):
    """Without JavaScript the problems only A and only B solve are listed (in A's order),
    each in a box that opens without a script, at 1400 and 420 px."""
    a, b = full_release
    page = tmp_path / "compare.html"
    done = invoke("compare", a.results, b.results, "-o", page, "--json")
    assert done.exit_code == 0, done.output
    numbers = json.loads(done.stdout)
    for width in (1400, 420):
        with phone(driver_without_js, width, 900):
            driver_without_js.get(page.resolve().as_uri())
            for run, key in (("a", "solved_only_by_a"), ("b", "solved_only_by_b")):
                box = driver_without_js.find_element(By.ID, f"only-{run}-box")
                box.find_element(By.TAG_NAME, "summary").click()
                rows = box.find_elements(By.CSS_SELECTOR, "tbody tr")
                assert [r.get_attribute("data-key") for r in rows] == numbers[key]
                assert rows[0].is_displayed() and rows[0].text.startswith(numbers[key][0])
            extra = driver_without_js.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert extra == 0


def test_platform_and_contest_month_breakdowns(full_release, driver, tmp_path):
    """The comparison breaks B - A down by platform and by contest month (the problems'
    contest dates), in its table and its plots; the report has its month table and plot."""
    a, b = full_release
    page = tmp_path / "compare.html"
    done = invoke("compare", a.results, b.results, "-o", page, "--json")
    assert done.exit_code == 0, done.output
    numbers = json.loads(done.stdout)
    months = sorted({r["contest_date"][:7] for r in a.rows})
    assert sorted(numbers["by_contest_month"]) == months and len(months) > 1
    open_page(driver, page)
    for name, group in numbers["by_contest_month"].items():
        row = f"#compare-months tr[data-section='contest month'][data-group='{name}']"
        assert cells(driver, f"{row} [data-metric='problems']") == [str(group["problems"])]
        assert cells(driver, f"{row} [data-metric='diff']") == [f"{group['diff']:+.1f} pp"]
    for section, key in (("platform", "by_platform"), ("contest month", "by_contest_month")):
        labels = driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]))"
            ".map(t => t.textContent.replace(/ few$/, ''))",
            f".plots[data-section='{section}'] svg text[text-anchor='end']",
        )
        assert set(numbers[key]) <= set(labels)
    open_page(driver, a.report)
    plot = driver.find_elements(By.CSS_SELECTOR, "#pass-section svg title")
    assert "pass@1 by contest month" in [t.get_attribute("textContent") for t in plot]
