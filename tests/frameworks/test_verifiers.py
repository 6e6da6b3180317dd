"""The verifiers adapter driven by verifiers' own code (0.3.1, what CI installs: its classic
API, aliased from ``verifiers.legacy``, and ``verifiers.v1``; the v1 tests also pass on 0.4.0).

* classic: the guide's snippet loads the environment through ``vf.load_environment`` from a
  file of rows of different sources (a TACO row as it ships, a TACO call-based problem as
  ``answer`` text, a LiveCodeBench row with compressed private tests as ``info``), and
  verifiers' own ``Environment.generate`` runs the rollouts (a stand-in ``vf.Client`` answers
  with scripted completions, the one thing a CPU machine cannot run) and its ``Rubric``
  scores them with :func:`code_reward` and the verdict metrics;
* v1: the guide's taskset package is loaded by verifiers' plugin loader, its tasks scored by
  ``Task.score`` on traces built by verifiers' own message graph; ``task_code_reward``
  plugged into a plain ``vf.Task`` by its config.

Every score equals the direct call's; a malformed row is an error naming its row and field;
256 completions go through ``generate``; the shared pool closes when the process exits.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import signal
from pathlib import Path

import pytest

from evaluator.reward import VERDICT_NAMES, ProblemError
from evaluator.reward.frameworks.verifiers import (
    code_reward,
    environment_rows,
    load_environment,
    problem_of_row,
)
from tests.frameworks.processes import assert_closed_at_exit, run_python
from tests.frameworks.readme import readme_snippet
from tests.frameworks.rows import APPEND, LOOP, fenced, solution
from tests.frameworks.rows import LCB_APPEND as LCB
from tests.frameworks.rows import TACO_CALL as MULTIPLY
from tests.frameworks.rows import TACO_STDIN as APLUSB

# The dataset, one row per form: a source's own row; "question" + "answer" (JSON text of a
# call-based TACO record); chat "prompt" + "info" (a LiveCodeBench row).
ROWS = [
    APLUSB,
    {"question": "Write multiply(a, b).", "answer": json.dumps(MULTIPLY)},
    {"prompt": [{"role": "user", "content": LCB["question_content"]}], "info": LCB},
]
QUESTIONS = [APLUSB["question"], "Write multiply(a, b).", LCB["question_content"]]
# Each problem's rollouts, served in turn, and the verdicts they must get.
SCRIPT = {
    QUESTIONS[0]: [fenced(solution(APLUSB)), fenced("print(0)"), "no code here", fenced(LOOP)],
    QUESTIONS[1]: [fenced(solution(MULTIPLY)), fenced("def multiply(a, b):\n    return a + b")],
    QUESTIONS[2]: [fenced(APPEND), fenced(APPEND.replace("+ [x]", ""))],
}
VERDICTS = {
    QUESTIONS[0]: ["AC", "WA", "NO_CODE", "TLE"],
    QUESTIONS[1]: ["AC", "WA"],
    QUESTIONS[2]: ["AC", "WA"],
}


def _version() -> str:
    from importlib.metadata import version

    return version("verifiers")


def _has_classic() -> bool:
    import verifiers as vf

    try:
        return vf.SingleTurnEnv is not None
    except AttributeError:
        return False


classic = pytest.mark.skipif(
    not _has_classic(),
    reason=f"verifiers {_version()} has no classic API (0.4 removed it); CI installs 0.3.1",
)
v1 = pytest.mark.skipif(
    importlib.util.find_spec("verifiers.v1") is None,
    reason=f"verifiers {_version()} has no v1 API; CI installs 0.3.1",
)


@pytest.fixture(autouse=True)
def _signal_handlers():
    """verifiers' classic environments install SIGINT/SIGTERM handlers when made: put the
    test process's back."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def _dataset_file(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


# --- the classic API: vf.load_environment, Environment.generate, Rubric -------------------------


def _stub_client(script: dict[str, list[str]]):
    """A ``vf.Client`` answering each prompt with its scripted completions in turn."""
    from verifiers.clients import Client
    from verifiers.types import Response, ResponseMessage

    class Scripted(Client):
        def __init__(self):
            super().__init__(None)
            self.served = {question: 0 for question in script}

        def setup_client(self, config):
            return None

        async def to_native_tool(self, tool):
            return tool

        async def to_native_prompt(self, messages):
            return messages, {}

        async def get_native_response(self, prompt, model, sampling_args, tools=None, **kw):
            question = prompt[-1]["content"]
            turn = self.served[question]
            self.served[question] += 1
            return script[question][turn % len(script[question])]

        async def raise_from_native_response(self, response):
            return None

        async def from_native_response(self, response):
            message = ResponseMessage(content=response, finish_reason="stop", is_truncated=False)
            return Response(id="stub", created=0, model="stub", message=message)

        async def close(self):
            return None

    return Scripted()


