"""A program must find nothing of other submissions in its own address space.

Every child is forked, so it starts as a copy of the process that forked it. The process that
talks to the pool holds every job's code and every test's output (in live objects and in freed
memory it has not reused yet); if children were forked from it, a program could read a sibling
completion's answers with ``ctypes.string_at`` and print them (reward hacking). Children are
forked from a template that never sees job data; these tests scan a child's memory for an
earlier job's code and output, and for the tests of an assertion problem."""

from __future__ import annotations

import textwrap
import zlib

import pytest

from evaluator.sandbox import Isolation, Job, Limits, Mode, SandboxPool

PREFIX = "MCLEAK"  # every needle starts with it; a needle as a whole is never in the scanner
LIMITS = Limits(cpu_time=20.0, wall_time=60.0, memory_mb=1024)

# The earlier submission: its output and a comment in its code are the needles.
EARLIER = "# MCLEAK-src-77\nprint('MCLEAK' + '-out-' + str(6 * 7 * 1000 + 13))\n"
NEEDLES = {"code": "MCLEAK-src-77", "output": "MCLEAK-out-42013", "control": "MCLEAK-ctl-77005"}

# Reads every page it can reach: the brk heap (downwards from sbrk(0)), every 1 MiB block
# around a live object (pymalloc arenas), and the buffers of big objects. A page is probed
# with pwrite from it (EFAULT, not a crash, when unmapped). Needles are matched by CRC, so the
# scanner never holds one; a live control string it builds at run time proves the scan works.
SCANNER = """
import ctypes, gc, os, sys, zlib

WANTED = {WANTED}
PREFIX = {PREFIX!r}.encode()
control = {PREFIX!r} + "-ctl-" + str(7 * 11 * 1000 + 5)
libc = ctypes.CDLL(None, use_errno=True)
libc.sbrk.restype = ctypes.c_void_p
libc.sbrk.argtypes = [ctypes.c_long]
libc.pwrite.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
probe = os.open("probe", os.O_RDWR | os.O_CREAT, 0o600)
PAGE = 4096


def readable(page):
    return libc.pwrite(probe, page, 1, 0) == 1


pages, blocks = set(), set()
top = libc.sbrk(0) & ~(PAGE - 1)
page = top - PAGE
while top - page < 1 << 30 and readable(page):
    pages.add(page)
    page -= PAGE
objects = gc.get_objects()
for obj in list(objects):
    objects.extend(gc.get_referents(obj))
for obj in objects:
    blocks.add(id(obj) >> 20)
    size = sys.getsizeof(obj, 0)
    if size > PAGE:
        pages.update(range(id(obj) & ~(PAGE - 1), id(obj) + size, PAGE))
    if isinstance(obj, bytearray) and len(obj):
        start = ctypes.addressof((ctypes.c_char * 1).from_buffer(obj))
        pages.update(range(start & ~(PAGE - 1), start + len(obj), PAGE))
del objects, obj
for block in blocks:
    pages.update(range((block - 1) << 20, (block + 2) << 20, PAGE))
found = set()
for page in sorted(pages):
    if not readable(page):
        continue
    blob = ctypes.string_at(page, 2 * PAGE if readable(page + PAGE) else PAGE)
    at = blob.find(PREFIX, 0, PAGE)
    while at != -1:
        for length, crc, name in WANTED:
            if zlib.crc32(blob[at : at + length]) == crc:
                found.add(name)
        at = blob.find(PREFIX, at + 1, PAGE)
print(sorted(found), len(pages), flush=True)
"""


def scanner(needles: dict[str, str]) -> str:
    wanted = [(len(text), zlib.crc32(text.encode()), name) for name, text in needles.items()]
    return SCANNER.replace("{WANTED}", repr(wanted)).replace("{PREFIX!r}", repr(PREFIX))


def _found(stdout: bytes) -> list[str]:
    names, pages = stdout.decode().rsplit(" ", 1)
    assert int(pages) > 1000, "the scan reached too little memory to mean anything"
    return eval(names)  # noqa: S307 - a list of names printed by our own scanner


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("mode", [Mode.STDIN, Mode.CALL])
def test_no_earlier_code_or_output_in_a_later_child(tmp_path, isolation, mode):
    scan = scanner(NEEDLES)
    if mode is Mode.CALL:  # the scan runs when the function is called
        scan = "def f(*args):\n" + textwrap.indent(scan, "    ") + "    return 0\n"
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        earlier = pool.run(Job(EARLIER, ["", ""], limits=LIMITS, isolation=isolation))
        assert earlier.runs[0].stdout == b"MCLEAK-out-42013\n"
        job = Job(scan, ["[]"], limits=LIMITS, isolation=isolation, mode=mode)
        job.func_name = "f" if mode is Mode.CALL else None
        run = pool.run(job).runs[0]
        assert run.clean_exit, run.stderr
        assert _found(run.stdout) == ["control"]  # its own live string: found; nothing else


@pytest.mark.parametrize("isolation", list(Isolation))
def test_candidate_does_not_see_the_assertion_tests(tmp_path, isolation):
    """Split assertion tests: the tests (with the expected values) run in a second child; the
    candidate's memory must hold none of them."""
    tests = "# MCLEAK-tst-55\ndef check(candidate):\n    assert candidate(1) == 'MCLEAK-exp-9'\n"
    needles = {"tests": "MCLEAK-tst-55", "expected": "MCLEAK-exp-9", "control": NEEDLES["control"]}
    candidate = scanner(needles) + "\ndef f(x):\n    return 'wrong'\n"
    job = Job(candidate, [""], mode=Mode.ASSERTION, func_name="f", limits=LIMITS)
    job.isolation, job.tests_code, job.preamble = isolation, tests, False
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        run = pool.run(job).runs[0]
    assert run.status == "exception" and run.exception == "AssertionError"  # the tests ran
    assert _found(run.stdout) == ["control"]
