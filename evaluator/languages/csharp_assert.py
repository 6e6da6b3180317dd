"""C# test programs whose checks are ``Debug.Assert`` calls (MultiPL-E's C#): built and run as
C# is (:mod:`.csharp`), as MultiPL-E's ``eval_cs.py`` builds and runs them: ``csc /d:DEBUG
-r:System.Numerics.dll`` (here Mono's ``mcs`` with the same options: Debian has no Roslyn),
then ``mono f.exe`` with ``MONO_TRACE_LISTENER=Console.Error``. Without ``DEBUG`` every
``Debug.Assert`` is compiled away; without the listener a failed one prints nothing; and
either way Mono exits 0 after it. So these programs are a language of their own, asked for
by name, and their judge reads stderr (``debug_asserts``)."""

from __future__ import annotations

from .csharp import CSharp

__all__ = ["LANGUAGE", "CSharpAssert"]


class CSharpAssert(CSharp):
    name = "csharp_assert"
    title = "C# with Debug.Assert reported (mcs -d:DEBUG, Mono's trace listener on stderr)"
    extensions = ()  # a .cs file is C#'s: this language is asked for by name
    fence_tags = ("csharp_assert",)
    default_flags = ("-d:DEBUG", "-r:System.Numerics.dll")

    def run_environment(self) -> dict[str, str]:
        return {**super().run_environment(), "MONO_TRACE_LISTENER": "Console.Error"}


LANGUAGE = CSharpAssert()
