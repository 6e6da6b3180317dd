"""What the pages say, checked on their HTML: limits per problem, intervals and the warnings
that come with them, options in words, the first page of rows rendered without JavaScript,
and the histograms' axes."""

from __future__ import annotations

import re

import pytest

from evaluator.report import load_run, render_report, run_from_rows, svg
from evaluator.report.pagedata import PAGE_SIZE, first_problems
from evaluator.report.tables import SMALL_GROUP, pass1_interval
from evaluator.report.words import limits_text, option_rows, seconds
from evaluator.summary import fixed, k_warnings, limit_counts, pct, summarize


def _row(qid: str, graded: list[bool], **extra) -> dict:
    return {"question_id": qid, "graded_list": graded, **extra}


def test_one_percentage_format():
    assert [pct(None), pct(50.0), pct(43.75), pct(100)] == ["-", "50.0%", "43.8%", "100.0%"]


def test_rounding_as_the_pages_script_rounds():
    """toFixed rounds the exact binary value half away from zero; the first page rendered
    here must read as the script renders it (Python's format rounds half to even)."""
    assert f"{6.25:.1f}" == "6.2" and fixed(6.25, 1) == "6.3"
    assert fixed(1.005, 2) == "1.00"  # 1.005 is 1.00499... in binary, as toFixed sees it
    assert [seconds(None), seconds(0.00041), seconds(1.045), seconds(12.5)] == [
        "-",
        "0.4 ms",
        "1.04 s",
        "12.50 s",
    ]


def test_a_rate_is_rounded_once():
    """253 of 269 problems (94.052%): the summary keeps the rate unrounded at the shown
    precision, so the terminal, the report and the pages' script (toFixed on 100 x the
    rate) all read 94.1%, not 94.0% (94.05, then 94.0) beside 94.1%."""
    rows = [
        _row(f"p{i}", [i < 253], difficulty="easy", platform="atcoder", details=[])
        for i in range(269)
    ]
    summary = summarize(rows, [1])
    easy = summary["by_difficulty"]["easy"]["pass@1"]
    assert pct(summary["pass@1"]) == pct(easy) == f"{fixed(100 * 253 / 269, 1)}%" == "94.1%"
    assert pct(6.25) == "6.3%"  # the script's half-up, not Python's half-even "6.2%"


def test_options_and_limits_in_words():
    rows = dict(option_rows({"environment": None, "early_exit": True, "time_limit": 6.0, "judge": "lines"}))  # fmt: skip
    assert rows == {
        "interpreter environment": "each problem's own, else its platform's",
        "stop at the first failing test": "yes",
        "time limit (problems without their own)": "6 s CPU per test",
        "output judge (problems without their own)": "lines",
    }
    assert limits_text([1.0] * 8, "s") == "1 s (all 8 problems)"
    assert limits_text([2.0, 1.0, 1.0], "MB") == "1 MB (2 problems), 2 MB (1 problem)"


def test_k_warnings_and_limit_counts():
    assert k_warnings([4, 4], [1, 10]) == [
        "--k 10: no problem has 10 samples (the most is 4): pass@10 is not computed"
    ]
    assert k_warnings([10, 3, 12], [1, 10]) == [
        "--k 10: 1 of 3 problems have fewer than 10 samples and are left out of pass@10"
    ]
    assert k_warnings([10, 10], [1, 10]) == []
    rows = [{"time_limit": 1.0, "memory_limit": 256}] * 2 + [{"time_limit": 2.0, "memory_limit": 256}, {}]  # fmt: skip
    assert limit_counts(rows) == [
        {"time_limit": 1.0, "memory_limit": 256, "problems": 2},
        {"time_limit": 2.0, "memory_limit": 256, "problems": 1},
    ]


def test_report_uses_the_limits_each_problem_ran_with(demo_run):
    """Every demo problem ran at 1 s / 256 MB (--time-limit was the default 6 s)."""
    assert demo_run.summary_data["options"]["time_limit"] == 6.0
    assert demo_run.summary_data["limits"] == [{"time_limit": 1.0, "memory_limit": 256, "problems": 8}]  # fmt: skip
    page = demo_run.report.read_text()
    assert '<td data-field="time limit">1 s CPU per test (all 8 problems)</td>' in page
    # the TLE at just over 1 s is over its limit; the MLE above 256 MB too
    tle = [t["cpu_time"] for r in demo_run.rows for d in r["details"] for t in d["tests"] if t["verdict"] == "TLE"]  # fmt: skip
    assert tle and all(1.0 < t < 6.0 for t in tle)
    assert f"limit 1 s ({len(tle)} over)" in page and "limit 6 s" not in page
    heavy = [t for r in demo_run.rows for d in r["details"] for t in d["tests"] if t["peak_memory_kb"] > 256 * 1024]  # fmt: skip
    assert heavy and f"limit 256 MB ({len(heavy)} over)" in page


