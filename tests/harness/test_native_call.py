"""Call-based tests for C++ and Java (:mod:`evaluator.harness.native_call`): LeetCode-style
methods graded on LiveCodeBench's functional tests, their driver joined to the code.

Each case runs the joined program plainly (``tests/languages/runtime_plain.py``: the judge's
build and command line, unconfined) and graded in the sandbox: the same verdict, and for a
run that ended by itself the same answer (the plain run's printed value is the expected
one). Then the grading rules: right and wrong answers, in-place problems, the program's own
prints, exceptions and limits."""

from __future__ import annotations

import pytest

from evaluator.harness import native_call
from evaluator.languages import get_language
from evaluator.problem import Harness, Problem, TestCase
from tests.languages.runtime_plain import LIMITS, run_plain

CPP_TWO_SUM = """
class Solution {
public:
    vector<int> twoSum(vector<int>& nums, int target) {
        unordered_map<int, int> seen;
        for (int i = 0; i < (int)nums.size(); ++i) {
            if (seen.count(target - nums[i])) return {seen[target - nums[i]], i};
            seen[nums[i]] = i;
        }
        return {};
    }
};
"""
JAVA_TWO_SUM = """
class Solution {
    public int[] twoSum(int[] nums, int target) {
        Map<Integer, Integer> seen = new HashMap<>();
        for (int i = 0; i < nums.length; i++) {
            if (seen.containsKey(target - nums[i])) return new int[] {seen.get(target - nums[i]), i};
            seen.put(nums[i], i);
        }
        return new int[0];
    }
}
"""
TWO_SUM_TESTS = [("[2,7,11,15]\n9", "[0,1]"), ("[3,2,4]\n6", "[1,2]"), ("[3,3]\n6", "[0,1]")]

