"""Problem sets as TRL datasets for the evaluator's reward.

The reward is :class:`evaluator.CodeReward` itself (``CodeReward(mode=..., workers=...)``): it
reads the ``problem_json`` column, and its ``last_verdicts`` (one verdict per completion of
the last call) are what the trainer masks on and counts.

Dataset columns (``problems_to_dataset``): ``prompt`` (chat messages), ``question_id`` and
``problem_json`` (the problem in our schema, ``evaluator.formats.problem_to_ours``), from which
the reward rebuilds the problem it grades against.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from evaluator.formats import problem_to_ours
from evaluator.problem import Harness, Problem

SYSTEM_PROMPT = (
    "You are an expert competitive programmer. Solve the problem in Python 3 and give the "
    "complete program in one ```python code block."
)


def prompt_text(record: dict[str, Any], problem: Problem) -> str:
    """The problem statement to show the model, from the raw record."""
    for key in ("question_content", "question", "description", "text"):
        if isinstance(record.get(key), str) and record[key].strip():
            text = record[key]
            break
    else:
        meta = problem.metadata or {}
        text = meta.get("question_content") or meta.get("question") or problem.prompt or problem.id
    starter = (problem.metadata or {}).get("starter_code") or record.get("starter_code") or ""
    if problem.harness is Harness.ASSERTION and problem.prompt:
        return f"Complete this function:\n```python\n{problem.prompt}```"
    if problem.harness is Harness.FUNCTIONAL or starter:
        return f"{text}\n\nUse this starter code:\n```python\n{starter}\n```"
    return f"{text}\n\nRead the input from stdin and write the answer to stdout."


def problems_to_rows(
    problems: Sequence[Problem],
    records: Sequence[dict[str, Any]] | None = None,
    system_prompt: str | None = SYSTEM_PROMPT,
) -> list[dict[str, Any]]:
    rows = []
    for index, problem in enumerate(problems):
        record = records[index] if records is not None else {}
        messages = []
        if system_prompt:
            messages.append({"role": "system", "content": system_prompt})
        messages.append({"role": "user", "content": prompt_text(record, problem)})
        rows.append(
            {
                "prompt": messages,
                "question_id": problem.id,
                "problem_json": json.dumps(problem_to_ours(problem)),
            }
        )
    return rows


def problems_to_dataset(problems, records=None, system_prompt: str | None = SYSTEM_PROMPT):
    from datasets import Dataset

    return Dataset.from_list(problems_to_rows(problems, records, system_prompt))


def load_problem_dataset(path, system_prompt: str | None = SYSTEM_PROMPT, limit: int | None = None):
    """Read any problem file ``evaluator.formats.read_problems`` reads into a TRL dataset."""
    from evaluator.formats import read_problems, read_records

    problems = read_problems(path)
    records = [record for _, record in read_records(path)]
    if limit is not None:
        problems, records = problems[:limit], records[:limit]
    return problems_to_dataset(problems, records, system_prompt)
