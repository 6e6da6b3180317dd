"""C# (Mono): the security battery. What the runtime offers to reach past the program
(``Process.Start``, files, sockets, ``/proc``, P/Invoke into libc's ``fork``, ``system`` and
``execve``) ends in a refusal; what a plain run of a judge allows (threads, files in its own
directory) works."""

from __future__ import annotations

from tests.languages.runtime_plain import assert_refused, needs_runtime, probe_answers

pytestmark = needs_runtime("csharp")

CSHARP_PROBES = """
using System;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Threading;
class P {
  [DllImport("libc")] static extern int fork();
  [DllImport("libc")] static extern int system(string command);
  [DllImport("libc")] static extern int execve(string path, string[] argv, string[] envp);
  static void Probe(string what, Func<object> act) {
    try { var r = act(); Console.WriteLine(what + " " + (r ?? "done")); }
    catch (Exception) { Console.WriteLine(what + " refused"); }
  }
  static void Main() {
    Probe("process_start", () => { var p = Process.Start("/bin/true"); p.WaitForExit(); return p.ExitCode; });
    Probe("read_passwd", () => File.ReadAllText("/etc/passwd").Length);
    Probe("write_var_tmp", () => { File.WriteAllText("/var/tmp/mcprobe", "x"); return null; });
    Probe("socket", () => new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp).Handle);
    // Mono's TcpClient swallows the failed socket(): only the connection says whether it is one
    Probe("tcp_client", () => new TcpClient("1.1.1.1", 80).Connected);
    Probe("listener", () => { var l = new TcpListener(IPAddress.Loopback, 0); l.Start(); l.Stop(); return null; });
    Probe("proc_parent", () => File.ReadAllText("/proc/1/cmdline"));
    Probe("fork", () => fork() < 0 ? throw new Exception() : (object)"forked");
    Probe("system", () => system("echo hi") != 0 ? throw new Exception() : (object)"ran");
    Probe("execve", () => { execve("/bin/true", new[] { "/bin/true", null }, new string[] { null }); throw new Exception(); });
    Probe("thread", () => { int box = 0; var t = new Thread(() => box = 42); t.Start(); t.Join(); return box; });
    Probe("own_file", () => { File.WriteAllText("mine.txt", "ok"); return File.ReadAllText("mine.txt"); });
  }
}
"""


def test_csharp_reaches_nothing_past_the_program(languages_grader):
    refused = ["process_start", "read_passwd", "write_var_tmp", "socket", "tcp_client", "listener",
               "proc_parent", "fork", "system", "execve"]  # fmt: skip
    assert_refused(languages_grader, "csharp", CSHARP_PROBES, refused, ["thread 42", "own_file ok"])


def test_mono_starts_with_the_main_stack_library(languages_grader):
    """Deviation ``mono-main-stack``: the program sees the preloaded library (a plain run
    does not: tests/csharp/test_conformance.py runs mono without it), and the stack it
    reports holds the main thread's frames."""
    probe = """using System; using System.Threading;
class P { static int Depth(int n) { return n == 0 ? 0 : 1 + Depth(n - 1); }
  static void Main() {
    var preload = Environment.GetEnvironmentVariable("LD_PRELOAD") ?? "";
    Console.WriteLine("preloaded " + preload.Contains("main-stack-"));
    Console.WriteLine("deep " + Depth(200000));
    var t = new Thread(() => Console.WriteLine("thread " + Depth(1000))); t.Start(); t.Join(); } }"""
    expected = ["preloaded True", "deep 200000", "thread 1000"]
    result = probe_answers(languages_grader, "csharp", probe, expected)
    assert result.verdict.value == "AC", result.message
