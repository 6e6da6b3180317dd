"""The report and comparison pages in a real headless browser (Debian's chromium): they load
without console errors, the numbers in the DOM are the results file's, filters and sorting
change the rows shown, program text is shown as text, never run as markup; each sample's
program and failing test, the limits each problem ran with, the provenance, the pass@1
interval, the pages without JavaScript and on a 420 px phone, and the comparison's rows
opening to their samples and linking to each run's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import By, Select, cells, open_page, overflowing, phone, screenshot, visible_ids
from report_cli import invoke
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from evaluator.report import load_run, render_report, run_from_rows
from evaluator.report.tables import SMALL_GROUP, pass1_interval
from evaluator.summary import pct

PNG = b"\x89PNG\r\n\x1a\n"


def _errors(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["level"] in ("SEVERE", "WARNING")]


def _choose(driver, select: str, value: str) -> None:
    Select(driver.find_element(By.ID, select)).select_by_value(value)


_pct = pct  # the one percentage format of the terminal and the pages


def _open(driver, table: str, key: str) -> None:
    """Open a problem's row (its samples)."""
    driver.find_element(By.CSS_SELECTOR, f"#{table} tr[data-key='{key}'] .toggle").click()


def _samples(driver) -> list[list[str]]:
    """The cell texts of each sample row of the opened problem."""
    rows = driver.find_elements(By.CSS_SELECTOR, "#problems tr.detail table.samples tr.sample")
    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in rows]


def _unfold(driver) -> None:
    """Open the folded provenance (both pages keep it closed at their end)."""
    driver.execute_script(
        "document.querySelectorAll('details.provenance').forEach(d => d.open = true)"
    )


def _text_of(driver, element) -> str:
    """An element's exact text (``.text`` trims and folds whitespace)."""
    return driver.execute_script("return arguments[0].textContent", element)


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
    # the limits the problems ran with (all 1 s), not --time-limit's default that none used
    _unfold(driver)
    assert cells(driver, "#provenance [data-field='time limit']") == ["1 s CPU per test (all 8 problems)"]  # fmt: skip
    assert cells(driver, "#provenance [data-field='grader version']") == [summary["grader_version"]]

    # The problem table: one row per problem, each one's pass@1 and samples' verdicts.
    assert visible_ids(driver, "problems") == [r["question_id"] for r in rows]
    assert driver.find_element(By.ID, "shown-count").text == f"{len(rows)} problems"
    for row in rows:
        selector = f"#problems tr[data-key='{row['question_id']}']"
        assert cells(driver, f"{selector} .c-pass1") == [f"{100 * row['pass@1']:.1f}%"]
        passed = f"{sum(row['graded_list'])}/{len(row['graded_list'])}"
        assert cells(driver, f"{selector} .c-passed") == [passed]
        assert cells(driver, f"{selector} .c-language") == [", ".join(row["languages"])]
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
    header = driver.find_element(By.CSS_SELECTOR, "#problems th[data-sort='5']")
    header.click()
    by_pass = sorted(rows, key=lambda r: r["pass@1"])
    assert visible_ids(driver, "problems") == [r["question_id"] for r in by_pass]
    header.click()
    descending = sorted(rows, key=lambda r: -r["pass@1"])
    assert visible_ids(driver, "problems") == [r["question_id"] for r in descending]

    # A problem's samples: the failing test's difference or error, stdout and stderr.
    _open(driver, "problems", "demo_pair_sums")
    row = next(r for r in rows if r["question_id"] == "demo_pair_sums")
    texts = _samples(driver)
    assert len(texts) == len(row["details"])
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
    assert cells(driver, "#headline [data-metric='diff']") == [f"{overall['diff']:+.1f} pp"]
    for name, group in numbers["by_difficulty"].items():
        row = f"#compare-table tr[data-section='difficulty'][data-group='{name}']"
        low, high = group["ci"]
        assert cells(driver, f"{row} [data-metric='ci']") == [f"{low:+.1f} pp to {high:+.1f} pp"]
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
            "code_list": [f"print({text!r})  # {text}\n{text}"],
            "failing_tests": [
                {
                    "test": 1,
                    "public": False,
                    "input": text,
                    "input_chars": 9,
                    "output": text,
                    "output_chars": 9,
                }
            ],
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
    # open every problem and every box in it: programs and tests are text there too
    for index in range(len(HOSTILE)):  # each click renders the rows again: find them anew
        driver.execute_script(
            "document.querySelectorAll(arguments[0])[arguments[1]].click()",
            f"#{table} tr.item .toggle",
            index,
        )
    for box in driver.find_elements(By.CSS_SELECTOR, f"#{table} details"):
        driver.execute_script("arguments[0].open = true", box)
    assert driver.execute_script("return window.__pwned === undefined")
    assert driver.find_elements(By.CSS_SELECTOR, f"img, #{table} tbody b, #{table} tbody i") == []
    if page == "report":
        shown = driver.execute_script(
            "return Array.from(document.querySelectorAll('pre.code'))"
            ".map(e => e.textContent.replace(/[\\ud800-\\udfff]/g, '?'))"
        )
        expected = [r["code_list"][0].replace("\ud800", "?") for r in rows]
        assert shown == expected
        inputs = driver.execute_script(
            "return Array.from(document.querySelectorAll('details.test h4 + pre'))"
            ".map(e => e.textContent.replace(/[\\ud800-\\udfff]/g, '?'))"
        )
        # each test box: its input, the program's output and the expected output (all `text`)
        assert inputs == [t.replace("\ud800", "?") for t in HOSTILE for _ in range(3)]


