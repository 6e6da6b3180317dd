"""Reading real third-party files: the subsets vendored in tests/data (same names and formats)."""

from __future__ import annotations

from pathlib import Path

import orjson

from evaluator.formats import extract_code, read_problems, read_samples
from evaluator.problem import Harness

O1_MINI = "lcb_submissions/O1-Mini-2024-09-12_N1_codegeneration_eval_all.json"


def test_lcb_eval_all_as_samples(data_dir: Path) -> None:
    samples = read_samples(data_dir / O1_MINI)
    assert len(samples) == 14  # of 880: see tests/data/lcb_submissions/README.md
    first = next(iter(samples.values()))
    assert first.problem_id == "1873_A"
    assert not first.raw  # eval_all files carry the extracted code_list
    assert all(len(s.codes) == 1 for s in samples.values())


def test_extraction_matches_lcb_code_list(data_dir: Path) -> None:
    # LiveCodeBench's own extraction produced code_list from output_list.
    records = orjson.loads((data_dir / O1_MINI).read_bytes())
    for record in records:
        assert (extract_code(record["output_list"][0]) or "") == record["code_list"][0]


def test_humaneval(data_dir: Path) -> None:
    problems = read_problems(data_dir / "human_eval/HumanEval.jsonl.gz")
    assert len(problems) == 4  # of 164
    assert all(p.harness is Harness.ASSERTION for p in problems)
    assert problems[0].id == "HumanEval/0" and problems[0].entry_point == "has_close_elements"
    assert all("def check(" in p.test_code for p in problems)


def test_evalplus_inputs(data_dir: Path) -> None:
    mbpp = read_problems(data_dir / "evalplus/MbppPlus_2023-11-16_767efcc.jsonl")
    assert len(mbpp) == 6  # of 399
    assert all(p.metadata["base_input"] for p in mbpp)
    # Non-standard JSON constants (-Infinity) survive.
    assert any(
        float("-inf") in args
        for p in mbpp
        for args in p.metadata["plus_input"]
        if isinstance(args, list)
    )
    mini = read_problems(data_dir / "evalplus/HumanEvalPlus-Mini.jsonl")
    assert len(mini) == 4  # of 164
