"""What the JVM class-data archive saves (:mod:`evaluator.languages.jvm_archive`; issue 52,
item 5): the judge's command line for a Java program with our archive against the same
command line with the JDK's own archive (the JVM's default), in the same run.

Four programs, compiled once with javac: ``hello`` (one line printed), ``scanner`` (Scanner
input, printf), ``collections`` (BufferedReader, StringTokenizer, PrintWriter, collections,
streams, lambdas, BigInteger) and ``call`` (a LeetCode method through the call driver,
:mod:`evaluator.harness.native_call`). Each is run ``--runs`` times each way, alternating,
by a subprocess per run: wall per run, its CPU (user + system, ``wait4``) and its peak
resident memory. The archive's ratio is ours / the JDK's (below 1: ours is faster), medians;
every run's stdout is checked against the first (a difference voids the run: exit 1).

Usage: ``python benchmarks/jvm_archive.py [--runs 30] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from evaluator.harness import native_call  # noqa: E402
from evaluator.languages import get_language, jvm_archive  # noqa: E402
from evaluator.problem import Harness, Problem  # noqa: E402

SCANNER = """import java.util.*;
public class Main { public static void main(String[] a) { Scanner s = new Scanner(System.in);
  int n = s.nextInt(); long t = 0; for (int i = 0; i < n; i++) t += s.nextLong();
  System.out.printf("%d %.3f%n", t, t / 3.0); } }"""
COLLECTIONS = """import java.io.*; import java.util.*; import java.util.stream.*; import java.math.*;
public class Main { public static void main(String[] a) throws IOException {
  BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
  StringTokenizer st = new StringTokenizer(r.readLine()); int n = Integer.parseInt(st.nextToken());
  PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
  List<Integer> xs = new ArrayList<>(); for (int i = 0; i < n; i++) xs.add(n - i);
  xs.sort((x, y) -> x - y); Map<Integer, Integer> m = new TreeMap<>();
  for (int x : xs) m.merge(x % 3, 1, Integer::sum);
  out.println(xs.stream().map(String::valueOf).collect(Collectors.joining(" ")) + " " + m
      + " " + BigInteger.valueOf(n).pow(30)); out.flush(); } }"""
HELLO = 'public class Main { public static void main(String[] a) { System.out.println("hi"); } }'
CALL = """class Solution { public int[] twoSum(int[] nums, int target) {
  Map<Integer, Integer> seen = new HashMap<>();
  for (int i = 0; i < nums.length; i++) { Integer j = seen.get(target - nums[i]);
    if (j != null) return new int[] {j, i}; seen.put(nums[i], i); }
  return new int[0]; } }"""
PROGRAMS = {
    "hello": (HELLO, b""),
    "scanner": (SCANNER, b"3\n1 2 3\n"),
    "collections": (COLLECTIONS, b"12\n"),
    "call": (None, b"[2,7,11,15]\n9\n"),
}


def _source(name: str) -> str:
    code, _ = PROGRAMS[name]
    if code is not None:
        return code
    problem = Problem("twoSum", Harness.FUNCTIONAL, [], func_name="twoSum")
    return native_call.program(problem, CALL, "java")


def _run(argv: list[str], stdin: bytes) -> tuple[float, float, int, bytes]:
    """One run: wall seconds, CPU seconds, peak resident KB, stdout."""
    with tempfile.TemporaryFile() as feed, tempfile.TemporaryFile() as out:
        feed.write(stdin)
        feed.seek(0)
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdin=feed, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out.read()


def measure(runs: int) -> dict:
    java = get_language("java")
    binary = java.runtime()
    archive = jvm_archive.archive_for(binary)
    if archive is None:
        sys.exit("no archive could be made here (see the warning)")
    ours = java.jvm_options(256)
    theirs = [option for option in ours if not option.startswith("-XX:SharedArchiveFile=")]
    results = {}
    with tempfile.TemporaryDirectory(prefix="mcjvmcds-") as where:
        for name, (_, stdin) in PROGRAMS.items():
            folder = Path(where, name)
            folder.mkdir()
            (folder / "Main.java").write_text(_source(name))
            subprocess.run(["javac", "-d", str(folder), str(folder / "Main.java")], check=True)
            argvs = {
                "ours": [binary, *ours, "-cp", str(folder), "Main"],
                "jdk": [binary, *theirs, "-cp", str(folder), "Main"],
            }
            samples: dict[str, list[tuple[float, float, int]]] = {"ours": [], "jdk": []}
            expected = None
            for _ in range(runs):
                for way, argv in argvs.items():
                    wall, cpu, rss, stdout = _run(argv, stdin)
                    expected = stdout if expected is None else expected
                    if stdout != expected or not stdout:
                        sys.exit(f"{name} ({way}) printed {stdout!r}, not {expected!r}")
                    samples[way].append((wall, cpu, rss))
            results[name] = _summary(samples)
    return {"archive": archive, "runs": runs, "programs": results}


def _summary(samples: dict[str, list[tuple[float, float, int]]]) -> dict:
    row = {}
    for way, values in samples.items():
        row[way] = {
            "wall_ms": round(statistics.median(v[0] for v in values) * 1000, 1),
            "cpu_ms": round(statistics.median(v[1] for v in values) * 1000, 1),
            "rss_kb": int(statistics.median(v[2] for v in values)),
        }
    for key in ("wall_ms", "cpu_ms", "rss_kb"):
        row[f"ratio_{key}"] = round(row["ours"][key] / row["jdk"][key], 3)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    if shutil.which("java") is None:
        sys.exit("java is not installed (setup.sh installs it)")
    results = measure(args.runs)
    print(f"{'program':<12} {'wall ours/jdk':>20} {'cpu ours/jdk':>20} {'rss ours/jdk (MB)':>22}")
    for name, row in results["programs"].items():
        ours, jdk = row["ours"], row["jdk"]
        print(
            f"{name:<12} {ours['wall_ms']:>7}/{jdk['wall_ms']:<6} {row['ratio_wall_ms']:>5}x"
            f" {ours['cpu_ms']:>7}/{jdk['cpu_ms']:<6} {row['ratio_cpu_ms']:>5}x"
            f" {ours['rss_kb'] / 1024:>7.1f}/{jdk['rss_kb'] / 1024:<6.1f} {row['ratio_rss_kb']:>5}x"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
