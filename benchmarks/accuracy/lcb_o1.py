"""Accuracy against LiveCodeBench's official verdicts on the O1-Mini and O1-Preview submissions.

Data (see /work/shared/data/lcb_submissions/README.md): the ``eval_all`` files of two models on
LiveCodeBench release_v5, 880 problems each, one sample each, with LiveCodeBench's official
``graded_list`` (its hidden tests) and the first failing test in ``metadata``. The hidden tests
are not available offline, so we grade with other tests:

* **LeetCode half**: ``question_title`` (the slug) joined with LeetCodeDataset's ``task_id``
  (``v0.3.1-test`` preferred, then ``v0.3.0-test``, ``v0.2.0-*``, ``v0.1.0-*``). Each
  ``input_output`` test ``a = [1,2], k = 3`` is parsed with :mod:`ast` (keyword arguments, put
  in the order of the method's parameters taken from the starter code) into one JSON value per
  line; the output (a Python literal) becomes JSON. Problems with ``TreeNode``/``ListNode``
  are skipped (LiveCodeBench has none, but LeetCodeDataset tests would need the helpers).
  The program (``code_list[0]``) runs in our call harness (``func_name`` from the
  ``entry_point``).
* **AtCoder half**: "Sample Input k" / "Sample Output k" parsed from ``question_content`` into
  stdin tests, judged by ``lines`` (our default when it was written), by ``float`` where
  the statement allows an absolute/relative error (tolerance taken from the statement; ``lines`` elsewhere), by
  ``lenient`` (the paper's chain) and by ``lcb`` (LiveCodeBench's own comparison: strip, lines,
  exact ``Decimal``; :mod:`evaluator.judges.lcb`), which should reproduce the official
  verdicts more closely where they turn on the comparison (not where they turn on the
  official harness, e.g. threaded programs).
* Codeforces (9 records per model) have no offline tests: not graded.

Every disagreement where we accept and LiveCodeBench rejects is re-run on LiveCodeBench's own
first failing test (``metadata``; when it is not truncated): ``recheck`` says whether our
grader accepts the program on that very test (``AC``: the official verdict does not reproduce,
a likely official false negative) or not (our tests are weaker: samples / fewer tests).

Usage: ``python benchmarks/accuracy/lcb_o1.py [--half leetcode|atcoder|both] [--workers 2]
[--time-limit 6] [--limit N] [--judges lines,float,lenient,lcb]``. Writes
``benchmarks/accuracy/results/lcb_o1.json``.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import os
import re
import sys
import time
from collections import Counter
from typing import Any

from evaluator.formats.statement import read_statement
from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import GradeOptions, Grader

DATA = os.environ.get("MICROCODER_SHARED_DATA", "/work/shared/data")
LCB = f"{DATA}/lcb_submissions"
MODELS = {
    "o1-mini": f"{LCB}/O1-Mini-2024-09-12_N1_codegeneration_eval_all.json",
    "o1-preview": f"{LCB}/O1-Preview-2024-09-12_N1_codegeneration_eval_all.json",
}
LCD = f"{DATA}/leetcodedataset"
LCD_ORDER = (
    "v0.3.1-test",
    "v0.3.0-test",
    "v0.2.0-test",
    "v0.2.0-train",
    "v0.1.0-test",
    "v0.1.0-train",
)
HERE = os.path.dirname(os.path.abspath(__file__))
CLASSIFICATION = os.path.join(HERE, "lcb_o1_classification.json")


# --- LeetCode half -----------------------------------------------------------------------------


class Skip(Exception):
    """A problem that cannot be converted; the message says why (counted in the report)."""


def load_leetcodedataset() -> dict[str, tuple[str, dict]]:
    """slug -> (version, record), the first version in LCD_ORDER that has the slug."""
    found: dict[str, tuple[str, dict]] = {}
    for version in LCD_ORDER:
        path = f"{LCD}/{version}.jsonl.gz"
        if not os.path.exists(path):
            continue
        with gzip.open(path, "rt") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    found.setdefault(record["task_id"], (version, record))
    return found


def method_signature(starter_code: str, func_name: str) -> tuple[list[str], str]:
    """Parameter names (without ``self``) of ``func_name`` in a starter code/prompt, and its
    return annotation as written (``""`` when none)."""
    code = starter_code.rstrip() + "\n"
    for attempt in (code, code + "        pass\n", code + "    pass\n"):
        try:
            tree = ast.parse(attempt)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == func_name:
                names = [a.arg for a in node.args.posonlyargs + node.args.args]
                names = names[1:] if names and names[0] == "self" else names
                returns = ast.unparse(node.returns) if node.returns is not None else ""
                return names, returns
    raise Skip(f"no signature for {func_name} in the starter code")


class BadTest(Exception):
    """A LeetCodeDataset test that is itself broken (dropped, counted per problem)."""


def convert_input(text: str, parameters: list[str]) -> str:
    """``a = [1,2], k = 3`` -> one JSON value per line, in parameter order. Names match
    case-insensitively (LeetCodeDataset writes ``k`` where the starter code has ``K``); a lone
    positional value is accepted for a one-parameter method."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError as exc:  # e.g. ``000111``: not valid Python, a broken generated test
        raise BadTest(f"input does not parse: {exc.msg}") from None
    if not isinstance(call, ast.Call):
        raise BadTest("input is not a keyword list")
    values: dict[str, Any] = {}
    try:
        for keyword in call.keywords:
            if keyword.arg is None:
                raise BadTest("**kwargs in an input")
            values[keyword.arg.lower()] = ast.literal_eval(keyword.value)
        if call.args:
            if len(call.args) == 1 and len(parameters) == 1 and not call.keywords:
                values[parameters[0].lower()] = ast.literal_eval(call.args[0])
            else:
                raise BadTest("positional arguments in a test input")
    except ValueError:
        raise BadTest("an argument is not a literal") from None
    if sorted(values) != sorted(p.lower() for p in parameters):
        raise BadTest(f"arguments {sorted(values)} != parameters {parameters}")
    return "\n".join(json.dumps(values[name.lower()]) for name in parameters)


