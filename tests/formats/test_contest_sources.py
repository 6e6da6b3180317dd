"""CodeContests and open-r1/codeforces rows: read by their shapes, graded by their rules in the
real sandbox, and the open-r1/piston checker convention (``{"type": "codeforces"}``).

The records are written by hand in each dataset's documented shape:
``tests/data/sources/codecontests/`` and ``tests/data/sources/codeforces/`` (their READMEs
cite where each shape comes from)."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import sys
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluator.formats import InputError, read_problems, read_samples
from evaluator.formats.registry import Solution, detect_format, get_format
from evaluator.formats.sources import codeforces as codeforces_module
from evaluator.formats.sources.codecontests import FORMAT as CODECONTESTS
from evaluator.formats.sources.codecontests import JUDGE as CODECONTESTS_JUDGE
from evaluator.formats.sources.codeforces import FORMAT as CODEFORCES
from evaluator.judges import get_judge
from evaluator.judges.cf_checker import (
    CodeforcesChecker,
    correct_output_file,
    output_file,
    verdict,
)
from evaluator.judges.checker import CHECKER_TYPES, build_checker
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner.grading import GradeOptions, Grader
from evaluator.sandbox import Limits
from evaluator.sandbox.launcher import START_FAILED_MARK

SOURCES = Path(os.environ["MICROCODER_TEST_DATA"]) / "sources"
CC_FILE = SOURCES / "codecontests" / "problems.jsonl"
CF_FILE = SOURCES / "codeforces" / "problems.jsonl"
CF_TESTS = SOURCES / "codeforces" / "generated"


def _records(path: Path) -> list[dict]:
    import json

    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def cc() -> dict[str, Problem]:
    return {problem.id: problem for problem in read_problems(CC_FILE)}


@pytest.fixture(scope="module")
def cf_rows() -> dict[str, dict]:
    return {record["id"]: record for record in _records(CF_FILE)}


@pytest.fixture(scope="module")
def cf(cf_rows) -> dict[str, Problem]:
    return {
        key: CODEFORCES.read(record, None)
        for key, record in cf_rows.items()
        if not record.get("interaction_format")
    }


@pytest.fixture(scope="module")
def grader(pool):
    with Grader(GradeOptions(), pool=pool, precompiled_headers=False) as own:
        yield own


def verdicts(result) -> list[Verdict]:
    return [test.verdict for test in result.tests]


# --- CodeContests: reading ---------------------------------------------------------------------


def test_codecontests_rows_are_detected_and_named_by_their_name(cc):
    rows = _records(CC_FILE)
    assert {detect_format(row).name for row in rows} == {"codecontests"}
    assert get_format("deepmind/code_contests") is CODECONTESTS
    assert list(cc) == ["1_A. Sum", "2_B. Third", "3_C. Even", "4_E. Files"]


def test_codecontests_tests_come_public_private_generated_and_public_ones_are_counted(cc):
    problem = cc["1_A. Sum"]
    assert problem.harness is Harness.STDIN
    assert [t.input for t in problem.tests] == [
        "1 2\n",  # public
        "-5 5\n",  # private
        "1000000000 1000000000\n",  # generated
        "7 -8\n",
    ]
    assert problem.tests[2].output == "2000000000\n"
    assert problem.metadata["public_tests"] == 1
    assert problem.judge == {"type": "float", "abs_tol": 1e-5, "rel_tol": 0, "yesno": True}


def test_codecontests_limits_durations_and_bytes(cc):
    assert cc["1_A. Sum"].time_limit == 2.0
    assert cc["2_B. Third"].time_limit == 1.5  # {"seconds": 1, "nanos": 500000000}
    assert cc["4_E. Files"].time_limit is None  # null
    assert cc["1_A. Sum"].memory_limit == 256  # 256000000 bytes: Codeforces' "256 megabytes"
    assert cc["3_C. Even"].memory_limit == 64
    assert cc["4_E. Files"].memory_limit == 256  # 268435456 bytes: 256 MiB exactly
    row = _records(CC_FILE)[0]
    for value, seconds in ((3, 3.0), (2.5, 2.5), ({"seconds": "4"}, 4.0), ("2 seconds", 2.0)):
        assert CODECONTESTS.read({**row, "time_limit": value}, None).time_limit == seconds
    assert CODECONTESTS.read({**row, "memory_limit_bytes": 1}, None).memory_limit == 1


def test_codecontests_file_io_fields(cc):
    assert (cc["4_E. Files"].input_file, cc["4_E. Files"].output_file) == (
        "input.txt",
        "output.txt",
    )
    assert (cc["1_A. Sum"].input_file, cc["1_A. Sum"].output_file) == (None, None)  # ""


def test_codecontests_metadata_names_the_enums(cc):
    meta = cc["1_A. Sum"].metadata
    assert meta["platform"] == "codeforces" and meta["difficulty"] == "A"
    assert meta["cf_rating"] == 800 and meta["cf_tags"] == ["implementation", "math"]
    assert meta["cf_contest_id"] == 1 and meta["cf_index"] == "A"
    assert cc["3_C. Even"].metadata["platform"] == "codechef"
    assert cc["3_C. Even"].metadata["difficulty"] == "EASY"
    assert cc["4_E. Files"].metadata["platform"] == "atcoder"
    assert "difficulty" not in cc["4_E. Files"].metadata  # 0: UNKNOWN_DIFFICULTY
    assert "cf_rating" not in cc["2_B. Third"].metadata  # 0: none
    row = _records(CC_FILE)[0]
    assert CODECONTESTS.read({**row, "difficulty": 19}, None).metadata["difficulty"] == "L"
    assert CODECONTESTS.read({**row, "difficulty": 29}, None).metadata["difficulty"] == "V"


def test_codecontests_references_keep_cpp_python3_and_java():
    row = _records(CC_FILE)[0]
    refs = CODECONTESTS.references(row)
    assert [s.language for s in refs] == ["cpp", "python", "java"]  # Python 2, unknown left out
    assert refs[0].code.startswith("#include")
    wrong = CODECONTESTS.wrong_references(row)
    assert [s.language for s in wrong] == ["cpp", "python", "java"]
    assert CODECONTESTS.references({**row, "solutions": None}) == []
    assert CODECONTESTS.references({**row, "solutions": {"language": [3], "solution": [5]}}) == []
    assert CODECONTESTS.statement(row).startswith("Print the sum")


def test_codecontests_proto_json_test_lists_are_read_too():
    row = _records(CC_FILE)[0]
    proto = {**row, "public_tests": [{"input": "1 2\n", "output": "3\n"}], "private_tests": None}
    problem = CODECONTESTS.read(proto, None)
    assert [t.input for t in problem.tests] == ["1 2\n", "1000000000 1000000000\n", "7 -8\n"]
    assert problem.metadata["public_tests"] == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"public_tests": {"input": ["1\n"], "output": []}}, "public_tests"),
        ({"private_tests": {"input": [1], "output": ["1\n"]}}, "private_tests.input[0]"),
        ({"generated_tests": 7}, "generated_tests"),
        ({"time_limit": {"seconds": "two"}}, "time_limit.seconds"),
        ({"time_limit": -1}, "time_limit"),
        ({"memory_limit_bytes": "lots"}, "memory_limit_bytes"),
        ({"input_file": "../etc/passwd"}, "input_file"),
        ({"output_file": 3}, "output_file"),
        ({"source": [2]}, "source"),
        ({"name": 12}, "name"),
    ],
)
def test_codecontests_a_bad_field_is_named(change, field):
    row = {**_records(CC_FILE)[0], **change}
    with pytest.raises(InputError) as caught:
        CODECONTESTS.read(row, None)
    assert caught.value.field == field


# --- CodeContests: grading -----------------------------------------------------------------------


def test_codecontests_python_right_and_wrong(grader, cc):
    problem = cc["1_A. Sum"]
    right = "a, b = map(int, input().split())\nprint(a + b)"
    assert grader.grade(problem, right).verdict is Verdict.AC
    result = grader.grade(problem, "a, b = map(int, input().split())\nprint(a * b)")
    assert result.verdict is Verdict.WA


def test_codecontests_references_pass_and_incorrect_solutions_fail(languages_grader, cc):
    row, problem = _records(CC_FILE)[0], cc["1_A. Sum"]
    for solution in CODECONTESTS.references(row):  # C++, Python 3 and Java
        result = languages_grader.grade(problem, solution.code, solution.language)
        assert result.verdict is Verdict.AC, (solution.language, result)
    for solution in CODECONTESTS.wrong_references(row):
        result = languages_grader.grade(problem, solution.code, solution.language)
        assert result.verdict is Verdict.WA, (solution.language, result)


def test_codecontests_reals_within_1e_5_absolute(grader, cc):
    problem = cc["2_B. Third"]
    exact = "n = int(input())\nprint(f'{n / 3:.6f}')"
    close = "n = int(input())\nprint(f'{n / 3 + 4e-6:.7f}')"  # off by about 4e-6
    far = "n = int(input())\nprint(f'{n / 3 + 2e-5:.7f}')"  # off by about 2e-5
    assert grader.grade(problem, exact).verdict is Verdict.AC
    assert grader.grade(problem, close).verdict is Verdict.AC
    result = grader.grade(problem, far)
    # absolute only: 3333333.3333533 is 6e-12 relative to the expected, still wrong
    assert verdicts(result) == [Verdict.WA, Verdict.WA, Verdict.WA]


def test_codecontests_yes_and_no_in_any_case(grader, cc):
    problem = cc["3_C. Even"]
    lower = "print('yes' if int(input()) % 2 == 0 else 'no')"
    assert grader.grade(problem, lower).verdict is Verdict.AC
    result = grader.grade(problem, "input()\nprint('Yes')")
    assert verdicts(result) == [Verdict.AC, Verdict.WA, Verdict.AC]


def test_codecontests_rule_is_stricter_than_lowercasing_every_token():
    """CodeContests' grader lower-cases every token; ours only yes/no, and integers are
    exact (its grader compares them as doubles too): both documented differences."""
    check = get_judge("float", **{k: v for k, v in CODECONTESTS_JUDGE.items() if k != "type"})
    assert check("NO\n", "no\n")
    assert not check("impossible\n", "Impossible\n")
    assert not check("5.000001\n", "5\n")
    assert check("5.000001\n", "5.0\n")


def test_codecontests_file_io_problem(grader, cc):
    """Needs the sandbox's file I/O (Problem.input_file/output_file)."""
    problem = cc["4_E. Files"]
    row = _records(CC_FILE)[3]
    [reference] = CODECONTESTS.references(row)
    assert grader.grade(problem, reference.code).verdict is Verdict.AC
    [stdin_program] = CODECONTESTS.wrong_references(row)  # reads stdin: it gets nothing
    assert grader.grade(problem, stdin_program.code).verdict is not Verdict.AC


