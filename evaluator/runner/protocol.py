"""What the run asks of a grader: :class:`ProgramGrader`, implemented by this machine's
:class:`~evaluator.runner.Grader` and by :class:`~evaluator.backends.ray_backend.RayGrader`,
which write ``submit`` and inherit the rest from
:class:`~evaluator.runner.grading.BaseGrader` (``grade``, ``imap``, ``grade_many``, written
once)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from evaluator.languages import Language
from evaluator.problem import Problem

if TYPE_CHECKING:
    from typing import Self

    from evaluator.runner.grading import GradeOptions, GradeResult

__all__ = ["ProgramGrader"]


@runtime_checkable
class ProgramGrader(Protocol):
    """Grades programs against problems; a context manager that closes what it started."""

    options: GradeOptions

    @property
    def capacity(self) -> int:
        """How many programs it runs at once (callers size their queues by it)."""
        ...

    def submit(
        self, problem: Problem, code: str | None, language: Language | str | None = None
    ) -> Future[GradeResult]:
        """Start grading one program (``code`` None: the answer held no code) written in
        ``language`` (its :class:`~evaluator.languages.Language`, as a run resolved it; or a
        name or code-fence tag of :mod:`evaluator.languages`; None: Python); never blocks
        for long. The future raises only when the grading machinery
        itself failed."""
        ...

    def grade(
        self, problem: Problem, code: str | None, language: Language | str | None = None
    ) -> GradeResult:
        """Grade one program and wait for its result."""
        ...

    def grade_many(
        self,
        items: Iterable[
            tuple[Problem, str | None] | tuple[Problem, str | None, Language | str | None]
        ],
        progress: Callable[[GradeResult], None] | None = None,
    ) -> list[GradeResult]:
        """Grade in parallel (items: ``(problem, code)`` or ``(problem, code, language)``);
        results in input order; ``progress`` per finished result."""
        ...

    def close(self) -> None:
        """Finish what was submitted and stop what this grader started."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc_info: object) -> None: ...
