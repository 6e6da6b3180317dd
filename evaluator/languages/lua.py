"""Lua, run by the system's lua as a judge runs it: ``lua main.lua < input > output``.

No build: the source is staged as ``main.lua`` (a syntax error is the program's runtime
error: lua exits 1 naming it, as in a plain run). The runtime is Debian's ``lua5.4``
(``/usr/bin/lua`` is a link through ``/etc/alternatives`` to ``lua5.4``: followed), executed
in the sandbox as the child's one exec (``Job.runtime``); at start it reads nothing beyond
the system's libraries, and ``require`` finds Lua modules in ``/usr/share/lua`` (Debian's
``lua-*`` packages: luaunit, MultiPL-E's test library), which it may read.
``os.execute`` and ``io.popen`` fail as every process does."""

from __future__ import annotations

from .script import ScriptLanguage

__all__ = ["LANGUAGE", "Lua"]


class Lua(ScriptLanguage):
    name = "lua"
    title = "Lua"
    extensions = (".lua",)
    fence_tags = ("lua",)
    runtime_name = "lua"
    runtime_reads = ("/usr/share/lua",)
    package = "lua5.4"
    script = "main.lua"
    version_argv = ("-v",)

    def version_line(self, printed: str) -> str:
        """``lua 5.4.4``, from ``Lua 5.4.4  Copyright (C) 1994-2022 Lua.org, PUC-Rio``."""
        words = printed.split()
        return f"lua {words[1]}" if len(words) > 1 else f"lua {printed}"


LANGUAGE = Lua()