_GENERATION_FAILURES = ("Error:", "Execution timed out")


def convert_output(text: str, returns: str) -> str:
    """A LeetCodeDataset output (a Python literal; ``-inf``; or, for ``-> str`` methods in
    v0.3.0, the bare string) as JSON."""
    if text.startswith(_GENERATION_FAILURES):  # the reference solution failed on this input
        raise BadTest(f"expected output is a generation failure: {text[:40]!r}")
    stripped = text.strip()
    if returns == "str" and stripped[:1] not in ("'", '"'):
        return json.dumps(text)
    if stripped in ("inf", "-inf"):
        return json.dumps(float(stripped))
    try:
        value = ast.literal_eval(stripped)
    except (ValueError, SyntaxError):
        raise BadTest(f"output is not a literal: {text[:40]!r}") from None
    if isinstance(value, (set, frozenset, complex, bytes)):
        raise BadTest(f"output of type {type(value).__name__}")
    return json.dumps(value)


def leetcode_problem(record: dict, lcd: dict[str, tuple[str, dict]]) -> Problem:
    slug = record["question_title"]
    if slug not in lcd:
        raise Skip("not in LeetCodeDataset")
    version, data = lcd[slug]
    text = " ".join(
        [record.get("starter_code", ""), data.get("starter_code", ""), data["completion"]]
        + [t["input"] for t in data["input_output"]]
    )
    if re.search(r"\b(TreeNode|ListNode|tree_node|list_node)\b", text):
        raise Skip("TreeNode/ListNode")
    func_name = data["entry_point"].split(".")[-1]
    try:
        parameters, returns = method_signature(record["starter_code"], func_name)
    except Skip:
        parameters, returns = method_signature(data["completion"], func_name)
    tests, dropped = [], Counter()
    for test in data["input_output"]:
        try:
            tests.append(
                TestCase(
                    convert_input(test["input"], parameters),
                    convert_output(test["output"], returns),
                )
            )
        except BadTest as exc:
            dropped[re.sub(r":.*", "", str(exc))] += 1
    if not tests:
        raise Skip("no usable tests")
    return Problem(
        id=slug,
        harness=Harness.FUNCTIONAL,
        tests=tests,
        func_name=func_name,
        metadata={"source": version, "platform": "leetcode", "dropped": dict(dropped)},
    )


# --- AtCoder half ------------------------------------------------------------------------------

_SAMPLE = re.compile(r"^Sample (Input|Output) (\d+)[ \t]*$", re.MULTILINE)


def atcoder_tests(content: str) -> list[TestCase]:
    """Sample tests of an AtCoder statement; [] when they cannot be paired. An output is the
    text up to the first blank line (the explanation follows one); an output block that starts
    with three blank lines is an empty output (two are a layout variant) (statements write it so). CRLF becomes LF."""
    marks = list(_SAMPLE.finditer(content))
    inputs: dict[str, str] = {}
    outputs: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(content)
        raw = content[mark.end() : end].replace("\r\n", "\n")
        body = raw.strip("\n")
        kind, number = mark.group(1), mark.group(2)
        if kind == "Input":
            inputs[number] = body.rstrip() + "\n"
        elif raw.startswith("\n\n\n\n"):  # header, blank, EMPTY output, blank, explanation
            outputs[number] = ""
        else:
            outputs[number] = re.split(r"\n[ \t]*\n", body, maxsplit=1)[0].rstrip() + "\n"
    numbers = sorted(set(inputs) & set(outputs), key=int)
    if not numbers or set(inputs) != set(outputs):
        return []
    return [TestCase(inputs[n], outputs[n]) for n in numbers]


