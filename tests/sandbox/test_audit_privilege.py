"""Issue 44's privilege classes, each an attack that got through the engine of before: a
child that was root (uid 0 without capabilities: the owner of every root-owned file, the same
user as every other child), kernel objects that outlive a child (System V IPC, POSIX message
queues), and more than one exec for a program file. Each attack below is refused here, by the
kernel: real programs in the real sandbox, Python and C++, at every isolation level.

Attacks only ever touch what the tests made for them: a root-owned file of their own, a
concurrent child of their own, IPC keys and queue names of their own (removed after, should
one be left on the host)."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from evaluator.languages.builds import Builder
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, Job, LimitHit, Limits
from evaluator.sandbox.profile import readable_paths
from tests.as_nobody import NOBODY, run_as_nobody
from tests.cpp.plain import BUILD_LIMITS, CPP

ROOT = os.geteuid() == 0
pytestmark = pytest.mark.skipif(not ROOT, reason="the attacks need a root grader to attack")

LEVELS = list(Isolation)
# Python at every isolation level; a program file runs in a fresh process per test whatever
# the level (Job.to_wire), so C++ once
WAYS = [(None, level) for level in LEVELS] + [("cpp", Isolation.TEST)]
WAY_IDS = [f"python-{level.value}" for level in LEVELS] + ["cpp"]
LIMITS = Limits(time_limit=2.0, wall_limit=8.0, memory_limit=256)


@pytest.fixture(scope="module")
def graders(pool):
    made = {
        isolation: Grader(GradeOptions(time_limit=5, isolation=isolation), pool=pool)
        for isolation in Isolation
    }
    yield made
    for grader in made.values():
        grader.close()


@pytest.fixture(scope="module")
def build():
    """``build(source)``: a C++ program's binary (g++, the language's default flags)."""
    with Builder(workers=2, limits=BUILD_LIMITS, prepare=False) as builder:

        def binary(source: str) -> bytes:
            done = builder.submit(CPP, source, CPP.default_flags).result()
            assert done.ok, done.output
            return done.binary

        yield binary


@pytest.fixture(scope="module")
def run(pool, build):
    """``run(code, language, inputs, isolation)``: the program's runs in the session's pool
    (every test's stdout is kept, where a grade keeps only a failing one's)."""

    def run_program(code, language, inputs, isolation=Isolation.TEST, limits=LIMITS):
        if language == "cpp":
            job = Job(
                code="", inputs=inputs, limits=limits, executable=build(code), argv=CPP.argv()
            )
        else:
            job = Job(code=code, inputs=inputs, isolation=isolation, limits=limits)
        return pool.run(job).runs

    return run_program


def _lines(stdout: str | bytes) -> dict[str, str]:
    """``name -> outcome`` for each ``name outcome`` line a probe printed."""
    if isinstance(stdout, bytes):
        stdout = stdout.decode("utf-8", "replace")
    return dict(line.split(" ", 1) for line in stdout.splitlines() if " " in line)


# -- 1. the child is root: what ownership of the host's files gave it ------------------------


@pytest.fixture
def host_file():
    """A root-owned file of the host, outside any run directory, that a program can name
    and (Landlock) read: in a directory of its own under a readable system path (else /tmp,
    where only the calls by path can be tried). Its attributes before the attack."""
    base = next(
        (
            p
            for p in ("/usr/local/lib", "/usr/lib")
            if p in readable_paths() and os.access(p, os.W_OK)
        ),
        "/tmp",
    )
    directory = tempfile.mkdtemp(prefix="mc-audit-", dir=base)
    os.chmod(directory, 0o755)
    path = os.path.join(directory, "host.txt")
    with open(path, "w") as file:
        file.write("the host's\n")
    os.chmod(path, 0o644)
    before = _attributes(path)
    yield path, before
    shutil.rmtree(directory, ignore_errors=True)


def _attributes(path: str) -> tuple:
    info = os.stat(path)
    return (
        info.st_mode,
        info.st_uid,
        info.st_gid,
        info.st_mtime_ns,
        info.st_ctime_ns,
        os.listxattr(path),
    )


PY_OWNER = r"""
import fcntl, os, struct
path = input().strip()
def attempt(name, call):
    try:
        call()
        print(name, "done")
    except OSError as exc:
        print(name, "refused", exc.errno)
