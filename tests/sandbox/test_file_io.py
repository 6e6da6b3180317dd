"""File I/O problems (``Problem.input_file``/``output_file``; CodeContests, Codeforces' file
mode): real programs in the real sandbox, Python and C++, at every isolation level.

The test's input is ``input.txt`` in the program's working directory, stdin is empty, and the
bytes of ``output.txt`` are the answer judged: a missing file is a WA that says so, one over
the output limit an OLE, and one that is not a regular file (a symlink to a host file, a
FIFO, a directory, a hard link) is never read. Each test sees only its own files. A plain run
of the same program in a directory holding ``input.txt`` writes the same bytes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from evaluator.languages.builds import Builder
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, Job, Limits, Mode, SandboxPool
from evaluator.sandbox.files.run_files import OVER_LIMIT, read_regular
from evaluator.sandbox.reference import child_environment
from tests.cpp.plain import BUILD_LIMITS, CPP

ISOLATIONS = list(Isolation)
FILES = {"input_file": "input.txt", "output_file": "output.txt"}
SUM = Problem(
    "sum",
    Harness.STDIN,
    [TestCase("1 2\n", "3\n"), TestCase("40 2\n", "42\n"), TestCase("-5 5\n", "0\n")],
    **FILES,
)

SUM_PY = """
a, b = map(int, open("input.txt").read().split())
with open("output.txt", "w") as out:
    out.write(f"{a + b}\\n")
