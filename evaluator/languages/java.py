"""Java, built with javac and run by the JVM as contest judges run it.

Build: ``javac -encoding UTF-8 -d classes Main.java``, confined and limited as every build
(:mod:`evaluator.sandbox.launcher`). The source file is named after its ``public`` class
(javac requires it), ``Main.java`` when it has none. The class that is run is that public
class, else the class declaring ``main`` (Codeforces and AtCoder accept either), with its
``package``. Every class file the build wrote is staged for the run, read through the build
directory without following a link (:func:`~evaluator.sandbox.files.run_files.read_path`).

Run: Codeforces' command line, less what is Windows' or its jar's:
``java -XX:+UseSerialGC -Xss64m -Xmx<memory limit>m -DONLINE_JUDGE=true -cp <classes> Main``
(the serial collector on a small heap, a 64 MiB stack for the main thread's deep
recursion, the heap bounded by the problem's memory limit, ``ONLINE_JUDGE`` defined as
contest programs test it before reading ``input.txt``), plus ``-XX:-UsePerfData`` (no
``/tmp/hsperfdata`` file: nothing a program sees) and ``-XX:SharedArchiveFile=`` our
class-data archive of the JDK classes judged programs load (:mod:`.jvm_archive`). The JVM is
the system's JDK, executed in the sandbox as the child's one exec (``Job.runtime``). Memory
is judged as for every program file, by the peak resident set of the whole process, the
JVM's own (about 40 MB) included.
"""

from __future__ import annotations

import functools
import os
import re

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from . import jvm_archive
from .base import Build, Language, Tool, ToolchainMissing, ToolRun, find_tool, read_program
from .diagnostics import CPU_LIMIT_MESSAGE, compile_failure
from .flag_rules import NO_FLAGS

__all__ = ["LANGUAGE", "Java", "JavaWithJar", "classes_build"]

CLASSES = "classes"  # where javac writes the class files, in the build directory
_IDENT = r"[A-Za-z_$][\w$]*"
_PUBLIC_CLASS = re.compile(rf"\bpublic\s+(?:(?:final|abstract|strictfp)\s+)*class\s+({_IDENT})")
_CLASS = re.compile(rf"\b(?:class|interface|enum|record)\s+({_IDENT})")
_MAIN = re.compile(r"\bvoid\s+main\s*\(")
_PACKAGE_LINE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)  # Java's and Scala's


