"""D's security battery: std.process (a shell, a program), POSIX fork and exec, files outside
the run directory, /proc, the network, signals beyond the program: each refused; threads and
files in its own directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import probe_answers

from . import needs_gdc

pytestmark = needs_gdc

D_PROBES = r"""
import std.stdio, std.file, std.process, std.socket, core.thread;
import core.sys.posix.unistd : fork, execv, getppid;
import core.sys.posix.signal : kill;

void probe(string what, bool delegate() act) {
    bool ok;
    try { ok = act(); } catch (Throwable) { ok = false; }
    writeln(what, " ", ok ? "done" : "refused"); stdout.flush();
}

void main() {
    probe("execute_shell", () => executeShell("true").status == 0);
    probe("spawn_process", () => wait(spawnProcess(["/bin/true"])) == 0);
    probe("fork", () => fork() >= 0);
    probe("exec", () { const(char)*[2] args = ["/bin/true".ptr, null]; return execv(args[0], args.ptr) == 0; });
    probe("read_passwd", () => readText("/etc/passwd").length > 0);
    probe("write_var_tmp", () { std.file.write("/var/tmp/mcprobe", "x"); return true; });
    probe("proc_parent", () => read("/proc/1/cmdline").length >= 0);
    probe("tcp", () { auto s = new TcpSocket(); s.connect(new InternetAddress("1.1.1.1", 80)); return true; });
    probe("listen", () { auto s = new TcpSocket(); s.bind(new InternetAddress("127.0.0.1", 0)); s.listen(1); return true; });
    probe("kill_parent", () => kill(getppid(), 0) == 0);
    probe("thread", () { int got; auto t = new Thread({ got = 42; }); t.start(); t.join(); return got == 42; });
    probe("own_file", () { std.file.write("mine.txt", "ok"); return readText("mine.txt") == "ok"; });
}
"""


def test_d_reaches_nothing_past_the_program(languages_grader):
    refused = ["execute_shell", "spawn_process", "fork", "exec", "read_passwd", "write_var_tmp",
               "proc_parent", "tcp", "listen", "kill_parent"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["thread done", "own_file done"]
    result = probe_answers(languages_grader, "d", D_PROBES, expected)
    assert result.verdict.value == "AC", result.message
