"""Elixir, run as MultiPL-E runs it: ``elixir main.exs < input > output`` (Debian's Elixir 1.14
on Erlang/OTP 25).

No build: the source is staged as ``main.exs``, and Elixir compiles and runs it as it reads
it (a compile error is the program's runtime error, status 1, as in a plain run). ``elixir``
is a shell script that runs ``erl``, another script, which runs ``erlexec``, which executes
the Erlang virtual machine, ``beam.smp``, with the arguments and variables those three set;
in the sandbox ``beam.smp`` is the child's one exec, with those arguments (:meth:`argv`) and
variables (:meth:`run_environment`: ``ROOTDIR``, ``BINDIR``, ``EMU``, ``PROGNAME``), as it
ends in a plain run. It reads Erlang's and Elixir's libraries (``/usr/lib/erlang``,
``/usr/lib/elixir``). At start the VM forks ``erl_child_setup``, its helper for starting OS
processes (ports); in the sandbox the fork fails and the VM runs on without it, as for every
program whose processes are refused: ``System.cmd``, ``:os.cmd`` and port programs fail.
Erlang's own processes (``spawn``, ``Task``, ExUnit's tests) are the VM's, not the OS's:
they work."""

from __future__ import annotations

import functools
import glob
import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, ToolchainMissing, find_tool
from .script import ScriptLanguage

__all__ = ["LANGUAGE", "Elixir"]

ERLANG_ROOT = "/usr/lib/erlang"
ELIXIR_LIB = "/usr/lib/elixir/lib"
ELIXIR_APPS = ("eex", "elixir", "ex_unit", "iex", "logger", "mix")  # its script's -pa list


class Elixir(ScriptLanguage):
    name = "elixir"
    title = "Elixir (on the Erlang VM)"
    extensions = (".exs", ".ex")
    fence_tags = ("elixir", "ex", "exs")
    runtime_name = "beam.smp"
    package = "elixir"
    script = "main.exs"

    @functools.cached_property
    def bindir(self) -> str:
        """The Erlang runtime system's ``bin`` (``/usr/lib/erlang/erts-13.1.5/bin``)."""
        found = sorted(glob.glob(os.path.join(ERLANG_ROOT, "erts-*", "bin", "beam.smp")))
        if not found or not os.path.isdir(os.path.join(ELIXIR_LIB, "elixir")):
            raise ToolchainMissing(f"elixir is not installed: {self.title} needs "
                                   f"{ERLANG_ROOT} and {ELIXIR_LIB} (Debian: apt-get install "
                                   f"{self.package})")  # fmt: skip
        return os.path.dirname(found[-1])

    def runtime(self) -> str | None:
        return os.path.join(self.bindir, self.runtime_name)

    @property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        return (ERLANG_ROOT, os.path.dirname(ELIXIR_LIB))

    def version_command(self) -> list[str]:
        return [find_tool("elixir", self.title, self.package), "--version"]

    def version_line(self, printed: str) -> str:
        """``Elixir 1.14.0 (compiled with Erlang/OTP 25)``: the line naming Elixir."""
        lines = [line for line in printed.splitlines() if line.startswith("Elixir")]
        return lines[0].strip() if lines else super().version_line(printed)

    def run_environment(self) -> dict[str, str]:
        """What ``erl`` exports for ``erlexec`` and the VM."""
        return {"ROOTDIR": ERLANG_ROOT, "BINDIR": self.bindir, "EMU": "beam", "PROGNAME": "erl"}

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        """``erlexec``'s command line for ``elixir main.exs`` (its ``-home``: the run's
        private ``/tmp``, the program's own ``HOME`` being no place it may write)."""
        paths = [os.path.join(ELIXIR_LIB, app, "ebin") for app in ELIXIR_APPS]
        return [self.runtime_name, "--", "-root", ERLANG_ROOT, "-bindir", self.bindir,
                "-progname", "erl", "--", "-home", "/tmp", "--", "-pa", *paths, "-noshell",
                "-s", "elixir", "start_cli", "-extra", "{program}/" + self.script]  # fmt: skip


LANGUAGE = Elixir()