def _generate(env, client, rollouts: int):
    """verifiers' ``generate`` over every example, ``rollouts`` rollouts each (one group per
    example, scored by the rubric's ``score_group``)."""
    inputs = [row for row in env.get_dataset().to_list() for _ in range(rollouts)]
    return asyncio.run(
        env.generate(inputs, client=client, model="stub", on_progress=lambda *a: None)
    )


def _question(output) -> str:
    return output["prompt"][-1]["content"]


@classic
def test_readme_environment_scores_rollouts_through_verifiers(tmp_path):
    """The guide's snippet: ``vf.load_environment`` imports this module and builds the
    environment from a file of rows of three forms; verifiers' rollout loop and rubric score
    each scripted completion as the direct call does, and log one metric per verdict."""
    import verifiers as vf

    namespace = {"dataset_path": str(_dataset_file(tmp_path, ROWS))}
    exec(
        compile(readme_snippet("# verifiers: environment"), "docs/rl-frameworks.md", "exec"),
        namespace,
    )
    env = namespace["env"]
    assert (
        isinstance(env, vf.SingleTurnEnv) and env.env_id == "evaluator.reward.frameworks.verifiers"
    )
    names = env.rubric._get_reward_func_names()  # our rubric, and the env's turn counter
    assert names == ["code_reward", *(f"verdict_{v}" for v in VERDICT_NAMES), "num_turns"]
    assert env.rubric._get_reward_weights()[:11] == [1.0] + [0.0] * 10

    results = _generate(env, _stub_client(SCRIPT), rollouts=4)
    outputs = results["outputs"]
    assert len(outputs) == 12
    seen: dict[str, list[str]] = {q: [] for q in QUESTIONS}
    for output in outputs:
        question = _question(output)
        verdict = next(k[8:] for k, v in output["metrics"].items() if k[:8] == "verdict_" and v)
        assert sum(v for k, v in output["metrics"].items() if k.startswith("verdict_")) == 1.0
        assert output["reward"] == output["metrics"]["code_reward"] == float(verdict == "AC")
        seen[question].append(verdict)
    for question in QUESTIONS:  # each group got its script, in order, twice for the short ones
        expected = (VERDICTS[question] * 2)[:4]
        assert sorted(seen[question]) == sorted(expected), question
    assert results["metadata"]["avg_metrics"]["verdict_AC"] == pytest.approx(5 / 12)

    # the rubric's scores are the direct call's, on each row as the environment holds it
    rows = env.get_dataset().to_list()
    for row, question in zip(rows, QUESTIONS, strict=True):
        for completion, verdict in zip(SCRIPT[question], VERDICTS[question], strict=False):
            messages = [{"role": "assistant", "content": completion}]
            score = asyncio.run(code_reward(messages, answer=row["answer"], info=row["info"]))
            assert score == float(verdict == "AC"), (question, completion)


