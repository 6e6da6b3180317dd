"""R's security battery: system, system2, pipe connections, files outside the run directory
(read, written, a file of its own moved there), sockets, /proc: each refused; files in its
own directory work, as in a plain run. ``Sys.which`` answers "" for every name (it runs
``which``: no process starts), the one change the sandbox's site profile makes."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("r")

R_PROBES = r"""
probe <- function(what, act) {
  ok <- tryCatch(suppressWarnings(isTRUE(act())), error = function(e) FALSE)
  cat(what, if (ok) "done" else "refused", "\n")
}
probe("system", function() system("true") == 0)
probe("system_intern", function() length(system("echo hi", intern = TRUE)) == 1)
probe("system2", function() system2("/bin/true") == 0)
probe("pipe", function() { p <- pipe("echo hi"); on.exit(close(p)); readLines(p) == "hi" })
probe("read_passwd", function() length(readLines("/etc/passwd")) > 0)
probe("write_var_tmp", function() { writeLines("x", "/var/tmp/mcprobe"); TRUE })
probe("proc_parent", function() length(readLines("/proc/1/cmdline", warn = FALSE)) >= 0)
probe("server_socket", function() { s <- serverSocket(0); close(s); TRUE })
probe("own_file", function() { writeLines("ok", "mine.txt"); readLines("mine.txt") == "ok" })
probe("move_out", function() file.rename("mine.txt", "/var/tmp/mcprobe-moved"))
probe("which_found", function() nzchar(Sys.which("uname")))
"""


def test_r_reaches_nothing_past_the_program(languages_grader):
    refused = ["system", "system_intern", "system2", "pipe", "read_passwd", "write_var_tmp",
               "proc_parent", "server_socket"]  # fmt: skip
    expected = [f"{name} refused " for name in refused]
    expected += ["own_file done ", "move_out refused ", "which_found refused "]
    result = probe_answers(languages_grader, "r", R_PROBES, expected)
    assert result.verdict.value == "AC", result.message
