"""Scala, built by scalac and run by Scala's own runner on the JVM, as SandboxFusion and
MultiPL-E run it: ``scalac -d classes main.scala``, then ``scala -cp classes Main``.

Debian's Scala is 2.11 (``scala``, whose ``scalac`` and ``scala`` are shell scripts that
start the JVM; it runs on the system's JDK 17). The build runs ``scalac`` confined, as every
build. The run is what the ``scala`` script executes, less the script: the JVM, with the
Scala distribution's jars on its class path, starting ``scala.tools.nsc.MainGenericRunner
-cp <classes> Main``, which loads the program's object and calls its ``main`` in the same
JVM; the JVM is the child's one exec, with Java's options (:mod:`.java`: the serial
collector, a 64 MiB main stack, the heap ``-Xmx`` the memory limit where the script's
default is 256 MiB). The object run is the one that declares ``main`` (or extends ``App``),
else the first object, with its package; SandboxFusion refuses a source with no object
("Object name not found."), here it is a compile error naming ``Main`` as missing.
"""

from __future__ import annotations

import functools
import os
import re

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Tool, ToolchainMissing, find_tool
from .java import CLASSES, COMMENTS, Java, classes_build

__all__ = ["LANGUAGE", "SCALA_HOME", "Scala", "entry_object"]

SCALA_HOME = "/usr/share/scala-2.11"
SOURCE = "main.scala"
RUNNER = "scala.tools.nsc.MainGenericRunner"
_OBJECT = re.compile(r"\bobject\s+([A-Za-z_][\w$]*)")
_MAIN = re.compile(r"\bdef\s+main\b")
_APP_OBJECT = re.compile(r"\bobject\s+([A-Za-z_][\w$]*)\s+extends\s+App\b")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)", re.MULTILINE)


class Scala(Java):
    name = "scala"
    title = "Scala 2 (scalac, the scala runner)"
    extensions = (".scala", ".sc")
    fence_tags = ("scala",)
    package = "scala"

    @functools.cached_property
    def compiler(self) -> str:
        """``scalac``: the distribution's script (links followed), which starts the JVM."""
        return find_tool("scalac", self.title, self.package)

    @functools.cached_property
    def jars(self) -> tuple[str, ...]:
        """The distribution's jars, as its ``scala`` script puts them on the class path."""
        lib = os.path.join(SCALA_HOME, "lib")
        if not os.path.isdir(lib):  # not installed, or not laid out as Debian's
            raise ToolchainMissing(f"{lib} is not installed: {self.title} runs Debian's "
                                   f"Scala 2.11 (apt-get install {self.package})")  # fmt: skip
        return tuple(sorted(os.path.join(lib, name) for name in os.listdir(lib)
                            if name.endswith(".jar")))  # fmt: skip

    @property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        return (*super().runtime_reads, SCALA_HOME, *(os.path.realpath(j) for j in self.jars))

    @property
    def toolchain_paths(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.runtime_reads

    def version_command(self) -> list[str]:
        return [self.compiler, "-version"]  # "Scala compiler version 2.11.12 -- Copyright ..."

    def version_line(self, printed: str) -> str:
        words = printed.split()
        return f"scalac {words[3]}" if len(words) > 3 else printed

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        with open(os.path.join(work, SOURCE), "wb") as file:
            file.write(source.encode("utf-8", "surrogateescape"))
        os.makedirs(os.path.join(work, CLASSES), exist_ok=True)
        run = tool([self.compiler, "-encoding", "UTF-8", "-d", CLASSES, *flags, SOURCE], work)
        return classes_build(run, tool, work, SOURCE, entry_object(source))

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return ["java", *self.jvm_options(memory_mb), "-classpath", ":".join(self.jars),
                f"-Dscala.home={SCALA_HOME}", "-Dscala.usejavacp=true", "-Denv.emacs=",
                RUNNER, "-cp", "{program}", build.entry if build else "Main"]  # fmt: skip


def entry_object(source: str) -> str:
    """The object the run starts: the one declaring ``main``, else one extending ``App``,
    else the first object, else ``Main``; with the source's package."""
    text = COMMENTS.sub(" ", source)
    objects = list(_OBJECT.finditer(text))
    # an object's text runs to the next object's start: the one whose text declares main
    ends = [o.start() for o in objects[1:]] + [len(text)] * bool(objects)
    with_main = [
        o for o, end in zip(objects, ends, strict=True) if _MAIN.search(text, o.end(), end)
    ]
    found = (with_main or [None])[0] or _APP_OBJECT.search(text) or (objects or [None])[0]
    package = _PACKAGE.search(text)
    name = found.group(1) if found else "Main"
    return f"{package.group(1)}.{name}" if package else name


LANGUAGE = Scala()
