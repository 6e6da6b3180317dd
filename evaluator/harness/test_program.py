"""Problems whose tests are one program joined around the candidate's code (HumanEval-X):
``metadata["program_prefix"] + code + metadata["program_suffix"]`` is what is built and run,
in the problem's language, and a clean exit is the pass (the problem's judge: ``exit``, or
``silent`` where the benchmark also wants nothing printed). The code is what the benchmark's
generation files hold: the continuation of the prompt, which the prefix ends with.

``metadata["program_cut"] == "top_level"``: the code is first cut at its first line that is
not indented (HumanEval-X's Python rule: a generation that goes on past the function body
is cut there, as its ``process_humaneval_test`` does).

``metadata["program_imports"] == {"head": text, "packages": [...]}``: a Go test file's imports
that depend on the code (HumanEval-X's Go rule): the program starts with ``head`` (the
package clause and the test's own imports), then one ``import (...)`` block of those
``packages`` whose name (the path's last part) the code uses as ``name.``, then the prefix."""

from __future__ import annotations

from evaluator.problem import PROGRAM_CUT as CUT
from evaluator.problem import PROGRAM_IMPORTS as IMPORTS
from evaluator.problem import PROGRAM_PREFIX as PREFIX
from evaluator.problem import PROGRAM_SUFFIX as SUFFIX
from evaluator.problem import Problem

__all__ = ["joins_program", "program"]


def joins_program(problem: Problem) -> bool:
    """Whether ``problem``'s tests are a program joined around the code."""
    return PREFIX in problem.metadata or SUFFIX in problem.metadata


def program(problem: Problem, code: str) -> str:
    """The program that runs for ``code`` (``code`` itself for other problems)."""
    if not joins_program(problem):
        return code
    if problem.metadata.get(CUT) == "top_level":
        code = _cut_at_top_level(code)
    prefix = str(problem.metadata.get(PREFIX, ""))
    imports = problem.metadata.get(IMPORTS)
    if isinstance(imports, dict):
        prefix = (
            str(imports.get("head", "")) + _import_block(imports.get("packages", []), code) + prefix
        )
    return prefix + code + str(problem.metadata.get(SUFFIX, ""))


def _import_block(packages: list[str], code: str) -> str:
    """HumanEval-X's Go rule: the packages the code names (``strings.``), one per line."""
    used = [f'"{path}"' for path in packages if path.rsplit("/", 1)[-1] + "." in code]
    if not used:
        return ""
    return "import (\n" + "    ".join(f"{path}\n" for path in used) + ")\n"


def _cut_at_top_level(code: str) -> str:
    kept = []
    for line in code.split("\n"):
        if line.strip() and line[0] not in " \t":
            break
        kept.append(line)
    return "\n".join(kept)