def tolerance(content: str) -> dict[str, Any] | None:
    """The ``float`` judge spec for a statement that allows an error, else None: the
    grader's own reading of statements (:mod:`evaluator.formats.statement`)."""
    allowed = read_statement(content).tolerance
    if allowed is None:
        return None
    return {"type": "float", "abs_tol": allowed[0], "rel_tol": allowed[1]}


def atcoder_problem(record: dict, judge: str) -> Problem:
    tests = atcoder_tests(record["question_content"])
    if not tests:
        raise Skip("samples not parseable")
    spec: str | dict[str, Any] = judge
    if judge == "float":
        spec = tolerance(record["question_content"]) or "lines"
    return Problem(
        id=record["question_id"],
        harness=Harness.STDIN,
        tests=tests,
        judge=spec,
        metadata={"platform": "atcoder", "tolerance": tolerance(record["question_content"])},
    )


# --- LiveCodeBench's own failing test ----------------------------------------------------------


def official_failure(record: dict) -> dict | None:
    try:
        meta = json.loads(record["metadata"][0])
    except (IndexError, ValueError, TypeError):
        return None
    return meta if "error_code" in meta else None


def recheck_problem(record: dict, problem: Problem) -> Problem | None:
    """A problem holding only LiveCodeBench's recorded failing test, when usable."""
    meta = official_failure(record)
    if not meta or "inputs" not in meta or "expected" not in meta:
        return None
    if "(truncated)" in meta["inputs"] + meta["expected"]:
        return None
    if problem.harness is Harness.STDIN:
        test = TestCase(meta["inputs"], meta["expected"])
    else:
        try:
            args = json.loads(meta["inputs"])
            expected = json.loads(meta["expected"])
        except ValueError:
            return None
        if not isinstance(args, list):
            return None
        test = TestCase("\n".join(json.dumps(a) for a in args), json.dumps(expected))
    return Problem(
        id=problem.id + "#official",
        harness=problem.harness,
        tests=[test],
        func_name=problem.func_name,
        judge=problem.judge,
    )


# --- classifying disagreements ---------------------------------------------------------------


def auto_classify(row: dict, code: str) -> dict:
    """A rule-based first classification of a disagreement, from the program, our verdict,
    the re-run of LiveCodeBench's own failing test and its recorded error. Entries of
    ``lcb_o1_classification.json`` (checked by hand) take precedence."""
    error = row.get("official_error", "")
    empty = ":  != " in error or "mismatched output length" in error
    recheck = row.get("recheck")
    if row["ours"] == "AC":  # they fail
        if "threading" in code and empty:
            return {
                "class": "official false negative: empty captured output",
                "detail": "threaded program (threading.Thread(target=main).start()); LiveCodeBench "
                "read the output before the thread wrote it"
                + ("; confirmed: its failing test passes here" if recheck == "AC" else ""),
            }
        if recheck == "AC":
            what = "timeout on a small input" if row["official_code"] == -3 else "wrong answer"
            return {
                "class": f"official false negative: {what} that does not reproduce",
                "detail": f"its failing test passes here ({error[:60]})",
            }
        if recheck in ("WA", "RE", "TLE", "MLE", "OLE"):
            return {
                "class": "our tests are weaker",
                "detail": f"its failing test fails here too ({recheck}); not in our tests",
            }
        if row["official_code"] == -3:
            return {
                "class": "our tests are weaker (no large inputs)",
                "detail": "official TLE on a hidden input (truncated in metadata)",
            }
        return {
            "class": "our tests are weaker (probably)",
            "detail": f"official {error[:60]!r}; its input is truncated or unrecorded",
        }
    if row["ours"] == "TLE" and "wall-clock" in row["message"]:
        return {
            "class": "environment: slow machine",
            "detail": "wall-clock backstop on shared cores, CPU under the limit: " + row["message"],
        }
    return {"class": "unclassified", "detail": row["message"]}


# --- running -----------------------------------------------------------------------------------


def load_records(model: str) -> list[dict]:
    with open(MODELS[model]) as handle:
        return json.load(handle)