# --- open-r1/codeforces: reading -----------------------------------------------------------------


def test_codeforces_rows_are_detected_and_named_by_their_id(cf_rows, cf):
    assert {detect_format(row).name for row in cf_rows.values()} == {"codeforces"}
    assert get_format("open-r1/codeforces") is CODEFORCES
    assert list(cf) == ["4/A", "4/B", "5/A", "5/B", "5/C", "6/B"]


def test_codeforces_limits_tests_and_metadata(cf):
    problem = cf["4/A"]
    assert problem.time_limit == 1.0 and problem.memory_limit == 64
    assert cf["5/A"].time_limit == 2.5 and cf["5/A"].memory_limit == 256  # 255.5 MB rounded up
    assert [t.input for t in problem.tests] == ["8\n", "5\n", "2\n"]  # "2\r\n": CR removed
    assert problem.tests[2].output == "NO\n"
    meta = problem.metadata
    assert meta["platform"] == "codeforces" and meta["official_tests"] == 3
    assert meta["rating"] == 800 and meta["difficulty"] == 800
    assert meta["tags"] == ["brute force", "math"]
    assert (meta["contest_id"], meta["index"], meta["question_title"]) == ("4", "A", "Watermelon")
    assert "generated_tests" not in meta  # only attach_tests says how many it added


