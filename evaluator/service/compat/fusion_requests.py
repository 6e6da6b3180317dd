"""SandboxFusion's request bodies, read as leniently as its server reads them.

SandboxFusion's server (bytedance/SandboxFusion at 469de08) declares its requests as pydantic
models (``sandbox/server/sandbox_api.py``'s ``RunCodeRequest``; ``sandbox/datasets/types.py``'s
``SubmitRequest`` and ``TestConfig``) and FastAPI validates them in pydantic's lax mode:
``"stdin": null`` is no stdin, ``"run_timeout": "5"`` is 5.0, ``"memory_limit_MB": 512.0`` is
512. The models below declare the same fields with the same types and defaults, so the same
bodies are accepted; a body theirs refuses is refused here with their status and shape, 422
``{"detail": [{"type", "loc", "msg", "input"}]}`` (FastAPI's), plus our one-line ``error``.
Beyond their checks, ours (the limits this server will run, base64 files) answer the same
way, their ``loc`` naming the field.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluator.default_limits import MAX_TIME_LIMIT, memory_limit_fault, time_limit_fault
from evaluator.sandbox.jobs import check_paths

__all__ = [
    "DEFAULT_TIMEOUT",
    "FILES_BYTES",
    "MAX_FILES",
    "MAX_TIMEOUT",
    "RunCodeRequest",
    "SubmitRequest",
    "Unprocessable",
    "given_files",
    "parse",
]

DEFAULT_TIMEOUT = 10.0  # seconds: SandboxFusion's default compile and run timeouts
MAX_TIMEOUT = MAX_TIME_LIMIT  # seconds: a request asking more is refused rather than held

Language = Literal[
    "python", "python2", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash",
    "typescript", "sql", "rust", "cuda", "lua", "R", "perl", "D_ut", "ruby", "scala", "julia",
    "pytest", "junit", "kotlin_script", "jest", "verilog", "python_gpu", "lean", "swift",
    "racket", "gtest", "react",
]  # fmt: skip
"""SandboxFusion's languages (its ``Language`` literal): a request naming another is refused."""


class Unprocessable(ValueError):
    """A body SandboxFusion's validation would refuse (HTTP 422): FastAPI's ``detail`` list,
    and one line for our log and ``error``."""

    status = 422

    def __init__(self, detail: list[dict[str, Any]]) -> None:
        self.detail = detail
        first = detail[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "body"
        super().__init__(f"field {where!r}: {first['msg']}")


class _Lax(BaseModel):
    # SandboxFusion's models ignore unknown fields (pydantic's default): so do these.
    model_config = ConfigDict(extra="ignore")


class RunCodeRequest(_Lax):
    compile_timeout: float = DEFAULT_TIMEOUT
    run_timeout: float = DEFAULT_TIMEOUT
    memory_limit_MB: int = -1
    code: str
    stdin: str | None = None
    language: Language
    files: dict[str, str | None] = Field(default_factory=dict)
    fetch_files: list[str] = Field(default_factory=list)


class TestConfig(_Lax):
    __test__ = False  # not a pytest class

    dataset_type: str | None = None
    language: Language | None = None
    locale: str | None = None
    is_fewshot: bool | None = None
    compile_timeout: float | None = None
    run_timeout: float | None = None
    custom_extract_logic: str | None = None
    provided_data: list[dict[str, Any]] | dict[str, Any] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class SubmitRequest(_Lax):
    dataset: str
    id: int | str
    completion: str
    config: TestConfig


def parse(model: type[_Lax], body: Any) -> Any:
    """``body`` as ``model``, validated as SandboxFusion validates it, then our own checks;
    :class:`Unprocessable` otherwise."""
    try:
        request = model.model_validate(body)
    except ValidationError as exc:
        raise Unprocessable(_detail(exc)) from None
    _check_limits(request, body)
    return request


def _detail(exc: ValidationError) -> list[dict[str, Any]]:
    """FastAPI's ``detail``: pydantic's errors with ``body`` first in each ``loc``."""
    detail = []
    for error in exc.errors(include_url=False, include_context=False):
        detail.append(
            {
                "type": error["type"],
                "loc": ["body", *error["loc"]],
                "msg": error["msg"],
                "input": _jsonable(error.get("input")),
            }
        )
    return detail


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict | list):
        return value
    return repr(value)


def _our_error(loc: tuple[str, ...], message: str, value: Any) -> Unprocessable:
    return Unprocessable(
        [{"type": "value_error", "loc": ["body", *loc], "msg": message, "input": value}]
    )


def _timeout(value: float | None, loc: tuple[str, ...]) -> None:
    fault = None if value is None else time_limit_fault(value)
    if fault is not None:
        raise _our_error(loc, fault, value)


def _memory(value: int, loc: tuple[str, ...]) -> None:
    # Not positive: SandboxFusion's "no limit" (this server's own ceiling, serve --memory-limit).
    fault = memory_limit_fault(value) if value > 0 else None
    if fault is not None:
        raise _our_error(loc, fault, value)


MAX_FILES = 256
"""Paths a ``/run_code`` may give in ``files``, and as many in ``fetch_files``."""
FILES_BYTES = 16 << 20
"""Bytes of ``files`` a ``/run_code`` may give, decoded, in all (the body's own cap,
``serve --max-body``, holds them base64-encoded)."""


def given_files(request: RunCodeRequest) -> dict[str, bytes]:
    """``files`` as SandboxFusion writes them (``sandbox/runners/base.py``'s
    ``restore_files`` at 469de08): a ``null`` content is no file, a path holding
    ``IGNORE_THIS_FILE`` is skipped, base64 decoded leniently (characters outside its
    alphabet dropped, as ``base64.b64decode`` does by default). Raises
    :class:`Unprocessable` naming the path for bad base64 (theirs: a ``SandboxError``), a
    path outside the run directory (theirs writes there), or past our caps."""
    files: dict[str, bytes] = {}
    total = 0
    for path, content in request.files.items():
        if content is None or "IGNORE_THIS_FILE" in path:
            continue
        try:
            data = base64.b64decode(content)
        except (binascii.Error, ValueError):
            raise _our_error(("files", path), "not base64 text", content[:60]) from None
        total += len(data)
        if total > FILES_BYTES:
            raise _our_error(("files", path), f"files over {FILES_BYTES} bytes in all", path)
        files[path] = data
    if len(files) > MAX_FILES or len(request.fetch_files) > MAX_FILES:
        where = "files" if len(files) > MAX_FILES else "fetch_files"
        raise _our_error((where,), f"at most {MAX_FILES} paths", len(getattr(request, where)))
    for where, given, fetched in (("files", files, []), ("fetch_files", {}, request.fetch_files)):
        try:  # the sandbox's own rule for the paths of a run directory
            check_paths(given, fetched)
        except ValueError as exc:
            raise _our_error((where,), str(exc), None) from None
    return files


def _check_limits(request: Any, body: Any) -> None:
    if isinstance(request, RunCodeRequest):
        _timeout(request.run_timeout, ("run_timeout",))
        _timeout(request.compile_timeout, ("compile_timeout",))
        _memory(request.memory_limit_MB, ("memory_limit_MB",))
        given_files(request)
    elif isinstance(request, SubmitRequest):
        _timeout(request.config.run_timeout, ("config", "run_timeout"))
        _timeout(request.config.compile_timeout, ("config", "compile_timeout"))
