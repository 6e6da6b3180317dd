"""What a dataset row or a client sends is untrusted, checkers included (issue 51): a checker a
row ships (open-r1's ``generated_checker``), a program checker's path and a build's tools run
through the one launcher for trusted programs, which never runs them as uid 0, leaves nothing
of theirs behind (no ``setsid`` daemon, no IPC object) and refuses them what the sandbox
refuses a candidate (keyrings, other processes' limits, a host file's mode, times and
attributes).

The grader runs here as a real user would run it, and where a root grader's trusted programs
used to fall back to uid 0: with an interpreter under a directory others may not search (a
virtual environment made by the test under a ``0700`` directory, its interpreter a copy, as a
pyenv or conda install in root's home), through ``mcevaluate grade``, ``CodeReward`` and
``mcevaluate serve``; and as ``nobody``, a grader that is not root."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.as_nobody import run_as_nobody
from tests.service.conftest import start_server

ROOT = str(Path(__file__).resolve().parents[2])
DAEMON = "98765"  # the seconds of the daemon's sleep, which names it among the host's processes
_ADD_KEY = {"x86_64": 248, "aarch64": 217}[os.uname().machine]

# A checker that tries what a dataset's code must never do on the grader's machine. Each
# attempt that works is named on stderr; the checker accepts (prints 1) only when none did.
ATTACK = """
import ctypes, os, resource, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
HOST, GRADER = {host!r}, {grader}
worked = []
def attempt(name, action):
    try:
        if action() is not False:
            worked.append(name)
    except OSError:
        pass
def call(result):
    if result < 0:
        raise OSError(ctypes.get_errno(), "refused")
attempt("uid0", lambda: os.getuid() == 0 or False)
attempt("chmod", lambda: os.chmod(HOST, 0o4777))
attempt("utime", lambda: os.utime(HOST, (0, 0)))
attempt("xattr", lambda: os.setxattr(HOST, "user.mc", b"1"))
attempt("prlimit", lambda: resource.prlimit(GRADER, resource.RLIMIT_NOFILE, (7, 7)))
attempt("keyring", lambda: call(libc.syscall({add_key}, b"user", b"mc", b"x", 1, -3)))
attempt("msgget", lambda: call(libc.msgget(0x6d63, 0o1666)))
attempt("mq_open", lambda: call(libc.mq_open(b"/mc-queue", os.O_CREAT | os.O_RDWR, 0o666, None)))
subprocess.Popen(["/bin/sleep", "{daemon}"], start_new_session=True)  # outlives it?
print(0 if worked else 1)
print("worked:", *worked, file=sys.stderr)
"""


def attack(host: str, grader: int | str = "os.getppid()") -> str:
    return ATTACK.format(host=host, grader=grader, add_key=_ADD_KEY, daemon=DAEMON)


def daemons() -> list[str]:
    """The attack's daemons still running on the host."""
    found = subprocess.run(["pgrep", "-f", f"sleep {DAEMON}"], capture_output=True, text=True)
    return found.stdout.split()


@pytest.fixture
def host_file() -> Iterator[Path]:
    """A root-owned file (when root) in a directory every user may search: only the
    launcher's confinement keeps a checker from changing it."""
    folder = Path(tempfile.mkdtemp(prefix="mc-host-"))
    folder.chmod(0o755)
    path = folder / "host.conf"
    path.write_text("setting = 1\n")
    path.chmod(0o644)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    yield path
    subprocess.run(["pkill", "-f", f"sleep {DAEMON}"], check=False)
    subprocess.run(["ipcrm", "-Q", str(0x6D63)], capture_output=True, check=False)
    shutil.rmtree(folder)


def unchanged(path: Path) -> bool:
    info = path.stat()
    return (
        info.st_mode & 0o7777 == 0o644
        and info.st_mtime == 1_000_000_000
        and "user.mc" not in os.listxattr(path)
    )


def queues() -> str:
    with open("/proc/sysvipc/msg") as table:
        return table.read()


