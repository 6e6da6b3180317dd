"""How many problems of real data change rule when their statement is read (issue 53), and why.

Every problem file given (default: the vendored subsets under ``tests/data``, and the data
under ``../shared/data`` when it is there) is read record by record through the format
registry twice: by the source's reader alone (its fixed rule) and as every entry point reads it
(:meth:`~evaluator.formats.registry.Format.problem`: the statement's rule over it). A problem
whose judge changes, or that its statement says needs a checker, is counted under each kind
of phrase that did it (tolerance, letter case, order, many answers). A problem file is any
``.jsonl``, ``.jsonl.gz``, ``.json`` (an array) or ``.parquet`` file whose first record a format recognises; others (samples, results) are skipped.

Usage: ``python benchmarks/statement_rules.py [PATH ...] [--json OUT] [--examples N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.formats.errors import InputError  # noqa: E402
from evaluator.formats.record_files import read_records  # noqa: E402
from evaluator.formats.registry import detect_format, file_fallback_id  # noqa: E402

KINDS = {
    "reals within": "tolerance",
    "in any case": "letter case",
    "any order": "order",
    "a returned list in any order": "order",
    "many answers": "many answers",
}


def kinds_of(reason: str) -> set[str]:
    return {kind for words, kind in KINDS.items() if words in reason}


def problem_files(paths: list[Path]) -> list[Path]:
    found = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p
                for ext in ("jsonl", "jsonl.gz", "json", "parquet")
                for p in path.rglob(f"*.{ext}")
            )
        else:
            found.append(path)
    return found


def measure(path: Path, examples: int) -> dict | None:
    records = read_records(str(path))
    first = next(records, None)
    if first is None:
        return None
    try:
        fmt = detect_format(first[1])
    except InputError:
        return None
    counts: Counter[str] = Counter()
    shown: list[dict] = []
    total = changed = unreadable = 0
    for index, (_, record) in enumerate([first, *records]):
        try:
            alone = fmt.read(record, file_fallback_id(fmt, index))
            read = fmt.problem(record, file_fallback_id(fmt, index))
        except InputError:
            unreadable += 1
            continue
        total += 1
        if read.judge == alone.judge and not read.needs_checker:
            continue
        changed += 1
        counts.update(kinds_of(read.judge_reason))
        if len(shown) < examples:
            shown.append({"id": read.id, "from": alone.judge, "to": read.judge,
                          "reason": read.judge_reason})  # fmt: skip
    return {
        "format": fmt.name,
        "problems": total,
        "unreadable": unreadable,
        "changed": changed,
        "needs_checker": counts["many answers"],
        "by_kind": dict(counts.most_common()),
        "examples": shown,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--examples", type=int, default=2)
    args = parser.parse_args()
    paths = args.paths or [
        ROOT / "tests" / "data",
        *[p for p in [ROOT.parent / "shared" / "data"] if p.exists()],
    ]
    results, totals = {}, Counter()
    for path in problem_files(paths):
        row = measure(path, args.examples)
        if row is None or not row["problems"]:
            continue
        name = str(path.relative_to(path.parents[2]))
        results[name] = row
        totals.update({k: row[k] for k in ("problems", "changed", "needs_checker")})
        totals.update({f"kind: {k}": v for k, v in row["by_kind"].items()})
        print(f"{name:60} {row['format']:18} {row['problems']:6} problems, {row['changed']:4} "
              f"change rule {row['by_kind'] or ''}")  # fmt: skip
    print(f"all: {totals['problems']} problems, {totals['changed']} change rule, "
          f"{totals['needs_checker']} need a checker; "
          f"{ {k[6:]: v for k, v in totals.items() if k.startswith('kind: ')} }")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"files": results, "totals": dict(totals)}, indent=1))


if __name__ == "__main__":
    main()
