"""C++ compile time per program: plain g++, the grader's confined build, and the confined
build with the precompiled ``bits/stdc++.h``, measured in one run.

Programs: the C++ demo solutions and the conformance programs that build
(``tests/cpp/demo_solutions.toml``, ``tests/cpp/cases.toml``), each built once per mode, one
build at a time (so the modes do not compete for the cores), the modes interleaved per
program. ``plain``: ``g++ -std=c++17 -O2 -o solution solution.cpp`` by subprocess, no
limits; ``confined``: :class:`evaluator.languages.builds.Builder` without prepared work (its
wrapper, rlimits, Landlock, network namespace); ``confined+pch``: the same builder once its
precompiled header is built (that build's own time is printed too). Ratios are per program,
in the same run; medians and totals over the programs, by whether the program's first
include is ``<bits/stdc++.h>`` (the only ones the header can speed up).

Usage: ``python benchmarks/cpp_compile.py [--repeat 1] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.languages import get_language  # noqa: E402
from evaluator.languages.builds import Builder  # noqa: E402

CPP = get_language("cpp")
_SLOW = {"compile_bomb", "include_dev_random", "compile_error", "link_error"}


def programs() -> dict[str, str]:
    """Name -> source: every demo solution and conformance program meant to build."""
    found: dict[str, str] = {}
    for name, fields in tomllib.loads((ROOT / "tests/cpp/demo_solutions.toml").read_text()).items():
        if fields["verdict"] != "CE":
            found[f"demo:{name}"] = fields["source"].lstrip("\n")
    for name, fields in tomllib.loads((ROOT / "tests/cpp/cases.toml").read_text()).items():
        if name not in _SLOW:
            found[f"case:{name}"] = fields["source"].lstrip("\n")
    return found


def uses_header(source: str) -> bool:
    first = next((line for line in source.splitlines() if line.startswith("#include")), "")
    return first.replace(" ", "") == "#include<bits/stdc++.h>"


def plain(source: str) -> float:
    with tempfile.TemporaryDirectory() as where:
        Path(where, "solution.cpp").write_text(source)
        start = time.monotonic()
        subprocess.run(
            [CPP.compiler, *CPP.default_flags, "-o", "solution", "solution.cpp"],
            cwd=where,
            check=True,
            capture_output=True,
        )
        return time.monotonic() - start


def confined(builder: Builder, source: str) -> float:
    start = time.monotonic()
    build = builder.submit(CPP, source, CPP.default_flags).result()
    assert build.ok, build.message
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="builds per program and mode")
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()
    sources = programs()
    print(f"{CPP.version()}; {len(sources)} programs, flags {' '.join(CPP.default_flags)}")
    times: dict[str, dict[str, list[float]]] = {name: {} for name in sources}
    with Builder(workers=1, prepare=False) as bare, Builder(workers=1) as with_pch:
        start = time.monotonic()
        extra = with_pch.prepared(CPP, CPP.default_flags)
        pch_seconds = time.monotonic() - start
        assert extra, "the precompiled header did not build"
        print(f"precompiled header built in {pch_seconds:.2f} s (once per grader and flag set)")
        for attempt in range(args.repeat):
            for name, source in sources.items():
                text = source + f"\n// attempt {attempt}\n"  # a new source: never a cache hit
                row = times[name]
                row.setdefault("plain", []).append(plain(text))
                row.setdefault("confined", []).append(confined(bare, text))
                row.setdefault("confined+pch", []).append(confined(with_pch, text))
    medians = {
        name: {mode: statistics.median(values) for mode, values in row.items()}
        for name, row in times.items()
    }
    print(f"\n{'program':44} {'plain':>7} {'confined':>9} {'+pch':>7} {'pch x':>7}")
    for name, row in medians.items():
        ratio = row["confined"] / row["confined+pch"]
        print(
            f"{name:44} {row['plain']:7.3f} {row['confined']:9.3f} {row['confined+pch']:7.3f}"
            f" {ratio:6.2f}x"
        )
    summary = {}
    for label, wanted in (("first include <bits/stdc++.h>", True), ("other includes", False)):
        group = [medians[n] for n, s in sources.items() if uses_header(s) == wanted]
        if not group:
            continue
        row = {mode: [r[mode] for r in group] for mode in ("plain", "confined", "confined+pch")}
        ratios = [r["confined"] / r["confined+pch"] for r in group]
        wrapper = [r["confined"] - r["plain"] for r in group]
        summary[label] = {
            "programs": len(group),
            **{f"median {mode} s": statistics.median(v) for mode, v in row.items()},
            **{f"total {mode} s": sum(v) for mode, v in row.items()},
            "median ratio confined / confined+pch": statistics.median(ratios),
            "median confinement cost s": statistics.median(wrapper),
        }
        print(f"\n{label}: {len(group)} programs")
        for key, value in summary[label].items():
            if key != "programs":
                print(f"  {key:40} {value:8.3f}")
    if args.json:
        payload = {"version": CPP.version(), "pch_seconds": pch_seconds, "summary": summary}
        payload["programs"] = medians
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")


if __name__ == "__main__":
    main()
