"""Elixir programs run by ``elixir main.exs`` plainly and in the sandbox (the Erlang VM the
script ends in, with the arguments and variables the scripts set) agree (verdict, stdout,
exit status): reading stdin every way, printing, exit paths (``System.halt``, a raise, a
compile error, an exit signal), Erlang processes and tasks, ExUnit (MultiPL-E's tests), deep
recursion and limits."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.languages.runtime_plain import LIMITS, SUM_INPUT, assert_agrees, needs_runtime

pytestmark = needs_runtime("elixir")

CASES = [
    (
        "read_lines_sum",
        """[n | rest] = IO.read(:stdio, :eof) |> String.split("\\n", trim: true)
rest |> Enum.take(String.to_integer(n)) |> Enum.each(fn line ->
  [a, b] = line |> String.split() |> Enum.map(&String.to_integer/1)
  IO.puts(a + b)
end)""",
        SUM_INPUT,
    ),
    (
        "io_gets_loop",
        """n = IO.gets("") |> String.trim() |> String.to_integer()
for _ <- 1..n do
  [a, b] = IO.gets("") |> String.split() |> Enum.map(&String.to_integer/1)
  IO.puts(a * b)
end""",
        SUM_INPUT,
    ),
    (
        "stdout_and_stderr",
        """IO.puts("out"); IO.puts(:stderr, "err"); IO.write("no newline")""",
        b"",
    ),
    ("halt_with_status", """IO.puts("x"); System.halt(3)""", b""),
    ("raise", """IO.puts("before"); raise ArgumentError, "boom\"""", b""),
    ("compile_error", """x = \n""", b""),
    ("exit_signal", """exit(:shutdown)""", b""),
    (
        "processes_and_tasks",
        """parent = self()
pids = for i <- 1..50, do: spawn(fn -> send(parent, {:sq, i * i}) end)
total = Enum.reduce(pids, 0, fn _, acc -> receive do {:sq, v} -> acc + v end end)
t = Task.async(fn -> Enum.sum(1..1000) end)
IO.puts("#{total} #{Task.await(t)}")""",
        b"",
    ),
    (
        "ex_unit",
        """ExUnit.start(formatters: [])  # its report has timings and a random seed
defmodule T do
  use ExUnit.Case, async: true
  test "adds" do
    assert 1 + 1 == 2
  end
end""",
        b"",
    ),
    (
        "ex_unit_failure",
        """ExUnit.start(formatters: [])  # its report has timings and a random seed
defmodule T do
  use ExUnit.Case, async: true
  test "adds" do
    assert 1 + 1 == 3
  end
end""",
        b"",
    ),
    (
        "deep_recursion",
        """defmodule R do
  def f(0), do: 0
  def f(n), do: 1 + f(n - 1)
end
IO.puts(R.f(1_000_000))""",
        b"",
    ),
    ("infinite_loop", """defmodule L do\n  def loop(x), do: loop(x + 1)\nend\nL.loop(0)""", b""),
]

# the VM's JIT maps its code twice through a file it sizes to 8 MB (ftruncate): a plain run
# under a smaller file-size limit dies of SIGXFSZ at start (in the sandbox, which refuses
# that memfd, the VM maps its code once: docs/languages.md, "Elixir")
PLAIN_LIMITS = replace(LIMITS, output_bytes=16 << 20)


@pytest.mark.parametrize(("name", "source", "stdin"), CASES, ids=[c[0] for c in CASES])
def test_sandbox_agrees_with_a_plain_run(languages_grader, name, source, stdin):
    assert_agrees(languages_grader, "elixir", name, source, stdin, PLAIN_LIMITS)
