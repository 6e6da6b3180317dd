"""Rewards for RL training: TRL reward functions, a verl ``compute_score`` adapter, plain Python.

:class:`CodeReward` is called with TRL's reward-function signature::

    reward = CodeReward(mode="binary", no_code_penalty=-0.1)
    rewards = reward(prompts, completions, completion_ids, **columns)  # list[float | None]

* ``completions``: strings, or chat messages in TRL's conversational format (a list of
  ``{"role", "content"}`` dicts; the content of the last ``assistant`` message is the answer;
  a content given as a list of parts has its ``text`` parts joined).
* ``columns``: the dataset's fields, one list aligned with ``completions`` per field (a scalar
  is used for every sample). Two problem forms are read, per sample:

  - ours: a ``tests`` column (a list of ``{"input", "output"}`` or its JSON text) with
    a column for any other field of our schema (``harness``, ``func_name``, ``judge``,
    ``time_limit``, ``memory_limit``, ``test_code``/``entry_point`` for assertion problems,
    ``metadata`` as JSON text or dict, ``environment``), ``prompt_code`` for the schema's
    ``prompt`` and ``question_id`` or ``id`` for its id (see :mod:`evaluator.formats.schema`;
    the harness defaults to ``functional`` when a ``func_name`` is given, ``stdin``
    otherwise);
  - LiveCodeBench: ``public_test_cases``/``private_test_cases`` (JSON text, compressed form or
    lists), ``metadata`` (JSON text or dict, ``func_name`` for call-based problems), optional
    ``judge``, ``time_limit``, ``memory_limit``, ``question_id``.

  A non-empty ``tests`` value wins over LiveCodeBench fields. TRL's own keywords
  (``trainer_state``, ``log_extra``, ``log_metric``) are recognised and never taken for
  columns.

The code is the last non-empty fenced block of the answer after ``<think>`` sections are removed
(:func:`~evaluator.formats.extract.extract_code`). Its language is the row's ``language``
column, else ``CodeReward(language=...)``, else the fence's tag (```` ```cpp ````), else
Python (:func:`~evaluator.languages.program_language`); a C++ program is built once per
distinct source (``g++ -std=c++17 -O2``, confined; ``docs/languages.md``), graded on stdin
problems and (C++, Java) call-based ones, and one that does not build is a ``CE`` (0.0). A row naming a language not graded
here is an ``ERROR`` (``None``). Rewards:

* ``binary``: 1.0 when every test passes, else 0.0 (early exit: grading stops at the first
  failing test); ``fraction``: the share of tests passed (every test runs);
* an answer with no code: ``no_code_penalty`` (default 0.0), nothing runs;
* a problem that cannot be decoded (bad or missing tests, functional without ``func_name``,
  zero tests, broken judge): ``None``, which TRL treats as a missing reward, verdict
  ``ERROR``. An ``ERROR`` that happened while the program ran (a sandbox worker that died
  three times on it, a checker that crashed on its output, a judge that broke on what it
  returned) scores 0.0, never ``None``: a program must not be able to turn its own reward
  into "missing". Every completion gets a score: nothing a program returns or prints (a list
  nested 300,000 deep, invalid UTF-8, an integer of millions of digits) raises out of the
  call; each completion is graded apart, so one that breaks something costs only itself.

Verdicts of the last call are in :attr:`CodeReward.last_verdicts` (``AC``, ``WA``, ``TLE``,
``MLE``, ``RE``, ``OLE``, ``CE``, ``NO_CODE``, ``ERROR``) and :attr:`CodeReward.last_results`
(:class:`~evaluator.runner.grading.GradeResult` or ``None``); :meth:`CodeReward.judged_wrong`
says whether a completion was judged and found wrong (what the trainer add-on masks on).

Defaults for RL: isolation ``adaptive`` (one sandboxed child runs a program's tests one
after another until a test changes the interpreter's state: several times less overhead per
test than ``test``, with its verdicts), early exit in binary mode, each problem's own time/memory limits or 6 s / 1024 MB. Pass ``options`` to change them.

The pool of fork servers is created on the first call and kept warm between calls;
:meth:`CodeReward.close` (or ``with CodeReward() as reward:``) stops it, and so does the exit of
the interpreter that started it: a reward pickled into another process (TRL's asynchronous
trainer spawns one for its rewards; a Ray actor) starts its own pool there, on first use, and
stops it, servers and temp dirs, when that process exits. Pass ``pool=`` to
share a :class:`~evaluator.sandbox.SandboxPool` (the reward then never closes it). Calls are
safe from any thread: the pool is thread-safe and each call keeps its own state (the
``last_*`` attributes are replaced as a whole when a call ends, so with concurrent calls they
describe whichever finished last; use the return value, or :meth:`CodeReward.score_details`).

:class:`AsyncCodeReward` has the same signature under ``async def`` (TRL runs async reward
functions concurrently); it never blocks the event loop.

verl: :func:`verl_compute_score`, :func:`verl_compute_score_async` (the ``async`` form verl's
reward loop awaits) and :func:`verl_compute_score_batch` (its ``BatchRewardManager``) follow
verl's ``compute_score`` conventions over one module-level shared :class:`CodeReward` and its
pool; see :func:`problem_from_ground_truth` for the accepted ``ground_truth`` forms.

The package: :mod:`evaluator.reward.columns` (completions and dataset columns to problems, and
the :class:`~evaluator.reward.columns.ProblemCache` of decoded problems),
:mod:`evaluator.reward.code_reward` (:class:`CodeReward` and :class:`AsyncCodeReward`: TRL's
callable, its pool, the plain-Python ``score``, and :meth:`CodeReward.submit`, the
:class:`~evaluator.reward.code_reward.Submission` an adapter awaits) and
:mod:`evaluator.reward.frameworks.verl` (verl's functions and ground truths). The other RL
frameworks' adapters, each a thin layer over :class:`CodeReward`'s public API in the shape the
framework calls (``docs/rl-frameworks.md``, "Other RL frameworks"), are in :mod:`evaluator.reward.frameworks`
beside verl's; the helpers they share are generic and import none of them:

* :mod:`evaluator.reward.shared`: the one warm reward a process's module-level adapters share
  (:func:`shared_reward`, closed at exit);
* :mod:`evaluator.reward.labels`: a framework's label (a dataset row of any source) as a
  problem, and the grading of (response, label) pairs that OpenRLHF, slime, SkyRL, AReaL and
  the service's endpoints share;
* :mod:`evaluator.reward.frameworks.openrlhf` (``reward_func``;
  :mod:`evaluator.reward.frameworks.openrlhf_reward_func` is the file OpenRLHF loads),
  :mod:`evaluator.reward.frameworks.slime` (``rm``, ``batched_rm``),
  :mod:`evaluator.reward.frameworks.verifiers` (``load_environment``, ``code_reward``, the v1
  taskset), :mod:`evaluator.reward.frameworks.open_r1` (``code_reward``,
  ``binary_code_reward``, ``cf_code_reward``),
  :mod:`evaluator.reward.frameworks.skyrl` (the ``microcoder`` skyrl-gym environment) and
  :mod:`evaluator.reward.frameworks.areal` (AReaL's reward function).

Their HTTP shapes (OpenRLHF's ``/get_reward``, slime's ``/slime/reward``, NeMo-Gym's
``/verify``, open-r1's E2B router and Piston) are endpoints of ``mcevaluate serve``
(:mod:`evaluator.service`). What ``__all__`` names is importable from ``evaluator.reward``
itself, the module path verl loads (``custom_reward_function.path=pkg://evaluator.reward``).
"""

from evaluator.reward.code_reward import (
    ERROR,
    NO_CODE,
    VERDICT_NAMES,
    WRONG_VERDICTS,
    AsyncCodeReward,
    CodeReward,
    RewardDetails,
)
from evaluator.reward.columns import ProblemError, problem_from_columns
from evaluator.reward.frameworks.verl import (
    VERL_MAX_CONCURRENT_ENV,
    problem_from_ground_truth,
    verl_compute_score,
    verl_compute_score_async,
    verl_compute_score_batch,
    verl_max_concurrent,
)
from evaluator.reward.shared import shared_reward
from evaluator.runner.answers import completion_text

__all__ = [
    "ERROR",
    "NO_CODE",
    "VERDICT_NAMES",
    "VERL_MAX_CONCURRENT_ENV",
    "WRONG_VERDICTS",
    "AsyncCodeReward",
    "CodeReward",
    "ProblemError",
    "RewardDetails",
    "completion_text",
    "problem_from_columns",
    "problem_from_ground_truth",
    "shared_reward",
    "verl_compute_score",
    "verl_compute_score_async",
    "verl_compute_score_batch",
    "verl_max_concurrent",
]