def test_screenshot_of_the_demo_report_is_committed():
    """docs/demo-report.png (made by tests/report/screenshots.py) is in the README."""
    root = Path(__file__).resolve().parents[2]
    picture = root / "docs" / "demo-report.png"
    assert picture.read_bytes().startswith(PNG)
    assert "docs/demo-report.png" in (root / "README.md").read_text()


def _row_texts(driver, table: str) -> list[list[str]]:
    """Each shown row's cell texts (the toggle's arrow left out)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(function (tr) {"
        "  return Array.from(tr.cells).map(function (td) {"
        "    var copy = td.cloneNode(true);"
        "    copy.querySelectorAll('.arrow').forEach(function (a) { a.remove(); });"
        "    return copy.textContent;"
        "  });"
        "})",
        f"#{table} tbody tr.item",
    )


def test_samples_show_their_program_and_failing_test(demo_run, driver):
    open_page(driver, demo_run.report)
    row = next(r for r in demo_run.rows if r["question_id"] == "demo_pair_sums")
    _open(driver, "problems", "demo_pair_sums")
    limits = driver.find_element(By.CSS_SELECTOR, "#problems tr.detail p.limits").text
    assert limits == f"Limits: {row['time_limit']:g} s CPU per test, {row['memory_limit']} MB."
    boxes = driver.find_elements(By.CSS_SELECTOR, "#problems tr.detail details.program")
    assert len(boxes) == len(row["code_list"])
    wrong = next(i for i, d in enumerate(row["details"]) if d["verdict"] == "WA")
    code = row["code_list"][wrong]
    summary = boxes[wrong].find_element(By.TAG_NAME, "summary")
    lines = code.count("\n") + (not code.endswith("\n"))
    assert summary.text == f"program: {lines} lines, {len(code)} characters"
    block = boxes[wrong].find_element(By.CSS_SELECTOR, "pre.code")
    assert not block.is_displayed()  # folded until asked for
    summary.click()
    assert block.is_displayed() and _text_of(driver, block) == code
    words = {
        cls: [_text_of(driver, e) for e in block.find_elements(By.CSS_SELECTOR, f".tk-{cls}")]
        for cls in ("k", "b", "n")
    }
    assert {"for", "in", "if", "and"} <= set(words["k"]) and {"print", "range", "int"} <= set(words["b"])  # fmt: skip
    assert "0" in words["n"]
    # its first failing test: number, whether public, input and expected output with sizes
    [failing] = row["failing_tests"]
    test_box = driver.find_elements(By.CSS_SELECTOR, "#problems tr.detail details.test")
    assert len(test_box) == sum(d["verdict"] != "AC" for d in row["details"])
    head = test_box[0].find_element(By.TAG_NAME, "summary")
    assert head.text == (
        f"failing test #{failing['test']} ({'public' if failing['public'] else 'private'}): input "
        f"{failing['input_chars']} characters, expected output {failing['output_chars']} characters"
    )
    head.click()
    shown = [_text_of(driver, e) for e in test_box[0].find_elements(By.TAG_NAME, "pre")]
    first = next(i for i, d in enumerate(row["details"]) if d["verdict"] != "AC")
    assert shown == [failing["input"], _stdout(row, first), failing["output"]]


def test_failing_tests_say_public_or_private(driver, tmp_path):
    """Our format's metadata says how many tests are public: the page says which failed."""
    tests = [{"input": f"{n}\n", "output": f"{n}\n"} for n in range(3)]
    problem = {"id": "echo", "harness": "stdin", "tests": tests, "metadata": {"public_tests": 1}}
    problems, samples = tmp_path / "p.jsonl", tmp_path / "s.jsonl"
    problems.write_text(json.dumps(problem) + "\n")
    codes = ["print(1)", "print(int(input()) % 2)"]  # fails test 1 (public); test 3 (private)
    samples.write_text(json.dumps({"question_id": "echo", "code_list": codes}) + "\n")
    page = tmp_path / "r.html"
    done = invoke("grade", "--problems", problems, "--samples", samples, "--report", page, "-q")
    assert done.exit_code == 0, done.output
    open_page(driver, page)
    _open(driver, "problems", "echo")
    assert [t[3] for t in _samples(driver)] == ["#1 (public)", "#3 (private)"]
    heads = cells(driver, "#problems details.test summary")
    assert [h.split(":")[0] for h in heads] == ["failing test #1 (public)", "failing test #3 (private)"]  # fmt: skip


