"""Memory the limit must count however a program holds it: shared mappings (which RLIMIT_DATA
does not count), files in its run directory, memfds (refused: nothing could count them). Each
program below would hold 1.2 GB under a 256 MB limit; each is stopped, or refused, long before.
Python and C++ alike, at every isolation level."""

from __future__ import annotations

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation

LIMIT_MB = 256
PROBLEM = Problem("hold", Harness.STDIN, [TestCase("", "done\n")], memory_limit=LIMIT_MB)

PY_SHARED_MMAP = """
import mmap
block = mmap.mmap(-1, 1200 << 20)  # MAP_SHARED | MAP_ANONYMOUS: outside RLIMIT_DATA
for at in range(0, 1200 << 20, 4096):
    block[at] = 1
print("done")
"""
PY_FILES = """
chunk = b"x" * (1 << 20)
for n in range(20):
    with open(f"hog{n}.bin", "wb") as out:
        for _ in range(60):
            out.write(chunk)
print("done")
"""
PY_NESTED_FILES = """
import os
chunk = b"x" * (1 << 20)
for n in range(20):
    os.makedirs(f"a/b{n}/c", exist_ok=True)
    with open(f"a/b{n}/c/hog.bin", "wb") as out:
        for _ in range(60):
            out.write(chunk)
print("done")
"""
PY_MEMFD = """
import os
try:
    os.memfd_create("hog")
    print("made")
except PermissionError:
    print("refused")
"""
PY_SMALL_FILE = """
with open("scratch.txt", "w") as out:
    out.write("x" * (8 << 20))
print(open("scratch.txt").read().count("x") // (1 << 20), "MB")
"""

CPP_SHARED_MMAP = r"""
#include <sys/mman.h>
#include <cstdio>
int main() {
    long n = 1200L << 20;
    char *p = (char *)mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    for (long i = 0; i < n; i += 4096) p[i] = 1;
    puts("done");
}
"""
CPP_FILES = r"""
#include <cstdio>
#include <cstring>
int main() {
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    for (int n = 0; n < 20; n++) {
        char name[32];
        snprintf(name, sizeof name, "hog%d.bin", n);
        FILE *out = fopen(name, "wb");
        for (int i = 0; i < 60; i++) fwrite(chunk, 1, sizeof chunk, out);
        fclose(out);
    }
    puts("done");
}
"""
CPP_MEMFD = r"""
#include <sys/mman.h>
#include <cerrno>
#include <cstdio>
int main() { int fd = memfd_create("hog", 0); puts(fd < 0 && errno == EPERM ? "refused" : "made"); }
"""


@pytest.fixture(scope="module")
def graders(pool):
    made = {
        isolation: Grader(GradeOptions(time_limit=10, isolation=isolation), pool=pool)
        for isolation in Isolation
    }
    yield made
    for grader in made.values():
        grader.close()


PYTHON_HOGS = {
    "python-shared-mmap": PY_SHARED_MMAP,
    "python-files": PY_FILES,
    "python-nested-files": PY_NESTED_FILES,
}
CPP_HOGS = {"cpp-shared-mmap": CPP_SHARED_MMAP, "cpp-files": CPP_FILES}
# (code, language, isolation): Python at every level; a built program runs in a fresh
# process per test, whatever the level
HOGS = {
    f"{name}-{isolation.value}": (code, None, isolation)
    for name, code in PYTHON_HOGS.items()
    for isolation in Isolation
} | {name: (code, "cpp", Isolation.TEST) for name, code in CPP_HOGS.items()}


@pytest.mark.parametrize(("code", "language", "isolation"), HOGS.values(), ids=HOGS.keys())
def test_what_a_program_holds_outside_its_heap_counts(graders, code, language, isolation):
    result = graders[isolation].grade(PROBLEM, code, language)
    test = result.tests[0]
    assert result.verdict is Verdict.MLE, (result.verdict, test.message)
    assert test.stdout == ""  # stopped before it finished holding 1.2 GB
    assert LIMIT_MB << 10 <= test.peak_memory_kb < 1000 << 10  # what it held when stopped


@pytest.mark.parametrize(("code", "language"), [(PY_MEMFD, None), (CPP_MEMFD, "cpp")])
def test_memfds_are_refused(graders, code, language):
    problem = Problem("memfd", Harness.STDIN, [TestCase("", "refused\n")])
    assert graders[Isolation.TEST].grade(problem, code, language).verdict is Verdict.AC


def test_a_program_may_still_use_a_file_within_the_limit(graders):
    problem = Problem("scratch", Harness.STDIN, [TestCase("", "8 MB\n")], memory_limit=LIMIT_MB)
    for grader in graders.values():
        assert grader.grade(problem, PY_SMALL_FILE).verdict is Verdict.AC
