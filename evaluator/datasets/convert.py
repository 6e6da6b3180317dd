"""Converting LeetCodeDataset, DebugBench and HumanEval/EvalPlus/MBPP records into
LiveCodeBench ``code_generation_lite`` records, so they feed ``mcevaluate`` and ``mctrain``.

Output record (all LiveCodeBench fields, plus ours)::

    {"question_id", "question_title", "question_content", "platform", "contest_id",
     "contest_date", "difficulty", "starter_code",
     "public_test_cases":  JSON string of [{"input", "output", "testtype": "functional"}],
     "private_test_cases": LiveCodeBench's compressed form (base64(zlib(pickle(json)))),
     "metadata":           JSON string {"func_name": ...},
     "reference_solution": a whole program that should pass every test (ours; checks use it),
     "source":             where the record came from, e.g. "LeetCodeDataset:v0.3.1-test"}

Tests are call-based: ``input`` is one JSON value per line (one per argument), ``output`` the
JSON of the expected value. The first :data:`PUBLIC_TESTS` tests are public, the rest private.

* LeetCodeDataset: ``input_output`` inputs look like ``a = [1,2], k = 3``; they are parsed as
  the keyword arguments of a call with :mod:`ast` (only literals are accepted) and the output
  with :func:`ast.literal_eval`. ``question_id`` is the slug (``task_id``), which is what
  DebugBench joins on. Problems whose signature or solution uses ``TreeNode``/``ListNode``
  are skipped (LiveCodeBench's call harness passes plain JSON data), as are problems with a
  test that does not parse or whose values JSON cannot hold (sets, NaN...). The reference
  solution is the record's ``prompt`` (imports, helpers) followed by its ``completion``.
* HumanEval / EvalPlus (HumanEval+, MBPP+): their expected outputs are not stored, so the
  canonical solution is run in the sandbox on every input (EvalPlus's ``base_input`` +
  ``plus_input``; for plain HumanEval the literal arguments of each ``candidate(...)`` call in
  ``check``) and its return value, encoded by the sandbox's strict JSON encoder, becomes the
  expected output. An input whose run fails or returns something JSON cannot hold is dropped;
  a problem left with no test is skipped. JSON has no tuples: MBPP's tuple arguments arrive
  as lists, and the call-based judge compares lists and tuples alike. The judge is
  ``{"bool_as_int": true}`` (Python's ``==``, as EvalPlus grades), plus ``abs_tol`` when
  EvalPlus gives an ``atol``.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.formats import encode_private_tests, read_records
from evaluator.harness.conventions import SOLUTION_CLASS
from evaluator.problem import DEFAULT_TIME_LIMIT, Harness, Problem
from evaluator.sandbox import Job, Limits, Mode, SandboxPool

__all__ = [
    "PUBLIC_TESTS",
    "REFERENCE_FIELD",
    "Skipped",
    "lcb_record",
    "leetcode_to_lcb",
    "parse_call_input",
    "python_literal_to_json",
    "evalplus_to_lcb",
    "debugbench_pairs",
    "read_debugbench",
]

PUBLIC_TESTS = 3
REFERENCE_FIELD = "reference_solution"
_HELPER_CLASSES = re.compile(r"\b(TreeNode|ListNode|Node)\b")


class Skipped(ValueError):
    """A record that cannot be converted; ``str`` is the reason."""


# --- values ------------------------------------------------------------------------------------


def _json_value(value: Any, where: str) -> str:
    """Strict JSON for a Python literal (tuples become lists); Skipped for sets, NaN, ..."""

    def plain(item: Any) -> Any:
        if isinstance(item, bool) or item is None or isinstance(item, int | str):
            return item
        if isinstance(item, float):
            if not math.isfinite(item):
                raise Skipped(f"{where}: {item!r} is not JSON")
            return item
        if isinstance(item, list | tuple):
            return [plain(x) for x in item]
        if isinstance(item, dict) and all(isinstance(k, str) for k in item):
            return {k: plain(v) for k, v in item.items()}
        raise Skipped(f"{where}: a {type(item).__name__} is not JSON data")

    return json.dumps(plain(value), separators=(",", ":"))


def parse_call_input(text: str) -> list[str]:
    """``"a = [1,2], k = 3"`` -> ``["[1,2]", "3"]`` (JSON per argument, in order).

    Parsed as the arguments of a call, so commas inside strings and nested lists are safe;
    every value must be a Python literal. ``null``/``true``/``false`` (JSON spellings some
    records use) are read as ``None``/``True``/``False``.
    """
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError as exc:
        raise Skipped(f"input {text[:60]!r} does not parse: {exc.msg}") from None
    assert isinstance(call, ast.Call)
    nodes = list(call.args) + [kw.value for kw in call.keywords]
    if any(kw.arg is None for kw in call.keywords):
        raise Skipped(f"input {text[:60]!r} uses **")
    return [_json_value(_literal(node, text), "input") for node in nodes]


_JSON_NAMES = {"null": None, "true": True, "false": False}


def _literal(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]

    class JsonNames(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            if name.id in _JSON_NAMES:
                return ast.copy_location(ast.Constant(_JSON_NAMES[name.id]), name)
            return name

    try:
        return ast.literal_eval(JsonNames().visit(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise Skipped(f"input {text[:60]!r} holds a value that is not a literal") from None


def python_literal_to_json(text: str) -> str:
    """An expected output written as a Python literal (``[2, 2]``, ``True``) as JSON."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise Skipped(f"output {text[:60]!r} does not parse: {exc.msg}") from None
    return _json_value(_literal(node, text), "output")


