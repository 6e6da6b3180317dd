"""verifiers (PrimeIntellect's environment library, what prime-rl trains on): the grader as a
verifiers environment and as a plain verifiers reward function.

Classic API (verifiers up to 0.3.x: ``vf.SingleTurnEnv``, ``vf.Rubric``; 0.3.1 keeps it as
``verifiers.legacy``, aliased at the top level)::

    env = vf.load_environment("evaluator.reward.frameworks.verifiers", dataset="train.parquet")

:func:`load_environment` returns a ``vf.SingleTurnEnv`` whose rubric's one reward is
:func:`code_reward` (weight 1) with one zero-weight metric per verdict (``verdict_AC``,
``verdict_WA``, ...: verifiers logs each rollout's metrics, so their means are the verdict
rates). :func:`code_reward` can also go in any rubric of one's own.

v1 API (``verifiers.v1``, 0.3.1 and 0.4.0, where the classic API is gone): :class:`CodeTaskset`
(its ``CodeTask`` scores with a ``@vf.reward`` over the same grading, and logs the verdict as
metrics), and :func:`task_code_reward`, a reward function to plug into any taskset whose task
data carries ``info``/``answer``
(``rewards.<name>.fn = "evaluator.reward.frameworks.verifiers:task_code_reward"``).
The v1 names are made on first access (they need ``verifiers.v1``; this module does not).

A row's problem: its ``info`` (an object, or its JSON text) is a problem record of any source
the registry reads (TACO's ``input_output``, LiveCodeBench's ``public_test_cases``, ...,
:mod:`evaluator.formats`; what :func:`~evaluator.reward.columns.row_record` takes), else its
``answer`` (JSON text of such a record, or of a list of tests); ``info`` wins when a format
reads it. A row with neither, or whose problem cannot be read, is a dataset's defect:
:class:`~evaluator.reward.ProblemError` naming the field, raised by :func:`load_environment` for
the first such row before anything runs, and by :func:`code_reward` (which verifiers' classic
rubric logs and scores 0.0; the rollout's ``verdict_ERROR`` metric is then 1). With
``MICROCODER_ON_BAD_PROBLEM=skip`` (what verl's and the other adapters read) such a row is kept,
logged, and scores 0.0 with the verdict ERROR instead.

Scores are binary (verifiers' convention for a pass/fail reward): 1.0 when every test passes,
else 0.0; grading stops at the first failing test. The completion is the last assistant
message's content (chat messages as dicts or verifiers' message models, or a string); its code
is its last fenced block (:func:`~evaluator.formats.extract.extract_program`). Grading runs in
the process's shared warm pool (:func:`~evaluator.reward.shared.shared_reward`, closed at
exit); each call awaits its solution without blocking the event loop, so a rubric's
concurrent calls are graded in parallel.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from evaluator.formats.errors import InputError
from evaluator.formats.record_files import read_records
from evaluator.problem import Problem
from evaluator.reward.code_reward import ERROR, VERDICT_NAMES, CodeReward, Submission
from evaluator.reward.columns import ProblemError, row_format, row_record
from evaluator.reward.labels import bad_label_action, strip_special_tokens
from evaluator.reward.shared import shared_reward
from evaluator.runner.answers import completion_text

__all__ = [
    "V1_NAMES",
    "code_reward",
    "completion_answer",
    "environment_rows",
    "load_environment",
    "problem_of_row",
    "task_code_reward",
    "verdict_metrics",
]

_LOG = logging.getLogger("evaluator.reward")

STATE_KEY = "microcoder"
"""Where :func:`code_reward` leaves its verdict and reason in a rollout's ``state``."""

V1_NAMES = ("CodeTaskData", "CodeTask", "CodeTasksetConfig", "CodeTaskset")
"""The v1 classes, made on first access (:func:`__getattr__`)."""


# --- completions ----------------------------------------------------------------------------


