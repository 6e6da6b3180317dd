"""A framework's label as a problem, and a response's text as the model wrote it: what the
adapters of the frameworks that pass one label per response share (OpenRLHF's ``labels``,
slime's ``sample.label``; :mod:`evaluator.reward.frameworks.openrlhf`, :mod:`evaluator.reward.frameworks.slime`,
and their endpoints on ``mcevaluate serve``).

A label is a dataset row of any source the format registry reads (docs/datasets.md), as JSON
text (a dataset column of text) or as the decoded object, or a bare list of tests
(DeepCoder's): the very record a problems file holds, read by the same reader. A label that
cannot be read is a dataset's defect, never the model's mistake: :class:`ProblemError` naming
the label's field, before anything runs; with ``$MICROCODER_ON_BAD_PROBLEM=skip`` (the
variable verl's functions read) it scores 0.0 instead, with one logged warning per distinct
label and its ``ERROR`` verdict counted.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from evaluator.problem import Problem
from evaluator.reward.code_reward import VERDICT_NAMES, CodeReward, RewardDetails, Submission
from evaluator.reward.columns import (
    ON_BAD_PROBLEM_ENV,
    ProblemError,
    fingerprint,
    problem_of_record,
    row_record,
)
from evaluator.runner.answers import stated_language

__all__ = [
    "LabelError",
    "bad_label_action",
    "grade_labelled",
    "grade_labelled_async",
    "label_problem",
    "label_record",
    "problem_from_label",
    "strip_special_tokens",
    "verdict_shares",
]


# --- labels -------------------------------------------------------------------------------------


def label_record(label: Any, field: str = "label") -> dict[str, Any]:
    """The problem record a label holds: a JSON object (text or decoded) is a dataset row as
    it ships (:func:`~evaluator.reward.columns.row_record`: null fields dropped, a
    ``problem_json`` field standing for the row); a JSON list is a list of tests
    (``{"tests": [...]}``). :class:`ProblemError` naming ``field`` otherwise."""
    value = label
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode("utf-8", "replace")
    if value is None:
        raise ProblemError(
            f"{field}: missing (no label: the framework's label column must hold each "
            "problem's dataset row)"
        )
    if isinstance(value, str):
        if not value.strip():
            raise ProblemError(f"{field}: empty (expected a dataset row as JSON text)")
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            raise ProblemError(
                f"{field}: not valid JSON ({exc}); expected a dataset row of a known source "
                "(`mcevaluate formats`) as JSON text or an object"
            ) from None
    if isinstance(value, list):
        return {"tests": value}
    if isinstance(value, Mapping):
        try:
            return row_record(value)
        except ProblemError as exc:
            raise ProblemError(f"{field}: {exc}") from None
    raise ProblemError(
        f"{field}: expected a dataset row (a JSON object) or a list of tests, "
        f"got {type(value).__name__}"
    )


def problem_from_label(label: Any, field: str = "label") -> Problem:
    """The :class:`Problem` of a label (:func:`label_record`), read by the format registry as
    the same record in a file is read; :class:`ProblemError` naming ``field`` when it cannot
    be read or has no tests."""
    record = label_record(label, field)
    try:
        return problem_of_record(record)
    except ProblemError as exc:
        raise ProblemError(f"{field}: {exc}") from None


class _Unreadable(ProblemError):
    """A label's error without its field (cached once per distinct label; the field is the
    caller's)."""


def label_problem(reward: CodeReward, label: Any) -> Problem | ProblemError:
    """A label's problem from ``reward``'s cache of decoded problems (each distinct label
    decoded once), or the :class:`ProblemError` saying why it cannot be read (its text
    starts with ``label:``; :func:`grade_labelled` names the caller's field instead)."""

    def decode() -> Problem:
        try:
            return problem_from_label(label, "label")
        except ProblemError as exc:
            raise _Unreadable(str(exc).removeprefix("label: ")) from None

    return reward.problems.get(("framework label", fingerprint(label)), decode)


def bad_label_action() -> str:
    """What a label that cannot be read does: ``raise`` (default) or ``skip``
    (``$MICROCODER_ON_BAD_PROBLEM``)."""
    value = os.environ.get(ON_BAD_PROBLEM_ENV, "").strip() or "raise"
    if value not in ("raise", "skip"):
        raise ValueError(f"${ON_BAD_PROBLEM_ENV} must be 'raise' or 'skip', not {value!r}")
    return value


