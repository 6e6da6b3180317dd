"""Shared fixtures: one real sandbox pool per test session (starting servers costs ~0.2 s)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Third-party data (../shared/data beside the checkout, as in CI; else the workplace's copy).
_BESIDE = Path(__file__).resolve().parents[2] / "shared" / "data"
os.environ.setdefault(
    "MICROCODER_SHARED_DATA", str(_BESIDE if _BESIDE.is_dir() else Path("/work/shared/data"))
)

from evaluator.sandbox import SandboxPool  # noqa: E402


@pytest.fixture(scope="session")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared


# -- a tiny random Qwen2 model and a tokenizer trained in code (trainer and generate tests) --

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

CORPUS = [
    "```python\nprint(int(input()) * 2)\n```",
    "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
    "```python\ns = input()\nprint(s[::-1])\n```",
    "Read the input from stdin and write the answer to stdout.",
    "You are an expert competitive programmer. Solve the problem in Python 3.",
    "Print twice the number. Print the sum of two numbers. Reverse the string.",
]


def make_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<|im_end|>", bos_token=None
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def make_model(tokenizer, seed: int = 0):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    return Qwen2ForCausalLM(config)


@pytest.fixture(scope="session")
def tiny_tokenizer():
    return make_tokenizer()


@pytest.fixture()
def tiny_model(tiny_tokenizer):
    return make_model(tiny_tokenizer)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    tokenizer = make_tokenizer()
    model = make_model(tokenizer)
    path = tmp_path_factory.mktemp("tiny-qwen2")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
