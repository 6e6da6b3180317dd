"""What a verdict hides (#46 item 10), for a run graded for real and its report in Chromium:
an answer in which extraction found no code is NO_CODE (not WA; still a failure), its raw
answer is shown (as text) and it plots no time; a TLE says which limit ended it (the CPU
time limit or the wall-clock backstop), in the results and on the page; the compiler's and
the interpreter's versions and the build flags are in the provenance."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest
from browser import By, cells, open_page, overflowing, phone
from report_cli import invoke

from evaluator.report import load_run

SUM_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM_CPP = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'
# an answer whose program extraction loses: code with no fence (4,000+ characters), and
# markup that must stay text on the page
LOST = "Here is my solution <script>window.injected = 1</script>, no fence:\n\n" + "\n".join(
    f"def helper_{i}(x):\n    return x + {i}  # <b>step {i}</b>" for i in range(80)
)


def _fenced(code: str, tag: str = "python") -> str:
    return f"Solution:\n```{tag}\n{code}```\n"


def _tests(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"input": i, "output": o, "testtype": "stdin"} for i, o in pairs])


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _problem(qid: str, private: bool = True) -> dict:
    return {
        "question_id": qid,
        "public_test_cases": _tests(("1 2\n", "3\n")),
        "private_test_cases": _tests(("5 5\n", "10\n")) if private else "[]",
        "metadata": "{}",
        "platform": "atcoder",
        "difficulty": "easy",
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """``mcevaluate grade`` on raw answers: a (NO_CODE, AC), b (a spin and a sleep at a 1 s
    limit: TLE by CPU time and by the backstop, one test each), c (C++, AC)."""
    folder = tmp_path_factory.mktemp("verdicts")
    problems = _jsonl(
        folder / "problems.jsonl", [_problem("a"), _problem("b", False), _problem("c")]
    )
    samples = _jsonl(
        folder / "samples.jsonl",
        [
            {"question_id": "a", "output_list": [LOST, _fenced(SUM_PY)]},
            {
                "question_id": "b",
                "output_list": [
                    _fenced("while True:\n    pass\n"),
                    _fenced("import time\ntime.sleep(60)\n"),
                ],
            },
            {"question_id": "c", "output_list": [_fenced(SUM_CPP, "cpp")]},
        ],
    )
    results, summary, report = folder / "r.json", folder / "s.json", folder / "r.html"
    done = invoke(
        "grade", "--problems", problems, "--samples", samples, "-o", results,
        "--summary", summary, "--report", report, "--time-limit", "1", "--workers", "2", "-q",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = {row["question_id"]: row for row in json.loads(results.read_text())}
    return results, json.loads(summary.read_text()), report, rows


def test_no_code_is_its_own_verdict_and_still_a_failure(graded):
    results, summary, _, rows = graded
    a = rows["a"]
    assert [d["verdict"] for d in a["details"]] == ["NO_CODE", "AC"]
    assert a["graded_list"] == [False, True] and a["pass@1"] == 0.5
    assert a["failing_tests"] == []  # no test ran: none failed
    assert summary["verdicts"] == {"AC": 2, "TLE": 2, "NO_CODE": 1}
    assert summary["pass@1"] == pytest.approx(100 * (0.5 + 0.0 + 1.0) / 3)  # percent
    # its tests are not measured: the timing plots hold the other samples' tests only
    run = load_run(str(results))
    measured = sum(
        len(d["tests"])
        for row in rows.values()
        for d in row["details"]
        if d["verdict"] != "NO_CODE"
    )
    assert len(run.cpu_times) == measured
    sample = run.problems[0].samples[0]
    assert sample.verdict == "NO_CODE" and sample.answer == LOST
    assert sample.answer_chars == len(LOST) > 4000 and sample.cpu_time is None


def test_a_tle_says_which_limit_ended_it(graded):
    _, _, _, rows = graded
    tests = [d["tests"] for d in rows["b"]["details"]]
    assert [t[0]["verdict"] for t in tests] == ["TLE", "TLE"]
    assert [t[0]["limit"] for t in tests] == ["cpu", "wall"]
    assert "limit" not in rows["c"]["details"][0]["tests"][0]  # none ended an AC


def test_the_toolchains_and_flags_are_in_the_provenance(graded):
    _, summary, _, _ = graded
    toolchains = summary["provenance"]["toolchains"]
    assert set(toolchains) == {"cpp", "python"}
    assert toolchains["cpp"]["version"].startswith("g++")
    assert toolchains["cpp"]["flags"] == {"-std=c++17 -O2": 1}
    assert toolchains["python"]["version"].startswith(
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    assert "flags" not in toolchains["python"]


def _open(driver, key: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f"#problems tr[data-key='{key}'] .toggle").click()


def test_the_page_shows_no_code_with_the_raw_answer(graded, driver):
    _, _, report, _ = graded
    entries, _ = open_page(driver, report)
    assert [e for e in entries if e["level"] == "SEVERE"] == []
    assert cells(driver, "#headline-verdicts [data-verdict='NO_CODE']") == ["NO_CODE"]
    assert cells(driver, "#verdicts tr[data-verdict='NO_CODE'] [data-metric='count']") == ["1"]
    assert "no program was found in the answer" in cells(driver, "#no-code-note")[0]
    _open(driver, "a")
    chips = cells(driver, "#problems tr.detail table.samples tr.sample td:nth-child(2) .chip")
    assert chips == ["NO_CODE", "AC"]
    note = cells(driver, "tr.detail .no-code .program-none")
    assert note == [
        f"no code extracted: no program was found in the answer ({len(LOST):,} characters)"
    ]
    box = driver.find_element(By.CSS_SELECTOR, "tr.detail .no-code details.answer")
    box.find_element(By.TAG_NAME, "summary").click()
    shown = driver.find_element(By.CSS_SELECTOR, "tr.detail pre.raw-answer")
    assert driver.execute_script("return arguments[0].textContent", shown) == LOST
    # text, never markup: no element made of it, no script run
    assert shown.find_elements(By.CSS_SELECTOR, "*") == []
    assert driver.execute_script("return window.injected") is None
    # no failing test is named for it (one was, with test #1's input, when it was a WA)
    first = driver.find_elements(By.CSS_SELECTOR, "tr.detail tr.sample-more")[0]
    assert first.find_elements(By.CSS_SELECTOR, "details.test") == []
    with phone(driver):
        assert overflowing(driver) == {"extra": 0, "elements": []}


def test_the_page_says_which_limit_ended_a_tle(graded, driver):
    _, _, report, _ = graded
    open_page(driver, report)
    assert cells(driver, "#tle-endings") == [
        "TLE: 1 by the CPU time limit, 1 by the wall-clock backstop."
    ]
    chips = driver.find_elements(By.CSS_SELECTOR, "#problems tr[data-key='b'] .c-verdicts .chip")
    titles = [c.get_attribute("title") for c in chips]
    assert "(CPU time limit)" in titles[0] and "(wall-clock backstop)" in titles[1]
    _open(driver, "b")
    assert cells(driver, "tr.detail table.samples tr.sample .ended-by") == [
        "CPU time limit",
        "wall-clock backstop",
    ]


def test_the_page_names_the_compiler_and_its_flags(graded, driver):
    _, summary, report, _ = graded
    open_page(driver, report)
    driver.execute_script(
        "document.querySelectorAll('details.provenance').forEach(d => d.open = true)"
    )
    cpp = cells(driver, "#provenance [data-field='cpp toolchain']")
    assert cpp == [
        f"{summary['provenance']['toolchains']['cpp']['version']}; flags: -std=c++17 -O2"
    ]
    python = cells(driver, "#provenance [data-field='python toolchain']")
    assert python == [summary["provenance"]["toolchains"]["python"]["version"]]
