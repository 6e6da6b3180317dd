"""The reference run of a Java, Kotlin, Scala, C#, JavaScript, TypeScript, Perl, Ruby, PHP, Lua,
Racket, R, OCaml, Elixir, C, Rust, Go or Verilog program: as a judge builds and runs it, beside the sandbox's run of the same source.

The plain run builds with the toolchain unconfined (javac into a fresh directory; tsc; gcc or
rustc with the documented flags and none of the grader's own units; JavaScript needs no
build), then starts the language's own command line (``./solution``, ``node main.js``,
``java ... -cp <dir> Main``: :meth:`~evaluator.languages.base.Language.argv`, ``{program}``
the directory) under the judge's limits, through the C++ reference's launcher
(:func:`tests.cpp.plain.run_binary`: CPU, stack, output, resident memory watched). A runtime's
own out-of-memory report (the JVM's ``OutOfMemoryError``) is the memory limit's in both runs,
as the sandbox's job says (``Job.memory_marks``)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from evaluator.harness.outcome import failure
from evaluator.languages import Build, Language, get_language
from evaluator.languages.java import main_class
from evaluator.languages.native import NativeLanguage
from evaluator.languages.scala import entry_object
from evaluator.languages.script import ScriptLanguage
from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import LimitHit, Limits, RunResult
from tests.cpp.plain import run_binary

LIMITS = Limits(time_limit=2.0, memory_limit=256, output_bytes=1 << 20)
SUM_INPUT = b"3\n1 2\n3 4\n5 6\n"  # three lines of two numbers


@dataclass(frozen=True)
class Outcome:
    """What a judge says of one run: its verdict (``ran``, or RE, TLE, MLE, OLE, CE), and
    for a run that ended by itself its stdout and exit status."""

    verdict: str
    stdout: bytes = b""
    exit_code: int | None = None


def outcome_of(run: RunResult) -> Outcome:
    found = failure(run)
    if found is None:
        return Outcome("ran", run.stdout, run.exit_code or 0)
    verdict = str(found[0].value)
    if verdict == "RE" and run.limit is None and run.signal is None:
        return Outcome("RE", run.stdout, run.exit_code)
    return Outcome(verdict)


def _build_java(source: str, where: str) -> Build | None:
    public, entry = main_class(source)
    name = f"{public or 'Main'}.java"
    Path(where, name).write_text(source)
    done = subprocess.run(["javac", "-encoding", "UTF-8", "-d", where, name], cwd=where,
                          capture_output=True, timeout=120)  # fmt: skip
    return Build(None, files={}, entry=entry) if done.returncode == 0 else None


def _build_typescript(language, source: str, where: str) -> bool:
    """``tsc <flags> main.ts`` (emitting ``main.js``) with node's types: whether it built."""
    Path(where, "main.ts").write_text(source)
    command = ["node", language.entry, *language.default_flags, "--typeRoots",
               language.type_roots, "--types", "node", "--noEmitOnError", "main.ts"]  # fmt: skip
    return subprocess.run(command, cwd=where, capture_output=True, timeout=120).returncode == 0


def _build_scala(language, source: str, where: str) -> Build | None:
    """``scalac -encoding UTF-8 -d <dir> main.scala`` (the distribution's script)."""
    Path(where, "main.scala").write_text(source)
    command = [language.compiler, "-encoding", "UTF-8", "-d", where, "main.scala"]
    done = subprocess.run(command, cwd=where, capture_output=True, timeout=300)
    return Build(None, files={}, entry=entry_object(source)) if done.returncode == 0 else None


def _build_kotlin(language, source: str, where: str) -> Build | None:
    """``kotlinc -d <dir> main.kt`` (Debian's compiler script): the classes, run from
    ``MainKt`` with Kotlin's standard library."""
    Path(where, "main.kt").write_text(source)
    done = subprocess.run(["kotlinc", "-d", where, "main.kt"], cwd=where, capture_output=True,
                          timeout=300)  # fmt: skip
    return Build(None, files={}, entry=language.entry_of(source)) if done.returncode == 0 else None


def _build_csharp(language, source: str, where: str) -> bool:
    """``mcs <flags> -out:main.exe main.cs``, Mono's compiler as a judge types it (its own
    script: plainly, glibc reads ``/proc/self/maps`` and Mono needs no shim)."""
    Path(where, "main.cs").write_text(source)
    command = ["mcs", *language.default_flags, "-out:main.exe", "main.cs"]
    return subprocess.run(command, cwd=where, capture_output=True, timeout=120).returncode == 0


def _build_verilog(language, source: str, where: str) -> bool:
    """``iverilog <flags> -o test.vvp main.sv``, as SandboxFusion builds: whether it built."""
    Path(where, "main.sv").write_text(source)
    command = [language.compiler, *language.default_flags, "-o", "test.vvp", "main.sv"]
    return subprocess.run(command, cwd=where, capture_output=True, timeout=120).returncode == 0


def _build_native(language: NativeLanguage, source: str, where: str) -> bool:
    """The documented build (``gcc -std=c11 -O2 -o solution solution.c -lm``, ``go build -o
    solution main.go``), none of the grader's own units linked in: whether it built."""
    Path(where, language.source).write_text(source)
    command = [part for part in language.command(language.default_flags)
               if part not in language.units]  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "LANG": "C", "LC_ALL": "C", "HOME": where}
    done = subprocess.run(command, cwd=where, capture_output=True, timeout=120, env=env)
    return done.returncode == 0


