"""A test's program sees only its own input (issue 30), at every isolation level, for stdin
and call-based tests alike.

Each test's input holds a marker that only it holds (``MCIN-<index>-<secret>``). Programs plant
nothing; they search what a program can reach for the other tests' markers: every descriptor
number (``fstat`` and ``pread`` at offset 0), ``/proc/self/fd``, ``/proc/self/maps`` with
``/proc/self/mem``, every object ``gc`` knows and, in a second program, every page of their own
memory (``ctypes``). Later tests' inputs must never be found (they enter the child only when
their test starts), nor earlier ones' (the harness empties its stdin memfd and wipes what it
decoded). A problem whose expected answer to test 0 is test 1's marker turns a leak into an
accepted verdict, and a program that drains every pipe it finds steals no input and costs only
its own run."""

from __future__ import annotations

import ast
import json
import secrets
import textwrap

import pytest

from evaluator.harness.conventions import LEETCODE_CALL
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, Job, Limits, Mode

TESTS = 4
SECRETS = [secrets.token_hex(8) for _ in range(TESTS)]
MARKERS = [f"MCIN-{i}-{SECRETS[i]}" for i in range(TESTS)]
# Test 0's input is big: what holds it is allocated apart (malloc, not a small-object pool),
# so a copy left behind would survive the later tests' small allocations.
PADDING = [1 << 16, 1, 2, 3]
LIMITS = Limits(time_limit=10.0, wall_limit=30.0)

# What a program searches, without reading its own input into Python objects of its own
# (stdin programs learn their test from fd 0's size; call-based ones from their argument).
# ``found`` collects (index, where) for every marker seen; the caller reports the others.
_SEARCH = r"""
import gc, os, re, stat
PATTERN = re.compile(rb"MCIN-(\d)-([0-9a-f]{16})")
found = set()


def look(data, where):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    for match in PATTERN.finditer(bytes(data)):
        found.add((int(match.group(1)), where))


for fd in range(1, 1024):  # fd 0 is this test's own input
    try:
        os.fstat(fd)
        look(os.pread(fd, 1 << 20, 0), f"fd {fd}")
    except OSError:
        pass
try:
    for name in os.listdir("/proc/self/fd"):
        try:
            with open(os.path.join("/proc/self/fd", name), "rb") as file:
                look(file.read(1 << 20), f"/proc/self/fd/{name}")
        except OSError:
            pass
except OSError:
    pass
try:
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            start, end = (int(x, 16) for x in line.split()[0].split("-"))
            try:
                mem.seek(start)
                look(mem.read(min(end - start, 1 << 24)), "/proc/self/mem")
            except (OSError, OverflowError, ValueError):
                pass
except OSError:
    pass
for obj in gc.get_objects():
    for item in [obj, *gc.get_referents(obj)]:
        if isinstance(item, (str, bytes, bytearray)) and len(item) >= 22:
            look(item, "gc")
del obj, item
"""


def _stdin_input(index: int) -> str:
    return MARKERS[index] + "\n" + "." * PADDING[index]  # its size tells the program its test


def _call_input(index: int) -> str:
    return json.dumps(MARKERS[index] + "." * PADDING[index])


SIZES = {len(_stdin_input(i)): i for i in range(TESTS)}
WHO_AM_I = f"import os\nME = {SIZES!r}[os.fstat(0).st_size]\n"
STDIN_PROGRAM = (
    WHO_AM_I
    + _SEARCH
    + "others = sorted({index for index, _ in found if index != ME})\n"
    + "print(others)\n"
)
CALL_PROGRAM = (
    "def f(marker):\n"
    "    me = int(marker[5])\n"
    + textwrap.indent(_SEARCH, "    ")
    + "    return sorted({index for index, _ in found if index != me})\n"
)


def _job(mode: Mode, isolation: Isolation, program: str | None = None) -> Job:
    if mode is Mode.STDIN:
        return Job(
            program or STDIN_PROGRAM,
            [_stdin_input(i) for i in range(TESTS)],
            limits=LIMITS,
            isolation=isolation,
        )
    return Job(
        program or CALL_PROGRAM,
        [_call_input(i) for i in range(TESTS)],
        mode=Mode.CALL,
        **LEETCODE_CALL,
        func_name="f",
        limits=LIMITS,
        isolation=isolation,
    )


