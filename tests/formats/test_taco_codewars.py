"""TACO's (and APPS's) call-based rows from Codewars compare values with ``==``, where ``True ==
1``: the katas' own tests (``codewars/python-test-framework@c33350368d66875fd93d69ffc532d079be8dd217``,
``codewars_test/test_framework.py``: ``assert_equals`` is ``expect(actual == expected)``) and
TACO's grader (``FlagOpen/TACO@2ba62351f3d511b08e52e3204198d5fafa006230``,
``metrics/testing_util.py``, ``execute_cb_code``: ``exec_outputs == outputs``, or ``==
outputs[0]``). Rows from other sources keep ``True`` apart from ``1`` (LeetCode's judge does).

The rows are written here in TACO's shape (the ``BAAI/TACO`` card: every column a string,
``input_output`` JSON text with ``fn_name`` and each output wrapped in a list; ``source`` is
the platform in lower case, ``url`` the problem's page), as ``tests/data/sources/taco``'s are;
the kata (is ``n`` even) and its programs are ours."""

from __future__ import annotations

import json

import pytest

from evaluator.formats.registry import problem_from_record
from evaluator.formats.sources.taco import from_codewars
from evaluator.problem import Harness, Verdict
from evaluator.runner import GradeOptions, Grader

IO = {"fn_name": "is_even", "inputs": [[2], [3], [0]], "outputs": [[True], [False], [True]]}
KATA = {
    "question": "Write a function is_even(n) that says whether n is even.",
    "solutions": json.dumps(["def is_even(n):\n    return n % 2 == 0\n"]),
    "starter_code": "def is_even(n):\n\t",
    "input_output": json.dumps(IO),
    "difficulty": "EASY",
    "raw_tags": "['Fundamentals']",
    "name": None,
    "source": "codewars",
    "tags": "['Fundamentals']",
    "skill_types": "[]",
    "url": "https://www.codewars.com/kata/0000000000000000000000ee",
    "Expected Auxiliary Space": None,
    "time_limit": None,
    "date": None,
    "picture_num": None,
    "memory_limit": None,
    "Expected Time Complexity": None,
}
RIGHT = "def is_even(n):\n    return n % 2 == 0\n"
AS_INT = "def is_even(n):\n    return 1 - n % 2\n"  # 1 for True, 0 for False: == passes it
WRONG = "def is_even(n):\n    return n % 2\n"  # 0 for True: wrong under any rule


@pytest.fixture(scope="module")
def grader(pool):
    return Grader(GradeOptions(time_limit=5), pool=pool)


def test_a_codewars_row_compares_booleans_as_integers(grader):
    problem = problem_from_record(KATA)
    assert problem.harness is Harness.FUNCTIONAL
    assert problem.judge == {"unwrap": True, "bool_as_int": True}
    assert grader.grade(problem, RIGHT).verdict is Verdict.AC
    assert grader.grade(problem, AS_INT).verdict is Verdict.AC
    assert grader.grade(problem, WRONG).verdict is Verdict.WA


@pytest.mark.parametrize("source", ["leetcode", "geeksforgeeks", None])
def test_rows_from_other_sources_keep_true_apart_from_one(grader, source):
    row = dict(KATA, source=source, url="https://leetcode.com/problems/is-even/")
    problem = problem_from_record(row)
    assert problem.judge == {"unwrap": True}
    assert grader.grade(problem, RIGHT).verdict is Verdict.AC
    result = grader.grade(problem, AS_INT)
    assert result.verdict is Verdict.WA
    assert "got 1 (int)" in result.message


def test_the_kata_is_told_by_source_or_url():
    assert from_codewars({"source": "Codewars"})
    assert from_codewars({"url": "https://www.codewars.com/kata/5a"})  # APPS: a url, no source
    assert from_codewars({"url": "http://codewars.com/kata/5a"})
    assert not from_codewars({"source": "codeforces", "url": "https://codeforces.com/x"})
    assert not from_codewars({"url": "https://example.com/?q=codewars.com"})
    assert not from_codewars({"url": "https://notcodewars.com/kata/5a"})
    assert not from_codewars({"url": None, "source": None})


def test_an_apps_kata_and_a_rows_own_judge():
    apps = {
        "problem_id": 4100,
        "question": KATA["question"],
        "solutions": KATA["solutions"],
        "input_output": json.dumps({**IO, "outputs": [True, False, True]}),  # not wrapped
        "difficulty": "introductory",
        "url": "https://www.codewars.com/kata/0000000000000000000000ee",
        "starter_code": KATA["starter_code"],
    }
    assert problem_from_record(apps).judge == {"bool_as_int": True}
    # a row's own judge wins over the source's rule
    assert problem_from_record(dict(KATA, judge={"unwrap": True})).judge == {"unwrap": True}
    # a stdin kata keeps the stdin rule
    stdin = dict(KATA, input_output=json.dumps({"inputs": ["2\n"], "outputs": ["True\n"]}))
    assert problem_from_record(stdin).judge == {"type": "float"}
