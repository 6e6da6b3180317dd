"""``mcevaluate generate``: samples for a problem set from a local model.

Prompts follow LiveCodeBench's code-generation style: a system message saying the model is an
expert Python programmer, then the problem statement and a format section: stdin problems are
asked to read the input from stdin and write the answer to stdout inside a fenced ``python``
block; call-based problems get their starter code to complete. The model answers with
vLLM when it is installed (and a GPU is present), else with transformers ``generate``.

The output is LiveCodeBench's samples format, one record per problem::

    {"question_id": ..., "output_list": [raw answers], "code_list": [extracted code or ""]}

so ``mcevaluate grade --samples`` reads it directly.

torch, transformers and vLLM are imported only inside the generation functions: importing
this module (or :mod:`evaluator.cli`) stays light.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.formats import extract_code, read_records
from evaluator.problem import Harness, Problem

__all__ = [
    "SYSTEM_MESSAGE",
    "GenerationConfig",
    "ModelNotFound",
    "build_messages",
    "problem_statements",
    "render_prompt",
    "generate_samples",
    "sample_records",
    "resolve_model",
]

SYSTEM_MESSAGE = (
    "You are an expert Python programmer. You will be given a question (a problem "
    "specification) and will write a correct Python program that meets the specification "
    "and passes all tests."
)

_STDIN_FORMAT = (
    "### Format: Read the inputs from stdin, solve the problem and write the answer to "
    "stdout (do not test directly on the sample inputs). Enclose your code within delimiters "
    "as follows, so that when the Python program runs it reads the inputs, runs the "
    "algorithm and writes the output to STDOUT.\n```python\n# YOUR CODE HERE\n```"
)
_STARTER_FORMAT = (
    "### Format: You will use the following starter code to write the solution to the "
    "problem. Complete it and enclose your code within delimiters.\n```python\n{code}\n```"
)
_FUNCTION_FORMAT = (
    "### Format: Write a class `Solution` with a method `{name}` that solves the problem "
    "and enclose your code within delimiters.\n```python\n# YOUR CODE HERE\n```"
)
_ASSERTION_FORMAT = (
    "### Format: Complete the following Python code and enclose the whole program within "
    "delimiters.\n```python\n{code}\n```"
)
_ANSWER = "### Answer: (use the provided format with backticks)"


class ModelNotFound(Exception):
    """The model path (directory or GGUF file) does not exist."""


@dataclass(slots=True)
class GenerationConfig:
    n: int = 1
    temperature: float = 0.2
    top_p: float = 0.95
    max_tokens: int = 2048
    seed: int = 0
    batch_size: int = 8


# --- prompts -----------------------------------------------------------------------------------


def problem_statements(path: str | Path) -> dict[str, str]:
    """The statement of each problem in a problems file, by id.

    :class:`Problem` keeps what grading needs; the statement lives in the raw record:
    LiveCodeBench's ``question_content``, ours ``metadata.question_content`` (or
    ``metadata.question``/``statement``), HumanEval's ``prompt``.
    """
    statements: dict[str, str] = {}
    for _, record in read_records(path):
        pid = record.get("question_id") or record.get("task_id") or record.get("id")
        if pid is None:
            continue
        meta = record.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        for text in (
            record.get("question_content"),
            meta.get("question_content"),
            meta.get("question"),
            meta.get("statement"),
            record.get("statement"),
        ):
            if isinstance(text, str) and text.strip():
                statements[str(pid)] = text
                break
    return statements


def build_messages(problem: Problem, statement: str = "") -> list[dict[str, str]]:
    """The chat messages (system, user) of LiveCodeBench's prompt style for ``problem``."""
    parts: list[str] = []
    if problem.harness is Harness.ASSERTION:
        if statement and statement.strip() != problem.prompt.strip():
            parts.append(f"### Question:\n{statement.strip()}")
        parts.append(_ASSERTION_FORMAT.format(code=problem.prompt.rstrip()))
    else:
        parts.append(f"### Question:\n{statement.strip()}")
        starter = str(problem.metadata.get("starter_code") or "").rstrip()
        if starter:
            parts.append(_STARTER_FORMAT.format(code=starter))
        elif problem.harness is Harness.FUNCTIONAL and problem.func_name:
            parts.append(_FUNCTION_FORMAT.format(name=problem.func_name))
        else:
            parts.append(_STDIN_FORMAT)
    parts.append(_ANSWER)
    return [
        {"role": "system", "content": SYSTEM_MESSAGE},
        {"role": "user", "content": "\n\n".join(parts) + "\n\n"},
    ]


def render_prompt(tokenizer: Any, messages: list[dict[str, str]], chat: bool | None) -> str:
    """The text given to the model: the tokenizer's chat template (when it has one and
    ``chat`` is not False), else the messages joined as plain text."""
    if chat is None:
        chat = bool(getattr(tokenizer, "chat_template", None))
    if chat:
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "\n\n".join(m["content"].strip() for m in messages) + "\n\n"


# --- models --------------------------------------------------------------------------------------


def resolve_model(model: str, gguf_file: str | None = None) -> tuple[Path, str | None]:
    """``(directory, gguf file name or None)`` for ``--model``/``--gguf-file``.

    ``model`` is a model directory (with ``gguf_file`` naming a GGUF file in it, or not) or a
    ``.gguf`` file. Raises :class:`ModelNotFound` naming the missing path.
    """
    path = Path(model).expanduser()
    if path.suffix == ".gguf" and gguf_file is None:
        if not path.is_file():
            raise ModelNotFound(f"model not found: no GGUF file at {path}")
        return path.parent, path.name
    if not path.is_dir():
        raise ModelNotFound(f"model not found: no model directory at {path}")
    if gguf_file is not None and not (path / gguf_file).is_file():
        raise ModelNotFound(f"model not found: no GGUF file {gguf_file!r} in {path}")
    return path, gguf_file


