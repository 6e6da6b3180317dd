"""``mcevaluate report``, ``compare``, ``--report`` and the demo's report, end to end through
the command line (real sandbox where something is graded)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from report_cli import invoke

from evaluator.report.stats import mcnemar_exact

GOOD = "print(sum(map(int, input().split())))"


def _self_contained(page: str) -> None:
    """Nothing the page would fetch: no external scripts, styles, images or fonts."""
    assert "<link" not in page and "<script src" not in page and "@import" not in page
    assert "<iframe" not in page and "url(" not in page
    fetched = re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page)
    assert fetched == []
    # The only URL is SVG's namespace, which is a name, not a request.
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) <= {"http://www.w3.org/2000/svg"}


def _problems(tmp_path: Path, ids: list[str]) -> Path:
    tests = json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}])
    path = tmp_path / "problems.jsonl"
    rows = [{"question_id": q, "public_test_cases": tests, "metadata": "{}"} for q in ids]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _samples(tmp_path: Path, codes: dict[str, list[str]], name: str = "samples.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"question_id": q, "code_list": c}) + "\n" for q, c in codes.items()))  # fmt: skip
    return path


def test_demo_writes_its_report_and_says_where(tmp_path):
    done = invoke("demo", "-q")
    assert done.exit_code == 0, done.output
    where = re.search(
        r"^report written to (\S+/mcevaluate-demo-\w+/report\.html)$", done.output, re.M
    )
    assert where is not None, done.output
    page = Path(where[1]).read_text(encoding="utf-8")
    shutil.rmtree(Path(where[1]).parent)
    assert "demo_pair_sums" in page and 'id="report-data"' in page
    _self_contained(page)
    as_json = invoke("demo", "-q", "--json", "--report", tmp_path / "d.html")
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout)["samples"] == 32  # the path goes to stderr
    assert f"report written to {tmp_path / 'd.html'}" in as_json.stderr


def test_grade_report_option(tmp_path):
    problems = _problems(tmp_path, ["a", "b"])
    samples = _samples(tmp_path, {"a": [GOOD, "print(4)"], "b": [GOOD, "1/0"]})
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    base = ["grade", "--problems", problems, "--samples", samples]
    done = invoke(*base, "-o", out, "--report", page, "-q")
    assert done.exit_code == 0, done.output
    assert f"report written to {page}" in done.output
    text = page.read_text()
    _self_contained(text)
    assert '<b data-metric="pass@1">50.0%</b>' in text and "ZeroDivisionError" in text
    same = invoke(*base, "-o", tmp_path / "x.json", "--report", tmp_path / "x.json")
    assert same.exit_code == 2 and "--report and --output name the same file" in same.output
    missing = invoke(*base, "--report", tmp_path / "nowhere" / "r.html")
    assert missing.exit_code == 1 and "(--report): no such directory" in missing.output


def test_report_command(demo_run, tmp_path):
    results = tmp_path / "results.json"
    shutil.copy(demo_run.results, results)
    done = invoke("report", results, "--summary", demo_run.summary)
    assert done.exit_code == 0, done.output
    page = tmp_path / "results.html"  # next to RESULTS by default
    assert done.output.startswith(f"report of 8 problems, 32 samples written to {page} (")
    text = page.read_text()
    _self_contained(text)
    # the limits every demo problem ran with, not the --time-limit none of them used
    assert '<td data-field="time limit">1 s CPU per test (all 8 problems)</td>' in text
    assert '<td data-field="memory limit">256 MB (all 8 problems)</td>' in text
    assert "release" not in re.findall(r"<th>(\w+)</th>", text)
    bare = invoke("report", results, "-o", tmp_path / "bare.html", "--k", "1,2")
    assert bare.exit_code == 0
    text = (tmp_path / "bare.html").read_text()
    assert "unknown: no --summary file given" in text and 'data-metric="pass@2"' in text
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"question_id": "a", "graded_list": "yes"}]))
    refused = invoke("report", bad)
    assert refused.exit_code == 1
    assert refused.output.strip() == (
        f"Error: {bad}: record 1: field 'graded_list': expected a list of booleans, got a string"
    )
    itself = invoke("report", results, "-o", results)
    assert itself.exit_code == 2 and "--output names RESULTS itself" in itself.output


def _results(tmp_path: Path, name: str, rows: dict[str, list[bool]]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps([{"question_id": q, "graded_list": g} for q, g in rows.items()]))
    return path


def test_compare_refuses_other_problems_unless_common(tmp_path):
    a = _results(tmp_path, "a.json", {"p1": [True], "p2": [False], "p3": [True]})
    b = _results(tmp_path, "b.json", {"p1": [True], "p2": [True], "p4": [False]})
    refused = invoke("compare", a, b)
    assert refused.exit_code == 1
    lines = [line for line in refused.output.splitlines() if line.startswith("Error")]
    assert lines == [
        f"Error: {a} and {b} grade different problems (1 only in A: 'p3', 1 only in B: 'p4'): "
        "pass --common to compare the 2 they share"
    ]
    done = invoke("compare", a, b, "--common", "--json")
    assert done.exit_code == 0, done.output
    numbers = json.loads(done.stdout)
    assert numbers["problems"] == 2 and numbers["left_out"] == {"only_in_a": 1, "only_in_b": 1}
    assert numbers["solved_only_by_b"] == ["p2"] and numbers["solved_only_by_a"] == []
    assert numbers["all"]["a_pass@1"] == 50.0 and numbers["all"]["b_pass@1"] == 100.0
    assert "options not compared" in done.stderr
    none = _results(tmp_path, "c.json", {"q": [True]})
    assert "no problem in common" in invoke("compare", a, none, "--common").output


def _demo_summary(demo_run, tmp_path: Path, **options) -> Path:
    """The demo run's summary with other ``options``."""
    summary = json.loads(demo_run.summary.read_text())
    summary["options"].update(options)
    path = tmp_path / "other_summary.json"
    path.write_text(json.dumps(summary))
    return path


