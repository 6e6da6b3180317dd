"""Issue 44, class 6: a program cannot forge its own report (real programs, real sandbox).

A call-based test runs in the same process as the harness that reports it, so a program can
always reach the harness's sender (through its own frames), the key it signs with (in the
sender's closure, which ``gc.get_objects()`` finds) and what it writes with (``os.write``).
What it must not get from that: a test's end before its code is done (a judge's TLE turned
into AC), figures other than the kernel's (CPU time, peak memory), a report for another test,
a second report for one, or a status only the sandbox gives. Each attack below is a program a
policy could write, and each test of one failed on the engine before issue 44 (a pass, a
forged figure, or a report taken for the wrong test) at one isolation level or more."""

from __future__ import annotations

import textwrap

import pytest

from evaluator.harness.conventions import LEETCODE_CALL
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, Job, LimitHit, Limits, Mode

# the CPU limit is what the spinning programs cost; the backstop is far (a loaded machine)
LIMITS = Limits(time_limit=0.5, wall_limit=20.0, memory_limit=256, output_bytes=1 << 20)
FAKE_CPU, FAKE_KB = 0.000123, 4321

# What every attack shares: the harness's own sender, found through the program's frames (its
# module is hidden from sys.modules, not from the frames that call the program), and the key
# it signs with (in whatever closure holds a 16-byte bytes object and a descriptor).
ATTACKER = f"""
import gc, json, os, stat, struct, sys, time

FAKE = {{"cpu_time": {FAKE_CPU}, "wall_time": {FAKE_CPU}, "peak_memory_kb": {FAKE_KB}}}


def harness_globals():
    # The harness's module globals: its module is hidden from sys.modules and its functions
    # are frozen out of gc.get_objects(), but the frames that called the program hold them.
    found, frame = [], sys._getframe()
    while frame is not None:
        names = frame.f_globals
        if str(names.get("__name__", "")).startswith("evaluator.") and names not in found:
            found.append(names)
        frame = frame.f_back
    return found


def _sender():
    for names in harness_globals():
        if callable(names.get("send_report")):
            return names["send_report"]
    raise RuntimeError("no sender found")


def forge(report):
    \"\"\"A report as the harness sends it, with made-up figures (a batch child's harness
    used to send the test's stdout and stderr after it).\"\"\"
    send = _sender()
    try:
        send({{**FAKE, **report}}, b"", b"")
    except TypeError:
        send({{**FAKE, **report}})


def key_and_channel():
    \"\"\"The signing key and the report channel, from the closure that holds them.\"\"\"
    for obj in gc.get_objects():
        if type(obj).__name__ != "function" or not obj.__closure__:
            continue
        cells = []
        for cell in obj.__closure__:
            try:
                cells.append(cell.cell_contents)
            except ValueError:
                pass
        keys = [c for c in cells if type(c) is bytes and len(c) == 16]
        fds = [c for c in cells if type(c) is int and c > 2]
        if keys and fds:
            return keys[0], fds[0]
    return None, None


def forge_raw(value):
    \"\"\"A success report written by hand with the key: the header as reports.pack lays it
    out (status ok, exit code 0, made-up CPU time and memory), its value, empty output.\"\"\"
    key, fd = key_and_channel()
    if key is None:
        return False
    head = key + struct.pack("<BBHiiddq", 0, 0, 8, 0, 0, FAKE["cpu_time"], 0.0, FAKE["peak_memory_kb"])
    frames = b"".join(struct.pack(">I", len(p)) + p for p in (head, value.encode(), b"", b""))
    os.write(fd, frames)
    return True


def channels():
    out = []
    for fd in range(3, 1024):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                out.append(fd)
        except OSError:
            pass
    return out


def split(data):
    \"\"\"Frames (a 4-byte length and that many bytes) in what the harness writes.\"\"\"
    frames, at = [], 0
    while at + 4 <= len(data):
        (size,) = struct.unpack_from(">I", data, at)
        frames.append(bytes(data[at + 4 : at + 4 + size]))
        at += 4 + size
    return frames


def join(frames):
    return b"".join(struct.pack(">I", len(f)) + f for f in frames)


def hook_writes(rewrite):
    \"\"\"Replace os.write, and every copy of it the harness keeps, so that what the harness
    writes on its report channel goes through ``rewrite(frames) -> bytes``.\"\"\"
    real = os.write
    reports = set(channels())

    def write(fd, data):
        if fd in reports:
            real(fd, rewrite(split(bytes(data))))
            return len(data)
        return real(fd, data)

    os.write = write
    for names in harness_globals():
        for name, value in list(names.items()):
            if value is real:
                names[name] = write


def spin():
    while True:
        pass


def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
"""