attempt("chmod", lambda: os.chmod(path, 0o4777))
attempt("utime", lambda: os.utime(path, (1, 1)))
attempt("touch", lambda: os.utime(path, None))
attempt("setxattr", lambda: os.setxattr(path, "user.mark", b"x"))
attempt("chown", lambda: os.chown(path, -1, 0))
try:
    fd = os.open(path, os.O_RDONLY)
except OSError:
    fd = None  # not under a readable path: the calls by path are the test
if fd is not None:
    attempt("fchmod", lambda: os.fchmod(fd, 0o4777))
    attempt("futime", lambda: os.utime(fd, (1, 1)))
    attempt("fsetxattr", lambda: os.setxattr(fd, "user.mark", b"x"))
    attempt("fchown", lambda: os.fchown(fd, -1, 0))
    attempt("chattr", lambda: fcntl.ioctl(fd, 0x40086602, struct.pack("i", 0x40)))  # nodump
    attempt("lease", lambda: fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK))
"""
CPP_OWNER = r"""
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
static void attempt(const char* name, int result) {
    if (result == 0) printf("%s done\n", name);
    else printf("%s refused %d\n", name, errno);
}
int main() {
    std::string path;
    std::getline(std::cin, path);
    const char* p = path.c_str();
    struct timeval old[2] = {{1, 0}, {1, 0}};
    attempt("chmod", chmod(p, 04777));
    attempt("utime", utimes(p, old));
    attempt("touch", utimes(p, nullptr));
    attempt("setxattr", setxattr(p, "user.mark", "x", 1, 0));
    attempt("chown", chown(p, -1, 0));
    int fd = open(p, O_RDONLY);
    if (fd < 0) return 0;  // not under a readable path: the calls by path are the test
    struct timespec times[2] = {{1, 0}, {1, 0}};
    int nodump = 0x40;
    attempt("fchmod", fchmod(fd, 04777));
    attempt("futime", futimens(fd, times));
    attempt("fsetxattr", fsetxattr(fd, "user.mark", "x", 1, 0));
    attempt("fchown", fchown(fd, -1, 0));
    attempt("chattr", ioctl(fd, 0x40086602, &nodump));
    attempt("lease", fcntl(fd, 1024 /* F_SETLEASE */, F_RDLCK));
}
"""


@pytest.mark.parametrize(("language", "isolation"), WAYS, ids=WAY_IDS)
def test_a_root_owned_host_file_cannot_be_changed(run, host_file, language, isolation):
    """chmod (set-id bits included), times, extended attributes, owner, inode flags and a
    lease on a root-owned file of the host, by path and by descriptor: the child's user owns
    nothing, so the kernel refuses them all; the file is as it was."""
    path, before = host_file
    (result,) = run(CPP_OWNER if language else PY_OWNER, language, [path + "\n"], isolation)
    outcomes = _lines(result.stdout)
    assert len(outcomes) in (5, 11), result
    assert all(outcome.startswith("refused") for outcome in outcomes.values()), outcomes
    # not its owner: EPERM for what only the owner may do (without write permission on
    # it, EACCES for the rest)
    for name in ("chmod", "utime", "chown", "fchmod", "futime", "fchown", "chattr"):
        if name in outcomes:
            assert outcomes[name] == f"refused {errno.EPERM}", (name, outcomes)
    assert _attributes(path) == before


# -- 1. the child is root: another submission's child, by its pid ----------------------------

VICTIM = "import time\ntime.sleep(float(input()))\nprint('slept')\n"
PY_SCHEDULER = r"""
import ctypes, os
pid = int(input())
theirs = os.sched_getaffinity(pid)
cpus = (set(range(os.cpu_count())) - theirs) or theirs
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, call):
    try:
        call()
        print(name, "done")
    except OSError as exc:
        print(name, "refused", exc.errno)
def ioprio():  # ioprio_set(IOPRIO_WHO_PROCESS, pid, IOPRIO_CLASS_IDLE)
    if libc.syscall({"x86_64": 251, "aarch64": 30}[os.uname().machine], 1, pid, 3 << 13):
        raise OSError(ctypes.get_errno(), "ioprio_set")
