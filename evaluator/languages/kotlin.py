"""Kotlin (Debian's ``kotlin`` 1.3.31), compiled by ``kotlinc`` and run on the JVM as Java is.

Build: ``kotlinc -d classes main.kt`` (the compiler's own script, a JVM), confined and
limited as every build; every class file it wrote is the program, and a top-level ``fun
main`` is the class ``MainKt``. Run: the judge's JVM command line (:meth:`Java.jvm_options`)
with Kotlin's standard library on the class path, ``java ... -cp <classes>:kotlin-stdlib.jar
MainKt`` (in the file's ``package``, when it names one; Codeforces runs Kotlin so: its own
``kotlinc``, then the JVM). Kotlin scripts
(SandboxFusion's ``kotlin_script``): :mod:`.kotlin_script`."""

from __future__ import annotations

import functools
import os
import re

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Tool, find_tool
from .java import CLASSES, JavaWithJar, classes_build

__all__ = ["KOTLIN_STDLIB", "LANGUAGE", "Kotlin"]

KOTLIN_STDLIB = "/usr/share/java/kotlin-stdlib.jar"
SOURCE = "main.kt"
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)", re.MULTILINE)


class Kotlin(JavaWithJar):
    name = "kotlin"
    title = "Kotlin (kotlinc)"
    extensions = (".kt",)
    fence_tags = ("kotlin", "kt")
    package = "kotlin"
    jar, jar_title, jar_package = KOTLIN_STDLIB, "Kotlin's standard library", "kotlin"
    source = SOURCE
    entry = "MainKt"  # the class of main.kt's top-level functions

    @functools.cached_property
    def compiler(self) -> str:
        """The ``kotlinc`` script (it starts the compiler's JVM)."""
        return find_tool("kotlinc", self.title, self.package)

    def version_command(self) -> list[str]:
        """``kotlinc -version``: ``info: kotlinc-jvm 1.3.31 (JRE ...)``."""
        return [self.compiler, "-version"]

    def version_line(self, printed: str) -> str:
        lines = [line for line in printed.splitlines() if "kotlinc" in line]
        return lines[0].strip().removeprefix("info: ") if lines else super().version_line(printed)

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        self.require_jar()
        with open(os.path.join(work, self.source), "wb") as file:
            file.write(source.encode("utf-8", "surrogateescape"))
        run = tool([self.compiler, "-d", CLASSES, *flags, self.source], work)
        return classes_build(run, tool, work, self.source, self.entry_of(source))

    def entry_of(self, source: str) -> str:
        """The class the run starts: :attr:`entry` in the file's ``package``, if it has one."""
        package = _PACKAGE.search(source)
        return f"{package.group(1)}.{self.entry}" if package else self.entry

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        entry = build.entry if build is not None and build.entry else self.entry
        return ["java", *self.jvm_options(memory_mb), "-DONLINE_JUDGE=true",
                "-cp", ":".join(("{program}", *self.class_path)), entry]  # fmt: skip

    @property
    def class_path(self) -> tuple[str, ...]:
        """The jars the run reads besides the program's classes."""
        return (self.jar,)


LANGUAGE = Kotlin()
