"""Build flags from data are data (issue 51): a problem's ``cpp_flags`` that would run a
command (``-wrapper /bin/sh,-c,...``) are refused where they enter, naming the flag, through
the grader, ``mcevaluate grade`` and ``CodeReward`` (the service's ``/grade`` is in
``tests/service/test_grade_endpoint.py``); allowed flags still build; the precompiled header
is made only with the grader's own flags; and the build's program file is read without
following a link the build planted.

The hostile flag's shell writes a marker file (where a build may not write: Landlock refuses
it, a machine without Landlock would not) and prints ``ran-42``, a number only the shell
computes: either shows the command ran."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluator import CodeReward
from evaluator.cli import main
from evaluator.languages.base import read_program
from evaluator.languages.builds import Builder
from evaluator.languages.cpp import BINARY
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.reward import ProblemError
from evaluator.runner import GradeOptions, Grader
from tests.cpp.plain import BUILD_LIMITS, CPP

SUM_CPP = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'
# builds only with -std=c++20 (consteval) and LOCAL defined
CPP20_LOCAL = (
    "#include <bits/stdc++.h>\nconsteval long twice(long x) { return 2 * x; }\n"
    "int main() { long a, b; std::cin >> a >> b;\n#ifdef LOCAL\n"
    "std::cout << a + b + twice(0) << '\\n';\n#endif\n}\n"
)
TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "5 5\n", "output": "10\n"}]
ALLOWED = ["-std=c++20", "-O2", "-DLOCAL"]
RAN = "ran-42"  # what the hostile command prints: $((6*7)), computed by the shell


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """Where the hostile command tries to write: a directory anyone may write."""
    place = tmp_path / "open"
    place.mkdir()
    place.chmod(0o777)
    return place / "pwned"


def hostile(marker: Path) -> list[str]:
    """Flags that make g++ run a shell command before its own programs."""
    return ["-wrapper", f"/bin/sh,-c,touch {marker}; echo ran-$((6*7)); exit 1"]


def _problem(flags: list[str] | str) -> Problem:
    tests = [TestCase(t["input"], t["output"]) for t in TESTS]
    return Problem("add", Harness.STDIN, tests, metadata={"cpp_flags": flags})


def _record(flags: list[str] | str) -> dict:
    """The problem as a row of our format."""
    return {"id": "add", "harness": "stdin", "tests": TESTS, "metadata": {"cpp_flags": flags}}


def _refused(text: str) -> None:
    assert "'-wrapper' is not a build flag allowed from data" in text, text
    assert RAN not in text


# --- through each entry -------------------------------------------------------------------------


def test_the_grader_refuses_a_problems_wrapper_flag_and_runs_nothing(pool, marker):
    with Grader(GradeOptions(time_limit=1.0), pool=pool, precompiled_headers=False) as grader:
        result = grader.grade(_problem(hostile(marker)), SUM_CPP, "cpp")
        assert result.verdict is Verdict.ERROR, result
        assert result.message.startswith("the problem's cpp_flags: ")
        _refused(result.message)
        assert not marker.exists()
        allowed = grader.grade(_problem(ALLOWED), CPP20_LOCAL, "cpp")
        assert allowed.verdict is Verdict.AC, allowed
        assert grader.builder.built == 1  # the refused one never built


def test_mcevaluate_grade_refuses_a_rows_wrapper_flag_naming_file_line_and_field(tmp_path, marker):
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps(_record(hostile(marker))) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        json.dumps({"question_id": "add", "code_list": [SUM_CPP], "language": "cpp"}) + "\n"
    )
    out = tmp_path / "results.json"
    args = ["grade", "--problems", str(problems), "--samples", str(samples)]
    args += ["--output", str(out), "--workers", "1", "-q"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "problems.jsonl:1: field 'metadata.cpp_flags': " in result.output
    _refused(result.output)
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not marker.exists() and not out.exists()

    problems.write_text(json.dumps(_record(" ".join(ALLOWED))) + "\n")
    samples.write_text(
        json.dumps({"question_id": "add", "code_list": [CPP20_LOCAL], "language": "cpp"}) + "\n"
    )
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert [d["verdict"] for d in json.loads(out.read_text())[0]["details"]] == ["AC"]


def test_code_reward_refuses_a_rows_wrapper_flag(pool, marker):
    fenced = f"```cpp\n{SUM_CPP}```\n"
    row = json.dumps(_record(hostile(marker)))
    with CodeReward(pool=pool) as reward:
        with pytest.raises(ProblemError) as refused:  # a dataset's defect: by default, raised
            reward([""], [fenced], problem_json=[row])
        assert "field 'metadata.cpp_flags'" in str(refused.value)
        _refused(str(refused.value))
        allowed = reward([""], [f"```cpp\n{CPP20_LOCAL}```\n"], problem_json=[_record(ALLOWED)])
        assert allowed == [1.0], reward.last_reasons
    with CodeReward(pool=pool, on_bad_problem="skip") as reward:
        assert reward([""], [fenced], problem_json=[row]) == [None]  # no reward, not a 0
        _refused(reward.last_reasons[0])
    assert not marker.exists()


# --- the precompiled header: the grader's own flags only ---------------------------------------


def _prepared_sets(root: Path) -> int:
    """How many flag sets a builder under ``root`` prepared (one directory each)."""
    return len(list(root.glob("mcbuild-*/prepared-*")))


def test_a_problems_flags_never_make_a_precompiled_header(pool, tmp_path):
    """Prepared work runs under PREPARE_LIMITS, far above a build's: a problem's flags
    (whose -D puts code into the header) never start it; the defaults and the operator's
    flags do."""
    with Builder(limits=BUILD_LIMITS, tmp_dir=str(tmp_path)) as builder:
        with Grader(GradeOptions(time_limit=1.0), pool=pool, builder=builder) as grader:
            assert grader.grade(_problem(ALLOWED), CPP20_LOCAL, "cpp").verdict is Verdict.AC
            assert _prepared_sets(tmp_path) == 0
            assert not builder.trusts(CPP, tuple(ALLOWED))
            assert builder.prepared(CPP, tuple(ALLOWED)) == ()
            assert _prepared_sets(tmp_path) == 0
            assert builder.prepared(CPP, CPP.default_flags)  # the grader's own
            assert _prepared_sets(tmp_path) == 1
        operator = GradeOptions(time_limit=1.0, compile_flags={"cpp": ALLOWED})
        with Grader(operator, pool=pool, builder=builder) as grader:
            assert grader.grade(_problem([]), CPP20_LOCAL, "cpp").verdict is Verdict.AC
            assert builder.trusts(CPP, tuple(ALLOWED))  # the operator's: prepared for
            assert builder.prepared(CPP, tuple(ALLOWED))
            assert _prepared_sets(tmp_path) == 2


# --- the program file: read through the directory, no link followed, bounded -----------------


def test_read_program_reads_a_regular_file_and_refuses_links_fifos_and_size(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / BINARY).write_bytes(b"\x7fELF program")
    assert read_program(str(work), BINARY, 1 << 20) == (b"\x7fELF program", "")
    assert read_program(str(work), BINARY, 4) == (None, "over the limit of 4 bytes")
    secret = tmp_path / "secret"
    secret.write_bytes(b"host file")
    (work / BINARY).unlink()
    (work / BINARY).symlink_to(secret)
    assert read_program(str(work), BINARY, 1 << 20) == (None, "a symbolic link")
    (work / BINARY).unlink()
    os.link(secret, work / BINARY)  # another name of a file outside the directory
    assert read_program(str(work), BINARY, 1 << 20) == (None, "a hard link")
    (work / BINARY).unlink()
    os.mkfifo(work / BINARY)  # opened for reading, it would block the grader
    assert read_program(str(work), BINARY, 1 << 20) == (None, "a FIFO")
    (work / BINARY).unlink()
    assert read_program(str(work), BINARY, 1 << 20) == (None, "missing")
    linked = tmp_path / "linked"
    linked.symlink_to(work, target_is_directory=True)  # the directory itself, by a link
    assert read_program(str(linked), BINARY, 1 << 20)[0] is None


def test_a_build_that_leaves_a_symlink_as_its_program_is_a_compile_error(tmp_path):
    """A real build (the operator's -wrapper: trusted flags, used here only to plant the
    link) whose linker step replaces the program by a symbolic link to a host file: the
    grader, root, must not read that file as the program."""
    secret = tmp_path / "secret"
    secret.write_bytes(b"host file, not a program")
    secret.chmod(0o644)
    tmp_path.chmod(0o755)
    plant = f'"$0" "$@" || exit; case "$0" in *collect2*) ln -sf {secret} {BINARY};; esac'
    with Builder(limits=BUILD_LIMITS, prepare=False) as builder:
        build = builder.submit(CPP, SUM_CPP, ("-wrapper", f"/bin/sh,-c,{plant}")).result()
        assert not build.ok, build
        assert build.message == f"the build left no program: {BINARY!r} is a symbolic link"
        assert builder.submit(CPP, SUM_CPP, CPP.default_flags).result().ok
