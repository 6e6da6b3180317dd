"""What a row or a file holds compressed is inflated within a bound, and refused past it
naming the file, row and field (issue 51); real rows still decode. Each bomb here inflates
to hundreds of MB from a few hundred KB: a reader without a bound decodes it whole."""

from __future__ import annotations

import base64
import gzip
import json
import os
import random
import zlib
from pathlib import Path

import pytest

from evaluator.data import DEMO_PROBLEMS
from evaluator.formats import InputError, problems_from_records, read_problems, read_records
from evaluator.formats.sources.livecodebench import encode_private_tests
from tests.bombs import (
    MB,
    gzip_bomb_file,
    lcb_bomb_row,
    parquet_bomb_file,
    parquet_repeated_value_file,
)


def test_a_bomb_row_is_refused_naming_the_row_and_field():
    rows = [lcb_bomb_row("fine", inflated=MB), lcb_bomb_row("bomb", inflated=300 * MB)]
    with pytest.raises(InputError) as info:
        problems_from_records(rows, source="problems")
    error = info.value
    assert (error.line, error.field) == (2, "private_test_cases")
    assert "decompression bomb" in str(error) and "\n" not in str(error)
    assert str(error).startswith("problems: record 2: field 'private_test_cases': ")


def test_real_livecodebench_rows_still_decode():
    """The demo set's compressed rows (LiveCodeBench's schema), and a row of about 60 MB of tests
    whose numbers compress as real ones do (2-3x): past the floor (32 MiB), within the factor."""
    assert len(read_problems(DEMO_PROBLEMS)) == 8
    rng = random.Random(51)
    numbers = " ".join(str(rng.randrange(10**9)) for _ in range(1 << 20))
    tests = [{"input": numbers, "output": numbers[::-1], "testtype": "stdin"}] * 3
    row = {"question_id": "big", "private_test_cases": encode_private_tests(tests)}
    compressed = len(base64.b64decode(row["private_test_cases"]))
    inflated = 6 * len(numbers)  # each test's input and output
    assert inflated > 32 * MB and 2 * compressed < inflated < 5 * compressed
    (problem,) = problems_from_records([row])
    assert [t.input for t in problem.tests] == [numbers] * 3


def test_a_gzip_line_of_zeros_is_refused_at_its_bound(tmp_path):
    path = gzip_bomb_file(tmp_path / "p.jsonl.gz", 600 * MB, line_before='{"question_id": "a"}')
    records = read_records(path)
    assert next(records) == (1, {"question_id": "a"})
    with pytest.raises(InputError) as info:
        next(records)
    assert info.value.line == 2 and "gzip data inflates past" in str(info.value)
    assert str(info.value).startswith(f"{path}:2: ")


def test_a_gzip_file_is_bounded_in_all_and_by_line(tmp_path):
    """Lines each well within the floor, but a whole file that inflates past its bound (the
    floor, here: 128x its 50 KB is less) refused, JSONL and a JSON array read whole; a
    real gzip file reads."""
    line = json.dumps({"question_id": "a", "pad": "0" * (4 * MB)}) + "\n"
    some = zeros_line_file(tmp_path / "some.jsonl.gz", line, 6)
    assert sum(1 for _ in read_records(some)) == 6  # 24 MiB: within the floor
    more = zeros_line_file(tmp_path / "more.jsonl.gz", line, 12)
    with pytest.raises(InputError, match=r"more\.jsonl\.gz:[89]: gzip data inflates past"):
        sum(1 for _ in read_records(more))
    array = tmp_path / "array.json.gz"
    array.write_bytes(zlib_gzip(("[" + ",".join([line.strip()] * 12) + "]").encode()))
    with pytest.raises(InputError, match=r"array\.json\.gz: gzip data inflates past"):
        list(read_records(array))
    for real in sorted(Path(_ROOT, "tests", "data").rglob("*.jsonl.gz")):
        with gzip.open(real, "rt") as lines:
            whole = [json.loads(text) for text in lines if text.strip()]
        assert [record for _, record in read_records(real)] == whole


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def zlib_gzip(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    return compressor.compress(data) + compressor.flush()


def zeros_line_file(path, line: str, count: int):
    path.write_bytes(zlib_gzip(line.encode() * count))
    return path


def test_a_parquet_column_past_its_bound_is_refused_before_any_row_is_read(tmp_path):
    records = read_records(parquet_bomb_file(tmp_path / "p.parquet"))
    with pytest.raises(InputError) as info:
        next(records)  # the fine first row is not even read: the footer says what follows
    error = info.value
    assert (error.line, error.field) == (2, "public_test_cases")
    assert "row group 1's pages inflate to 96.0 MiB" in str(error)
    assert str(error).startswith(f"{tmp_path / 'p.parquet'}: record 2: field 'public_test_cases'")


def test_parquet_rows_a_dictionary_repeats_count_as_what_they_hold(tmp_path):
    """300 rows of one 512 KiB value: a footer of half a megabyte, rows of 150 MiB; refused
    by the rows' decoded size (at most one batch of 256 rows decoded)."""
    path = parquet_repeated_value_file(tmp_path / "r.parquet")
    with pytest.raises(InputError, match=r"record 1: decoding inflates past \d+\.\d MiB"):
        list(read_records(path))
    fine = parquet_repeated_value_file(tmp_path / "fine.parquet", rows=40)
    assert [record["question_id"] for _, record in read_records(fine)][-1] == "q39"
