"""TypeScript, type-checked and compiled by ``tsc`` (the npm package ``typescript``, with
``@types/node``), then run by Node.js as JavaScript is: the rule of AtCoder's TypeScript and
MultiPL-E's evaluation, where a program that does not type-check fails to build (a ``CE``).

Build: ``tsc --target es2022 --module commonjs --typeRoots <@types> --types node
--skipLibCheck main.ts`` (emitting ``main.js``), confined as every build; ``tsc`` is run as
the system's ``node`` running the package's entry script (TypeScript 7's entry starts its
native compiler). Run: ``node main.js < input``, exactly as a JavaScript program
(``evaluator/languages/javascript.py``)."""

from __future__ import annotations

import functools
import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Language, Tool, ToolchainMissing, find_tool
from .diagnostics import staged_build
from .flag_rules import TSC
from .javascript import LANGUAGE as JAVASCRIPT

__all__ = ["LANGUAGE", "TypeScript"]

SOURCE = "main.ts"
SCRIPT = JAVASCRIPT.script  # what node runs: tsc writes it beside main.ts
_INSTALL = "npm install -g typescript @types/node"


class TypeScript(Language):
    name = "typescript"
    title = "TypeScript (tsc, Node.js)"
    extensions = (".ts",)
    fence_tags = ("typescript", "ts")
    compiled = True
    default_flags = ("--target", "es2022", "--module", "commonjs", "--skipLibCheck")
    flag_rule = TSC
    runtime_name = JAVASCRIPT.runtime_name
    runtime_reads = JAVASCRIPT.runtime_reads

    @functools.cached_property
    def entry(self) -> str:
        """The ``typescript`` package's ``tsc`` script (links followed). Raises ``OSError``
        saying how to install it."""
        try:
            return find_tool("tsc", self.title)
        except ToolchainMissing:
            raise ToolchainMissing(
                f"tsc is not installed: {self.title} needs it ({_INSTALL})"
            ) from None

    @functools.cached_property
    def type_roots(self) -> str:
        """Where ``@types/node`` is: beside the ``typescript`` package."""
        package = os.path.dirname(os.path.dirname(self.entry))
        roots = os.path.join(os.path.dirname(package), "@types")
        if not os.path.isdir(os.path.join(roots, "node")):
            raise ToolchainMissing(
                f"@types/node is not installed: {self.title} needs it ({_INSTALL})"
            )
        return roots

    def version_command(self) -> list[str]:
        """``tsc --version``, read as ``tsc 7.0.2``."""
        return [self.runtime() or "node", self.entry, "--version"]

    def version_line(self, printed: str) -> str:
        return f"tsc {printed.removeprefix('Version ')}"

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        text = source.encode("utf-8", "surrogateescape")  # the builder: a CE when it fails
        with open(os.path.join(work, SOURCE), "wb") as file:
            file.write(text)
        node = self.runtime()
        assert node is not None
        argv = [node, self.entry, *flags, "--typeRoots", self.type_roots, "--types", "node"]
        run = tool([*argv, "--noEmitOnError", SOURCE], work)
        return staged_build(run, tool, work, SOURCE, SCRIPT)

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return JAVASCRIPT.argv(build, memory_mb)

    def run_environment(self) -> dict[str, str]:
        return JAVASCRIPT.run_environment()  # node runs the output, as JavaScript

    # tsc runs on node, which reads its OpenSSL configuration; the package and its types
    # lie under /usr/lib (the system's toolchain)
    toolchain_paths = JAVASCRIPT.runtime_reads


LANGUAGE = TypeScript()
