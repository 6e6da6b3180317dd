"""The judge a problem's statement states (evaluator.formats.statement): the phrasings read,
the decision recorded, and real grading of right answers that differ from the expected
output only in what the statement allows (AC) and wrong ones (WA), on rows of several
sources. Where each phrasing comes from is cited beside it."""

from __future__ import annotations

import json

import orjson
import pytest

from evaluator.formats import problem_from_record
from evaluator.formats.sources.livecodebench import encode_private_tests
from evaluator.formats.statement import judge_from_statement, read_statement
from evaluator.problem import Harness
from evaluator.reward import CodeReward, problem_from_columns
from evaluator.runner import GradeOptions, Grader

# -- the phrasings --------------------------------------------------------------------------

# Codeforces' checker note (e.g. problem 1C "Ancient Berland Circus"), as DeepCoder's and
# TACO's rows carry it: LaTeX with the superscript as 10^{-6}
CODEFORCES_ERROR = (
    "Your answer is considered correct if its absolute or relative error does not exceed $10^{-6}$."
)
# AtCoder's wording (LiveCodeBench's AtCoder rows)
ATCODER_ERROR = (
    "Your output is considered correct if the absolute or relative error from the true "
    "value is at most 10^{-4}."
)
# LeetCode's (e.g. "Champagne Tower", "Find Median from Data Stream")
LEETCODE_ERROR = "Answers within 10^-5 of the actual answer will be accepted."
# TACO's scraped Codeforces statements, where the superscript was lost
SCRAPED_ERROR = (
    "The answer will be considered correct if the relative or absolute error is at most 10 - 4."
)
CODECHEF_ERROR = "Your answer will be accepted if its absolute error does not exceed 1e-2."
# Codeforces' yes/no note (DeepCoder's codeforces subset; TACO)
CODEFORCES_CASE = (
    'You can output the answer in any case (upper or lower). For example, the strings "yEs", '
    '"yes", "Yes", and "YES" will be recognized as positive responses.'
)
WORD_CASE = "Print the name of the winner. You may print each letter in any case."
# Codeforces' constructive problems
CODEFORCES_MANY = "If there are multiple answers, print any of them."
CODEFORCES_SEVERAL = "If there are several possible answers, you may output any."
LEETCODE_ORDER = "You may return the answer in any order."
PRINT_ORDER = "Print the divisors of n in any order."


@pytest.mark.parametrize(
    "text,tolerance",
    [
        (CODEFORCES_ERROR, (1e-6, 1e-6)),
        (ATCODER_ERROR, (1e-4, 1e-4)),
        (LEETCODE_ERROR, (1e-5, 0.0)),  # "of the actual answer": an absolute error
        (SCRAPED_ERROR, (1e-4, 1e-4)),
        (CODECHEF_ERROR, (1e-2, 0.0)),
        ("It will be accepted if it differs from the correct one by at most 0.0001.", (1e-4, 1e-4)),
        ("Print the answer modulo 10^9+7.", None),  # a residue: integers stay exact
        ("There is no error in the input. 1 <= n <= 10^5.", None),
    ],
)
def test_tolerances_are_read_in_their_phrasings(text, tolerance):
    rules = read_statement(text)
    assert rules.tolerance == pytest.approx(tolerance) if tolerance else rules.tolerance is None


@pytest.mark.parametrize(
    "text,case,yes_no,order,many",
    [
        (CODEFORCES_CASE, True, True, False, False),
        (WORD_CASE, True, False, False, False),
        (CODEFORCES_MANY, False, False, False, True),
        (CODEFORCES_SEVERAL, False, False, False, True),
        ("Output any valid permutation.", False, False, False, True),
        # one answer picked: not many
        (
            "If there are multiple answers, print the lexicographically smallest one.",
            False,
            False,
            False,
            False,
        ),
        (LEETCODE_ORDER, False, False, True, False),
        (PRINT_ORDER, False, False, True, False),
        # said of the input, not of the answer
        ("The edges are given in any order.", False, False, False, False),
        ("Print the sum of the numbers.", False, False, False, False),
    ],
)
def test_case_order_and_many_answers_are_read(text, case, yes_no, order, many):
    rules = read_statement(text)
    assert bool(rules.any_case_phrase) is case
    assert rules.yes_no is yes_no
    assert bool(rules.any_order_phrase) is order
    assert bool(rules.many_answers_phrase) is many


