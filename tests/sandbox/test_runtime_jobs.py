"""A job that runs an installed runtime (``Job.runtime``: node here) on files staged for it
(``Job.program_files``): the sandbox knows no language, only the file to execute, its argv
and the files. The runtime's exec is the child's one exec; the staged files are read-only;
a runtime the pool was not started with is not started."""

from __future__ import annotations

import shutil

import pytest

from evaluator.sandbox import Job, SandboxPool

NODE = shutil.which("node", path="/usr/bin:/bin")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (setup.sh installs it)")
READS = {NODE: ["/etc/ssl/openssl.cnf"]} if NODE else {}


@pytest.fixture(scope="module")
def node_pool(tmp_path_factory):
    with SandboxPool(workers=1, runtimes=READS, tmp_dir=tmp_path_factory.mktemp("rt")) as pool:
        yield pool


def _node(script: str, inputs: list[str], **files: bytes) -> Job:
    staged = {"main.js": script.encode(), **files}
    return Job(code="", inputs=inputs, runtime=NODE, program_files=staged,
               argv=["node", "{program}/main.js"])  # fmt: skip


def test_a_runtime_runs_each_test_on_its_staged_files(node_pool):
    script = 'const n = require("fs").readFileSync(0, "utf8").trim(); console.log(n * 2);'
    result = node_pool.run(_node(script, ["2\n", "21\n"]))
    assert [run.stdout for run in result.runs] == [b"4\n", b"42\n"]
    assert all(run.clean_exit for run in result.runs)


def test_staged_files_are_read_only_and_the_directory_unlisted(node_pool):
    script = """
const fs = require("fs"), path = require("path"), dir = path.dirname(process.argv[1]);
for (const [what, act] of [
  ["write", () => fs.writeFileSync(process.argv[1], "changed")],
  ["add", () => fs.writeFileSync(path.join(dir, "new.js"), "x")],
  ["remove", () => fs.unlinkSync(path.join(dir, "data.txt"))],
  ["list", () => fs.readdirSync(dir)],
]) { try { act(); console.log(what, "done"); } catch (e) { console.log(what, e.code); } }
console.log(fs.readFileSync(path.join(dir, "data.txt"), "utf8"));
"""
    result = node_pool.run(_node(script, ["", ""], **{"data.txt": b"staged"}))
    for run in result.runs:  # the second test finds the files as the first did
        lines = run.stdout.decode().splitlines()
        assert lines[-1] == "staged"
        assert all(not line.endswith(" done") for line in lines[:-1]), lines


def test_the_runtime_execs_nothing_else(node_pool):
    script = """
const cp = require("child_process");
for (const cmd of [process.execPath, "/bin/sh"]) {
  const r = cp.spawnSync(cmd, ["-e", "1"]);
  console.log(r.error ? r.error.code : "ran " + r.status);
}
"""
    run = node_pool.run(_node(script, [""])).runs[0]
    codes = run.stdout.decode().split()
    assert len(codes) == 2 and not any(code.startswith("ran") for code in codes), run


def test_a_runtime_the_pool_was_not_given_is_not_started(node_pool):
    job = Job(code="", inputs=["", ""], runtime="/usr/bin/perl", argv=["perl", "-e", "1"])
    runs = node_pool.run(job).runs
    assert [run.status for run in runs] == ["not_started", "not_started"]
    assert "/usr/bin/perl" in runs[0].exception and "not one of this pool's" in runs[0].exception


def test_a_runtime_gets_the_jobs_environment_beside_its_own(node_pool):
    """``Job.program_environment`` reaches the program (node's ``NODE_PATH``, say), added to
    a child's own variables; a job without one gets those alone, and another job's never."""
    script = 'console.log(process.env.MC_PROBE || "unset", typeof process.env.PATH);'
    job = _node(script, [""])
    job.program_environment = {"MC_PROBE": "given"}
    assert node_pool.run(job).runs[0].stdout == b"given string\n"
    assert node_pool.run(_node(script, [""])).runs[0].stdout == b"unset string\n"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"runtime": "node"}, "absolute path"),
        ({"program_files": {"a.js": b""}}, "for a runtime"),
        ({"runtime": "/usr/bin/node", "executable": b"\x7fELF"}, "not both"),
        ({"runtime": "/usr/bin/node", "program_files": {"../a.js": b""}}, "relative path"),
        ({"program_environment": {"A": "1"}}, "for a program file or runtime"),
        ({"runtime": "/usr/bin/node", "program_environment": {"A=B": "1"}}, "not an environment"),
        ({"runtime": "/usr/bin/node", "program_environment": {"A": "x\0y"}}, "not an environment"),
    ],
)
def test_a_runtime_job_is_checked(fields, message):
    with pytest.raises(ValueError, match=message):
        Job(code="", inputs=[""], **fields)


def test_a_pool_refuses_a_runtime_that_is_not_an_executable_file():
    with pytest.raises(ValueError, match="executable file's absolute path"):
        SandboxPool(workers=1, runtimes=["/etc/passwd"], start=0)