"""
# the usual contest idiom: the standard streams replaced by the files
SUM_REDIRECT_PY = """
import sys
sys.stdin = open("input.txt")
sys.stdout = open("output.txt", "w")
a, b = map(int, input().split())
print(a + b)
"""
# never closed: flushed when the program's objects go at exit, as in a plain run
SUM_UNCLOSED_PY = """
out = open("output.txt", "w")
a, b = map(int, open("input.txt").read().split())
out.write(str(a + b) + "\\n")
"""
WRONG_PY = SUM_PY.replace("a + b", "a + b + 1")
STDIN_SUM_PY = "a, b = map(int, input().split())\nprint(a + b)\n"

SUM_CPP = r"""
#include <cstdio>
int main() {
    freopen("input.txt", "r", stdin);
    freopen("output.txt", "w", stdout);
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 3;
    printf("%lld\n", a + b);
}
"""
SUM_FSTREAM_CPP = r"""
#include <fstream>
int main() {
    std::ifstream in("input.txt");
    std::ofstream out("output.txt");
    long long a, b;
    if (!(in >> a >> b)) return 3;
    out << a + b << '\n';
}
"""
WRONG_CPP = SUM_CPP.replace("a + b", "a + b + 1")
STDIN_SUM_CPP = r"""
#include <cstdio>
int main() { long long a, b; if (scanf("%lld %lld", &a, &b) != 2) return 3; printf("%lld\n", a + b); }
"""


@pytest.fixture(scope="module")
def builder():
    with Builder(workers=1, limits=BUILD_LIMITS) as shared:
        yield shared


@pytest.fixture(scope="module")
def pool():
    """This module's own pool: a worker another module's tests killed is not counted here."""
    with SandboxPool(workers=2) as own:
        yield own


@pytest.fixture(autouse=True)
def no_worker_restarts(pool):
    """The pool retries a job whose fork server died on a fresh one, which would hide a
    server that breaks on test files: none may die here."""
    before = pool.restarts
    yield
    assert pool.restarts == before, "a fork server died"


@pytest.fixture(scope="module")
def graders(pool, builder):
    """One grader per isolation level, over the session's pool and this module's builds."""
    made = {
        isolation: Grader(
            GradeOptions(time_limit=2.0, memory_limit=256, isolation=isolation),
            pool=pool,
            builder=builder,
        )
        for isolation in ISOLATIONS
    }
    yield made
    for grader in made.values():
        grader.close()


def _verdicts(result) -> list[Verdict]:
    return [test.verdict for test in result.tests]


# -- right and wrong answers -------------------------------------------------------------------


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize(
    "code", [SUM_PY, SUM_REDIRECT_PY, SUM_UNCLOSED_PY], ids=["open", "redirect", "unclosed"]
)
def test_a_python_program_reading_and_writing_the_files_is_accepted(graders, isolation, code):
    result = graders[isolation].grade(SUM, code)
    assert result.verdict is Verdict.AC, result.to_dict()
    assert _verdicts(result) == [Verdict.AC] * 3


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_wrong_python_answer_in_the_file_is_a_wrong_answer(graders, isolation):
    result = graders[isolation].grade(SUM, WRONG_PY)
    assert _verdicts(result) == [Verdict.WA] * 3
    assert result.tests[0].stdout == "4\n"  # the failing test's excerpt is the file's


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("code", [SUM_CPP, SUM_FSTREAM_CPP], ids=["freopen", "fstream"])
def test_a_cpp_program_reading_and_writing_the_files_is_accepted(graders, isolation, code):
    result = graders[isolation].grade(SUM, code, "cpp")
    assert result.verdict is Verdict.AC, result.to_dict()
    assert _verdicts(result) == [Verdict.AC] * 3


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_wrong_cpp_answer_in_the_file_is_a_wrong_answer(graders, isolation):
    result = graders[isolation].grade(SUM, WRONG_CPP, "cpp")
    assert _verdicts(result) == [Verdict.WA] * 3


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_program_reading_stdin_gets_no_input(graders, isolation):
    """A file-mode judge gives no stdin: reading it finds its end at once."""
    python = graders[isolation].grade(SUM, STDIN_SUM_PY)
    assert _verdicts(python) == [Verdict.RE] * 3
    assert "EOFError" in python.message
    cpp = graders[isolation].grade(SUM, STDIN_SUM_CPP, "cpp")
    assert _verdicts(cpp) == [Verdict.RE] * 3 and cpp.message == "exit status 3"
    # and stdin is empty, not merely unread: its size is 0 while input.txt holds the test
    sizes = Problem("sizes", Harness.STDIN, [TestCase("1 2\n", "0 4\n")], **FILES)
    code = (
        "import os, sys\n"
        "data = sys.stdin.buffer.read()\n"
        "open('output.txt', 'w').write(f\"{len(data)} {os.path.getsize('input.txt')}\\n\")\n"
    )
    assert graders[isolation].grade(sizes, code).verdict is Verdict.AC


# -- the output file: missing, too big, not a regular file --------------------------------------


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_missing_output_file_is_a_wrong_answer_that_says_so(graders, isolation):
    """Printing the right answer on stdout does not count: the judge reads the file."""
    result = graders[isolation].grade(
        SUM, "a, b = map(int, open('input.txt').read().split())\nprint(a + b)\n"
    )
    assert _verdicts(result) == [Verdict.WA] * 3
    assert [t.message for t in result.tests] == ["the program wrote no output.txt"] * 3
    cpp = graders[isolation].grade(SUM, "int main() { return 0; }\n", "cpp")
    assert cpp.verdict is Verdict.WA and cpp.message == "the program wrote no output.txt"


def test_a_missing_output_file_is_judged_before_a_special_judge(graders):
    """A checker never sees a run without an answer (it would get an empty one)."""
    checked = Problem(
        "checked",
        Harness.STDIN,
        [TestCase("1 2\n", "3\n")],
        judge={"type": "python", "code": "def check(input, output, expected):\n    return True\n"},
        **FILES,
    )
    grader = graders[Isolation.ADAPTIVE]
    result = grader.grade(checked, "pass\n")
    assert result.verdict is Verdict.WA and result.message == "the program wrote no output.txt"
    assert grader.grade(checked, "open('output.txt', 'w').write('x')\n").verdict is Verdict.AC


def _job(code: str, inputs: list[str], isolation: Isolation, limits: Limits, **files) -> Job:
    return Job(code=code, inputs=inputs, isolation=isolation, limits=limits, **files)


SMALL = Limits(time_limit=2.0, memory_limit=256, output_bytes=1 << 16)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_an_output_file_over_the_output_limit_is_an_output_limit_exceeded(pool, isolation):
    big = "open('output.txt', 'w').write('x' * (1 << 17))\n"
    at_limit = "open('output.txt', 'w').write('x' * (1 << 16))\n"
    result = pool.run(_job(big, ["", ""], isolation, SMALL, **FILES))
    assert [r.limit for r in result.runs][:1] == ["output"]
    fits = pool.run(_job(at_limit, [""], isolation, SMALL, **FILES))
    assert fits.runs[0].clean_exit and fits.runs[0].stdout == b"x" * (1 << 16)


def test_a_cpp_output_file_over_the_output_limit_is_an_output_limit_exceeded(graders):
    problem = Problem("big", Harness.STDIN, [TestCase("1\n", "1\n")], **FILES)
    big = r"""
