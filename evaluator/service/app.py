"""The ASGI application behind ``mcevaluate serve`` (Starlette, served by uvicorn).

One :class:`Service` holds the server's state: a warm sandbox pool for grading (one fork
server per worker: verdicts by CPU time), a pool for ``/run_code``'s programs that runs up to
``Settings.programs`` at once whatever the workers (each held to its ``run_timeout`` of wall
time, as SandboxFusion holds it, so a looping program cannot make a short one wait behind it),
both started with the application and closed after the last request drains, and the
:class:`~.gate.Gate` that bounds how many requests are served at once. Every endpoint but
``/health`` and ``/v1/ping`` asks for the bearer token when one is set. A request that cannot
be served gets a 4xx with ``{"error": "<one line>"}``; a full queue gets 503 with
``Retry-After`` (504 on SandboxFusion's endpoints: what its clients retry); a request whose
client goes away is cancelled, its program killed; each request is logged in one line at
info level.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from evaluator.formats.inflate import shared_budget
from evaluator.languages import runtimes
from evaluator.languages.builds import Builder
from evaluator.problem import DEFAULT_MEMORY_LIMIT
from evaluator.runner import GradeOptions, Grader
from evaluator.runner.run import grader_version
from evaluator.sandbox import DEFAULT_PROFILE, SandboxPool

from . import grade_endpoint
from .cancel import Gone, unless_gone
from .compat import e2b, nemo_gym, openrlhf, piston, sandbox_fusion, slime
from .compat.fusion_requests import Unprocessable
from .errors import BadRequest, Busy
from .gate import Gate
from .server_defaults import DEFAULT_MAX_BODY, DEFAULT_MAX_WAITING, DEFAULT_PROGRAMS

__all__ = ["DEFAULT_MAX_BODY", "Service", "Settings", "create_app"]

log = logging.getLogger("mcevaluate.serve")

_RETRIED_AS_504 = frozenset({"/run_code", "/submit"})  # SandboxFusion's: see _endpoint


@dataclass(frozen=True, slots=True)
class Settings:
    """How the server runs. ``programs``: ``/run_code`` programs run at once (default
    :data:`DEFAULT_PROGRAMS`, at least four per worker); ``max_running``: requests served at
    once (default: four per worker plus ``programs``); ``max_waiting``: requests queued
    beyond those before a 503."""

    workers: int | None = None
    programs: int | None = None
    token: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    max_running: int | None = None
    max_waiting: int = DEFAULT_MAX_WAITING
    memory_limit: int = DEFAULT_MEMORY_LIMIT  # MB, for a /run_code that gives none
    profile: str = DEFAULT_PROFILE
    # take checkers that run outside the sandbox (program, codeforces) from clients
    trust_checkers: bool = False


class Service:
    """The server's state: one warm pool for every request, and the gate."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pool: SandboxPool | None = None
        self.programs: SandboxPool | None = None  # /run_code's: see the module's notes
        self.gate: Gate | None = None
        self._builder: Builder | None = None
        self.stopping = False  # a stop was asked (server.serve): requests cut are answered 503

    @property
    def builder(self) -> Builder:
        """Where compiled languages' programs are built, for every request (one cache, one
        precompiled header): started on the first such program."""
        assert self.pool is not None
        if self._builder is None:  # requests run on the event loop's thread: no race
            self._builder = Builder(self.pool.size)
            piston.trust_runtimes(self._builder)
        return self._builder

    async def start(self) -> None:
        settings = self.settings
        workers = settings.workers or os.cpu_count() or 1
        programs = settings.programs or max(DEFAULT_PROGRAMS, 4 * workers)
        # The programs' servers are not pinned (more of them than cores: the kernel shares
        # the cores out) and, past one per worker, start when needed and retire when idle.
        self.pool, self.programs = await asyncio.gather(
            asyncio.to_thread(
                SandboxPool, workers=workers, profile=settings.profile, runtimes=runtimes()
            ),
            asyncio.to_thread(
                SandboxPool,
                workers=programs,
                profile=settings.profile,
                pin=False,
                start=min(workers, programs),
                runtimes=runtimes(),
            ),
        )
        running = settings.max_running or 4 * workers + programs
        self.gate = Gate(running, settings.max_waiting)
        log.info(
            "sandbox pool ready: %d workers, %d /run_code programs and %d requests at once",
            workers,
            programs,
            running,
        )

    async def stop(self) -> None:
        if self._builder is not None:
            await asyncio.to_thread(self._builder.close)
        pools = [pool for pool in (self.programs, self.pool) if pool is not None]
        if pools:
            await asyncio.gather(*(asyncio.to_thread(pool.close) for pool in pools))
            log.info("sandbox pool closed")

    def grader(self, options: GradeOptions) -> Grader:
        assert self.pool is not None
        return Grader(options, pool=self.pool, builder=self.builder)