def test_provenance_limits_and_interval_on_the_page(demo_run, driver):
    open_page(driver, demo_run.report)
    provenance = demo_run.summary_data["provenance"]
    label = provenance["label"]
    assert driver.title == f"mcevaluate report: {label}" and "<" in label
    assert driver.find_element(By.TAG_NAME, "h1").text == f"Grading report: {label}"
    _unfold(driver)
    field = {
        name: cells(driver, f"#provenance [data-field='{name}']")
        for name in ("label", "date", "command", "problems", "samples", "python", "platform")
    }
    assert field["label"] == [label] and field["date"] == [provenance["date"]]
    assert field["command"] == [provenance["command"]]  # (here: pytest's, the process's own)
    [problems] = provenance["problems"]
    assert field["problems"] == [f"{problems['path']} ({problems['bytes']:,} bytes, sha256 {problems['sha256']})"]  # fmt: skip
    assert provenance["samples"]["sha256"] in field["samples"][0]
    assert field["python"] == [provenance["python"]] and field["platform"] == [
        provenance["platform"]
    ]
    # options in words: no Python reprs anywhere in the Run table
    values = cells(driver, "#provenance td")
    assert not {"None", "True", "False"} & {w.strip("(),") for v in values for w in v.split()}
    assert cells(driver, "#provenance [data-field='interpreter environment']") == ["each problem's own, else its platform's"]  # fmt: skip
    # the plots mark the limits the problems ran with
    labels = cells(driver, "svg .limit-label")
    assert labels[0].startswith("limit 1 s (") and labels[1].startswith("limit 256 MB (")
    assert cells(driver, "svg text[transform]") == ["tests", "tests"]  # both count axes
    # pass@1 with its bootstrap interval; groups of few problems marked
    run = load_run(str(demo_run.results))
    low, high = pass1_interval(run.problems)
    interval = driver.find_element(By.ID, "headline-interval").text
    assert interval == f"(95% interval {pct(low)} to {pct(high)}, few problems)"
    small = [r.get_attribute("data-group") for r in driver.find_elements(By.CSS_SELECTOR, "table.pass tr.small")]  # fmt: skip
    sizes = {**demo_run.summary_data["by_difficulty"], **demo_run.summary_data["by_platform"]}
    assert {n for n, g in sizes.items() if g["problems"] < SMALL_GROUP} <= set(small) and small
    # WA and RE chips: each its own colour, the page's
    colours = {
        v: driver.execute_script(
            "var chip = document.querySelector('#verdicts .chip.v-' + arguments[0]);"
            "return getComputedStyle(chip).backgroundColor", v)
        for v in ("WA", "RE", "AC")
    }  # fmt: skip
    assert len(set(colours.values())) == 3