@classic
def test_malformed_rows_are_errors_naming_the_row_and_field(tmp_path, capfd, caplog, monkeypatch):
    """A row whose problem cannot be read stops ``load_environment`` naming the row and the
    field; a direct call names the field, or what it got; verifiers' rubric (which turns a
    reward function's exception into 0.0) logs it and the verdict metric says ERROR; with
    ``MICROCODER_ON_BAD_PROBLEM=skip`` the row is kept and scores 0.0, verdict ERROR."""
    import verifiers as vf

    broken_taco = dict(APLUSB, input_output='{"inputs": ["1 2\\n"], "outputs": []}')
    cases = [
        ([APLUSB, broken_taco], "row 1: info: TACO record: field 'input_output'"),
        ([{"question": "q", "answer": "print(3)"}], "row 0: answer: not valid JSON"),
        ([{"question": "q", "info": {"x": 1}}], "row 0: info: not a known problem record"),
        ([{"question": "just a question"}], "row 0: no 'info' or 'answer' column"),
    ]
    for rows, message in cases:  # verifiers' loader wraps the error, ours is its cause
        with pytest.raises(RuntimeError, match=re.escape(message)) as raised:
            vf.load_environment("evaluator.reward.frameworks.verifiers", dataset=rows)
        assert isinstance(raised.value.__cause__, ProblemError)
    with pytest.raises(ProblemError, match="row 1: info"):  # a file too
        load_environment(dataset=_dataset_file(tmp_path, [APLUSB, broken_taco]))

    right = fenced(solution(APLUSB))
    with pytest.raises(ProblemError, match="got info={} and answer=''"):
        asyncio.run(code_reward([{"role": "assistant", "content": right}], answer="", info={}))
    with pytest.raises(ProblemError, match="info: TACO record: field 'input_output'"):
        asyncio.run(code_reward(right, info=broken_taco))
    with pytest.raises(TypeError, match="needs the completion"):
        asyncio.run(code_reward(answer="", info=APLUSB))

    # unchecked, the bad row reaches the rubric: verifiers logs the error, scores 0.0, and
    # the rollout's verdict metric says ERROR
    env = load_environment(dataset=[APLUSB, broken_taco], validate=False)
    script = {APLUSB["question"]: [right]}
    capfd.readouterr()
    outputs = _generate(env, _stub_client(script), rollouts=1)["outputs"]
    good, bad = sorted(outputs, key=lambda o: o["example_id"])
    assert good["reward"] == 1.0 and good["metrics"]["verdict_AC"] == 1.0
    assert bad["reward"] == 0.0 and bad["metrics"]["verdict_ERROR"] == 1.0
    # verifiers' own handler writes to stderr once its logging is set up (an earlier test may
    # have done it); else the record propagates to pytest's handler
    logged = capfd.readouterr().err + caplog.text
    assert "Error calling reward function code_reward: info: TACO record: field" in logged

    # MICROCODER_ON_BAD_PROBLEM=skip (as for the other adapters): kept, logged, 0.0 and ERROR
    monkeypatch.setenv("MICROCODER_ON_BAD_PROBLEM", "skip")
    caplog.clear()
    env = load_environment(dataset=[APLUSB, broken_taco])
    outputs = _generate(env, _stub_client(script), rollouts=1)["outputs"]
    good, bad = sorted(outputs, key=lambda o: o["example_id"])
    assert good["reward"] == 1.0 and bad["reward"] == 0.0
    assert bad["metrics"]["verdict_ERROR"] == 1.0
    assert "Error calling reward function" not in capfd.readouterr().err + caplog.text


@classic
def test_256_completions_through_generate():
    """256 rollouts (4 problems x 64) through verifiers' generate and rubric: every score
    right, the right and wrong halves apart."""
    rows = [APLUSB, ROWS[1], ROWS[2], dict(APLUSB, question="Add them, again.")]
    env = load_environment(dataset=rows)
    right = {
        APLUSB["question"]: fenced(solution(APLUSB)),
        "Add them, again.": fenced(solution(APLUSB)),
        QUESTIONS[1]: fenced(solution(MULTIPLY)),
        QUESTIONS[2]: fenced(APPEND),
    }
    script = {q: [answer, fenced("print(-1)")] for q, answer in right.items()}
    outputs = _generate(env, _stub_client(script), rollouts=64)["outputs"]
    assert len(outputs) == 256
    by_question: dict[str, list[float]] = {}
    for output in outputs:
        by_question.setdefault(_question(output), []).append(output["reward"])
    assert {q: sorted(r) for q, r in by_question.items()} == {
        q: [0.0] * 32 + [1.0] * 32 for q in right
    }


# --- the v1 API: a taskset package, Task.score, a plugged reward ------------------------------


def _trace(task, reply: str):
    """A trace of one turn answering ``task``'s prompt with ``reply``, built by verifiers'
    own message graph (what a rollout records)."""
    import verifiers.v1 as vf
    from verifiers.v1.graph import prepare_turn
    from verifiers.v1.state import state_cls
    from verifiers.v1.types import AssistantMessage, Response, UserMessage

    trace = vf.Trace(
        task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
        state=state_cls(type(task))(),
        agent=vf.AgentInfo(config=vf.AgentConfig(), name="test", trainable=False),
    )
    response = Response(
        id="stub",
        created=0,
        model="stub",
        message=AssistantMessage(content=reply),
        finish_reason="stop",
    )
    prepare_turn(trace, [UserMessage(content=task.data.prompt_text)]).commit(response)
    return trace


def _load_taskset(tmp_path: Path, monkeypatch, dataset: Path):
    """The guide's v1 package, written as its snippet says, loaded by verifiers' loader."""
    from verifiers.v1.utils.loaders import load_taskset, taskset_config_type

    snippet = readme_snippet(
        "# verifiers: v1 taskset (code_tasks/__init__.py, a package of your own)"
    )
    package = tmp_path / "packages" / "code_tasks"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(snippet)
    monkeypatch.syspath_prepend(str(package.parent))
    config = taskset_config_type("code_tasks")(id="code_tasks", dataset=str(dataset))
    return load_taskset(config)


