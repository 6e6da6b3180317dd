"""A row's time and memory limits are checked where they are read (issue 51): finite, positive,
within the ceilings of :mod:`evaluator.default_limits`, else an error naming the field. Before,
``time_limit: Infinity`` or ``1e300`` gave a correct program RE "exit status 70" (the sandbox
could not set the limit) and ``memory_limit: 10**12`` went through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.formats import InputError, problems_from_records, read_problems

MAX_TIME_LIMIT, MAX_MEMORY_LIMIT = 600.0, 1 << 20  # as README says (default_limits.py)
SOURCES = Path(__file__).resolve().parent.parent / "data" / "sources"
LCB = {"question_id": "q", "public_test_cases": '[{"input": "1\\n", "output": "1\\n"}]'}


def _first_row(name: str) -> dict:
    return json.loads((SOURCES / name).read_text().splitlines()[0])


def _with(record: dict, path: str, value) -> dict:
    """``record`` with ``value`` at the dotted ``path`` (a JSON text on the way is decoded)."""
    record = json.loads(json.dumps(record))
    *parents, last = path.split(".")
    holder = record
    for key in parents:
        holder = holder[key]
    holder[last] = value
    return record


BAD = [
    (LCB, "time_limit", float("inf"), "time_limit"),
    (LCB, "time_limit", 1e300, "time_limit"),
    (LCB, "time_limit", -1, "time_limit"),
    (LCB, "time_limit", MAX_TIME_LIMIT + 1, "time_limit"),
    (LCB, "memory_limit", 10**12, "memory_limit"),
    (LCB, "memory_limit", float("inf"), "memory_limit"),
    ({"id": "o", "harness": "stdin", "tests": [{"input": "", "output": ""}]}, "time_limit", 1e300, "time_limit"),
    (_first_row("codeforces/problems.jsonl"), "time_limit", 1e300, "time_limit"),
    (_first_row("codeforces/problems.jsonl"), "memory_limit", 1e12, "memory_limit"),
    (_first_row("taco/taco.jsonl"), "time_limit", "100000 seconds", "time_limit"),
    (_first_row("taco/taco.jsonl"), "memory_limit", "2000000 gigabytes", "memory_limit"),
    (_first_row("codecontests/problems.jsonl"), "time_limit", {"seconds": 10**400, "nanos": 0}, "time_limit"),
    (_first_row("codecontests/problems.jsonl"), "memory_limit_bytes", 10**400, "memory_limit_bytes"),
]  # fmt: skip


@pytest.mark.parametrize(("record", "path", "value", "field"), BAD)
def test_a_limit_out_of_bounds_is_refused_naming_the_field(record, path, value, field):
    with pytest.raises(InputError) as info:
        problems_from_records([_with(record, path, value)], source="rows")
    assert info.value.field == field
    message = str(info.value)
    assert message.startswith(f"rows: record 1: field '{field}': ") and "\n" not in message
    assert len(message) < 200  # 10**400 is not written out


def test_infinity_in_a_file_is_refused_naming_file_line_and_field(tmp_path):
    """JSON has no Infinity, but Python's json writes it and the reader takes it (MBPP+'s
    inputs hold it): a limit of Infinity reaches the reader as a float."""
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps(LCB)
        + "\n"
        + json.dumps({**LCB, "question_id": "r", "time_limit": float("inf")})
        + "\n"
    )
    with pytest.raises(
        InputError, match=r"p\.jsonl:2: field 'time_limit': at most 600 seconds, got inf$"
    ):
        read_problems(path)


def test_the_ceilings_themselves_are_taken():
    (problem,) = problems_from_records(
        [{**LCB, "time_limit": MAX_TIME_LIMIT, "memory_limit": MAX_MEMORY_LIMIT}]
    )
    assert (problem.time_limit, problem.memory_limit) == (MAX_TIME_LIMIT, MAX_MEMORY_LIMIT)