# --- plumbing: token, body, JSON, errors, the log line --------------------------------------------


def _json(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    data = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    return Response(data, status_code=status, media_type="application/json", headers=headers)


def _error(status: int, line: str, headers: dict[str, str] | None = None) -> Response:
    return _json({"error": line}, status, headers)


async def _body(request: Request, limit: int) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _TooLarge(int(declared), limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge(size, limit)
        chunks.append(chunk)
    try:
        return orjson.loads(b"".join(chunks))
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"malformed JSON: {exc}") from None


Handler = Callable[[Service, Any], Awaitable[tuple[Any, str]]]


async def _gated(service: Service, handler: Handler, body: Any) -> tuple[Any, str]:
    """``handler``'s answer, in its turn at the gate. What the request's problems hold
    compressed (LiveCodeBench's private tests) inflates, in all, within one bound
    (:func:`~evaluator.formats.inflate.shared_budget`, which the threads the handler hands
    its decoding to share), besides each field's own: a body is never inflated whole."""
    assert service.gate is not None
    async with service.gate.turn():
        with shared_budget():
            return await handler(service, body)


class _TooLarge(Exception):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"request body over {limit} bytes (--max-body); got at least {size}")


def _authorised(request: Request, token: str | None) -> bool:
    if token is None:
        return True
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    # As bytes: compare_digest refuses str with non-ASCII characters (a 500 for a bad token)
    sent = value.strip().encode("utf-8", "surrogateescape")
    return scheme.lower() == "bearer" and hmac.compare_digest(sent, token.encode("utf-8"))


def _endpoint(
    service: Service, handler: Handler, fusion: bool = False
) -> Callable[[Request], Awaitable[Response]]:
    """``handler(service, body) -> (response, what)`` behind the token, the body limit and the
    gate; ``what`` ends the request's log line. ``fusion``: one of SandboxFusion's endpoints,
    whose unreadable bodies get its 422 ``{"detail"}`` (and our ``error`` line)."""

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        status, what = 500, ""
        try:
            if not _authorised(request, service.settings.token):
                status, what = 401, "bad or missing bearer token"
                return _error(401, what, {"WWW-Authenticate": "Bearer"})
            try:
                body = await _body(request, service.settings.max_body)
            except BadRequest as exc:
                if not fusion:
                    raise
                raise Unprocessable(
                    [{"type": "json_invalid", "loc": ["body"], "msg": str(exc), "input": {}}]
                ) from None
            answer, what = await unless_gone(request, _gated(service, handler, body))
            status = 200
            return _json(answer)
        except Unprocessable as exc:
            status, what = 422, str(exc)
            return _json({"detail": exc.detail, "error": what}, 422)
        except BadRequest as exc:
            status, what = 400, str(exc)
            return _error(400, what)
        except ClientDisconnect:
            status, what = 499, "the client went away before its request was read"
            return Response(status_code=499)
        except Gone:
            status, what = 499, "the client went away: its request was cancelled"
            return Response(status_code=499)
        except _TooLarge as exc:
            status, what = 413, str(exc)
            return _error(413, what)
        except Busy as exc:
            # SandboxFusion's clients retry a 504 (verl's call_sandbox_api retries only that:
            # what a gateway in front of a busy SandboxFusion answers), not a 503
            status, what = 504 if request.url.path in _RETRIED_AS_504 else 503, str(exc)
            return _error(status, what, {"Retry-After": "1"})
        except asyncio.CancelledError:
            if not service.stopping:
                raise
            # cut at the end of a stop's drain (serve --drain-seconds): an answer, not a 500
            status, what = 503, "the server is stopping: the request was cut at the drain's end"
            return _error(503, what, {"Retry-After": "1", "Connection": "close"})
        except Exception as exc:  # noqa: BLE001 - the server answers the next request
            log.exception("internal error")
            status, what = 500, f"internal error: {type(exc).__name__}: {exc}"
            return _error(500, what)
        finally:
            took = time.perf_counter() - started
            log.info("%s %s %d %.3fs %s", request.method, request.url.path, status, took, what)

    return endpoint