ADD = ["1\n2", "10\n20", "5\n6"]  # call-based tests of add(a, b): one argument a line
SUMS = ["3", "30", "11"]


def _call_job(body: str, inputs: list[str], isolation: Isolation) -> Job:
    code = ATTACKER + textwrap.dedent(body)
    return Job(
        code=code,
        inputs=inputs,
        mode=Mode.CALL,
        **LEETCODE_CALL,
        func_name="add",
        limits=LIMITS,
        isolation=isolation,
    )


def _stdin_job(body: str, inputs: list[str], isolation: Isolation) -> Job:
    code = ATTACKER + textwrap.dedent(body)
    return Job(code=code, inputs=inputs, limits=LIMITS, isolation=isolation)


def _show(runs) -> list[tuple]:
    """What an assertion message shows of each run (a RunResult's repr is cut short)."""
    return [
        (r.status, r.limit, r.value, r.exception, r.blocked, r.cpu_time, r.peak_memory_kb)
        for r in runs
    ]


def _no_forged_figures(runs) -> None:
    for run in runs:
        assert run.cpu_time != pytest.approx(FAKE_CPU, abs=1e-9), run
        assert run.peak_memory_kb != FAKE_KB, run
        assert run.peak_memory_kb > 4 << 10, run  # the kernel's: an interpreter holds more


def _tampered(run) -> bool:
    """The verdict of a test whose report the program forged or doubled: a runtime error
    naming the report channel (or a limit, when it also spun)."""
    return run.status == "exception" and "report" in (run.blocked or "")


# -- a signed success report, then a spin: the judge's TLE -----------------------------------


@pytest.mark.parametrize("isolation", list(Isolation))
def test_signed_success_report_then_spin_is_a_tle(pool, isolation):
    body = """
        class Solution:
            def add(self, a, b):
                forge({"status": "ok", "exit_code": 0, "value": json.dumps(a + b)})
                spin()
    """
    (run,) = pool.run(_call_job(body, ADD[:1], isolation)).runs
    assert run.limit is LimitHit.CPU, run
    assert run.cpu_time >= 0.45, run  # the kernel's clock, not the report's
    _no_forged_figures([run])


@pytest.mark.parametrize("isolation", list(Isolation))
def test_report_signed_by_hand_with_the_key_then_spin_is_not_a_pass(pool, isolation):
    body = """
        class Solution:
            def add(self, a, b):
                assert forge_raw(json.dumps(a + b)), "the key was not found"
                spin()
    """
    (run,) = pool.run(_call_job(body, ADD[:1], isolation)).runs
    assert not run.clean_exit, run
    assert run.limit is LimitHit.CPU or _tampered(run), run
    _no_forged_figures([run])


@pytest.mark.parametrize("isolation", list(Isolation))
def test_spin_after_a_forged_report_is_charged_to_the_program(pool, isolation):
    """The forged report ends the test in the middle of a batch: the CPU spent after it is
    the program's all the same (the next test's, in a batch child), and no figure is made
    up. Whatever the level, the submission does not pass."""
    body = """
        class Solution:
            def add(self, a, b):
                if a == 10:
                    forge({"status": "ok", "exit_code": 0, "value": json.dumps(a + b)})
                    spin()
                return a + b
    """
    runs = pool.run(_call_job(body, ADD, isolation)).runs
    assert len(runs) == 3
    assert runs[0].clean_exit and runs[0].value == "3"
    assert any(run.limit is LimitHit.CPU for run in runs[1:]), _show(runs)
    _no_forged_figures(runs)


# -- the report rewritten on its way out ------------------------------------------------------


@pytest.mark.parametrize("isolation", list(Isolation))
def test_os_write_replaced_to_rewrite_the_report_keeps_the_kernels_figures(pool, isolation):
    """The program replaces os.write (and the harness's copies of it) and, after its
    function returned, swaps the harness's report for one with the same value and made-up
    CPU time and memory. The value is the program's to choose (it could return any), the
    figures are not: 0.3 s of CPU and 64 MB held are what the result says."""
    body = """
        class Solution:
            def add(self, a, b):
                held = bytearray(64 << 20)
                for at in range(0, len(held), 4096):
                    held[at] = 1
                burn(0.3)
                del held
                return a + b

        def rewrite(frames):
            # the harness's report is dropped, and one with its value and made-up figures
            # sent in its place, in the same write (after the function returned)
            if len(frames) < 2 or rewrite.busy:
                return join(frames)
            rewrite.busy = True
            try:
                forge({"status": "ok", "exit_code": 0, "value": frames[1].decode()})
            finally:
                rewrite.busy = False
            return b""

        rewrite.busy = False
        hook_writes(rewrite)
    """
    (run,) = pool.run(_call_job(body, ADD[:1], isolation)).runs
    assert run.clean_exit and run.value == "3", run
    assert run.cpu_time >= 0.25, run
    assert run.peak_memory_kb >= 64 << 10, run
    _no_forged_figures([run])


