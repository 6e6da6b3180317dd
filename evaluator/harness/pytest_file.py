"""Pytest-file tests (KodCode): the problem's ``test_code`` is a pytest file that imports the
program as the module ``solution``; real pytest runs it in the sandbox child, as KodCode's
authors run it (``docs/kodcode.md``): ``solution.py`` (the program) and ``test_solution.py``
(``"from solution import *\\n\\n"`` + the tests, the authors' line) on disk in the run
directory, ``pytest --rootdir=.``, pytest's own capture, no third-party plugin.

A problem says its tests are such a file with ``metadata["test_runner"] == "pytest"``
(:data:`PYTEST_TESTS`); :func:`evaluator.harness.assertion.build_job` hands it here. The job
is one assertion run, so the harness's verdict rule holds: a pass needs the child's signed
report that ``check`` returned, and the bootstrap's ``check`` returns only when
``pytest.main`` returned 0 and at least one test passed. A program that ends the process at
import (``os._exit(0)``) never gets there; one that raises ``SystemExit`` there is pytest's
internal error (exit status 3).

The child's fork template has pytest and the modules a session imports at its start already
imported (the sandbox pool's pytest template, ``evaluator.sandbox.pool.DEFAULT_HEAVY``, which
forks every job whose code names pytest, as this one's does), so a child pays only for
configuring, collecting and running (``benchmarks/speed/kodcode_pytest.py``); a pool without
it imports them in each child (~180 ms more, the same verdicts).
"""

from __future__ import annotations

import functools
import importlib.util

from evaluator.harness.environments import Environment
from evaluator.problem import Problem
from evaluator.sandbox import Isolation, Job, Limits, Mode

from .conventions import CHECK_FUNCTION

__all__ = [
    "PYTEST_ARGS",
    "PYTEST_TESTS",
    "TESTS_PREFIX",
    "build_job",
    "is_pytest_problem",
    "job_code",
    "pytest_installed",
    "pytest_program",
]

PYTEST_TESTS = ("test_runner", "pytest")
"""``metadata[PYTEST_TESTS[0]] == PYTEST_TESTS[1]``: the problem's ``test_code`` is a pytest
file."""

TESTS_PREFIX = "from solution import *\n\n"
"""What KodCode's authors put before the tests in ``test_solution.py``
(``pipeline/step2.2_gen_unit_tests.py``)."""

PYTEST_ARGS = (
    "--rootdir=.",  # the authors' option
    # No configuration file is looked for: pytest would stat and read ``pytest.ini``,
    # ``pyproject.toml``... in every parent directory, which are the host's (and closed to
    # the child). /dev/null is not read: a file of no known suffix is an empty configuration.
    "-c",
    "/dev/null",
    # Collection starts below this directory: pytest otherwise lists each parent directory
    # of the test file up to the configuration's (here /dev's parent, the root).
    "--confcutdir=.",
    "-p",
    "no:cacheprovider",  # writes .pytest_cache; its --lf/--ff options are never given
    "--maxfail=1",  # rllm's: the first failure decides, the rest need not run
    # No header: it reads pluggy's version from the installed packages' metadata (~10 ms a
    # submission). Nothing else changes: assertion messages differ from -v on only.
    "-q",
    "test_solution.py",
)
"""pytest's command line in the child (``docs/kodcode.md``, "How we run them")."""

ENTRY = "run_tests"  # the bootstrap's function the harness passes to check()
PLAIN_STACK = 8 << 20  # the main thread's stack under a shell's pytest (ulimit -s 8192)

