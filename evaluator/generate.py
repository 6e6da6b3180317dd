"""``mcevaluate generate``: samples for a problem set from a local model.

Prompts follow LiveCodeBench's code-generation style: a system message saying the model is an
expert Python programmer, then the problem statement and a format section: stdin problems are
asked to read the input from stdin and write the answer to stdout inside a fenced ``python``
block; call-based problems get their starter code to complete. The model answers with
vLLM when it is installed (and a GPU is present), else with transformers ``generate``.

The output is LiveCodeBench's samples format, one record per problem::

    {"question_id": ..., "output_list": [raw answers], "code_list": [extracted code or ""]}

so ``mcevaluate grade --samples`` reads it directly.

The transformers path is :func:`sample_completions`, a batched sampler that draws as TRL's
GRPOTrainer does (left-padded batches of each prompt repeated ``n`` times in a row, its
``GenerationConfig`` fields, every declared EOS a stop): the training add-on's held-out
evaluation and temperature sweep sample with it too.

torch, transformers and vLLM are imported only inside the generation functions: importing
this module (or :mod:`evaluator.cli`) stays light.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.formats import extract_code, read_records
from evaluator.problem import Harness, Problem

__all__ = [
    "SYSTEM_MESSAGE",
    "GenerationConfig",
    "ModelNotFound",
    "Progress",
    "Sampling",
    "bf16_inference",
    "build_messages",
    "decode_completions",
    "generate_samples",
    "generation_config",
    "problem_statements",
    "render_prompt",
    "resolve_model",
    "sample_completions",
    "sample_records",
    "stop_token_ids",
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
    """``mcevaluate generate``'s options: ``n`` answers per problem, ``batch_size`` sequences
    per call (see :class:`Sampling` for what one transformers call samples with)."""

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


DEFAULT_ENGINE = "auto"  # vLLM when installed and a GPU is present, else transformers


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


def load_model(directory: Path, gguf_file: str | None) -> Any:
    """The causal LM, on the GPU in bf16 when there is one, else on the CPU in fp32."""
    import torch
    from transformers import AutoModelForCausalLM

    device = "cuda" if torch.cuda.is_available() else "cpu"
    kwargs: dict[str, Any] = {"dtype": torch.bfloat16 if device == "cuda" else torch.float32}
    if gguf_file:
        kwargs["gguf_file"] = gguf_file
    return AutoModelForCausalLM.from_pretrained(str(directory), **kwargs).to(device)


# --- sampling -----------------------------------------------------------------------------------

Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Sampling:
    """How transformers ``generate`` samples: temperature 0 is greedy decoding.

    The defaults sample the model's own distribution at ``temperature``: no nucleus or top-k
    cut, no min-p, no repetition penalty (TRL's ``GRPOConfig`` defaults as well).
    ``generation_kwargs``: more ``GenerationConfig`` fields, over the others (as TRL's).
    """

    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    min_p: float | None = None
    repetition_penalty: float = 1.0
    cache_implementation: str | None = None
    generation_kwargs: Mapping[str, Any] | None = None

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


def stop_token_ids(model: Any, tokenizer: Any) -> list[int]:
    """Every id that ends a completion: the tokenizer's EOS, then each EOS the model's
    generation config declares (an end-of-turn token), as TRL's GRPOTrainer stops."""
    declared = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    declared = [] if declared is None else [declared] if isinstance(declared, int) else declared
    eos = tokenizer.eos_token_id
    return list(declared) if eos in declared else [eos, *declared]


def generation_config(sampling: Sampling, tokenizer: Any, stop_ids: Sequence[int]) -> Any:
    """The ``GenerationConfig`` of ``sampling``, built as TRL's GRPOTrainer builds its own (the
    same fields, then ``generation_kwargs``): a sample drawn here is drawn as training draws
    one. Passed whole to ``generate``, as TRL passes it, so the model's own generation config
    fills the same unset fields (min-p, the cache) for both."""
    from transformers import GenerationConfig as HFGenerationConfig

    settings: dict[str, Any] = {
        "max_new_tokens": sampling.max_new_tokens,
        "do_sample": not sampling.greedy,
        "pad_token_id": tokenizer.pad_token_id,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": list(stop_ids),
        "repetition_penalty": sampling.repetition_penalty,
        "cache_implementation": sampling.cache_implementation,
    }
    if not sampling.greedy:  # the sampling flags would only draw warnings from greedy decoding
        settings.update(
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            top_k=sampling.top_k,
            min_p=sampling.min_p,
        )
    settings.update(sampling.generation_kwargs or {})
    return HFGenerationConfig(**settings, disable_compile=True)


def sample_completions(
    model: Any,
    tokenizer: Any,
    prompt_ids: Sequence[Sequence[int]],
    n: int,
    sampling: Sampling,
    *,
    batch_size: int | None = None,
    seed: int = 0,
    bf16: bool = False,
    progress: Progress | None = None,
) -> list[list[list[int]]]:
    """``n`` completions of each prompt (token ids), in prompt order, each cut after its first
    stop token (kept, as in TRL's completion ids; a completion without one is truncated).

    The jobs are the prompts, each repeated ``n`` times in a row (TRL's generation batch),
    left-padded into ``generate`` calls of ``batch_size`` sequences (all in one when None),
    after ``torch.manual_seed(seed)``; ``bf16``: in :func:`bf16_inference` (the trainer's mixed
    precision). ``progress`` is called with each call's sequence count.
    """
    import torch

    stop_ids = stop_token_ids(model, tokenizer)
    config = generation_config(sampling, tokenizer, stop_ids)
    jobs = [index for index in range(len(prompt_ids)) for _ in range(n)]
    step = max(1, batch_size or len(jobs))
    groups: list[list[list[int]]] = [[] for _ in prompt_ids]
    model.eval()  # inference: no dropout
    torch.manual_seed(seed)
    precision = bf16_inference(model) if bf16 else contextlib.nullcontext()
    with torch.no_grad(), precision:
        for start in range(0, len(jobs), step):
            chunk = jobs[start : start + step]
            rows = [prompt_ids[i] for i in chunk]
            input_ids, mask = _left_padded(rows, tokenizer.pad_token_id)
            output = model.generate(
                input_ids=input_ids.to(model.device),
                attention_mask=mask.to(model.device),
                generation_config=config,
            )
            new = output[:, input_ids.shape[1] :].tolist()
            for index, ids in zip(chunk, new, strict=True):
                groups[index].append(_until_stop(ids, stop_ids))
            if progress is not None:
                progress(len(chunk))
    return groups


@contextlib.contextmanager
def bf16_inference(model: Any) -> Iterator[None]:
    """bf16 autocast on ``model``'s device, with bf16 copies of its frozen linear weights for
    the duration (the fp32 ones are put back after).

    Autocast casts a linear layer's fp32 weight to bf16 at every call unless the weight
    requires grad (only those casts are cached, for one autocast region): LoRA freezes the
    base model, so without the copies every decoding step re-casts all its weights. The copies
    give the same numbers bit for bit, since autocast runs a linear layer in bf16 either way.
    The output projection is left as it is (small models tie it to the input embedding).
    """
    import torch

    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    skip = {id(p) for p in head.parameters()} if head is not None else set()
    frozen = [
        param
        for module in model.modules()
        if isinstance(module, torch.nn.Linear)
        for param in (module.weight, module.bias)
        if param is not None
        and not param.requires_grad
        and param.dtype == torch.float32
        and id(param) not in skip
    ]
    originals = [param.data for param in frozen]
    try:
        for param in frozen:
            param.data = param.data.to(torch.bfloat16)
        with torch.autocast(model.device.type, dtype=torch.bfloat16):
            yield
    finally:
        for param, original in zip(frozen, originals, strict=True):
            param.data = original


def _left_padded(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any]:
    """``(input_ids, attention_mask)``: decoder-only, so new tokens follow each prompt."""
    import torch

    width = max(len(row) for row in rows)
    ids = [[pad_id] * (width - len(row)) + list(row) for row in rows]
    mask = [[0] * (width - len(row)) + [1] * len(row) for row in rows]
    return torch.tensor(ids, dtype=torch.long), torch.tensor(mask, dtype=torch.long)


def _until_stop(ids: list[int], stop_ids: Sequence[int]) -> list[int]:
    for at, token in enumerate(ids):
        if token in stop_ids:
            return ids[: at + 1]
    return ids


def decode_completions(tokenizer: Any, groups: Sequence[Sequence[list[int]]]) -> list[list[str]]:
    """The text of each completion, special tokens (its stop token) left out, as TRL's."""
    return [tokenizer.batch_decode(list(group), skip_special_tokens=True) for group in groups]


# --- generation ----------------------------------------------------------------------------------


def generate_samples(
    problems: Sequence[Problem],
    statements: dict[str, str],
    *,
    model: str,
    gguf_file: str | None = None,
    config: GenerationConfig,
    engine: str = DEFAULT_ENGINE,
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
    lm = load_model(directory, gguf)
    return _generate_transformers(lm, tokenizer, prompts, config, progress)


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
    lm: Any, tokenizer: Any, prompts: list[str], config: GenerationConfig, progress: Progress | None
) -> list[list[str]]:
    sampling = Sampling(
        max_new_tokens=config.max_tokens, temperature=config.temperature, top_p=config.top_p
    )
    # greedy decoding gives one answer per prompt: sample it once and repeat it n times
    runs = 1 if sampling.greedy else config.n
    repeat = config.n // runs
    # the rendered prompt carries its own special tokens (the chat template's)
    prompt_ids = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
    groups = sample_completions(
        lm,
        tokenizer,
        prompt_ids,
        runs,
        sampling,
        batch_size=config.batch_size,
        seed=config.seed,
        progress=None if progress is None else lambda done: progress(done * repeat),
    )
    return [texts * repeat for texts in decode_completions(tokenizer, groups)]


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
