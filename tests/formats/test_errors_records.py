"""InputError formatting and read_records over every supported layout."""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluator.formats import InputError, read_records
from evaluator.formats.record_files import position_unit

RECORDS = [{"id": "a", "n": 1}, {"id": "b", "n": [1, 2]}, {"id": "c", "n": None}]


def test_error_str_full_location() -> None:
    err = InputError(
        "not valid JSON (Expecting value at char 0)",
        path="problems.jsonl",
        line=12,
        field="public_test_cases",
    )
    assert str(err) == (
        "problems.jsonl:12: field 'public_test_cases': not valid JSON (Expecting value at char 0)"
    )
    assert (err.path, err.line, err.field) == ("problems.jsonl", 12, "public_test_cases")
    assert isinstance(err, ValueError)


def test_error_str_partial_locations() -> None:
    assert str(InputError("boom")) == "boom"
    assert str(InputError("boom", field="id")) == "field 'id': boom"
    assert str(InputError("boom", path="x.jsonl")) == "x.jsonl: boom"
    assert str(InputError("boom", path="x.json", line=3, unit="record")) == "x.json: record 3: boom"


def test_error_located_keeps_inner_details() -> None:
    inner = InputError("missing", field="question_id")
    outer = inner.located(path="p.jsonl", line=4)
    assert str(outer) == "p.jsonl:4: field 'question_id': missing"
    # An already known location is not overwritten.
    assert outer.located(path="other", line=9).line == 4


def test_error_pickles_with_attributes() -> None:
    err = InputError("m", path="p", line=2, field="f")
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == str(err) and copy.field == "f"


def test_jsonl_skips_blank_lines_and_reports_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "a"}\n\n   \n{"id": "b"}\n')
    assert list(read_records(path)) == [(1, {"id": "a"}), (4, {"id": "b"})]


def test_jsonl_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "a"}\n')
    assert list(read_records(path)) == [(1, {"id": "a"})]


def test_malformed_jsonl_line(tmp_path: Path) -> None:
    path = tmp_path / "problems.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b"}\n\n{"id": \n{"id": "d"}\n')
    with pytest.raises(InputError) as info:
        list(read_records(path))
    assert info.value.line == 4
    assert info.value.path == str(path)
    assert str(info.value).startswith(f"{path}:4: not valid JSON (")


def test_non_object_record(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "a"}\n[1, 2]\n')
    with pytest.raises(InputError, match=r":2: expected a JSON object, got list"):
        list(read_records(path))


def test_non_standard_json_constants(tmp_path: Path) -> None:
    # MBPP+ writes Infinity/NaN the way Python's json does; orjson alone refuses them.
    path = tmp_path / "r.jsonl"
    path.write_text('{"x": [-Infinity, Infinity]}\n')
    assert list(read_records(path)) == [(1, {"x": [float("-inf"), float("inf")]})]


def test_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "\xff"}\n')
    with pytest.raises(InputError, match=r"r.jsonl:2: not valid JSON \(not UTF-8 text"):
        list(read_records(path))


def test_jsonl_gz(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(b"".join(orjson.dumps(r) + b"\n" for r in RECORDS))
    assert [r for _, r in read_records(path)] == RECORDS
    assert position_unit(path) == "line"


def test_corrupt_gz(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl.gz"
    path.write_bytes(b"this is not gzip")
    with pytest.raises(InputError, match=r"r.jsonl.gz: cannot read file"):
        list(read_records(path))


def test_json_array(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(orjson.dumps(RECORDS, option=orjson.OPT_INDENT_2))
    assert list(read_records(path)) == [(i, r) for i, r in enumerate(RECORDS, start=1)]
    assert position_unit(path) == "record"


def test_json_array_errors(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('[\n  {"id": "a"},\n  {"id": }\n]')
    with pytest.raises(InputError) as info:
        list(read_records(path))
    assert info.value.line == 3  # the text line of the syntax error
    path.write_text('{"eval": {}}')
    with pytest.raises(InputError, match="expected a JSON array of records"):
        list(read_records(path))
    path.write_text('[{"id": "a"}, 3]')
    with pytest.raises(InputError, match=r"r.json: record 2: expected a JSON object, got int"):
        list(read_records(path))


def test_parquet(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    table = pa.Table.from_pylist([{"id": "a", "n": 1}, {"id": "b", "n": 2}])
    pq.write_table(table, path)
    assert list(read_records(path)) == [(1, {"id": "a", "n": 1}), (2, {"id": "b", "n": 2})]
    assert position_unit(path) == "record"


def test_corrupt_parquet(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    path.write_bytes(b"PAR1 nonsense")
    with pytest.raises(InputError, match=r"r.parquet: cannot read"):
        list(read_records(path))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope.jsonl: cannot read file: No such file"):
        list(read_records(tmp_path / "nope.jsonl"))


def test_write_jsonl_helper_round_trip(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", RECORDS)
    assert [r for _, r in read_records(path)] == RECORDS