# --- responses ----------------------------------------------------------------------------------

# Special tokens a decode that keeps them leaves at the end of a response (end of turn, end of
# text, padding): ChatML's and Llama 3's <|...|>, DeepSeek's <｜...｜>, SentencePiece's </s>,
# Gemma's <eos>/<end_of_turn>. They never end a program, and one glued to a closing fence
# ("```<|im_end|>") would make it an opening one.
_SPECIAL_AT_END = re.compile(
    r"(?:<\|[^|<>\s]{1,48}\|>|<｜[^｜<>\n]{1,48}｜>|</s>|<eos>|<pad>|<end_of_turn>)\Z"
)


def strip_special_tokens(text: str) -> str:
    """``text`` without the special tokens (and whitespace) at its end."""
    while True:
        text = text.rstrip()
        tail = text[-64:]
        found = _SPECIAL_AT_END.search(tail)
        if found is None:
            return text
        text = text[: len(text) - (len(tail) - found.start())]


# --- grading ------------------------------------------------------------------------------------


def verdict_shares(verdicts: Sequence[str]) -> dict[str, float]:
    """``verdict_<NAME>``: the share of ``verdicts`` that are NAME, for every verdict a reward
    reports (each key always present, so that per-sample logs line up)."""
    total = max(1, len(verdicts))
    return {f"verdict_{name}": sum(v == name for v in verdicts) / total for name in VERDICT_NAMES}


class LabelError(ProblemError):
    """A label that cannot be read: ``field`` (what the framework calls it, ``labels[0]``,
    ``sample.label``) and ``reason``; its text names both and what to do."""

    def __init__(self, field: str, reason: str) -> None:
        self.field, self.reason = field, reason
        super().__init__(
            f"{field}: {reason} (a dataset's defect, not the model's: fix the row, or set "
            f"{ON_BAD_PROBLEM_ENV}=skip to score such rows 0.0)"
        )


def _prepare(
    reward: CodeReward,
    responses: Sequence[str],
    labels: Sequence[Any],
    fields: Sequence[str],
    check: Callable[[Problem, str], None] | None,
) -> Submission:
    """Each label's problem (decoded once per distinct label), checked, and the responses
    handed to ``reward``'s pool; :class:`LabelError` for the first label that cannot be read
    unless :func:`bad_label_action` says ``skip``."""
    action = bad_label_action()
    problems: list[Problem | ProblemError] = []
    for label, field in zip(labels, fields, strict=True):
        problem = label_problem(reward, label)
        if isinstance(problem, ProblemError):
            if action == "raise":
                raise LabelError(field, str(problem))
            problem = ProblemError(f"{field}: {problem}")
        elif check is not None:
            check(problem, field)
        problems.append(problem)
    languages = [stated_language(label) for label in labels]
    texts = [strip_special_tokens(r) if isinstance(r, str) else r for r in responses]
    return reward.submit(problems, texts, languages, action)


def _scores(details: RewardDetails) -> RewardDetails:
    # None (a label skipped as unreadable, a problem whose judge broke before any test ran):
    # 0.0, its ERROR verdict kept; a framework crashes on a missing reward.
    details.rewards = [0.0 if value is None else float(value) for value in details.rewards]
    return details


def grade_labelled(
    reward: CodeReward,
    responses: Sequence[str],
    labels: Sequence[Any],
    fields: Sequence[str],
    check: Callable[[Problem, str], None] | None = None,
) -> RewardDetails:
    """Grade each response against its label's problem in ``reward``'s pool (blocking):
    binary rewards (``reward``'s mode), verdicts and reasons, in order. ``fields``: what each
    label is called in errors (``labels[3]``, ``sample.label``); ``check(problem, field)`` may
    refuse a problem by raising. A label that cannot be read raises :class:`LabelError` naming
    its field before anything runs (unless :func:`bad_label_action` is ``skip``)."""
    return _scores(_prepare(reward, responses, labels, fields, check).details())


async def grade_labelled_async(
    reward: CodeReward,
    responses: Sequence[str],
    labels: Sequence[Any],
    fields: Sequence[str],
    check: Callable[[Problem, str], None] | None = None,
) -> RewardDetails:
    """:func:`grade_labelled` without blocking the event loop: decoding in a worker thread,
    programs in the pool, the loop only awaits their futures."""
    submission = await asyncio.to_thread(_prepare, reward, responses, labels, fields, check)
    return _scores(await submission.details_async())
