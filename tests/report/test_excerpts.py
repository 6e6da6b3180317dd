"""What the report shows of a failing program's output: the first failing test keeps the
start of its stdout and the end of its stderr (real sandbox), bounded, the same on every
worker, and kept through the journal."""

from __future__ import annotations

from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import GradeOptions, Grader
from evaluator.runner.grading import excerpt
from evaluator.runner.journal import result_from_dict

PROBLEM = Problem("echo", Harness.STDIN, [TestCase("a\n", "a\n"), TestCase("b\n", "b\n")] * 2)


def test_first_failing_test_keeps_its_output(pool):
    program = (
        "import sys\n"
        "s = input()\n"
        "if s == 'b':\n"
        "    print('x' * 5000)\n"
        "    sys.stderr.buffer.write(b'\\xff\\xfe not UTF-8\\n' + b'log line\\n' * 100)\n"
        "    sys.stderr.flush()\n"
        "    raise ValueError('boom')\n"
        "print(s)\n"
    )
    with Grader(GradeOptions(time_limit=2), pool=pool) as grader:
        result = grader.grade(PROBLEM, program)
    verdicts = [str(t.verdict) for t in result.tests]
    assert verdicts == ["AC", "RE", "AC", "RE"]
    first, later = result.tests[1], result.tests[3]
    assert first.stdout == "x" * 199 + "…"  # its start, cut at 200 characters
    # the traceback's end, its source line as a plain run prints it
    assert first.stderr.endswith(
        "line 7, in <module>\n    raise ValueError('boom')\nValueError: boom\n"
    )
    assert 'File "solution.py"' in first.stderr and "mcsbx-" not in first.stderr
    assert len(first.stderr) == 200 and first.stderr.startswith("…") and "log line" in first.stderr
    assert later.stdout == later.stderr == ""  # only the first failure keeps output
    assert result.tests[0].stdout == ""
    data = result.to_dict()
    assert data["tests"][1]["stdout"] == first.stdout and "stdout" not in data["tests"][0]
    back = result_from_dict(data, PROBLEM.id)
    assert back.tests[1].stdout == first.stdout and back.tests[1].stderr == first.stderr


def test_excerpt_is_bounded_and_text():
    assert excerpt(b"") == "" and excerpt(b"ok\n") == "ok\n"
    assert excerpt(b"\xff\xfe") == "\\xff\\xfe"
    assert excerpt(b"a" * 10**7) == "a" * 199 + "…"
    assert excerpt(b"a" * 10**7 + b"END", tail=True) == "…" + "a" * 196 + "END"
    assert excerpt("é".encode() * 300, limit=10) == "é" * 9 + "…"
    path = b'  File "/var/tmp/x/mcsbx-ab_12/run/solution.py", line 3\n'
    assert excerpt(path) == '  File "solution.py", line 3\n'
