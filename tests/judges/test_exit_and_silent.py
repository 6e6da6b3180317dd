"""``exit`` (a test program's clean exit is its pass, whatever it printed) and ``silent``
(nothing on stdout or stderr: HumanEval-X's JavaScript rule) and ``no_error`` (no ``ERROR``
printed on either: MultiPL-E's Perl rule) and ``quiet_stderr`` (nothing on stderr:
MultiPL-E's Racket and Scala rule) and ``debug_asserts`` (MultiPL-E's C# rule), judged from
real runs' results: a crash or a limit is the run's verdict before either judge looks."""

from __future__ import annotations

from evaluator.judges import get_judge
from evaluator.judges.stdout import judge_stdout
from evaluator.problem import TestCase, Verdict
from evaluator.sandbox import LimitHit, RunResult

TEST = TestCase("", "")


def _run(stdout: bytes = b"", stderr: bytes = b"", exit_code: int = 0) -> RunResult:
    return RunResult("ok" if exit_code == 0 else "exit", exit_code=exit_code, stdout=stdout,
                     stderr=stderr)  # fmt: skip


def test_exit_accepts_any_output_of_a_clean_run_only():
    check = get_judge("exit")
    assert judge_stdout(TEST, _run(b"debug output\n", b"warning\n"), check) == (Verdict.AC, "")
    assert judge_stdout(TEST, _run(exit_code=1), check)[0] is Verdict.RE
    timed_out = _run()
    timed_out.limit = LimitHit.CPU
    assert judge_stdout(TEST, timed_out, check)[0] is Verdict.TLE


def test_silent_reads_stdout_and_stderr():
    check = get_judge("silent")
    assert judge_stdout(TEST, _run(), check) == (Verdict.AC, "")
    verdict, message = judge_stdout(TEST, _run(stderr=b"Assertion failed\n"), check)
    assert verdict is Verdict.WA and "printed 'Assertion failed'" in message
    assert judge_stdout(TEST, _run(stdout=b"x"), check)[0] is Verdict.WA
    assert judge_stdout(TEST, _run(exit_code=2), check)[0] is Verdict.RE


def test_no_error_reads_stdout_and_stderr_for_the_word():
    check = get_judge("no_error")
    assert judge_stdout(TEST, _run(b"ok!ok!ok!"), check) == (Verdict.AC, "")
    verdict, message = judge_stdout(TEST, _run(b"ok!", b"x\nan ERROR here\n"), check)
    assert verdict is Verdict.WA and "'an ERROR here'" in message
    assert judge_stdout(TEST, _run(b"ERROR"), check)[0] is Verdict.WA
    assert judge_stdout(TEST, _run(b"error, lower case"), check)[0] is Verdict.AC
    assert judge_stdout(TEST, _run(exit_code=1), check)[0] is Verdict.RE


def test_quiet_stderr_reads_stderr_alone():
    check = get_judge("quiet_stderr")
    assert judge_stdout(TEST, _run(b"printed on stdout\n"), check) == (Verdict.AC, "")
    verdict, message = judge_stdout(TEST, _run(b"", b"FAILURE\nname: check-equal?\n"), check)
    assert verdict is Verdict.WA and "wrote 'FAILURE' on stderr" in message
    assert judge_stdout(TEST, _run(exit_code=1), check)[0] is Verdict.RE


def test_debug_asserts_reads_the_marks_on_either_stream():
    """MultiPL-E's C# rule: mono exits 0 after a failed ``Debug.Assert``, reported on stderr."""
    check = get_judge("debug_asserts")
    assert judge_stdout(TEST, _run(b"Fail is a word\n", b"a warning\n"), check) == (Verdict.AC, "")
    failed = (
        b"---- DEBUG ASSERTION FAILED ----\n  at System.Diagnostics.DefaultTraceListener.Fail (x)\n"
    )
    verdict, message = judge_stdout(TEST, _run(b"", failed), check)
    assert verdict is Verdict.WA and "DefaultTraceListener.Fail" in message
    unhandled = b"\nUnhandled Exception:\nSystem.Exception: boom\n"
    assert judge_stdout(TEST, _run(b"", unhandled), check)[0] is Verdict.WA
    assert judge_stdout(TEST, _run(exit_code=1), check)[0] is Verdict.RE
