"""Scala's security battery: sys.process (the runner's own way to start programs), Java's
ProcessBuilder, files outside the run directory, sockets, /proc: each refused; threads and
files in its own directory work, as in a plain run. The scala runner loads the compiler's
jars too: nothing in them reaches further (``scala.tools.nsc`` can compile, but not run a
process)."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("scala")

SCALA_PROBES = """
import java.nio.file.{Files, Paths}
import scala.sys.process._
object Main {
  def probe(what: String)(act: => Any): Unit = {
    val said = try { act; "done" } catch { case _: Throwable => "refused" }
    println(s"$what $said")
  }
  def main(args: Array[String]): Unit = {
    probe("sys_process") { "/bin/true".! }
    probe("sys_process_output") { Seq("/bin/echo", "hi").!! }
    probe("process_builder") { new java.lang.ProcessBuilder("/bin/true").start().waitFor() }
    probe("read_passwd") { Files.readAllBytes(Paths.get("/etc/passwd")) }
    probe("write_var_tmp") { Files.write(Paths.get("/var/tmp/mcprobe"), "x".getBytes) }
    probe("server_socket") { new java.net.ServerSocket(0).close() }
    probe("proc_parent") { Files.readAllBytes(Paths.get("/proc/1/cmdline")) }
    probe("thread") { val t = new Thread(new Runnable { def run(): Unit = () }); t.start(); t.join() }
    probe("own_file") { Files.write(Paths.get("mine.txt"), "ok".getBytes) }
  }
}
"""


def test_scala_reaches_nothing_past_the_program(languages_grader):
    refused = ["sys_process", "sys_process_output", "process_builder", "read_passwd",
               "write_var_tmp", "server_socket", "proc_parent"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["thread done", "own_file done"]
    result = probe_answers(languages_grader, "scala", SCALA_PROBES, expected)
    assert result.verdict.value == "AC", result.message