# Real statements of LiveCodeBench's code_generation_lite (the problems of the eval_all files
# under ../shared/data/lcb_submissions, by their question_id) that name letter case,
# differences or many answers without changing what the judge accepts, and ones that do.
LCB_REAL = [
    # (question_id, sentence, what it states)
    (
        "2887",
        "Return the resulting string. The vowels are 'a', 'e', 'i', 'o', and 'u', and "
        "they can appear in lowercase or uppercase.",
        {},
    ),
    (
        "3312",
        "1 <= s.length <= 100 s consists of only upper case and lower case English letters.",
        {},
    ),
    (
        "3408",
        "A letter is called special if it appears both in lowercase and uppercase in "
        "word. Return the number of special letters in word.",
        {},
    ),
    (
        "abc357_b",
        "You are given a string S consisting of lowercase and uppercase English letters.",
        {},
    ),
    (
        "abc336_a",
        "Print the Dragon String of level N. Note that uppercase and lowercase "
        "letters are distinguished.",
        {},
    ),
    (
        "3436",
        "Return the minimum possible absolute difference. Example: the absolute "
        "difference |10 - 1| = 9.",
        {},
    ),
    (
        "abc314_e",
        "Your output will be considered correct when the relative or absolute error "
        "from the true value is at most 10 ^ {-5}.",
        {"tolerance": (1e-5, 1e-5)},
    ),
    ("1883_B", "You can output the answer in any case (uppercase or lowercase).", {"case": True}),
    ("abc311_c", "If multiple solutions exist, any of them will be accepted.", {"many": True}),
    ("3234", "Return an array consisting of good indices in any order.", {"order": True}),
]


@pytest.mark.parametrize("qid,text,states", LCB_REAL, ids=[row[0] for row in LCB_REAL])
def test_real_statements_are_read_for_what_they_say_of_the_answer(qid, text, states):
    rules = read_statement(text)
    assert rules.tolerance == states.get("tolerance")
    assert bool(rules.any_case_phrase) is states.get("case", False)
    assert bool(rules.many_answers_phrase) is states.get("many", False)
    assert bool(rules.any_order_phrase) is states.get("order", False)


def test_the_rows_judge_wins_and_silence_keeps_the_sources_rule():
    source = {"type": "float"}
    assert (
        judge_from_statement(
            CODEFORCES_ERROR, stdin=True, source_judge="exact", explicit=True
        ).judge
        == "exact"
    )
    kept = judge_from_statement("Print the sum.", stdin=True, source_judge=source, explicit=False)
    assert kept.judge == source and kept.reason == ""
    # a checker or a test program's exit is not refined by words
    checker = {"type": "python", "code": "def check(i, o, e): return True"}
    assert (
        judge_from_statement(
            CODEFORCES_ERROR, stdin=True, source_judge=checker, explicit=False
        ).judge
        == checker
    )


def test_a_decision_names_the_phrase_that_made_it():
    decision = judge_from_statement(
        f"Compute the area. {ATCODER_ERROR} {CODEFORCES_CASE}",
        stdin=True,
        source_judge=None,
        explicit=False,
    )
    assert decision.judge == {"type": "float", "abs_tol": 1e-4, "rel_tol": 1e-4, "yesno": True}
    assert "reals within 0.0001 absolute or relative" in decision.reason
    assert "absolute or relative error from the true value is at most 10^{-4}" in decision.reason
    assert "yes/no in any case" in decision.reason


