"""verl 0.9.1's own sandbox_fusion reward pointed at ``mcevaluate serve``: its scores equal
ours on the same inputs (prime_code/APPS ground truth, stdin and ``fn_name``)."""

from __future__ import annotations

import json
import threading

import pytest
from verl.utils.reward_score.sandbox_fusion import compute_score

from evaluator import CodeReward, problem_from_ground_truth, verl_compute_score

STDIN_TRUTH = {"inputs": ["1 2\n", "5 7\n", "10 -3\n"], "outputs": ["3\n", "12\n", "7\n"]}
CALL_TRUTH = {
    "fn_name": "evens",
    "inputs": ["[1, 2, 3, 4]", "[7]", "[2, 2]"],
    "outputs": ["[2, 4]", "[]", "[2, 2]"],
}


def fence(code: str) -> str:
    return f"Here is my answer.\n```python\n{code}\n```\n"


CASES = [
    ("stdin right", STDIN_TRUTH, "a, b = map(int, input().split())\nprint(a + b)"),
    ("stdin wrong", STDIN_TRUTH, "a, b = map(int, input().split())\nprint(a - b)"),
    ("stdin crash", STDIN_TRUTH, "raise SystemExit(input() and 1)"),
    ("stdin partly", STDIN_TRUTH, "a, b = map(int, input().split())\nprint(a + abs(b))"),
    ("stdin loops", STDIN_TRUTH, "while True:\n    pass"),
    ("call right", CALL_TRUTH, "def evens(xs):\n    return [x for x in xs if x % 2 == 0]"),
    (
        "call right, class",
        CALL_TRUTH,
        "class Solution:\n    def evens(self, xs):\n        return [x for x in xs if not x % 2]",
    ),
    ("call wrong", CALL_TRUTH, "def evens(xs):\n    return [x for x in xs if x % 2]"),
    ("call partly", CALL_TRUTH, "def evens(xs):\n    return sorted({x for x in xs if x % 2 == 0})"),
    ("call crash", CALL_TRUTH, "def evens(xs):\n    return xs[10]"),
]


def _verl(server, completion: str, truth: dict) -> float:
    score, _ = compute_score(
        f"{server.url}/run_code",
        threading.Semaphore(8),
        1024,
        completion,
        json.dumps(truth),
        timeout=2,
    )
    return score


@pytest.fixture(scope="module")
def fraction_reward():
    with CodeReward(mode="fraction", workers=2, time_limit=2) as reward:
        yield reward


@pytest.mark.parametrize(("name", "truth", "code"), CASES, ids=[c[0] for c in CASES])
def test_verls_score_equals_ours(server, fraction_reward, name, truth, code):
    completion = fence(code)
    theirs = _verl(server, completion, truth)
    # verl's sandbox_fusion score is the share of tests passed: our fraction reward; our
    # verl_compute_score is binary (every test passed), the same where a program passes all
    # or none
    problem = problem_from_ground_truth(json.dumps(truth))
    ours_fraction = fraction_reward.score([problem], [completion])[0]
    assert theirs == pytest.approx(ours_fraction)
    if theirs in (0.0, 1.0):
        assert verl_compute_score("apps", completion, json.dumps(truth)) == theirs
    if name.endswith("partly"):
        assert 0 < theirs < 1  # the case does what its name says


def test_verls_config_line_and_its_default_route(server):
    """The service guide's config line is verl's schema (``reward.sandbox_fusion.url``), and verl's
    default compute_score routes a ``codecontests`` sample to the server with it."""
    from pathlib import Path

    import verl
    from omegaconf import OmegaConf
    from verl.utils.reward_score import default_compute_score
    from verl.workers.config import SandboxFusionConfig

    from tests.frameworks.readme import overrides, readme_snippet

    [line] = overrides(readme_snippet("# service: verl", "service.md"))
    assert line == "reward.sandbox_fusion.url=http://127.0.0.1:8080/run_code"
    url = f"{server.url}/run_code"
    schema = OmegaConf.load(Path(verl.__file__).parent / "trainer/config/reward/reward.yaml")
    config = OmegaConf.merge(
        OmegaConf.create({"reward": schema}),
        OmegaConf.from_dotlist([line.replace("http://127.0.0.1:8080", server.url)]),
    )
    section = config.reward.sandbox_fusion
    assert section._target_ == "verl.workers.config.SandboxFusionConfig"
    assert SandboxFusionConfig(url=section.url).url == url
    right = fence("a, b = map(int, input().split())\nprint(a + b)")
    score = default_compute_score(
        "codecontests",
        right,
        json.dumps(STDIN_TRUTH),
        sandbox_fusion_url=section.url,
        concurrent_semaphore=threading.Semaphore(section.max_concurrent),
        memory_limit_mb=section.memory_limit_mb,
    )
    assert score == 1.0
