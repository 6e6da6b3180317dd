"""Verilog's security battery: a testbench's file tasks reach only the run directory
(``$fopen`` of the host's files for reading or writing, and of ``/proc``, each refused: the
descriptor is 0); its own files work, as in a plain run. Icarus' ``$system`` is not built in
(a program naming it does not run, plainly either), and Verilog has no sockets or
processes of its own; vvp itself is the child's one exec."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("verilog")

VERILOG_PROBES = """module tb;
  integer f;
  task probe(input [8*16:1] what, input integer fd);
    $display("%0s %0s", what, fd != 0 ? "done" : "refused");
  endtask
  initial begin
    f = $fopen("/etc/passwd", "r"); probe("read_passwd", f);
    f = $fopen("/proc/self/status", "r"); probe("read_proc", f);
    f = $fopen("/var/tmp/mcprobe", "w"); probe("write_var_tmp", f);
    f = $fopen("mine.txt", "w"); probe("own_file", f);
    $fdisplay(f, "ok"); $fclose(f);
    f = $fopen("mine.txt", "r"); probe("own_file_back", f);
  end
endmodule
"""


def test_verilog_reaches_nothing_past_the_program(languages_grader):
    expected = ["read_passwd refused", "read_proc refused", "write_var_tmp refused",
                "own_file done", "own_file_back done"]  # fmt: skip
    result = probe_answers(languages_grader, "verilog", VERILOG_PROBES, expected)
    assert result.verdict.value == "AC", result.message


def test_a_testbench_naming_system_does_not_run(languages_grader):
    source = 'module tb; initial begin $system("/bin/true"); $display("ran"); end endmodule'
    result = probe_answers(languages_grader, "verilog", source, ["ran"])
    assert result.verdict.value == "RE" and "exit status 1" in result.message