#include <cstdio>
int main() { FILE* f = fopen("output.txt", "w"); for (long i = 0; i < (200L << 20); ++i) fputc('x', f); }
"""
    result = graders[Isolation.TEST].grade(problem, big, "cpp")  # 200 MB, the limit is 64
    assert result.verdict is Verdict.OLE, result.to_dict()


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_stdout_is_still_limited_when_the_answer_is_a_file(pool, isolation):
    code = "open('output.txt', 'w').write('ok')\nprint('y' * (1 << 17))\n"
    result = pool.run(_job(code, [""], isolation, SMALL, **FILES))
    assert result.runs[0].limit == "output"
    quiet = pool.run(
        _job(
            "open('output.txt', 'w').write('ok')\nprint('noise')\n", [""], isolation, SMALL, **FILES
        )
    )
    assert quiet.runs[0].stdout == b"ok"  # what it printed is dropped


ONE = Problem("echo", Harness.STDIN, [TestCase("secret\n", "secret\n")], **FILES)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_an_output_file_that_is_a_symlink_is_not_read(graders, isolation):
    """A symlink to a host file (or to the input, whose text is the expected answer here)
    is a WA: the server, which could read the host file, never follows it."""
    for target in ("/etc/passwd", "input.txt"):
        code = f"import os\nos.symlink({target!r}, 'output.txt')\n"
        result = graders[isolation].grade(ONE, code)
        assert result.verdict is Verdict.WA, result.to_dict()
        assert "symbolic link" in result.message
        assert "root:" not in result.tests[0].stdout and result.tests[0].stdout == ""
    cpp = '#include <unistd.h>\nint main() { return symlink("/etc/passwd", "output.txt"); }\n'
    result = graders[isolation].grade(ONE, cpp, "cpp")
    assert result.verdict is Verdict.WA and "symbolic link" in result.message


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_an_output_file_that_is_a_fifo_directory_or_hard_link_is_not_read(graders, isolation):
    """Never a hang (a FIFO opened for reading), never the input read back as the answer
    (a hard link to input.txt, whose text is the expected output here)."""
    for code, why in (
        ("import os\nos.mkfifo('output.txt')\n", "FIFO"),
        ("import os\nos.mkdir('output.txt')\n", "directory"),
        ("import os\nos.link('input.txt', 'output.txt')\n", "hard link"),
    ):
        result = graders[isolation].grade(ONE, code)
        assert result.verdict in (Verdict.WA, Verdict.RE), result.to_dict()
        if result.verdict is Verdict.WA:
            assert why in result.message, result.message
        assert result.tests[0].wall_time < 5


def test_read_regular_reads_only_a_regular_file_within_the_limit(tmp_path):
    directory = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        (tmp_path / "plain").write_bytes(b"abc")
        (tmp_path / "big").write_bytes(b"x" * 11)
        (tmp_path / "link").symlink_to("/etc/passwd")
        os.mkfifo(tmp_path / "fifo")
        (tmp_path / "dir").mkdir()
        (tmp_path / "twice").write_bytes(b"two names")
        os.link(tmp_path / "twice", tmp_path / "other")
        assert read_regular(directory, "plain", 10) == (b"abc", None)
        assert read_regular(directory, "big", 10) == (b"", OVER_LIMIT)
        assert read_regular(directory, "big", 11) == (b"x" * 11, None)
        assert read_regular(directory, "link", 10) == (b"", "a symbolic link")
        assert read_regular(directory, "fifo", 10) == (b"", "a FIFO")
        assert read_regular(directory, "dir", 10) == (b"", "a directory")
        assert read_regular(directory, "twice", 10) == (b"", "a hard link")
        assert read_regular(directory, "absent", 10) == (b"", "missing")
    finally:
        os.close(directory)


# -- each test sees only its own files -------------------------------------------------------

# Asserts the run dir holds nothing but this test's input file, then leaves files behind;
# writes its answer only when the input says so.
LEFTOVERS_PY = """
import os
assert sorted(os.listdir(".")) == ["input.txt"], os.listdir(".")
text = open("input.txt").read()
open("leftover.txt", "w").write(text)
os.mkdir("leftover.d")
if text != "skip\\n":
    open("output.txt", "w").write(text)
