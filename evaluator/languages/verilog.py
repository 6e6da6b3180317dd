"""Verilog and SystemVerilog testbenches, built by Icarus Verilog and simulated by its
runtime, as SandboxFusion's ``verilog`` runs them (after NVlabs' verilog-eval):
``iverilog -Wall -Winfloop -Wno-timescale -g2012 -s tb -o test.vvp main.sv``, then ``vvp -n
test.vvp``.

The build is confined as every build (the driver runs its preprocessor and compiler as
processes of its own, its temporary files in the build directory: ``TMPDIR``); the top module
is ``tb``, the testbench, and a source without one is a compile error, as there. The run
executes Debian's ``vvp`` in the sandbox (``Job.runtime``) on the compiled design staged
read-only; its system tasks' modules (``system.vpi``, ...) lie under ``/usr/lib``, which every
program may read. ``-n`` makes ``$stop`` end the simulation rather than wait at an
interactive prompt. What the testbench prints is its result (verilog-eval reads mismatches
from it); the simulator exits 0 unless ``$fatal`` or an error ends it. ``$system`` fails as
every process does, and ``$fopen`` reaches only the run directory."""

from __future__ import annotations

import functools
import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Language, Tool, find_tool
from .diagnostics import staged_build

__all__ = ["LANGUAGE", "Verilog"]

SOURCE = "main.sv"
DESIGN = "test.vvp"


class Verilog(Language):
    name = "verilog"
    title = "Verilog (Icarus Verilog)"
    extensions = (".v", ".sv")
    fence_tags = ("verilog", "systemverilog", "sv")
    compiled = True
    default_flags = ("-Wall", "-Winfloop", "-Wno-timescale", "-g2012", "-s", "tb")
    runtime_name = "vvp"
    package = "iverilog"

    @functools.cached_property
    def compiler(self) -> str:
        return find_tool("iverilog", self.title, self.package, resolve=False)

    def version_command(self) -> list[str]:
        return [self.compiler, "-V"]  # "Icarus Verilog version 11.0 (stable) ()"

    def version_line(self, printed: str) -> str:
        words = printed.splitlines()[0].split() if printed else []
        return f"iverilog {words[3]}" if len(words) > 3 else printed

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        text = source.encode("utf-8", "surrogateescape")  # the builder: a CE when it fails
        with open(os.path.join(work, SOURCE), "wb") as file:
            file.write(text)
        run = tool([self.compiler, *flags, "-o", DESIGN, SOURCE], work)
        return staged_build(run, tool, work, SOURCE, DESIGN)

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return [self.runtime_name, "-n", "{program}/" + DESIGN]


LANGUAGE = Verilog()
