"""Issue 44, classes 3 and 4: nothing a worker reuses carries a program's marks, and no tree a
program leaves defeats the cleanup. Real programs in the real sandbox, Python and C++, at every
isolation level.

- The run directory (one per worker, reused by every child) and the stdio memfds: a program
  that sets a mode, extended attributes, times, inode flags, a write hint, or the owner,
  signal, status flags or lease of a stream's description, leaves nothing of it for the next
  test or the next submission to see (the server puts the directory back as made, and checks
  it; a job's memfds are its own, made afresh for each child at ``test`` isolation and put
  back between a batch child's tests).
- A directory chain deeper than ``PATH_MAX`` (and than Python's recursion limit) is removed
  after the program, between a batch child's tests too; the programs after it on the same
  worker are graded right; the watchdog counts what is hidden at its bottom (and empty
  directories: each entry counts a page) and stops a program past its memory limit; a run
  directory that cannot be emptied within bounds retires the worker cleanly (the job goes on
  in a fresh one, no submission is graded ERROR); nothing of a worker is left on the host
  after the pool closes, even when a server was killed with the chain in place.

Each test here fails on the engine before this change (``clear_dir`` walked full paths,
recursively, and nothing put the directory or the memfds back).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from evaluator.languages.builds import Builder
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, Job, Limits, SandboxPool
from evaluator.sandbox import pool as pool_module
from evaluator.sandbox.files import clearing, marks, sizes
from tests.cpp.plain import BUILD_LIMITS, CPP

ISOLATIONS = list(Isolation)

# -- programs ----------------------------------------------------------------------------------

# "mark": set every mark a program can set on its run directory and on fds 0-2 (each attempt
# may be refused: then there is nothing to carry); "look": print what a program sees of them.
MARKS_PY = r"""
import fcntl, json, os

def flags(fd):
    try:
        return fcntl.ioctl(fd, 0x80086601, bytes(8))[:4].hex()
    except OSError as exc:
        return exc.errno

def hint(fd):
    try:
        return fcntl.fcntl(fd, 1035, bytes(8)).hex()
    except OSError as exc:
        return exc.errno

