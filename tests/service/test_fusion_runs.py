"""``/run_code`` as SandboxFusion runs a program (issue 43): ``files`` and ``fetch_files`` in
the program's run directory, ``compile_timeout`` for C++, and tracebacks as a plain
``python3 solution.py`` prints them. Each through a real server and SandboxFusion's own
client where it can send the request.

SandboxFusion's semantics, read from bytedance/SandboxFusion at
469de0845cb7d665bc68044d541aa3aa28c5b30a: ``sandbox/runners/base.py`` (``restore_files``
writes each ``files`` entry below the run's temporary directory, making its directories, and
skips a ``None`` content and a path holding ``IGNORE_THIS_FILE``; ``run_commands`` runs the
compiler under ``asyncio.wait_for(compile_timeout)`` and, after the run, reads each
``fetch_files`` path that ``os.path.isfile`` finds, base64-encoded, leaving the others out),
``sandbox/runners/major.py`` (``run_python``, ``run_cpp``: the program's cwd is that
directory)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys

import pytest
from sandbox_fusion import RunCodeRequest, RunStatus, run_code

from evaluator.service.compat.sandbox_fusion import ANSWER_OUTPUT


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _client_run(server, **fields):
    request = RunCodeRequest(**{"language": "python", "run_timeout": 10, **fields})
    return run_code(request, endpoint=server.url, max_attempts=1, client_timeout=120)


# -- files and fetch_files ------------------------------------------------------------------

READ_AND_WRITE = """
import os
print(open("data/in.txt").read())
print(sorted(os.listdir(".")))
with open("data/in.txt", "a") as given:
    given.write(" and more")
os.makedirs("out/deep")
with open("out/deep/result.bin", "wb") as made:
    made.write(bytes(range(256)))