# --- endpoints ---------------------------------------------------------------------------------


async def grade(service: Service, body: Any) -> tuple[dict[str, Any], str]:
    run, notes, records = grade_endpoint.plan(body, trust_checkers=service.settings.trust_checkers)
    with service.grader(run.options) as grader:
        answer = await asyncio.to_thread(grade_endpoint.grade_batch, run, notes, grader, records)
    summary = answer["summary"]
    return answer, f"{summary.get('samples', 0)} samples, pass@1 {summary.get('pass@1')}"


async def health(request: Request) -> Response:
    service: Service = request.app.state.service
    gate = service.gate
    return _json(
        {
            "status": "ok" if service.pool is not None else "starting",
            "version": grader_version(),
            "workers": service.pool.size if service.pool is not None else 0,
            "running": gate.running if gate else 0,
            "waiting": gate.waiting if gate else 0,
        }
    )


async def ping(request: Request) -> Response:
    return _json("pong")  # SandboxFusion's liveness probe: FastAPI writes its "pong" as JSON


def create_app(settings: Settings | None = None) -> Starlette:
    """The application; its pool starts with the server (lifespan) and closes after it."""
    service = Service(settings or Settings())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/v1/ping", ping, methods=["GET"]),
        Route(
            "/run_code", _endpoint(service, sandbox_fusion.run_code, fusion=True), methods=["POST"]
        ),
        Route("/submit", _endpoint(service, sandbox_fusion.submit, fusion=True), methods=["POST"]),
        Route("/grade", _endpoint(service, grade), methods=["POST"]),
        # RL frameworks' reward models by URL: OpenRLHF's --reward.remote_url, slime's --rm-url
        Route("/get_reward", _endpoint(service, openrlhf.get_reward), methods=["POST"]),
        Route("/slime/reward", _endpoint(service, slime.slime_reward), methods=["POST"]),
        # NeMo-Gym's code_gen resources server (its agents call /seed_session, then /verify)
        Route("/verify", _endpoint(service, nemo_gym.verify, fusion=True), methods=["POST"]),
        Route("/seed_session", _endpoint(service, nemo_gym.seed_session), methods=["POST"]),
        # open-r1: its E2B router's batch, and Piston's execute API (the codeforces package)
        Route(
            "/execute_batch", _endpoint(service, e2b.execute_batch, fusion=True), methods=["POST"]
        ),
        Route(
            "/api/v2/execute",
            piston.with_message(_endpoint(service, piston.execute)),
            methods=["POST"],
        ),
        Route(
            "/api/v2/runtimes",
            piston.runtimes_endpoint(lambda r: _authorised(r, service.settings.token)),
            methods=["GET"],
        ),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.service = service
    return app
