"""A run's summary: pass@k overall and by group, verdict counts (``--summary``, the table).

Pure functions of the per-problem result rows (LiveCodeBench ``eval_all`` rows with our
``details``), shared by the grading commands and the HTML report, so that both give the same
numbers for the same run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from evaluator.problem import Verdict

__all__ = [
    "GROUP_NAME_CAP",
    "describe_file",
    "fixed",
    "group_name",
    "grouped",
    "k_warnings",
    "limit_counts",
    "pass_at_k",
    "pass_rates",
    "pct",
    "results_digest",
    "summarize",
]

GROUP_NAME_CAP = 40  # characters of a difficulty or platform name in the summary
_HASH_CHUNK = 1 << 20  # bytes read at a time when hashing a file
_VERDICT_ORDER = [str(v) for v in Verdict]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for ``n`` samples with ``c`` correct: the estimator of Chen et al., 2021
    ("Evaluating Large Language Models Trained on Code").

    With ``n`` samples of which ``c`` are correct, the probability that at least one of ``k``
    samples drawn without replacement is correct is ``1 - C(n-c, k) / C(n, k)``. The binomials
    overflow floats for large ``n``, so this computes the equivalent product
    ``1 - prod_{i=n-c+1}^{n} (1 - k / i)``.

    Raises ``ValueError`` unless ``0 <= c <= n`` and ``1 <= k <= n``: pass@k is not defined
    with fewer than ``k`` samples, and silently falling back to pass@n would report a
    different metric under the requested name.
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"pass_at_k: {name} must be an int, got {value!r}")
    if n < 1:
        raise ValueError(f"pass_at_k: need at least one sample, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"pass_at_k: c={c} correct out of n={n} samples is impossible")
    if not 1 <= k <= n:
        raise ValueError(f"pass_at_k: k={k} must be between 1 and n={n}")
    if n - c < k:
        # Every draw of k samples contains a correct one.
        return 1.0
    failure = 1.0
    for i in range(n - c + 1, n + 1):
        failure *= 1.0 - k / i
    return 1.0 - failure


def describe_file(path: str) -> dict[str, Any]:
    """``{"path", "absolute", "bytes", "sha256"}`` of a file, so that a summary says exactly
    which problems and samples it graded and which results file it was written beside (and a
    report, which results it shows): ``path`` as given (as the command line reads it),
    ``absolute`` where it was; just ``{"path"}`` for what is not a local file (a hub
    address)."""
    if not os.path.isfile(path):
        return {"path": path}
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
    return {
        "path": path,
        "absolute": os.path.abspath(path),
        "bytes": os.path.getsize(path),
        "sha256": digest.hexdigest(),
    }


def group_name(value: Any) -> str:
    """The summary group of a problem's difficulty or platform: its text (at most
    40 characters), ``unknown`` when there is none; any other value (a number, a list from a
    hand-made file) by its text too, so that every value can be a group."""
    if value is None or value == "":
        return "unknown"
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text.strip()[:GROUP_NAME_CAP] or "unknown"


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, rounded half away from zero on its exact binary
    value, as JavaScript's ``toFixed`` rounds (Python's format rounds half to even): the one
    rounding of every number shown, in the terminal, the report and the pages' scripts."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def pct(value: float | None) -> str:
    """A percentage as every table and page shows it: ``43.8%`` (one decimal, :func:`fixed`'s
    rounding of the exact value), ``-`` for none. One format everywhere, so a number reads the
    same in the terminal and the report."""
    return "-" if value is None else f"{fixed(value, 1)}%"


def pass_rates(graded: Sequence[Sequence[bool]], ks: Sequence[int]) -> dict[str, float | None]:
    """``{"pass@k": percent}`` over the problems whose ``graded`` lists (one bool per sample)
    have at least k samples, to 10 decimals: float noise gone (30.0, not 29.999999999999993),
    never rounded at a shown precision (rounded here and again for display, 94.052 would
    read 94.05, then 94.0); None for a k no problem has enough samples for."""
    rates: dict[str, float | None] = {}
    for k in ks:
        usable = [g for g in graded if len(g) >= k]
        rates[f"pass@{k}"] = (
            round(100 * sum(pass_at_k(len(g), sum(g), k) for g in usable) / len(usable), 10)
            if usable
            else None
        )
    return rates


def grouped(rows: Iterable[Any], key: Callable[[Any], str]) -> dict[str, list[Any]]:
    """``rows`` by ``key(row)``, groups in order of first appearance."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return dict(groups)


def _group_rates(rows: list[Mapping[str, Any]], field: str, ks: Sequence[int]) -> dict[str, Any]:
    groups = grouped(rows, lambda row: group_name(row[field]))
    return {
        name: {"problems": len(members), **pass_rates([r["graded_list"] for r in members], ks)}
        for name, members in groups.items()
    }


def limit_counts(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The limits the problems ran with: one ``{"time_limit", "memory_limit", "problems"}``
    per distinct pair, most problems first (rows without limits are left out)."""
    pairs = Counter(
        (row["time_limit"], row["memory_limit"])
        for row in rows
        if row.get("time_limit") is not None and row.get("memory_limit") is not None
    )
    return [
        {"time_limit": time, "memory_limit": memory, "problems": count}
        for (time, memory), count in sorted(pairs.items(), key=lambda item: (-item[1], item[0]))
    ]


def k_warnings(sizes: Sequence[int], ks: Sequence[int]) -> list[str]:
    """One line per k that the samples cannot fully serve: none of the problems (whose sample
    counts are ``sizes``) has k samples (pass@k is not computed), or some have fewer (they
    are left out of its mean)."""
    lines = []
    most = max(sizes, default=0)
    for k in ks:
        short = sum(size < k for size in sizes)
        if not short:
            continue
        if short == len(sizes):
            lines.append(
                f"--k {k}: no problem has {k} samples (the most is {most}): pass@{k} is not "
                "computed"
            )
        else:
            lines.append(
                f"--k {k}: {short} of {len(sizes)} problems have fewer than {k} samples and "
                f"are left out of pass@{k}"
            )
    return lines


def summarize(rows: list[Mapping[str, Any]], ks: Sequence[int]) -> dict[str, Any]:
    """The summary of per-problem result rows: problem and sample counts, pass@k overall, by
    difficulty and by platform, the verdict counts (in :class:`Verdict` order, zeros left
    out) and, when the rows carry them, the limits the problems ran with."""
    verdicts = Counter(str(d["verdict"]) for row in rows for d in row["details"])
    summary = {
        "problems": len(rows),
        "samples": sum(len(row["details"]) for row in rows),
        **pass_rates([row["graded_list"] for row in rows], ks),
        "by_difficulty": _group_rates(rows, "difficulty", ks),
        "by_platform": _group_rates(rows, "platform", ks),
        "verdicts": {v: verdicts[v] for v in _VERDICT_ORDER if verdicts[v]},
    }
    summary["results_digest"] = results_digest(
        (row["question_id"], row["graded_list"]) for row in rows
    )
    limits = limit_counts(rows)
    if limits:
        summary["limits"] = limits
    return summary


def results_digest(problems: Iterable[tuple[str, Sequence[bool]]]) -> str:
    """A digest of which problems a run graded and how many of each one's samples passed:
    what a summary says of the results it describes, so that a report refuses the summary of
    another run on the same problems (same counts, another model). Order-free (problems
    sorted by id, samples counted), so a results file rewritten in another order still
    matches."""
    entries = sorted((str(pid), len(flags), sum(1 for f in flags if f)) for pid, flags in problems)
    data = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(data.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
