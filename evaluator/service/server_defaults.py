"""The defaults of ``mcevaluate serve`` (:class:`.app.Settings` and
:func:`.uvicorn_server.serve`), written once.

Plain constants in a module that imports nothing: the command line takes them when it starts
without importing Starlette or uvicorn (``evaluator.service`` exports its names lazily)."""

from __future__ import annotations

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY",
    "DEFAULT_MAX_WAITING",
    "DEFAULT_PORT",
    "DEFAULT_PROGRAMS",
    "DRAIN_SECONDS",
]

DEFAULT_HOST = "127.0.0.1"
"""The address bound: loopback only (any other needs a token)."""
DEFAULT_PORT = 8080
DEFAULT_MAX_BODY = 64 << 20
"""Largest request body, bytes: a large RL batch fits; a runaway client does not."""
DEFAULT_PROGRAMS = 64
"""``/run_code`` programs run at once (at least four per worker): verl's default
``reward.sandbox_fusion.max_concurrent``, so that its requests never wait for a turn."""
DEFAULT_MAX_WAITING = 512
"""Requests queued beyond those served before more are answered 503."""
DRAIN_SECONDS = 10.0
"""How long a stop waits for the requests in flight (``serve --drain-seconds``): past it they
are cut. Longer than a verl ``/run_code`` takes at SandboxFusion's default limits (10 s to
compile, 10 s to run is the rare worst case), shorter than the 30 s that container
supervisors commonly allow between SIGTERM and SIGKILL."""
