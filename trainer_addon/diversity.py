"""Diversity of a group of completions (MicroCoder-GRPO, change 2).

The paper picks the temperature by how output diversity evolves but gives no formula. This
add-on uses, per group of G completions of one prompt (token ids):

* ``distinct_ngram_ratio`` (the logged ``microcoder/diversity``): the number of distinct
  n-grams (n=4 by default) over all completions of the group divided by the total number of
  n-grams in the group. 1.0: no 4-gram is ever repeated, within or across completions; 1/G:
  G identical completions. Completions shorter than n contribute their whole sequence as one
  "gram", so short outputs still count.
* ``pairwise_jaccard_distance`` (logged ``microcoder/diversity_jaccard``): the mean over pairs
  of completions of 1 - |A ∩ B| / |A ∪ B| of their n-gram sets. 0: all identical.

A batch value is the mean over its groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations


def ngrams(ids: Sequence[int], n: int) -> list[tuple[int, ...]]:
    ids = tuple(ids)
    if len(ids) < n:
        return [ids] if ids else []
    return [ids[i : i + n] for i in range(len(ids) - n + 1)]


def distinct_ngram_ratio(group: Sequence[Sequence[int]], n: int = 4) -> float:
    grams = [g for ids in group for g in ngrams(ids, n)]
    if not grams:
        return 0.0
    return len(set(grams)) / len(grams)


def pairwise_jaccard_distance(group: Sequence[Sequence[int]], n: int = 4) -> float:
    sets = [set(ngrams(ids, n)) for ids in group]
    pairs = list(combinations(sets, 2))
    if not pairs:
        return 0.0
    total = 0.0
    for a, b in pairs:
        union = a | b
        total += 0.0 if not union else 1.0 - len(a & b) / len(union)
    return total / len(pairs)


def batch_diversity(
    completion_ids: Sequence[Sequence[int]], group_size: int, n: int = 4
) -> tuple[float, float]:
    """(mean distinct-n ratio, mean pairwise Jaccard distance) over consecutive groups."""
    groups = [completion_ids[i : i + group_size] for i in range(0, len(completion_ids), group_size)]
    groups = [g for g in groups if g]
    if not groups:
        return 0.0, 0.0
    distinct = sum(distinct_ngram_ratio(g, n) for g in groups) / len(groups)
    jaccard = sum(pairwise_jaccard_distance(g, n) for g in groups) / len(groups)
    return distinct, jaccard
