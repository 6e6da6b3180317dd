"""Ruby's security battery: system, backticks, spawn, fork, IO.popen, exec, files outside the
run directory, sockets, signals beyond the program: each refused; files in its own
directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("ruby")

RUBY_PROBES = r"""
require "socket"
def probe(what)
  ok = begin; yield; rescue Exception; false; end
  puts "#{what} #{ok ? "done" : "refused"}"; $stdout.flush
end
probe("system") { system("/bin/true") == true }
probe("backticks") { `echo hi` == "hi\n" }
probe("percent_x") { %x(echo hi) == "hi\n" }
probe("spawn") { Process.wait(spawn("/bin/true")); true }
probe("fork") { pid = fork { exit!(0) }; Process.wait(pid); true }
probe("popen") { IO.popen(["/bin/echo", "hi"], &:read) == "hi\n" }
probe("read_passwd") { File.read("/etc/passwd"); true }
probe("write_var_tmp") { File.write("/var/tmp/mcprobe", "x"); true }
probe("socket") { Socket.new(:INET, :STREAM); true }
probe("kill_parent") { Process.kill(0, Process.ppid); true }
probe("own_file") { File.write("mine.txt", "ok") == 2 }
probe("exec") { exec("/bin/true") }
"""


def test_ruby_reaches_nothing_past_the_program(languages_grader):
    refused = ["system", "backticks", "percent_x", "spawn", "fork", "popen", "read_passwd",
               "write_var_tmp", "socket", "kill_parent"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["own_file done", "exec refused"]
    result = probe_answers(languages_grader, "ruby", RUBY_PROBES, expected)
    assert result.verdict.value == "AC", result.message
