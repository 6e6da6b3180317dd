"""Both graders implement :class:`ProgramGrader`, and one grading run (the library object
the CLI uses) gives the same results and summary on either."""

from __future__ import annotations

import inspect
import json
import re

import pytest

from evaluator.backends.ray_backend import RayGrader
from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import GradeOptions, Grader, GradingRun, ProgramGrader

OPTIONS = GradeOptions(time_limit=1, memory_limit=256, early_exit=False)

PROBLEMS = [
    Problem("rev", Harness.STDIN, [TestCase("abc\n", "cba\n"), TestCase("xy\n", "yx\n")]),
    Problem("add", Harness.FUNCTIONAL, [TestCase("1\n2", "3"), TestCase("4\n5", "9")], "add"),
    Problem("bad-judge", Harness.STDIN, [TestCase("", "1\n")], judge="no-such-judge"),
]
SAMPLES = [
    {"question_id": "rev", "code_list": ["print(input()[::-1])", "print(input())", "1/0"]},
    {
        "question_id": "add",
        "code_list": [
            "class Solution:\n    def add(self, a, b):\n        return a + b\n",
            "def add(a, b):\n    return a - b\n",
        ],
    },
    {"question_id": "bad-judge", "code_list": ["print(1)"]},
]


def _protocol_members() -> list[str]:
    return sorted(
        name
        for name in vars(ProgramGrader)
        if not name.startswith("_") or name in ("__enter__", "__exit__")
        if name not in ("_is_protocol", "_is_runtime_protocol")
    )


@pytest.mark.parametrize("cls", [Grader, RayGrader])
def test_each_grader_has_every_member_with_the_protocols_parameters(cls: type) -> None:
    for name in _protocol_members():
        wanted = getattr(ProgramGrader, name)
        found = getattr(cls, name, None)
        assert found is not None, f"{cls.__name__} lacks {name}"
        if isinstance(wanted, property):
            assert isinstance(found, property), f"{cls.__name__}.{name} is not a property"
        elif callable(wanted):
            assert list(inspect.signature(found).parameters) == list(
                inspect.signature(wanted).parameters
            ), f"{cls.__name__}.{name}"


def _run_with(grader: ProgramGrader, samples_path: str) -> dict:
    assert isinstance(grader, ProgramGrader)
    said: list[str] = []
    run = GradingRun(PROBLEMS, samples_path, OPTIONS, ks=[1], say=said.append)
    with grader:
        run.grade(grader, progress=False, by_problem=isinstance(grader, RayGrader))
    finished = run.finish(label="protocol")
    rows = [
        {
            "id": row["question_id"],
            "graded": row["graded_list"],
            "limits": (row["time_limit"], row["memory_limit"]),  # as the sandbox returned them
            "verdicts": [
                (
                    d["verdict"],
                    [t["verdict"] for t in d["tests"]],
                    re.sub(r"\d", "#", d.get("message", "")),
                )
                for d in row["details"]
            ],
        }
        for row in finished.rows
    ]
    summary = {k: finished.summary[k] for k in ("problems", "samples", "pass@1", "verdicts")}
    return {"rows": rows, "summary": summary, "said": said}


def test_one_run_gives_the_same_results_on_both_graders(ray_cluster, tmp_path) -> None:
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    local = _run_with(Grader(OPTIONS, workers=2), str(samples))
    remote = _run_with(RayGrader(OPTIONS, actors=1, workers_per_actor=2), str(samples))
    assert local == remote
    verdicts = {v[0] for row in local["rows"] for v in row["verdicts"]}
    assert verdicts == {"AC", "WA", "RE", "ERROR"}
    assert local["rows"][0]["graded"] == [True, False, False]


CPP_SOURCES = [
    "#include <bits/stdc++.h>\nint main(){ std::string s; std::cin >> s;"
    " std::reverse(s.begin(), s.end()); std::cout << s << '\\n'; }\n",
    '#include <cstdio>\nint main(){ puts("no"); }\n',
    "int main() { return nope; }\n",
]


def test_languages_travel_with_each_program(ray_cluster) -> None:
    """A C++ program graded on Ray gives the local grader's result (built on the node);
    Python and C++ programs of one problem share its batches."""
    problem = PROBLEMS[0]
    items = [(problem, code, "cpp") for code in CPP_SOURCES] + [
        (problem, "print(input()[::-1])", None),
        (problem, "print(input()[::-1])", "python"),
    ]

    def shape(results):
        return [(r.verdict, [t.verdict for t in r.tests], r.message) for r in results]

    with Grader(OPTIONS, workers=2, precompiled_headers=False) as local:
        expected = shape(local.grade_many(items))
    with RayGrader(OPTIONS, actors=1, workers_per_actor=2) as remote:
        assert shape(remote.grade_many(items)) == expected
    assert [row[0] for row in expected] == ["AC", "WA", "CE", "AC", "AC"]
