"""References to the repository in its prose point at things that exist.

README.md, the Markdown under docs/, benchmarks/, tests/ and evaluator/, and the docstrings
and comments of every Python file name repository paths (``evaluator/sandbox/jobs.py``,
``docs/plain-run.md``, ``tests/cpp/``), paths inside the package (``runner/grading.py``),
relative Markdown links (``[x](plain-run.md#environments)``) and dotted module names
(``evaluator.sandbox.inside.harness``, with an attribute or two after it), and names said
to be in a file (```_BUILDERS`` in ``runner/grading.py```, ``cli/grade_driver.py:_make_grader``). A file moved or
removed leaves such references behind; this test finds them.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Paths named from the repository's root
ROOTS = ("evaluator", "tests", "docs", "benchmarks", "trainer_addon", "sandbox_profiles")
# Paths named from inside the package (``runner/grading.py``): its subpackages
PACKAGES = tuple(
    p.name for p in (ROOT / "evaluator").iterdir() if p.is_dir() and (p / "__init__.py").exists()
)
# What prose may name that is not in the repository (a prefix), and why
OUTSIDE = {
    "../shared/": "the project's shared folder beside the repository (docs, data)",
    "tests/utils/reward_score/": "verl's tests, in verl's repository",
    "data/example.jsonl": "NeMo-Gym's code_gen example rows, in its repository",
}
_FIRST = "|".join(re.escape(r) for r in ROOTS + PACKAGES)
_PATH = re.compile(rf"(?<![\w./:@~-])((?:{_FIRST})/[\w./-]*[\w/])")
_MARKDOWN = re.compile(r"(?<![\w./-])([\w-]+\.md)\b")  # a bare file name: README.md
_MODULE = re.compile(r"(?<![\w./-])(evaluator(?:\.\w+)+)")
# A name said to be in a file: "`_BUILDERS` in `runner/grading.py`", "cli/grade_driver.py:_make_grader"
_NAME_IN = re.compile(r"`(\w+)` in `([\w/.]+\.py)`")
_FILE_NAME = re.compile(r"(?<![\w/.-])([\w/.]+\.py):([A-Za-z_]\w*)")
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
_SKIP_DIRS = {".git", "__pycache__", ".venv", "node_modules", ".pytest_cache", "results"}


def _files(suffix: str) -> Iterator[Path]:
    for path in sorted(ROOT.rglob(f"*{suffix}")):
        if not _SKIP_DIRS & set(path.relative_to(ROOT).parts):
            yield path


def python_prose(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of a Python source's comments and docstrings."""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                first = node.body[0].lineno
                yield from enumerate(docstring.splitlines(), first)