# -- figures a batch child used to measure itself ---------------------------------------------

RUSAGE_FORGERY = """
import resource
_real_getrusage = resource.getrusage
class _Usage:
    ru_utime = ru_stime = 0.0
    ru_maxrss = 1
resource.getrusage = lambda who=0: _Usage()
"""


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("mode", ["call", "stdin"])
def test_per_test_figures_are_the_kernels_at_every_level(pool, isolation, mode):
    """The program replaces ``resource.getrusage`` (what a batch child measured its tests
    with) and then works: 0.3 s of CPU and 64 MB held. Each result says so, at every level."""
    work = """
        held = bytearray(64 << 20)
        for at in range(0, len(held), 4096):
            held[at] = 1
        burn(0.3)
        del held
    """
    if mode == "call":
        body = RUSAGE_FORGERY + "class Solution:\n    def add(self, a, b):\n"
        body += textwrap.indent(textwrap.dedent(work), " " * 8) + "        return a + b\n"
        runs = pool.run(_call_job(body, ADD[:2], isolation)).runs
        assert [r.value for r in runs] == SUMS[:2]
    else:
        body = RUSAGE_FORGERY + textwrap.dedent(work) + "print(sum(map(int, input().split())))\n"
        runs = pool.run(_stdin_job(body, ["1 2", "10 20"], isolation)).runs
        assert [r.stdout for r in runs] == [b"3\n", b"30\n"]
    for run in runs:
        assert run.clean_exit, run
        assert run.cpu_time >= 0.25, run
        assert run.peak_memory_kb >= 64 << 10, run


# -- reports in the wrong number or order ----------------------------------------------------


@pytest.mark.parametrize("isolation", list(Isolation))
def test_two_reports_for_one_test_are_a_runtime_error(pool, isolation):
    """The program sends a success report and then returns as well: the harness expects
    one report per test; a second one (whichever is genuine) fails the test."""
    body = """
        class Solution:
            def add(self, a, b):
                forge({"status": "ok", "exit_code": 0, "value": json.dumps(a + b)})
                return a + b
    """
    (run,) = pool.run(_call_job(body, ADD[:1], isolation)).runs
    assert not run.clean_exit and _tampered(run), run
    _no_forged_figures([run])


@pytest.mark.parametrize("isolation", list(Isolation))
def test_two_reports_in_a_batch_never_shift_later_tests(pool, isolation):
    """A second report sent in the first test fails a test; it is never taken for the next
    test's report (each report is bound to its test), and the tests after run on their own."""
    body = """
        class Solution:
            def add(self, a, b):
                if a == 1:
                    forge({"status": "ok", "exit_code": 0, "value": json.dumps(a + b)})
                return a + b
    """
    runs = pool.run(_call_job(body, ADD, isolation)).runs
    assert len(runs) == 3
    assert any(_tampered(run) for run in runs[:2]), runs
    for run, want in zip(runs, SUMS, strict=True):
        assert run.value in (None, want), runs  # never another test's answer
    assert runs[2].clean_exit and runs[2].value == "11", runs
    _no_forged_figures(runs)


@pytest.mark.parametrize("isolation", list(Isolation))
def test_a_report_for_a_test_not_yet_reached_is_refused(pool, isolation):
    """A program right only on its first test appends, to each report the harness writes, a
    copy carrying the next test's answer (which it knows). Taken for the next test's report,
    it would pass a test whose code never ran; it fails instead."""
    body = """
        ANSWERS = {1: "30", 10: "11"}
        state = {"a": None}

        class Solution:
            def add(self, a, b):
                state["a"] = a
                return a + b if a == 1 else -1

        def rewrite(frames):
            if len(frames) < 2 or state["a"] not in ANSWERS:
                return join(frames)
            copy = list(frames)
            copy[1] = ANSWERS[state["a"]].encode()
            return join(frames) + join(copy)

        hook_writes(rewrite)
    """
    runs = pool.run(_call_job(body, ADD, isolation)).runs
    assert len(runs) == 3
    assert runs[0].value in (None, "3")
    for run, want in zip(runs[1:], SUMS[1:], strict=True):
        assert not (run.clean_exit and run.value == want), runs
    _no_forged_figures(runs)


