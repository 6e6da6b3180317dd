"""Kotlin (on the JVM, as Java): the security battery, in Kotlin. What the runtime offers to
reach past the program ends in a refusal; threads and files in its own directory work."""

from __future__ import annotations

from tests.languages.runtime_plain import assert_refused, needs_runtime

pytestmark = needs_runtime("kotlin")

KOTLIN_PROBES = """
import java.io.File
import java.net.ServerSocket
import java.net.Socket
fun probe(what: String, act: () -> Any?) {
    try { val r = act(); println("$what ${r ?: "done"}") } catch (e: Throwable) { println("$what refused") }
}
fun main() {
    probe("process_builder") { ProcessBuilder("/bin/true").start().waitFor() }
    probe("runtime_exec") { Runtime.getRuntime().exec(arrayOf("/bin/true")).waitFor() }
    probe("read_passwd") { File("/etc/passwd").readText().length }
    probe("write_var_tmp") { File("/var/tmp/mcprobe").writeText("x") }
    probe("socket") { Socket("1.1.1.1", 80).close() }
    probe("server_socket") { ServerSocket(0).close() }
    probe("proc_parent") { File("/proc/1/cmdline").readText() }
    probe("thread") { var box = 0; val t = Thread { box = 42 }; t.start(); t.join(); box }
    probe("own_file") { File("mine.txt").writeText("ok"); File("mine.txt").readText() }
}
"""


REFUSED = ["process_builder", "runtime_exec", "read_passwd", "write_var_tmp", "socket",
           "server_socket", "proc_parent"]  # fmt: skip
WORKED = ["thread 42", "own_file ok"]


def test_kotlin_reaches_nothing_past_the_program(languages_grader):
    assert_refused(languages_grader, "kotlin", KOTLIN_PROBES, REFUSED, WORKED)


def test_a_kotlin_script_reaches_nothing_either(languages_grader):
    script = KOTLIN_PROBES.replace("fun main() {", "run {")
    assert_refused(languages_grader, "kotlin_script", script, REFUSED, WORKED)