# (name, language, func_name, output_arg, code, test input): every parameter and return type
# the drivers read and write, each exit path
CASES = [
    ("cpp_two_sum", "cpp", "twoSum", None, CPP_TWO_SUM, "[2,7,11,15]\n9"),
    ("java_two_sum", "java", "twoSum", None, JAVA_TWO_SUM, "[2,7,11,15]\n9"),
    (
        "cpp_scalars_const_method",
        "cpp",
        "mix",
        None,
        """class Solution { public:
  string mix(long long big, double x, bool flag, char c, string s) const {
    return to_string(big + 1) + "|" + to_string(x * 2) + "|" + (flag ? "T" : "F") + c + s;
  } };""",
        '123456789012\n1.25\ntrue\n"q"\n"h\\u00e9\\n\\"x\\""',
    ),
    (
        "java_scalars",
        "java",
        "mix",
        None,
        """class Solution {
  public String mix(long big, double x, boolean flag, char c, String s) {
    return (big + 1) + "|" + (x * 2) + "|" + (flag ? "T" : "F") + c + s;
  } }""",
        '123456789012\n1.25\ntrue\n"q"\n"h\\u00e9\\n\\"x\\""',
    ),
    (
        "cpp_nested_vectors",
        "cpp",
        "grid",
        None,
        """class Solution { public:
  vector<vector<string>> grid(vector<vector<int>> g, vector<string> names) {
    vector<vector<string>> out;
    for (auto& row : g) { vector<string> r; for (int v : row) r.push_back(names[v]); out.push_back(r); }
    return out;
  } };""",
        '[[0,1],[],[1]]\n["a","b"]',
    ),
    (
        "java_lists",
        "java",
        "grid",
        None,
        """class Solution {
  public List<List<String>> grid(List<List<Integer>> g, String[] names) {
    List<List<String>> out = new ArrayList<>();
    for (List<Integer> row : g) { List<String> r = new ArrayList<>(); for (int v : row) r.add(names[v]); out.add(r); }
    return out;
  } }""",
        '[[0,1],[],[1]]\n["a","b"]',
    ),
    (
        "cpp_double_and_bools",
        "cpp",
        "stats",
        None,
        """class Solution { public:
  vector<double> stats(vector<bool> v) { double n = 0; for (bool b : v) n += b; return {n / 3, -0.5}; } };""",
        "[true,false,true]",
    ),
    (
        "cpp_in_place",
        "cpp",
        "reverseString",
        0,
        "class Solution { public: void reverseString(vector<char>& s) { reverse(s.begin(), s.end()); } };",
        '["h","e","y"]',
    ),
    (
        "java_in_place",
        "java",
        "reverseString",
        0,
        """class Solution { public void reverseString(char[] s) {
  for (int i = 0, j = s.length - 1; i < j; i++, j--) { char t = s[i]; s[i] = s[j]; s[j] = t; } } }""",
        '["h","e","y"]',
    ),
    (
        "cpp_free_function",
        "cpp",
        "add",
        None,
        "int add(int a, int b) { return a + b; }",
        "2\n40",
    ),
    (
        "cpp_define_int_long_long",
        "cpp",
        "add",
        None,
        "#define int long long\nclass Solution { public: int add(int a, int b) { return a + b; } };",
        "3000000000\n4000000000",
    ),
    (
        "java_public_class_static_method",
        "java",
        "add",
        None,
        "public class Solution { public static int add(int a, int b) { return a + b; } }",
        "2\n40",
    ),
    (
        "cpp_prints_are_not_the_answer",
        "cpp",
        "add",
        None,
        'class Solution { public: int add(int a, int b) { cout << 99 << endl; printf("99\\n"); return a + b; } };',
        "2\n40",
    ),
    (
        "java_prints_are_not_the_answer",
        "java",
        "add",
        None,
        "class Solution { public int add(int a, int b) { System.out.println(99); return a + b; } }",
        "2\n40",
    ),
    (
        "cpp_throws",
        "cpp",
        "add",
        None,
        'class Solution { public: int add(int a, int b) { throw runtime_error("no"); } };',
        "2\n40",
    ),
    (
        "java_throws",
        "java",
        "add",
        None,
        'class Solution { public int add(int a, int b) { throw new IllegalStateException("no"); } }',
        "2\n40",
    ),
    (
        "cpp_wrong_argument_count",
        "cpp",
        "add",
        None,
        "class Solution { public: int add(int a, int b) { return a + b; } };",
        "2",
    ),
    (
        "java_argument_out_of_range",
        "java",
        "add",
        None,
        "class Solution { public int add(int a, int b) { return a + b; } }",
        "2\n4000000000",
    ),
    (
        "cpp_loops_forever",
        "cpp",
        "add",
        None,
        "class Solution { public: int add(int a, int b) { volatile long x = 0; while (true) ++x; } };",
        "2\n40",
    ),
    (
        "java_compile_error",
        "java",
        "add",
        None,
        "class Solution { public int add(int a, int b) { return a + ; } }",
        "2\n40",
    ),
]


def _problem(func_name: str, output_arg: int | None, tests: list[tuple[str, str]]) -> Problem:
    return Problem(
        func_name,
        Harness.FUNCTIONAL,
        [TestCase(i, o) for i, o in tests],
        func_name=func_name,
        output_arg=output_arg,
        time_limit=LIMITS.time_limit,
        memory_limit=LIMITS.memory_limit,
    )


@pytest.mark.parametrize(
    ("name", "language", "func_name", "output_arg", "code", "arguments"),
    CASES,
    ids=[case[0] for case in CASES],
)
def test_sandbox_agrees_with_a_plain_run(
    languages_grader, name, language, func_name, output_arg, code, arguments
):
    source = native_call.program(_problem(func_name, output_arg, []), code, language)
    plain = run_plain(get_language(language), source, arguments.encode())
    expected = plain.stdout.decode().strip() if plain.verdict == "ran" else "null"
    result = languages_grader.grade(
        _problem(func_name, output_arg, [(arguments, expected)]), code, language
    )
    if plain.verdict == "ran":
        assert plain.exit_code == 0 and expected
        assert result.verdict.value == "AC", (result.message, plain)
    else:
        assert result.verdict.value == plain.verdict, (result.message, plain)


