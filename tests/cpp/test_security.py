"""Hostile C++ programs in the real sandbox (the Python battery of ``tests/sandbox/``, in
C++): each is contained, and the pool stays healthy. A native program can make any system
call, so these are the tests of the confinement itself: seccomp, Landlock, rlimits, no
capabilities, the network namespace. Signals are only ever probes (signal 0), never sent to
a process the test did not start."""

from __future__ import annotations

import os
import signal

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import LimitHit, Limits, kernel
from evaluator.sandbox.reference import child_environment

HEADER = """
#include <bits/stdc++.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
using namespace std;
static void say(const char* what, long result) {
    printf("%s %ld %s\\n", what, result, result < 0 ? strerror(errno) : "ok");
}
"""


def cpp(body: str) -> str:
    """A program: the shared includes and ``say()``, then ``body``."""
    return HEADER + body


TIGHT = Limits(time_limit=1.0, wall_limit=3.0, memory_limit=256, output_bytes=1 << 20)


def _lines(result) -> dict[str, str]:
    """``what -> "result errno-text"`` for each line the program printed with say()."""
    out = {}
    for line in result.runs[0].stdout.decode().splitlines():
        what, _, rest = line.partition(" ")
        out[what] = rest
    return out


@pytest.fixture(autouse=True)
def _healthy_after(run_cpp):
    yield
    result = run_cpp(HEADER + "int main(){ string s; cin >> s; cout << s << '\\n'; }", ["ok"])
    assert result.runs[0].clean_exit and result.runs[0].stdout == b"ok\n"


def test_environ_and_proc_are_out_of_reach(run_cpp, monkeypatch):
    monkeypatch.setenv("MC_SECRET_TOKEN", "hunter2")  # the caller's: servers never see it
    source = cpp("""
extern char** environ;
int main() {
    say("proc_environ", open("/proc/self/environ", O_RDONLY));
    say("proc_maps", open("/proc/self/maps", O_RDONLY));
    say("parent_mem", open(("/proc/" + to_string(getppid()) + "/mem").c_str(), O_RDONLY));
    say("parent_cmdline", open(("/proc/" + to_string(getppid()) + "/cmdline").c_str(), O_RDONLY));
    for (char** e = environ; *e; e++) printf("env %s\\n", string(*e).substr(0, string(*e).find('=')).c_str());
}
""")
    result = run_cpp(source, limits=TIGHT)
    out = _lines(result)
    for probe in ("proc_environ", "proc_maps", "parent_mem", "parent_cmdline"):
        assert out[probe] == "-1 Permission denied", probe
    names = {
        line.split()[1]
        for line in result.runs[0].stdout.decode().splitlines()
        if line[:4] == "env "
    }
    assert names == set(child_environment("run"))  # what every child gets, nothing more
    assert b"hunter2" not in result.runs[0].stdout


def test_parent_memory_and_ptrace_are_refused(run_cpp):
    source = cpp("""
int main() {
    char buffer[64];
    struct iovec mine = {buffer, sizeof buffer}, theirs = {(void*)0x400000, sizeof buffer};
    say("process_vm_readv", syscall(SYS_process_vm_readv, getppid(), &mine, 1, &theirs, 1, 0));
    say("ptrace_attach", ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr));
    say("ptrace_traceme", ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));
}
""")
    out = _lines(run_cpp(source, limits=TIGHT))
    assert out == {
        "process_vm_readv": "-1 Operation not permitted",
        "ptrace_attach": "-1 Operation not permitted",
        "ptrace_traceme": "-1 Operation not permitted",
    }


def test_no_sockets_of_any_kind(run_cpp):
    source = cpp("""
int main() {
    say("raw", socket(AF_INET, SOCK_RAW, IPPROTO_ICMP));
    say("tcp", socket(AF_INET, SOCK_STREAM, 0));
    say("udp6", socket(AF_INET6, SOCK_DGRAM, 0));
    say("unix", socket(AF_UNIX, SOCK_STREAM, 0));
    int pair[2];
    say("pair_inet", socketpair(AF_INET, SOCK_STREAM, 0, pair));
    say("pair_dgram", socketpair(AF_UNIX, SOCK_DGRAM, 0, pair));
    say("pair_seqpacket", socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair));
    say("pair_stream", socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair));
    struct sockaddr_un at = {AF_UNIX};
    memcpy(at.sun_path, "\0mcprobe", 8);  // an abstract address: the pair is already
    bind(pair[0], (struct sockaddr*)&at, sizeof(sa_family_t) + 8);  // connected, so
    say("pair_listen", listen(pair[0], 1));  // no one can ever connect to it
}
""")
    out = _lines(run_cpp(source, limits=TIGHT))
    # An unnamed AF_UNIX stream pair stays (asyncio's self-pipe, the JVM's NIO): it is
    # connected within the process and cannot listen, so it reaches no one.
    assert out.pop("pair_stream") == "0 ok", out
    assert out.pop("pair_listen").startswith("-1 "), out
    assert set(out.values()) == {"-1 Operation not permitted"}, out