def test_codeforces_rule_is_yesno_without_a_checker_and_the_checker_with_one(cf, cf_rows):
    assert cf["4/A"].judge == "yesno"
    assert cf["4/B"].judge == {"type": "codeforces", "code": cf_rows["4/B"]["generated_checker"]}
    assert CODEFORCES.read({**cf_rows["4/A"], "generated_checker": ""}, None).judge == "yesno"


def test_codeforces_file_mode(cf):
    assert (cf["6/B"].input_file, cf["6/B"].output_file) == ("input.txt", "output.txt")
    assert (cf["4/A"].input_file, cf["4/A"].output_file) == (None, None)


def test_codeforces_interactive_problems_are_refused_and_skippable():
    bad: list = []
    problems = read_problems(CF_FILE, bad=bad)
    assert "6/A" not in {p.id for p in problems}
    [skipped] = bad
    assert skipped.problem_id == "6/A"
    assert skipped.error.field == "interaction_format"
    assert "interactive problems are not supported" in str(skipped.error)
    with pytest.raises(InputError, match="interactive problems are not supported"):
        read_problems(CF_FILE)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"official_tests": {"input": "1"}}, "official_tests"),
        ({"official_tests": [{"input": "1\n"}]}, "official_tests[0].output"),
        ({"time_limit": "fast"}, "time_limit"),
        ({"memory_limit": -3}, "memory_limit"),
        ({"input_mode": "pipe"}, "input_mode"),
        ({"generated_checker": 1}, "generated_checker"),
        ({"interaction_format": 5}, "interaction_format"),
        ({"id": ""}, "id"),
    ],
)
def test_codeforces_a_bad_field_is_named(cf_rows, change, field):
    with pytest.raises(InputError) as caught:
        CODEFORCES.read({**cf_rows["4/A"], **change}, None)
    assert caught.value.field == field