@pytest.fixture(scope="module")
def closed_python(tmp_path_factory) -> str:
    """A grader interpreter under a directory others may not search: a virtual environment
    (its interpreter a copy) in a ``0700`` directory, finding this checkout and the test
    environment's packages through a ``.pth`` file."""
    if os.geteuid() != 0:
        pytest.skip("the closed-interpreter route is a root grader's")
    closed = tmp_path_factory.mktemp("closed")
    closed.chmod(0o700)
    venv = closed / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--copies", "--without-pip", str(venv)], check=True
    )
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    ours = [ROOT, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    Path(purelib, "microcoder-tests.pth").write_text("\n".join(dict.fromkeys(ours)) + "\n")
    return str(python)


def codeforces_row(checker: str) -> dict:
    """An open-r1/codeforces row whose ``generated_checker`` is ``checker``."""
    with open(Path(ROOT, "tests/data/sources/codeforces/problems.jsonl")) as rows:
        row = next(json.loads(line) for line in rows if json.loads(line)["id"] == "4/B")
    return {**row, "id": "9/Z", "generated_checker": checker}


ANSWER = "n = int(input())\nd = next(i for i in range(2, n) if n % i == 0)\nprint(d, n // d)"


def test_a_rows_checker_through_grade_is_confined(closed_python, host_file, tmp_path):
    """``mcevaluate grade`` with a root grader whose interpreter is closed to others: the
    row's checker runs as an unprivileged user in namespaces of its own (on the old
    launcher: uid 0 without capabilities, which changed the host file's mode and left its
    daemon running)."""
    problems, samples = tmp_path / "rows.jsonl", tmp_path / "samples.jsonl"
    problems.write_text(json.dumps(codeforces_row(attack(str(host_file)))) + "\n")
    samples.write_text(json.dumps({"question_id": "9/Z", "code_list": [ANSWER]}) + "\n")
    before = queues()
    command = [closed_python, "-m", "evaluator.cli", "grade", "--problems", str(problems)]
    command += ["--samples", str(samples), "--output", str(tmp_path / "r.json"), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((tmp_path / "r.json").read_text())[0]
    details = result["details"][0]
    assert result["graded_list"] == [True], details
    assert unchanged(host_file)
    assert daemons() == []
    assert queues() == before


def test_a_rows_checker_through_code_reward_is_confined(closed_python, host_file):
    """The same row as a reward's dataset columns, graded by ``CodeReward`` in a trainer's
    process with a closed interpreter."""
    row = codeforces_row(attack(str(host_file), grader="@GRADER@"))
    script = (
        "import json, os, resource, sys\n"
        "from evaluator.reward import CodeReward\n"
        "row = json.loads(sys.argv[1])\n"
        "row['generated_checker'] = row['generated_checker'].replace('@GRADER@', str(os.getpid()))\n"
        "columns = {key: [value] for key, value in row.items()}\n"
        "with CodeReward() as reward:\n"
        "    print(json.dumps(reward(completions=[sys.argv[2]], **columns)))\n"
        "    print(json.dumps(reward.last_verdicts), reward.last_results[0].message, file=sys.stderr)\n"
        "    print(json.dumps(reward.last_verdicts))\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
    )
    answer = f"```python\n{ANSWER}\n```"
    done = subprocess.run(
        [closed_python, "-c", script, json.dumps(row), answer],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    rewards, verdicts, files = done.stdout.splitlines()[-3:]
    assert (json.loads(rewards), json.loads(verdicts)) == ([1.0], ["AC"]), done.stderr[-3000:]
    assert int(files) != 7  # the grader's own limit, which the checker tried to set
    assert unchanged(host_file)
    assert daemons() == []


def test_a_clients_checker_on_a_trusting_server_is_confined(closed_python, host_file, tmp_path):
    """``mcevaluate serve --trust-checkers``, its interpreter closed to others: a client's
    checkers, a codeforces one and a program at any path (the operator trusts its clients'
    checkers), still run confined (trusting a checker means running it, not giving it root)."""
    program = tmp_path / "checker.py"
    program.write_text(f"#!{closed_python}\n{attack(str(host_file))}sys.exit(1 if worked else 0)\n")
    program.chmod(0o755)
    tests = [{"input": "12\n", "output": "2 6\n"}]
    judges = {
        "cf": {"type": "codeforces", "code": attack(str(host_file))},
        "program": {"type": "program", "path": str(program)},
    }
    problems = [
        {"id": id, "harness": "stdin", "tests": tests, "judge": j} for id, j in judges.items()
    ]
    samples = [{"id": id, "code": ANSWER} for id in judges]
    body = {"problems": problems, "samples": samples}
    server = start_server(tmp_path, "--workers", "1", "--trust-checkers", python=closed_python)
    try:
        answer = server.post("/grade", body)
        assert answer.status_code == 200, answer.text
        graded = [r["graded_list"] for r in answer.json()["results"]]
        assert graded == [[True], [True]], answer.text
    finally:
        assert server.stop()
    assert unchanged(host_file)
    assert daemons() == []


def test_a_program_checker_is_a_file_the_problem_ships(tmp_path):
    """A program checker's path names a file in the checker directory (the problems
    file's): ``/bin/sh``, whose input would be a script from the test data, a link out of
    the directory and a hard link (a second name for a file that may lie outside) are
    refused before anything runs; the problem's own file runs."""
    shipped = tmp_path / "checkers"
    shipped.mkdir()
    good = shipped / "pair.py"
    good.write_text(
        f"#!{sys.executable}\nimport sys\na, b = map(int, open(sys.argv[2]).read().split())\n"
        "sys.exit(0 if a * b == int(open(sys.argv[1]).read()) and 1 < a <= b else 1)\n"
    )
    good.chmod(0o755)
    (shipped / "escape").symlink_to("/bin/sh")
    elsewhere = Path(tempfile.mkdtemp(prefix="mc-elsewhere-")) / "host-tool"
    elsewhere.write_text("#!/bin/sh\nexit 0\n")
    elsewhere.chmod(0o755)
    os.link(elsewhere, shipped / "hard")  # a second name, inside, for a file outside
    rows, samples = tmp_path / "p.jsonl", tmp_path / "s.jsonl"
    paths = {
        "good": "checkers/pair.py", "shell": "/bin/sh", "link": "checkers/escape",
        "hard": "checkers/hard",
    }  # fmt: skip
    with open(rows, "w") as out, open(samples, "w") as answers:
        for name, path in paths.items():
            problem = {
                "id": name, "harness": "stdin", "tests": [{"input": "12\n", "output": "2 6\n"}],
                "judge": {"type": "program", "path": path},
            }  # fmt: skip
            out.write(json.dumps(problem) + "\n")
            answers.write(json.dumps({"question_id": name, "code_list": ["print(3, 4)"]}) + "\n")
    command = [sys.executable, "-m", "evaluator.cli", "grade", "--problems", str(rows)]
    command += ["--samples", str(samples), "--output", str(tmp_path / "r.json"), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-3000:]
    results = {
        r["question_id"]: r["details"][0] for r in json.loads(Path(tmp_path, "r.json").read_text())
    }
    assert results["good"]["verdict"] == "AC", results["good"]
    for name in ("shell", "link"):
        assert results[name]["verdict"] == "ERROR", results[name]
        assert "outside the checker directory" in results[name]["message"]
    assert results["hard"]["verdict"] == "ERROR", results["hard"]
    assert "a hard link" in results["hard"]["message"]
    shutil.rmtree(elsewhere.parent)


def test_a_builds_daemon_does_not_outlive_it(host_file):
    """A build's tool (here a shell) that starts a ``setsid`` daemon, or one still running
    at the wall-clock limit: nothing of it is left once the build has ended."""
    from evaluator.languages import BuildLimits
    from evaluator.languages.builds import ConfinedTool

    daemon = f"setsid /bin/sleep {DAEMON} </dev/null >/dev/null 2>&1 &"
    for script, limits in (
        (f"{daemon} echo started", BuildLimits()),
        (f"{daemon} exec /bin/sleep 600", BuildLimits(wall_limit=1.0)),
    ):
        with tempfile.TemporaryDirectory() as work:
            run = ConfinedTool(limits)(["/bin/sh", "-c", script], work)
        assert run.limit == (None if limits.wall_limit is None else "wall"), run
        time.sleep(0.2)
        assert daemons() == [], script


NOT_ROOT = """
import json, os, sys, tempfile
from evaluator.judges.checker import build_checker
mine = os.path.join(tempfile.mkdtemp(), "mine.conf")
open(mine, "w").close()
os.chmod(mine, 0o600)
checker = build_checker({"type": "codeforces", "code": sys.argv[1].replace("@HOST@", mine)})
print(json.dumps(checker.run("12\\n", b"2 6\\n", "2 6\\n")))
print(oct(os.stat(mine).st_mode & 0o7777))
"""


def test_a_grader_that_is_not_root_keeps_its_files_and_leaves_no_daemon():
    """A grader run as ``nobody``: no namespace to make, no user to switch to. The checker
    keeps the grader's user but may not change the grader's own files' mode, times or
    attributes (seccomp: Landlock does not cover them), and its init, a subreaper, kills
    the daemon it left."""
    if os.geteuid() != 0:
        pytest.skip("needs root to become nobody")
    done = run_as_nobody(NOT_ROOT, attack("@HOST@"))
    assert done.returncode == 0, done.stderr[-3000:]
    verdict, mode = done.stdout.splitlines()[-2:]
    assert json.loads(verdict) == ["AC", ""], done.stdout
    assert mode == "0o600"
    assert daemons() == []


def test_an_interpreter_named_through_a_link_in_a_closed_directory(closed_python):
    """The grader's interpreter named through a link in the closed directory (a ``current``
    link to a release, as pyenv's and conda's shims name them): the checker, started with
    that name, finds it in its mount namespace, and still runs as no one who owns it."""
    link = Path(closed_python).parents[2] / "current"
    link.symlink_to(Path(closed_python).parents[1])
    script = (
        "import json\n"
        "from evaluator.judges.checker import build_checker\n"
        "code = 'import os\\nprint(1 if os.getuid() != 0 else 0)'\n"
        "checker = build_checker({'type': 'codeforces', 'code': code})\n"
        "print(json.dumps(checker.run('1\\n', b'1\\n', '1\\n')))\n"
    )
    done = subprocess.run(
        [str(link / "bin" / "python"), "-c", script],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == ["AC", ""], done.stdout
