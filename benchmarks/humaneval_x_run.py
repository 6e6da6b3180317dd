"""HumanEval-X's canonical solutions, per language: graded by this grader against the
authors' own evaluation commands run plainly on the same joined programs, in one run
(issue 52, item 5).

For each language, all 164 problems of ``../shared/data/multilingual/humaneval-x`` (or
``--data``) with their canonical solutions, joined by ``evaluator.formats.sources.humaneval_x`` (the
authors' ``process_humaneval_test``), are graded two ways, ``--workers`` at a time:

``plain``    the commands of their ``execution.py`` in a fresh directory per program, as
    its README (``../shared/data/multilingual/README.md``) says: ``g++ -std=c++11`` then
    ``./a.out``; ``javac`` then ``java -cp . Main``; ``node``, passing with nothing printed;
    ``python3``; ``go test main_test.go`` (GOPATH mode over Debian's testify, a build cache of
    this run's own); Rust: ``rustc
    --edition 2021 --test`` against the crates the grader prepared (cargo's own project
    runs the same compiler on the same rlibs), then the test binary.
``sandbox``  one :class:`evaluator.runner.Grader` (warm: its pool and prepared work started
    before the clock), each program submitted as a sample is.

Printed per language: problems passed each way (they must agree; a disagreement is listed),
wall seconds each way and the ratio sandbox / plain. Run from a quiet machine:
``python benchmarks/humaneval_x_run.py [--languages go,java] [--workers 2] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from evaluator.formats import read_problems  # noqa: E402
from evaluator.harness.test_program import program  # noqa: E402
from evaluator.languages import get_language  # noqa: E402
from evaluator.languages.go_test import GOPATH  # noqa: E402
from evaluator.problem import Problem  # noqa: E402
from evaluator.runner import GradeOptions, Grader  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "multilingual" / "humaneval-x"
FILES = {"cpp": "cpp", "java": "java", "javascript": "js", "python": "python",
         "go_test": "go", "rust_test": "rust"}  # fmt: skip
TIMEOUT = 60  # seconds per plain step (their default is 500 s a sample)
# The plain go test's build cache: fresh for each run of this script (a cache from an earlier
# run holds these very programs compiled, which the grader's builds never have), shared by
# its programs as one evaluation machine's is (testify is compiled by the first).
GO_CACHE = tempfile.mkdtemp(prefix="hx-gocache-")
atexit.register(shutil.rmtree, GO_CACHE, ignore_errors=True)


def _run(argv: list[str], where: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=where, env=env, capture_output=True, timeout=TIMEOUT)


def plain_pass(language: str, problem: Problem, source: str, rust_flags: list[str]) -> bool:
    """Whether the authors' commands pass ``source`` (a fresh directory each)."""
    with tempfile.TemporaryDirectory(prefix="hx-plain-") as where:
        if language == "python":
            Path(where, "test.py").write_text(source)
            return _run([sys.executable, "test.py"], where).returncode == 0
        if language == "javascript":
            Path(where, "test.js").write_text(source)
            done = _run(["node", "test.js"], where)
            return not done.stdout and not done.stderr
        if language == "cpp":
            Path(where, "test.cpp").write_text(source)
            flags = problem.metadata.get("cpp_flags") or ["-std=c++11"]
            libraries = [flag for flag in flags if flag.startswith("-l")]
            options = [flag for flag in flags if not flag.startswith("-l")]
            if _run(["g++", *options, "test.cpp", *libraries], where).returncode != 0:
                return False
            return _run(["./a.out"], where).returncode == 0
        if language == "java":
            Path(where, "Main.java").write_text(source)
            if _run(["javac", "Main.java"], where).returncode != 0:
                return False
            return _run(["java", "-cp", where, "Main"], where).returncode == 0
        if language == "go_test":
            Path(where, "main_test.go").write_text(source)
            env = {**os.environ, "GO111MODULE": "off", "GOPATH": GOPATH, "GOPROXY": "off",
                   "GOFLAGS": "", "GOCACHE": GO_CACHE}  # fmt: skip
            return _run(["go", "test", "main_test.go"], where, env).returncode == 0
        if language == "rust_test":
            Path(where, "main.rs").write_text(source)
            build = ["rustc", "--edition", "2021", "--test", "main.rs", "-o", "t", *rust_flags]
            if _run(build, where).returncode != 0:
                return False
            return _run(["./t"], where).returncode == 0
    raise ValueError(language)


def measure(language: str, data: Path, workers: int) -> dict:
    problems = read_problems(data / f"humaneval_{FILES[language]}.jsonl.gz")
    sources = {p.id: program(p, p.metadata["canonical_solution"]) for p in problems}
    codes = {p.id: p.metadata["canonical_solution"] for p in problems}
    with Grader(GradeOptions(), workers=workers) as grader:
        warm = grader.grade(problems[0], codes[problems[0].id], language)  # pool, prepared work
        lang = get_language(language)
        # the crates' rlibs live in the grader's builder: the plain runs link the same ones
        rust_flags = list(grader.builder.prepared(lang, lang.default_flags))
        start = time.perf_counter()
        futures = {p.id: grader.submit(p, codes[p.id], language) for p in problems}
        ours = {task: future.result() for task, future in futures.items()}
        sandbox_s = time.perf_counter() - start
        start = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            verdicts = pool.map(
                lambda p: plain_pass(language, p, sources[p.id], rust_flags), problems
            )
            passes = dict(zip(sources, verdicts, strict=True))
        plain_s = time.perf_counter() - start
    del warm
    disagree = sorted(t for t in sources if passes[t] is not ours[t].passed)
    return {
        "language": language,
        "problems": len(problems),
        "passed_sandbox": sum(r.passed for r in ours.values()),
        "passed_plain": sum(passes.values()),
        "failed": {t: f"{r.verdict}: {r.message[:120]}" for t, r in ours.items() if not r.passed},
        "disagree": disagree,
        "sandbox_s": round(sandbox_s, 2),
        "plain_s": round(plain_s, 2),
        "ratio": round(sandbox_s / plain_s, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", default=",".join(FILES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    for language in args.languages.split(","):
        if language not in FILES:
            parser.error(f"unknown language {language!r} (known: {', '.join(FILES)})")
        row = measure(language, args.data, args.workers)
        rows.append(row)
        print(f"{language:10} passed {row['passed_sandbox']}/{row['problems']} (plain "
              f"{row['passed_plain']}), sandbox {row['sandbox_s']:.1f} s, plain "
              f"{row['plain_s']:.1f} s, ratio {row['ratio']:.2f}x"
              + (f"; DISAGREE on {row['disagree']}" if row["disagree"] else ""), flush=True)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"workers": args.workers, "rows": rows}, indent=1) + "\n")
    return 1 if any(row["disagree"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
