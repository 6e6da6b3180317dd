"""OCaml, run by its toplevel as MultiPL-E runs it: ``ocaml main.ml < input > output``.

No build: the source is staged as ``main.ml``, and the toplevel type-checks, compiles to
bytecode and runs it phrase by phrase, as ``ocaml f.ml`` does (a type or syntax error is the
program's runtime error, status 2, after the phrases before it ran). ``/usr/bin/ocaml`` is a
bytecode executable whose first line names ``/usr/bin/ocamlrun``: the kernel runs ``ocamlrun
/usr/bin/ocaml main.ml``, and so does the sandbox, ``ocamlrun`` the child's one exec (Debian's
``ocaml-nox``, 4.13). It reads the toplevel and the standard library's interfaces
(``/usr/lib/ocaml``, under ``/usr/lib``); ``Sys.command`` and ``Unix`` processes fail as every
process does. An uncaught exception ends the program with status 2, as in a plain run."""

from __future__ import annotations

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, find_tool
from .script import ScriptLanguage

__all__ = ["LANGUAGE", "OCaml"]


class OCaml(ScriptLanguage):
    name = "ocaml"
    title = "OCaml (the ocaml toplevel)"
    extensions = (".ml",)
    fence_tags = ("ocaml", "ml")
    runtime_name = "ocamlrun"
    package = "ocaml-nox"
    script = "main.ml"

    @property
    def toplevel(self) -> str:
        """The ``ocaml`` toplevel's bytecode file (links followed)."""
        return find_tool("ocaml", self.title, self.package)

    @property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        return (self.toplevel,)

    def version_command(self) -> list[str]:
        return [self.toplevel, "-version"]

    def version_line(self, printed: str) -> str:
        """``ocaml 4.13.1``, from ``The OCaml toplevel, version 4.13.1``."""
        return f"ocaml {printed.split()[-1]}" if printed else printed

    def runtime(self) -> str | None:
        find_tool("ocaml", self.title, self.package)  # raises, naming the package
        return super().runtime()

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return [self.runtime_name, self.toplevel, "{program}/" + self.script]


LANGUAGE = OCaml()
