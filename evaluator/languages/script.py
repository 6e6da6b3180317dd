"""What the languages a runtime runs from source share (JavaScript, Perl, Ruby, PHP, Lua): no
build, the source staged as one script for the run (``Build.files``), a syntax error the
program's own runtime error as in a plain run, and ``<runtime> <script> < input`` as the run."""

from __future__ import annotations

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Language, Tool

__all__ = ["ScriptLanguage"]


class ScriptLanguage(Language):
    """A language whose runtime runs its source: set ``runtime_name``, ``script`` (the
    staged file's name), ``version_argv`` (what prints the runtime's version) and
    ``package`` (the Debian package that installs the runtime, named when it is missing:
    :meth:`~.base.Language.runtime`)."""

    compiled = True  # its "build" stages the script: the runtime executes it
    interpreted = True
    script = ""  # "main.js"
    version_argv: tuple[str, ...] = ("--version",)

    def version_command(self) -> list[str]:
        runtime = self.runtime()
        assert runtime is not None
        return [runtime, *self.version_argv]

    def version_line(self, printed: str) -> str:
        """The runtime's name and version (``node v20.20.2``, ``perl v5.36.0``)."""
        return f"{self.runtime_name} {printed}"

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        return Build(None, files={self.script: source.encode("utf-8", "surrogateescape")})

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return [self.runtime_name, "{program}/" + self.script]
