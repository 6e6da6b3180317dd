"""DebugBench pairs graded with LeetCodeDataset tests: the oracle must pass, the buggy must fail.

Data: ``/work/shared/data/debugbench`` (thunlp/DebugBench, Python3 rows: an accepted
``oracle_code`` and a ``buggy_code`` with an implanted bug that LeetCode's judge rejected) and
``/work/shared/data/leetcodedataset`` (tests). DebugBench has no tests of its own: the pairs
are joined on the slug with LeetCodeDataset records converted by
:func:`evaluator.datasets.convert.leetcode_to_lcb` (all versions, ``v0.3.1-test`` first, the
first that converts wins), exactly as ``mcevaluate dataset convert --from debugbench`` does,
and each LiveCodeBench record becomes a problem with
:func:`evaluator.formats.sources.livecodebench.problem_from_lcb` (call-based, default judge rules).

Most joined slugs are in LeetCodeDataset's TRAIN split, which has few tests (median 2), so
the buggy catch rate is a lower bound of what real tests would catch, and the oracle pass rate
tests the harness and the data more than the comparison.

Reported: oracle pass rate (ideal 100%), buggy catch rate (ideal 100%), per bug type, and
every oracle failure with a first classification (``classify_oracle``): a name of LeetCode's
environment the program does not import (``List``, ``defaultdict``...), a test data problem,
or unclassified.

Usage: ``python benchmarks/accuracy/debugbench.py [--workers 2] [--time-limit 5] [--limit N]
[--stride K]``. Writes ``benchmarks/accuracy/results/debugbench.json``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import time
from collections import Counter

from evaluator.datasets.convert import (
    Skipped,
    debugbench_pairs,
    leetcode_to_lcb,
    read_debugbench,
    read_leetcode,
)
from evaluator.formats.sources.livecodebench import problem_from_lcb
from evaluator.runner import GradeOptions, Grader

DATA = os.environ.get("MICROCODER_SHARED_DATA", "/work/shared/data")
DEBUGBENCH = f"{DATA}/debugbench"
LCD = f"{DATA}/leetcodedataset"
LCD_ORDER = ("v0.3.1-test", "v0.3.0-test", "v0.2.0-test", "v0.2.0-train", "v0.1.0-test")
HERE = os.path.dirname(os.path.abspath(__file__))


def lcd_paths() -> list[str]:
    """LeetCodeDataset files, preferred versions first, then any other present."""
    ordered = [f"{LCD}/{v}.jsonl.gz" for v in LCD_ORDER if os.path.exists(f"{LCD}/{v}.jsonl.gz")]
    rest = sorted(set(glob.glob(f"{LCD}/*.jsonl.gz")) - set(ordered))
    return ordered + rest


def load_records() -> tuple[dict[str, dict], Counter]:
    """slug -> LiveCodeBench record (first version that converts); reasons for skips."""
    by_slug: dict[str, dict] = {}
    skipped: Counter = Counter()
    for path in lcd_paths():
        for raw in read_leetcode(path):
            if raw.get("task_id") in by_slug:
                continue
            try:
                record = leetcode_to_lcb(raw, source=os.path.basename(path))
            except Skipped as exc:
                skipped[re.sub(r"\(.*", "", str(exc)).strip()] += 1
                continue
            by_slug[record["question_id"]] = record
    return by_slug, skipped


ENVIRONMENT = re.compile(r"NameError: name '(\w+)' is not defined")


def classify_oracle(message: str, verdict: str) -> str:
    """A first classification of an oracle failure, from the message."""
    name = ENVIRONMENT.search(message)
    if name:
        return f"missing LeetCode environment name: {name.group(1)}"
    if "unserialisable result" in message:
        return "result is not plain data (the strict encoder rejects it; LeetCode converts it)"
    if verdict == "WA":
        return "test data problem (probably): LeetCodeDataset's expected output differs"
    if verdict == "TLE":
        return "time limit"
    return "unclassified"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="first N pairs")
    parser.add_argument(
        "--stride", type=int, default=1, help="every K-th joined pair (all bug types kept)"
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    rows = read_debugbench(DEBUGBENCH)
    by_slug, skipped = load_records()
    joined = list(debugbench_pairs(rows, set(by_slug)))
    pairs = joined[:: max(args.stride, 1)]
    pairs = pairs[: args.limit] if args.limit else pairs
    problems = {slug: problem_from_lcb(by_slug[slug]) for slug in {p.slug for p in pairs}}
    items = []
    for pair in pairs:
        items += [(problems[pair.slug], pair.oracle), (problems[pair.slug], pair.buggy)]
    start = time.monotonic()
    with Grader(GradeOptions(time_limit=args.time_limit), workers=args.workers) as grader:
        results = grader.grade_many(items)
    elapsed = time.monotonic() - start

    out_rows = []
    for index, pair in enumerate(pairs):
        oracle, buggy = results[2 * index], results[2 * index + 1]
        row = {
            "slug": pair.slug,
            "bug_type": pair.bug_type,
            "tests": len(problems[pair.slug].tests),
            "source": by_slug[pair.slug].get("source", ""),
            "oracle": str(oracle.verdict),
            "oracle_message": oracle.message[:200],
            "buggy": str(buggy.verdict),
            "buggy_message": buggy.message[:200],
        }
        if not oracle.passed:
            row["why"] = classify_oracle(oracle.message, str(oracle.verdict))
        out_rows.append(row)
    n = len(out_rows)
    oracle_pass = sum(r["oracle"] == "AC" for r in out_rows)
    buggy_caught = sum(r["buggy"] != "AC" for r in out_rows)
    by_type = {}
    for bug_type in sorted({r["bug_type"] for r in out_rows}):
        mine = [r for r in out_rows if r["bug_type"] == bug_type]
        by_type[bug_type] = {
            "pairs": len(mine),
            "oracle_pass": sum(r["oracle"] == "AC" for r in mine),
            "buggy_caught": sum(r["buggy"] != "AC" for r in mine),
        }
    failures = [r for r in out_rows if r["oracle"] != "AC"]
    summary = {
        "debugbench_rows": len(rows),
        "leetcodedataset_problems": len(by_slug),
        "joined_pairs": len(joined),
        "joined_slugs": len({p.slug for p in joined}),
        "stride": args.stride,
        "pairs": n,
        "slugs": len(problems),
        "tests": sum(len(p.tests) for p in problems.values()),
        "median_tests": sorted(len(p.tests) for p in problems.values())[len(problems) // 2]
        if problems
        else 0,
        "oracle_pass": oracle_pass,
        "oracle_pass_rate": round(oracle_pass / n, 4) if n else None,
        "buggy_caught": buggy_caught,
        "buggy_catch_rate": round(buggy_caught / n, 4) if n else None,
        "oracle_verdicts": dict(Counter(r["oracle"] for r in out_rows)),
        "buggy_verdicts": dict(Counter(r["buggy"] for r in out_rows)),
        "oracle_failure_causes": dict(
            Counter(r["why"].split(":")[0] for r in failures).most_common()
        ),
        "missing_names": dict(
            Counter(r["why"].split(": ")[1] for r in failures if r["why"].startswith("missing"))
        ),
        "by_bug_type": by_type,
        "time_limit": args.time_limit,
        "workers": args.workers,
        "seconds": round(elapsed, 1),
    }
    print(json.dumps(summary, indent=1))
    for row in failures:
        print(f"ORACLE-FAIL {row['slug']:<45} {row['oracle']} {row['oracle_message'][:110]!r}")
    out = args.out or os.path.join(HERE, "results", "debugbench.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as handle:
        json.dump(
            {"summary": summary, "oracle_failures": failures, "rows": out_rows}, handle, indent=1
        )
        handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