attempt("renice", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
attempt("affinity", lambda: os.sched_setaffinity(pid, cpus))
attempt("scheduler", lambda: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0)))
attempt("ioprio", ioprio)
"""
CPP_SCHEDULER = r"""
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
static void attempt(const char* name, long result) {
    if (result == 0) printf("%s done\n", name);
    else printf("%s refused %d\n", name, errno);
}
int main() {
    int pid;
    std::cin >> pid;
    cpu_set_t theirs, cpus;
    CPU_ZERO(&cpus);
    sched_getaffinity(pid, sizeof theirs, &theirs);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (!CPU_ISSET(cpu, &theirs) && cpu < sysconf(_SC_NPROCESSORS_ONLN)) CPU_SET(cpu, &cpus);
    if (!CPU_COUNT(&cpus)) cpus = theirs;
    struct sched_param param = {0};
    attempt("renice", setpriority(PRIO_PROCESS, pid, 19));
    attempt("affinity", sched_setaffinity(pid, sizeof cpus, &cpus));
    attempt("scheduler", sched_setscheduler(pid, SCHED_IDLE, &param));
    attempt("ioprio", syscall(SYS_ioprio_set, 1, pid, 3 << 13));
}
"""


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found.update(int(child) for child in listing.read().split())
        except OSError:
            pass
    return found


def _sandbox_processes() -> set[int]:
    """Every process whose parent is one of this test process's children (the pool's fork
    servers: their templates and sandbox children)."""
    return {grandchild for child in _children(os.getpid()) for grandchild in _children(child)}


def _scheduling(pid: int) -> tuple:
    return (
        os.getpriority(os.PRIO_PROCESS, pid),
        os.sched_getscheduler(pid),
        frozenset(os.sched_getaffinity(pid)),
        _libc.syscall(_IOPRIO_GET, 1, pid),  # ioprio_get(IOPRIO_WHO_PROCESS, pid)
    )


_libc = ctypes.CDLL(None, use_errno=True)
_IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine, -1)


@pytest.mark.parametrize(("language", "isolation"), WAYS, ids=WAY_IDS)
def test_a_concurrent_submissions_child_cannot_be_rescheduled(pool, build, language, isolation):
    """Two submissions at once on a pool of two workers: the second, given the first's pid
    (what a scan of pids finds), tries to renice it, move it to another core, make it
    SCHED_IDLE and lower its I/O priority. Each worker's children have a user of their own:
    the kernel refuses all four, and the first runs on as it was."""
    assert pool.size == 2
    if language:
        attacker = Job(code="", inputs=[], limits=LIMITS, executable=build(CPP_SCHEDULER))
        attacker.argv = CPP.argv()
    else:
        attacker = Job(code=PY_SCHEDULER, inputs=[], isolation=isolation, limits=LIMITS)
    before = _sandbox_processes()
    victim = pool.submit(Job(code=VICTIM, inputs=["3"], isolation=isolation, limits=LIMITS))
    deadline = time.monotonic() + 5
    while not (new := _sandbox_processes() - before) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(new) == 1, new
    (pid,) = new
    time.sleep(0.3)  # past its set-up: running the program
    as_it_was = _scheduling(pid)
    attacker.inputs = [str(pid)]
    (attack,) = pool.run(attacker).runs
    as_it_is = _scheduling(pid)
    outcomes = _lines(attack.stdout)
    assert set(outcomes) == {"renice", "affinity", "scheduler", "ioprio"}, attack
    assert all(o == f"refused {errno.EPERM}" for o in outcomes.values()), outcomes
    assert as_it_is == as_it_was
    assert victim.result().runs[0].stdout == b"slept\n"


def test_each_worker_has_a_user_of_its_own_that_owns_nothing(pool):
    """The children's user: neither root nor any account's, and not another worker's (two
    submissions at once, one on each worker)."""
    code = "import os, time\ntime.sleep(0.5)\nprint(os.getuid(), os.getgid(), os.getgroups())\n"
    results = list(pool.map([Job(code=code, inputs=[""]), Job(code=code, inputs=[""])]))
    seen = set()
    for result in results:
        uid, gid, groups = result.runs[0].stdout.decode().split(" ", 2)
        seen.add(int(uid))
        assert gid == uid and groups.strip() == "[]"
    assert len(seen) == 2 and 0 not in seen
    for uid in seen:
        with pytest.raises(KeyError):
            __import__("pwd").getpwuid(uid)


# -- 2. kernel objects that outlive the child --------------------------------------------------

_libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.mq_unlink.argtypes = [ctypes.c_char_p]
IPC_KEY = 0x4D434134  # "MCA4": this file's System V key
QUEUE = "/mc-audit-44"


def _sysv(kind: str) -> list[list[str]]:
    """The host's System V objects of a kind (``shm``, ``msg``, ``sem``), one row each."""
    with open(f"/proc/sysvipc/{kind}") as table:
        return [line.split() for line in table.read().splitlines()[1:]]


