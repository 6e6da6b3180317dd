"""``mcevaluate generate``: samples from a local model, LiveCodeBench style (the work is in
:mod:`evaluator.generate`, imported only when the command runs)."""

from __future__ import annotations

import importlib.util
import sys

import click

from evaluator.cli.options import PROBLEMS
from evaluator.cli.paths import writable
from evaluator.formats import InputError, read_problems
from evaluator.generate import DEFAULT_ENGINE, GenerationConfig
from evaluator.runner.journal import write_jsonl_atomic

DEFAULT = GenerationConfig()  # the library's defaults are the options' (written once there)

__all__ = ["generate"]


@click.command()
@PROBLEMS
@click.option(
    "--model",
    required=True,
    help="A local model directory (transformers/vLLM) or a .gguf file.",
)
@click.option("--gguf-file", default=None, help="A GGUF file inside the --model directory to load.")
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False),
    help="Write the samples here: {question_id, output_list, code_list} per problem "
    "(replaced if it exists; checked before the model is loaded).",
)
@click.option(
    "--n",
    type=click.IntRange(min=1),
    default=DEFAULT.n,
    show_default=True,
    help="Samples per problem.",
)
@click.option(
    "--temperature",
    type=click.FloatRange(min=0.0),
    default=DEFAULT.temperature,
    show_default=True,
    help="Sampling temperature (0: greedy).",
)
@click.option(
    "--top-p",
    type=click.FloatRange(min=0.0, max=1.0, min_open=True),
    default=DEFAULT.top_p,
    show_default=True,
    help="Nucleus sampling probability mass.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=DEFAULT.max_tokens,
    show_default=True,
    help="New tokens per answer at most.",
)
@click.option("--seed", type=int, default=DEFAULT.seed, show_default=True, help="Sampling seed.")
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=DEFAULT.batch_size,
    show_default=True,
    help="Prompts per generate call.",
)
@click.option(
    "--engine",
    type=click.Choice(["auto", "vllm", "transformers"]),
    default=DEFAULT_ENGINE,
    show_default=True,
    help="auto: vLLM when installed and a GPU is present, else transformers.",
)
@click.option(
    "--chat/--no-chat",
    default=None,
    help="Use the tokenizer's chat template [default: when it has one].",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def generate(
    problems: str,
    model: str,
    gguf_file: str | None,
    output: str,
    n: int,
    temperature: float,
    top_p: float,
    max_tokens: int,
    seed: int,
    batch_size: int,
    engine: str,
    chat: bool | None,
    quiet: bool,
) -> None:
    """Write N samples per problem of PROBLEMS from a local MODEL, LiveCodeBench style.

    Prompts follow LiveCodeBench's code-generation prompt (expert Python programmer; stdin
    problems read stdin and write stdout, call-based ones complete their starter code). The
    samples keep the raw answers (output_list) and the extracted code (code_list), so
    `mcevaluate grade --samples OUTPUT` grades them directly.

    \b
    Examples:
      mcevaluate generate --problems problems.jsonl --model ./my-model -o samples.jsonl
      mcevaluate generate --problems p.jsonl --model ./model.Q8_0.gguf --n 10 \\
          --temperature 0.8 --max-tokens 4096 -o samples.jsonl
      mcevaluate grade --problems p.jsonl --samples samples.jsonl
    """
    from tqdm import tqdm

    from evaluator import generate as gen

    writable(output, "--output")
    try:
        loaded = read_problems(problems)
        statements = gen.problem_statements(problems)
    except InputError as exc:
        raise click.ClickException(str(exc)) from None
    if not loaded:
        raise click.ClickException(f"{problems}: no problems")
    try:
        gen.resolve_model(model, gguf_file)
    except gen.ModelNotFound as exc:
        raise click.ClickException(str(exc)) from None
    if engine == "vllm" and importlib.util.find_spec("vllm") is None:
        raise click.ClickException("--engine vllm needs vLLM installed (pip install vllm)")
    config = gen.GenerationConfig(
        n=n,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        seed=seed,
        batch_size=batch_size,
    )
    with tqdm(
        total=len(loaded) * n,
        unit="sample",
        disable=quiet,
        file=sys.stderr,
        dynamic_ncols=True,
    ) as bar:
        answers = gen.generate_samples(
            loaded,
            statements,
            model=model,
            gguf_file=gguf_file,
            config=config,
            engine=engine,
            chat=chat,
            progress=bar.update,
            quiet=quiet,
        )
    write_jsonl_atomic(output, gen.sample_records(loaded, answers))
    if not quiet:
        click.echo(f"{len(loaded) * n} samples of {len(loaded)} problems written to {output}")