# --- open-r1/codeforces: grading -----------------------------------------------------------------

WATERMELON = "w = int(input())\nprint('yes' if w > 2 and w % 2 == 0 else 'no')"
DIVISOR_SMALLEST = """
n = int(input())
a = next(d for d in range(2, n) if n % d == 0)
print(a, n // a)
"""
DIVISOR_LARGEST = """
n = int(input())
a = max(d for d in range(2, int(n ** 0.5) + 1) if n % d == 0)
print(a, n // a)
"""


def test_codeforces_stdin_right_and_wrong(grader, cf):
    assert grader.grade(cf["4/A"], WATERMELON).verdict is Verdict.AC  # "yes" for "YES"
    wrong = "w = int(input())\nprint('YES' if w % 2 == 0 else 'NO')"  # 2 is not splittable
    assert verdicts(grader.grade(cf["4/A"], wrong)) == [Verdict.AC, Verdict.AC, Verdict.WA]


def test_codeforces_checker_accepts_any_valid_answer_and_rejects_a_wrong_one(grader, cf):
    problem = cf["4/B"]
    assert grader.grade(problem, DIVISOR_SMALLEST).verdict is Verdict.AC
    assert grader.grade(problem, DIVISOR_LARGEST).verdict is Verdict.AC  # 3 4, not 2 6
    # The checker exits 0 on every answer and reads the contestant's output third: under
    # testlib's convention (the program type) this wrong answer would be accepted.
    result = grader.grade(problem, "n = int(input())\nprint(1, n)")
    assert verdicts(result) == [Verdict.WA, Verdict.WA]
    assert "printed '0'" in result.message


def test_the_same_checker_as_a_testlib_program_accepts_a_wrong_answer(grader, cf, tmp_path):
    """Why the convention is a type of its own: run as ``{"type": "program"}`` (testlib's
    argument order, the exit status decides), open-r1's checker accepts anything."""
    path = tmp_path / "checker.py"
    path.write_text(f"#!{sys.executable}\n" + cf["4/B"].judge["code"])
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    as_program = replace(cf["4/B"], judge={"type": "program", "path": str(path)})
    options = GradeOptions(checker_dir=str(tmp_path))
    with Grader(options, pool=grader.pool, precompiled_headers=False) as own:
        assert own.grade(as_program, "n = int(input())\nprint(1, n)").verdict is Verdict.AC


def test_codeforces_checker_printing_100_accepts(grader, cf):
    problem = cf["5/A"]
    assert grader.grade(problem, "print(f'{int(input()) ** 0.5:.4f}')").verdict is Verdict.AC
    result = grader.grade(problem, "print(f'{int(input()) ** 0.5 + 0.01:.4f}')")
    assert result.verdict is Verdict.WA and "printed '0'" in result.message