# the answers each case's plain run must print: the drivers write what LeetCode shows
ANSWERS = {
    "cpp_two_sum": "[0,1]",
    "java_two_sum": "[0,1]",
    "cpp_scalars_const_method": '"123456789013|2.500000|Tqhé\\n\\"x\\""',
    "java_scalars": '"123456789013|2.5|Tqhé\\n\\"x\\""',
    "cpp_nested_vectors": '[["a","b"],[],["b"]]',
    "java_lists": '[["a","b"],[],["b"]]',
    "cpp_double_and_bools": "[0.66666666666666663,-0.5]",
    "cpp_in_place": '["y","e","h"]',
    "java_in_place": '["y","e","h"]',
    "cpp_free_function": "42",
    "cpp_define_int_long_long": "7000000000",
    "java_public_class_static_method": "42",
    "cpp_prints_are_not_the_answer": "42",
    "java_prints_are_not_the_answer": "42",
}


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_the_driver_prints_the_value(name):
    _, language, func_name, output_arg, code, arguments = next(c for c in CASES if c[0] == name)
    source = native_call.program(_problem(func_name, output_arg, []), code, language)
    plain = run_plain(get_language(language), source, arguments.encode())
    assert plain.verdict == "ran"
    assert plain.stdout.decode("utf-8").strip() == ANSWERS[name]


@pytest.mark.parametrize(("language", "code"), [("cpp", CPP_TWO_SUM), ("java", JAVA_TWO_SUM)])
def test_right_and_wrong_answers(languages_grader, language, code):
    problem = _problem("twoSum", None, TWO_SUM_TESTS)
    assert languages_grader.grade(problem, code, language).verdict.value == "AC"
    swapped = _problem(
        "twoSum", None, [(i, "[" + o[3] + "," + o[1] + "]") for i, o in TWO_SUM_TESTS]
    )
    wrong = languages_grader.grade(swapped, code, language)
    assert wrong.verdict.value == "WA"
    assert wrong.tests[0].message.startswith("at [0]: expected 1, got 0")


def test_reals_are_judged_within_the_call_tolerance(languages_grader):
    code = "class Solution { public: double third(int n) { return 1.0 / n; } };"
    close = _problem("third", None, [("3", "0.333333334")])
    far = _problem("third", None, [("3", "0.3334")])
    assert languages_grader.grade(close, code, "cpp").verdict.value == "AC"
    assert languages_grader.grade(far, code, "cpp").verdict.value == "WA"


def test_a_bool_is_not_an_integer(languages_grader):
    code = "class Solution { public boolean odd(int n) { return n % 2 == 1; } }"
    right, wrong = _problem("odd", None, [("3", "true")]), _problem("odd", None, [("3", "1")])
    assert languages_grader.grade(right, code, "java").verdict == "AC"
    assert languages_grader.grade(wrong, code, "java").verdict == "WA"


def test_errors_name_the_line_of_the_code(languages_grader):
    cpp = "class Solution {\npublic:\n  int add(int a, int b) { return a + ; }\n};"
    java = "class Solution {\n  public int add(int a, int b) {\n    return a + ;\n  }\n}"
    problem = _problem("add", None, [("1\n2", "3")])
    assert "solution.cpp:3:" in languages_grader.grade(problem, cpp, "cpp").message
    assert "Main.java:3:" in languages_grader.grade(problem, java, "java").message


def test_a_function_name_that_is_not_a_name_is_refused(languages_grader):
    problem = _problem("add(); system", None, [("1\n2", "3")])
    result = languages_grader.grade(problem, "int add(int a, int b) { return a + b; }", "cpp")
    assert result.verdict.value == "ERROR"
    assert "is not a function name" in result.message


def test_other_compiled_languages_say_what_they_take(languages_grader):
    problem = _problem("add", None, [("1\n2", "3")])
    result = languages_grader.grade(problem, "fn main() {}", "rust")
    assert result.verdict.value == "ERROR"
    assert result.message == "rust programs are graded on stdin problems, not functional"


@pytest.mark.parametrize(
    ("language", "code"),
    [
        (
            "cpp",
            "static int calls = 0;\nclass Solution { public: int f(int x) { return ++calls; } };",
        ),
        (
            "java",
            "class Solution { static int calls = 0; public int f(int x) { return ++calls; } }",
        ),
    ],
)
def test_each_test_is_its_own_process(languages_grader, language, code):
    """Deviation ``compiled-call-process``: LeetCode's one process would count 1, 2, 3."""
    problem = _problem("f", None, [("0", "1"), ("0", "1"), ("0", "1")])
    assert languages_grader.grade(problem, code, language).verdict.value == "AC"