# --- records -----------------------------------------------------------------------------------


def lcb_record(
    question_id: str,
    tests: list[tuple[str, str]],
    func_name: str,
    *,
    title: str = "",
    content: str = "",
    platform: str = "",
    contest_date: str = "",
    difficulty: str = "",
    starter_code: str = "",
    reference: str | None = None,
    source: str = "",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A LiveCodeBench ``code_generation_lite`` record for call-based ``tests``."""
    cases = [{"input": i, "output": o, "testtype": "functional"} for i, o in tests]
    record: dict[str, Any] = {
        "question_id": question_id,
        "question_title": title or question_id,
        "question_content": content,
        "platform": platform,
        "contest_id": "",
        "contest_date": contest_date,
        "difficulty": difficulty,
        "starter_code": starter_code,
        "public_test_cases": json.dumps(cases[:PUBLIC_TESTS]),
        "private_test_cases": encode_private_tests(cases[PUBLIC_TESTS:]),
        "metadata": json.dumps({"func_name": func_name}),
    }
    if reference is not None:
        record[REFERENCE_FIELD] = reference
    if source:
        record["source"] = source
    record.update(extra or {})
    return record


def _question_and_starter(record: dict[str, Any]) -> tuple[str, str]:
    content = record.get("problem_description") or ""
    starter = record.get("starter_code") or ""
    query = record.get("query") or ""
    if not content and "### Question:" in query:
        content = query.split("### Question:", 1)[1]
        content = re.split(r"\n### |\nPlease complete the following", content)[0].strip()
    if not starter:
        blocks = re.findall(r"```python\n(.*?)```", query, re.S)
        starter = blocks[-1] if blocks else ""
    return content, starter


def _str_result(output: str) -> str:
    """A ``-> str`` result as JSON. Newer LeetCodeDataset files write it unquoted (``aa``),
    older ones quoted (``"aa"``): a quoted literal is taken as the string it spells."""
    if output[:1] in ("'", '"') and output[-1:] == output[:1]:
        try:
            value = ast.literal_eval(output)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, str):
            return json.dumps(value)
    return json.dumps(output)


def leetcode_to_lcb(record: dict[str, Any], source: str = "LeetCodeDataset") -> dict[str, Any]:
    """One LeetCodeDataset record as a LiveCodeBench record; :class:`Skipped` with the reason
    when it cannot be converted (see the module docstring)."""
    slug = record.get("task_id")
    if not isinstance(slug, str) or not slug:
        raise Skipped("no task_id")
    entry = record.get("entry_point") or ""
    func_name = entry.rsplit(".", 1)[-1].strip()
    if not func_name:
        raise Skipped("no entry_point")
    completion = record.get("completion") or ""
    content, starter = _question_and_starter(record)
    signature = re.search(rf"def {re.escape(func_name)}\(.*?\)[^:]*:", completion, re.S)
    if _HELPER_CLASSES.search(starter) or (
        signature is not None and _HELPER_CLASSES.search(signature.group(0))
    ):
        raise Skipped("uses TreeNode/ListNode (LiveCodeBench's call harness has no helpers)")
    raw = record.get("input_output")
    if isinstance(raw, str):
        try:
            raw = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            raise Skipped("input_output does not parse") from None
    if not isinstance(raw, list) or not raw:
        raise Skipped("no input_output tests")
    # LeetCodeDataset writes str results unquoted (``aa``): the annotation decides.
    returns_str = signature is not None and re.search(r"->\s*str\s*:$", signature.group(0))
    tests: list[tuple[str, str]] = []
    dropped: dict[str, int] = {}
    for case in raw:
        try:
            output = str(case.get("output", ""))
            if output.startswith(("Error:", "Execution timed out")):
                raise Skipped("the output is the generator's error message")
            expected = _str_result(output) if returns_str else python_literal_to_json(output)
            tests.append(("\n".join(parse_call_input(str(case.get("input", "")))), expected))
        except Skipped as exc:
            reason = re.sub(r"'.*'", "...", str(exc))
            dropped[reason] = dropped.get(reason, 0) + 1
    if not tests:
        raise Skipped(f"no test converts ({'; '.join(dropped)})")
    meta = record.get("meta") or {}
    difficulty = str(record.get("difficulty") or meta.get("difficulty") or "").lower()
    date = str(record.get("estimated_date") or meta.get("estimated_date") or "")
    prompt = record.get("prompt") or ""
    return lcb_record(
        slug,
        tests,
        func_name,
        title=str(meta.get("question_title") or slug),
        content=content,
        platform="leetcode",
        contest_date=date,
        difficulty=difficulty,
        starter_code=starter,
        reference=(prompt + "\n" + completion) if completion else None,
        source=source,
        extra={
            "frontend_id": str(record.get("question_id") or meta.get("question_id") or ""),
            **({"dropped_tests": dropped} if dropped else {}),
        },
    )


# --- DebugBench --------------------------------------------------------------------------------


def read_debugbench(folder: str | Path) -> list[dict[str, Any]]:
    """All DebugBench rows of the ``python3_*.json`` files in ``folder``, in file-name order."""
    rows: list[dict[str, Any]] = []
    for path in sorted(Path(folder).glob("python3_*.json")):
        for row in json.loads(path.read_text()):
            row = dict(row)
            row["bug_type"] = path.stem.removeprefix("python3_")
            rows.append(row)
    return rows


@dataclass(slots=True)
class Pair:
    slug: str
    bug_type: str
    oracle: str
    buggy: str


def debugbench_pairs(rows: Iterable[dict[str, Any]], slugs: set[str]) -> Iterator[Pair]:
    """DebugBench's (oracle, buggy) pairs whose ``slug`` is one of ``slugs``."""
    for row in rows:
        if row.get("slug") in slugs and row.get("oracle_code") and row.get("buggy_code"):
            yield Pair(row["slug"], row.get("bug_type", ""), row["oracle_code"], row["buggy_code"])


# --- HumanEval / EvalPlus / MBPP ---------------------------------------------------------------


def _candidate_calls(test_code: str) -> list[list[Any]]:
    """Literal argument lists of every ``candidate(...)`` call in a HumanEval ``check``."""
    calls: list[list[Any]] = []
    try:
        tree = ast.parse(test_code)
    except SyntaxError:
        return calls
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "candidate"
            and not node.keywords
        ):
            try:
                calls.append([ast.literal_eval(arg) for arg in node.args])
            except (ValueError, TypeError, SyntaxError):
                continue
    return calls


