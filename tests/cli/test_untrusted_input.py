"""`mcevaluate grade` on problem files built to take the grader's memory or to break its limits
(issue 51): each refused with one line naming the file, the row and the field, in bounded
memory (the whole command's peak, measured). Before, a 400 KB LiveCodeBench row took the
command to 940 MB and was graded; a limit of 1e300 seconds graded a correct program RE."""

from __future__ import annotations

import json
import sys

import pytest

from tests.bombs import (
    MB,
    gzip_bomb_file,
    lcb_bomb_row,
    parquet_bomb_file,
    run_measured,
)

PEAK_MB = 300  # the command alone: about 70 MB


@pytest.fixture
def samples(tmp_path):
    path = tmp_path / "samples.jsonl"
    rows = [{"question_id": qid, "code_list": ["print(1)"]} for qid in ("fine", "bomb", "bomb0")]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _grade(problems, samples) -> tuple[str, float]:
    """The one line ``grade`` says (it must fail) and its peak memory in MB."""
    done, peak = run_measured(
        [sys.executable, "-m", "evaluator.cli", "grade", "--problems", str(problems),
         "--samples", str(samples), "--json"],
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, (done.stdout[-2000:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    return lines[0], peak


def test_a_bomb_row_is_refused_in_bounded_memory(tmp_path, samples):
    problems = tmp_path / "problems.jsonl"
    rows = [lcb_bomb_row("fine", inflated=MB), lcb_bomb_row("bomb")]
    problems.write_text("".join(json.dumps(row) + "\n" for row in rows))
    line, peak = _grade(problems, samples)
    assert line.startswith(f"Error: {problems}:2: field 'private_test_cases': ")
    assert "decompression bomb" in line
    assert peak < PEAK_MB, f"{peak:.0f} MB"


def test_a_gzip_bomb_problems_file_is_refused_in_bounded_memory(tmp_path, samples):
    fine = json.dumps(lcb_bomb_row("fine", inflated=MB))
    problems = gzip_bomb_file(tmp_path / "problems.jsonl.gz", 600 * MB, line_before=fine)
    line, peak = _grade(problems, samples)
    assert line.startswith(f"Error: {problems}:2: gzip data inflates past ")
    assert peak < PEAK_MB, f"{peak:.0f} MB"


def test_a_parquet_bomb_is_refused_in_bounded_memory(tmp_path, samples):
    pytest.importorskip("pyarrow")
    problems = parquet_bomb_file(tmp_path / "problems.parquet", rows=4)
    line, peak = _grade(problems, samples)
    assert line.startswith(f"Error: {problems}: record 2: field 'public_test_cases': ")
    assert peak < PEAK_MB, f"{peak:.0f} MB"


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("time_limit", float("inf"), "at most 600 seconds, got inf"),
        ("time_limit", 1e300, "at most 600 seconds, got 1e+300"),
        ("memory_limit", 10**12, "at most 1048576 megabytes (1 TiB), got 1000000000000"),
    ],
)
def test_a_limit_out_of_bounds_is_refused_naming_the_field(tmp_path, samples, field, value, said):
    problems = tmp_path / "problems.jsonl"
    row = {**lcb_bomb_row("fine", inflated=1), field: value}
    problems.write_text(json.dumps(row) + "\n")  # Infinity as Python's json writes it
    line, _ = _grade(problems, samples)
    assert line == f"Error: {problems}:1: field '{field}': {said}"