def test_signals_are_refused_beyond_the_program(run_cpp, pool):
    """Probes only (signal 0): the group of every process, the server, init. Signals to
    one process of the same user are scoped by Landlock (ABI 6); without it the probe of
    the server succeeds (a real signal to it would be the server's to survive: a new one)."""
    source = cpp("""
int main() {
    say("everyone", kill(-1, 0));
    say("parent_group", kill(-getpgid(getppid()), 0));
    say("parent", kill(getppid(), 0));
    say("init", kill(1, 0));
    say("itself", kill(getpid(), 0));
}
""")
    out = _lines(run_cpp(source, limits=TIGHT))
    assert out["everyone"] == "-1 Operation not permitted"
    assert out["parent_group"] == "-1 Operation not permitted"
    scoped = pool.info.get("landlock_abi", 0) >= 6
    assert out["parent"] == ("-1 Operation not permitted" if scoped else "0 ok")
    assert out["init"] == "-1 Operation not permitted"
    assert out["itself"] == "0 ok"


def test_no_new_processes_and_no_exec(run_cpp, tmp_path):
    marker = tmp_path / "marker"
    source = cpp(f"""
int main() {{
    say("fork", fork());
    say("vfork_clone", syscall(SYS_clone, CLONE_VFORK | CLONE_VM | SIGCHLD, 0, 0, 0, 0));
    char* argv[] = {{(char*)"touch", (char*)"{marker}", nullptr}};
    say("execve", execve("/usr/bin/touch", argv, environ));
    say("execveat_own_file", syscall(SYS_execveat, 3, "", argv, environ, AT_EMPTY_PATH));
    say("system", system("touch {marker}"));
}}
""")
    out = _lines(run_cpp(source, limits=TIGHT))
    assert out["fork"] == out["vfork_clone"] == out["execve"] == "-1 Operation not permitted"
    # after its own exec every execveat fails: its listener closed with that exec
    assert out["execveat_own_file"] == "-1 Function not implemented"
    assert out["system"] == "32512 ok"  # the shell could not start
    assert not marker.exists()


def test_fork_bomb_ends_at_the_cpu_limit(run_cpp):
    result = run_cpp("#include <unistd.h>\nint main() { while (true) fork(); }", limits=TIGHT)
    assert result.runs[0].limit is LimitHit.CPU


def test_limits_cannot_be_raised_and_capabilities_are_gone(run_cpp):
    source = cpp("""
#include <linux/capability.h>
#include <sys/prctl.h>
int main() {
    struct rlimit r = {RLIM_INFINITY, RLIM_INFINITY};
    say("setrlimit_cpu", setrlimit(RLIMIT_CPU, &r));
    say("prlimit_stack", prlimit(0, RLIMIT_STACK, &r, nullptr));
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2] = {};
    syscall(SYS_capget, &h, d);
    printf("capabilities %x%x%x%x\\n", d[0].effective, d[1].effective, d[0].permitted, d[1].permitted);
    printf("no_new_privs %d\\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    say("mount", mount("none", "/tmp", "tmpfs", 0, nullptr));
    say("unshare", unshare(CLONE_NEWUSER));
    say("chroot", chroot("."));
    say("setuid", setuid(1234));
}
""")
    out = _lines(run_cpp(source, limits=TIGHT))
    assert out.pop("capabilities") == "0000"
    assert out.pop("no_new_privs") == "1"
    assert set(out.values()) == {"-1 Operation not permitted"}, out


_VICTIM_PROBES = ("read_victim", "write_victim", "unlink_victim")


def _refusal_of(path) -> str:
    """What a child's open of the host's ``path`` gets: a path in the host's /tmp is not in
    the child's own /tmp (a root grader's), one elsewhere is refused."""
    return "-1 No such file or directory" if kernel.in_host_tmp(path) else "-1 Permission denied"


def test_files_of_others_are_out_of_reach(run_cpp, tmp_path):
    """Writes land only in the run directory; the grader's files (the problems and their
    expected outputs), the worker's directory and the caller's files cannot be read."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    data = os.path.join(os.path.dirname(__file__), "..", "..", "evaluator", "data")
    problems = os.path.realpath(os.path.join(data, "demo_problems.jsonl"))
    source = cpp(f"""