def build_items(half: str, judge: str, lcd, limit: int | None):
    """[(model, record, problem)], skip Counter per model."""
    items, skipped = [], {}
    for model in MODELS:
        skipped[model] = Counter()
        records = [r for r in load_records(model) if r["platform"] == half]
        for record in records[:limit] if limit else records:
            try:
                if half == "leetcode":
                    problem = leetcode_problem(record, lcd)
                else:
                    problem = atcoder_problem(record, judge)
            except Skip as exc:
                reason = str(exc)
                reason = "input/output not convertible" if ":" in reason else reason
                skipped[model][reason] += 1
                continue
            items.append((model, record, problem))
    return items, skipped


# Appended to stdin programs that use threading when ``--thread-join`` is on: waits for the
# program's non-daemon threads as ``python prog.py`` does at exit. Works around the grader not
# doing so (``threading.Thread(target=main).start()`` then gets empty or partial output,
# nondeterministically; see README, "Grader bugs found").
THREAD_JOIN = """

import threading as _accuracy_threading
for _accuracy_thread in _accuracy_threading.enumerate():
    if _accuracy_thread is not _accuracy_threading.current_thread() and not _accuracy_thread.daemon:
        _accuracy_thread.join()
"""


def program(record: dict, problem: Problem, thread_join: bool) -> str | None:
    code = record["code_list"][0] if record["code_list"] else None
    if code and thread_join and problem.harness is Harness.STDIN and "threading" in code:
        code += THREAD_JOIN
    return code


def grade(grader: Grader, items, thread_join: bool) -> list:
    return grader.grade_many([(p, program(r, p, thread_join)) for _, r, p in items])


def evaluate(
    half: str, judge: str, grader: Grader, lcd, limit, classified, thread_join: bool = True
) -> dict:
    items, skipped = build_items(half, judge, lcd, limit)
    start = time.monotonic()
    results = grade(grader, items, thread_join)
    rows = []
    for (model, record, problem), result in zip(items, results, strict=True):
        official = bool(record["graded_list"][0])
        meta = official_failure(record) or {}
        row = {
            "model": model,
            "id": problem.id,
            "question_id": record["question_id"],
            "difficulty": record.get("difficulty"),
            "tests": len(problem.tests),
            "dropped_tests": sum(problem.metadata.get("dropped", {}).values()),
            "official": "pass" if official else "fail",
            "ours": str(result.verdict),
            "message": result.message[:200],
            "agree": result.passed == official,
            "official_error": meta.get("error_message", "")[:200] if meta else "",
            "official_code": meta.get("error_code"),
        }
        rows.append((row, record, problem))
    # Re-run disagreements we accept on LiveCodeBench's own failing test.
    rechecks = [
        (row, recheck_problem(record, problem))
        for row, record, problem in rows
        if not row["agree"] and row["ours"] == "AC"
    ]
    rechecks = [(row, p) for row, p in rechecks if p is not None]
    recheck_results = grader.grade_many(
        [
            (p, program(next(r for rw, r, _ in rows if rw is row), p, thread_join))
            for row, p in rechecks
        ]
    )
    for (row, _), result in zip(rechecks, recheck_results, strict=True):
        row["recheck"] = str(result.verdict)
        row["recheck_message"] = result.message[:200]
    elapsed = time.monotonic() - start
    codes = {(row["model"], row["question_id"]): record["code_list"] for row, record, _ in rows}
    for row in (r for r, _, _ in rows if not r["agree"]):
        note = classified.get(f"{row['model']}/{row['question_id']}")
        code = (codes[(row["model"], row["question_id"])] or [""])[0]
        row["classification"] = note or auto_classify(row, code)
    rows = [row for row, _, _ in rows]
    classes = Counter((r["model"], r["classification"]["class"]) for r in rows if not r["agree"])
    summary = {}
    for model in MODELS:
        mine = [r for r in rows if r["model"] == model]
        n = len(mine)
        agree = sum(r["agree"] for r in mine)
        summary[model] = {
            "n": n,
            "skipped": dict(skipped[model]),
            "agree": agree,
            "agreement": round(agree / n, 4) if n else None,
            "tests": sum(r["tests"] for r in mine),
            "dropped_broken_tests": sum(r["dropped_tests"] for r in mine),
            "official_pass": sum(r["official"] == "pass" for r in mine),
            "our_pass": sum(r["ours"] == "AC" for r in mine),
            "we_pass_they_fail": sum(r["ours"] == "AC" and r["official"] == "fail" for r in mine),
            "we_fail_they_pass": sum(r["ours"] != "AC" and r["official"] == "pass" for r in mine),
            "our_verdicts_on_disagreement": dict(
                Counter(r["ours"] for r in mine if not r["agree"])
            ),
            "recheck_on_official_failing_test": dict(
                Counter(
                    r.get("recheck", "unusable")
                    for r in mine
                    if not r["agree"] and r["ours"] == "AC"
                )
            ),
        }
    for model in MODELS:
        summary[model]["disagreement_classes"] = {
            c: k for (m, c), k in sorted(classes.items()) if m == model
        }
    return {
        "half": half,
        "judge": judge,
        "summary": summary,
        "seconds": round(elapsed, 1),
        "disagreements": [r for r in rows if not r["agree"]],
        "rows": rows,
    }