# Runs in the child as __main__. The job's source (the tests are in it) is taken out of
# linecache, where it sits under the run directory's solution.py: tracebacks and
# inspect.getsource(solution) would otherwise read it there instead of the program's file.
_BOOTSTRAP = '''\
import _thread, linecache as _linecache, os as _os, sys as _sys


class TestsFailed(Exception):
    """pytest did not pass the file: the first failure, as its short summary names it."""


def check(candidate):
    candidate()


def run_tests():
    space = globals()
    program, tests, arguments = space.pop("PROGRAM"), space.pop("TESTS"), space.pop("ARGS")
    _linecache.cache.pop(__file__, None)
    _stage("solution.py", program)
    _stage("test_solution.py", tests)
    del program, tests
    _sys.dont_write_bytecode = True  # no __pycache__ beside the files (nor rewritten tests)
    _os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # no third-party plugin
    import pytest

    outcome, failed = _Outcome(), TestsFailed  # bound here: the program can reach globals()
    _plain_stack()
    _sys.setrecursionlimit(_sys.getrecursionlimit() + _frames_below())
    status = pytest.main(list(arguments), plugins=[outcome])
    if int(status) != 0 or outcome.passed == 0:
        raise failed(outcome.summary(int(status)))


def _stage(name, text):
    try:
        with open(name, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
    except OSError as exc:
        raise RuntimeError(f"the sandbox refused to write {name} (pytest reads the files "
                           f"from the run directory, which must be writable): {exc}") from None


def _plain_stack():
    """The 8 MiB stack of a shell's ``pytest`` (``ulimit -s``), not the sandbox's 1 GiB: a
    test's deep C recursion (an ``lru_cache``d function past a raised recursion limit)
    overflows here where it overflows there."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if soft == resource.RLIM_INFINITY or soft > PLAIN_STACK:
        resource.setrlimit(resource.RLIMIT_STACK, (PLAIN_STACK, hard))


def _frames_below():
    """How much less room for nested calls there is here than in ``console_main`` of
    pytest's own script (the second frame of a fresh stack: a new thread's), measured by
    recursing until ``RecursionError`` in both: the sandbox's frames beneath the job. The
    recursion limit is raised by as much, so that a test may recurse as deep as under
    ``pytest`` (held by the conformance cases at the limit and one past it)."""
    found, done = [], _thread.allocate_lock()
    done.acquire()

    def console_main():  # pytest.main is called from here
        found.append(_headroom())

    def script():  # the script's <module> frame
        try:
            console_main()
        finally:
            done.release()

    try:
        _thread.start_new_thread(script, ())
    except RuntimeError:  # no thread to be had: the limit stays the plain run's
        return 0
    done.acquire()
    return max(0, found[0] - _headroom()) if found else 0


def _headroom():
    """How many calls may nest below the caller's frame before a RecursionError."""

    def down(depth):
        try:
            return down(depth + 1)
        except RecursionError:
            return depth

    return down(0)


class _Outcome:
    """A pytest plugin that counts the tests that passed and keeps the first failure."""

    def __init__(self):
        self.passed, self.skipped, self.first, self.internal = 0, 0, None, None

    def pytest_internalerror(self, excinfo):
        if self.internal is None:  # pytest's own failure: a SystemExit at import, say
            self.internal = excinfo.exconly().strip().splitlines()[0]

    def pytest_collectreport(self, report):
        if report.failed and self.first is None:
            self.first = report

    def pytest_runtest_logreport(self, report):
        if report.failed and self.first is None:
            self.first = report
        elif report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
            self.passed += 1
        elif report.skipped and report.when != "teardown":
            self.skipped += 1

    def summary(self, status):
        """One line: the first failure as pytest's short summary says it, else why not."""
        report = self.first
        if report is None:
            if self.internal is not None:
                return f"INTERNALERROR - {self.internal}"
            if status == 5:
                return "no tests ran (pytest collected no test)"
            if status == 0:
                return f"no test passed ({self.skipped} skipped or xfailed)"
            return f"pytest exited with status {status}"
        if report.when == "collect":
            head = f"ERROR collecting {report.nodeid or 'test_solution.py'}"
        elif report.when == "call":
            head = f"FAILED {report.nodeid}"
        else:
            head = f"ERROR at {report.when} of {report.nodeid}"
        reason = self.reason(report.longrepr)
        return f"{head} - {reason}" if reason else head

    @staticmethod
    def reason(longrepr):
        """The first line of the failure's message (pytest's reprcrash), else the last
        ``E`` line of its text."""
        crash = getattr(longrepr, "reprcrash", None)
        message = getattr(crash, "message", None)
        if message:
            return message.strip().splitlines()[0]
        lines = [line for line in str(longrepr).splitlines() if line.strip()]
        errors = [line[1:].strip() for line in lines if line.startswith("E ")]
        return (errors or lines or [""])[-1].strip()


'''


def is_pytest_problem(problem: Problem) -> bool:
    """Whether the problem's ``test_code`` is a pytest file (run by real pytest)."""
    return problem.metadata.get(PYTEST_TESTS[0]) == PYTEST_TESTS[1]


@functools.cache
def pytest_installed() -> bool:
    """Whether pytest can be imported: the sandbox child runs this interpreter, with its
    packages."""
    return importlib.util.find_spec("pytest") is not None


def job_code(program: str, tests: str) -> str:
    """The job's code: the bootstrap, then the program, ``test_solution.py``'s text and
    pytest's arguments as constants (``repr`` keeps any text, NUL and lone surrogates
    included, a constant)."""
    return (
        f"{_BOOTSTRAP}PROGRAM = {program!r}\nTESTS = {TESTS_PREFIX + tests!r}\n"
        f"ARGS = {PYTEST_ARGS!r}\nPLAIN_STACK = {PLAIN_STACK}\n"
    )


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    """The job of a pytest-file problem: one assertion run of the bootstrap. Raises
    ``ValueError`` when pytest is not installed (the grader makes that the problem's
    ``ERROR``: every program would fail to import it in the child)."""
    if not pytest_installed():
        raise ValueError(
            "the tests are a pytest file, and pytest is not installed in the grader's "
            "environment (pip install 'pytest>=8.4')"
        )
    return Job(
        code=job_code(code, problem.test_code),
        inputs=[""],
        mode=Mode.ASSERTION,
        func_name=ENTRY,
        check_name=CHECK_FUNCTION,
        limits=limits,
        isolation=isolation,
        environment=environment.overrides(),
    )


TEST_FILE = "test_code.py"
"""The file a test file run as a program is written to (SandboxFusion's: ``tmpXXXXXXXX.py``)."""

FILE_ARGS = ("-c", "/dev/null", "--rootdir=.", "--confcutdir=.", "-p", "no:cacheprovider")
"""pytest's options when it runs a test file as a program: :data:`PYTEST_ARGS`' reasons, at
pytest's default verbosity and without ``--maxfail``, as a plain ``pytest f.py``."""

_PROGRAM = """\
import os as _os, sys as _sys

with open({name!r}, "w", encoding="utf-8", errors="surrogatepass") as _file:
    _file.write({text!r})
del _file
_sys.dont_write_bytecode = True
_os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
import pytest as _pytest

_sys.exit(int(_pytest.main([*{args!r}, {name!r}])))
"""


def pytest_program(test_file: str) -> str:
    """A Python program that runs ``test_file`` (a pytest file holding its own code, as
    SandboxFusion's ``pytest`` tag sends it) as ``pytest f.py`` runs it: the text written to
    :data:`TEST_FILE` in the run directory, pytest's report on stdout, and its exit status
    the program's (0 passed, 1 a test failed, 2 interrupted by a collection error, 5 no
    test). Third-party plugins are not loaded, and pytest reads no configuration file of the
    host (:data:`FILE_ARGS`)."""
    return _PROGRAM.format(name=TEST_FILE, text=test_file, args=FILE_ARGS)
