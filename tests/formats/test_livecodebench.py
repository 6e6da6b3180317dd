"""LiveCodeBench problems (plain and compressed tests), samples, readers and results."""

from __future__ import annotations

import base64
import os
import pickle
import zlib
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluator.formats import (
    InputError,
    Samples,
    encode_private_tests,
    problem_from_lcb,
    read_problems,
    read_samples,
    samples_from_record,
    write_lcb_results,
)
from evaluator.problem import Harness, TestCase

STDIN_PUBLIC = [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]
STDIN_PRIVATE = [
    {"input": "5 6\n", "output": "11\n", "testtype": "stdin"},
    {"input": "0 0\n", "output": "0\n", "testtype": "stdin"},
]
FUNC_TESTS = [{"input": "[1, 2]\n3", "output": "true", "testtype": "functional"}]


def lcb_record(**overrides: object) -> dict[str, object]:
    record: dict[str, object] = {
        "question_title": "A + B",
        "question_content": "Add two numbers.",
        "platform": "atcoder",
        "question_id": "abc000_a",
        "contest_id": "abc000",
        "contest_date": "2024-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": orjson.dumps(STDIN_PUBLIC).decode(),
        "private_test_cases": encode_private_tests(STDIN_PRIVATE),
        "metadata": "{}",
    }
    record.update(overrides)
    return record


def compress_pickle(obj: object) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(obj))).decode()


def test_stdin_problem_with_compressed_private_tests() -> None:
    problem = problem_from_lcb(lcb_record())
    assert problem.id == "abc000_a"
    assert problem.harness is Harness.STDIN
    assert problem.tests == [
        TestCase("1 2\n", "3\n"),
        TestCase("5 6\n", "11\n"),
        TestCase("0 0\n", "0\n"),
    ]
    assert problem.func_name is None
    assert problem.metadata == {
        "platform": "atcoder",
        "difficulty": "easy",
        "contest_date": "2024-01-01T00:00:00",
        "question_title": "A + B",
        "starter_code": "",
        "contest_id": "abc000",
        "public_tests": 1,  # the first test is public, the other two private
    }


def test_encode_private_tests_round_trip() -> None:
    encoded = encode_private_tests(STDIN_PRIVATE)
    assert not encoded.lstrip().startswith("[")  # really the compressed form
    inner = pickle.loads(zlib.decompress(base64.b64decode(encoded)))
    assert orjson.loads(inner) == STDIN_PRIVATE


def test_plain_json_private_tests_and_list_values() -> None:
    plain = problem_from_lcb(lcb_record(private_test_cases=orjson.dumps(STDIN_PRIVATE).decode()))
    as_lists = problem_from_lcb(
        lcb_record(public_test_cases=STDIN_PUBLIC, private_test_cases=STDIN_PRIVATE)
    )
    assert plain.tests == as_lists.tests == problem_from_lcb(lcb_record()).tests


def test_functional_problem() -> None:
    record = lcb_record(
        public_test_cases=orjson.dumps(FUNC_TESTS).decode(),
        private_test_cases=encode_private_tests(FUNC_TESTS),
        metadata='{"func_name": "canSplit"}',
        platform="leetcode",
    )
    problem = problem_from_lcb(record)
    assert problem.harness is Harness.FUNCTIONAL
    assert problem.func_name == "canSplit"
    assert problem.tests == [TestCase("[1, 2]\n3", "true")] * 2
    # metadata may also be a dict already
    assert problem_from_lcb({**record, "metadata": {"func_name": "canSplit"}}) == problem


def test_in_place_problems_from_leetcodes_metadata() -> None:
    """LeetCode's question metadata marks "modify nums in-place" problems with ``"return":
    {"type": "void"}, "output": {"paramindex": 0}``: the argument judged after the call."""
    record = lcb_record(public_test_cases=FUNC_TESTS, private_test_cases=[])
    void = {"func_name": "canSplit", "return": {"type": "void"}, "output": {"paramindex": 1}}
    assert problem_from_lcb({**record, "metadata": void}).output_arg == 1
    ours = {"func_name": "canSplit", "output_arg": 0}  # what our LiveCodeBench export writes
    assert problem_from_lcb({**record, "metadata": ours}).output_arg == 0
    sized = {"func_name": "canSplit", "output": {"paramindex": 0, "size": "ret"}}
    assert problem_from_lcb({**record, "metadata": sized}).output_arg is None  # a judge of its own
    assert problem_from_lcb({**record, "metadata": {"func_name": "canSplit"}}).output_arg is None
    with pytest.raises(InputError) as info:
        problem_from_lcb({**record, "metadata": {"func_name": "f", "output": {"paramindex": -1}}})
    assert info.value.field == "metadata.output.paramindex"