def look():
    d = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    st = os.fstat(d)
    seen = {"dir": [oct(st.st_mode), sorted(os.listxattr(d)), flags(d), hint(d),
                    st.st_mtime_ns // 10**9 == 67890, st.st_atime_ns // 10**9 == 12345]}
    os.close(d)
    for fd in (0, 1, 2):
        st = os.fstat(fd)
        seen[str(fd)] = [oct(st.st_mode), sorted(os.listxattr(fd)), flags(fd), hint(fd),
                    fcntl.fcntl(fd, fcntl.F_GETFL) & (os.O_APPEND | os.O_NONBLOCK | os.O_ASYNC),
                    fcntl.fcntl(fd, 11), fcntl.fcntl(fd, 9), fcntl.fcntl(fd, 1025),
                    st.st_mtime_ns // 10**9 == 2, st.st_atime_ns // 10**9 == 1]
    return seen

def mark():
    done = []
    def attempt(name, call):
        try:
            call()
            done.append(name)
        except OSError:
            pass
    def chattr(fd):
        now = int.from_bytes(fcntl.ioctl(fd, 0x80086601, bytes(8))[:4], "little")
        fcntl.ioctl(fd, 0x40086602, (now | 0x40 | 0x80).to_bytes(8, "little"))
    attempt("dir-mode", lambda: os.chmod(".", 0o751))
    attempt("dir-xattr", lambda: os.setxattr(".", "user.mark", b"left by an earlier test"))
    attempt("dir-times", lambda: os.utime(".", (12345, 67890)))
    d = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    attempt("dir-flags", lambda: chattr(d))
    attempt("dir-hint", lambda: fcntl.fcntl(d, 1036, (3).to_bytes(8, "little")))
    os.close(d)
    for fd in (0, 1, 2):
        attempt(f"{fd}-mode", lambda: os.fchmod(fd, 0o640))
        attempt(f"{fd}-xattr", lambda: os.setxattr(fd, "user.mark", b"1"))
        attempt(f"{fd}-proc-xattr", lambda: os.setxattr(f"/proc/self/fd/{fd}", "user.proc", b"1"))
        attempt(f"{fd}-times", lambda: os.utime(fd, (1, 2)))
        attempt(f"{fd}-flags", lambda: chattr(fd))
        attempt(f"{fd}-hint", lambda: fcntl.fcntl(fd, 1036, (3).to_bytes(8, "little")))
        attempt(f"{fd}-signal", lambda: fcntl.fcntl(fd, 10, 12))
        attempt(f"{fd}-owner", lambda: fcntl.fcntl(fd, 8, os.getpid()))
        attempt(f"{fd}-lease", lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))
        attempt(f"{fd}-append", lambda: fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND))
    return done

command = input()
print(json.dumps(look() if command == "look" else mark(), sort_keys=True))
"""

MARKS_CPP = r"""
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cstdio>
#include <iostream>
#include <string>

static std::string attrs(int fd) {
    char names[4096];
    ssize_t n = flistxattr(fd, names, sizeof names);
    std::string out = "[";
    for (ssize_t at = 0; at < n; at += std::string(names + at).size() + 1) out += std::string(names + at) + " ";
    return out + "]";
}

static std::string look(int fd, bool stream) {
    struct stat st;
    fstat(fd, &st);
    int flags = -1;
    ioctl(fd, FS_IOC_GETFLAGS, &flags);
    unsigned long long hint = 99;
    fcntl(fd, F_GET_RW_HINT, &hint);
    char line[512];
    snprintf(line, sizeof line, "%o %s %x %llu %d %d", (unsigned)st.st_mode, attrs(fd).c_str(), flags,
             hint, st.st_mtime == 67890 || st.st_mtime == 2, st.st_atime == 12345 || st.st_atime == 1);
    std::string out = line;
    if (stream) {
        snprintf(line, sizeof line, " %d %d %d %d", fcntl(fd, F_GETFL) & (O_APPEND | O_NONBLOCK | O_ASYNC),
                 fcntl(fd, F_GETSIG), fcntl(fd, F_GETOWN), fcntl(fd, F_GETLEASE));
        out += line;
    }
    return out;
}

static void chattr(int fd, std::string &done, const char *name) {
    int flags = 0;
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
        flags |= FS_NODUMP_FL | FS_NOATIME_FL;
        if (ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0) done += name;
    }
}

int main() {
    std::string command;
    std::cin >> command;
    if (command == "look") {
        int dir = open(".", O_RDONLY | O_DIRECTORY);
        std::string out = "dir " + look(dir, false);
        close(dir);
        for (int fd = 0; fd < 3; ++fd) out += " | " + look(fd, true);
        printf("%s\n", out.c_str());
        return 0;
    }
    std::string done;
    struct timespec dir_times[2] = {{12345, 0}, {67890, 0}}, fd_times[2] = {{1, 0}, {2, 0}};
    unsigned long long hint = 3;
    if (chmod(".", 0751) == 0) done += "dir-mode ";
    if (setxattr(".", "user.mark", "1", 1, 0) == 0) done += "dir-xattr ";
    if (utimensat(AT_FDCWD, ".", dir_times, 0) == 0) done += "dir-times ";
    int dir = open(".", O_RDONLY | O_DIRECTORY);
    chattr(dir, done, "dir-flags ");
    if (fcntl(dir, F_SET_RW_HINT, &hint) == 0) done += "dir-hint ";
    close(dir);
    for (int fd = 0; fd < 3; ++fd) {
        std::string n = std::to_string(fd);
        if (fchmod(fd, 0640) == 0) done += n + "-mode ";
        if (fsetxattr(fd, "user.mark", "1", 1, 0) == 0) done += n + "-xattr ";
        if (futimens(fd, fd_times) == 0) done += n + "-times ";
        chattr(fd, done, (n + "-flags ").c_str());
        if (fcntl(fd, F_SET_RW_HINT, &hint) == 0) done += n + "-hint ";
        if (fcntl(fd, F_SETSIG, 12) == 0) done += n + "-signal ";
        if (fcntl(fd, F_SETOWN, getpid()) == 0) done += n + "-owner ";
        if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) done += n + "-lease ";
        if (fcntl(fd, F_SETFL, O_APPEND) == 0) done += n + "-append ";
    }
    printf("%s\n", done.c_str());
}
"""

DEPTH = 1500  # "dd/" x 1500: 4,500 bytes of path below the run directory, past PATH_MAX
CHAIN_PY = f"""
import os
for _ in range({DEPTH}):
    os.mkdir("dd")
    os.chdir("dd")
