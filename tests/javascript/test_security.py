"""JavaScript (node): the security battery. What the runtime offers to reach past the program
ends in a refusal; what a plain run of a judge allows (threads, files in its own
directory) works."""

from __future__ import annotations

from evaluator.problem import Harness, Problem, TestCase
from tests.languages.runtime_plain import LIMITS, probe_answers

NODE_PROBES = """
const fs = require("fs"), net = require("net"), cp = require("child_process");
const probe = (what, act) => { try { const r = act(); console.log(what, r === undefined ? "done" : String(r)); } catch (e) { console.log(what, "refused"); } };
probe("spawn", () => { const r = cp.spawnSync("/bin/sh", ["-c", "echo hi"]); if (r.error) throw r.error; return r.stdout; });
probe("exec_self", () => cp.execFileSync(process.execPath, ["-e", "1"]));
probe("read_passwd", () => fs.readFileSync("/etc/passwd", "utf8").length);
probe("read_home", () => fs.readdirSync("/root").length);
probe("write_var_tmp", () => fs.writeFileSync("/var/tmp/mcprobe", "x"));
probe("write_usr", () => fs.writeFileSync("/usr/mcprobe", "x"));
probe("proc_parent", () => fs.readFileSync("/proc/1/cmdline", "utf8"));
probe("kill_parent", () => process.kill(process.ppid, "SIGKILL"));
const s = net.connect(80, "1.1.1.1"); s.on("error", () => console.log("connect refused")); s.on("connect", () => console.log("connect done"));
"""


def test_node_reaches_nothing_past_the_program(languages_grader):
    refused = ["spawn", "exec_self", "read_passwd", "read_home", "write_var_tmp", "write_usr",
               "proc_parent", "kill_parent", "connect"]  # fmt: skip
    result = probe_answers(
        languages_grader, "javascript", NODE_PROBES, [f"{name} refused" for name in refused]
    )
    assert result.verdict.value == "AC", result.message


def test_nodes_internal_spawn_binding_runs_nothing(languages_grader):
    """``process.binding("spawn_sync")``, under child_process: the same one exec refused
    (or node dies of its own checks); never a shell's output."""
    source = """
const r = process.binding("spawn_sync").spawn({ file: "/bin/sh", args: ["sh", "-c", "echo escaped"],
  envPairs: [], stdio: [{ type: "pipe", readable: true, writable: false },
  { type: "pipe", readable: false, writable: true }, { type: "inherit" }] });
console.log("status", r.status, "error", r.error);
"""
    problem = Problem("probe", Harness.STDIN, [TestCase("", "")], time_limit=LIMITS.time_limit)
    result = languages_grader.grade(problem, source, language="javascript")
    assert "escaped" not in (result.tests[0].stdout or ""), result.tests[0]
