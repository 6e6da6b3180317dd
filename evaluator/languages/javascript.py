"""JavaScript, run by Node.js as a judge runs it: ``node main.js < input > output``.

No build: the program is staged as ``main.js`` for the run, and a syntax error is the
program's runtime error (node exits 1 naming it), as in a plain run. The runtime is the
system's ``node`` (Debian's ``nodejs``, or NodeSource's), executed in the sandbox as the
child's one exec (``Job.runtime``); it reads its OpenSSL configuration at start, which the
sandbox lets it read. Memory is judged as for every program file: the peak resident set
(V8 reserves far more address space than it uses, which no limit counts)."""

from __future__ import annotations

import functools
import subprocess

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Language, Tool

__all__ = ["LANGUAGE", "JavaScript"]

SCRIPT = "main.js"


class JavaScript(Language):
    name = "javascript"
    title = "JavaScript (Node.js)"
    extensions = (".js", ".cjs")
    fence_tags = ("javascript", "js", "nodejs", "node")
    compiled = True  # its "build" stages the script: the runtime executes it
    interpreted = True
    runtime_name = "node"
    runtime_reads = ("/etc/ssl/openssl.cnf",)

    @functools.cached_property
    def _version(self) -> str:
        node = self.runtime()
        assert node is not None
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
        return f"node {done.stdout.strip()}"

    def version(self) -> str:
        """``node --version``, e.g. ``node v20.20.2``."""
        return self._version

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        text = source.encode("utf-8", "surrogateescape")  # the builder: a CE when it fails
        return Build(None, files={SCRIPT: text})

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return ["node", "{program}/" + SCRIPT]


LANGUAGE = JavaScript()