"""


def test_files_are_written_before_the_run_and_fetched_after(server):
    response = _client_run(
        server,
        code=READ_AND_WRITE,
        files={"data/in.txt": _b64(b"given"), "empty": _b64(b"")},
        fetch_files=["data/in.txt", "out/deep/result.bin", "nowhere.txt"],
    )
    assert response.status == RunStatus.Success, response.run_result.stderr
    assert response.run_result.stdout == "given\n['data', 'empty']\n"
    assert response.files == {  # the missing one left out, as SandboxFusion's isfile() does
        "data/in.txt": _b64(b"given and more"),
        "out/deep/result.bin": _b64(bytes(range(256))),
    }


def test_null_and_ignored_files_are_not_written(server):
    """``restore_files``: a content that is not a string, and a path holding
    ``IGNORE_THIS_FILE``, are skipped."""
    body = {
        "code": "import os\nprint(sorted(os.listdir('.')))",
        "language": "python",
        "files": {"none.txt": None, "a/IGNORE_THIS_FILE.txt": _b64(b"x"), "kept": _b64(b"k")},
        "fetch_files": ["kept", "none.txt"],
    }
    answer = server.post("/run_code", body).json()
    assert answer["run_result"]["stdout"] == "['kept']\n"
    assert answer["files"] == {"kept": _b64(b"k")}
    assert answer["files_not_fetched"] == {"none.txt": "missing"}


def test_a_fetched_link_directory_or_oversized_file_is_not_read(server):
    """Regular files only, never through a link (SandboxFusion's ``isfile`` follows one: a
    program could fetch a file of the host), at most ANSWER_OUTPUT bytes in all."""
    code = (
        "import os\n"
        "os.symlink('/etc/hostname', 'link')\n"
        "os.mkdir('dir')\n"
        f"open('big', 'wb').write(b'x' * {ANSWER_OUTPUT + 1})\n"
        "open('small', 'w').write('s')\n"
    )
    answer = server.post(
        "/run_code",
        {
            "code": code,
            "language": "python",
            "fetch_files": ["link", "dir", "big", "small"],
        },
    ).json()
    assert answer["status"] == "Success", answer
    assert answer["files"] == {"small": _b64(b"s")}
    assert answer["files_not_fetched"] == {
        "link": "a symbolic link",
        "dir": "a directory",
        "big": "over the limit",
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("files", {"../escape.txt": _b64(b"x")}),
        ("files", {"/tmp/absolute.txt": _b64(b"x")}),
        ("files", {"a": _b64(b"x"), "a/b": _b64(b"y")}),  # 'a' a file and a directory
        ("files", {"bad.txt": "not base64!"}),
        ("fetch_files", ["/etc/passwd"]),
        ("fetch_files", ["a/../../b"]),
    ],
)
def test_a_path_outside_the_run_directory_is_a_422_naming_the_field(server, field, value):
    """SandboxFusion joins these to its directory (``os.path.join``: an absolute path
    replaces it) and reads or writes them on its host; a deviation listed in docs/service.md."""
    answer = server.post("/run_code", {"code": "print(1)", "language": "python", field: value})
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["loc"][:2] == ["body", field]


CPP_FILES = r"""
#include <fstream>
#include <iostream>
int main() {
    std::ifstream in("in/numbers.txt");
    long a, b; in >> a >> b;
    std::ofstream("sum.txt") << a + b << "\n";
    std::cout << "done\n";
}
"""


def test_cpp_reads_and_writes_files_too(server):
    response = _client_run(
        server,
        code=CPP_FILES,
        language="cpp",
        files={"in/numbers.txt": _b64(b"40 2\n")},
        fetch_files=["sum.txt"],
    )
    assert response.status == RunStatus.Success, response
    assert response.run_result.stdout == "done\n"
    assert response.files == {"sum.txt": _b64(b"42\n")}


# -- compile_timeout ------------------------------------------------------------------------

# Work for the compiler: many instantiations of a recursive template (about a second of
# g++ on this machine; far more than the 0.05 s allowed below, far less than 60 s).
SLOW_TO_BUILD = r"""
#include <cstdio>
template <int N> struct F { static constexpr long v = F<N - 1>::v * 3 % 1000003 + N; };
template <> struct F<0> { static constexpr long v = 1; };
template <int K> long sum() { return F<K * 800>::v + F<K * 800 + 1>::v; }
template <int... K> long all(int) { return (sum<K>() + ...); }
int main() { std::printf("%ld\n", all<1, 2, 3, 4, 5, 6, 7, 8>(0)); }
"""


def test_compile_timeout_bounds_the_build(server):
    """SandboxFusion's ``compile_timeout``: a build past it is a failed run whose compile
    result is ``TimeLimitExceeded`` (no return code) and no run; a longer one builds the
    same program (never answered from the build that timed out)."""
    short = _client_run(server, code=SLOW_TO_BUILD, language="cpp", compile_timeout=0.05)
    assert short.status == RunStatus.Failed
    assert short.compile_result.status == "TimeLimitExceeded"
    assert short.compile_result.return_code is None and short.run_result is None
    long = _client_run(server, code=SLOW_TO_BUILD, language="cpp", compile_timeout=60)
    assert long.status == RunStatus.Success, long.compile_result
    assert long.compile_result.status == "Finished" and long.compile_result.return_code == 0


# -- tracebacks --------------------------------------------------------------------------------

RAISES = """
def parse(text):
    return {"a": 1}[text]

def main():
    values = [parse(x) for x in "ab"]
    return 1 // (values[0] - 1)

print("before")
main()
"""


def _plain_stderr(tmp_path, code: str) -> str:
    """What ``python3 solution.py`` prints on stderr, with the same interpreter."""
    script = tmp_path / "solution.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, "solution.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=60,
    )
    return done.stderr.replace(str(script), "solution.py")


@pytest.mark.parametrize(
    "code",
    [
        RAISES,
        "import json\njson.loads('{')\n",  # frames of a library below the program's
        "def f():\n    try:\n        1/0\n    except ZeroDivisionError as e:\n"
        "        raise ValueError('again') from e\nf()\n",
    ],
)
def test_a_traceback_shows_the_source_lines_as_a_plain_run(server, tmp_path, code):
    answer = server.post("/run_code", {"code": code, "language": "python"}).json()
    stderr = answer["run_result"]["stderr"]
    ours = "".join(
        line.replace(line[line.index('"/') + 1 : line.index("solution.py")], "")
        if 'File "/' in line and "solution.py" in line
        else line
        for line in stderr.splitlines(True)
    )
    assert ours == _plain_stderr(tmp_path, code)
    assert "\n    " in ours  # source lines, not only the frames' names