def test_codeforces_checker_that_crashes_rejects_the_answer(grader, cf):
    problem = cf["5/B"]
    assert grader.grade(problem, "print(input())").verdict is Verdict.AC
    result = grader.grade(problem, "input()\nprint('forty-two')")
    assert verdicts(result) == [Verdict.WA, Verdict.WA]
    assert "exited with status 1" in result.message and "ValueError" in result.message


def test_codeforces_checker_sees_files_as_piston_writes_them(grader, cf):
    """Empty lines dropped from both, CRs from the expected output: a checker comparing the
    files byte for byte accepts "3\\n\\n4\\n" for "3\\r\\n\\r\\n4\\r\\n"."""
    problem = cf["5/C"]
    assert grader.grade(problem, "a, b = input().split()\nprint(a)\nprint()\nprint(b)").passed
    assert grader.grade(problem, "print(input())").verdict is Verdict.WA  # "3 4" on one line


def test_codeforces_file_mode_problem(grader, cf):
    """Needs the sandbox's file I/O (Problem.input_file/output_file)."""
    problem = cf["6/B"]
    files = (
        "with open('input.txt') as f:\n    a, b = map(int, f.read().split())\n"
        "with open('output.txt', 'w') as f:\n    f.write(f'{a + b}\\n')\n"
    )
    assert grader.grade(problem, files).verdict is Verdict.AC
    assert grader.grade(problem, "print(5)").verdict is not Verdict.AC


# --- the checker convention on its own ---------------------------------------------------------

PAIRS = [TestCase("12\n", "2 6\n")]


def cf_problem(code: str, **limits) -> Problem:
    judge = {"type": "codeforces", "code": code, **limits}
    return Problem("checker", Harness.STDIN, list(PAIRS), judge=judge)


@pytest.mark.parametrize(
    ("code", "expected", "words"),
    [
        ("print(' 1 ')", Verdict.AC, ""),
        ("print('100')", Verdict.AC, ""),
        ("print('50')", Verdict.WA, "printed '50'"),  # a partial score is not accepted
        ("print('1.0')", Verdict.WA, "printed '1.0'"),
        ("pass", Verdict.WA, "printed ''"),
        ("import sys\nprint(1)\nsys.exit(3)", Verdict.WA, "exited with status 3"),
        ("raise RuntimeError('broken checker')", Verdict.WA, "RuntimeError: broken checker"),
        ("import os\nos.kill(os.getpid(), 9)", Verdict.ERROR, "SIGKILL"),
        ("x = [0] * (1 << 40)", Verdict.ERROR, "out of memory"),
    ],
)
def test_what_the_checker_does_decides(grader, code, expected, words):
    result = grader.grade(cf_problem(code), "print(2, 6)")
    assert result.verdict is expected, result
    assert words in result.message


def test_a_checker_past_its_time_is_a_judge_failure(grader):
    result = grader.grade(cf_problem("while True:\n    pass", time_limit=1), "print(2, 6)")
    assert result.verdict is Verdict.ERROR
    assert "SIGXCPU" in result.message or "timed out" in result.message


def test_a_sleeping_checker_is_killed_at_its_wall_time(grader):
    result = grader.grade(cf_problem("import time\ntime.sleep(60)", time_limit=1), "print(2, 6)")
    assert result.verdict is Verdict.ERROR and "timed out" in result.message


def test_a_checker_that_does_not_compile_is_an_error_before_anything_runs(grader, tmp_path):
    marker = tmp_path / "ran"
    program = f"open({str(marker)!r}, 'w').close()\nprint(2, 6)"
    result = grader.grade(cf_problem("def broken(:\n    pass"), program)
    assert result.verdict is Verdict.ERROR and "does not compile" in result.message
    assert not marker.exists()


def test_the_checker_gets_input_expected_output_in_that_order(grader):
    code = (
        "import sys\n"
        "names = [open(p).read() for p in sys.argv[1:]]\n"
        "print(1 if names == ['12\\n', '2 6\\n', '6 2\\n'] else 0)"
    )
    assert grader.grade(cf_problem(code), "print(6, 2)").verdict is Verdict.AC


def test_a_program_that_failed_is_not_shown_to_the_checker(grader):
    result = grader.grade(cf_problem("print(1)"), "raise SystemExit(3)")
    assert result.verdict is Verdict.RE