def _found(run, mode: Mode) -> list[int]:
    assert run.clean_exit, run.stderr[-2000:]
    return json.loads(run.value) if mode is Mode.CALL else ast.literal_eval(run.stdout.decode())


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("mode", [Mode.STDIN, Mode.CALL])
def test_no_other_tests_input_in_any_descriptor_proc_file_or_object(pool, mode, isolation):
    runs = pool.run(_job(mode, isolation)).runs
    assert len(runs) == TESTS
    assert [_found(run, mode) for run in runs] == [[]] * TESTS


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("mode", [Mode.STDIN, Mode.CALL])
def test_no_other_tests_input_anywhere_in_the_childs_memory(pool, memory_scan, mode, isolation):
    """Every page the program can reach (``ctypes``): no marker but its own, before or after
    its test. The scan reads no descriptor: its own input never enters its objects."""
    needles = {str(i): MARKERS[i] for i in range(TESTS)}
    others = "sorted(set(found) - {str(ME), 'control'}), len(pages)"
    if mode is Mode.STDIN:
        program = WHO_AM_I + memory_scan(needles, f"print({others})\n", prefix="MCIN-")
    else:
        scan = memory_scan(needles, f"return [{others}]\n", prefix="MCIN-")
        body = "ME = int(marker[5])\n" + scan
        program = "def f(marker):\n" + textwrap.indent(body, "    ")
    for run in pool.run(_job(mode, isolation, program)).runs:
        assert run.clean_exit, run.stderr[-2000:]
        found, pages = json.loads(run.value) if mode is Mode.CALL else _scan_line(run.stdout)
        assert pages > 1000, "the scan reached too little memory to mean anything"
        assert found == []


def _scan_line(stdout: bytes):
    names, pages = stdout.decode().rsplit(" ", 1)
    return ast.literal_eval(names), int(pages)


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("mode", [Mode.STDIN, Mode.CALL])
def test_a_leak_would_be_an_accepted_answer_and_is_not(pool, mode, isolation):
    """Test 0's expected answer is test 1's marker: a program that prints the first later
    marker it finds would be accepted on it if a later input leaked. A plain run fails it."""
    if mode is Mode.STDIN:
        code = STDIN_PROGRAM.replace(
            "print(others)\n",
            "later = sorted(i for i in others if i > ME)\n"
            "print(FOUND[later[0]] if later else 'none')\n",
        )
        code = "FOUND = {}\n" + code.replace(
            "        found.add((int(match.group(1)), where))",
            "        found.add((int(match.group(1)), where))\n"
            "        FOUND[int(match.group(1))] = match.group(0).decode()",
        )
        tests = [
            TestCase(_stdin_input(i), (MARKERS[1] if i == 0 else "none") + "\n")
            for i in range(TESTS)
        ]
        problem = Problem("reveal", Harness.STDIN, tests)
    else:
        code = CALL_PROGRAM.replace(
            "    return sorted({index for index, _ in found if index != me})\n",
            "    later = sorted(i for i, _ in found if i > me)\n"
            "    return FOUND[later[0]] if later else 'none'\n",
        )
        code = "FOUND = {}\n" + code.replace(
            "            found.add((int(match.group(1)), where))",
            "            found.add((int(match.group(1)), where))\n"
            "            FOUND[int(match.group(1))] = match.group(0).decode()",
        )
        tests = [
            TestCase(_call_input(i), json.dumps(MARKERS[1] if i == 0 else "none"))
            for i in range(TESTS)
        ]
        problem = Problem("reveal", Harness.FUNCTIONAL, tests, func_name="f")
    grader = Grader(GradeOptions(time_limit=10.0, isolation=isolation), pool=pool)
    result = grader.grade(problem, code)
    assert [t.verdict for t in result.tests] == [Verdict.WA] + [Verdict.AC] * (TESTS - 1), result


DRAIN = r"""
import fcntl, os, re, stat
stolen = []
for fd in range(3, 1024):
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            continue
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        stolen.append(os.read(fd, 1 << 16))
    except OSError:
        pass
data = b"".join(stolen)
"""


@pytest.mark.parametrize("isolation", list(Isolation))
def test_reading_ahead_on_the_channels_breaks_only_its_own_run(pool, isolation):
    """A program that drains every pipe it can reach (the control pipe among them, set
    non-blocking) steals the go-ahead of its own next test at most, never an input: it may
    lose its own later tests, and the next program on the same workers is graded as ever."""
    code = DRAIN + (
        "found = sorted(set(re.findall(rb'MCIN-\\d-[0-9a-f]{16}', data)))\n"
        "print([m.decode() for m in found])\n"
    )
    job = Job(
        code,
        [_stdin_input(i) for i in range(TESTS)],
        limits=Limits(time_limit=2.0, wall_limit=4.0),
        isolation=isolation,
    )
    runs = pool.run(job).runs
    assert len(runs) == TESTS
    for index, run in enumerate(runs):
        # whatever it read, no other test's input was there; a test whose go-ahead it stole
        # may end with nothing written (its own run broken, as allowed), under load more often
        others = [m for j, m in enumerate(MARKERS) if j != index]
        assert not any(marker.encode() in run.stdout for marker in others)
        if run.clean_exit and run.stdout.strip():
            assert ast.literal_eval(run.stdout.decode()) == []
    after = pool.run(Job("print(input()[::-1])", ["abc", "xyz"], isolation=isolation)).runs
    assert [run.stdout for run in after] == [b"cba\n", b"zyx\n"]
