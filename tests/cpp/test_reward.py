"""C++ completions through the RL rewards: ``CodeReward`` (its ``language`` option and column,
an answer's fence) and verl's ``compute_score`` (a C++ solution, its language stated or
fenced)."""

from __future__ import annotations

import json

import pytest

from evaluator import CodeReward, verl_compute_score, verl_compute_score_batch
from evaluator.reward import shared_reward

SUM_CPP = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'
WRONG_CPP = '#include <cstdio>\nint main(){puts("3");}\n'
BROKEN_CPP = "int main() { return nope; }\n"
SUM_PY = "print(sum(map(int, input().split())))"
TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "5 5\n", "output": "10\n"}]


def fenced(code: str, tag: str = "") -> str:
    return f"Here is my solution.\n```{tag}\n{code}```\n"


@pytest.fixture(scope="module")
def reward(pool):
    with CodeReward(pool=pool) as shared:
        yield shared


def test_a_cpp_fence_names_the_language(reward):
    completions = [
        fenced(SUM_CPP, "cpp"),
        fenced(WRONG_CPP, "c++"),
        fenced(BROKEN_CPP, "cpp"),
        fenced(SUM_PY + "\n", "python"),
    ]
    rewards = reward(prompts=[""] * 4, completions=completions, tests=[TESTS] * 4)
    assert rewards == [1.0, 0.0, 0.0, 1.0]
    assert reward.last_verdicts == ["AC", "WA", "CE", "AC"]
    assert [reward.judged_wrong(i) for i in range(4)] == [False, True, True, False]


def test_the_language_column_wins_over_the_option_which_wins_over_the_fence(pool):
    bare = fenced(SUM_CPP)  # a bare fence: Python unless something names the language
    with CodeReward(pool=pool, language="cpp") as as_cpp:
        assert as_cpp([""], [bare], tests=[TESTS]) == [1.0]
        assert as_cpp([""], [fenced(SUM_PY + "\n", "python")], tests=[TESTS]) == [0.0]
        assert as_cpp.last_verdicts == ["CE"]  # the option names the language: C++
        column = as_cpp(
            [""] * 2, [fenced(SUM_PY + "\n")] * 2, tests=[TESTS] * 2, language=["python", None]
        )
        assert column == [1.0, 0.0]
    with CodeReward(pool=pool) as plain:
        assert plain([""], [bare], tests=[TESTS]) == [0.0]
        assert plain.last_verdicts == ["RE"]  # C++ run as Python: its syntax error
        assert plain([""], [bare], tests=[TESTS], language="cpp") == [1.0]  # one for all


def test_a_row_naming_an_unknown_language_is_unsupported_and_the_option_is_checked(reward):
    # nothing runs and nothing is judged: no reward, a verdict naming the language
    got = reward([""] * 2, [fenced(SUM_CPP)] * 2, tests=[TESTS] * 2, language=["cobol", "cpp"])
    assert got == [None, 1.0]
    assert reward.last_verdicts == ["UNSUPPORTED", "AC"]
    assert reward.last_reasons[0].startswith("cobol programs are not graded here")
    assert not reward.judged_wrong(0)
    with pytest.raises(ValueError, match="unknown language 'cobol'"):
        CodeReward(language="cobol")


def test_verl_compute_score_grades_cpp_ground_truth():
    stdin_truth = json.dumps({"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"]})
    assert verl_compute_score("codeforces", fenced(SUM_CPP, "cpp"), stdin_truth) == 1.0
    assert verl_compute_score("codeforces", fenced(WRONG_CPP, "cpp"), stdin_truth) == 0.0
    assert shared_reward().last_verdicts == ["WA"]
    # no fence tag: the sample's extra_info, else the ground truth, names the language
    unfenced = fenced(SUM_CPP)
    assert verl_compute_score("cf", unfenced, stdin_truth) == 0.0
    assert verl_compute_score("cf", unfenced, stdin_truth, {"language": "cpp"}) == 1.0
    stated = json.dumps({"inputs": ["1 2\n"], "outputs": ["3\n"], "language": "cpp"})
    assert verl_compute_score("cf", unfenced, stated) == 1.0
    batch = verl_compute_score_batch(
        ["cf"] * 3,
        [unfenced, fenced(SUM_CPP, "cpp"), unfenced],
        [stdin_truth] * 3,
        [{"language": "cpp"}, None, {"language": "python"}],
    )
    assert batch == [1.0, 1.0, 0.0]


def test_call_based_rows_take_cpp_and_java_answers():
    """A LeetCode-style row (tests with ``testtype: functional``, ``func_name``) answered in
    C++, Java and Python: the same rewards (evaluator.harness.native_call). Its own reward:
    its pool starts with the installed runtimes (the JVM), the shared test pool without."""
    tests = [
        {"input": "[1,2,3]", "output": "6", "testtype": "functional"},
        {"input": "[]", "output": "0", "testtype": "functional"},
    ]
    cpp = "class Solution {\npublic:\n  int total(vector<int>& a) { return accumulate(a.begin(), a.end(), 0); }\n};\n"
    java = "class Solution {\n  public int total(int[] a) { return Arrays.stream(a).sum(); }\n}\n"
    python = "class Solution:\n    def total(self, a):\n        return sum(a) + 1\n"
    completions = [fenced(cpp, "cpp"), fenced(java, "java"), fenced(python, "python")]
    with CodeReward() as reward:
        rewards = reward(
            prompts=[""] * 3, completions=completions, tests=[tests] * 3, func_name=["total"] * 3
        )
        assert rewards == [1.0, 1.0, 0.0]
        assert reward.last_verdicts == ["AC", "AC", "WA"]