def _remove_new_sysv(before: dict[str, set[str]]) -> dict[str, list[str]]:
    """Remove every System V object made since ``before`` (ids by kind); what was removed."""
    left: dict[str, list[str]] = {}
    commands = {"shm": (_libc.shmctl, 1), "msg": (_libc.msgctl, 1), "sem": (_libc.semctl, 1)}
    for kind, (control, ident) in commands.items():
        for row in _sysv(kind):
            if row[ident] not in before[kind]:
                left.setdefault(kind, []).append(row[ident])
                if kind == "sem":
                    control(int(row[ident]), 0, 0)  # IPC_RMID
                else:
                    control(int(row[ident]), 0, None)  # IPC_RMID
    return left


def _queue_exists() -> bool:
    fd = _libc.mq_open(QUEUE.encode(), os.O_RDONLY)
    if fd >= 0:
        os.close(fd)
        return True
    return False


@pytest.fixture
def host_ipc():
    """``left()``: the System V objects made on the host since the test began (removed: the
    engine of before left them there) and whether this file's POSIX queue is there."""
    before = {kind: {row[1] for row in _sysv(kind)} for kind in ("shm", "msg", "sem")}
    _libc.mq_unlink(QUEUE.encode())

    def left() -> tuple[dict[str, list[str]], bool]:
        return _remove_new_sysv(before), _queue_exists()

    yield left
    _remove_new_sysv(before)
    _libc.mq_unlink(QUEUE.encode())