def test_a_multi_line_answer_in_any_order_needs_a_checker():
    decision = judge_from_statement(
        "Print each pair on its own line, in any order.",
        stdin=True,
        source_judge=None,
        explicit=False,
        outputs=["1 2\n3 4\n"],
    )
    assert decision.needs_checker and decision.judge is None
    assert "needs a checker" in decision.reason


# -- real rows, really graded ---------------------------------------------------------------


def taco_row(statement: str, inputs: list[str], outputs: list[str], **extra) -> dict:
    """A TACO row as it ships: ``question`` and ``input_output`` JSON text."""
    io = json.dumps({"inputs": inputs, "outputs": outputs})
    return {"question": statement, "input_output": io, "source": "codeforces", **extra}


def lcb_row(statement: str, tests: list[dict], **extra) -> dict:
    """A LiveCodeBench row as it ships (question_content, public and compressed private
    tests)."""
    return {
        "question_title": "t",
        "question_content": statement,
        "platform": "leetcode" if tests[0]["testtype"] == "functional" else "atcoder",
        "question_id": "q1",
        "contest_id": "c",
        "contest_date": "2024-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": orjson.dumps(tests).decode(),
        "private_test_cases": encode_private_tests(tests),
        "metadata": "{}",
        **extra,
    }


DIVIDE = "Print a / b.\n\n" + CODEFORCES_ERROR.replace("10^{-6}", "10^{-4}")
YES_NO = "Print YES if n is even, else NO.\n\n" + CODEFORCES_CASE
WINNER = "Alice wins if n is odd, else Bob. " + WORD_CASE
CONSTRUCT = "Print two positive integers whose sum is n. " + CODEFORCES_MANY
DIVISORS = "Given n. " + PRINT_ORDER

CASES = [
    # (row, right answers that differ only as the statement allows, wrong answers)
    (
        taco_row(DIVIDE, ["1 3\n", "2 3\n"], ["0.333333\n", "0.666667\n"]),
        ["a, b = map(int, input().split())\nprint(f'{a / b:.4f}')"],
        ["a, b = map(int, input().split())\nprint(f'{a / b + 0.001:.4f}')"],
    ),
    (
        lcb_row(YES_NO, [{"input": "4\n", "output": "YES\n", "testtype": "stdin"}]),
        ["print('Yes' if int(input()) % 2 == 0 else 'No')"],
        ["print('No' if int(input()) % 2 == 0 else 'Yes')"],
    ),
    (
        taco_row(WINNER, ["3\n", "4\n"], ["Alice\n", "Bob\n"]),
        ["print('ALICE' if int(input()) % 2 else 'bob')"],
        ["print('BOB' if int(input()) % 2 else 'alice')"],
    ),
    (
        taco_row(DIVISORS, ["6\n"], ["1 2 3 6\n"]),
        ["n = int(input())\nprint(*[d for d in range(n, 0, -1) if n % d == 0])"],
        ["n = int(input())\nprint(*[d for d in range(1, n) if n % d == 0])"],
    ),
    (
        # the line layout: a contest judge compares tokens, line breaks aside
        lcb_row("Print a and b.", [{"input": "1 2\n", "output": "1 2\n", "testtype": "stdin"}]),
        ["print(*input().split(), sep='\\n')"],
        ["print(input().split()[0])"],
    ),
    (
        lcb_row(
            "Return the indices of the even numbers. " + LEETCODE_ORDER,
            [{"input": "[2, 3, 4]", "output": "[0, 2]", "testtype": "functional"}],
            metadata='{"func_name": "evens"}',
        ),
        [
            "class Solution:\n    def evens(self, xs):\n        return [i for i in range(len(xs) - 1, -1, -1) if xs[i] % 2 == 0]"
        ],
        ["class Solution:\n    def evens(self, xs):\n        return [0, 1]"],
    ),
    (
        lcb_row(
            "Return the mean. " + LEETCODE_ERROR,
            [{"input": "[1, 2]", "output": "1.5", "testtype": "functional"}],
            metadata='{"func_name": "mean"}',
        ),
        ["class Solution:\n    def mean(self, xs):\n        return sum(xs) / len(xs) + 5e-6"],
        ["class Solution:\n    def mean(self, xs):\n        return sum(xs) / len(xs) + 5e-5"],
    ),
]


