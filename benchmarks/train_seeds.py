"""The add-on's learning across seeds: ``mctrain demo --seeds 0,1,2`` with the demo's defaults.

Runs the CPU demo once per seed (SmolLM2-135M-Instruct, the committed split: the same held-out
problems for every seed) and writes OUTPUT/seed-<s>/ (each run's files), OUTPUT/seeds.json
(per seed and pooled: held-out pass@1 before and after, the paired difference with a 95%
interval over problems and samples, the sign-flip p, diversity at the first and last steps)
and OUTPUT/learning.png. Any `mctrain demo` option may follow; ~16 min per seed on 2 cores
with native bf16 (~30-45 min without); a seed already run in OUTPUT with the same settings is
read back, not run again.

    python benchmarks/train_seeds.py --output benchmarks/results/train_seeds
    python benchmarks/train_seeds.py --seeds 0,1 --output /tmp/two-seeds
"""

from __future__ import annotations

import sys

from trainer_addon.cli import demo


def with_defaults(args: list[str]) -> list[str]:
    """``args`` with ``--seeds 0,1,2`` and ``--output train-seeds`` unless they are given."""
    given = {a.split("=")[0] for a in args}
    defaults = [("--seeds", "0,1,2"), ("--output", "train-seeds")]
    return [*args, *(x for name, value in defaults if name not in given for x in (name, value))]


if __name__ == "__main__":
    sys.exit(demo(args=with_defaults(sys.argv[1:]), prog_name="train_seeds.py"))
