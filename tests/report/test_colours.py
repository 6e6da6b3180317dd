"""The verdict colours of page.css, told apart by everyone: every pair stays apart in CIELAB
for normal vision and for protanopia, deuteranopia and tritanopia as simulated by Machado,
Oliveira and Fernandes (2009, severity 1), and each chip's text contrasts with its colour."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

CSS = Path(__file__).resolve().parents[2] / "evaluator" / "report" / "templates" / "page.css"
# every verdict a sample can have, each with its own chip colour
VERDICTS = ("AC", "WA", "TLE", "MLE", "RE", "OLE", "CE", "NO_CODE", "ERROR", "UNSUPPORTED")
MIN_DISTANCE = 25.0  # CIE76 units: clearly different at a glance (2.3 is just noticeable)
MIN_CONTRAST = 4.5  # WCAG AA for the chips' small text

# Machado et al. 2009, severity 1.0, for linear RGB.
SIMULATIONS = {
    "normal vision": np.eye(3),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}  # fmt: skip
_SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])  # fmt: skip
_WHITE = np.array([0.95047, 1.0, 1.08883])


def _colours() -> dict[str, str]:
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", CSS.read_text()))


def _linear(colour: str) -> np.ndarray:
    channels = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)


def _lab(linear: np.ndarray) -> np.ndarray:
    xyz = _SRGB_TO_XYZ @ np.clip(linear, 0, 1) / _WHITE
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _distance(a: str, b: str, simulation: np.ndarray) -> float:
    return float(np.linalg.norm(_lab(simulation @ _linear(a)) - _lab(simulation @ _linear(b))))


def _contrast(a: str, b: str) -> float:
    low, high = sorted(float(np.array([0.2126, 0.7152, 0.0722]) @ _linear(c)) for c in (a, b))
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("vision", SIMULATIONS)
def test_every_pair_of_verdict_colours_is_told_apart(vision):
    colours = _colours()
    close = [
        (a, b, round(_distance(colours[a], colours[b], SIMULATIONS[vision]), 1))
        for a, b in itertools.combinations(VERDICTS, 2)
        if _distance(colours[a], colours[b], SIMULATIONS[vision]) < MIN_DISTANCE
    ]
    assert close == []


def test_the_check_catches_the_old_reds():
    """The colours issue 25 reported (WA #d1453b, RE #a3262a) fail it, in every vision."""
    for simulation in SIMULATIONS.values():
        assert _distance("#d1453b", "#a3262a", simulation) < MIN_DISTANCE


def test_chip_text_contrasts_with_its_colour():
    colours = _colours()
    weak = {
        v: round(_contrast(colours[v], colours[f"on-{v}"]), 2)
        for v in (*VERDICTS, "SKIPPED", "failed")
        if _contrast(colours[v], colours[f"on-{v}"]) < MIN_CONTRAST
    }
    assert weak == {}


def test_every_verdict_has_its_colour():
    from evaluator.problem import Verdict

    assert set(VERDICTS) | {"SKIPPED"} == {str(v) for v in Verdict}