def test_functional_without_func_name() -> None:
    record = lcb_record(public_test_cases=FUNC_TESTS, private_test_cases=[])
    with pytest.raises(InputError) as info:
        problem_from_lcb(record, path="p.jsonl", line=7)
    assert info.value.field == "metadata.func_name"
    assert str(info.value).startswith("p.jsonl:7: field 'metadata.func_name'")


def test_our_optional_fields() -> None:
    record = lcb_record(judge="float", time_limit=2, memory_limit=256)
    problem = problem_from_lcb(record)
    assert (problem.judge, problem.time_limit, problem.memory_limit) == ("float", 2.0, 256)
    with pytest.raises(InputError, match="field 'time_limit'"):
        problem_from_lcb(lcb_record(time_limit=-1))
    with pytest.raises(InputError, match="field 'memory_limit'"):
        problem_from_lcb(lcb_record(memory_limit="lots"))


def test_mixed_testtypes() -> None:
    record = lcb_record(
        private_test_cases=encode_private_tests(FUNC_TESTS), metadata='{"func_name": "f"}'
    )
    with pytest.raises(InputError) as info:
        problem_from_lcb(record)
    assert info.value.field == "private_test_cases[0].testtype"
    assert "public_test_cases[0]" in str(info.value)


def test_unknown_testtype() -> None:
    bad = [{"input": "", "output": "", "testtype": "interactive"}]
    with pytest.raises(InputError, match="unknown testtype 'interactive'"):
        problem_from_lcb(lcb_record(public_test_cases=bad))


def test_missing_question_id_is_named() -> None:
    record = lcb_record()
    del record["question_id"]
    with pytest.raises(InputError) as info:
        problem_from_lcb(record)
    assert info.value.field == "question_id"
    assert "missing required field" in str(info.value)


def test_zero_tests_is_not_an_error_here() -> None:
    problem = problem_from_lcb(
        {"question_id": "q", "public_test_cases": "[]", "private_test_cases": ""}
    )
    assert problem.tests == [] and problem.harness is Harness.STDIN


def test_undecodable_tests() -> None:
    with pytest.raises(InputError) as info:
        problem_from_lcb(lcb_record(public_test_cases="[{"))
    assert info.value.field == "public_test_cases"
    assert "not valid JSON" in str(info.value)
    with pytest.raises(InputError, match="neither JSON .* nor LiveCodeBench's compressed form"):
        problem_from_lcb(lcb_record(private_test_cases="eJzL not base64 !!"))
    truncated = encode_private_tests(STDIN_PRIVATE)[:-8]
    with pytest.raises(InputError, match="field 'private_test_cases'"):
        problem_from_lcb(lcb_record(private_test_cases=truncated))
    with pytest.raises(InputError, match=r"field 'public_test_cases\[0\].output'"):
        problem_from_lcb(lcb_record(public_test_cases=[{"input": "1", "testtype": "stdin"}]))
    with pytest.raises(InputError, match=r"public_test_cases\[0\]'.*expected an object"):
        problem_from_lcb(lcb_record(public_test_cases="[1]"))


