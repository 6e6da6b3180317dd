"""Reading RL datasets at their real scale: a generated DeepCoder-shaped parquet file of about
1 GB (tests of about a megabyte per row), converted and graded, with peak resident memory.

Measured, each command a process of its own (peak RSS from ``wait4``):

* ``mcevaluate dataset convert --from deepcoder big.parquet out.jsonl`` (streams);
* ``mcevaluate grade --problems big.parquet --samples s.jsonl`` (one right program per
  problem; tests beyond 256 MB kept on disk);
* the baseline in the same run: loading the same file whole, as ``pandas.read_parquet`` (what
  a script that reads the dataset first holds), and ``json.loads`` of every row's tests.

And the reward's decoding of a row with a megabyte of tests: the first call decodes it, later
calls find it by fingerprint (``CodeReward.cache_misses``), against decoding on every call.

    python benchmarks/dataset_scale.py                  # 1 GB, ~5 min on 2 cores
    python benchmarks/dataset_scale.py --gigabytes 0.1  # a quick look
    python benchmarks/dataset_scale.py --json benchmarks/results/dataset_scale.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RIGHT = "import sys\nxs = sys.stdin.buffer.read().split()\nprint(sum(map(int, xs[1:])))\n"
TEST_BYTES = 256 << 10  # one test's input
TESTS_PER_ROW = 4


def _test(rng: random.Random) -> dict[str, str]:
    numbers = [rng.randrange(10**6) for _ in range(TEST_BYTES // 7)]
    text = f"{len(numbers)}\n" + " ".join(map(str, numbers)) + "\n"
    return {"input": text, "output": f"{sum(numbers)}\n", "testtype": "stdin"}


def make_file(path: Path, gigabytes: float, seed: int = 0) -> int:
    """A DeepCoder ``lcbv5``-shaped parquet file of about ``gigabytes`` (uncompressed, so
    its size on disk is its size); returns its rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    rows = max(1, int(gigabytes * (1 << 30) / (TESTS_PER_ROW * TEST_BYTES)))
    schema = pa.schema([("problem", pa.string()), ("tests", pa.large_string()),
                        ("metadata", pa.string()), ("solutions", pa.list_(pa.string()))])  # fmt: skip
    with pq.ParquetWriter(path, schema, compression="none") as writer:
        for start in range(0, rows, 16):
            chunk = range(start, min(rows, start + 16))
            tests = [json.dumps([_test(rng) for _ in range(TESTS_PER_ROW)]) for _ in chunk]
            writer.write_table(
                pa.table(
                    {
                        "problem": [f"Problem {i}: print the sum of the numbers." for i in chunk],
                        "tests": tests,
                        "metadata": ["{}"] * len(chunk),
                        "solutions": [[RIGHT]] * len(chunk),
                    },
                    schema=schema,
                )
            )
    return rows


def measured(command: list[str]) -> dict[str, float]:
    """Run ``command``; its wall time and peak resident memory (MB)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output.decode(errors='replace')[-2000:]}")
    return {"seconds": time.perf_counter() - started, "peak_rss_mb": usage.ru_maxrss / 1024}


def reward_cache(rows: int = 1, calls: int = 8) -> dict[str, float]:
    """Seconds per call of CodeReward on a group of 8 completions of one row with ~1 MB of
    tests: cached by fingerprint (ours) against decoding the row on every call."""
    from evaluator.reward import CodeReward
    from evaluator.reward.columns import problem_from_columns

    rng = random.Random(1)
    tests = json.dumps([_test(rng) for _ in range(TESTS_PER_ROW)])
    row = {"problem": "sum", "tests": tests, "metadata": "{}"}
    completions = [f"```python\n{RIGHT}```"] * 8
    with CodeReward(workers=2) as reward:
        reward(None, completions, **{k: [v] * 8 for k, v in row.items()})  # warm the pool
        started = time.perf_counter()
        for _ in range(calls):
            assert reward(None, completions, **{k: [v] * 8 for k, v in row.items()}) == [1.0] * 8
        cached = (time.perf_counter() - started) / calls
        decodes = reward.cache_misses
    started = time.perf_counter()
    for _ in range(calls):
        problem_from_columns(row)
    decode = (time.perf_counter() - started) / calls
    return {"call_seconds": cached, "decodes_in_calls": decodes, "decode_seconds": decode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the numbers here")
    args = parser.parse_args()
    cli = [sys.executable, "-m", "evaluator.cli"]
    with tempfile.TemporaryDirectory(prefix="mc-scale-") as folder:
        work = Path(folder)
        big = work / "deepcoder.parquet"
        rows = make_file(big, args.gigabytes)
        size_mb = big.stat().st_size / (1 << 20)
        print(f"{big.name}: {rows} rows, {size_mb:.0f} MB")
        samples = work / "samples.jsonl"
        samples.write_text(
            "".join(
                json.dumps({"question_id": f"deepcoder-{i}", "code_list": [RIGHT]}) + "\n"
                for i in range(rows)
            )
        )
        results: dict[str, object] = {"rows": rows, "file_mb": size_mb}
        load = "import pandas, sys; frame = pandas.read_parquet(sys.argv[1]); print(len(frame))"
        results["baseline_pandas_read_parquet"] = measured([sys.executable, "-c", load, str(big)])
        parse = (
            "import json, sys, pyarrow.parquet as pq\n"
            "rows = [json.loads(t) for t in pq.read_table(sys.argv[1], columns=['tests'])"
            ".column('tests').to_pylist()]\nprint(len(rows))"
        )
        results["baseline_json_loads_all"] = measured([sys.executable, "-c", parse, str(big)])
        out = work / "converted.jsonl"
        convert = [*cli, "dataset", "convert", "--from", "deepcoder", str(big), str(out)]
        results["dataset_convert"] = measured(convert)
        out.unlink()
        grade = [*cli, "grade", "--problems", str(big), "--samples", str(samples)]
        grade += ["-o", str(work / "results.json"), "--workers", str(args.workers), "-q"]
        results["grade"] = measured(grade)
        graded = json.loads((work / "results.json").read_text())
        results["grade_passed"] = sum(row["graded_list"] == [True] for row in graded)
    results["reward_cache"] = reward_cache()
    base = results["baseline_pandas_read_parquet"]["peak_rss_mb"]  # type: ignore[index]
    for name in ("baseline_json_loads_all", "dataset_convert", "grade"):
        entry = results[name]
        print(
            f"{name:28} {entry['seconds']:7.1f} s  peak RSS {entry['peak_rss_mb']:7.0f} MB "  # type: ignore[index]
            f"({entry['peak_rss_mb'] / base:.2f}x pandas.read_parquet's {base:.0f} MB)"  # type: ignore[index]
        )
    print(f"grade: {results['grade_passed']} of {rows} problems passed by the right program")
    cache = results["reward_cache"]
    print(
        f"reward, 8 completions of one row with ~1 MB of tests: {cache['call_seconds']:.3f} s a "  # type: ignore[index]
        f"call, {cache['decodes_in_calls']} decode(s) in 9 calls; decoding it each call would add "  # type: ignore[index]
        f"{1000 * cache['decode_seconds']:.1f} ms"  # type: ignore[index]
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
