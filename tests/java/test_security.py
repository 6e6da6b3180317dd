"""Java (javac, the JVM): the security battery. What the runtime offers to reach past the program
ends in a refusal; what a plain run of a judge allows (threads, files in its own
directory) works."""

from __future__ import annotations

from tests.languages.runtime_plain import probe_answers

JAVA_PROBES = """
import java.io.*;
import java.net.*;
import java.nio.file.*;
public class Main {
  interface Act { Object run() throws Exception; }
  static void probe(String what, Act act) {
    try { Object r = act.run(); System.out.println(what + " " + (r == null ? "done" : r)); }
    catch (Throwable e) { System.out.println(what + " refused"); }
  }
  public static void main(String[] a) throws Exception {
    probe("process_builder", () -> new ProcessBuilder("/bin/sh", "-c", "echo hi").start().waitFor());
    probe("runtime_exec", () -> Runtime.getRuntime().exec(new String[]{"/bin/true"}).waitFor());
    probe("read_passwd", () -> Files.readString(Path.of("/etc/passwd")).length());
    probe("write_var_tmp", () -> Files.writeString(Path.of("/var/tmp/mcprobe"), "x"));
    probe("socket", () -> { new Socket("1.1.1.1", 80).close(); return null; });
    probe("server_socket", () -> { new ServerSocket(0).close(); return null; });
    probe("proc_parent", () -> Files.readString(Path.of("/proc/1/cmdline")));
    probe("thread", () -> { int[] box = new int[1]; Thread t = new Thread(() -> box[0] = 42); t.start(); t.join(); return box[0]; });
    probe("own_file", () -> { Files.writeString(Path.of("mine.txt"), "ok"); return Files.readString(Path.of("mine.txt")); });
    probe("reflection_into_jdk", () -> { var f = ProcessBuilder.class.getDeclaredField("command"); f.setAccessible(true); return null; });
  }
}
"""


def test_java_reaches_nothing_past_the_program(languages_grader):
    refused = ["process_builder", "runtime_exec", "read_passwd", "write_var_tmp", "socket",
               "server_socket", "proc_parent"]  # fmt: skip
    # threads and files in its own directory work, as in a plain run; the JDK's modules are
    # closed to reflection (a plain run's rule too): no way into its internals
    expected = [f"{name} refused" for name in refused]
    expected += ["thread 42", "own_file ok", "reflection_into_jdk refused"]
    result = probe_answers(languages_grader, "java", JAVA_PROBES, expected)
    assert result.verdict.value == "AC", result.message