@pytest.fixture(scope="module")
def graded(pool):
    grader = Grader(GradeOptions(time_limit=4), pool=pool)
    items = []
    for index, (row, right, wrong) in enumerate(CASES):
        problem = problem_from_record(row)
        problem.id = f"case{index}"
        items += [(problem, code, True) for code in right] + [
            (problem, code, False) for code in wrong
        ]
    results = grader.grade_many([(problem, code) for problem, code, _ in items])
    return list(zip(items, results, strict=True))


def test_right_answers_pass_and_wrong_ones_fail_by_the_statements_rule(graded):
    for (problem, code, right), result in graded:
        assert result.passed is right, (problem.id, problem.judge, code, result.message)
        assert not result.unchecked


def test_the_source_rule_alone_would_have_refused_the_right_answers(pool):
    """The same rows with the statement's words taken out: each right answer above that
    differs from the expected output is WA under the source's fixed rule."""
    grader = Grader(GradeOptions(time_limit=4), pool=pool)
    refused = 0
    for row, right, _ in CASES[:4]:
        key = "question" if "question" in row else "question_content"
        plain = problem_from_record({**row, key: "Solve it."})
        assert plain.judge_reason == ""
        refused += sum(not grader.grade(plain, code).passed for code in right)
    assert refused == 4


def test_the_decision_is_on_the_problem_and_in_the_results(graded):
    problem = graded[0][0][0]
    assert problem.judge == {"type": "float", "abs_tol": 1e-4, "rel_tol": 1e-4}
    assert problem.judge_reason.startswith("reals within 0.0001 absolute or relative")


def test_many_answers_without_a_checker_leave_a_trace(pool):
    problem = problem_from_record(taco_row(CONSTRUCT, ["5\n"], ["1 4\n"]))
    assert problem.needs_checker and "many answers" in problem.judge_reason
    other_right = Grader(GradeOptions(), pool=pool).grade(
        problem, "n = int(input())\nprint(2, n - 2)"
    )
    assert not other_right.passed and other_right.unchecked
    assert "no checker" in other_right.message
    assert other_right.to_dict()["unchecked"] is True


def test_the_reward_reads_the_statement_counts_unchecked_wrongs_and_keys_its_cache(pool):
    metrics = {}
    reward = CodeReward(pool=pool, log_metric=lambda name, value: metrics.__setitem__(name, value))
    constructive = taco_row(CONSTRUCT, ["5\n"], ["1 4\n"])
    rewards = reward(
        completions=["```python\nn = int(input())\nprint(2, n - 2)\n```"] * 2,
        question=[constructive["question"], "Print 1 and n - 1."],
        input_output=[constructive["input_output"]] * 2,
    )
    assert rewards == [0.0, 0.0]
    assert metrics["reward/unchecked_wrong"] == 1.0
    assert "no checker" in reward.last_reasons[0] and "no checker" not in reward.last_reasons[1]
    # one tests field, two statements: two problems, each judged by its own
    fields = {"input_output": constructive["input_output"]}
    tolerant = problem_from_columns({**fields, "question": DIVIDE})
    plain = problem_from_columns({**fields, "question": "Print it."})
    assert tolerant.judge["abs_tol"] == 1e-4 and plain.judge == {"type": "float"}


def test_stdin_problems_without_a_judge_compare_tokens(pool):
    problem = problem_from_record(
        lcb_row("Print a and b.", [{"input": "1 2\n", "output": "1\n2\n", "testtype": "stdin"}])
    )
    assert problem.harness is Harness.STDIN and problem.judge is None
    assert GradeOptions().judge == "tokens"
    assert Grader(GradeOptions(), pool=pool).grade(problem, "print('1 2')").passed