def choose_engine(engine: str) -> str:
    """``vllm`` or ``transformers``; ``auto`` picks vLLM when it is installed and a GPU is."""
    if engine != "auto":
        return engine
    if importlib.util.find_spec("vllm") is None:
        return "transformers"
    import torch

    return "vllm" if torch.cuda.is_available() else "transformers"


def load_tokenizer(directory: Path, gguf_file: str | None) -> Any:
    from transformers import AutoTokenizer

    kwargs = {"gguf_file": gguf_file} if gguf_file else {}
    tokenizer = AutoTokenizer.from_pretrained(str(directory), **kwargs)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


# --- generation ----------------------------------------------------------------------------------

Progress = Callable[[int], None]


def generate_samples(
    problems: Sequence[Problem],
    statements: dict[str, str],
    *,
    model: str,
    gguf_file: str | None = None,
    config: GenerationConfig,
    engine: str = "auto",
    chat: bool | None = None,
    progress: Progress | None = None,
    quiet: bool = False,
) -> list[list[str]]:
    """``config.n`` raw answers per problem, in problem order.

    ``progress`` is called with the number of answers finished since its last call;
    ``quiet`` also hides transformers' own progress bars (loading weights).
    """
    if quiet:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    directory, gguf = resolve_model(model, gguf_file)
    tokenizer = load_tokenizer(directory, gguf)
    prompts = [
        render_prompt(tokenizer, build_messages(p, statements.get(p.id, "")), chat)
        for p in problems
    ]
    engine = choose_engine(engine)
    if engine == "vllm":
        return _generate_vllm(directory, gguf, tokenizer, prompts, config, progress)
    return _generate_transformers(directory, gguf, tokenizer, prompts, config, progress)


def _generate_vllm(
    directory: Path,
    gguf: str | None,
    tokenizer: Any,
    prompts: list[str],
    config: GenerationConfig,
    progress: Progress | None,
) -> list[list[str]]:  # pragma: no cover - needs vLLM and a GPU
    from vllm import LLM, SamplingParams

    model = str(directory / gguf) if gguf else str(directory)
    llm = LLM(model=model, tokenizer=str(directory), seed=config.seed)
    params = SamplingParams(
        n=config.n,
        temperature=config.temperature,
        top_p=config.top_p if config.temperature > 0 else 1.0,
        max_tokens=config.max_tokens,
        seed=config.seed,
    )
    answers: list[list[str]] = []
    for start in range(0, len(prompts), max(1, config.batch_size)):
        chunk = prompts[start : start + config.batch_size]
        for result in llm.generate(chunk, params, use_tqdm=False):
            answers.append([o.text for o in result.outputs])
        if progress is not None:
            progress(len(chunk) * config.n)
    return answers


def _generate_transformers(
    directory: Path,
    gguf: str | None,
    tokenizer: Any,
    prompts: list[str],
    config: GenerationConfig,
    progress: Progress | None,
) -> list[list[str]]:
    import torch
    from transformers import AutoModelForCausalLM

    device = "cuda" if torch.cuda.is_available() else "cpu"
    kwargs: dict[str, Any] = {"dtype": torch.bfloat16 if device == "cuda" else torch.float32}
    if gguf:
        kwargs["gguf_file"] = gguf
    lm = AutoModelForCausalLM.from_pretrained(str(directory), **kwargs).to(device)
    lm.eval()
    tokenizer.padding_side = "left"  # decoder-only: new tokens follow the prompt directly
    sampling = config.temperature > 0
    options: dict[str, Any] = {
        "max_new_tokens": config.max_tokens,
        "do_sample": sampling,
        "pad_token_id": tokenizer.pad_token_id,
    }
    if sampling:
        options.update(temperature=config.temperature, top_p=config.top_p, top_k=0)
    else:
        options.update(temperature=None, top_p=None, top_k=None)
    torch.manual_seed(config.seed)
    if device == "cuda":
        torch.cuda.manual_seed_all(config.seed)

    # every (problem, sample) pair once, batched; greedy decoding needs only one per problem
    runs = 1 if not sampling else config.n
    jobs = [(i, prompt) for i, prompt in enumerate(prompts) for _ in range(runs)]
    answers: list[list[str]] = [[] for _ in prompts]
    batch = max(1, config.batch_size)
    with torch.inference_mode():
        for start in range(0, len(jobs), batch):
            chunk = jobs[start : start + batch]
            encoded = tokenizer(
                [p for _, p in chunk], return_tensors="pt", padding=True, add_special_tokens=False
            ).to(device)
            output = lm.generate(**encoded, **options)
            new = output[:, encoded["input_ids"].shape[1] :]
            texts = tokenizer.batch_decode(new, skip_special_tokens=True)
            for (index, _), text in zip(chunk, texts, strict=True):
                answers[index].extend([text] * (config.n if not sampling else 1))
            if progress is not None:
                progress(len(chunk) * (config.n if not sampling else 1))
    return answers


def sample_records(problems: Sequence[Problem], answers: list[list[str]]) -> list[dict[str, Any]]:
    """LiveCodeBench samples: raw ``output_list`` and extracted ``code_list`` per problem."""
    return [
        {
            "question_id": problem.id,
            "output_list": list(texts),
            "code_list": [extract_code(t) or "" for t in texts],
        }
        for problem, texts in zip(problems, answers, strict=True)
    ]
