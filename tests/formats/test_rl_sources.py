"""The RL training sources' readers (PrimeIntellect, DeepCoder, rStar-Coder, verl rows, NeMo-Gym,
MBPP, sandbox_fusion's assert_case): records written by hand in each documented shape
(``tests/data/sources/*/README.md`` cites where each shape comes from), read through the
registry, then graded in the real sandbox with a right and a wrong Python answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.formats import InputError, detect_format, get_format, read_problems
from evaluator.formats.record_files import read_records
from evaluator.problem import Harness, Problem, Verdict
from evaluator.runner import GradeOptions, Grader

SOURCES = Path(__file__).resolve().parents[1] / "data" / "sources"


def _problems(relative: str) -> dict[str, Problem]:
    return {problem.id: problem for problem in read_problems(SOURCES / relative)}


def _records(relative: str) -> list[dict]:
    return [record for _, record in read_records(SOURCES / relative)]


@pytest.fixture(scope="module")
def grader(pool):
    return Grader(GradeOptions(time_limit=5), pool=pool)


def _verdict(grader: Grader, problem: Problem, code: str) -> Verdict:
    return grader.grade(problem, code).verdict


def _error(tmp_path: Path, write_jsonl, records: list[dict]) -> InputError:
    path = write_jsonl(tmp_path / "rows.jsonl", records)
    with pytest.raises(InputError) as info:
        read_problems(path)
    return info.value


# --- PrimeIntellect -----------------------------------------------------------------------------

SUM_TO_N = "n = int(input())\nprint(n * (n + 1) // 2)\n"
SUM_TO_N_WRONG = "n = int(input())\nprint(n * n)\n"


def test_primeintellect_rows_are_read_with_limits_and_language() -> None:
    records = _records("primeintellect/rows.jsonl")
    with pytest.raises(ValueError):  # the Hub's form: a Python literal, not JSON
        json.loads(records[0]["verification_info"])
    assert detect_format(records[0]).name == "primeintellect"
    problems = _problems("primeintellect/rows.jsonl")
    stdin = problems["primeintellect_stdin_1"]
    assert stdin.harness is Harness.STDIN
    assert stdin.judge == {"type": "float"}
    assert (stdin.time_limit, stdin.memory_limit) == (2.0, 256)
    assert stdin.metadata["platform"] == "codeforces"
    assert stdin.metadata["difficulty"] == "A"
    assert stdin.metadata["language"] == "python"
    assert [t.input for t in stdin.tests] == ["3\n", "10\n"]
    call = problems["primeintellect_call_1"]
    assert (call.harness, call.func_name, call.judge) == (Harness.FUNCTIONAL, "append_item", None)
    assert [(t.input, t.output) for t in call.tests] == [
        ("[1,2]\n3", "[1,2,3]"),
        ('[]\n"a"', '["a"]'),
    ]
    # a language not run here does not make the problem unreadable
    cpp = problems["primeintellect_cpp_1"]
    assert cpp.metadata["language"] == "cpp"
    assert (cpp.time_limit, cpp.memory_limit) == (None, None)


def test_primeintellect_references_are_the_fenced_code() -> None:
    fmt = get_format("primeintellect")
    records = _records("primeintellect/rows.jsonl")
    (python,) = fmt.references(records[0])
    assert (python.code, python.language) == (SUM_TO_N.rstrip("\n"), "python")
    (cpp,) = fmt.references(records[2])
    assert cpp.language == "cpp" and cpp.code.startswith("#include")


def test_primeintellect_decoded_columns() -> None:
    problem = _problems("primeintellect/decoded.jsonl")["primeintellect_decoded_1"]
    assert problem.harness is Harness.STDIN
    assert (problem.time_limit, problem.memory_limit) == (1.0, None)


def test_primeintellect_memory_limit_in_bytes_only(tmp_path, write_jsonl) -> None:
    record = _records("primeintellect/rows.jsonl")[0]
    record["metadata"] = repr({"memory_limit_bytes": 64 * 2**20})
    (problem,) = read_problems(write_jsonl(tmp_path / "pi.jsonl", [record]))
    assert problem.memory_limit == 64


def test_primeintellect_errors_name_row_and_field(tmp_path, write_jsonl) -> None:
    good, bad = _records("primeintellect/rows.jsonl")[:2]
    info = json.loads(bad["verification_info"])
    del info["test_cases"][1]["input"]
    bad["verification_info"] = json.dumps(info)
    error = _error(tmp_path, write_jsonl, [good, bad])
    assert (error.line, error.field) == (2, "verification_info.test_cases[1].input")
    assert "missing required field" in str(error)
    math_row = {**good, "problem_id": "m", "task_type": "verifiable_math"}
    error = _error(tmp_path, write_jsonl, [math_row])
    assert (error.line, error.field) == (1, "task_type")
    broken = {**good, "verification_info": "{'language': 'python', 'test_cases': [}"}
    error = _error(tmp_path, write_jsonl, [broken])
    assert error.field == "verification_info"
    assert "neither JSON" in error.message
    slow = {**good, "metadata": "{'time_limit': 'one second'}"}
    assert _error(tmp_path, write_jsonl, [slow]).field == "metadata.time_limit"


def test_primeintellect_grading(grader) -> None:
    problems = _problems("primeintellect/rows.jsonl")
    stdin, call = problems["primeintellect_stdin_1"], problems["primeintellect_call_1"]
    assert _verdict(grader, stdin, SUM_TO_N) is Verdict.AC
    assert _verdict(grader, stdin, SUM_TO_N_WRONG) is Verdict.WA
    # function_call: compared by value, a tuple equals the list of its items
    assert (
        _verdict(grader, call, "def append_item(items, x):\n    return items + [x]") is Verdict.AC
    )
    tuple_answer = "def append_item(items, x):\n    return tuple(items) + (x,)"
    assert _verdict(grader, call, tuple_answer) is Verdict.AC
    assert _verdict(grader, call, "def append_item(items, x):\n    return items") is Verdict.WA
    # float judge on a stdin test
    decoded = _problems("primeintellect/decoded.jsonl")["primeintellect_decoded_1"]
    divide = "a, b = map(int, input().split())\nprint(a / b)"
    assert _verdict(grader, decoded, divide) is Verdict.AC
    assert _verdict(grader, decoded, "print(0.3334)") is Verdict.WA


def test_verification_info_alone_is_a_format(grader) -> None:
    record = {
        "language": "python",
        "test_cases": [{"type": "stdin_stdout", "input": "3\n", "output": "6\n"}],
    }
    fmt = detect_format(record)
    assert fmt.name == "verification_info"
    problem = fmt.problem(record, "vi-0")
    assert (problem.id, problem.judge) == ("vi-0", {"type": "float"})
    assert _verdict(grader, problem, SUM_TO_N) is Verdict.AC


# --- DeepCoder ----------------------------------------------------------------------------------

ADD_ALL = (
    "from typing import List\n\nclass Solution:\n"
    "    def addAll(self, nums: List[int], k: int) -> List[int]:\n"
    "        return [x + k for x in nums]\n"
)


def test_deepcoder_subsets_are_read_by_their_shapes() -> None:
    assert detect_format(_records("deepcoder/rows.jsonl")[0]).name == "deepcoder"
    problems = list(_problems("deepcoder/rows.jsonl").values())
    assert [p.id for p in problems] == [f"deepcoder-{i}" for i in range(6)]
    subsets = [p.metadata["deepcoder_subset"] for p in problems]
    assert subsets == ["lcbv5", "lcbv5", "taco", "taco", "primeintellect", "codeforces"]
    functional, stdin, taco_call, taco_stdin, pi_call, codeforces = problems
    assert (functional.harness, functional.func_name) == (Harness.FUNCTIONAL, "addAll")
    assert functional.judge is None and functional.metadata["platform"] == "leetcode"
    assert (stdin.harness, stdin.judge) == (Harness.STDIN, None)  # LiveCodeBench's lines
    assert (taco_call.func_name, taco_call.judge) == ("total", {"unwrap": True})
    assert taco_stdin.judge == {"type": "float"}
    assert (pi_call.func_name, pi_call.judge) == ("square", None)
    assert codeforces.judge == {"type": "float"}


def test_deepcoder_references_and_statement() -> None:
    fmt = get_format("deepcoder")
    records = _records("deepcoder/rows.jsonl")
    assert fmt.statement(records[0]) == "Add k to every element of nums."
    assert [s.code for s in fmt.references(records[4])] == ["def square(x):\n    return x * x"]
    assert fmt.references(records[0]) == []


def test_deepcoder_errors_name_row_and_field(tmp_path, write_jsonl) -> None:
    records = _records("deepcoder/rows.jsonl")
    error = _error(tmp_path, write_jsonl, [records[1], {**records[0], "tests": "[{"}])
    assert (error.line, error.field) == (2, "tests")
    error = _error(tmp_path, write_jsonl, [{**records[0], "metadata": "{}"}])
    assert error.field == "tests"  # functional cases and no func_name
    assert "func_name" in error.message
    cases = json.loads(records[1]["tests"])
    cases[1]["output"] = 42
    error = _error(tmp_path, write_jsonl, [{**records[1], "tests": json.dumps(cases)}])
    assert error.field == "tests[1].output"


def test_deepcoder_grading(grader) -> None:
    functional, stdin, taco_call, taco_stdin, pi_call, codeforces = _problems(
        "deepcoder/rows.jsonl"
    ).values()
    assert _verdict(grader, functional, ADD_ALL) is Verdict.AC
    assert _verdict(grader, functional, ADD_ALL.replace("x + k", "x - k")) is Verdict.WA
    assert _verdict(grader, stdin, "print(int(input()) * 2)") is Verdict.AC
    assert _verdict(grader, stdin, "print(int(input()) + 2)") is Verdict.WA
    # TACO's wrapped outputs ([6]) accept the bare value
    assert _verdict(grader, taco_call, "def total(xs):\n    return sum(xs)") is Verdict.AC
    assert _verdict(grader, taco_call, "def total(xs):\n    return [sum(xs)]") is Verdict.AC
    assert _verdict(grader, taco_call, "def total(xs):\n    return max(xs)") is Verdict.WA
    # 0.3333333333333333 against 0.333333333: within 1e-6
    divide = "a, b = map(int, input().split())\nprint(a / b)"
    assert _verdict(grader, taco_stdin, divide) is Verdict.AC
    wrong = "a, b = map(int, input().split())\nprint(b / a)"
    assert _verdict(grader, taco_stdin, wrong) is Verdict.WA
    assert _verdict(grader, pi_call, "def square(x):\n    return x * x") is Verdict.AC
    assert _verdict(grader, pi_call, "def square(x):\n    return 2 * x") is Verdict.WA
    plus = "a, b = map(int, input().split())\nprint(a + b)"
    assert _verdict(grader, codeforces, plus) is Verdict.AC
    assert _verdict(grader, codeforces, plus.replace("a + b", "a * b")) is Verdict.WA


# --- rStar-Coder --------------------------------------------------------------------------------


def test_rstar_rows() -> None:
    records = _records("rstar/seed_testcase.jsonl")
    assert detect_format(records[0]).name == "rstar"
    seed = _problems("rstar/seed_testcase.jsonl")
    assert seed["seed_stdin_1"].harness is Harness.STDIN
    assert seed["seed_stdin_1"].judge == {"type": "float"}
    double = seed["seed_call_1"]  # each element a JSON text of its own
    assert (double.harness, double.func_name) == (Harness.FUNCTIONAL, "sumList")
    assert [(t.input, t.output) for t in double.tests] == [("[1,2,3]", "6"), ("[5]", "5")]
    single = seed["seed_call_2"]  # elements already values
    assert [(t.input, t.output) for t in single.tests] == [("[1,2,3]", "[3,2,1]"), ("[]", "[]")]
    assert single.metadata["class_name"] == "Solution"
    (synthetic,) = _problems("rstar/synthetic_rl_testcase.jsonl").values()
    assert (synthetic.id, synthetic.harness) == ("synthetic_50262", Harness.STDIN)


def test_rstar_errors_name_row_and_field(tmp_path, write_jsonl) -> None:
    stdin, double, _ = _records("rstar/seed_testcase.jsonl")
    error = _error(tmp_path, write_jsonl, [stdin, {**double, "inputs": '["[[1, 2, 3]]", "[[5"]'}])
    assert (error.line, error.field) == (2, "inputs[1]")
    error = _error(tmp_path, write_jsonl, [{**stdin, "outputs": '["3\\n"]'}])
    assert error.field == "outputs" and "2 inputs but 1 outputs" in error.message
    error = _error(tmp_path, write_jsonl, [{**stdin, "inputs": "[1, 2"}])
    assert error.field == "inputs"


def test_rstar_grading(grader) -> None:
    seed = _problems("rstar/seed_testcase.jsonl")
    plus = "a, b = map(int, input().split())\nprint(a + b)"
    assert _verdict(grader, seed["seed_stdin_1"], plus) is Verdict.AC
    assert _verdict(grader, seed["seed_stdin_1"], plus.replace("+", "-")) is Verdict.WA
    sum_list = "class Solution:\n    def sumList(self, nums):\n        return sum(nums)"
    assert _verdict(grader, seed["seed_call_1"], sum_list) is Verdict.AC
    assert _verdict(grader, seed["seed_call_1"], sum_list.replace("sum(nums)", "0")) is Verdict.WA
    rev = "class Solution:\n    def rev(self, nums):\n        return nums[::-1]"
    assert _verdict(grader, seed["seed_call_2"], rev) is Verdict.AC
    assert _verdict(grader, seed["seed_call_2"], rev.replace("[::-1]", "")) is Verdict.WA
    (synthetic,) = _problems("rstar/synthetic_rl_testcase.jsonl").values()
    assert _verdict(grader, synthetic, "print(int(input()) ** 2)") is Verdict.AC
    assert _verdict(grader, synthetic, "print(int(input()) * 2)") is Verdict.WA


# --- verl rows ----------------------------------------------------------------------------------


def test_verl_rows_are_read_by_their_ground_truth() -> None:
    records = _records("verl/rows.jsonl")
    assert detect_format(records[0]).name == "verl_rows"
    stdin, call, asserts, listed = _problems("verl/rows.jsonl").values()
    assert stdin.id == "verl_rows-0"
    assert (stdin.harness, stdin.judge) == (Harness.STDIN, {"type": "float"})
    assert stdin.metadata["platform"] == "taco" and stdin.metadata["ability"] == "code"
    assert (call.harness, call.func_name) == (Harness.FUNCTIONAL, "add_k")
    assert (asserts.harness, asserts.entry_point) == (Harness.ASSERTION, "merge_intervals")
    assert (listed.harness, listed.metadata["language"]) == (Harness.STDIN, "python")
    assert get_format("verl_rows").statement(records[0]) == "Read a and b, print a / b."


def test_verl_rows_errors_name_the_ground_truth_field(tmp_path, write_jsonl) -> None:
    stdin, call, asserts, listed = _records("verl/rows.jsonl")
    truth = {"inputs": ["1 3\n", 5], "outputs": ["0.3\n", "1\n"]}
    row = {**stdin, "reward_model": {"style": "rule", "ground_truth": json.dumps(truth)}}
    error = _error(tmp_path, write_jsonl, [call, row])
    assert (error.line, error.field) == (2, "reward_model.ground_truth.inputs[1]")
    row = {**listed, "reward_model": {"ground_truth": '[{"input": "1\\n"}]'}}
    assert _error(tmp_path, write_jsonl, [row]).field == "reward_model.ground_truth[0].output"
    row = {**asserts, "reward_model": {"ground_truth": '{"assert_case": ["assert (1"]}'}}
    assert _error(tmp_path, write_jsonl, [row]).field == "reward_model.ground_truth.assert_case[0]"
    math_row = {**stdin, "ability": "math", "reward_model": {"style": "rule", "ground_truth": "42"}}
    error = _error(tmp_path, write_jsonl, [math_row])
    assert error.field == "reward_model.ground_truth" and "'math'" in error.message
    row = {**stdin, "reward_model": {"style": "rule", "ground_truth": '{"answer": 1}'}}
    error = _error(tmp_path, write_jsonl, [row])
    assert error.field == "reward_model.ground_truth"
    assert "not a known problem record" in error.message
    error = _error(tmp_path, write_jsonl, [{**stdin, "reward_model": {"style": "rule"}}])
    assert error.field == "reward_model.ground_truth"


def test_verl_rows_grading(grader) -> None:
    stdin, call, asserts, listed = _problems("verl/rows.jsonl").values()
    divide = "a, b = map(int, input().split())\nprint(a / b)"
    assert _verdict(grader, stdin, divide) is Verdict.AC
    assert _verdict(grader, stdin, "print(0.5)") is Verdict.WA
    add_k = "def add_k(nums, k):\n    return [x + k for x in nums]"
    assert _verdict(grader, call, add_k) is Verdict.AC
    assert _verdict(grader, call, add_k.replace("x + k", "x")) is Verdict.WA
    merge = (
        "def merge_intervals(xs):\n    out = []\n    for a, b in sorted(xs):\n"
        "        if out and a <= out[-1][1]:\n            out[-1] = (out[-1][0], max(b, out[-1][1]))\n"
        "        else:\n            out.append((a, b))\n    return out\n"
    )
    assert _verdict(grader, asserts, merge) is Verdict.AC
    assert _verdict(grader, asserts, "def merge_intervals(xs):\n    return xs") is not Verdict.AC
    assert _verdict(grader, asserts, "import sys\nsys.exit(0)\n" + merge) is not Verdict.AC
    assert _verdict(grader, listed, "print(2 * int(input()))") is Verdict.AC
    assert _verdict(grader, listed, "print(int(input()))") is Verdict.WA


# --- NeMo-Gym -----------------------------------------------------------------------------------


def test_nemo_gym_rows() -> None:
    assert detect_format(_records("nemo_gym/rows.jsonl")[0]).name == "nemo_gym"
    problems = _problems("nemo_gym/rows.jsonl")
    stdin, call = problems["a1b2c3"], problems["d4e5f6"]
    assert (stdin.harness, stdin.judge) == (Harness.STDIN, None)  # LiveCodeBench's lines
    assert stdin.metadata == {
        "platform": "codeforces",
        "dataset": "opencodereasoning",
        "difficulty": "easy",
    }
    assert (call.harness, call.func_name, call.judge) == (Harness.FUNCTIONAL, "addK", None)
    assert call.tests[0].input == "[1, 2]\n3"
    assert get_format("nemo_gym").statement(_records("nemo_gym/rows.jsonl")[0]).startswith("Read n")


def test_nemo_gym_without_hash_id_is_named_by_position(tmp_path, write_jsonl) -> None:
    record = _records("nemo_gym/rows.jsonl")[0]
    del record["hash_id"]
    (problem,) = read_problems(write_jsonl(tmp_path / "n.jsonl", [record]))
    assert problem.id == "nemo_gym-0"


def test_nemo_gym_errors_name_row_and_field(tmp_path, write_jsonl) -> None:
    stdin, call = _records("nemo_gym/rows.jsonl")
    call["verifier_metadata"]["unit_tests"]["outputs"][1] = "[4,"
    error = _error(tmp_path, write_jsonl, [stdin, call])
    assert (error.line, error.field) == (2, "verifier_metadata.unit_tests.outputs[1]")
    error = _error(tmp_path, write_jsonl, [{**stdin, "verifier_metadata": {"difficulty": "x"}}])
    assert error.field == "verifier_metadata.unit_tests"


def test_nemo_gym_grading(grader) -> None:
    problems = _problems("nemo_gym/rows.jsonl")
    stdin, call = problems["a1b2c3"], problems["d4e5f6"]
    assert _verdict(grader, stdin, SUM_TO_N) is Verdict.AC
    assert _verdict(grader, stdin, SUM_TO_N_WRONG) is Verdict.WA
    add_k = "class Solution:\n    def addK(self, nums, k):\n        return [x + k for x in nums]"
    assert _verdict(grader, call, add_k) is Verdict.AC
    # not wrapped: no unwrapping of a one-element list
    bare = add_k.replace("return [x + k for x in nums]", "return nums[0] + k")
    assert _verdict(grader, call, bare) is Verdict.WA


# --- MBPP and assert_case -----------------------------------------------------------------------


def test_mbpp_rows_are_assertion_problems() -> None:
    records = _records("mbpp/mbpp.jsonl")
    assert detect_format(records[0]).name == "mbpp"
    original = _problems("mbpp/mbpp.jsonl")
    occ = original["11"]
    assert (occ.harness, occ.entry_point) == (Harness.ASSERTION, "remove_Occ")
    assert 'assert remove_Occ("hello","l") == "heo"' in occ.test_code
    assert "remove_Occ = candidate" in occ.test_code
    assert occ.metadata["challenge_test_list"] == records[0]["challenge_test_list"]
    assert original["2"].entry_point == "similar_elements"  # inside set(...)
    sanitized = _problems("mbpp/sanitized.jsonl")
    circle = sanitized["139"]
    assert circle.entry_point == "circle_circumference"  # not math.isclose
    assert circle.test_code.startswith("import math\n")
    fmt = get_format("mbpp")
    assert fmt.statement(records[0]).startswith("Write a python function to remove")
    assert fmt.references(records[0])[0].code == records[0]["code"]


def test_mbpp_errors_name_row_and_field(tmp_path, write_jsonl) -> None:
    good, other = _records("mbpp/mbpp.jsonl")
    bad = {**other, "test_list": ["assert similar_elements((1,), (1,))", "assert (1 =="]}
    error = _error(tmp_path, write_jsonl, [good, bad])
    assert (error.line, error.field) == (2, "test_list[1]")
    assert "not valid Python" in error.message
    error = _error(tmp_path, write_jsonl, [{**good, "test_list": ["assert len('ab') == 2"]}])
    assert error.field == "test_list" and "calls a function" in error.message
    error = _error(tmp_path, write_jsonl, [{**good, "test_setup_code": "def ("}])
    assert error.field == "test_setup_code"
    del good["test_list"]
    path = write_jsonl(tmp_path / "no-tests.jsonl", [good])
    with pytest.raises(InputError) as info:
        read_problems(path, format="mbpp")
    assert info.value.field == "test_list"


def test_mbpp_grading(grader) -> None:
    fmt = get_format("mbpp")
    for relative in ("mbpp/mbpp.jsonl", "mbpp/sanitized.jsonl"):
        problems = list(_problems(relative).values())
        for record, problem in zip(_records(relative), problems, strict=True):
            (reference,) = fmt.references(record)
            assert _verdict(grader, problem, reference.code) is Verdict.AC, problem.id
    occ = _problems("mbpp/mbpp.jsonl")["11"]
    right = _records("mbpp/mbpp.jsonl")[0]["code"]
    assert _verdict(grader, occ, "def remove_Occ(s, ch):\n    return s.replace(ch, '', 1)") in (
        Verdict.RE,
        Verdict.WA,
    )
    # exiting with status 0 before the asserts have run is not a pass, nor is a program
    # that defines no function of that name
    assert _verdict(grader, occ, "import sys\nsys.exit(0)\n" + right) is not Verdict.AC
    assert _verdict(grader, occ, right + "\nimport sys\nsys.exit(0)\n") is not Verdict.AC
    assert _verdict(grader, occ, right.replace("remove_Occ", "remove_occ")) is not Verdict.AC
    perimeter = _problems("mbpp/sanitized.jsonl")["17"]
    assert _verdict(grader, perimeter, "def square_perimeter(a):\n  return a * a") is not Verdict.AC


def test_assert_case_alone(grader) -> None:
    record = {"assert_case": ["assert double(2) == 4", "assert double(-1) == -2"]}
    fmt = detect_format(record)
    assert fmt.name == "assert_case"
    problem = fmt.problem(record, "ac-0")
    assert (problem.id, problem.entry_point) == ("ac-0", "double")
    assert _verdict(grader, problem, "def double(x):\n    return 2 * x") is Verdict.AC
    assert _verdict(grader, problem, "def double(x):\n    return x + 2") is not Verdict.AC
    named = fmt.problem({"fn_name": "f", "assert_case": ["assert g(1) == 1"]}, "ac-1")
    assert named.entry_point == "f"
    assert _verdict(grader, named, "def f(x):\n    return x\ng = f") is Verdict.AC
    empty = fmt.problem({"assert_case": []}, "ac-2")
    assert empty.tests == [] and _verdict(grader, empty, "pass") is Verdict.ERROR
    with pytest.raises(InputError) as info:
        fmt.problem({"fn_name": "not a name", "assert_case": ["assert f(1)"]}, "ac-3")
    assert info.value.field == "fn_name"