def test_compare_ignores_a_time_limit_no_problem_used(demo_run, tmp_path):
    """Every demo problem has its own 1 s: a run at --time-limit 2 graded the same way."""
    other = _demo_summary(demo_run, tmp_path, time_limit=2.0, memory_limit=512)
    done = invoke("compare", demo_run.results, demo_run.results, "--summaries", demo_run.summary, other)  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "all                  8     50.0%     50.0%    +0.0 pp" in done.output


def test_compare_refuses_other_limits_or_options_unless_asked(demo_run, tmp_path):
    rows = json.loads(demo_run.results.read_text())
    rows[0]["time_limit"] = 2.0  # the problem itself ran at another limit
    slower = tmp_path / "slower.json"
    slower.write_text(json.dumps(rows))
    refused = invoke("compare", demo_run.results, slower)
    assert refused.exit_code == 1
    assert refused.output.strip() == (
        f"Error: {demo_run.results} and {slower} were graded with other options (time limit "
        "differs on 1 of 8 problems ('demo_lit_blocks': 1 s in A, 2 s in B)): pass "
        "--any-options to compare them anyway"
    )
    other = _demo_summary(demo_run, tmp_path, judge="float", environment="plain")
    args = ["compare", demo_run.results, demo_run.results, "--summaries", demo_run.summary, other]
    refused = invoke(*args)
    assert refused.exit_code == 1
    # options in words, not reprs ("None")
    assert (
        "were graded with other options (interpreter environment: each problem's own, else "
        "its platform's in A, plain in B; output judge (problems without their own): tokens in "
        "A, float in B): pass --any-options"
    ) in refused.output
    page = tmp_path / "c.html"
    done = invoke(*args, "--any-options", "-o", page)
    assert done.exit_code == 0, done.output
    assert "all                  8     50.0%     50.0%    +0.0 pp" in done.output
    assert f"comparison written to {page}" in done.output
    text = page.read_text()
    _self_contained(text)
    assert "output judge (problems without their own): tokens in A, float in B" in text
    options = re.findall(r'<td data-field="options">(.*?)</td>', text)
    assert len(options) == 2 and all("=" not in o and "None" not in o for o in options)
    assert "interpreter environment: each problem&#39;s own, else its platform&#39;s" in options[0]


def test_compare_single_samples_uses_mcnemar(tmp_path):
    # 1 problem only A solves, 5 only B solves, 2 both: McNemar's exact p = 14/64.
    a = {f"p{i}": [i in (0, 6, 7)] for i in range(8)}
    b = {f"p{i}": [i != 0] for i in range(8)}
    done = invoke(
        "compare", _results(tmp_path, "a.json", a), _results(tmp_path, "b.json", b), "--json"
    )
    numbers = json.loads(done.stdout)
    assert numbers["all"]["p_value"] == mcnemar_exact(1, 5) == 14 / 64
    assert numbers["method"]["test"].startswith("McNemar exact test")
    assert numbers["all"]["diff"] == 50.0 and numbers["all"]["discordant"] == 6
    assert numbers["solved_only_by_a"] == ["p0"] and len(numbers["solved_only_by_b"]) == 5


def test_compare_full_release(full_release, tmp_path):
    a, b = full_release
    done = invoke("compare", a.results, b.results, "--summaries", a.summary, b.summary)
    assert done.exit_code == 0, done.output
    header, rule, overall = done.output.splitlines()[2:5]
    assert header.split() == ["problems", "A", "pass@1", "B", "pass@1", "B", "-", "A", "95%", "interval", "p"]  # fmt: skip
    assert overall.split()[:4] == ["all", "1055", f"{a.summary_data['pass@1']:.1f}%", f"{b.summary_data['pass@1']:.1f}%"]  # fmt: skip
    assert "paired sign-flip permutation test" in done.output


def test_report_of_an_empty_file_says_empty(tmp_path):
    for name, content in (("r.json", ""), ("s.json", "[]"), ("t.jsonl", "\n \n")):
        path = tmp_path / name
        path.write_text(content)
        done = invoke("report", path)
        assert done.exit_code == 1
        assert done.output.strip() == f"Error: {path}: empty: the file holds no results"
        assert not (tmp_path / f"{path.stem}.html").exists()


def test_report_label_names_the_page(demo_run, tmp_path):
    page = tmp_path / "r.html"
    done = invoke("report", demo_run.results, "--summary", demo_run.summary, "-o", page, "--label", "Qwen3 & co")  # fmt: skip
    assert done.exit_code == 0, done.output
    text = page.read_text()
    assert "<title>mcevaluate report: Qwen3 &amp; co</title>" in text
    assert '<td data-field="results">' + str(demo_run.results) + "</td>" in text