def test_pages_read_without_javascript(demo_run, full_release, driver, driver_without_js, tmp_path):
    """The first page of each table is in the HTML, as the script renders it, with a notice
    that the rest needs JavaScript."""
    compare = tmp_path / "compare.html"
    a, b = full_release
    assert invoke("compare", a.results, b.results, "-o", compare).exit_code == 0
    for page, table, count in ((demo_run.report, "problems", 8), (a.report, "problems", 50), (compare, "pairs", 50)):  # fmt: skip
        driver_without_js.get(Path(page).resolve().as_uri())
        assert driver_without_js.find_element(By.ID, "noscript").is_displayed()
        plain = _row_texts(driver_without_js, table)
        assert len(plain) == count
        assert driver_without_js.find_element(By.ID, "shown-count").text == ""  # no script ran
        open_page(driver, page)
        assert driver.find_elements(By.ID, "noscript") == [] or not driver.find_element(By.ID, "noscript").is_displayed()  # fmt: skip
        assert _row_texts(driver, table) == plain


def test_pages_fit_a_phone(demo_run, full_release, driver, tmp_path):
    """At 420 px the page itself never scrolls sideways: wide tables scroll in their box,
    plots scale down."""
    compare = tmp_path / "compare.html"
    a, b = full_release
    assert invoke("compare", a.results, b.results, "-o", compare).exit_code == 0
    with phone(driver):
        for page, table, key in ((demo_run.report, "problems", "demo_pair_sums"), (compare, "pairs", a.rows[0]["question_id"])):  # fmt: skip
            open_page(driver, page)
            _open(driver, table, key)
            for box in driver.find_elements(By.CSS_SELECTOR, "details"):
                driver.execute_script("arguments[0].open = true", box)
            assert driver.execute_script("return document.documentElement.clientWidth") == 420
            assert overflowing(driver) == {"extra": 0, "elements": []}
            widths = driver.execute_script(
                "return Array.from(document.querySelectorAll('svg.plot'))"
                ".map(e => e.getBoundingClientRect().width)"
            )
            assert widths and max(widths) <= 420
        # wide tables do not fit: they scroll inside their box
        assert driver.execute_script(
            "var box = document.querySelector('#compare-table').parentElement;"
            "return box.scrollWidth > box.clientWidth && getComputedStyle(box).overflowX === 'auto'"
        )


def test_compare_rows_open_to_samples_and_link_to_reports(full_release, driver, tmp_path):
    a, b = full_release
    page = tmp_path / "compare.html"
    done = invoke("compare", a.results, b.results, "-o", page)
    assert done.exit_code == 0, done.output
    open_page(driver, page)
    by_id = {r["question_id"]: r for r in b.rows}
    row = next(
        r for r in a.rows
        if [d["verdict"] for d in r["details"]] != [d["verdict"] for d in by_id[r["question_id"]]["details"]]
    )  # fmt: skip
    key = row["question_id"]
    driver.find_element(By.ID, "filter-id").send_keys(key)
    _open(driver, "pairs", key)
    samples = driver.find_elements(By.CSS_SELECTOR, "#pairs tr.detail tr.sample")
    a_verdicts = [d["verdict"] for d in row["details"]]
    b_verdicts = [d["verdict"] for d in by_id[key]["details"]]
    # each cell's first line: the verdict (its message, when it has one, below it)
    shown = [[c.text.split("\n")[0] for c in tr.find_elements(By.TAG_NAME, "td")] for tr in samples]  # fmt: skip
    assert [s[1:3] for s in shown] == [
        list(pair) for pair in zip(a_verdicts, b_verdicts, strict=True)
    ]
    changed = [i for i, (x, y) in enumerate(zip(a_verdicts, b_verdicts, strict=True)) if x != y]
    assert [i for i, s in enumerate(shown) if s[3] == "changed"] == changed and changed
    assert len(driver.find_elements(By.CSS_SELECTOR, "#pairs tr.sample.changed")) == len(changed)
    links = driver.find_elements(By.CSS_SELECTOR, "#pairs tr.detail p.links a")
    assert [link.get_attribute("data-run") for link in links] == ["A", "B"]
    assert links[0].get_attribute("href") == a.report.resolve().as_uri() + f"#problem={key}"
    assert links[1].get_attribute("href") == b.report.resolve().as_uri() + f"#problem={key}"
    _unfold(driver)
    assert cells(driver, "#runs [data-field='report'] a") == ["A's report", "B's report"]
    links[1].click()  # B's report opens on that problem, its samples shown
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.body.dataset.ready")
    )
    opened = driver.find_elements(
        By.CSS_SELECTOR, f"#problems tr.item[data-key='{key}'] + tr.detail"
    )
    assert len(opened) == 1 and len(_samples(driver)) == len(b_verdicts)