def run_plain(language: Language, source: str, stdin: bytes, limits: Limits = LIMITS) -> Outcome:
    """The plain build and run of ``source`` on ``stdin``."""
    with tempfile.TemporaryDirectory(prefix=f"mcplain{language.name}-") as where:
        os.chmod(where, 0o755)
        if language.name == "java":
            build = _build_java(source, where)
            if build is None:
                return Outcome("CE")
        elif language.name == "typescript":
            if not _build_typescript(language, source, where):
                return Outcome("CE")
            build = Build(None, files={})
        elif language.name == "scala":
            build = _build_scala(language, source, where)
            if build is None:
                return Outcome("CE")
        elif language.name == "kotlin":
            build = _build_kotlin(language, source, where)
            if build is None:
                return Outcome("CE")
        elif language.name == "kotlin_script":  # compiled and run by one command: no build
            Path(where, "main.kts").write_text(source)
            build = Build(None, files={})
        elif language.name == "csharp":
            if not _build_csharp(language, source, where):
                return Outcome("CE")
            build = Build(None, files={})
        elif language.name == "verilog":
            if not _build_verilog(language, source, where):
                return Outcome("CE")
            build = Build(None, files={})
        elif isinstance(language, NativeLanguage):
            if not _build_native(language, source, where):
                return Outcome("CE")
            build = None
        else:  # a script language: the source is the program (with the files it stages)
            assert isinstance(language, ScriptLanguage)
            for name, data in (language.build(source, (), where, None).files or {}).items():
                Path(where, name).write_bytes(data)
            build = Build(None, files={})
        argv = [
            part.replace("{program}", where) for part in language.argv(build, limits.memory_limit)
        ]
        environment = language.run_environment()
        if language.name == "r":  # the command a judge types; the sandbox runs what it execs
            argv, environment = ["Rscript", f"{where}/main.R"], {}
        if language.name == "elixir":  # the script a judge types; the sandbox runs the VM
            argv, environment = ["elixir", f"{where}/main.exs"], {}
        if language.name == "csharp":  # `mono main.exe`: no shim, glibc reads /proc itself
            environment = {}
        if language.name == "kotlin_script":  # Debian's Kotlin runs a script so, in its JVM
            argv = ["kotlinc", "-script", f"{where}/main.kts"]
        run = run_binary(where, stdin, limits, argv=argv, environment=environment)
        if run.limit is None and any(m.encode() in run.stderr for m in language.memory_marks):
            run = replace(run, limit=LimitHit.MEMORY)
        return outcome_of(run)


def needs_runtime(language: str) -> pytest.MarkDecorator:
    """The mark of a runtime language's test modules (``pytestmark``): skipped where its
    runtime is not installed, the reason naming the Debian package (``setup.sh`` installs
    it; CI, which forbids skips, runs them all)."""
    try:
        get_language(language).runtime()
        missing = ""
    except OSError as exc:  # "ruby is not installed: Ruby needs it (Debian: apt-get install ruby)"
        missing = f"{exc}; setup.sh installs it"
    return pytest.mark.skipif(bool(missing), reason=missing)


def grader_for_runtimes():
    """A grader at :data:`LIMITS` (its pool started with every installed runtime, as every
    grader's is): the session fixture of each runtime language's tests."""
    options = GradeOptions(time_limit=LIMITS.time_limit, memory_limit=LIMITS.memory_limit)
    return Grader(options, workers=2)


def assert_agrees(
    grader, language: str, name: str, source: str, stdin: bytes, plain_limits: Limits = LIMITS
) -> None:
    """``source`` run plainly and graded in the sandbox: the same verdict, and for a run that
    ended by itself the same stdout (the plain run's stdout is the expected answer, judged
    exactly) and exit status. ``plain_limits``: the plain run's, where its command does more
    than the program (a compiler that runs the script it compiled)."""
    source = source.lstrip("\n")
    plain = run_plain(get_language(language), source, stdin, plain_limits)
    expected = plain.stdout.decode() if plain.verdict in ("ran", "RE") else "unused\n"
    problem = Problem(name, Harness.STDIN, [TestCase(stdin.decode(), expected)],
                      time_limit=LIMITS.time_limit, memory_limit=LIMITS.memory_limit,
                      metadata={"judge": "exact"})  # fmt: skip
    result = grader.grade(problem, source, language=language)
    if plain.verdict == "ran":
        assert plain.exit_code == 0
        assert result.verdict.value == "AC", (result.message, plain)
    else:
        assert result.verdict.value == plain.verdict, (result.message, plain)
    if plain.verdict == "RE" and plain.exit_code is not None:
        assert f"exit status {plain.exit_code}" in result.message


def conformance_test(language: str, cases: list[tuple[str, str, bytes]]):
    """The test each language's ``test_conformance`` module defines: every ``(name, source,
    stdin)`` case, :func:`assert_agrees`."""

    @pytest.mark.parametrize(("name", "source", "stdin"), cases, ids=[c[0] for c in cases])
    def test_sandbox_agrees_with_a_plain_run(languages_grader, name, source, stdin):
        assert_agrees(languages_grader, language, name, source, stdin)

    return test_sandbox_agrees_with_a_plain_run


def probe_answers(grader, language: str, source: str, expected: list[str]):
    """The verdict of a program that prints one probe a line, on a problem whose answer is
    ``expected``: AC when every probe ended as expected (the message names the first that
    did not)."""
    answer = "".join(f"{line}\n" for line in expected)
    problem = Problem("probe", Harness.STDIN, [TestCase("", answer)], time_limit=LIMITS.time_limit)
    return grader.grade(problem, source, language=language)


def assert_refused(grader, language: str, source: str, refused: list[str], worked: list[str]):
    """A security battery's program (one probe a line, ``<name> refused`` or ``<name>
    <what it got>``): each of ``refused`` refused, then each of ``worked`` as given."""
    expected = [f"{name} refused" for name in refused] + worked
    result = probe_answers(grader, language, source, expected)
    assert result.verdict.value == "AC", result.message