def compare_judges(reports: list[dict], base: str, other: str) -> dict | None:
    """AtCoder rows whose verdict changes from judge ``base`` to ``other`` (extra accepts of
    ``lenient``, and whether LiveCodeBench says they are right)."""
    runs = {r["judge"]: r for r in reports if r["half"] == "atcoder"}
    if base not in runs or other not in runs:
        return None
    before = {(r["model"], r["id"]): r for r in runs[base]["rows"]}
    changed = []
    for row in runs[other]["rows"]:
        old = before[(row["model"], row["id"])]
        if (old["ours"] == "AC") != (row["ours"] == "AC"):
            changed.append(
                {
                    "model": row["model"],
                    "id": row["id"],
                    "official": row["official"],
                    base: old["ours"],
                    other: row["ours"],
                    f"{base}_message": old["message"],
                }
            )
    extra = [c for c in changed if c[other] == "AC"]
    return {
        "summary": {
            "extra_accepts": len(extra),
            "extra_accepts_official_pass": sum(c["official"] == "pass" for c in extra),
            "extra_accepts_official_fail": sum(c["official"] == "fail" for c in extra),
            "lost_accepts": len(changed) - len(extra),
        },
        "changed": changed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--half", choices=("leetcode", "atcoder", "both"), default="both")
    parser.add_argument("--time-limit", type=float, default=6.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="records per model and half")
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--no-thread-join",
        dest="thread_join",
        action="store_false",
        help="grade threaded stdin programs as they are (shows the grader's thread bug)",
    )
    parser.add_argument(
        "--judges",
        default="lines,float,lenient,lcb",
        help="comma-separated judges for the AtCoder half (lines, float, lenient, lcb)",
    )
    args = parser.parse_args(argv)
    judges = [j.strip() for j in args.judges.split(",") if j.strip()]
    unknown = sorted(set(judges) - {"lines", "float", "lenient", "lcb"})
    if unknown:
        parser.error(f"unknown judge(s) for the AtCoder half: {', '.join(unknown)}")

    classified = {}
    if os.path.exists(CLASSIFICATION):
        with open(CLASSIFICATION) as handle:
            classified = json.load(handle)
    runs = []
    if args.half in ("leetcode", "both"):
        runs.append(("leetcode", "lines"))
    if args.half in ("atcoder", "both"):
        runs += [("atcoder", judge) for judge in judges]
    lcd = load_leetcodedataset() if args.half != "atcoder" else {}
    options = GradeOptions(time_limit=args.time_limit, early_exit=True)
    reports = []
    with Grader(options, workers=args.workers) as grader:
        for half, judge in runs:
            report = evaluate(half, judge, grader, lcd, args.limit, classified, args.thread_join)
            reports.append(report)
            print(f"== {half} judge={judge} ({report['seconds']} s)")
            print(json.dumps(report["summary"], indent=1))
            for row in report["disagreements"]:
                print(
                    f"DISAGREE {row['model']:<10} {row['question_id']:<9} {row['id'][:40]:<40} "
                    f"official={row['official']} ours={row['ours']} "
                    f"recheck={row.get('recheck', '-')} {row['message'][:80]!r}"
                )
    lenient = compare_judges(reports, "lines", "lenient")
    if lenient:
        print("lenient vs lines (AtCoder):", json.dumps(lenient["summary"]))
    lcb = compare_judges(reports, "lines", "lcb")
    if lcb:
        print("lcb vs lines (AtCoder):", json.dumps(lcb["summary"]))
    if args.out:
        out = args.out
    else:
        suffix = "" if args.half == "both" and not args.limit else f"_{args.half}"
        out = os.path.join(HERE, "results", f"lcb_o1{suffix}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as handle:
        json.dump(
            {
                "time_limit": args.time_limit,
                "workers": args.workers,
                "early_exit": True,
                "thread_join": args.thread_join,
                "lenient_vs_lines": lenient,
                "lcb_vs_lines": lcb,
                "runs": reports,
            },
            handle,
            indent=1,
        )
        handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
