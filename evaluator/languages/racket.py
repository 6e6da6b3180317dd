"""Racket, run by the system's racket as SandboxFusion and MultiPL-E run it: ``racket
main.rkt < input > output``.

No build: the source is staged as ``main.rkt`` (a syntax error or an unbound name is the
program's runtime error: racket prints it and exits 1, as in a plain run; the module is
expanded and compiled in memory at each run, as ``racket f.rkt`` does without a
``compiled/`` directory beside it). The runtime is Debian's Racket CS (``racket``, 8.7),
executed in the sandbox as the child's one exec (``Job.runtime``); it reads its collections
(``/usr/share/racket``), their compiled forms (``/usr/lib/racket``, under ``/usr/lib``,
which every program may read) and its configuration (``/etc/racket``). A user's own
collections (``~/.local/share/racket``) are not read: the grader's home is none of the
program's. ``system``, ``process`` and ``subprocess`` fail as every process does."""

from __future__ import annotations

from .script import ScriptLanguage

__all__ = ["LANGUAGE", "Racket"]


class Racket(ScriptLanguage):
    name = "racket"
    title = "Racket"
    extensions = (".rkt",)
    fence_tags = ("racket", "rkt", "scheme")
    runtime_name = "racket"
    runtime_reads = ("/usr/share/racket", "/etc/racket")
    package = "racket"
    script = "main.rkt"

    def version_line(self, printed: str) -> str:
        """``racket 8.7 [cs]``, from ``Welcome to Racket v8.7 [cs].``"""
        words = printed.rstrip(".").split()
        return f"racket {' '.join(words[3:]).lstrip('v')}" if len(words) > 3 else printed


LANGUAGE = Racket()
