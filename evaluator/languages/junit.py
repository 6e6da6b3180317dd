"""Java test classes run by JUnit's console launcher (SandboxFusion's ``junit`` tag): built as
Java is (:mod:`.java`) with JUnit on the class path, then run as SandboxFusion's ``run_junit``
runs them, ``java -jar junit-platform-console-standalone.jar --class-path <classes>
--scan-class-path``, whose exit status is the verdict (0: every test found passed, or none
was found; 1: a test failed).

JUnit is Debian's ``junit5`` (the console launcher 1.9 with Jupiter 5.9 and Vintage, JUnit
4's ``@Test`` included; SandboxFusion ships the launcher 1.8.2): read by the build and the run
from ``/usr/share/java``. The source file is named after its public class, ``Main.java``
without one, as SandboxFusion names it.

Scanning lists the class directory, which the sandbox never lets a program list (the staged
files are opened by name). So the run selects the classes a scan would pick, by name
(``--select-class``): of the classes the build wrote, those the launcher's default class-name
filter keeps (``^(Test.*|.+[.$]Test.*|.*Tests?)$``, on the binary name, nested classes'
``$`` included), a filter the launcher applies to scanned classes only. A class called
``Main`` holding ``@Test`` methods so runs none, as under SandboxFusion; where no class is
kept, ``java.lang.Object`` is selected, which holds no test (the launcher needs one selector),
and the run reads as a scan that found none."""

from __future__ import annotations

import re

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build
from .java import JavaWithJar

__all__ = ["CONSOLE_LAUNCHER", "LANGUAGE", "JUnit", "class_names"]

CONSOLE_LAUNCHER = "/usr/share/java/junit-platform-console-standalone.jar"
# the console launcher's default --include-classname, which a --scan-class-path applies
SCANNED_CLASS_NAMES = re.compile(r"Test.*|.+[.$]Test.*|.*Tests?")
NO_TEST_CLASS = "java.lang.Object"  # a selector that finds nothing, where a scan finds nothing


class JUnit(JavaWithJar):
    name = "junit"
    title = "Java tests under JUnit 5's console launcher"
    extensions = ()  # a .java file is Java's: this language is asked for by name
    fence_tags = ("junit",)
    jar, jar_title, jar_package = CONSOLE_LAUNCHER, "JUnit", "junit5"

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        # the judge's JVM options; no ONLINE_JUDGE: a test class is no contest entry
        scanned = [name for name in class_names(build) if SCANNED_CLASS_NAMES.fullmatch(name)]
        selected = [f"--select-class={name}" for name in scanned or [NO_TEST_CLASS]]
        return ["java", *self.jvm_options(memory_mb), "-jar", self.jar, "--class-path", "{program}",
                *selected]  # fmt: skip


def class_names(build: Build | None) -> list[str]:
    """The binary names of the classes a build wrote (``pkg.Outer$Inner``), sorted."""
    files = build.files if build is not None and build.files else {}
    return sorted(path[: -len(".class")].replace("/", ".") for path in files)


LANGUAGE = JUnit()