def test_back_shows_the_table_its_filter_menu_says(full_release, driver, tmp_path):
    """compare -> report -> Back: the filter menu's choice and the table agree (they did not:
    "solved by B only" chosen, all problems listed), on the comparison and the report page."""
    a, b = full_release
    compare = tmp_path / "compare.html"
    done = invoke("compare", a.results, b.results, "--summaries", a.summary, b.summary, "-o", compare)  # fmt: skip
    assert done.exit_code == 0, done.output
    report = tmp_path / "report.html"
    assert invoke("report", a.results, "--summary", a.summary, "-o", report).exit_code == 0
    for page, away, choose in (
        (compare, report, ("filter-outcome", "b")),
        (report, compare, ("filter-verdict", "unsolved")),
    ):
        open_page(driver, page)
        everything = driver.find_element(By.ID, "shown-count").text
        _choose(driver, *choose)
        filtered = driver.find_element(By.ID, "shown-count").text
        assert filtered != everything
        driver.get(away.resolve().as_uri())
        driver.back()
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script(
                "return document.readyState === 'complete' && !!document.body.dataset.ready"
            )
        )
        chosen = Select(driver.find_element(By.ID, choose[0])).first_selected_option
        shown = driver.find_element(By.ID, "shown-count").text
        expected = filtered if chosen.get_attribute("value") == choose[1] else everything
        assert shown == expected, (page.name, chosen.get_attribute("value"), shown)


def _stdout(row: dict, sample: int) -> str:
    """What a sample's program wrote on its first failing test (the results' excerpt)."""
    tests = row["details"][sample]["tests"]
    return next(t for t in tests if t["verdict"] not in ("AC", "SKIPPED")).get("stdout") or ""


def _first_difference(driver, box) -> list[str]:
    """The marked first differing line of the actual and the expected output, in that order."""
    return [_text_of(driver, e) for e in box.find_elements(By.CSS_SELECTOR, ".outputs .first-diff")]


