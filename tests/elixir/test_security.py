"""Elixir (the Erlang VM): the security battery. What the runtime offers to reach past the
program (files, sockets, ``/proc``) ends in a refusal; an OS process (``System.cmd``,
``:os.cmd``, a port program) ends the program: the VM's helper that starts them was never
forked, and the VM stops when asked to use it. Erlang's own processes and files in its own
directory work."""

from __future__ import annotations

import pytest

from evaluator.problem import Harness, Problem, TestCase
from tests.languages.runtime_plain import assert_refused, needs_runtime

pytestmark = needs_runtime("elixir")

ELIXIR_PROBES = """
probe = fn what, act ->
  result =
    try do
      case act.() do
        {:error, _} -> "refused"
        :error -> "refused"
        value -> inspect(value)
      end
    rescue
      _ -> "refused"
    catch
      _, _ -> "refused"
    end
  IO.puts("#{what} #{result}")
end
probe.("read_passwd", fn -> File.read("/etc/passwd") end)
probe.("write_var_tmp", fn -> File.write("/var/tmp/mcprobe", "x") end)
probe.("socket", fn -> :gen_tcp.connect({1, 1, 1, 1}, 80, [], 2000) end)
probe.("listen", fn -> :gen_tcp.listen(0, []) end)
probe.("proc_parent", fn -> File.read("/proc/1/cmdline") end)
probe.("process", fn -> t = Task.async(fn -> 42 end); Task.await(t) end)
probe.("own_file", fn -> File.write!("mine.txt", "ok"); File.read!("mine.txt") end)
"""


def test_elixir_reaches_nothing_past_the_program(languages_grader):
    refused = ["read_passwd", "write_var_tmp", "socket", "listen", "proc_parent"]
    assert_refused(
        languages_grader, "elixir", ELIXIR_PROBES, refused, ["process 42", 'own_file "ok"']
    )


@pytest.mark.parametrize(
    "start",
    [
        'System.cmd("/bin/echo", ["hi"])',
        ':os.cmd(~c"echo hi")',
        'Port.open({:spawn, "echo hi"}, [:binary])',
    ],
)
def test_an_os_process_ends_the_program(languages_grader, start):
    problem = Problem("p", Harness.STDIN, [TestCase("", "unreached\n")])
    code = f'IO.puts("before")\n{start}\nIO.puts("unreached")\n'
    result = languages_grader.grade(problem, code, "elixir")
    assert result.verdict.value == "RE", result
    assert "Failed to write to erl_child_setup" in result.tests[0].stderr