def markdown_prose(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of a Markdown file."""
    yield from enumerate(text.splitlines(), 1)


def _is_path(match: re.Match[str]) -> bool:
    """Whether a match names a file or folder of ours: one with an extension, a trailing
    slash or two, and no pattern after it (``results/x[_<join>].json``, ``tests/s``)."""
    path, after = match.group(1), match.string[match.end() : match.end() + 1]
    if after in ("[", "<", "{", "*") or any(path.startswith(o) for o in OUTSIDE):
        return False
    return "." in path.rsplit("/", 1)[-1] or path.endswith("/") or path.count("/") >= 2


def _exists(path: str, where: Path) -> bool:
    """Whether ``path`` is in the repository, from its root, from the file naming it, or (a
    path starting with a subpackage's name) from the package; a path in a folder the package
    does not have is another project's (SandboxFusion's ``sandbox/runners/base.py``)."""
    path = path.rstrip(".")
    if (ROOT / path).exists() or (where.parent / path).exists():
        return True
    first = path.split("/")[0]
    if first in ROOTS:
        return False
    inside = ROOT / "evaluator" / path.rstrip("/")
    return inside.exists() or not inside.parent.is_dir()


_NAMES = {p.name for p in ROOT.rglob("*.md")}


def _file(path: str, where: Path) -> Path | None:
    """The repository's file ``path`` names (see :func:`_exists`), if it is one."""
    for candidate in (ROOT / path, where.parent / path, ROOT / "evaluator" / path):
        if candidate.is_file():
            return candidate
    return None


def _module_exists(dotted: str) -> bool:
    """A module, or a module and one or two attributes of it (a class, its method)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_path = ROOT.joinpath(*parts[:cut])
        if module_path.with_suffix(".py").exists() or (module_path / "__init__.py").exists():
            rest = parts[cut:]
            if not rest:
                return True
            if len(rest) > 2:
                return False
            try:
                value = importlib.import_module(".".join(parts[:cut]))
                for name in rest:
                    value = getattr(value, name)
            except (ImportError, AttributeError):
                return False
            return True
    return False


def stale(text: str, where: Path, prose) -> list[str]:
    """The references in ``text`` (a file at ``where``) to repository paths, Markdown links
    and modules that do not exist."""
    name = where.relative_to(ROOT).as_posix() if where.is_relative_to(ROOT) else where.name
    found = []
    for number, chunk in prose(text):
        for match in _PATH.finditer(chunk):
            path = match.group(1)
            if _is_path(match) and not _exists(path, where):
                found.append(f"{name}:{number} {path}")
        for match in _MARKDOWN.finditer(chunk):
            if match.group(1) not in _NAMES:
                found.append(f"{name}:{number} {match.group(1)}")
        if where.suffix == ".md":
            for match in _LINK.finditer(chunk):
                target = match.group(1)
                if "://" in target or target.startswith(("mailto:", "#")):
                    continue
                if any(target.startswith(o) for o in OUTSIDE):
                    continue
                if not (where.parent / target).exists():
                    found.append(f"{name}:{number} {target}")
        said = [(m.group(1), m.group(2)) for m in _NAME_IN.finditer(chunk)]
        said += [(m.group(2), m.group(1)) for m in _FILE_NAME.finditer(chunk)]
        for symbol, path in said:
            holder = _file(path, where)
            if holder is not None and not re.search(rf"\b{symbol}\b", holder.read_text()):
                found.append(f"{name}:{number} {path}:{symbol}")
        for match in _MODULE.finditer(chunk):
            dotted = match.group(1).rstrip(".")
            if not _module_exists(dotted):
                found.append(f"{name}:{number} {dotted}")
    number_of = lambda line: int(line.split(" ", 1)[0].rsplit(":", 1)[1])  # noqa: E731
    return sorted(dict.fromkeys(found), key=number_of)


def _sources() -> list[tuple[Path, object]]:
    sources: list[tuple[Path, object]] = [(p, markdown_prose) for p in _files(".md")]
    return sources + [(p, python_prose) for p in _files(".py")]


def test_every_reference_to_the_repository_exists():
    offenders = [
        found
        for path, prose in _sources()
        for found in stale(path.read_text(encoding="utf-8"), path, prose)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("suffix", "text", "expected"),
    [
        (".md", "See `docs/grading-rules.md` and `docs/plain-run.md`.", ["docs/grading-rules.md"]),
        (".md", "[rules](plain-run.md#environments), [gone](nothing.md)", ["nothing.md"]),
        (".md", "`cli/outputs.py` beside `runner/outputs.py`", ["cli/outputs.py"]),
        (".md", "`lcb_runner/evaluation/testing_util.py`, https://x.org/tests/a.py", []),
        (".md", "[shared](../shared/docs/x.md)", []),
        (".md", "`_BUILDERS` in `runner/grading.py`, `_GONE` in `runner/grading.py`",
         ["runner/grading.py:_GONE"]),
        (".md", "cli/grade_driver.py:_make_grader, cli/grade_driver.py:_gone",
         ["cli/grade_driver.py:_gone"]),
        (".md", "evaluator.harness.child, evaluator.sandbox.inside.harness", ["evaluator.harness.child"]),
        (".md", "evaluator.sandbox.Job.to_wire and evaluator.sandbox.Job.gone", ["evaluator.sandbox.Job.gone"]),
        (".py", '"""Built by tests/cpp/test_build.py."""\nx = "tests/none.py"  # docs/none.md\n',
         ["tests/cpp/test_build.py", "docs/none.md"]),
    ],
)  # fmt: skip
def test_a_missing_reference_is_found(tmp_path, suffix, text, expected):
    where = ROOT / "docs" / f"probe{suffix}"
    prose = markdown_prose if suffix == ".md" else python_prose
    assert [f.split(" ", 1)[1] for f in stale(text, where, prose)] == expected
