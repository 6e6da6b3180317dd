"""Haskell, built by GHC into one native program file and run as a judge runs it: ``ghc -O2
-o solution Main.hs`` (AtCoder's level; Codeforces passes ``-O``), then ``./solution < input
> output``, executed in the sandbox as a C++ binary is.

The build is confined as every build (ghc runs gcc and the linker as processes of its own,
its temporary files in the build directory); the program is linked statically against the
Haskell libraries Debian's ``ghc`` ships (``base``, ``containers``, ``array``, ``bytestring``,
...). MultiPL-E runs its programs with ``runghc``, GHC's interpreter, which starts ``ghc``
as a process: here the same source is compiled with no optimisation (``-O0``: the problem's
flags), which changes how fast a program runs, not what it prints. GHC's runtime grows a
thread's stack on the heap (to 80% of the memory it may use), so deep recursion is bounded
by the memory limit, as in a plain run."""

from __future__ import annotations

from .flag_rules import GHC
from .native import NativeLanguage

__all__ = ["LANGUAGE", "Haskell"]


class Haskell(NativeLanguage):
    name = "haskell"
    title = "Haskell (GHC)"
    extensions = (".hs",)
    fence_tags = ("haskell", "hs")
    default_flags = ("-O2",)
    flag_rule = GHC
    compiler_name = "ghc"
    package = "ghc"
    source = "Main.hs"
    # Debian keeps GHC's package database outside /usr (/usr/lib/ghc/package.conf.d links
    # there): the build reads it
    toolchain_paths = ("/var/lib/ghc",)

    def version_command(self) -> list[str]:
        return [self.compiler, "--numeric-version"]  # "9.0.2"

    def version_line(self, printed: str) -> str:
        return f"ghc {printed.strip()}"


LANGUAGE = Haskell()