with open("deep.txt", "w") as out:
    out.write("hidden")
print("built")
"""
CHAIN_CPP = f"""
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
int main() {{
    for (int i = 0; i < {DEPTH}; ++i)
        if (mkdir("dd", 0700) != 0 || chdir("dd") != 0) {{ puts("failed"); return 1; }}
    FILE *out = fopen("deep.txt", "w");
    fputs("hidden", out);
    fclose(out);
    puts("built");
}}
"""
# Builds the chain through directory descriptors (the working directory stays: adaptive
# isolation keeps the child) on "build"; lists the run directory on "look".
CHAIN_BETWEEN_TESTS_PY = f"""
import os
if input() == "build":
    fd = os.open(".", os.O_RDONLY)
    for _ in range({DEPTH}):
        os.mkdir("dd", dir_fd=fd)
        deeper = os.open("dd", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.close(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    os.close(fd)
print(sorted(os.listdir(".")))
"""
ECHO = "print(input())"
# files at the bottom of a chain past PATH_MAX, 1.2 GB in all under a 64 MB limit
HIDDEN_FILES_PY = f"""
import os
for _ in range({DEPTH}):
    os.mkdir("dd")
    os.chdir("dd")
chunk = b"x" * (1 << 20)
for n in range(20):
    with open(f"hog{{n}}.bin", "wb") as out:
        for _ in range(60):
            out.write(chunk)
print("done")
"""
HIDDEN_FILES_CPP = f"""
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
int main() {{
    for (int i = 0; i < {DEPTH}; ++i)
        if (mkdir("dd", 0700) != 0 || chdir("dd") != 0) return 1;
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    for (int n = 0; n < 20; ++n) {{
        char name[32];
        snprintf(name, sizeof name, "hog%d.bin", n);
        FILE *out = fopen(name, "wb");
        for (int i = 0; i < 60; ++i) fwrite(chunk, 1, sizeof chunk, out);
        fclose(out);
    }}
    puts("done");
}}
"""
# empty files and directories only: no byte of data, each an inode and a directory entry
# (this makes 60,100 entries; 32 MB, less the interpreter's own memory, is 5,000 pages or so)
EMPTY_ENTRIES_PY = """
import os
for d in range(100):
    os.mkdir(f"d{d}")
    for f in range(600):
        os.close(os.open(f"d{d}/f{f}", os.O_WRONLY | os.O_CREAT, 0o600))
print("done")
"""
HOLD_LIMIT_MB = 64


# -- fixtures ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def builder():
    with Builder(workers=1, limits=BUILD_LIMITS) as shared:
        yield shared


@pytest.fixture(scope="module")
def cpp(builder):
    """``cpp(source)``: the program's binary (its build must succeed)."""

    def build(source: str) -> bytes:
        made = builder.submit(CPP, source, CPP.default_flags).result()
        assert made.ok, made.output
        return made.binary

    return build


@pytest.fixture
def pools(tmp_path):
    """``pools()``: a one-worker pool of this test's own (its workers' directories in
    ``tmp_path``), closed at the end: the test may retire or kill its workers, and checks that
    nothing of them is left once it is closed."""
    made: list[SandboxPool] = []

    def make() -> SandboxPool:
        made.append(SandboxPool(workers=1, tmp_dir=tmp_path))
        return made[-1]

    yield make
    for pool in made:
        pool.close()


def _worker_dirs(where: Path) -> list[Path]:
    return sorted(where.glob("mcsbx-*"))


def _left_in_runs(where: Path) -> list[list[str]]:
    """What each worker's run directory holds now."""
    return [sorted(os.listdir(path / "run")) for path in _worker_dirs(where)]


def _echo_job(isolation: Isolation) -> Job:
    return Job(ECHO, ["first", "second", "third"], isolation=isolation)


def _assert_echoed(result) -> None:
    assert [run.stdout for run in result.runs] == [b"first\n", b"second\n", b"third\n"]
    assert all(run.clean_exit for run in result.runs), result.runs


# -- class 3: nothing reused carries a mark ------------------------------------------------------


def _compare(before, after, marked) -> None:
    """``marked``: what the marking program managed to set (the sandbox may refuse some: a
    child that does not own its run directory cannot chmod it); none of it may be seen."""
    assert after == before, f"marks set ({marked}) are seen by a later program"


# Each test has a worker of its own, one (so that a job runs where the one before it ran) that
# no earlier test marked: what the first program sees is what a fresh worker gives.


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_python_programs_marks_do_not_reach_its_next_test(pools, isolation):
    one_worker = pools()
    result = one_worker.run(Job(MARKS_PY, ["look", "mark", "look"], isolation=isolation))
    assert all(run.clean_exit for run in result.runs), result.runs
    before, marked, after = (json.loads(run.stdout) for run in result.runs)
    _compare(before, after, marked)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_python_programs_marks_do_not_reach_the_next_submission(pools, isolation):
    one_worker = pools()
    before = one_worker.run(Job(MARKS_PY, ["look"], isolation=isolation)).runs[0]
    marker = one_worker.run(Job(MARKS_PY, ["mark"], isolation=isolation)).runs[0]
    after = one_worker.run(Job(MARKS_PY, ["look"], isolation=isolation)).runs[0]
    assert before.clean_exit and marker.clean_exit and after.clean_exit
    _compare(json.loads(before.stdout), json.loads(after.stdout), marker.stdout)


# The same marks set on the child's own /tmp (a root grader's: tests/sandbox/test_private_tmp.py),
# which the server puts back with the run directory.
MARKS_ON_TMP_PY = "import os\nos.chdir('/tmp')\n" + MARKS_PY


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_python_programs_marks_on_tmp_reach_no_later_test_or_submission(pools, isolation):
    one_worker = pools()
    if not one_worker.info.get("private_tmp"):
        pytest.skip("the children's own /tmp needs a root grader (a mount namespace)")
    result = one_worker.run(Job(MARKS_ON_TMP_PY, ["look", "mark", "look"], isolation=isolation))
    assert all(run.clean_exit for run in result.runs), result.runs
    before, marked, after = (json.loads(run.stdout) for run in result.runs)
    _compare(before, after, marked)
    later = one_worker.run(Job(MARKS_ON_TMP_PY, ["look"], isolation=isolation)).runs[0]
    _compare(before, json.loads(later.stdout), marked)


def test_a_cpp_programs_marks_do_not_reach_its_next_test_or_submission(pools, cpp):
    binary = cpp(MARKS_CPP)
    one_worker = pools()

    def run(*commands: str):
        job = Job(code="", inputs=list(commands), executable=binary, argv=CPP.argv())
        result = one_worker.run(job)
        assert all(r.clean_exit for r in result.runs), result.runs
        return [r.stdout.decode() for r in result.runs]

    before, marked, after = run("look", "mark", "look")
    _compare(before, after, marked)
    (marked,) = run("mark")
    (later,) = run("look")
    _compare(before, later, marked)


def test_a_run_directory_and_a_memfd_are_put_back_as_made(tmp_path):
    """Marks, directly: every mark set is undone, and what cannot be undone is reported."""
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY)
    stream = os.memfd_create("io")
    try:
        made, made_stream = marks.Marks(fd), marks.Marks(stream, stream=True)
        look = (os.fstat(fd).st_mode, os.listxattr(fd), os.fstat(fd).st_mtime_ns)
        os.fchmod(fd, 0o1757)
        os.setxattr(fd, "user.mark", b"1")
        os.utime(fd, (1, 2))
        os.fchmod(stream, 0o600)
        os.setxattr(stream, "user.mark", b"1")
        fcntl.fcntl(stream, fcntl.F_SETFL, os.O_APPEND)
        fcntl.fcntl(stream, 10, 12)  # F_SETSIG
        assert made.restore(fd) is None
        assert (os.fstat(fd).st_mode, os.listxattr(fd), os.fstat(fd).st_mtime_ns) == look
        assert made_stream.restore(stream) is None
        assert os.fstat(stream).st_mode & 0o7777 == 0o777 and os.listxattr(stream) == []
        assert fcntl.fcntl(stream, fcntl.F_GETFL) & os.O_APPEND == 0
        assert fcntl.fcntl(stream, 11) == 0
        # a directory that grew (ext4 never shrinks one) cannot be put back: it says so
        size = os.fstat(fd).st_size
        for n in range(3000):
            (run_dir / f"entry-{n:05}").touch()
        clearing.clear_dir(fd)
        grown = os.fstat(fd).st_size != size
        assert (made.restore(fd) is not None) == grown
    finally:
        os.close(fd)
        os.close(stream)


# -- class 4: cleanup that cannot be defeated ----------------------------------------------------


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_chain_deeper_than_path_max_is_removed_and_later_programs_are_graded_right(
    pools, tmp_path, isolation
):
    pool = pools()
    chain = pool.run(Job(CHAIN_PY, [""], isolation=isolation)).runs[0]
    assert chain.clean_exit and chain.stdout == b"built\n", chain
    for _ in range(3):
        _assert_echoed(pool.run(_echo_job(isolation)))
    assert pool.restarts == 0
    assert len(_worker_dirs(tmp_path)) == 1  # the same worker all along
    assert _left_in_runs(tmp_path) == [[]]
    pool.close()
    assert list(tmp_path.iterdir()) == []  # nothing of the worker left on the host


def test_a_cpp_chain_deeper_than_path_max_is_removed_and_later_programs_are_graded_right(
    pools, tmp_path, cpp
):
    pool = pools()
    job = Job(code="", inputs=["", ""], executable=cpp(CHAIN_CPP), argv=CPP.argv())
    chain = pool.run(job)
    assert [r.stdout for r in chain.runs] == [b"built\n", b"built\n"]  # the second one too:
    assert all(r.clean_exit for r in chain.runs)  # the first chain was gone before it
    for isolation in ISOLATIONS:
        _assert_echoed(pool.run(_echo_job(isolation)))
    assert pool.restarts == 0
    assert _left_in_runs(tmp_path) == [[]]
    pool.close()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("isolation", [Isolation.ADAPTIVE, Isolation.SUBMISSION])
def test_a_chain_is_removed_between_a_batch_childs_tests(pools, tmp_path, isolation):
    pool = pools()
    result = pool.run(Job(CHAIN_BETWEEN_TESTS_PY, ["build", "look", "look"], isolation=isolation))
    assert [r.stdout for r in result.runs] == [b"['dd']\n", b"[]\n", b"[]\n"], result.runs
    assert all(r.clean_exit for r in result.runs)
    assert result.runs[0].changed is None  # the same child ran the next test
    _assert_echoed(pool.run(_echo_job(isolation)))
    assert pool.restarts == 0
    pool.close()
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def hold_graders(pools):
    pool = pools()
    made = {
        isolation: Grader(
            # a generous wall clock: a program starved by a loaded machine is still ended by
            # the watchdog, not by the backstop
            GradeOptions(
                time_limit=10,
                memory_limit=HOLD_LIMIT_MB,
                isolation=isolation,
                wall_factor=2.0,
                wall_slack=60.0,
            ),
            pool=pool,
        )
        for isolation in Isolation
    }
    yield made
    for grader in made.values():
        grader.close()


HOLD = Problem("hold", Harness.STDIN, [TestCase("", "done\n")], memory_limit=HOLD_LIMIT_MB)
HIDDEN = {
    f"python-{isolation.value}": (HIDDEN_FILES_PY, None, isolation) for isolation in Isolation
} | {"cpp": (HIDDEN_FILES_CPP, "cpp", Isolation.TEST)}


@pytest.mark.parametrize(("code", "language", "isolation"), HIDDEN.values(), ids=HIDDEN.keys())
def test_files_hidden_past_path_max_count_toward_memory(hold_graders, code, language, isolation):
    result = hold_graders[isolation].grade(HOLD, code, language)
    test = result.tests[0]
    assert result.verdict is Verdict.MLE, (result.verdict, test.message)
    assert test.stdout == ""  # stopped before it finished
    assert test.peak_memory_kb >= HOLD_LIMIT_MB << 10
    assert hold_graders[isolation].pool.restarts == 0


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_empty_files_and_directories_count_toward_memory(hold_graders, isolation):
    problem = Problem("entries", Harness.STDIN, [TestCase("", "done\n")], memory_limit=32)
    result = hold_graders[isolation].grade(problem, EMPTY_ENTRIES_PY)
    assert result.verdict is Verdict.MLE, (result.verdict, result.tests[0].message)
    assert hold_graders[isolation].pool.restarts == 0


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_run_directory_past_the_cleanups_bounds_retires_the_worker(
    monkeypatch, pools, tmp_path, isolation
):
    """Past the bounds (made tiny here: 100 entries) the server retires after the test's
    result; the job goes on in a fresh worker and no test or later submission is lost."""
    monkeypatch.setattr(pool_module, "CLEAR_LIMITS", {"clear_entries": 100, "clear_seconds": 5})
    pool = pools()
    many = "for n in range(300):\n    open(f'f{n}', 'w').close()\nprint(input())\n"
    result = pool.run(Job(many, ["first", "second", "third"], isolation=isolation))
    _assert_echoed(result)
    assert pool.retirements >= 2 and pool.restarts == 0 and result.worker_restarts == 0
    for later in ISOLATIONS:
        _assert_echoed(pool.run(_echo_job(later)))
    assert pool.restarts == 0
    assert _left_in_runs(tmp_path) == [[]]  # the retired workers' directories are gone
    pool.close()
    assert list(tmp_path.iterdir()) == []


def test_nothing_is_left_on_the_host_when_a_server_dies_over_a_chain(pools, tmp_path):
    """The server is killed from outside while its program sleeps at the bottom of a chain
    deeper than PATH_MAX: the pool removes the worker's directory (the same walk), goes on
    in a fresh worker, and the pool's thread keeps grading later submissions right."""
    pool = pools()
    server = pool.info["pid"]
    sleeper = CHAIN_PY.replace(
        'print("built")', 'print("built", flush=True)\nimport time\ntime.sleep(60)'
    )
    future = pool.submit(Job(sleeper, [""], limits=Limits(time_limit=3.0, wall_limit=6.0)))
    deadline = time.monotonic() + 30
    while not any((path / "run" / "dd").exists() for path in _worker_dirs(tmp_path)):
        assert time.monotonic() < deadline, "the chain was never built"
        time.sleep(0.05)
    time.sleep(0.5)  # the chain is complete
    os.kill(server, signal.SIGKILL)
    result = future.result(timeout=60)
    assert result.worker_restarts == 1 and result.runs[0].limit == "wall"
    for isolation in ISOLATIONS:
        _assert_echoed(pool.run(_echo_job(isolation)))
    assert len(_worker_dirs(tmp_path)) == 1  # the killed server's directory is gone
    pool.close()
    assert list(tmp_path.iterdir()) == []


# -- the walks themselves ------------------------------------------------------------------------


def _chain(top: Path, depth: int, name: str = "dddd") -> int:
    """A chain ``depth`` deep below ``top`` (made through descriptors: past PATH_MAX); the
    descriptor of its bottom."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        deeper = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    return fd


def test_the_walks_reach_any_depth_without_recursion_or_links(tmp_path):
    top, outside = tmp_path / "top", tmp_path / "outside"
    top.mkdir()
    outside.mkdir()
    (outside / "keep").write_text("host file")
    bottom = _chain(top, 3000)
    with open(os.open("big", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=bottom), "wb") as out:
        out.write(b"x" * (4 << 20))
    os.symlink(outside, "link", dir_fd=bottom)
    os.mkdir("locked", 0, dir_fd=bottom)
    os.close(bottom)
    os.symlink(outside, top / "toplink")
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)  # no recursion at all
    try:
        counted = sizes.tree_bytes(fd, 1 << 40)
        assert counted >= (4 << 20) + 3000 * sizes.ENTRY_BYTES
        assert sizes.tree_bytes(fd, 1 << 20) <= (1 << 20) + (8 << 20)  # stops early
        with pytest.raises(clearing.Unclean):
            clearing.clear_dir(fd, entries=500)  # bounded
        assert clearing.clear_dir(fd) > 3000
        assert os.listdir(fd) == []
        assert (outside / "keep").read_text() == "host file"  # never followed a link
        os.close(_chain(top, 2500))
        clearing.remove_tree(str(top))
    finally:
        sys.setrecursionlimit(limit)
        os.close(fd)
    assert sorted(os.listdir(tmp_path)) == ["outside"]
