"""agentica-org/DeepCoder-Preview-Dataset rows, all four subsets (``lcbv5``,
``primeintellect``, ``taco``, ``codeforces``)::

    {"problem": "<statement>", "tests": "<JSON text, or the decoded value>",
     "starter_code"?: "class Solution: ...", "metadata"?: "{\\"func_name\\": \\"maxSum\\"}",
     "solutions"?: ["..."]}

The columns are what rllm's loader reads (``rllm-org/rllm@cookbooks/deepcoder/
prepare_deepcoder_data.py``: ``problem``, ``tests``, ``starter_code``, ``metadata``);
``tests`` is JSON text on the Hub (the loader decodes it when it is a string), ``metadata``
JSON text or an object. The rows name no subset and no id (a row is named by its position:
``deepcoder-<row>``); the subset is told by the shape of ``tests``, as rllm's notebooks
built them (``rllm/data/preprocess/code/*.ipynb``):

* ``lcbv5``: a list of ``{"input", "output", "testtype": "stdin"|"functional"}``
  (LiveCodeBench's cases; a call's function is ``metadata.func_name``);
* ``primeintellect``: a list of PrimeIntellect's ``{"type": "stdin_stdout"|"function_call",
  "input", "output", "fn_name"?}``;
* ``taco``: the TACO object ``{"inputs", "outputs", "fn_name"?}``;
* ``codeforces``: a list of ``{"input", "output"}``.

The rule, per subset: ``lcbv5`` by LiveCodeBench's (stdin by the grading default, ``tokens``, as our
:mod:`.livecodebench` format: no judge named; calls by value, no
unwrapping), and its call-based problems (LiveCodeBench's LeetCode half) get the
``leetcode`` platform, hence its interpreter environment. The other subsets' stdin tests by
the ``float`` judge (as :mod:`.taco` and :mod:`.primeintellect`); ``taco`` calls by value
with a one-element-list expected value also accepting its item (``{"unwrap": true}``, when
some expected value is so wrapped), ``primeintellect`` calls by value. rllm's reward
(``rllm/rewards/code_reward.py``) runs every subset through LiveCodeBench's checker
(``lcb_check_correctness_v2``) after ``taco_to_lcb_format``, which takes the first item of
every list output (a stdin output given as a list of lines included); and its
``postprocess_lcb_sample`` looks only for ``testtype``, so PrimeIntellect's ``function_call``
cases run there as stdin tests. ``docs`` (``notes/docs-rl-sources.md``) give each difference.

``metadata``'s ``time_limit``/``memory_limit`` (a number or a text such as ``"2 seconds"``),
when a row has them, become the problem's limits. References: ``solutions`` (the code of a
fenced block when a solution is one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Harness, Problem
from ..errors import InputError
from ..extract import extract_code
from ..fields import (
    expect_dict,
    expect_str,
    leetcode_output_arg,
    optional_judge,
    require_field,
    solutions_of,
)
from ..limits import megabytes, seconds
from ..registry import Format, Solution
from ..source_rules import contest_judge, pi_judge
from ..testlists import DecodedTests, decode_text, tests_value

__all__ = ["FORMAT", "subset_of"]

_SUBSETS = {
    "testtype": "lcbv5",
    "type": "primeintellect",
    "inputs_outputs": "taco",
    "plain": "codeforces",
}


def subset_of(decoded: DecodedTests) -> str:
    """The DeepCoder subset whose shape ``decoded`` came in."""
    return _SUBSETS.get(decoded.shape, "codeforces")


def _judge(decoded: DecodedTests, subset: str) -> Any:
    if subset == "lcbv5":
        return None  # LiveCodeBench's rule: lines (the default) for stdin, values for calls
    if subset == "taco":
        return contest_judge(decoded)
    return pi_judge(decoded)


def _metadata(record: Mapping[str, Any]) -> dict[str, Any]:
    value = record.get("metadata")
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    return expect_dict(decode_text(value, "metadata"), "metadata")


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = fallback_id or "deepcoder"
    meta = _metadata(record)
    func_name = meta.get("func_name") or None
    if func_name is not None:
        func_name = expect_str(func_name, "metadata.func_name", non_empty=True).strip()
    decoded = tests_value(require_field(record, "tests"), "tests", func_name=func_name)
    subset = subset_of(decoded)
    if decoded.harness is Harness.FUNCTIONAL and not decoded.func_name:
        raise InputError("call-based tests need 'func_name' in metadata", field="metadata")
    facts: dict[str, Any] = {"deepcoder_subset": subset} if decoded.tests else {}
    if subset == "lcbv5" and decoded.harness is Harness.FUNCTIONAL:
        facts["platform"] = "leetcode"
    elif subset == "codeforces" and decoded.tests:
        facts["platform"] = "codeforces"
    for key in ("difficulty", "platform"):
        if isinstance(meta.get(key), str) and meta[key].strip():
            facts[key] = meta[key]
    if isinstance(record.get("starter_code"), str) and record["starter_code"].strip():
        facts["starter_code"] = record["starter_code"]
    return decoded.problem(
        problem_id,
        judge=optional_judge(record),
        rule=lambda tests: _judge(tests, subset),
        time_limit=seconds(meta.get("time_limit"), "metadata.time_limit"),
        memory_limit=megabytes(meta.get("memory_limit"), "metadata.memory_limit"),
        metadata=facts,
        output_arg=leetcode_output_arg(meta) if decoded.func_name else None,
    )


def _references(record: Mapping[str, Any]) -> list[Solution]:
    found = []
    for text in solutions_of(record.get("solutions")):
        code = extract_code(text) if "```" in text else text
        if code:
            found.append(Solution(code))
    return found


FORMAT = Format(
    name="deepcoder",
    title="DeepCoder-Preview-Dataset",
    shape="'problem' with 'tests'",
    recognise=lambda record: "problem" in record and "tests" in record,
    read=_read,
    fields=("tests", "metadata", "starter_code", "judge"),
    rank=50,
    statement=lambda record: str(record.get("problem") or ""),
    references=_references,
    aliases=("agentica-org/deepcoder-preview-dataset",),
)
