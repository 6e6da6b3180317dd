"""verl sandbox_fusion's ``assert_case`` ground truth: a list of assert statements calling the
function by its name, made an assertion-harness problem by the decoder such lists share
(:func:`~evaluator.formats.assert_lists.assertion_problem`, whose module says how they run).

sandbox_fusion's ground truth (``volcengine/verl@verl/utils/reward_score/sandbox_fusion/
__init__.py``, its test ``test_sandbox_fusion_on_cpu.py``)::

    {"fn_name"?: "merge_intervals", "assert_case": ["assert merge_intervals(...) == ...", ...]}

sandbox_fusion runs ``program + "\\n\\n" + case`` once per case and passes a case on exit
status 0, scoring the share of the first ten cases passed. Here all cases run in one
``check`` and the problem passes when all of them do; a program that exits 0 before the
asserts fails (sandbox_fusion would pass it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..assert_lists import assertion_problem
from ..fields import optional_memory_limit, optional_time_limit
from ..registry import Format
from ..testlists import decode_text

__all__ = ["FORMAT"]


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = fallback_id or "assert_case"
    name = record.get("fn_name") if record.get("fn_name") not in (None, "") else None
    cases = decode_text(record.get("assert_case"), "assert_case")
    return assertion_problem(
        problem_id,
        cases,
        "assert_case",
        entry_point=name,
        time_limit=optional_time_limit(record),
        memory_limit=optional_memory_limit(record),
        metadata={"source_format": "assert_case"},
    )


FORMAT = Format(
    name="assert_case",
    title="verl sandbox_fusion assert_case",
    shape="'assert_case' (a list of assert statements), 'fn_name' optional",
    recognise=lambda record: "assert_case" in record,
    read=_read,
    fields=("assert_case", "fn_name", "time_limit", "memory_limit"),
    rank=60,
)