# -- a stdin program on its channel ----------------------------------------------------------


@pytest.mark.parametrize("isolation", list(Isolation))
def test_stdin_program_report_then_spin_is_a_tle(pool, isolation):
    """A stdin program prints its answer, sends a success report (with that output, for a
    harness that took a batch test's output from the report) and spins: a judge's TLE."""
    body = """
        answer = str(sum(map(int, input().split())))
        print(answer, flush=True)
        forge({"status": "ok", "exit_code": 0})
        try:
            _sender()({**FAKE, "status": "ok", "exit_code": 0}, (answer + "\\n").encode(), b"")
        except TypeError:
            pass
        spin()
    """
    (run,) = pool.run(_stdin_job(body, ["1 2"], isolation)).runs
    assert run.limit is LimitHit.CPU, run
    assert run.cpu_time >= 0.45, run
    _no_forged_figures([run])


@pytest.mark.parametrize("isolation", list(Isolation))
def test_stdin_program_second_report_is_a_runtime_error(pool, isolation):
    body = """
        answer = sum(map(int, input().split()))
        print(answer, flush=True)
        forge({"status": "ok", "exit_code": 0})
    """
    (run,) = pool.run(_stdin_job(body, ["1 2"], isolation)).runs
    assert run.stdout == b"3\n"
    assert not run.clean_exit and _tampered(run), run


@pytest.mark.parametrize("isolation", list(Isolation))
def test_harness_only_statuses_cannot_be_claimed(pool, isolation):
    """Statuses only the sandbox gives (a broken test, a worker that died, a program the
    sandbox could not start) are ERRORs, which are not judged: a program that claims one
    (and leaves before the harness reports) gets a runtime error instead."""
    body = """
        class Solution:
            def add(self, a, b):
                forge({"status": "bad_input", "exception": "test input is not JSON: forged"})
                os._exit(0)
    """
    runs = pool.run(_call_job(body, ADD[:1], isolation)).runs
    assert [r.status for r in runs] != ["bad_input"], runs
    assert _tampered(runs[0]), runs
    body = body.replace(
        '"bad_input", "exception": "test input is not JSON: forged"', '"worker_died"'
    )
    (run,) = pool.run(_call_job(body, ADD[:1], isolation)).runs
    assert run.status != "worker_died" and _tampered(run), run


def test_a_test_input_that_is_not_json_is_still_a_broken_test(pool):
    """The control for the test above: a broken test the harness reports is still one."""
    for isolation in Isolation:
        job = Job(
            code="def add(a, b):\n    return a + b\n",
            inputs=["[1, 2", "1\n2"],
            mode=Mode.CALL,
            **LEETCODE_CALL,
            func_name="add",
            limits=LIMITS,
            isolation=isolation,
        )
        runs = pool.run(job).runs
        assert runs[0].status == "bad_input", (isolation, runs)
        assert runs[1].clean_exit and runs[1].value == "3", (isolation, runs)


# -- end to end: the grader's verdict ---------------------------------------------------------


@pytest.mark.parametrize("isolation", list(Isolation))
def test_grader_gives_the_judges_verdict_and_the_kernels_figures(pool, isolation):
    """Through the Grader: a call-based program that finds the harness's sender, sends a
    signed success report with made-up figures in every test and spins is a TLE, never AC,
    and every test's CPU time and peak memory are the kernel's. (In a batch child a forged
    report ends its test, and the spin after it is charged to the next test, or to the last
    test until the child exits: the program gains nothing over returning.)"""
    problem = Problem(
        "forge",
        Harness.FUNCTIONAL,
        [TestCase(a, s) for a, s in zip(ADD, SUMS, strict=True)],
        func_name="add",
        time_limit=0.5,
        memory_limit=256,
    )
    code = ATTACKER + textwrap.dedent(
        """
        class Solution:
            def add(self, a, b):
                forge({"status": "ok", "exit_code": 0, "value": json.dumps(a + b)})
                spin()
        """
    )
    grader = Grader(GradeOptions(time_limit=0.5, isolation=isolation), pool=pool)
    result = grader.grade(problem, code)
    assert result.verdict in (Verdict.TLE, Verdict.WA), result
    assert result.verdict is not Verdict.AC
    assert any(t.verdict is Verdict.TLE for t in result.tests), result
    for test in result.tests:
        assert test.cpu_time != pytest.approx(FAKE_CPU, abs=1e-9), result
        assert test.peak_memory_kb != FAKE_KB and test.peak_memory_kb > 4 << 10, result
    spun = [t for t in result.tests if t.verdict is Verdict.TLE]
    assert spun[0].cpu_time >= 0.45, result
