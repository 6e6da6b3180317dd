"""Nothing in a problem file or a completion breaks the readers: any record of the known
shapes converts to a Problem or raises InputError (one line, naming the field), including
compressed tests whose pickle is not plain data; extracting code from any answer is linear
and never raises."""

from __future__ import annotations

import base64
import collections
import pickle
import re
import time
import zlib

import pytest
from fuzz_inputs import ANY_TEXT, JSON_VALUES
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.formats import (
    InputError,
    problem_from_humaneval,
    problem_from_lcb,
    problem_from_ours,
)
from evaluator.formats.extract import extract_code, strip_reasoning

_TEST = st.fixed_dictionaries(
    {},
    optional={
        "input": st.one_of(ANY_TEXT, JSON_VALUES),
        "output": st.one_of(ANY_TEXT, JSON_VALUES),
        "testtype": st.one_of(st.sampled_from(["stdin", "functional", "x"]), JSON_VALUES),
    },
)
_TESTS = st.one_of(st.lists(_TEST, max_size=3), JSON_VALUES, ANY_TEXT)
_TEXT_OR_ANY = st.one_of(ANY_TEXT, JSON_VALUES)

LCB_RECORDS = st.fixed_dictionaries(
    {"question_id": _TEXT_OR_ANY},
    optional={
        "public_test_cases": st.one_of(_TESTS, _TESTS.map(repr)),
        "private_test_cases": _TESTS,
        "metadata": st.one_of(JSON_VALUES, st.sampled_from(['{"func_name": "f"}', "{", "[]"])),
        "judge": _TEXT_OR_ANY,
        "time_limit": JSON_VALUES,
        "memory_limit": JSON_VALUES,
        "platform": _TEXT_OR_ANY,
        "difficulty": _TEXT_OR_ANY,
        "contest_date": _TEXT_OR_ANY,
    },
)
OURS_RECORDS = st.fixed_dictionaries(
    {"id": _TEXT_OR_ANY, "harness": st.one_of(st.sampled_from(["stdin", "functional"]), ANY_TEXT)},
    optional={
        "tests": _TESTS,
        "func_name": _TEXT_OR_ANY,
        "judge": _TEXT_OR_ANY,
        "time_limit": JSON_VALUES,
        "memory_limit": JSON_VALUES,
        "prompt": _TEXT_OR_ANY,
        "test_code": _TEXT_OR_ANY,
        "entry_point": _TEXT_OR_ANY,
        "metadata": JSON_VALUES,
        "typo": JSON_VALUES,
    },
)
HUMANEVAL_RECORDS = st.fixed_dictionaries(
    {"task_id": _TEXT_OR_ANY},
    optional={
        "prompt": _TEXT_OR_ANY,
        "entry_point": _TEXT_OR_ANY,
        "test": st.one_of(_TEXT_OR_ANY, st.just("def check(candidate):\n    pass\n")),
        "canonical_solution": _TEXT_OR_ANY,
        "base_input": JSON_VALUES,
        "plus_input": JSON_VALUES,
        "atol": JSON_VALUES,
    },
)


@pytest.mark.parametrize(
    ("records", "convert"),
    [
        (LCB_RECORDS, problem_from_lcb),
        (OURS_RECORDS, problem_from_ours),
        (HUMANEVAL_RECORDS, problem_from_humaneval),
    ],
    ids=["livecodebench", "ours", "humaneval"],
)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_record_converts_or_raises_input_error(records, convert, data):
    record = data.draw(records)
    try:
        convert(record, path="p.jsonl", line=7)
    except InputError as exc:
        text = str(exc)
        assert text.startswith("p.jsonl:7: ") and "\n" not in text.strip()


class Boom:
    def __reduce__(self):
        return (print, ("ran",))


@pytest.mark.parametrize(
    "payload",
    [Boom(), collections.OrderedDict(a=1), ["not", "a", "string"], b"bytes"],
    ids=["reduce-call", "class", "list", "bytes"],
)
def test_a_pickle_that_is_not_plain_data_names_the_field(payload):
    blob = base64.b64encode(zlib.compress(pickle.dumps(payload))).decode()
    record = {"question_id": "q", "public_test_cases": "[]", "private_test_cases": blob}
    with pytest.raises(InputError) as caught:
        problem_from_lcb(record, path="lcb.jsonl", line=3)
    assert str(caught.value).startswith("lcb.jsonl:3: field 'private_test_cases': ")


_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def _reference_strip(text: str) -> str:
    """The regex definition the linear strip_reasoning replaces."""
    text = _THINK.sub("", text)
    closes = list(re.finditer("</think>", text, re.IGNORECASE))
    if closes:
        text = text[closes[-1].end() :]
    opening = re.search("<think>", text, re.IGNORECASE)
    return text[: opening.start()] if opening else text


_PIECES = st.sampled_from(
    ["<think>", "</think>", "<THINK>", "</Think>", "<", "/", "think>", "a", "\n", "```", "```py\n"]
)


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(st.one_of(_PIECES, ANY_TEXT), max_size=12))
def test_strip_reasoning_matches_its_regex_definition(pieces):
    text = "".join(pieces)
    assert strip_reasoning(text) == _reference_strip(text)
    code = extract_code(text)
    assert code is None or type(code) is str


def test_many_unclosed_think_tags_are_linear():
    started = time.perf_counter()
    assert extract_code("<think>" * 200_000 + "```python\nprint(1)\n```") is None
    assert extract_code("</think>" * 200_000 + "```python\nprint(1)\n```") == "print(1)"
    assert time.perf_counter() - started < 5  # the regex took 7 s for 16,000 tags


@settings(max_examples=300, deadline=None)
@given(text=ANY_TEXT, stdin=st.booleans())
def test_any_statement_decides_a_judge_without_raising(text, stdin):
    from evaluator.formats.statement import judge_from_statement

    decision = judge_from_statement(
        text, stdin=stdin, source_judge={"type": "float"}, explicit=False, outputs=[text]
    )
    assert isinstance(decision.reason, str) and isinstance(decision.needs_checker, bool)
    assert decision.reason or decision.judge == {"type": "float"}


def test_a_long_crafted_statement_is_read_only_so_far():
    """What bounds a crafted statement's cost: only its first 65,536 characters are read."""
    from evaluator.formats.statement import read_statement

    phrase = " If there are multiple answers, print any of them."
    assert read_statement("error " * 10_000 + phrase).many_answers_phrase
    assert not read_statement("error " * 11_000 + phrase).many_answers_phrase
