"""Filtering problem sets: by measured pass rate, difficulty mix, date, platform, and
deduplication by normalised statement. Every dropped problem gets a reason.

Steps run in this order: platform, date, pass rate, dedup, difficulty mix.

* Pass rate: from a results file of ``mcevaluate grade --output`` (``question_id`` and
  ``graded_list`` per problem). Problems every sample solves (too easy) or none solves (too
  hard, or broken) are dropped; so are problems absent from the results.
* Date: ``--after D`` keeps problems with ``contest_date`` on or after ``D`` (ISO dates are
  compared as text on their first 10 characters); problems without a date are dropped.
* Dedup: statements are normalised by Unicode NFKC, lower-casing, removing HTML tags, and
  collapsing every run of characters that are not letters or digits into one space. Digits
  are kept: "n <= 10" and "n <= 10^5" are different problems. The first problem of each
  normalised statement is kept; problems with an empty statement are never deduplicated.
* Mix: ``{"easy": 0.2, ...}`` target fractions of the kept set; ``count`` problems in all
  (default: the largest set that meets the fractions), sampled per difficulty with ``seed``.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from .entries import Entry, statement

__all__ = ["normalise_statement", "filter_entries", "parse_mix"]

_TAGS = re.compile(r"<[^>]+>")
_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalise_statement(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = _TAGS.sub(" ", text)
    return _NON_WORD.sub(" ", text).strip()


def parse_mix(text: str) -> dict[str, float]:
    """``"easy=0.2,medium=0.5,hard=0.3"`` -> fractions (normalised to sum 1)."""
    mix: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"{part!r}: expected difficulty=fraction")
        try:
            mix[name.strip().lower()] = float(value)
        except ValueError:
            raise ValueError(f"{part!r}: {value!r} is not a number") from None
    total = sum(mix.values())
    if not mix or total <= 0 or any(v < 0 for v in mix.values()):
        raise ValueError("the mix needs non-negative fractions with a positive sum")
    return {k: v / total for k, v in mix.items()}


def pass_rates(results: Sequence[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """``{question_id: (passed, samples)}`` from a grade results list."""
    rates: dict[str, tuple[int, int]] = {}
    for row in results:
        graded = row.get("graded_list") or []
        rates[str(row.get("question_id"))] = (sum(bool(g) for g in graded), len(graded))
    return rates


def filter_entries(
    entries: Sequence[Entry],
    *,
    results: Sequence[dict[str, Any]] | None = None,
    after: str | None = None,
    before: str | None = None,
    platforms: Sequence[str] = (),
    dedup: bool = False,
    mix: dict[str, float] | None = None,
    count: int | None = None,
    seed: int = 0,
) -> tuple[list[Entry], dict[str, str]]:
    """The kept entries (input order) and ``{id: reason}`` for each dropped one."""
    dropped: dict[str, str] = {}
    kept: list[Entry] = []
    wanted = {p.lower() for p in platforms}
    rates = pass_rates(results) if results is not None else None
    seen: dict[str, str] = {}
    for entry in entries:
        if wanted and entry.platform not in wanted:
            dropped[entry.id] = f"platform {entry.platform or '(none)'!r} not selected"
            continue
        if after or before:
            date = entry.date
            if not date:
                dropped[entry.id] = "no contest_date"
                continue
            if after and date < after:
                dropped[entry.id] = f"dated {date}, before {after}"
                continue
            if before and date >= before:
                dropped[entry.id] = f"dated {date}, not before {before}"
                continue
        if rates is not None:
            passed, total = rates.get(entry.id, (0, 0))
            if total == 0:
                dropped[entry.id] = "no graded samples in the results"
                continue
            if passed == total:
                dropped[entry.id] = f"too easy: all {total} samples pass"
                continue
            if passed == 0:
                dropped[entry.id] = f"too hard: none of {total} samples pass"
                continue
        if dedup:
            key = normalise_statement(statement(entry))
            if key:
                if key in seen:
                    dropped[entry.id] = f"duplicate statement of {seen[key]}"
                    continue
                seen[key] = entry.id
        kept.append(entry)
    if mix:
        kept = _apply_mix(kept, mix, count, seed, dropped)
    elif count is not None and count < len(kept):
        chosen = set(random.Random(seed).sample(range(len(kept)), count))
        for index, entry in enumerate(kept):
            if index not in chosen:
                dropped[entry.id] = f"not sampled (count {count}, seed {seed})"
        kept = [e for i, e in enumerate(kept) if i in chosen]
    return kept, dropped


def _apply_mix(
    kept: list[Entry], mix: dict[str, float], count: int | None, seed: int, dropped: dict[str, str]
) -> list[Entry]:
    groups: dict[str, list[int]] = {}
    for index, entry in enumerate(kept):
        groups.setdefault(entry.difficulty, []).append(index)
    if count is None:
        # The largest total the available problems can fill at these fractions.
        count = min(
            (int(len(groups.get(name, [])) / share + 1e-9) for name, share in mix.items() if share),
            default=0,
        )
    rng = random.Random(seed)
    chosen: set[int] = set()
    names = sorted(mix)
    targets = {name: int(mix[name] * count) for name in names}
    # Largest remainders get the leftover problems so the targets add up to count.
    leftover = count - sum(targets.values())
    for name in sorted(names, key=lambda n: (-(mix[n] * count - targets[n]), n))[:leftover]:
        targets[name] += 1
    for name in names:
        pool = groups.get(name, [])
        take = min(targets[name], len(pool))
        chosen.update(rng.sample(pool, take))
    result = []
    for index, entry in enumerate(kept):
        if index in chosen:
            result.append(entry)
        elif entry.difficulty not in mix:
            dropped[entry.id] = f"difficulty {entry.difficulty or '(none)'!r} not in the mix"
        else:
            dropped[entry.id] = f"not sampled for the {entry.difficulty} share of the mix"
    return result