int main() {{
    say("read_problems", open("{problems}", O_RDONLY));
    say("read_victim", open("{victim}", O_RDONLY));
    say("write_victim", open("{victim}", O_WRONLY | O_APPEND));
    say("unlink_victim", unlink("{victim}"));
    say("write_var_tmp", open("/var/tmp/mc-escaped.txt", O_WRONLY | O_CREAT, 0600));
    say("write_tmp", open("/tmp/mc-escaped.txt", O_WRONLY | O_CREAT, 0600));
    say("write_worker_dir", open("../stash", O_WRONLY | O_CREAT, 0600));
    say("list_worker_dir", open("..", O_RDONLY | O_DIRECTORY));
    say("write_own_binary", open("../program/solution", O_WRONLY));
    say("write_here", open("fine.txt", O_WRONLY | O_CREAT, 0600));
}}
""")
    out = _lines(run_cpp(source, limits=TIGHT))
    assert out.pop("write_here").endswith(" ok")
    # the child's own /tmp (a root grader's): written there, never in the host's
    assert out.pop("write_tmp").endswith(" ok")
    # the caller's files in the host's /tmp (a checkout there too) are not in the child's
    # own /tmp: not found there; elsewhere refused
    for name, path in (("read_problems", problems), *((n, victim) for n in _VICTIM_PROBES)):
        assert out.pop(name) == _refusal_of(path), name
    assert set(out.values()) == {"-1 Permission denied"}, out
    assert victim.read_text() == "keep me"
    assert not os.path.exists("/tmp/mc-escaped.txt")
    assert not os.path.exists("/var/tmp/mc-escaped.txt")


def test_nothing_of_one_submission_reaches_the_next(run_cpp):
    """The first program leaves what it can (a file in its directory, above it, in /tmp);
    the next finds none of it, and no descriptor but its stdio is open."""
    leave = cpp("""
int main() {
    for (const char* path : {"stash", "../stash", "/tmp/mc-stash", "../program/stash"}) {
        int fd = open(path, O_WRONLY | O_CREAT, 0600);
        if (fd >= 0) write(fd, "SECRET", 6);
    }
}
""")
    assert run_cpp(leave, limits=TIGHT).runs[0].clean_exit
    look = cpp("""
int main() {
    for (const char* path : {"stash", "../stash", "/tmp/mc-stash", "../program/stash"})
        say(path, open(path, O_RDONLY));
    int open_fds = 0;
    for (int fd = 3; fd < 4096; fd++) open_fds += fcntl(fd, F_GETFD) != -1;
    printf("open_fds %d\\n", open_fds);
}
""")
    out = _lines(run_cpp(look, limits=TIGHT))
    assert out.pop("open_fds") == "0"
    assert all(value.startswith("-1 ") for value in out.values()), out


def test_a_test_sees_only_its_own_input(pool):
    """Test 0 expects test 1's input: a program that found it anywhere (a descriptor, a file,
    its memory) would pass test 0. It fails it, and every test reads only its own input."""
    secret = "MCINPUT-of-test-two-7731"
    problem = Problem(
        "leak", Harness.STDIN, [TestCase("first\n", secret + "\n"), TestCase(secret + "\n", "")]
    )
    source = cpp("""
int main() {
    string mine; cin >> mine;
    for (int fd = 0; fd < 1024; fd++) {
        char buf[4096]; ssize_t n = pread(fd, buf, sizeof buf, 0);
        if (n > 0 && string(buf, n).find("MCINPUT") != string::npos && string(buf, n) != mine + "\\n")
            printf("%s", string(buf, n).c_str());
    }
    for (const char* path : {"input", "../input", "/dev/stdin"}) {
        FILE* f = fopen(path, "r"); char buf[256] = {0};
        if (f && fgets(buf, sizeof buf, f) && string(buf) != mine + "\\n") printf("%s", buf);
    }
}
""")
    with Grader(GradeOptions(time_limit=1), pool=pool, precompiled_headers=False) as grader:
        result = grader.grade(problem, source, "cpp")
    assert [t.verdict for t in result.tests] == [Verdict.WA, Verdict.AC]


def test_memory_is_judged_by_resident_size(run_cpp):
    """A program is held to resident memory: 200 MB touched passes a 256 MB limit, 300 MB
    is an MLE (killed by the watchdog: the virtual backstop is 16 times the limit)."""
    touch = cpp(
        "int main(){ int mb; cin >> mb; vector<char> v(size_t(mb) << 20, 1); cout << v[12] + 0; }"
    )
    result = run_cpp(touch, ["200", "300"], limits=TIGHT)
    fits, over = result.runs
    assert fits.clean_exit and fits.stdout == b"1"
    assert 200 << 10 < fits.peak_memory_kb < 256 << 10
    assert over.limit is LimitHit.MEMORY and over.signal == signal.SIGKILL