class _Evil:
    """Pickles to a call of os.system: what a crafted dataset file could contain."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (self.command,))


def test_malicious_pickle_is_refused_and_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = compress_pickle(_Evil(f"touch {marker}"))
    with pytest.raises(InputError) as info:
        problem_from_lcb(lcb_record(private_test_cases=payload), path="evil.jsonl", line=3)
    assert not marker.exists()
    assert info.value.field == "private_test_cases"
    assert "only plain data allowed" in str(info.value)
    assert str(info.value).startswith("evil.jsonl:3: field 'private_test_cases'")


def test_malicious_pickle_via_builtins_eval(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    # Protocol-0 pickle calling builtins.exec, written by hand.
    source = f"open({str(marker)!r}, 'w').close()"
    raw = b"cbuiltins\nexec\n(V" + source.encode() + b"\ntR."
    payload = base64.b64encode(zlib.compress(raw)).decode()
    with pytest.raises(InputError, match="refusing to load builtins.exec"):
        problem_from_lcb(lcb_record(private_test_cases=payload))
    assert not marker.exists()
    # The payload is real: a plain unpickler would have run it.
    pickle.loads(raw)
    assert marker.exists()


def test_pickle_of_non_string_is_refused() -> None:
    payload = compress_pickle(STDIN_PRIVATE)  # a list, not the JSON string LCB pickles
    with pytest.raises(InputError, match="pickle holds list, expected a JSON string"):
        problem_from_lcb(lcb_record(private_test_cases=payload))


# --- samples ---------------------------------------------------------------------------------


def test_samples_from_each_kind() -> None:
    assert samples_from_record({"question_id": "q", "code_list": ["a", "b"]}) == Samples(
        "q", ["a", "b"]
    )
    assert samples_from_record({"question_id": "q", "output_list": ["```\nx\n```"]}) == Samples(
        "q", ["```\nx\n```"], raw=True
    )
    assert samples_from_record(
        {"task_id": "HumanEval/0", "completion": "    return 1\n"}
    ) == Samples("HumanEval/0", ["    return 1\n"], continues_prompt=True)
    assert samples_from_record({"task_id": "Mbpp/2", "solution": "def f(): pass"}) == Samples(
        "Mbpp/2", ["def f(): pass"]
    )
    assert samples_from_record({"id": "x", "code": "print(1)"}) == Samples("x", ["print(1)"])
    assert samples_from_record({"id": "x", "outputs": ["a", "b"]}) == Samples(
        "x", ["a", "b"], raw=True
    )
    # code_list stored as a JSON string, as some exports do
    assert samples_from_record({"question_id": "q", "code_list": '["a"]'}).codes == ["a"]


def test_samples_errors() -> None:
    with pytest.raises(InputError, match="not a known samples record"):
        samples_from_record({"foo": 1})
    with pytest.raises(
        InputError, match=r"field 'code_list\[1\]': expected a string, got a number"
    ):
        samples_from_record({"question_id": "q", "code_list": ["a", 3]}, path="s.jsonl", line=2)
    with pytest.raises(InputError, match=r"field 'code_list': expected a list of strings"):
        samples_from_record({"question_id": "q", "code_list": "print(1)"})


def test_read_samples_groups_in_order(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(
        tmp_path / "samples.jsonl",
        [
            {"task_id": "HumanEval/1", "completion": "a"},
            {"task_id": "HumanEval/0", "completion": "b"},
            {"task_id": "HumanEval/1", "completion": "c"},
        ],
    )
    samples = read_samples(path)
    assert list(samples) == ["HumanEval/1", "HumanEval/0"]
    assert samples["HumanEval/1"].codes == ["a", "c"]
    assert samples["HumanEval/1"].continues_prompt


def test_read_samples_mixed_kinds_in_one_problem(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(
        tmp_path / "samples.jsonl",
        [{"task_id": "T", "completion": "a"}, {"task_id": "T", "solution": "b"}],
    )
    with pytest.raises(InputError, match=r"samples.jsonl:2: problem 'T' mixes"):
        read_samples(path)


def test_read_samples_format_detected_from_first_record(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(
        tmp_path / "samples.jsonl",
        [{"question_id": "a", "code_list": ["x"]}, {"task_id": "b", "completion": "y"}],
    )
    with pytest.raises(InputError) as info:
        read_samples(path)
    assert (info.value.line, info.value.field) == (2, "question_id")


# --- read_problems -----------------------------------------------------------------------------


def test_read_problems_lcb_jsonl_round_trip(tmp_path: Path, write_jsonl) -> None:
    records = [lcb_record(question_id=f"q{i}") for i in range(3)]
    path = write_jsonl(tmp_path / "test.jsonl", records)
    problems = read_problems(path)
    assert [p.id for p in problems] == ["q0", "q1", "q2"]
    assert all(len(p.tests) == 3 for p in problems)


def test_read_problems_parquet(tmp_path: Path) -> None:
    # The Hugging Face dataset ships LCB problems as parquet with string columns.
    path = tmp_path / "test.parquet"
    pq.write_table(pa.Table.from_pylist([lcb_record(), lcb_record(question_id="b")]), path)
    problems = read_problems(path)
    assert [p.id for p in problems] == ["abc000_a", "b"]
    assert problems[0].tests[1] == TestCase("5 6\n", "11\n")


def test_read_problems_error_location(tmp_path: Path, write_jsonl) -> None:
    bad = lcb_record(question_id="q2", public_test_cases='[{"input": ')
    path = write_jsonl(tmp_path / "problems.jsonl", [lcb_record(question_id="q1"), bad])
    with pytest.raises(InputError) as info:
        read_problems(path)
    assert str(info.value).startswith(f"{path}:2: field 'public_test_cases': not valid JSON (")


def test_read_problems_duplicate_id(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [lcb_record(), lcb_record()])
    with pytest.raises(
        InputError, match=r"p.jsonl:2: duplicate problem id 'abc000_a' \(first at line 1\)"
    ):
        read_problems(path)


def test_read_problems_unknown_format(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"name": "x"}])
    with pytest.raises(InputError, match=r"p.jsonl:1: not a known problem record"):
        read_problems(path)


def test_read_problems_json_array_location(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(orjson.dumps([lcb_record(), {"question_id": 5, "public_test_cases": "[]"}]))
    with pytest.raises(
        InputError, match=r"p.json: record 2: field 'question_id': expected a string"
    ):
        read_problems(path)


# --- results -----------------------------------------------------------------------------------


def test_write_lcb_results(tmp_path: Path) -> None:
    path = tmp_path / "eval_all.json"
    write_lcb_results(
        path,
        [
            {
                "question_id": "q1",
                "graded_list": [True, False, True, True],
                "details": [{"verdict": "AC"}, {"verdict": "WA"}, {}, {}],
                "code_list": ["a", "b", "c", "d"],
            },
            {"question_id": "q2", "graded_list": [], "pass@1": 0},
        ],
    )
    rows = orjson.loads(path.read_bytes())
    assert rows == [
        {
            "question_id": "q1",
            "graded_list": [True, False, True, True],
            "pass@1": 0.75,
            "details": [{"verdict": "AC"}, {"verdict": "WA"}, {}, {}],
            "code_list": ["a", "b", "c", "d"],
        },
        {"question_id": "q2", "graded_list": [], "pass@1": 0.0, "details": []},
    ]
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_write_lcb_results_rejects_bad_items(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="graded_list"):
        write_lcb_results(tmp_path / "r.json", [{"question_id": "q"}])
    with pytest.raises(ValueError, match="only bools"):
        write_lcb_results(tmp_path / "r.json", [{"question_id": "q", "graded_list": [1]}])


def test_a_samples_language_field_is_read_and_kept_consistent() -> None:
    from evaluator.formats import InputError, samples_from_records

    got = samples_from_records(
        [
            {"question_id": "a", "code_list": ["int main() {}"], "language": "cpp"},
            {"question_id": "a", "code_list": ["int main() { return 0; }"], "language": "cpp"},
            {"question_id": "b", "code_list": ["print(1)"]},
        ]
    )
    assert (got["a"].language, len(got["a"].codes), got["b"].language) == ("cpp", 2, None)
    with pytest.raises(InputError, match="record 2: field 'language': problem 'a' mixes"):
        samples_from_records(
            [
                {"question_id": "a", "code_list": ["x"], "language": "cpp"},
                {"question_id": "a", "code_list": ["y"], "language": "python"},
            ]
        )


def test_a_samples_language_is_named_canonically_and_an_unknown_one_is_located() -> None:
    from evaluator.formats import InputError, samples_from_records

    got = samples_from_records([{"question_id": "a", "code_list": ["x"], "language": "C++"}])
    assert got["a"].language == "cpp"  # a fence tag, any case, names the language
    with pytest.raises(InputError, match=r"record 1: field 'language': unknown language 'cobol'"):
        samples_from_records([{"question_id": "a", "code_list": ["x"], "language": "cobol"}])
