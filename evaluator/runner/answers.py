"""From an answer to a program: the one rule every entry point (a grading run's planning,
:class:`~evaluator.reward.CodeReward`, the service's endpoints, the RL frameworks' adapters)
calls to turn what a model answered into the code that runs and its language.

An answer is a completion text, a chat message or a list of them (:func:`completion_text`),
whose last fenced block after ``<think>`` sections is the code
(:func:`~evaluator.formats.extract.extract_program`), or, for samples that hold code, the code
itself with its ``language`` stated beside it (``extract=False``). Its language is the first
language stated (a sample's or a row's ``language`` field, :func:`stated_language`; a run's
``--language``; the problem's own, :func:`problem_language`), else its fence's tag
(```` ```cpp ````), else Python (:func:`~evaluator.languages.program_language`); a stated
language not graded here resolves to no language, and the caller says so
(:func:`unsupported_message`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from evaluator.formats.extract import extract_program
from evaluator.languages import Language, languages, program_language
from evaluator.problem import Problem

__all__ = [
    "AnswerProgram",
    "completion_text",
    "problem_language",
    "resolve_program",
    "stated_language",
    "unsupported_message",
]


@dataclass(frozen=True, slots=True)
class AnswerProgram:
    """What runs for one answer. ``code``: None when the answer holds none; ``language``: the
    :class:`~evaluator.languages.Language` it is graded as, None when the ``stated`` one is
    not graded here; ``stated``: the language stated for it (None: none was); ``fence``: its
    code fence's tag."""

    code: str | None
    language: Language | None
    stated: str | Language | None = None
    fence: str | None = None


def resolve_program(
    answer: Any, *stated: str | Language | None, extract: bool = True
) -> AnswerProgram:
    """The program of ``answer`` (see the module docstring). ``stated``: the languages stated
    for it, in the order they win (the first one given, not None or empty, is taken);
    ``extract``: whether ``answer`` is a model's answer to extract the code from (True) or
    the code itself (False)."""
    text = completion_text(answer)
    if text is None:
        code, fence = None, None
    else:
        code, fence = extract_program(text) if extract else (text, None)
    chosen = next((language for language in stated if language), None)
    try:
        language: Language | None = program_language(chosen, fence)
    except ValueError:  # a stated language not graded here
        language = None
    return AnswerProgram(code, language, chosen, fence)


def completion_text(completion: Any) -> str | None:
    """The answer text of a completion: a string, or chat messages (the last assistant
    message's content; content parts' ``text`` joined). None when there is none."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content_text(completion.get("content"))
    if isinstance(completion, Sequence):
        messages = [m for m in completion if isinstance(m, Mapping)]
        for message in reversed(messages):
            if message.get("role", "assistant") == "assistant":
                return _content_text(message.get("content"))
        return None
    return None


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def stated_language(row: Any, extra_info: Any = None) -> str | None:
    """The language a dataset row (a verl ground truth, a framework's label: JSON text or the
    decoded value) says its solution is in: ``extra_info["language"]``, else the row's
    ``"language"`` field; None when neither says."""
    if isinstance(extra_info, Mapping) and isinstance(extra_info.get("language"), str):
        return extra_info["language"]
    if isinstance(row, str):
        if '"language"' not in row:  # most rows: no decoding here
            return None
        try:
            row = orjson.loads(row)
        except orjson.JSONDecodeError:
            return None
    if isinstance(row, Mapping) and isinstance(row.get("language"), str):
        return row["language"]
    return None


def problem_language(problem: Problem) -> str | None:
    """The language a problem's solutions must be in, when its source says
    (``metadata["language"]``, PrimeIntellect's): a stated language of a sample wins."""
    value = problem.metadata.get("language")
    return value if isinstance(value, str) and value.strip() else None


def unsupported_message(language: str) -> str:
    """Why a program in ``language`` is not run: the language, and those graded here."""
    return f"{language} programs are not graded here (graded: {', '.join(languages())})"