"""
LEFTOVERS_CPP = r"""
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
int main() {
    DIR* dir = opendir(".");
    int entries = 0;
    while (dirent* entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        if (name != "input.txt") return 7;
        ++entries;
    }
    closedir(dir);
    if (entries != 1) return 8;
    std::stringstream text;
    text << std::ifstream("input.txt").rdbuf();
    std::ofstream("leftover.txt") << text.str();
    mkdir("leftover.d", 0700);
    if (text.str() != "skip\n") std::ofstream("output.txt") << text.str();
}
"""
SEQUENCE = Problem(
    "sequence",
    Harness.STDIN,
    [TestCase("first\n", "first\n"), TestCase("second\n", "second\n"), TestCase("skip\n", "")],
    **FILES,
)


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("language", ["python", "cpp"])
def test_a_test_never_sees_another_tests_files(graders, isolation, language):
    """Test N+1 starts in a directory holding only its own input.txt (not test N's, nor
    what test N left), and test N's output.txt is never read as test N+1's: the third test
    writes none and expects an empty answer, which test 2's file would not be."""
    code = LEFTOVERS_PY if language == "python" else LEFTOVERS_CPP
    result = graders[isolation].grade(SEQUENCE, code, language)
    assert _verdicts(result) == [Verdict.AC, Verdict.AC, Verdict.WA], result.to_dict()
    assert result.tests[2].message == "the program wrote no output.txt"


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_later_tests_input_file_is_not_there_early(pool, isolation):
    """Each input file is written when its test starts: a test that looks for any file
    holding another test's text finds none (submission isolation runs all three in one
    process)."""
    code = (
        "import os\n"
        "mine = open('input.txt').read()\n"
        "others = [n for n in os.listdir('.') if n != 'input.txt']\n"
        "open('output.txt', 'w').write(mine + repr(others))\n"
    )
    inputs = ["MARK-0", "MARK-1", "MARK-2"]
    result = pool.run(_job(code, inputs, isolation, SMALL, **FILES))
    assert [r.stdout for r in result.runs] == [f"{text}[]".encode() for text in inputs]


# -- one of the two files ----------------------------------------------------------------------


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_only_an_output_file(graders, isolation):
    """Input on stdin as usual, the answer in output.txt; no input.txt is made."""
    problem = Problem("out", Harness.STDIN, SUM.tests, output_file="output.txt")
    code = (
        "import os\n"
        "assert not os.path.exists('input.txt')\n"
        "a, b = map(int, input().split())\n"
        "print(a + b, file=open('output.txt', 'w'))\n"
    )
    assert _verdicts(graders[isolation].grade(problem, code)) == [Verdict.AC] * 3
    assert graders[isolation].grade(problem, STDIN_SUM_PY).message == (
        "the program wrote no output.txt"
    )
    cpp = (
        '#include <cstdio>\nint main() { freopen("output.txt", "w", stdout); long long a, b;\n'
        'scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b); }\n'
    )
    assert graders[isolation].grade(problem, cpp, "cpp").verdict is Verdict.AC


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_only_an_input_file(graders, isolation):
    """Input in input.txt, stdin empty, the answer on stdout."""
    problem = Problem("in", Harness.STDIN, SUM.tests, input_file="input.txt")
    code = (
        "import sys\n"
        "assert sys.stdin.read() == ''\n"
        "a, b = map(int, open('input.txt').read().split())\n"
        "print(a + b)\n"
    )
    assert _verdicts(graders[isolation].grade(problem, code)) == [Verdict.AC] * 3
    assert graders[isolation].grade(problem, STDIN_SUM_PY).verdict is Verdict.RE
    cpp = (
        '#include <cstdio>\nint main() { freopen("input.txt", "r", stdin); long long a, b;\n'
        'scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b); }\n'
    )
    assert graders[isolation].grade(problem, cpp, "cpp").verdict is Verdict.AC


# -- the input file is not the program's memory --------------------------------------------------


def test_the_input_file_does_not_count_against_the_memory_limit(graders):
    """Files in the run dir count as memory the program holds, but its test's input file
    is not its doing (stdin's memfd never counted either): 40 MB of input under a 32 MB limit,
    of which a C++ program reads one line while it runs long enough to be watched."""
    text = "7\n" + "x" * (40 << 20) + "\n"
    problem = Problem(
        "large", Harness.STDIN, [TestCase(text, "7\n")], memory_limit=32, time_limit=3.0, **FILES
    )
    code = r"""
#include <cstdio>
int main() {
    FILE* in = fopen("input.txt", "r");
    int n = 0;
    if (fscanf(in, "%d", &n) != 1) return 3;
    volatile unsigned long spin = 0;
    for (unsigned long i = 0; i < 300000000UL; ++i) spin += i;
    FILE* out = fopen("output.txt", "w");
    fprintf(out, "%d\n", n);
}
"""
    result = graders[Isolation.TEST].grade(problem, code, "cpp")
    assert result.verdict is Verdict.AC, result.to_dict()


# -- as a plain run ------------------------------------------------------------------------------

