"""Shared fixtures: one real sandbox pool per test session (starting servers costs ~0.2 s)."""

from __future__ import annotations

import os
import shutil
import tempfile
import zlib
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Third-party data: the small subsets vendored in tests/data (tests/data/build_subsets.py), never
# the full copy in ../shared/data that benchmarks/ read, so that a bare clone passes its tests.
os.environ["MICROCODER_TEST_DATA"] = str(Path(__file__).resolve().parent / "data")

# The shared reward's pool daemons (evaluator.sandbox.shared_pool) of this session: their own
# directory, removed at the end, which ends them.
_POOL_DIR = tempfile.mkdtemp(prefix="mcpool-", dir="/tmp")
os.environ["MICROCODER_POOL_DIR"] = _POOL_DIR

from evaluator.sandbox import SandboxPool  # noqa: E402
from tests.extras import SkippedModule, forbid_skips, missing_extra  # noqa: E402


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    """A test module whose optional extra is not installed is one skip naming the extra."""
    reason = missing_extra(module_path)
    if reason is None:
        return None
    module = SkippedModule.from_parent(parent, path=module_path)
    module.reason = reason
    return module


def pytest_sessionfinish(session, exitstatus):
    forbid_skips(session)
    shutil.rmtree(_POOL_DIR, ignore_errors=True)


@contextmanager
def local_ray(cpus: int = 2):
    """A real local Ray: loopback only, no dashboard, no usage stats, shut down after."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")
    import ray

    ray.init(
        address="local",  # never join a cluster another test or process left running
        num_cpus=cpus,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
        configure_logging=False,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="session")
def languages_grader():
    """A grader at the Java, JavaScript, C and Rust tests' limits
    (``tests/languages/runtime_plain.py``), its pool started with every installed runtime."""
    from tests.languages.runtime_plain import grader_for_runtimes

    with grader_for_runtimes() as shared:
        yield shared


# -- reading a sandboxed program's own memory (memory-isolation and reward-hacking tests) --

# The program reads every page it can reach: the brk heap (downwards from sbrk(0)), every 1 MiB
# block around a live object (pymalloc arenas) and the buffers of big objects. A page is probed
# by a pwrite from it (EFAULT, not a crash, when unmapped). Needles are matched by CRC after a
# shared prefix, so the program never holds a whole needle; the control string it builds at
# run time and keeps alive must always be found: it proves the scan reaches the heap.
_MEMORY_SCAN = """
import ctypes, gc, os, sys, zlib

WANTED = {wanted!r}
PREFIX = {prefix!r}.encode()
control = {prefix!r} + "-ctl-" + str(7 * 11 * 1000 + 5)
libc = ctypes.CDLL(None, use_errno=True)
libc.sbrk.restype = ctypes.c_void_p
libc.sbrk.argtypes = [ctypes.c_long]
libc.pwrite.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
probe = os.open("probe", os.O_RDWR | os.O_CREAT, 0o600)
PAGE = 4096


def readable(page):
    return libc.pwrite(probe, page, 1, 0) == 1


pages, blocks = set(), set()
top = libc.sbrk(0) & ~(PAGE - 1)
page = top - PAGE
while top - page < 1 << 30 and readable(page):
    pages.add(page)
    page -= PAGE
objects = gc.get_objects()
for obj in list(objects):
    objects.extend(gc.get_referents(obj))
for obj in objects:
    blocks.add(id(obj) >> 20)
    size = sys.getsizeof(obj, 0)
    if size > PAGE:
        pages.update(range(id(obj) & ~(PAGE - 1), id(obj) + size, PAGE))
    if isinstance(obj, bytearray) and len(obj):
        start = ctypes.addressof((ctypes.c_char * 1).from_buffer(obj))
        pages.update(range(start & ~(PAGE - 1), start + len(obj), PAGE))
del objects, obj
for block in blocks:
    pages.update(range((block - 1) << 20, (block + 2) << 20, PAGE))
found = {{}}
for page in sorted(pages):
    if not readable(page):
        continue
    blob = ctypes.string_at(page, 2 * PAGE if readable(page + PAGE) else PAGE)
    at = blob.find(PREFIX, 0, PAGE)
    while at != -1:
        for length, crc, name in WANTED:
            if zlib.crc32(blob[at : at + length]) == crc:
                found[name] = blob[at : at + length]
        at = blob.find(PREFIX, at + 1, PAGE)
"""


@pytest.fixture(scope="session")
def memory_scan():
    """``build(needles, report, prefix)``: the source of a program that searches its own
    memory for each needle (name -> text, every text starting with ``prefix``), leaves
    ``found`` (name -> bytes found, always including ``"control"``) and ``pages`` (the pages
    it read), then runs ``report`` (source that prints what the test wants to see)."""

    def build(needles: dict[str, str], report: str, prefix: str = "MCLEAK") -> str:
        texts = {**needles, "control": prefix + "-ctl-77005"}
        assert all(text.startswith(prefix) for text in texts.values())
        wanted = [(len(text), zlib.crc32(text.encode()), name) for name, text in texts.items()]
        return _MEMORY_SCAN.format(wanted=wanted, prefix=prefix) + report

    return build


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
