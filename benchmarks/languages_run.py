"""Per language: a test's cost in the sandbox against a plain run of the same program, and
the build's cost, measured in one run (issue 52, item 5).

For each installed language (C, C++, Rust, Go, Java, Kotlin, C#, Elixir, JavaScript, TypeScript, Scala,
Racket, OCaml, Haskell, R) two stdin programs: ``trivial`` (sum a line of integers) and ``100ms`` (a
loop of about 100 ms of CPU, then the sum; the interpreters loop fewer times). Each is built once by the grader's confined builder (its time is the
``build``; a second submit of the same source is the cache's ``hit``), and the same bytes
are then run on ``--tests`` inputs both ways, one test at a time:

``plain``    the language's own command line (``./solution``, ``java ... Main``, ``node
    main.js``; R: the interpreter ``Rscript`` ends in, with the variables it sets) by a
    subprocess per test in a fresh directory holding the build's files, as a judge runs it:
    wall per test, and its CPU (``RUSAGE_CHILDREN``).
``sandbox``  one job of ``--tests`` inputs in a warm one-worker pool started with the
    runtimes (a fresh sandboxed process per test): wall per test, and the CPU of the whole
    process tree (``sandbox_overhead.cpu_between``: the caller, the fork server, its
    template and the test children) per test.

The ratios sandbox / plain are per program, in the same run; every run's stdout is checked
(a wrong answer voids the run: exit 1). Goals (issue 52): within 1.10x plain for a trivial
program, 1.05x for one of 100 ms.

Usage: ``python benchmarks/languages_run.py [--tests 20] [--languages c,java] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from sandbox_overhead import cpu_between, snapshot_end, snapshot_start  # noqa: E402

from evaluator.harness.stdio import build_program_job  # noqa: E402
from evaluator.languages import Build, Language, get_language, runtimes  # noqa: E402
from evaluator.languages.builds import Builder  # noqa: E402
from evaluator.problem import Harness, Problem, TestCase  # noqa: E402
from evaluator.sandbox import Limits, SandboxPool  # noqa: E402
from evaluator.sandbox.reference import child_environment  # noqa: E402

SPIN = 64_000_000  # loop iterations: about 100 ms of CPU in C; the slower runtimes more
PROGRAMS = {
    "c": (
        "#include <stdio.h>\nint main(void){ long a,b; volatile long x=0; for (long i=0;i<SPIN;i++) x+=i;"
        ' scanf("%ld %ld",&a,&b); printf("%ld\\n",a+b); }'
    ),
    "cpp": (
        "#include <bits/stdc++.h>\nint main(){ long a,b; volatile long x=0; for (long i=0;i<SPIN;i++)"
        " x+=i; std::cin>>a>>b; std::cout<<a+b<<std::endl; }"
    ),
    "rust": (
        "fn main(){ let mut x: u64 = 0; for i in 0..SPIN { x = std::hint::black_box(x + i); }"
        " let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap();"
        " let v: Vec<i64> = s.split_whitespace().map(|t| t.parse().unwrap()).collect();"
        ' println!("{}", v[0] + v[1]); }'
    ),
    "go": (
        'package main\nimport "fmt"\nvar sink int\nfunc main(){ x := 0; for i := 0; i < SPIN; i++'
        " { x += i }; sink = x; var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }"
    ),
    "java": (
        "import java.util.*;\npublic class Main { static long sink; public static void main(String[] z)"
        " { long x = 0; for (long i = 0; i < SPIN; i++) x += i ^ (x >>> 3); sink = x;"
        " Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }"
    ),
    "kotlin": (
        "var sink = 0L\nfun main() { var x = 0L; var i = 0L; while (i < SPIN) { x += i xor (x ushr 3); i++ }"
        " ; sink = x; val (a, b) = readLine()!!.trim().split(' ').map { it.toLong() }; println(a + b) }"
    ),
    "elixir": (
        "defmodule M do\n  def spin(0, x), do: x\n  def spin(n, x), do: spin(n - 1, rem(x + n, 65536))\nend\n"
        "M.spin(SPIN, 0)\n[a, b] = IO.read(:stdio, :line) |> String.split() |> Enum.map(&String.to_integer/1)\n"
        "IO.puts(a + b)"
    ),
    "csharp": (
        "using System;\nclass P { static long sink; static void Main() { long x = 0;"
        " for (long i = 0; i < SPIN; i++) x += i ^ (x >> 3); sink = x;"
        " var t = Console.ReadLine().Split(' '); Console.WriteLine(long.Parse(t[0]) + long.Parse(t[1])); } }"
    ),
    "javascript": (
        "let x = 0; for (let i = 0; i < SPIN; i++) x = (x + i) | 0;\n"
        'const [a, b] = require("fs").readFileSync(0, "utf8").split(" ").map(Number);'
        " console.log(a + b);"
    ),
    "typescript": (
        "let x: number = 0; for (let i = 0; i < SPIN; i++) x = (x + i) | 0;\n"
        'const [a, b]: number[] = require("fs").readFileSync(0, "utf8").split(" ").map(Number);'
        " console.log(a + b);"
    ),
    "scala": (
        "object Main { var sink = 0L; def main(z: Array[String]): Unit = { var x = 0L; var i = 0L;"
        " while (i < SPIN) { x += i ^ (x >>> 3); i += 1 }; sink = x;"
        " val Array(a, b) = scala.io.StdIn.readLine().trim.split(' ').map(_.toLong); println(a + b) } }"
    ),
    "racket": (
        "#lang racket/base\n(define x (for/fold ([x 0]) ([i (in-range SPIN)]) (bitwise-and (+ x i) 65535)))\n"
        "(displayln (+ (read) (read)))"
    ),
    "ocaml": (
        "let () = let x = ref 0 in for i = 1 to SPIN do x := (!x + i) land 65535 done;\n"
        '  Scanf.scanf " %d %d" (fun a b -> Printf.printf "%d\\n" (a + b))'
    ),
    "haskell": (
        "import Data.List (foldl')\nmain :: IO ()\nmain = do\n"
        "  let x = foldl' (\\a i -> (a + i) `mod` 65536) 0 [1 .. SPIN :: Int]\n"
        "  [a, b] <- map read . words <$> getLine :: IO [Int]\n  x `seq` print (a + b)"
    ),
    "r": (
        "x <- 0\nfor (i in seq_len(SPIN)) x <- (x + i) %% 65536\n"
        'v <- scan(file("stdin"), quiet = TRUE)\ncat(v[1] + v[2], "\\n", sep = "")'
    ),
}
# loop lengths where about 100 ms of CPU takes fewer iterations (interpreters)
SPINS = {"racket": 8_000_000, "ocaml": 2_000_000, "r": 1_000_000, "elixir": 5_000_000}
LIMITS = Limits(time_limit=10.0, memory_limit=512)


def sources(language: str) -> dict[str, str]:
    """``trivial`` and ``100ms``: the same program without and with the loop."""
    text = PROGRAMS[language]
    spin = SPINS.get(language, SPIN)
    return {"trivial": text.replace("SPIN", "0"), "100ms": text.replace("SPIN", str(spin))}


def stage(language: Language, build: Build, where: str) -> list[str]:
    """The build's files written into ``where``; the plain run's argv."""
    if build.binary is not None:  # ./solution, by its path: each test runs in its own dir
        path = Path(where, "solution")
        path.write_bytes(build.binary)
        path.chmod(0o755)
        return [str(path)]
    for name, data in (build.files or {}).items():
        Path(where, name).parent.mkdir(parents=True, exist_ok=True)
        Path(where, name).write_bytes(data)
    argv = [part.replace("{program}", where) for part in language.argv(build, LIMITS.memory_limit)]
    runtime = language.runtime()
    return [runtime, *argv[1:]] if runtime else argv


def plain(argv: list[str], inputs: list[str], environment: dict[str, str]):
    """Wall and CPU seconds per test of ``argv`` run plainly on each input (with the
    language's ``environment``); the outputs."""
    outputs = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for text in inputs:
        with tempfile.TemporaryDirectory() as run_dir:
            env = {**child_environment(run_dir), **environment}
            done = subprocess.run(argv, input=text.encode(), capture_output=True, cwd=run_dir,
                                  env=env, check=False)  # fmt: skip
            outputs.append(done.stdout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall / len(inputs), cpu / len(inputs), outputs


def sandboxed(pool: SandboxPool, language: Language, build: Build, inputs: list[str]):
    """Wall and whole-tree CPU seconds per test of the same build in the sandbox."""
    problem = Problem("bench", Harness.STDIN, [TestCase(text, "") for text in inputs])
    job = build_program_job(problem, build, language, LIMITS)  # as a grader runs it
    start = snapshot_start()
    result = pool.run(job)
    end = snapshot_end()
    cpu = cpu_between(start, end)["total"]
    return (end.wall - start.wall) / len(inputs), cpu / len(inputs), [r.stdout for r in result.runs]


def measure(language: Language, builder: Builder, pool: SandboxPool, tests: int) -> dict:
    rows = {}
    inputs = [f"{i} {i + 1}\n" for i in range(tests)]
    expected = [f"{2 * i + 1}\n".encode() for i in range(tests)]
    for name, source in sources(language.name).items():
        start = time.perf_counter()
        build = builder.submit(language, source, language.default_flags).result()
        built = time.perf_counter() - start
        if not build.ok:
            sys.exit(f"{language.name} {name}: the build failed: {build.message}")
        start = time.perf_counter()
        builder.submit(language, source, language.default_flags).result()
        hit = time.perf_counter() - start
        with tempfile.TemporaryDirectory() as where:
            os.chmod(where, 0o755)
            argv = stage(language, build, where)
            # a plain run needs no preloaded library (Mono's: glibc reads /proc itself)
            environment = {k: v for k, v in language.run_environment().items() if k != "LD_PRELOAD"}
            plain_wall, plain_cpu, plain_out = plain(argv, inputs, environment)
        box_wall, box_cpu, box_out = sandboxed(pool, language, build, inputs)
        if plain_out != expected or box_out != expected:
            sys.exit(f"{language.name} {name}: a wrong answer (plain {plain_out[:1]}, "
                     f"sandbox {box_out[:1]}): the run is void")  # fmt: skip
        rows[name] = {
            "build_s": round(built, 3),
            "cache_hit_ms": round(hit * 1000, 3),
            "plain_wall_ms": round(plain_wall * 1000, 2),
            "sandbox_wall_ms": round(box_wall * 1000, 2),
            "wall_ratio": round(box_wall / plain_wall, 3),
            "plain_cpu_ms": round(plain_cpu * 1000, 2),
            "sandbox_cpu_ms": round(box_cpu * 1000, 2),
            "cpu_ratio": round(box_cpu / plain_cpu, 3) if plain_cpu else None,
        }
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--languages", default=",".join(PROGRAMS))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {}
    # no prepared work: a precompiled header built in the background would count as CPU here
    with (
        Builder(workers=1, prepare=False) as builder,
        SandboxPool(workers=1, runtimes=runtimes()) as pool,
    ):
        for name in args.languages.split(","):
            language = get_language(name)
            try:
                version = language.version()
            except OSError as exc:
                print(f"{name}: skipped ({exc})")
                continue
            results[name] = {"toolchain": version, **measure(language, builder, pool, args.tests)}
            for program in ("trivial", "100ms"):
                row = results[name][program]
                print(f"{name:10} {program:7} build {row['build_s']:6.2f} s (hit "
                      f"{row['cache_hit_ms']:.2f} ms)  wall {row['plain_wall_ms']:8.1f} -> "
                      f"{row['sandbox_wall_ms']:8.1f} ms ({row['wall_ratio']:.2f}x)  cpu "
                      f"{row['plain_cpu_ms']:8.1f} -> {row['sandbox_cpu_ms']:8.1f} ms "
                      f"({row['cpu_ratio']}x)")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