def _as_message(item: Any) -> Any:
    """A chat message as a mapping: verifiers' message models (pydantic) dumped, dicts as they
    are; anything else unchanged."""
    if isinstance(item, Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump()
    return item


def completion_answer(completion: Any) -> str | None:
    """The answer text of a verifiers completion: a string, or chat messages (the last
    assistant message's content; content parts' ``text`` joined); None when there is none."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, bytes | bytearray):
        return completion_text([_as_message(item) for item in completion])
    return completion_text(_as_message(completion))


# --- problems -------------------------------------------------------------------------------


def _loaded(value: Any, field: str) -> Any:
    if isinstance(value, bytes | bytearray):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            raise ProblemError(
                f"{field}: not valid JSON ({exc}); expected a problem record of a known "
                "source or a list of tests"
            ) from None
    return value


def _present(value: Any) -> bool:
    return value is not None and value != "" and value != {} and value != []


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _record_of(value: Any, field: str) -> dict[str, Any]:
    value = _loaded(value, field)
    if isinstance(value, list):
        return {"tests": value}
    if isinstance(value, Mapping):
        return row_record(value)
    raise ProblemError(
        f"{field}: expected a problem record (an object) or a list of tests, "
        f"got {type(value).__name__}"
    )


def _decode(reward: CodeReward, record: Mapping[str, Any], field: str) -> Problem:
    found = reward.problems.for_record(record)
    if isinstance(found, ProblemError):
        raise ProblemError(f"{field}: {found}") from None
    return found


def problem_of_row(answer: Any = None, info: Any = None) -> Problem:
    """The problem of a verifiers row, from its ``info`` (a record of any source), else its
    ``answer`` (JSON text of a record or of a list of tests); decoded once per distinct
    problem (the shared reward's cache). Raises :class:`ProblemError` naming the field, and
    naming what it got when neither holds a problem."""
    reward = shared_reward()
    info_record: dict[str, Any] | None = None
    info_error: ProblemError | None = None
    if _present(info):
        try:
            info_record = _record_of(info, "info")
            try:
                row_format(info_record)
            except ProblemError as exc:
                raise ProblemError(f"info: {exc}") from None
        except ProblemError as exc:
            info_record, info_error = None, exc
    if info_record is not None:
        return _decode(reward, info_record, "info")
    if _present(answer):
        try:
            record = _record_of(answer, "answer")
        except ProblemError:
            if info_error is not None:
                raise ProblemError(f"{info_error}; and answer: {_describe(answer)}") from None
            raise
        return _decode(reward, record, "answer")
    if info_error is not None:
        raise info_error
    raise ProblemError(
        "no problem in this row: the code reward reads it from 'info' (a problem record of a "
        "known source) or 'answer' (its JSON text, or a list of tests); got "
        f"info={_describe(info)} and answer={_describe(answer)}"
    )


# --- grading --------------------------------------------------------------------------------

_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
_limits = weakref.WeakKeyDictionary()
_limits_lock = threading.Lock()


def _limit() -> asyncio.Semaphore:
    """At most two solutions per core of one event loop in the pool at once (the others wait
    without holding a thread)."""
    loop = asyncio.get_running_loop()
    with _limits_lock:
        limit = _limits.get(loop)
        if limit is None:
            limit = _limits[loop] = asyncio.Semaphore(2 * max(1, os.cpu_count() or 1))
        return limit


def _score(value: float | None) -> float:
    """The binary score of a graded completion; a problem whose judge broke before any test
    ran (no score) is 0.0 with its ERROR verdict kept, as in the other adapters: a framework
    cannot take a missing reward."""
    return 0.0 if value is None else float(value)


async def grade_row(
    completion: Any, answer: Any = None, info: Any = None, language: str | None = None
) -> tuple[float, str, str]:
    """``(score, verdict, reason)`` of one completion against its row's problem, graded in
    the shared pool without blocking the event loop."""
    text = completion_answer(completion)
    if isinstance(text, str):
        text = strip_special_tokens(text)
    reward = shared_reward()
    async with _limit():

        def prepare() -> Submission:
            try:
                problem: Problem | ProblemError = problem_of_row(answer, info)
            except ProblemError as exc:
                if bad_label_action() == "raise":
                    raise
                problem = exc  # scored 0.0, verdict ERROR, logged once
            return reward.submit([problem], [text], [language], "skip")

        submission = await asyncio.to_thread(prepare)
        details = await submission.details_async()
    verdict, reason = details.verdicts[0], details.reasons[0]
    return _score(details.rewards[0]), verdict, reason


def _language(kwargs: Mapping[str, Any]) -> str | None:
    value = kwargs.get("language")
    return value if isinstance(value, str) and value.strip() else None


def _remember(state: Any, verdict: str, reason: str) -> None:
    if isinstance(state, dict):
        state[STATE_KEY] = {"verdict": verdict, "reason": reason}


async def code_reward(
    completion: Any = None, answer: Any = None, info: Any = None, **kwargs: Any
) -> float:
    """verifiers' reward function (classic rubrics call it with ``prompt``, ``completion``,
    ``answer``, ``state``, ``info``, ``task``, ``parser`` and the row's other columns; only
    ``completion``, ``answer``, ``info``, ``state`` and a ``language`` column are read):
    1.0 when the completion's code passes every test of the row's problem, else 0.0 (the
    problem: :func:`problem_of_row`). Leaves ``{"verdict", "reason"}`` in ``state["microcoder"]``
    (what the ``verdict_*`` metrics read). Raises :class:`ProblemError` naming the field for a
    row whose problem cannot be read, and :class:`TypeError` for a call without a
    completion."""
    state = kwargs.get("state")
    if completion is None:
        got = ", ".join(sorted(k for k in kwargs if kwargs[k] is not None)) or "no keywords"
        raise TypeError(
            "code_reward(completion, answer=None, info=None, **kwargs) needs the completion "
            f"(chat messages or a string); got none, with {got}"
        )
    try:
        score, verdict, reason = await grade_row(completion, answer, info, _language(kwargs))
    except ProblemError as exc:
        _remember(state, ERROR, str(exc))
        raise
    _remember(state, verdict, reason)
    return score


def _verdict_metric(name: str) -> Callable[..., float]:
    def metric(state: Any = None, **kwargs: Any) -> float:
        found = state.get(STATE_KEY) if isinstance(state, Mapping) else None
        return 1.0 if isinstance(found, Mapping) and found.get("verdict") == name else 0.0

    metric.__name__ = metric.__qualname__ = f"verdict_{name}"
    metric.__doc__ = f"1.0 when code_reward's verdict for the rollout was {name}, else 0.0."
    return metric


@functools.cache
def verdict_metrics() -> tuple[Callable[..., float], ...]:
    """One metric function per verdict (``verdict_AC``, ...), each 1.0 for the rollouts
    :func:`code_reward` gave that verdict: add them to a rubric with weight 0."""
    return tuple(_verdict_metric(name) for name in VERDICT_NAMES)


# --- datasets -------------------------------------------------------------------------------


def _rows(dataset: Any) -> Iterable[Mapping[str, Any]]:
    if isinstance(dataset, str | os.PathLike):
        path = Path(dataset)
        try:
            return [record for _, record in read_records(path)]
        except InputError as exc:
            raise ValueError(f"dataset {str(path)!r}: {exc}") from None
    to_list = getattr(dataset, "to_list", None)  # a datasets.Dataset
    if callable(to_list):
        return to_list()
    if isinstance(dataset, Iterable) and not isinstance(dataset, str | bytes | Mapping):
        return dataset
    raise TypeError(
        "dataset: expected a path (.jsonl, .json or .parquet), a datasets.Dataset or a list "
        f"of rows, got {type(dataset).__name__}"
    )


def _json_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _environment_row(row: Mapping[str, Any], index: int, validate: bool) -> dict[str, Any]:
    if not isinstance(row, Mapping):
        raise ProblemError(f"row {index}: expected an object, got {type(row).__name__}")
    out: dict[str, Any] = {}
    prompt = row.get("prompt")
    if _present(row.get("info")) or _present(row.get("answer")):
        info, answer = row.get("info"), row.get("answer")
        if isinstance(prompt, str | list):
            out["prompt"] = prompt
        elif isinstance(row.get("question"), str):
            out["question"] = row["question"]
        record = None
    else:  # a source's own row: its problem goes in info, its statement is the question
        record = row_record(row)
        try:
            fmt = row_format(record)
        except ProblemError as exc:
            raise ProblemError(
                f"row {index}: no 'info' or 'answer' column, and the row itself is {exc}"
            ) from None
        info = {key: record[key] for key in fmt.fields if key in record}
        answer = ""
        if isinstance(prompt, list):  # chat messages (verl rows)
            out["prompt"] = prompt
        else:
            question = row.get("question") if isinstance(row.get("question"), str) else None
            question = question or fmt.statement(record)
            if not question:
                raise ProblemError(
                    f"row {index}: no 'prompt' or 'question', and its {fmt.title} record has "
                    "no statement to ask"
                )
            out["question"] = question
    if "prompt" not in out and "question" not in out:
        raise ProblemError(f"row {index}: no 'prompt' (chat messages) or 'question' column")
    prompt = out.pop("prompt", None) or out.pop("question")
    out.pop("question", None)
    out["prompt"] = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
    if validate:
        try:
            problem_of_row(answer, info)
        except ProblemError as exc:
            if bad_label_action() == "raise":
                raise ProblemError(f"row {index}: {exc}") from None
            _LOG.warning("row %d kept, to score 0.0: %s", index, exc)
    out["info"] = _json_text(info) if _present(info) else "{}"
    out["answer"] = _json_text(answer) if _present(answer) else ""
    if isinstance(row.get("language"), str):
        out["language"] = row["language"]
    return out


def environment_rows(dataset: Any, validate: bool = True) -> list[dict[str, Any]]:
    """A dataset's rows as the environment's: ``prompt`` (chat messages; a ``question`` is
    made the user's message), ``info`` (JSON text), ``answer`` and ``language`` where given. A row with ``info`` or
    ``answer`` keeps them; a row without is a source's own row (TACO's, LiveCodeBench's, a
    verl row, ...), whose problem fields become ``info`` and whose statement the question.
    With ``validate`` (default) every row's problem is decoded now: the first that cannot be
    read raises :class:`ProblemError` naming its row and field."""
    return [_environment_row(row, i, validate) for i, row in enumerate(_rows(dataset))]


def load_environment(
    dataset: Any = None,
    eval_dataset: Any = None,
    *,
    system_prompt: str | None = None,
    validate: bool = True,
    **kwargs: Any,
) -> Any:
    """A classic ``vf.SingleTurnEnv`` over ``dataset`` (and ``eval_dataset``; each a path to a
    ``.jsonl``/``.json``/``.parquet`` file, a ``datasets.Dataset`` or a list of rows, read by
    :func:`environment_rows`) whose rubric scores with :func:`code_reward` (weight 1) and logs
    :func:`verdict_metrics` (weight 0). ``system_prompt`` and the other keywords go to
    ``vf.SingleTurnEnv`` (``parser``, ``sampling_args``, ``max_workers``, ...).
    ``vf.load_environment("evaluator.reward.frameworks.verifiers", dataset=...)`` calls this."""
    import verifiers as vf
    from datasets import Dataset

    if dataset is None and eval_dataset is None:
        raise ValueError(
            "load_environment needs dataset= (or eval_dataset=): a path to a .jsonl, .json or "
            ".parquet file, a datasets.Dataset or a list of rows"
        )
    if "rubric" in kwargs:
        raise TypeError("load_environment makes its own rubric; pass no rubric=")
    built = {
        key: Dataset.from_list(environment_rows(value, validate))
        for key, value in (("dataset", dataset), ("eval_dataset", eval_dataset))
        if value is not None
    }
    metrics = verdict_metrics()
    rubric = vf.Rubric(funcs=[code_reward, *metrics], weights=[1.0] + [0.0] * len(metrics))
    return vf.SingleTurnEnv(**built, system_prompt=system_prompt, rubric=rubric, **kwargs)


# --- verifiers v1 ---------------------------------------------------------------------------


def _task_field(task: Any, name: str) -> Any:
    value = getattr(task, name, None)
    if value is None:
        extra = getattr(task, "model_extra", None) or {}
        value = extra.get(name)
    return value


async def task_code_reward(task: Any, trace: Any) -> float:
    """A verifiers v1 reward function (``async``, called with the task's data and the
    trace): :func:`code_reward`'s score of ``trace.last_reply`` against the ``info`` or
    ``answer`` of the task data. Plug it into a taskset by its config:
    ``rewards.passed.fn = "evaluator.reward.frameworks.verifiers:task_code_reward"``."""
    score, _, _ = await grade_row(
        trace.last_reply, _task_field(task, "answer"), _task_field(task, "info")
    )
    return score


@functools.cache
def _v1() -> dict[str, type]:
    import verifiers.v1 as vf
    from pydantic import Field

    class CodeTaskData(vf.TaskData):
        """A code problem's row: ``info`` (a problem record of any source, or its JSON text)
        and/or ``answer`` (JSON text of a record or a list of tests)."""

        info: dict[str, Any] | str | None = None
        answer: str | None = None
        language: str | None = None

    class CodeTask(vf.Task[CodeTaskData]):
        """Scored by the grader: the ``grade`` metric grades the last reply once (recording
        one ``verdict_<name>`` metric per verdict and the verdict and reason in
        ``trace.info["microcoder"]``); the ``code_reward`` reward is its binary score."""

        @vf.metric
        async def grade(self, trace: vf.Trace) -> dict[str, float]:
            data = self.data
            score, verdict, reason = await grade_row(
                trace.last_reply, data.answer, data.info, data.language
            )
            trace.info[STATE_KEY] = {"verdict": verdict, "reason": reason, "score": score}
            return {f"verdict_{name}": float(name == verdict) for name in VERDICT_NAMES}

        @vf.reward(weight=1.0)
        async def code_reward(self, trace: vf.Trace) -> float:
            found = trace.info.get(STATE_KEY)
            if not isinstance(found, Mapping):
                raise RuntimeError("the grade metric did not run before code_reward")
            return float(found["score"])

        async def validate(self, runtime: Any = None) -> bool:
            """Whether the row's problem can be read (a model-free check of the row)."""
            try:
                await asyncio.to_thread(problem_of_row, self.data.answer, self.data.info)
            except ProblemError as exc:
                _LOG.warning("task %s: %s", self.data.idx, exc)
                return False
            return True

    class CodeTasksetConfig(vf.TasksetConfig):
        dataset: str = Field(
            "", description="A .jsonl, .json or .parquet file of rows (prompt or question; "
            "the problem in info or answer, or a source's own rows)."
        )  # fmt: skip
        validate_rows: bool = Field(
            True, description="Decode every row's problem when the taskset loads (the first "
            "that cannot be read raises, naming its row and field)."
        )  # fmt: skip

    class CodeTaskset(vf.Taskset[CodeTask, CodeTasksetConfig]):
        """The rows of ``config.dataset`` as :class:`CodeTask` s."""

        def load(self) -> list[CodeTask]:
            if not self.config.dataset:
                raise ValueError("CodeTaskset needs its config's dataset (a file of rows)")
            rows = environment_rows(self.config.dataset, self.config.validate_rows)
            return [
                CodeTask(
                    CodeTaskData(
                        idx=i,
                        prompt=row["prompt"],
                        info=row["info"],
                        answer=row["answer"] or None,
                        language=row.get("language"),
                    ),
                    self.config.task,
                )
                for i, row in enumerate(rows)
            ]

    made = {
        "CodeTaskData": CodeTaskData,
        "CodeTask": CodeTask,
        "CodeTasksetConfig": CodeTasksetConfig,
        "CodeTaskset": CodeTaskset,
    }
    for name, cls in made.items():  # picklable by reference: this module's __getattr__ has them
        cls.__module__, cls.__qualname__ = __name__, name
    return made


def __getattr__(name: str) -> Any:
    if name in V1_NAMES:
        return _v1()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
