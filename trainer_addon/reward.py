"""The evaluator as a TRL reward, and problem sets as TRL datasets.

``make_reward()`` returns ``evaluator.CodeReward`` when the evaluator provides it, else
:class:`EvaluatorReward`, a small TRL-signature wrapper around :class:`evaluator.Grader`. Both
expose ``last_verdicts`` (one verdict string per completion of the last call), which the
trainer reads for the truncation mask and the verdict counts.

Dataset columns (``problems_to_dataset``): ``prompt`` (chat messages), ``question_id`` and
``problem_json`` (the problem in our schema, ``evaluator.formats.problem_to_ours``), from which
the reward rebuilds the problem it grades against.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from evaluator.formats import extract_code, problem_from_ours, problem_to_ours, strip_reasoning
from evaluator.problem import Harness, Problem

SYSTEM_PROMPT = (
    "You are an expert competitive programmer. Solve the problem in Python 3 and give the "
    "complete program in one ```python code block."
)


def completion_text(completion: Any) -> str:
    """The text of a TRL completion: a string, or a list of chat messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        return "".join(str(m.get("content") or "") for m in completion if isinstance(m, dict))
    return str(completion)


class EvaluatorReward:
    """Reward = fraction of tests passed (``"fraction"``) or 1.0 for AC else 0.0 (``"binary"``).

    Called by TRL as ``reward(prompts=..., completions=..., problem_json=[...], **kwargs)``.
    The grader (a sandbox pool) is created on first use and closed by :meth:`close`.
    """

    __name__ = "evaluator"

    def __init__(
        self,
        mode: str = "binary",
        workers: int | None = None,
        time_limit: float | None = 2.0,
        memory_limit: int | None = 512,
    ) -> None:
        if mode not in ("binary", "fraction"):
            raise ValueError("mode must be 'binary' or 'fraction'")
        self.mode = mode
        self.workers = workers
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.last_verdicts: list[str] = []
        self._grader = None
        self._problems: dict[str, Problem] = {}
        self._lock = threading.Lock()

    @property
    def grader(self):
        with self._lock:
            if self._grader is None:
                from evaluator import GradeOptions, Grader

                options = {}
                if self.time_limit is not None:
                    options["time_limit"] = self.time_limit
                if self.memory_limit is not None:
                    options["memory_limit"] = self.memory_limit
                self._grader = Grader(GradeOptions(**options), workers=self.workers)
            return self._grader

    def _problem(self, problem_json: str | dict) -> Problem:
        key = problem_json if isinstance(problem_json, str) else json.dumps(problem_json)
        problem = self._problems.get(key)
        if problem is None:
            record = json.loads(problem_json) if isinstance(problem_json, str) else problem_json
            problem = problem_from_ours(record)
            self._problems[key] = problem
        return problem

    def __call__(self, prompts=None, completions=None, problem_json=None, **kwargs) -> list[float]:
        if problem_json is None:
            raise ValueError("the dataset needs a 'problem_json' column (see problems_to_dataset)")
        items: list[tuple[Problem, str | None]] = []
        for completion, pj in zip(completions, problem_json, strict=True):
            text = strip_reasoning(completion_text(completion))
            items.append((self._problem(pj), extract_code(text)))
        to_grade = [(i, p, c) for i, (p, c) in enumerate(items) if c is not None and c.strip()]
        results = self.grader.grade_many([(p, c) for _, p, c in to_grade])
        verdicts = ["NO_CODE"] * len(items)
        rewards = [0.0] * len(items)
        for (i, _, _), result in zip(to_grade, results, strict=True):
            verdicts[i] = str(result.verdict)
            if self.mode == "binary":
                rewards[i] = 1.0 if result.passed else 0.0
            else:
                rewards[i] = float(result.fraction)
        self.last_verdicts = verdicts
        return rewards

    def close(self) -> None:
        with self._lock:
            if self._grader is not None:
                self._grader.close()
                self._grader = None


def make_reward(**kwargs) -> Any:
    """``evaluator.CodeReward`` when the evaluator has it, else :class:`EvaluatorReward`."""
    try:
        from evaluator.reward import CodeReward  # written alongside; optional here
    except ImportError:
        return EvaluatorReward(**kwargs)
    try:
        return CodeReward(**kwargs)
    except TypeError:
        return CodeReward()


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
