"""open-r1's requests and how it reads their answers, as its own code does
(``huggingface/open-r1@1416fa0``; files and lines in ``tests/service/test_open_r1.py``): the
evaluation script ``code_reward`` sends its E2B router, the router client, one test's Piston
request and ``score_submission``'s weighted sum. Shared by the tests and
``benchmarks/framework_http.py``, so that both send exactly the same shapes."""

from __future__ import annotations

import json
import re
from typing import Any

import requests

from tests.frameworks.rows import ROOT

TEMPLATE = (ROOT / "tests/data/frameworks/open_r1/evaluation_script_template.txt").read_text()


def open_r1_extract_code(completion: str, language: str = "python") -> str:
    """open-r1's ``extract_code`` (rewards.py L476-482): the last ```` ```{language}\\n ````
    block, "" when none."""
    matches = re.findall(rf"```{language}\n(.*?)```", completion, re.DOTALL)
    return matches[-1] if matches else ""


def open_r1_script(code: str, info: dict) -> str:
    """One evaluation script, as ``code_reward`` writes it (rewards.py L575-578)."""
    return TEMPLATE.format(
        code=json.dumps(code), test_cases=json.dumps(json.dumps(info["test_cases"]))
    )


def router_rewards(router_url: str, scripts: list[str], languages=None) -> list[float | None]:
    """``E2BProvider.execute_scripts`` in router mode: ``RoutedSandbox.run_code`` posts the
    batch (no client timeout), reads each ``execution``, and the provider takes
    ``float(execution.text)`` (the main result's text), None when that fails."""
    payload = {
        "scripts": scripts,
        "languages": languages or ["python"] * len(scripts),
        "timeout": 30,
        "request_timeout": 28,
    }
    response = requests.post(f"http://{router_url}/execute_batch", json=payload)
    assert response.ok, response.text
    rewards = []
    for result in response.json():
        execution = result["execution"]
        text = None
        if execution is not None:
            assert set(execution) == {"results", "logs", "error", "execution_count"}
            assert set(execution["logs"]) == {"stdout", "stderr"}
            text = next((r["text"] for r in execution["results"] if r["is_main_result"]), None)
        try:
            rewards.append(float(text))
        except (TypeError, ValueError):
            rewards.append(None)
    return rewards


def piston_request(row: dict, test: dict, submission: str, language: str) -> dict:
    """``score_single_test_case``'s request (cf_scoring.py L23-50) as ``send_execute`` sends
    it (piston_client.py L138-141)."""
    checker = row["generated_checker"]
    config = {"TIME_LIMIT": row["time_limit"], "MEMORY_LIMIT": row["memory_limit"],
              "INPUT_MODE": row["input_mode"]}  # fmt: skip
    return {
        "files": [
            {"name": f"main.{language}", "content": submission},
            *([{"name": "checker.py", "content": checker}] if checker else []),
            {"name": "input.txt", "content": test["input"]},
            {"name": "correct_output.txt", "content": test["output"]},
            {"name": "grader_config", "content": "\n".join(f"{k}={v}" for k, v in config.items())},
        ],
        "run_timeout": (row["time_limit"] + 10) * 1000,
        "language": "cf_python3" if language == "python" else "c++17",
        "version": "*",
    }


def weighted_sum(results: list[dict[str, Any]]) -> float:
    """``score_submission``'s weighted sum (cf_scoring.py L94-146) of one submission's Piston
    answers: -0.1 when it did not compile; else 1.0 when every test passed (``run.code ==
    0`` and ``run.stdout.strip() == "1"``), plus 0.1 x the share passed."""
    if any(r["compile"]["code"] != 0 for r in results):
        return -0.1
    passed = sum(r["run"]["code"] == 0 and r["run"]["stdout"].strip() == "1" for r in results)
    return (1.0 if passed == len(results) else 0.0) + 0.1 * passed / len(results)