def test_build_checker_registers_the_type():
    assert "codeforces" in CHECKER_TYPES
    checker = build_checker({"type": "codeforces", "code": "print(1)", "time_limit": 2})
    assert isinstance(checker, CodeforcesChecker) and checker.limits.time_limit == 2
    for spec, words in (
        ({"type": "codeforces"}, "non-empty string 'code'"),
        ({"type": "codeforces", "code": "print(1)", "path": "x"}, "takes code"),
        ({"type": "codeforces", "code": "print(1"}, "does not compile"),
        ({"type": "codeforces", "code": "print(1)", "time_limit": 0}, "time_limit"),
    ):
        with pytest.raises(ValueError, match=words):
            build_checker(spec)


def test_the_files_piston_writes():
    assert correct_output_file("3\r\n\r\n4\r\n") == b"3\n4\n"
    assert correct_output_file("a\n\n\nb") == b"a\nb\n"
    assert correct_output_file("") == b""
    assert correct_output_file(" \n") == b" \n"  # a line of spaces is not empty
    assert output_file(b"\n\n3\n\n4") == b"3\n4"
    assert output_file(b"x\r\n\n") == b"x\r\n"
    assert output_file(b"") == b""


def test_verdict_by_status():
    assert verdict(0, "1\n", "") == (Verdict.AC, "")
    assert verdict(0, "0", "")[0] is Verdict.WA
    assert verdict(2, "1", "")[0] is Verdict.WA
    assert verdict(None, "", "")[0] is Verdict.ERROR
    assert verdict(-signal.SIGXCPU, "", "")[0] is Verdict.ERROR
    assert verdict(127, "", f"{START_FAILED_MARK}OSError: x")[0] is Verdict.ERROR
    assert verdict(127, "", "")[0] is Verdict.WA  # the checker's own status 127


def test_a_checker_run_directly():
    checker = CodeforcesChecker.build(
        "import sys\nprint(open(sys.argv[3]).read().strip())", Limits()
    )
    assert checker.run("", b"100\n", "") == (Verdict.AC, "")
    assert checker.run("", b"7\n", "")[0] is Verdict.WA


# --- generated tests -----------------------------------------------------------------------------

OFFICIAL_ONLY = "w = int(input())\nprint('YES' if w in (4, 6, 8) else 'NO')"  # fails 100


def test_attach_tests_appends_the_problems_rows_after_its_official_tests(grader, cf):
    problem = cf["4/A"]
    assert grader.grade(problem, OFFICIAL_ONLY).verdict is Verdict.AC  # official tests only
    full = CODEFORCES.attach_tests(problem, str(CF_TESTS))
    assert [t.input for t in full.tests] == ["8\n", "5\n", "2\n", "100\n", "99\n"]
    assert full.tests[4].output == "NO\n"  # "NO\r\n": CR removed as for official tests
    assert full.metadata["generated_tests"] == 2 and full.metadata["official_tests"] == 3
    assert len(problem.tests) == 3  # the problem given is left as it was
    assert verdicts(grader.grade(full, OFFICIAL_ONLY))[3] is Verdict.WA
    assert grader.grade(full, WATERMELON).verdict is Verdict.AC
    assert CODEFORCES.attach_tests(full, str(CF_TESTS)) is full  # not twice


def test_attach_tests_with_a_checker(grader, cf):
    full = CODEFORCES.attach_tests(cf["4/B"], str(CF_TESTS))
    assert [t.input for t in full.tests] == ["12\n", "35\n", "49\n"]
    assert grader.grade(full, DIVISOR_SMALLEST).verdict is Verdict.AC


def test_a_contest_without_a_file_keeps_its_official_tests(cf):
    full = CODEFORCES.attach_tests(cf["5/A"], str(CF_TESTS))
    assert full.tests == cf["5/A"].tests and full.metadata["generated_tests"] == 0


