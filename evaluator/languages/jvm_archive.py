"""A class-data-sharing (CDS) archive of the JDK classes judged programs load, made once per
JDK on this machine: every JVM a program runs on (Java, JUnit, Scala) maps it instead of
reading and verifying those classes again.

The JDK ships an archive of the classes its own start loads (``lib/server/classes.jsa``,
from ``lib/classlist``); a judged program also loads the classes of its input and output
(``Scanner`` and its regular expressions, ``BufferedReader``, ``PrintWriter``,
``String.format``), of collections and streams and lambdas, and of the call driver's
reflection (``evaluator/harness/drivers/CallMain.java``). This archive holds both lists:
the JDK's own, and ours (``profiles/jvm_classes.lst``, the JDK classes those programs
loaded, from ``-XX:DumpLoadedClassList``). A class in neither loads as it always does.

Nothing a program does changes: CDS maps the same classes' parsed form (the JVM checks the
archive against itself and ignores one made by another JDK); the start is shorter and the
resident memory smaller (``docs/languages.md``, "Speed", measures both). The archive is made
by the grader's own trusted JVM (``java -Xshare:dump``) and checked (``-Xshare:on
-version``), once per JDK, in the user's cache (:mod:`.made_once`); a program reads it,
never writes it. Where it cannot be made (no writable cache, a JDK whose dump fails) the JVM
runs with its own archive, as before."""

from __future__ import annotations

import functools
import os

from .made_once import fingerprint, made_once, run_trusted

__all__ = ["CLASS_LIST", "archive_for"]

CLASS_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiles", "jvm_classes.lst")


@functools.cache
def archive_for(java: str) -> str | None:
    """The archive for the JVM ``java`` (made now if it is not there yet), or None where it
    cannot be made (a warning says why)."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    with open(CLASS_LIST) as ours:
        listed = ours.read()
    jdk = [os.path.join(home, "release"), os.path.join(home, "lib", "server", "libjvm.so")]
    name = f"jdk-{fingerprint(jdk, (home, listed))}.jsa"
    return made_once("jvm-cds", name, lambda work, target: _dump(java, home, work, target))


def _dump(java: str, home: str, work: str, target: str) -> None:
    """Dump the archive of the JDK's class list and ours to ``target``; check it maps."""
    classes = os.path.join(work, "classes.lst")
    with open(classes, "w") as out:
        for listed in (os.path.join(home, "lib", "classlist"), CLASS_LIST):
            if os.path.isfile(listed):
                with open(listed) as source:
                    out.writelines(line for line in source if not line.startswith("#"))
    common = ["-XX:+UseSerialGC", "-XX:-UsePerfData", f"-XX:SharedArchiveFile={target}"]
    run_trusted([java, "-Xshare:dump", f"-XX:SharedClassListFile={classes}", *common], "dump")
    run_trusted([java, "-Xshare:on", *common, "-version"], "check")
