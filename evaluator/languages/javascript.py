"""JavaScript, run by Node.js as a judge runs it: ``node main.js < input > output``.

No build: the program is staged as ``main.js`` for the run, and a syntax error is the
program's runtime error (node exits 1 naming it), as in a plain run. The runtime is the
system's ``node`` (Debian's ``nodejs``, or NodeSource's), executed in the sandbox as the
child's one exec (``Job.runtime``); it reads its OpenSSL configuration at start, which the
sandbox lets it read. Memory is judged as for every program file: the peak resident set
(V8 reserves far more address space than it uses, which no limit counts)."""

from __future__ import annotations

from .script import ScriptLanguage

__all__ = ["LANGUAGE", "JavaScript"]


class JavaScript(ScriptLanguage):
    name = "javascript"
    title = "JavaScript (Node.js)"
    extensions = (".js", ".cjs")
    fence_tags = ("javascript", "js", "nodejs", "node")
    runtime_name = "node"
    runtime_reads = ("/etc/ssl/openssl.cnf",)
    package = "nodejs"
    script = "main.js"


LANGUAGE = JavaScript()