def test_a_missing_directory_is_an_input_error(cf, tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        CODEFORCES.attach_tests(cf["4/A"], str(tmp_path / "nowhere"))


def _write(path: Path, **columns) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


def test_a_contest_file_is_read_once_for_all_its_problems(cf, tmp_path, monkeypatch):
    shutil.copy(CF_TESTS / "test_cases_0004.parquet", tmp_path)
    reads: list[str] = []
    real = codeforces_module._read_tests_file

    def counting(path):
        reads.append(path)
        return real(path)

    monkeypatch.setattr(codeforces_module, "_read_tests_file", counting)
    for _ in range(3):
        assert CODEFORCES.attach_tests(cf["4/A"], str(tmp_path)).metadata["generated_tests"] == 2
        assert CODEFORCES.attach_tests(cf["4/B"], str(tmp_path)).metadata["generated_tests"] == 1
    assert len(reads) == 1
    # a changed file is read again
    _write(tmp_path / "test_cases_0004.parquet", problem_id=["4/A"], input=["6\n"], output=["Y\n"])
    full = CODEFORCES.attach_tests(cf["4/A"], str(tmp_path))
    assert [t.input for t in full.tests[3:]] == ["6\n"] and len(reads) == 2


def test_a_large_contest_file_is_streamed_and_filtered(cf, tmp_path):
    count = 1000
    ids = ["4/A" if i % 10 == 0 else "4/Z" for i in range(count)]
    _write(
        tmp_path / "test_cases_0004.parquet",
        problem_id=ids,
        input=[f"{i}\n" for i in range(count)],
        output=["YES\n" if i % 2 == 0 else "NO\n" for i in range(count)],
    )
    full = CODEFORCES.attach_tests(cf["4/A"], str(tmp_path))
    assert full.metadata["generated_tests"] == 100
    assert [t.input for t in full.tests[3:6]] == ["0\n", "10\n", "20\n"]  # file order kept


@pytest.mark.parametrize(
    ("columns", "words"),
    [
        ({"problem_id": ["4/A"], "input": ["1\n"]}, "no column 'output'"),
        ({"problem_id": ["4/A"], "input": ["1\n"], "output": [None]}, "record 1"),
    ],
)
def test_a_bad_contest_file_is_an_input_error(cf, tmp_path, columns, words):
    _write(tmp_path / "test_cases_0004.parquet", **columns)
    with pytest.raises(InputError, match=words):
        CODEFORCES.attach_tests(cf["4/A"], str(tmp_path))


def test_a_file_that_is_not_parquet_is_an_input_error(cf, tmp_path):
    (tmp_path / "test_cases_0004.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match="cannot read parquet file"):
        CODEFORCES.attach_tests(cf["4/A"], str(tmp_path))


def test_solutions_are_solution_values():
    assert CODECONTESTS.references(_records(CC_FILE)[2]) == [
        Solution("print('yes' if int(input()) % 2 == 0 else 'no')\n", "python")
    ]


@pytest.mark.parametrize("folder", ["codecontests", "codeforces"])
def test_the_readme_samples_are_right_then_wrong(grader, folder):
    """The samples of the README's command: per problem, a right program, then a wrong one
    (with the generated tests attached for open-r1/codeforces)."""
    problems = {p.id: p for p in read_problems(SOURCES / folder / "problems.jsonl", bad=[])}
    samples = read_samples(SOURCES / folder / "samples.jsonl")
    assert set(samples) == set(problems)
    for problem_id, sample in samples.items():
        problem = problems[problem_id]
        if folder == "codeforces":
            problem = CODEFORCES.attach_tests(problem, str(CF_TESTS))
        right, wrong = sample.codes
        assert grader.grade(problem, right, sample.language).passed, problem_id
        assert not grader.grade(problem, wrong, sample.language).passed, problem_id


def test_codeforces_cpp_is_built_with_online_judge_defined(grader, cf):
    """A contest program that reads input.txt unless ONLINE_JUDGE is defined, as open-r1
    (piston's c++17 build) defines it."""
    assert cf["4/A"].metadata["cpp_flags"] == ["-std=c++17", "-O2", "-DONLINE_JUDGE"]
    program = """#include <bits/stdc++.h>
int main() {
#ifndef ONLINE_JUDGE
    freopen("input.txt", "r", stdin);
#endif
    int w = 0;
    std::cin >> w;
    std::cout << (w > 2 && w % 2 == 0 ? "YES" : "NO") << "\\n";
}
"""
    assert grader.grade(cf["4/A"], program, "cpp").verdict is Verdict.AC
    plain = replace(cf["4/A"], metadata={**cf["4/A"].metadata, "cpp_flags": ["-O2"]})
    assert grader.grade(plain, program, "cpp").verdict is Verdict.WA
