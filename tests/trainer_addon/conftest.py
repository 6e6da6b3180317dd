"""Easy problems for training runs (the tiny model and tokenizer are in tests/conftest.py)."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("WANDB_DISABLED", "true")


EASY_PROBLEMS = [
    {
        "id": "double",
        "harness": "stdin",
        "tests": [{"input": "3\n", "output": "6\n"}, {"input": "10\n", "output": "20\n"}],
        "metadata": {"question": "Read an integer N and print 2N."},
    },
    {
        "id": "add",
        "harness": "stdin",
        "tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "5 7\n", "output": "12\n"}],
        "metadata": {"question": "Read A and B and print A+B."},
    },
    {
        "id": "reverse",
        "harness": "stdin",
        "tests": [{"input": "abc\n", "output": "cba\n"}],
        "metadata": {"question": "Reverse the string S."},
    },
]


@pytest.fixture(scope="session")
def easy_problems_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("problems") / "easy.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in EASY_PROBLEMS))
    return path