PY_HOARD = r"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
held = 0
for _ in range(12):
    shmid = libc.shmget(0, 64 << 20, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if shmid < 0:
        print("shmget refused", ctypes.get_errno())
        break
    address = libc.shmat(shmid, None, 0)
    ctypes.memset(address, 1, 64 << 20)
    libc.shmdt(address)
    held += 64
print("held", held)
"""
CPP_HOARD = r"""
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/shm.h>
int main() {
    int held = 0;
    for (int i = 0; i < 12; i++) {
        int id = shmget(IPC_PRIVATE, 64 << 20, IPC_CREAT | 0600);
        if (id < 0) { printf("shmget refused %d\n", errno); break; }
        char* at = (char*)shmat(id, nullptr, 0);
        memset(at, 1, 64 << 20);
        shmdt(at);
        held += 64;
    }
    printf("held %d\n", held);
}
"""


@pytest.mark.parametrize(("language", "isolation"), WAYS, ids=WAY_IDS)
def test_shared_memory_cannot_hoard_past_the_limit(run, host_ipc, language, isolation):
    """768 MiB in twelve detached System V segments under a 256 MB limit (accepted before,
    with a peak of 68 MB): refused (or stopped: MLE), and nothing is left on the host."""
    (result,) = run(CPP_HOARD if language else PY_HOARD, language, [""], isolation)
    stdout = result.stdout.decode()
    assert "held 768" not in stdout, result
    assert result.limit is LimitHit.MEMORY or stdout.startswith("shmget refused"), result
    left, _ = host_ipc()
    assert not left, left


PY_CARRY = r"""
import ctypes
KEY, QUEUE = 0x4D434134, b"/mc-audit-44"
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
def outcome(result):
    return "made" if result >= 0 else f"refused {ctypes.get_errno()}"
if input() == "make":
    shm = libc.shmget(KEY, 4096, 0o1000 | 0o666)
    if shm >= 0:
        ctypes.memmove(libc.shmat(shm, None, 0), b"from an earlier test", 20)
    print("shm", outcome(shm))
    print("msg", outcome(libc.msgget(KEY, 0o1000 | 0o666)))
    print("sem", outcome(libc.semget(KEY, 1, 0o1000 | 0o666)))
    print("mq", outcome(libc.mq_open(QUEUE, 0o100 | 2, 0o600, None)))  # O_CREAT | O_RDWR
else:
    shm = libc.shmget(KEY, 0, 0)
    print("shm", ctypes.string_at(libc.shmat(shm, None, 0), 20).decode() if shm >= 0 else "absent")
    print("msg", "found" if libc.msgget(KEY, 0) >= 0 else "absent")
    print("sem", "found" if libc.semget(KEY, 0, 0) >= 0 else "absent")
    print("mq", "found" if libc.mq_open(QUEUE, 0, 0, None) >= 0 else "absent")
"""
CPP_CARRY = r"""
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <mqueue.h>
#include <string>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
const key_t KEY = 0x4D434134;
static void outcome(const char* what, long result) {
    if (result >= 0) printf("%s made\n", what);
    else printf("%s refused %d\n", what, errno);
}
int main() {
    std::string what;
    std::cin >> what;
    if (what == "make") {
        int shm = shmget(KEY, 4096, IPC_CREAT | 0666);
        if (shm >= 0) memcpy(shmat(shm, nullptr, 0), "from an earlier test", 20);
        outcome("shm", shm);
        outcome("msg", msgget(KEY, IPC_CREAT | 0666));
        outcome("sem", semget(KEY, 1, IPC_CREAT | 0666));
        outcome("mq", mq_open("/mc-audit-44", O_CREAT | O_RDWR, 0600, nullptr));
    } else {
        int shm = shmget(KEY, 0, 0);
        std::string seen = shm >= 0 ? std::string((char*)shmat(shm, nullptr, 0), 20) : "absent";
        printf("shm %s\n", seen.c_str());
        printf("msg %s\n", msgget(KEY, 0) >= 0 ? "found" : "absent");
        printf("sem %s\n", semget(KEY, 0, 0) >= 0 ? "found" : "absent");
        printf("mq %s\n", mq_open("/mc-audit-44", O_RDONLY) >= 0 ? "found" : "absent");
    }
}
"""


@pytest.mark.parametrize(("language", "isolation"), WAYS, ids=WAY_IDS)
def test_ipc_objects_do_not_outlive_a_test(run, host_ipc, language, isolation):
    """A segment (with data), a message queue, a semaphore set and a POSIX message queue
    made in one test: none can be made, none is there in the next test or the next
    submission, and nothing is left on the host (the queue whose open Landlock refused
    was made before all the same)."""
    code = CPP_CARRY if language else PY_CARRY
    first = run(code, language, ["make\n", "find\n"], isolation)
    again = run(code, language, ["find\n"], isolation)  # the next submission
    made = _lines(first[0].stdout)
    assert set(made) == {"shm", "msg", "sem", "mq"}, first
    assert all(o.startswith("refused") for o in made.values()), made
    for later in (first[1], again[0]):
        assert _lines(later.stdout) == dict.fromkeys(made, "absent"), later
    left, queue = host_ipc()
    assert not left and not queue, (left, queue)


# -- 5. one exec, the program file's own ------------------------------------------------------

CPP_EXEC = r"""
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
// Each attack execs the C library as a program: it prints its banner when it runs.
int main() {
    std::string how, libc, loader;
    std::cin >> how >> libc >> loader;
    char* argv[] = {(char*)"lib", (char*)libc.c_str(), nullptr};
    char* envp[] = {nullptr};
    long result = -1;
    if (how == "fd3") {  // the descriptor the one allowed exec used, reopened on another file
        int fd = open(libc.c_str(), O_RDONLY);
        if (fd != 3) dup2(fd, 3);
        result = syscall(SYS_execveat, 3, "", argv, envp, AT_EMPTY_PATH);
    } else if (how == "loader") {  // the dynamic loader by path, running a library
        open(libc.c_str(), O_RDONLY);
        result = syscall(SYS_execveat, 3, loader.c_str(), argv, envp, AT_EMPTY_PATH);
    } else if (how == "written") {  // an ELF written into the run directory
        int in = open(libc.c_str(), O_RDONLY), out = open("copy", O_WRONLY | O_CREAT, 0755);
        char chunk[65536];
        for (long n; (n = read(in, chunk, sizeof chunk)) > 0;) write(out, chunk, n);
        close(out);
        int fd = open("copy", O_RDONLY);
        if (fd != 3) dup2(fd, 3);
        result = syscall(SYS_execveat, 3, "", argv, envp, AT_EMPTY_PATH);
        if (result < 0) result = syscall(SYS_execveat, AT_FDCWD, "./copy", argv, envp, 0);
    } else if (how == "self") {  // the program file itself, again
        int fd = open("/proc/self/exe", O_PATH);
        result = syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
        if (result < 0)
            result = syscall(SYS_execveat, 3, "/proc/self/exe", argv, envp, AT_EMPTY_PATH);
    }
    printf("%s refused %ld\n", how.c_str(), result < 0 ? (long)errno : 0L);
}
"""


def _libc_and_loader() -> tuple[str, str]:
    """The C library and the dynamic loader this interpreter runs with (the system's)."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if line.count("/") and ".so" in line}
    libc = next(p for p in paths if os.path.basename(p) == "libc.so.6")
    loader = next(p for p in paths if os.path.basename(p).startswith("ld-linux"))
    return libc, loader


def test_a_program_file_gets_exactly_one_exec(run):
    """After its own exec a C++ program cannot exec anything: a file it reopens at fd 3
    (the descriptor the allowed exec used), the dynamic loader by path on a library, an ELF
    it wrote into its run directory, itself again. Each would have run the C library's
    banner; each is refused."""
    libc, loader = _libc_and_loader()
    attacks = ["fd3", "loader", "written", "self"]
    results = run(CPP_EXEC, "cpp", [f"{how} {libc} {loader}\n" for how in attacks])
    for how, result in zip(attacks, results, strict=True):
        stdout = result.stdout.decode("utf-8", "replace")
        assert "GNU C Library" not in stdout, (how, stdout)
        assert stdout.startswith(f"{how} refused "), (how, result)
        assert stdout != f"{how} refused 0\n", (how, stdout)
    assert all(result.clean_exit for result in results), results


def test_a_build_runs_as_a_user_that_owns_nothing(host_file):
    """The compiler reads untrusted source: a root grader runs it as its own unprivileged
    user (no longer uid 0 without capabilities, which owned every root-owned file). A tool
    run as a build is run: it is not root, and a root-owned host file is out of its reach."""
    from evaluator.languages.base import BuildLimits
    from evaluator.languages.builds import ConfinedTool

    path, before = host_file
    with tempfile.TemporaryDirectory(prefix="mcbuild-") as root:
        os.chmod(root, 0o711)
        work = tempfile.mkdtemp(dir=root)
        tool = ConfinedTool(BuildLimits())
        who = tool(["/usr/bin/id", "-u"], work)
        changed = tool(["/usr/bin/chmod", "4777", path], work)
        made = tool(["/usr/bin/touch", "made"], work)
        assert who.status == 0 and int(who.output) not in (0, os.getuid()), who
        assert changed.status != 0 and b"Operation not permitted" in changed.output, changed
        assert made.status == 0 and os.path.isfile(os.path.join(work, "made")), made
    assert _attributes(path) == before


def test_normal_programs_still_run(graders):
    tests = [TestCase("3 4\n", "7"), TestCase("5 6\n", "11")]
    problem = Problem("sum", Harness.STDIN, tests)
    cpp = "#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b; }"
    python = "a, b = map(int, input().split())\nprint(a + b)\n"
    for grader in graders.values():
        assert grader.grade(problem, cpp, "cpp").verdict is Verdict.AC
        assert grader.grade(problem, python).verdict is Verdict.AC


# -- a grader that is not root -----------------------------------------------------------------

NOT_ROOT = r"""
import os, sys, time
from evaluator.sandbox import Job, Limits, SandboxPool
path = sys.argv[1]
limits = Limits(time_limit=2.0, wall_limit=8.0, memory_limit=256)
PROBE = '''
import os
def attempt(name, call):
    try:
        call()
        print(name, "done")
    except OSError as exc:
        print(name, "refused", exc.errno)
'''
OWNER = PROBE + '''
path = input()
attempt("chmod", lambda: os.chmod(path, 0o4777))
attempt("utime", lambda: os.utime(path, (1, 1)))
attempt("setxattr", lambda: os.setxattr(path, "user.mark", b"x"))
attempt("chown", lambda: os.chown(path, -1, -1))
'''
ATTACK = PROBE + '''
pid = int(input())
attempt("renice", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
attempt("everyone", lambda: os.setpriority(os.PRIO_USER, 0, 19))
attempt("affinity", lambda: os.sched_setaffinity(pid, os.sched_getaffinity(pid)))
'''
IPC = "import ctypes\nprint(ctypes.CDLL(None).shmget(0, 4096, 0o1000 | 0o600))\n"
VICTIM = "import time\ntime.sleep(3)\nprint('slept')"


def out(job):
    return pool.run(job).runs[0].stdout.decode().strip()


def children(pid):
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listing:
            found.update(int(child) for child in listing.read().split())
    return found


def grandchildren():
    return {grandchild for child in children(os.getpid()) for grandchild in children(child)}


with SandboxPool(workers=2) as pool:
    info = pool.info
    print("info", info.get("child_uid"), info.get("ipc_namespace"), info.get("network_namespace"))
    print("uid", out(Job(code="import os\nprint(os.getuid())", inputs=[""])))
    print(out(Job(code=OWNER, inputs=[path], limits=limits)))
    print("shmget", out(Job(code=IPC, inputs=[""])))
    before = grandchildren()
    victim = pool.submit(Job(code=VICTIM, inputs=[""], limits=limits))
    while not (new := grandchildren() - before):
        time.sleep(0.01)
    time.sleep(0.3)
    print(out(Job(code=ATTACK, inputs=[str(min(new))], limits=limits)))
    slept = victim.result().runs[0].stdout.decode().strip()
    print("victim", slept, os.getpriority(os.PRIO_PROCESS, os.getpid()))
"""


def test_a_grader_that_is_not_root_still_works(host_ipc):
    """The grader run as ``nobody``: its children keep its user (no second user can be had
    without root), and the profile's same-user rules refuse what only ownership stopped:
    changing a file the grader's user owns, renicing another child or every process of the
    user; IPC stays refused. (The interpreter lives under root's home here: a private mount
    namespace opens the way to it for ``nobody``, as the sandbox does for its children.)"""
    nobody = NOBODY
    directory = tempfile.mkdtemp(prefix="mc-audit-")
    try:
        os.chmod(directory, 0o755)
        path = os.path.join(directory, "theirs.txt")
        Path(path).write_text("nobody's\n")
        os.chown(path, nobody, nobody)
        before = _attributes(path)
        done = run_as_nobody(NOT_ROOT, path)
        assert done.returncode == 0, done.stderr[-3000:]
        lines = done.stdout.splitlines()
        owner = _lines("\n".join(lines[2:6]))
        assert owner == dict.fromkeys(("chmod", "utime", "setxattr", "chown"), "refused 1"), (
            done.stdout
        )
        attack = _lines("\n".join(lines[7:10]))
        assert attack == dict.fromkeys(("renice", "everyone", "affinity"), "refused 1"), done.stdout
        assert lines[6] == "shmget -1", done.stdout
        assert lines[10] == "victim slept 0", done.stdout
        assert lines[0] == "info None False False", done.stdout
        assert lines[1] == f"uid {nobody}", done.stdout
        assert host_ipc() == ({}, False)
        assert _attributes(path) == before
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_every_child_gets_its_one_exec(run):
    """The exec gate answers its own child's exec: thirty C++ tests in a row, each a fresh
    child, each runs at once (a gate that missed one would hang it to the wall limit)."""
    cpp = '#include <cstdio>\nint main(){ int n; if (scanf("%d", &n) == 1) printf("%d\\n", n); }\n'
    results = run(cpp, "cpp", [f"{n}\n" for n in range(30)])
    assert [r.stdout for r in results] == [f"{n}\n".encode() for n in range(30)]
    assert max(r.wall_time for r in results) < 1.0
