"""Perl, run by the system's perl as a judge runs it: ``perl main.pl < input > output``.

No build: the source is staged as ``main.pl`` (a syntax error is the program's runtime
error: perl exits 255 naming it, as in a plain run). The runtime is Debian's ``perl``,
executed in the sandbox as the child's one exec (``Job.runtime``); it reads its modules from
``@INC``, which outside ``/usr/lib`` lies in ``/usr/share/perl5``, ``/usr/share/perl`` and
``/etc/perl``: the sandbox lets it read those. ``system``, backticks and ``exec`` fail as
every process does."""

from __future__ import annotations

from .script import ScriptLanguage

__all__ = ["LANGUAGE", "Perl"]


class Perl(ScriptLanguage):
    name = "perl"
    title = "Perl"
    extensions = (".pl",)
    fence_tags = ("perl", "pl")
    runtime_name = "perl"
    runtime_reads = ("/usr/share/perl5", "/usr/share/perl", "/etc/perl")
    package = "perl"
    script = "main.pl"
    version_argv = ("-e", "print $^V")


LANGUAGE = Perl()
