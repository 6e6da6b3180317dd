"""The parent's reading of what a child reported is total: a RunResult with any status, exit
status, signal, limit, stdout/stderr bytes, exception text and value text gives every harness
judge (stdin, call-based, assertion, python checker, program checker exit) a (Verdict, str)
answer with a bounded message, and never raises."""

from __future__ import annotations

from fuzz_inputs import ANY_TEXT, JUDGE_TEXT, MUTATED_JSON, OUTPUT_BYTES, assert_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.harness import assertion
from evaluator.harness.outcome import failure
from evaluator.judges import JUDGES
from evaluator.judges.checker import exit_verdict, interpret_call
from evaluator.judges.returned import judge_return
from evaluator.judges.stdout import judge_stdout
from evaluator.problem import TestCase, Verdict
from evaluator.sandbox import LimitHit, RunResult

# Big outputs by reference (hypothesis prints examples: keep their reprs small).
_MEGABYTE_OF_X = b"x" * (1 << 20)
_TRACEBACK_TAIL = b"Traceback\n" + b"\xff\x00" * (1 << 19) + b"\nValueError: " + b"v" * 5000
_BIG = st.sampled_from([b"", _MEGABYTE_OF_X, _TRACEBACK_TAIL])
_STATUS = st.sampled_from(
    ["ok", "exit", "exception", "compile", "lost", "error", "bad_input", "worker_died", "", "??"]
)

RUNS = st.builds(
    RunResult,
    status=_STATUS,
    exit_code=st.one_of(st.none(), st.integers(min_value=-(2**31), max_value=2**31)),
    signal=st.one_of(st.none(), st.integers(min_value=-5, max_value=200)),
    limit=st.one_of(st.none(), st.sampled_from(list(LimitHit))),
    cpu_time=st.floats(min_value=0, max_value=1e6),
    wall_time=st.floats(min_value=0, max_value=1e6),
    peak_memory_kb=st.integers(min_value=0, max_value=2**40),
    stdout=st.one_of(OUTPUT_BYTES, _BIG),
    stderr=st.one_of(OUTPUT_BYTES, _BIG),
    exception=st.one_of(st.none(), ANY_TEXT, st.just("E" * 5_000)),
    value=st.one_of(st.none(), MUTATED_JSON, ANY_TEXT),
    blocked=st.one_of(st.none(), ANY_TEXT, st.just("b" * 5_000)),
    checked=st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(run=RUNS, expected=JUDGE_TEXT)
def test_every_harness_judge_answers_any_report(run, expected):
    test = TestCase("", expected)
    for check in JUDGES.values():
        assert_outcome(judge_stdout(test, run, check))
    assert_outcome(judge_return(test, run, {}))
    assert_outcome(judge_return(TestCase("", "[1, NaN]"), run, {"abs_tol": 0.5}))
    assert_outcome(assertion.judge(run))
    assert_outcome(interpret_call(run))


@settings(max_examples=200, deadline=None)
@given(run=RUNS)
def test_failure_verdicts_are_bounded(run):
    failed = failure(run)
    if failed is not None:
        assert_outcome(failed)
        assert failed[0] is not Verdict.AC
    elif run.status == "ok" or run.status == "exit":
        assert run.limit is None


@settings(max_examples=200, deadline=None)
@given(
    status=st.one_of(st.none(), st.integers(min_value=-300, max_value=300)),
    message=st.one_of(ANY_TEXT, st.just("m" * 5_000)),
)
def test_program_checker_exit_statuses(status, message):
    outcome = exit_verdict(status, message[:300])
    assert_outcome(outcome)
    expected = {0: Verdict.AC, 1: Verdict.WA, 2: Verdict.WA}.get(status, Verdict.ERROR)
    assert outcome[0] is expected


@settings(max_examples=200, deadline=None)
@given(value=st.one_of(MUTATED_JSON, ANY_TEXT, st.just("[" * 200_000 + "]" * 200_000)))
def test_python_checker_return_values(value):
    """Only ``true``, ``false`` and ``[bool, str]`` decide; anything else is the checker's
    ERROR, whatever its size or depth."""
    verdict, message = interpret_call(RunResult(status="ok", value=value))
    assert len(message) <= 300
    if value.strip() in ("true", "false"):
        assert verdict is (Verdict.AC if value.strip() == "true" else Verdict.WA)
    elif verdict is not Verdict.ERROR:
        assert value.lstrip().startswith("[")


def test_python_checker_messages_pass_through_capped():
    ok = interpret_call(RunResult(status="ok", value='[false, "' + "w" * 10_000 + '"]'))
    assert ok[0] is Verdict.WA and len(ok[1]) <= 200
    assert interpret_call(RunResult(status="ok", value='[true, "\\ud800"]')) == (
        Verdict.AC,
        "\ud800",
    )
