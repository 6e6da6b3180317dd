"""Whether to train and sample in bf16 on the CPU: only where the CPU multiplies bf16 fast.

bf16 autocast is a win on CPUs with native bf16 matrix units (AVX-512 BF16, AMX: a 160-token
batch of 16 in 21 s against 26-27 s in fp32 on the machine the demo was tuned on) and a disaster
without them: on an AVX2-only CPU PyTorch multiplies bf16 about 250x slower than fp32 (0.3
against 79 GFLOP/s measured here), so a demo that takes 26 min would take hours. Which one a
machine is cannot be read reliably from flags (oneDNN's paths differ by build), so it is
measured: a few 256 x 256 matrix products in each precision, about 0.1 s where bf16 is slow.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

# bf16 counts as fast when its product takes at most this many times fp32's: a native bf16
# unit is faster than fp32, an emulated one hundreds of times slower, so any ratio between
# separates them
SLOWDOWN_ALLOWED = 2.0


@dataclass(frozen=True)
class Bf16Probe:
    """One measurement: the best time of a small matrix product in each precision."""

    fp32_seconds: float
    bf16_seconds: float

    @property
    def slowdown(self) -> float:
        return self.bf16_seconds / max(self.fp32_seconds, 1e-9)

    @property
    def fast(self) -> bool:
        return self.slowdown <= SLOWDOWN_ALLOWED

    def describe(self) -> str:
        verdict = "on" if self.fast else "off"
        return (
            f"bf16 {verdict}: a bf16 matrix product takes {self.slowdown:.2g}x fp32's on this CPU"
            + ("" if self.fast else " (no native bf16; pass --bf16 to force it)")
        )


def _best_time(a, b, repeats: int) -> float:
    a @ b  # warm up (allocation, kernel choice)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return best


@functools.cache
def probe_cpu_bf16(size: int = 256, repeats: int = 3) -> Bf16Probe:
    """Time ``size`` x ``size`` products in fp32 and in bf16 (cached per process)."""
    import torch

    generator = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=generator)
    b = torch.randn(size, size, generator=generator)
    fp32 = _best_time(a, b, repeats)
    bf16 = _best_time(a.bfloat16(), b.bfloat16(), repeats)
    return Bf16Probe(fp32, bf16)


def resolve_bf16(requested: bool | None) -> tuple[bool, str | None]:
    """``requested`` if given, else whether this CPU multiplies bf16 fast; with the line that
    says why when it was measured (``None`` when it was asked for)."""
    if requested is not None:
        return bool(requested), None
    probe = probe_cpu_bf16()
    return probe.fast, probe.describe()
