"""Bombs in every language that runs on a runtime or builds its own threads: threads created
without end (the JVM's, Go's OS threads, Node's workers, Rust's, Ruby's), and processes
started in a loop (Go's ForkExec, Node's child_process, Ruby's fork, Rust's raw clone).
Each ends as a failed test within its limits, never the grader's error, leaves no process
behind, and the next program on the same grader is graded right (a thread bomb takes only
its own child down)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from tests.languages.runtime_plain import needs_runtime

THREADS = {
    "java": """
public class Main { public static void main(String[] a) {
  while (true) new Thread(() -> { try { Thread.sleep(100000); } catch (InterruptedException e) {} }).start();
} }""",
    "go": """package main
import ("runtime"; "time")
func main() {
  for { go func() { runtime.LockOSThread(); time.Sleep(time.Hour) }() }
}""",
    "javascript": """const { Worker } = require("worker_threads");
for (;;) new Worker("setInterval(() => {}, 1000)", { eval: true });""",
    "rust": """fn main() {
  loop { std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_secs(100))); }
}""",
    "ruby": "loop { Thread.new { sleep 100 } }",
}
PROCESSES = {
    "go": """package main
import "syscall"
func main() { for { syscall.ForkExec("/bin/true", []string{"true"}, nil) } }""",
    "javascript": """const cp = require("child_process");
for (;;) { try { cp.spawn("/bin/true"); } catch (e) {} }""",
    "ruby": "loop { begin; fork { sleep 100 }; rescue StandardError; end }",
    "rust": """extern "C" { fn syscall(n: i64, ...) -> i64; }
fn main() { loop { unsafe { syscall(57); } } }""",
}
FAILED = {Verdict.RE, Verdict.TLE, Verdict.MLE}
SUM = {  # after a bomb, the same grader grades a right program right
    "java": "import java.util.*;\npublic class Main { public static void main(String[] a) {"
    " Scanner s = new Scanner(System.in); System.out.println(s.nextInt() + s.nextInt()); } }",
    "go": 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }',
    "javascript": 'const [a, b] = require("fs").readFileSync(0, "utf8").split(" ").map(Number);\n'
    "console.log(a + b);",
    "rust": "fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap();"
    " let v: Vec<i64> = s.split_whitespace().map(|t| t.parse().unwrap()).collect();"
    ' println!("{}", v[0] + v[1]); }',
    "ruby": "a, b = gets.split.map(&:to_i)\nputs a + b",
}
PROBLEM = Problem("bomb", Harness.STDIN, [TestCase("2 3\n", "5\n")], time_limit=2.0,
                  memory_limit=256)  # fmt: skip


def _cases(table: dict[str, str]) -> list:
    return [pytest.param(lang, table[lang], marks=needs_runtime(lang), id=lang) for lang in table]


def _programs_below_us() -> set[int]:
    """This process's descendants that are not Python (the fork servers and their templates
    are): programs, runtimes, whatever they started."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
    found, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return {pid for pid in found if not _comm(pid).startswith("python")}


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "python"  # gone


def _grade_bomb(grader, language: str, source: str) -> None:
    assert grader.grade(PROBLEM, SUM[language], language=language).verdict is Verdict.AC
    before = _programs_below_us()
    result = grader.grade(PROBLEM, source, language=language)
    assert result.verdict in FAILED, result
    assert result.tests[0].wall_time < 30, result  # ended by its limits, not a backstop
    left = _programs_below_us() - before
    assert not left, {pid: _comm(pid) for pid in left}
    assert grader.grade(PROBLEM, SUM[language], language=language).verdict is Verdict.AC


@pytest.mark.parametrize(("language", "source"), _cases(THREADS))
def test_a_thread_bomb_fails_its_test_and_leaves_the_grader_sound(
    languages_grader, language, source
):
    _grade_bomb(languages_grader, language, source)


@pytest.mark.parametrize(("language", "source"), _cases(PROCESSES))
def test_a_process_loop_starts_nothing_and_fails_its_test(languages_grader, language, source):
    _grade_bomb(languages_grader, language, source)
