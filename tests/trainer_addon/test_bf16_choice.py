"""When the demo and the sweep train and sample in bf16: as asked, else where the CPU
multiplies bf16 natively (``trainer_addon.precision``'s probe: emulated bf16 is hundreds of
times slower than fp32, which turned a 26-minute demo into hours on an AVX2-only machine)."""

from __future__ import annotations

import pytest

from trainer_addon.precision import SLOWDOWN_ALLOWED, Bf16Probe, probe_cpu_bf16, resolve_bf16


@pytest.mark.parametrize("asked", [True, False])
def test_an_explicit_choice_is_kept_without_measuring(asked, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("measured although the choice was given")

    monkeypatch.setattr("trainer_addon.precision.probe_cpu_bf16", refuse)
    assert resolve_bf16(asked) == (asked, None)


@pytest.mark.parametrize(
    ("fp32", "bf16", "fast"),
    [(1.0, 0.6, True), (1.0, SLOWDOWN_ALLOWED, True), (1.0, 39.0, False), (1e-3, 0.25, False)],
)
def test_the_verdict_is_the_slowdown_against_the_allowance(fp32, bf16, fast):
    probe = Bf16Probe(fp32, bf16)
    assert probe.fast is fast
    assert probe.describe().startswith("bf16 on" if fast else "bf16 off")
    assert ("pass --bf16 to force it" in probe.describe()) is not fast


def test_unasked_the_real_probe_decides_and_says_so():
    probe = probe_cpu_bf16()
    assert probe.fp32_seconds > 0 and probe.bf16_seconds > 0
    assert probe_cpu_bf16() is probe  # measured once per process
    assert resolve_bf16(None) == (probe.fast, probe.describe())