def test_interval_and_small_groups(demo_run, full_release):
    run = load_run(str(demo_run.results), str(demo_run.summary))
    low, high = pass1_interval(run.problems)
    page = demo_run.report.read_text()
    assert f"(95% interval {pct(low)} to {pct(high)}, <span class=\"few\">few problems</span>)" in page  # fmt: skip
    assert low < demo_run.summary_data["pass@1"] < high
    # the demo's one hard problem: no interval (one problem resampled is itself), marked few
    hard = re.search(r'<tr data-group="hard" class="small">(.*?)</tr>', page, re.S)
    assert hard and '<span class="few">few</span>' in hard[1]
    assert '<td class="num" data-metric="interval">-</td>' in hard[1]
    big = full_release[0].report.read_text()
    row = re.search(r'<tr data-group="all">(.*?)</tr>', big, re.S)
    assert row and "few" not in row[1] and len(full_release[0].rows) >= SMALL_GROUP
    full = load_run(str(full_release[0].results))
    low, high = pass1_interval(full.problems)
    assert 0 < high - low < 10  # 1,055 problems: a few points wide
    assert f"{pct(low)} to {pct(high)}" in row[1]


def test_k_beyond_the_samples_is_a_warning(demo_run, tmp_path):
    from report_cli import invoke

    page = tmp_path / "r.html"
    done = invoke("report", demo_run.results, "--k", "1,10", "-o", page)
    assert done.exit_code == 0, done.output
    expected = "warning: --k 10: no problem has 10 samples (the most is 4): pass@10 is not computed"
    assert done.stderr.strip() == expected
    assert 'data-warning="k">Warning: --k 10: no problem has 10 samples' in page.read_text()
    quiet = invoke("report", demo_run.results, "--k", "1,4", "-o", page)
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_first_page_is_in_the_html(full_release):
    run = load_run(str(full_release[0].results))
    rows = first_problems(run)
    assert [r["id"] for r in rows] == [p.id for p in run.problems[:PAGE_SIZE]]
    page = full_release[0].report.read_text()
    body = re.search(r'<table id="problems">.*?<tbody>(.*?)</tbody>', page, re.S)
    assert body is not None
    keys = re.findall(r'<tr class="item" data-key="([^"]*)">', body[1])
    assert keys == [p.id for p in run.problems[:PAGE_SIZE]] and len(keys) == 50
    assert "<noscript>" in page


def test_report_title_is_the_label(tmp_path):
    rows = [_row("a", [True])]
    run = run_from_rows(rows, "results.json", {"samples": 1, "provenance": {"label": "Qwen3-8B"}})
    page = render_report(run)
    assert "<title>mcevaluate report: Qwen3-8B</title>" in page
    assert '<td data-field="results">results.json</td>' in page
    run.name = "tuned <b>"
    assert "<h1>Grading report: tuned &lt;b&gt;</h1>" in render_report(run)


def test_histogram_axes_and_limits():
    plot = str(svg.histogram([0.1, 0.1, 0.1, 0.5, 2.0, 0.0], title="t", unit="s", limits=[1, 1, 1, 1, 1, 3]))  # fmt: skip
    ticks = re.findall(r'text-anchor="end" class="tick">(\d+)</text>', plot)
    assert ticks == ["0", "1", "3"]  # the count axis: 0, half and the tallest bin (three 0.1 s)
    assert ">tests</text>" in plot and "1 at 0 not shown" in plot
    assert "limits 1-3 s (1 over their own)" in plot  # 2 s is over 1 s, the 0 s test under 3 s
    assert plot.count('class="limit"') == 2
    single = str(svg.histogram([0.5, 1.5], title="t", unit="s", limits=[1.0, 1.0]))
    assert "limit 1 s (1 over)" in single


@pytest.mark.parametrize("count", [1, 2, 7])
def test_histogram_count_axis_ends_at_the_tallest_bar(count):
    plot = str(svg.histogram([0.25] * count, title="t", unit="s"))
    ticks = re.findall(r'text-anchor="end" class="tick">(\d+)</text>', plot)
    assert ticks[0] == "0" and ticks[-1] == str(count)


def test_only_python_is_coloured_as_python():
    """A C++ program is shown plain (Python's tokenizer would colour `#include` a comment and
    `'a'` a string of any length); a Python one, and one whose language is not recorded, is
    highlighted. The same text in both languages gets one entry each."""
    from evaluator.report.pagedata import report_data

    program = '#include <cstdio>\nint main() { puts("hi"); }\n'
    rows = [
        _row("cpp", [True], code_list=[program], languages=["cpp"]),
        _row("py", [True], code_list=[program], languages=["python"]),
        _row("unsaid", [True], code_list=["print('hi')\n"]),
    ]
    data = report_data(run_from_rows(rows, "r"))
    shown = {p[0]: data["programs"][p[5][0][10]] for p in data["problems"]}
    assert shown["cpp"][0] == program and shown["cpp"][1] == []
    assert shown["py"][0] == program and shown["py"][1] != []
    assert shown["unsaid"][1] != []