@v1
def test_v1_taskset_scores_traces_with_verifiers_task_score(tmp_path, monkeypatch):
    """The taskset of the guide's package, loaded by verifiers v1's plugin loader from a file of
    rows; ``Task.score`` records our reward and one metric per verdict on each trace."""
    taskset = _load_taskset(tmp_path, monkeypatch, _dataset_file(tmp_path, ROWS))
    tasks = list(taskset)
    assert [task.data.prompt_text for task in tasks] == QUESTIONS

    async def score_all():
        traces = []
        for task, question in zip(tasks, QUESTIONS, strict=True):
            for reply in SCRIPT[question]:
                trace = _trace(task, reply)
                await task.score(trace)
                traces.append((question, trace))
        return traces

    traces = asyncio.run(score_all())
    for (question, trace), verdict in zip(
        traces, [v for q in QUESTIONS for v in VERDICTS[q]], strict=True
    ):
        assert trace.reward == float(verdict == "AC"), (question, verdict)
        assert trace.rewards["code_reward"].score == trace.reward
        assert trace.metrics[f"verdict_{verdict}"] == 1.0
        assert sum(v for k, v in trace.metrics.items() if k.startswith("verdict_")) == 1.0
        assert trace.info["microcoder"]["verdict"] == verdict

    # a bad row: loading the taskset names it; unchecked, scoring raises (verifiers' boundary)
    broken = dict(APLUSB, input_output="{not json")
    with pytest.raises(ProblemError, match="row 1: info: TACO record: field 'input_output'"):
        list(_load_taskset(tmp_path / "b", monkeypatch, _dataset_file(tmp_path, [APLUSB, broken])))
    from verifiers.v1.errors import TaskError

    unchecked = type(taskset.config)(dataset=str(_dataset_file(tmp_path, [broken])))
    unchecked.validate_rows = False
    (task,) = type(taskset)(unchecked).load()
    assert asyncio.run(task.validate(None)) is False
    with pytest.raises(TaskError) as raised:
        asyncio.run(task.score(_trace(task, fenced(solution(APLUSB)))))
    assert "field 'input_output'" in repr(raised.value) + repr(raised.value.__cause__)


@v1
def test_v1_plugged_reward_on_a_plain_task():
    """``task_code_reward`` plugged into a plain ``vf.Task`` by its config (verifiers'
    ``load_plugged_fn``), reading the row's ``info`` from the task data's extra fields."""
    import verifiers.v1 as vf
    from verifiers.v1.configs.task import RewardFunctionConfig, TaskConfig
    from verifiers.v1.task import WireTaskData

    config = TaskConfig(
        rewards={
            "passed": RewardFunctionConfig(
                fn="evaluator.reward.frameworks.verifiers:task_code_reward"
            )
        }
    )
    task = vf.Task(WireTaskData(prompt="Add them.", info=APLUSB), config)

    async def score(reply):
        trace = _trace(task, reply)
        await task.score(trace)
        return trace.rewards["passed"].score

    assert asyncio.run(score(fenced(solution(APLUSB)))) == 1.0
    assert asyncio.run(score(fenced("print(2)"))) == 0.0


# --- the rows and the pool --------------------------------------------------------------------


def test_rows_of_every_form_read_the_same_problem():
    """A source's own row, the same row as ``info`` (object or JSON text) and as ``answer``
    give the same problem; a list of tests as ``answer`` is read too."""
    rows = environment_rows(
        [
            APLUSB,
            {"question": "q", "info": APLUSB},
            {"question": "q", "info": json.dumps(APLUSB)},
            {"question": "q", "answer": json.dumps(APLUSB)},
        ]
    )
    problems = [problem_of_row(row["answer"], row["info"]) for row in rows]
    assert {tuple((t.input, t.output) for t in p.tests) for p in problems} == {
        tuple(zip(*json.loads(APLUSB["input_output"]).values(), strict=True))
    }
    tests = [{"input": "2\n", "output": "4\n"}]
    assert problem_of_row(json.dumps(tests), {}).tests[0].output == "4\n"
    # info wins where a format reads it; answer is the fallback when info holds no problem
    assert problem_of_row(json.dumps(tests), {"difficulty": "easy"}).tests[0].output == "4\n"


EXIT_SCRIPT = """
import asyncio, json, psutil
from evaluator.reward.frameworks.verifiers import code_reward
row = json.loads({row!r})
print(asyncio.run(code_reward({completion!r}, info=row)))
print(json.dumps([p.pid for p in psutil.Process().children(recursive=True)]))
"""


def test_the_shared_pool_closes_when_the_process_exits(tmp_path):
    """A process that scored with the adapter leaves no sandbox server and no temp dir when
    it exits (the shared reward closes its pool at exit)."""
    script = EXIT_SCRIPT.format(row=json.dumps(APLUSB), completion=fenced(solution(APLUSB)))
    score, pids = run_python(["-c", script], tmp_path)[-2:]
    assert score == "1.0"
    assert_closed_at_exit(json.loads(pids), tmp_path)