def test_failing_output_beside_expected_with_first_difference(demo_run, driver):
    """The program's output sits beside the expected output (stacked on a phone), its first
    differing line marked in both, and the program's lines are numbered outside its text."""
    open_page(driver, demo_run.report)
    row = next(r for r in demo_run.rows if r["question_id"] == "demo_pair_sums")
    wrong = next(i for i, d in enumerate(row["details"]) if d["verdict"] == "WA")
    [failing] = row["failing_tests"]
    _open(driver, "problems", "demo_pair_sums")
    before = sum(d["verdict"] != "AC" for d in row["details"][:wrong])  # test boxes above
    box = driver.find_elements(By.CSS_SELECTOR, "#problems tr.detail details.test")[before]
    box.find_element(By.TAG_NAME, "summary").click()
    actual, expected = box.find_elements(By.CSS_SELECTOR, ".outputs pre")
    stdout = _stdout(row, wrong)
    assert _text_of(driver, actual) == stdout and _text_of(driver, expected) == failing["output"]
    got, want = stdout.split("\n"), failing["output"].split("\n")
    line = next(
        i for i, (x, y) in enumerate(zip(got, want, strict=False)) if x.rstrip() != y.rstrip()
    )
    assert _first_difference(driver, box) == [got[line], want[line]]
    column = next(i for i, (x, y) in enumerate(zip(got[line], want[line], strict=False)) if x != y)
    marks = [_text_of(driver, m) for m in box.find_elements(By.CSS_SELECTOR, ".first-diff mark")]
    assert marks == [got[line][column], want[line][column]]
    note = box.find_element(By.CSS_SELECTOR, ".diff-note").text
    assert note == f"first difference: line {line + 1}, character {column + 1}"
    left, right = (e.rect for e in (actual, expected))
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 2  # beside
    with phone(driver):
        left, right = (e.rect for e in (actual, expected))
        assert right["y"] >= left["y"] + left["height"]  # stacked
    # the program's lines numbered in a gutter that copying the code leaves out
    program = driver.find_elements(By.CSS_SELECTOR, "#problems tr.detail details.program")[wrong]
    program.find_element(By.TAG_NAME, "summary").click()
    code = row["code_list"][wrong]
    gutter = program.find_element(By.CSS_SELECTOR, ".listing pre.gutter")
    count = code.count("\n") + (not code.endswith("\n"))
    assert _text_of(driver, gutter).split("\n") == [str(n) for n in range(1, count + 1)]
    assert (
        driver.execute_script("return getComputedStyle(arguments[0]).userSelect", gutter) == "none"
    )
    assert gutter.get_attribute("aria-hidden") == "true"
    block = program.find_element(By.CSS_SELECTOR, "pre.code")
    assert _text_of(driver, block) == code
    # each number stands level with its line
    assert (
        gutter.rect["y"] == block.rect["y"]
        and abs(gutter.rect["height"] - block.rect["height"]) < 2
    )


def _contrast(one: list[float], two: list[float]) -> float:
    """WCAG 2's contrast ratio of two sRGB colours (0-255 channels)."""

    def luminance(rgb: list[float]) -> float:
        linear = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]  # fmt: skip
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# Each link-like text's colour and the background it stands on: the first ancestor's (or its
# own) background colour that is not transparent, from the computed styles.
_COLOURS = """
function rgb(text) { return text.match(/[\\d.]+/g).map(Number); }
return Array.from(document.querySelectorAll(arguments[0])).filter(function (e) {
  return e.getClientRects().length;
}).map(function (e) {
  var back = e;
  while (back && rgb(getComputedStyle(back).backgroundColor).length === 4
         && rgb(getComputedStyle(back).backgroundColor)[3] === 0) back = back.parentElement;
  var bg = back ? rgb(getComputedStyle(back).backgroundColor).slice(0, 3) : [255, 255, 255];
  return [e.tagName + "." + e.className + ": " + e.textContent.slice(0, 30),
          rgb(getComputedStyle(e).color).slice(0, 3), bg];
});
"""