DIFFERENTIAL_PY = """
import sys
lines = open("input.txt", encoding="utf-8").read().splitlines()
print("stdout is not the answer")
with open("output.txt", "w", encoding="utf-8") as out:
    for index, line in enumerate(lines):
        out.write(f"{index}:{line[::-1]}\\r\\n")
    out.write("é∑ end without newline")
with open("output.txt", "ab") as out:
    out.write(bytes(range(256)))
"""
DIFFERENTIAL_INPUT = "hello world\nsecond line\n\nλ last"


def _plain_python(code: str, text: str) -> bytes:
    with tempfile.TemporaryDirectory() as directory:
        Path(directory, "prog.py").write_text(code)
        Path(directory, "input.txt").write_bytes(text.encode())
        subprocess.run(
            [sys.executable, "prog.py"],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            check=True,
            timeout=30,
        )
        return Path(directory, "output.txt").read_bytes()


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_output_file_is_what_a_plain_run_writes(pool, isolation):
    expected = _plain_python(DIFFERENTIAL_PY, DIFFERENTIAL_INPUT)
    assert expected.endswith(bytes(range(256)))
    job = _job(DIFFERENTIAL_PY, [DIFFERENTIAL_INPUT] * 2, isolation, Limits(), **FILES)
    result = pool.run(job)
    assert [r.stdout for r in result.runs] == [expected, expected]
    assert all(r.clean_exit for r in result.runs)


def test_a_cpp_output_file_is_what_a_plain_run_writes(pool, builder):
    source = r"""
#include <fstream>
#include <iostream>
#include <string>
int main() {
    std::ifstream in("input.txt");
    std::ofstream out("output.txt", std::ios::binary);
    std::string line;
    int count = 0;
    while (std::getline(in, line)) out << ++count << ' ' << std::string(line.rbegin(), line.rend()) << "\r\n";
    std::cout << "stdout is not the answer\n";
    for (int c = 0; c < 256; ++c) out.put(char(c));
}
"""
    build = builder.submit(CPP, source, CPP.default_flags).result()
    assert build.ok, build.output
    with tempfile.TemporaryDirectory() as directory:
        program = Path(directory, "solution")
        program.write_bytes(build.binary)
        program.chmod(stat.S_IRWXU)
        Path(directory, "input.txt").write_bytes(DIFFERENTIAL_INPUT.encode())
        subprocess.run(
            ["./solution"],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env=child_environment(directory),
            check=True,
            timeout=30,
        )
        expected = Path(directory, "output.txt").read_bytes()
    job = Job(
        code="",
        inputs=[DIFFERENTIAL_INPUT],
        executable=build.binary,
        argv=CPP.argv(),
        limits=Limits(),
        **FILES,
    )
    assert pool.run(job).runs[0].stdout == expected


# -- where the fields do not apply ---------------------------------------------------------------


def test_call_based_and_assertion_problems_with_files_are_errors(graders):
    grader = graders[Isolation.ADAPTIVE]
    call = Problem("call", Harness.FUNCTIONAL, [TestCase("1\n2", "3")], func_name="add", **FILES)
    result = grader.grade(call, "def add(a, b):\n    return a + b\n")
    assert result.verdict is Verdict.ERROR
    assert result.message == "input_file/output_file are for stdin problems only, not functional"
    assertion = Problem(
        "assert",
        Harness.ASSERTION,
        [TestCase("", "")],
        test_code="def check(f):\n    assert f() == 1\n",
        entry_point="one",
        output_file="output.txt",
    )
    result = grader.grade(assertion, "def one():\n    return 1\n")
    assert result.verdict is Verdict.ERROR and "stdin problems only" in result.message
    # the same problems without the fields are graded
    call.input_file = call.output_file = None
    assert grader.grade(call, "def add(a, b):\n    return a + b\n").verdict is Verdict.AC


def test_a_job_takes_plain_file_names_on_stdin_jobs_only():
    for name in ("../input.txt", "a/b", "", ".", "..", "in\0put"):
        with pytest.raises(ValueError, match="plain names"):
            Job(code="", inputs=[], input_file=name)
    with pytest.raises(ValueError, match="stdin jobs"):
        Job(code="", inputs=[], mode=Mode.CALL, func_name="f", output_file="output.txt")
    job = Job(code="", inputs=[], **FILES)
    assert {k: job.to_wire()[k] for k in FILES} == FILES
    job.output_file = "../../etc/passwd"  # set after construction: refused when sent
    with pytest.raises(ValueError, match="plain names"):
        job.to_wire()
