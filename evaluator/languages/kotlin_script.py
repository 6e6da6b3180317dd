"""Kotlin scripts (``.kts``: top-level statements run in order; SandboxFusion's
``kotlin_script``, which runs ``kotlin f.kts``).

Debian's Kotlin 1.3.31 has no script runner (``kotlin f.kts``: "running Kotlin scripts is
not yet supported"), but its compiler compiles a script: ``kotlinc -d classes main.kts``
writes the class ``Main``, whose constructor runs the script's statements. The build adds
one small class of ours (:data:`LAUNCHER`) whose ``main`` makes that object, an exception
the script throws ending the run as an uncaught one does. The launcher is compiled by
``javac`` once per machine and JDK (:func:`launcher_class`, in the grader's cache) and added
to each build's class files; where it cannot be made there, each build compiles it beside the
script. The run is Kotlin's (:mod:`.kotlin`) with Kotlin's script runtime on the class path
too."""

from __future__ import annotations

import functools
import os

from .base import Build, Tool, find_tool
from .java import CLASSES, classes_build
from .kotlin import Kotlin
from .made_once import fingerprint, made_once, run_trusted

__all__ = ["LANGUAGE", "LAUNCHER", "KotlinScript", "launcher_class"]

SCRIPT_RUNTIME = "/usr/share/java/kotlin-script-runtime.jar"
LAUNCHER_CLASS = "McKotlinScript"
LAUNCHER = f"""public class {LAUNCHER_CLASS} {{
    public static void main(String[] args) throws Throwable {{
        try {{
            Class.forName("Main").getConstructor(String[].class).newInstance((Object) args);
        }} catch (java.lang.reflect.InvocationTargetException thrown) {{
            // the script's own exception, as an uncaught one, its trace the script's frames
            Throwable cause = thrown.getCause();
            java.util.List<StackTraceElement> kept = new java.util.ArrayList<>();
            for (StackTraceElement frame : cause.getStackTrace()) {{
                String name = frame.getClassName();
                if (!name.startsWith("java.lang.reflect.") && !name.startsWith("jdk.internal.")
                        && !name.equals("{LAUNCHER_CLASS}")) kept.add(frame);
            }}
            cause.setStackTrace(kept.toArray(new StackTraceElement[0]));
            throw cause;
        }}
    }}
}}
"""


class KotlinScript(Kotlin):
    name = "kotlin_script"
    title = "Kotlin script (kotlinc, .kts)"
    extensions = (".kts",)
    fence_tags = ("kotlin_script", "kts")
    source = "main.kts"
    entry = LAUNCHER_CLASS

    @property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        return (*super().runtime_reads, os.path.realpath(SCRIPT_RUNTIME))

    @property
    def class_path(self) -> tuple[str, ...]:
        return (self.jar, SCRIPT_RUNTIME)

    @functools.cached_property
    def javac(self) -> str:
        return find_tool("javac", "the Java compiler", "openjdk-17-jdk-headless")

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        built = super().build(source, flags, work, tool)
        if not built.ok:
            return built
        made = launcher_class(self.javac)
        if made is not None:  # the launcher beside the script's classes, one javac saved
            with open(made, "rb") as file:
                launcher = file.read()
            files = {**(built.files or {}), f"{LAUNCHER_CLASS}.class": launcher}
            return Build(None, output=built.output, seconds=built.seconds, files=files,
                         entry=self.entry)  # fmt: skip
        with open(os.path.join(work, f"{LAUNCHER_CLASS}.java"), "w") as file:
            file.write(LAUNCHER)
        run = tool([self.javac, "-d", CLASSES, f"{LAUNCHER_CLASS}.java"], work)
        launched = classes_build(run, tool, work, self.source, self.entry)
        if not launched.ok:
            return launched
        return Build(None, output=built.output, seconds=built.seconds + launched.seconds,
                     files=launched.files, entry=self.entry)  # fmt: skip


def launcher_class(javac: str) -> str | None:
    """The launcher's class file, compiled by ``javac`` once per machine and JDK (named by
    the JDK's ``javac`` and the launcher's source); None where it cannot be made (a warning
    says why)."""
    name = f"{LAUNCHER_CLASS}-{fingerprint([os.path.realpath(javac)], [LAUNCHER])}.class"

    def compile_launcher(work: str, target: str) -> None:
        source = os.path.join(work, f"{LAUNCHER_CLASS}.java")
        with open(source, "w") as file:
            file.write(LAUNCHER)
        run_trusted([javac, "-d", work, source], "Kotlin script launcher's compile")
        os.replace(os.path.join(work, f"{LAUNCHER_CLASS}.class"), target)

    return made_once("kotlin-script", name, compile_launcher)


LANGUAGE = KotlinScript()