def test_keyboard_sorting_opening_focus_and_contrast(full_release, driver, tmp_path):
    """Sort headers are buttons (Tab, Enter, Space) with aria-sort; a problem opens by its id
    (a button), focus goes into its samples and back to the id when it closes; boxes opened
    in one problem stay open when another opens; links and buttons' text contrast 4.5:1."""
    a, b = full_release
    compare = tmp_path / "compare.html"
    assert invoke("compare", a.results, b.results, "-o", compare).exit_code == 0
    for page, table, sort in ((a.report, "problems", "5"), (compare, "pairs", "5")):
        open_page(driver, page)
        th = driver.find_element(By.CSS_SELECTOR, f"#{table} th[data-sort='{sort}']")
        button = th.find_element(By.TAG_NAME, "button")
        assert button.get_attribute("tabIndex") == "0"
        button.send_keys(Keys.ENTER)
        assert th.get_attribute("aria-sort") == "ascending"
        th.find_element(By.TAG_NAME, "button").send_keys(Keys.SPACE)
        assert th.get_attribute("aria-sort") == "descending"
        first, second = visible_ids(driver, table)[:2]
        # the id is the button: clicking it opens the row, focus lands in its samples
        toggle = driver.find_element(
            By.CSS_SELECTOR, f"#{table} tr[data-key='{first}'] .c-id button"
        )
        assert toggle.text.endswith(first) and toggle.get_attribute("aria-expanded") == "false"
        toggle.click()
        assert driver.execute_script(
            "var e = document.activeElement, row = e.closest('tr.detail');"
            "return !!row && row.previousElementSibling.dataset.key === arguments[0]",
            first,
        )
        # a box opened in the first problem stays open when the second opens
        box = driver.find_element(
            By.CSS_SELECTOR, f"#{table} tr.detail details, #{table} tr.detail a"
        )
        if box.tag_name == "details":
            box.find_element(By.TAG_NAME, "summary").click()
        driver.find_element(By.CSS_SELECTOR, f"#{table} tr[data-key='{second}'] .c-id button").send_keys(Keys.ENTER)  # fmt: skip
        assert len(driver.find_elements(By.CSS_SELECTOR, f"#{table} tr.detail")) == 2
        if box.tag_name == "details":
            assert box.get_attribute("open") is not None  # the same box, still open
        for details in driver.find_elements(By.CSS_SELECTOR, "details"):
            driver.execute_script("arguments[0].open = true", details)
        colours = driver.execute_script(_COLOURS, "a, summary, button, th, .note, .muted, h4")
        low = [(what, round(_contrast(fg, bg), 2)) for what, fg, bg in colours if _contrast(fg, bg) < 4.5]  # fmt: skip
        assert colours and low == [], low
        # closing by keyboard: focus back on the row's own button
        driver.find_element(By.CSS_SELECTOR, f"#{table} tr[data-key='{first}'] .c-id button").send_keys(Keys.ENTER)  # fmt: skip
        assert driver.execute_script(
            "var e = document.activeElement;"
            "return e.classList.contains('toggle') && e.closest('tr').dataset.key === arguments[0]"
            " && e.getAttribute('aria-expanded') === 'false'",
            first,
        )


# Each matched element's box in the window: [left, right, top, bottom] in CSS pixels.
_BOXES = (
    "return Array.from(document.querySelectorAll(arguments[0])).map(function (e) {"
    "  var r = e.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; })"
)


def _on_screen(driver, selector: str, width: int, height: int) -> bool:
    """Every element matching ``selector`` (at least one) lies within the first screen."""
    boxes = driver.execute_script(_BOXES, selector)
    return bool(boxes) and all(
        left >= 0 and right <= width and bottom <= height for left, right, _, bottom in boxes
    )


def _top(driver, selector: str) -> float:
    return driver.execute_script(_BOXES, selector)[0][2]


def test_headline_and_tables_come_first_provenance_folded(full_release, driver, tmp_path):
    """At 1400x900 and at 420 px the first screen holds pass@1, its interval and the verdict
    chips (the report) and B - A with its p by group (the comparison); the problem table
    follows the breakdowns; provenance is folded at the end."""
    a, b = full_release
    compare = tmp_path / "compare.html"
    assert invoke("compare", a.results, b.results, "-o", compare).exit_code == 0
    for width in (1400, 420):
        with phone(driver, width, 900):
            open_page(driver, a.report)
            for selector in ("#headline [data-metric='pass@1']", "#headline-interval", "#headline-verdicts .chip"):  # fmt: skip
                assert _on_screen(driver, selector, width, 900), (width, selector)
            chips = cells(driver, "#headline-verdicts .chip")
            assert chips == cells(driver, "#verdicts .chip") and chips
            assert _top(driver, "#pass-all") < 900
            assert _top(driver, "#pass-all") < _top(driver, "#problems") < _top(driver, "#verdicts")
            assert _top(driver, "#problems") < 2 * 900 or width < 1400
            assert not driver.find_element(By.ID, "provenance").is_displayed()
            assert _top(driver, "details.provenance") > _top(driver, "#problems")
            assert overflowing(driver) == {"extra": 0, "elements": []}
            open_page(driver, compare)
            assert _on_screen(driver, "#headline", width, 900)
            # the overall row's B - A and p, and every group's, without scrolling sideways
            for metric in ("diff", "p"):
                assert _on_screen(driver, f"#compare-table tr[data-group='all'] [data-metric='{metric}']", width, 900)  # fmt: skip
                lefts = driver.execute_script(_BOXES, f"#compare-table [data-metric='{metric}']")
                assert all(right <= width for _, right, _, _ in lefts)
            assert not driver.find_element(By.ID, "runs").is_displayed()
            assert _top(driver, "details.provenance") > _top(driver, "#pairs")
            assert overflowing(driver) == {"extra": 0, "elements": []}


