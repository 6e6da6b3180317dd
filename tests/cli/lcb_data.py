"""A tiny LiveCodeBench-schema dataset for the CLI tests (built here, original problems)."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.formats import encode_private_tests


def lcb_record(qid: str, date: str, platform: str, difficulty: str, **extra) -> dict:
    """A code_generation_lite record of an "add two numbers" problem, private tests in
    LiveCodeBench's compressed form."""
    public = [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]
    private = [
        {"input": "5 5\n", "output": "10\n", "testtype": "stdin"},
        {"input": "0 7\n", "output": "7\n", "testtype": "stdin"},
    ]
    record = {
        "question_title": f"Add {qid}",
        "question_content": "Print the sum of two integers.",
        "platform": platform,
        "question_id": qid,
        "contest_id": qid.split("_")[0],
        "contest_date": date,
        "starter_code": "",
        "difficulty": difficulty,
        "public_test_cases": json.dumps(public),
        "private_test_cases": encode_private_tests(private),
        "metadata": "{}",
    }
    record.update(extra)
    return record


# Spread over release windows: v1 ends 2024-03-31, v2 2024-05-31, v5 2025-01-31, v6 2025-04-30.
DATASET = [
    lcb_record("abc300_a", "2023-05-07T00:00:00", "atcoder", "easy"),  # shard 1
    lcb_record("lc_100", "2024-03-30T00:00:00", "leetcode", "medium"),  # shard 1
    lcb_record("cf_1900_a", "2024-05-20T00:00:00", "codeforces", "hard"),  # shard 2
    lcb_record("abc390_b", "2025-01-04T18:30:00", "atcoder", "medium"),  # shard 5
    lcb_record("abc400_c", "2025-04-12T00:00:00", "atcoder", "hard"),  # shard 6
]
SHARDS = {
    "test.jsonl": DATASET[:2],
    "test2.jsonl": DATASET[2:3],
    "test3.jsonl": [],
    "test4.jsonl": [],
    "test5.jsonl": DATASET[3:4],
    "test6.jsonl": DATASET[4:],
}
GOOD = "a, b = map(int, input().split())\nprint(a + b)"


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
