"""D test programs, whose checks are ``unittest`` blocks: built with unit tests on and run,
as MultiPL-E's evaluator runs its D programs (``rdmd -unittest f.d``) and SandboxFusion its
``D_ut`` (``dmd f.d -unittest -of=test``, then ``./test``). Here with gdc: ``gdc -funittest
-o solution solution.d`` (no ``-O``: neither rdmd nor dmd optimises unless asked), then
``./solution``, a native program file in the sandbox as any D program.

D's runtime runs every ``unittest`` block before ``main``: a failed ``assert`` in one prints
``unittest failure`` and the program exits 1 (MultiPL-E's rule: exit 0 passes); when every
block passes it prints ``N modules passed unittests`` and, as DMD's runtime does, does not
run ``main`` (a program without a ``unittest`` block runs ``main`` as usual). Without
``-funittest`` the blocks are not compiled and every program passes, so these programs are a
language of their own, asked for by name (or by SandboxFusion's tag)."""

from __future__ import annotations

from .d import D

__all__ = ["LANGUAGE", "DUnittest"]

UNITTEST_FLAG = "-funittest"


class DUnittest(D):
    name = "d_unittest"
    title = "D unit tests (gdc -funittest)"
    extensions = ()  # a .d file is D's: this language is asked for by name
    fence_tags = ("d_ut",)  # SandboxFusion's D_ut (tags are matched in any case)
    default_flags = ()

    def command(self, flags: tuple[str, ...]) -> list[str]:
        """D's build with unit tests always on (flags that replace the defaults keep it)."""
        return super().command((UNITTEST_FLAG, *flags))


LANGUAGE = DUnittest()