def test_problems_show_their_title_and_page(driver, tmp_path):
    """A LeetCode problem is a bare number: its title shows under it and the id filter finds
    it by title; an AtCoder problem links to its task page (built from its contest id)."""
    rows = [
        {"question_id": "3034", "graded_list": [False], "platform": "leetcode",
         "question_title": "Number of Subarrays That Match a Pattern I"},
        {"question_id": "abc311_e", "graded_list": [True], "platform": "atcoder",
         "contest_id": "abc311", "question_title": "Defect-free Squares"},
        {"question_id": "plain", "graded_list": [True]},
    ]  # fmt: skip
    results = tmp_path / "r.json"
    results.write_text(json.dumps(rows))
    page = tmp_path / "report.html"
    page.write_text(render_report(load_run(str(results))))
    entries, _ = open_page(driver, page)
    assert _errors(entries) == []
    titles = {
        row.get_attribute("data-key"): row.find_element(By.CSS_SELECTOR, ".c-id").text
        for row in driver.find_elements(By.CSS_SELECTOR, "#problems tbody tr[data-key]")
    }
    assert "Number of Subarrays That Match a Pattern I" in titles["3034"]
    assert "Defect-free Squares" in titles["abc311_e"] and titles["plain"].endswith("plain")
    link = driver.find_element(By.CSS_SELECTOR, "#problems tr[data-key='abc311_e'] a.problem-link")
    assert link.get_attribute("href") == "https://atcoder.jp/contests/abc311/tasks/abc311_e"
    assert driver.find_elements(By.CSS_SELECTOR, "#problems tr[data-key='3034'] a") == []
    search = driver.find_element(By.ID, "filter-id")
    search.send_keys("subarrays that match")
    assert visible_ids(driver, "problems") == ["3034"]


def test_livecodebench_eval_all_shows_its_failing_test(driver, tmp_path):
    """LiveCodeBench's own eval_all (vendored): a wrong answer's row shows the failing test
    it recorded (its input and expected output, beside the program's output), said to have no
    number, where the page showed only the error message."""
    source = Path(__file__).resolve().parents[1] / "data" / "lcb_submissions"
    source = source / "O1-Mini-2024-09-12_N1_codegeneration_eval_all.json"
    run = load_run(str(source))
    problem = next(p for p in run.problems if any(s.verdict == "WA" for s in p.samples))
    test = problem.failing_tests[0]
    page = tmp_path / "lcb.html"
    page.write_text(render_report(run))
    entries, _ = open_page(driver, page)
    assert _errors(entries) == []
    _open(driver, "problems", problem.id)
    detail = driver.find_element(By.CSS_SELECTOR, "#problems tr.detail")
    assert "not numbered" in [row[3] for row in _samples(driver)]
    for box in detail.find_elements(By.CSS_SELECTOR, "details"):
        driver.execute_script("arguments[0].open = true", box)
    text = _text_of(driver, detail)
    assert "the failing test, its number not recorded" in text
    assert test.input[:40] in text and test.output[:40] in text
    # it records no test's CPU time or memory: said, not two empty plots
    assert driver.find_element(By.ID, "no-measures").is_displayed()
    assert driver.find_elements(By.CSS_SELECTOR, "#resources-section svg") == []


def test_difficulty_sorts_easy_medium_hard(demo_run, driver):
    """The difficulty column sorts by difficulty (easy, medium, hard), not alphabetically
    (easy, hard, medium), and the other way round on a second click."""
    open_page(driver, demo_run.report)
    header = driver.find_element(By.CSS_SELECTOR, "#problems th[data-sort='1'] button")
    header.click()
    shown = cells(driver, "#problems tbody tr.item .c-difficulty")
    order = {"easy": 0, "medium": 1, "hard": 2}
    assert shown == sorted(shown, key=order.__getitem__) and "hard" in shown
    header.click()
    shown = cells(driver, "#problems tbody tr.item .c-difficulty")
    assert shown == sorted(shown, key=order.__getitem__, reverse=True)