class Java(Language):
    name = "java"
    title = "Java (OpenJDK)"
    extensions = (".java",)
    fence_tags = ("java",)
    compiled = True
    flag_rule = NO_FLAGS
    runtime_name = "java"
    package = "openjdk-17-jdk-headless"
    memory_marks = ("java.lang.OutOfMemoryError",)  # the heap (-Xmx: the limit) ran out

    @functools.cached_property
    def compiler(self) -> str:
        """javac's file, of the same JDK as the runtime (``/usr/bin/javac`` is a link)."""
        return find_tool("javac", self.title, self.package)

    @functools.cached_property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        """The JDK's configuration where its distribution keeps it outside the JDK (Debian:
        ``/etc/java-17-openjdk``, which ``conf/`` links into): the JVM reads it at start."""
        java = self.runtime()
        assert java is not None
        archive = jvm_archive.archive_for(java)  # made here, once per JDK, if it is not there
        home = os.path.dirname(os.path.dirname(java))
        return (*linked_outside(home), *((archive,) if archive else ()))

    @property
    def toolchain_paths(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.runtime_reads  # javac is a JVM too

    def version_command(self) -> list[str]:
        """``javac -version``, e.g. ``javac 17.0.15``."""
        return [self.compiler, "-version"]

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        text = source.encode("utf-8", "surrogateescape")  # the builder: a CE when it fails
        public, entry = main_class(source)
        name = f"{public or 'Main'}.java"
        with open(os.path.join(work, name), "wb") as file:
            file.write(text)
        # javac is a JVM too: a small serial heap and the quick JIT keep a build short
        argv = [self.compiler, "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1"]
        argv += ["-J-Xshare:auto", "-encoding", "UTF-8", "-d", CLASSES, *flags, name]
        return classes_build(tool(argv, work), tool, work, name, entry)

    def jvm_options(self, memory_mb: int) -> list[str]:
        """The judge's JVM options: the serial collector, a 64 MiB main stack, the heap the
        memory limit, no perf-data file (every language on the JVM runs with them); and our
        class-data archive where there is one (:mod:`.jvm_archive`: a shorter start, the same
        run)."""
        options = ["-XX:+UseSerialGC", "-Xss64m", f"-Xmx{memory_mb}m", "-XX:-UsePerfData"]
        try:
            java = self.runtime()
        except OSError:  # not installed: its programs are refused before they run
            return options
        archive = jvm_archive.archive_for(java) if java else None
        return [*options, f"-XX:SharedArchiveFile={archive}"] if archive else options

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        entry = build.entry if build is not None else "Main"
        return ["java", *self.jvm_options(memory_mb), "-DONLINE_JUDGE=true", "-cp", "{program}",
                entry]  # fmt: skip


class JavaWithJar(Java):
    """Java whose build has one library jar on its class path (javatuples, JUnit's console
    launcher), which the run reads too: a subclass names the jar, what it is, and the Debian
    package that installs it (a missing jar makes the program ``UNSUPPORTED``, naming it)."""

    jar = ""  # its absolute path
    jar_title = ""  # for people ("javatuples")
    jar_package = ""

    @property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        return (*super().runtime_reads, os.path.realpath(self.jar))

    def require_jar(self) -> None:
        """``ToolchainMissing``, naming the package, when the jar is not installed."""
        if not os.path.isfile(self.jar):
            raise ToolchainMissing(f"{self.jar_title} is not installed: {self.title} needs "
                                   f"{self.jar} (Debian: apt-get install {self.jar_package})")  # fmt: skip

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        self.require_jar()
        return super().build(source, ("-cp", self.jar, *flags), work, tool)


def classes_build(run: ToolRun, tool: Tool, work: str, source: str, entry: str) -> Build:
    """The build of a compiler for the JVM that wrote its class files below ``CLASSES``
    (javac, scalac): the class files, staged for the run, with the class it starts from; or
    the failure, in one line."""
    output = run.output.decode("utf-8", "replace")
    if run.status != 0 or run.limit is not None:
        message = compile_failure(run, output, tool, source)
        return Build(None, message, output, run.seconds, message == CPU_LIMIT_MESSAGE)
    files, why = read_tree(os.path.join(work, CLASSES), tool.limits.output_bytes)
    if files is None:
        return Build(None, f"the build left no program: {why}", output)
    return Build(None, output=output, seconds=run.seconds, files=files, entry=entry)


def main_class(source: str) -> tuple[str | None, str]:
    """The source's public class (None: it has none) and the class the run starts from,
    with its package: the public class, else the class declaring ``main`` (the last one
    declared before it), else ``Main``."""
    text = COMMENTS.sub(" ", source)
    public = _PUBLIC_CLASS.search(text)
    if public is not None:
        entry = public.group(1)
    else:
        main = _MAIN.search(text)
        before = _CLASS.findall(text[: main.start()] if main else "")
        entry = before[-1] if before else "Main"
    package = _PACKAGE_LINE.search(text)
    prefix = f"{package.group(1)}." if package else ""
    return (public.group(1) if public else None), prefix + entry


def linked_outside(home: str) -> tuple[str, ...]:
    """The directories outside ``/usr`` that links in the JDK ``home``'s ``conf`` and
    ``lib`` point into, the top ones only."""
    found: set[str] = set()
    for top in ("conf", "lib"):
        for directory, dirs, names in os.walk(os.path.join(home, top)):
            for name in (*dirs, *names):
                path = os.path.join(directory, name)
                real = os.path.realpath(path)
                if os.path.islink(path) and not real.startswith(("/usr/", home + "/")):
                    found.add(real if os.path.isdir(real) else os.path.dirname(real))
    tops = sorted(found)
    return tuple(p for p in tops if not any(p.startswith(q + "/") for q in tops if q != p))


def read_tree(root: str, limit: int) -> tuple[dict[str, bytes] | None, str]:
    """The class files below ``root`` by relative path, read as a build's output is read
    (:func:`~evaluator.languages.base.read_program`: regular files, no link followed), at
    most ``limit`` bytes in all; None and why when there are none or one cannot be read."""
    found: dict[str, bytes] = {}
    total = 0
    for directory, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(directory, d))]
        for name in sorted(n for n in names if n.endswith(".class")):
            data, why = read_program(directory, name, limit - total)
            relative = os.path.relpath(os.path.join(directory, name), root)
            if data is None:
                return None, f"{relative!r} is {why}"
            found[relative] = data
            total += len(data)
    if not found:
        return None, "no class file"
    return found, ""


LANGUAGE = Java()
