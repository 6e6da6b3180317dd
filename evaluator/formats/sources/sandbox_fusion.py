"""SandboxFusion's ``CommonOJDataset`` problems: the ``provided_data`` of a ``/submit`` request
(and of its datasets' rows)::

    {"id"?: ..., "test": [{"input": {"stdin": "..."}, "output": {"stdout": "..."}}, ...]}

``test`` may be JSON text. Stdin tests, graded by SandboxFusion's own rule (the
``sandbox_fusion`` judge: lines, any letter case, floats within 1e-5 relative), unless the
record names a ``judge``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Harness, Problem, TestCase
from ..errors import InputError
from ..fields import expect_dict, expect_list, expect_str, optional_judge
from ..registry import Format, take_id
from ..testlists import DecodedTests, decode_text

__all__ = ["FORMAT"]


def _test(case: Any, where: str) -> TestCase:
    case = expect_dict(case, where)
    texts = []
    for side, stream in (("input", "stdin"), ("output", "stdout")):
        if not isinstance(case.get(side), Mapping) or stream not in case[side]:
            raise InputError(
                "expected {'input': {'stdin': ...}, 'output': {'stdout': ...}}", field=where
            )
        texts.append(expect_str(case[side][stream], f"{where}.{side}.{stream}"))
    return TestCase(texts[0], texts[1])


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("id",), fallback_id, numbers=True)
    cases = expect_list(decode_text(record.get("test"), "test"), "test")
    tests = [_test(case, f"test[{index}]") for index, case in enumerate(cases)]
    return DecodedTests(Harness.STDIN, tests).problem(
        problem_id, judge=optional_judge(record), rule=lambda _: "sandbox_fusion"
    )


FORMAT = Format(
    name="sandbox_fusion",
    title="SandboxFusion CommonOJDataset",
    shape="'test' (a list of {'input': {'stdin'}, 'output': {'stdout'}})",
    recognise=lambda record: (
        "test" in record
        and "task_id" not in record
        and "test_info" not in record
        and "test_code" not in record
    ),
    read=_read,
    fields=("id", "test", "judge"),
    rank=85,
    id_keys=("id",),
    id_required=False,
    aliases=("commonoj", "CommonOJDataset"),
)