def evalplus_to_lcb(
    problems: list[Problem],
    pool: SandboxPool,
    *,
    platform: str = "",
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Records for HumanEval/EvalPlus problems (as read by ``read_problems``), with expected
    outputs computed by running each canonical solution in ``pool``. Returns the records and
    ``{problem id: reason}`` for the problems skipped."""
    records: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    jobs: list[tuple[Problem, list[str], str]] = []
    for problem in problems:
        if problem.harness is not Harness.ASSERTION:
            skipped[problem.id] = f"not a HumanEval/EvalPlus problem ({problem.harness})"
            continue
        canonical = problem.metadata.get("canonical_solution")
        if not canonical:
            skipped[problem.id] = "no canonical_solution"
            continue
        calls = problem.metadata.get("base_input")
        if calls is None:
            calls = _candidate_calls(problem.test_code)
        else:
            calls = list(calls) + list(problem.metadata.get("plus_input") or [])
        inputs: list[str] = []
        seen: set[str] = set()
        for args in calls:
            try:
                text = "\n".join(_json_value(a, "input") for a in args)
            except Skipped:
                continue
            if text not in seen:
                seen.add(text)
                inputs.append(text)
        if not inputs:
            skipped[problem.id] = "no inputs that JSON can hold"
            continue
        jobs.append((problem, inputs, problem.prompt + canonical))
    futures = [
        pool.submit(
            Job(
                code=code,
                inputs=inputs,
                mode=Mode.CALL,
                func_name=problem.entry_point,
                limits=Limits(time_limit=time_limit),
                entry_class=SOLUTION_CLASS,
            )
        )
        for problem, inputs, code in jobs
    ]
    for (problem, inputs, code), future in zip(jobs, futures, strict=True):
        result = future.result()
        tests = [
            (text, run.value)
            for text, run in zip(inputs, result.runs, strict=False)
            if run.clean_exit and run.value is not None
        ]
        if not tests:
            skipped[problem.id] = "the canonical solution produced no usable output"
            continue
        dropped = len(inputs) - len(tests)
        source = problem.metadata.get("source_format", "humaneval")
        prefix = problem.id.split("/", 1)[0].lower()
        record = lcb_record(
            problem.id,
            tests,
            problem.entry_point,
            content=problem.prompt,
            platform=platform or prefix,
            starter_code=problem.prompt,
            reference=code,
            source=source,
            extra={"dropped_inputs": dropped} if dropped else None,
        )
        # EvalPlus grades by Python's ==: 0 answers False there (values.py, bool_as_int).
        atol = problem.metadata.get("atol") or 0
        record["judge"] = {"bool_as_int": True, **({"abs_tol": atol} if atol else {})}
        records.append(record)
    return records, skipped


def read_leetcode(path: str | Path) -> list[dict[str, Any]]:
    """Raw LeetCodeDataset records (``.jsonl`` or ``.jsonl.gz``, inflated within bounds:
    :func:`~evaluator.formats.read_records`)."""
    return [record for _, record in read_records(path)]
