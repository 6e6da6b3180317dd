"""Java test programs whose checks are ``assert`` statements (MultiPL-E's Java): built and
run as Java is (:mod:`.java`), with assertions enabled and javatuples on the class path, as
MultiPL-E's ``eval_java.py`` runs them (``javac -cp javatuples-1.2.jar``, then ``java -ea
-cp <classes>:javatuples-1.2.jar Problem``). Without ``-ea`` every ``assert`` is skipped and
every program passes, so these programs are a language of their own, asked for by name.

javatuples is Debian's ``libjavatuples-java`` (1.2, MultiPL-E's version), read by the build
and the run from ``/usr/share/java``; every MultiPL-E Java prompt imports it, so without it
the programs are ``UNSUPPORTED``, the message naming the package. A failed ``assert`` throws
``AssertionError``: the JVM exits 1."""

from __future__ import annotations

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build
from .java import JavaWithJar

__all__ = ["JAVATUPLES", "LANGUAGE", "JavaAssert"]

JAVATUPLES = "/usr/share/java/javatuples.jar"


class JavaAssert(JavaWithJar):
    name = "java_assert"
    title = "Java with assertions (java -ea, javatuples)"
    extensions = ()  # a .java file is Java's: this language is asked for by name
    fence_tags = ("java_assert",)
    jar, jar_title, jar_package = JAVATUPLES, "javatuples", "libjavatuples-java"

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        argv = super().argv(build, memory_mb)
        at = argv.index("-cp")
        argv[at + 1] = "{program}:" + self.jar
        return [argv[0], "-ea", *argv[1:]]


LANGUAGE = JavaAssert()
