"""``mcevaluate serve``: the grader as an HTTP service (:mod:`evaluator.service`)."""

from __future__ import annotations

import click

from evaluator.sandbox import DEFAULT_PROFILE
from evaluator.service.server_defaults import (
    DEFAULT_HOST,
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_WAITING,
    DEFAULT_PORT,
    DEFAULT_PROGRAMS,
    DRAIN_SECONDS,
)

__all__ = ["serve"]


@click.command()
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Sandbox fork servers for grading (default: one per core).",
)
@click.option(
    "--programs",
    type=click.IntRange(min=1),
    default=None,
    help="/run_code programs run at once, sharing the cores, each held to its run_timeout of "
    f"wall time as SandboxFusion holds it (default: {DEFAULT_PROGRAMS}, verl's default "
    "concurrency, or four per worker if more); their servers start when needed and retire "
    "when idle.",
)
@click.option(
    "--token",
    envvar="MCEVALUATE_TOKEN",
    default=None,
    help="Bearer token every client must send (env MCEVALUATE_TOKEN); required to bind an "
    "address other than loopback.",
)
@click.option(
    "--max-body",
    type=click.IntRange(min=1),
    default=None,
    help=f"Largest request body in MB (default {DEFAULT_MAX_BODY >> 20}); a larger one is "
    "answered 413.",
)
@click.option(
    "--max-queue",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_WAITING,
    show_default=True,
    help="Requests waiting for a turn before more are answered 503 (504 at /run_code and "
    "/submit, which SandboxFusion's clients retry).",
)
@click.option(
    "--profile", default=DEFAULT_PROFILE, show_default=True, help="Sandbox profile (name or path)."
)
@click.option(
    "--trust-checkers",
    is_flag=True,
    help="Take from clients problems whose checker runs outside the sandbox (a 'program' on "
    "this host, a Codeforces checker's Python): only for clients you would let run code here.",
)
@click.option(
    "--drain-seconds",
    type=click.FloatRange(min=0),
    default=DRAIN_SECONDS,
    show_default=True,
    help="On SIGTERM or SIGINT, how long the requests in flight may go on; past it they are "
    "cut. The process then exits 0.",
)
def serve(
    host,
    port,
    workers,
    programs,
    token,
    max_body,
    max_queue,
    profile,
    trust_checkers,
    drain_seconds,
) -> None:
    """Serve the grader over HTTP: SandboxFusion's /run_code and /submit, our batch /grade,
    /health. On SIGTERM it stops taking requests, lets those in flight finish (at most
    --drain-seconds) and exits 0.

    \b
    Examples:
      mcevaluate serve
      mcevaluate serve --port 8080 --workers 8
      MCEVALUATE_TOKEN=secret mcevaluate serve --host 0.0.0.0
    verl: reward.sandbox_fusion.url=http://127.0.0.1:8080/run_code
    """
    try:
        from evaluator.service import Settings
        from evaluator.service import serve as run_server
    except ImportError as exc:
        raise click.ClickException(
            f'serve needs uvicorn and Starlette: pip install "microcoder[serve]" ({exc})'
        ) from None
    settings = Settings(
        workers=workers,
        programs=programs,
        token=token or None,
        max_body=max_body << 20 if max_body else DEFAULT_MAX_BODY,
        max_waiting=max_queue,
        profile=profile,
        trust_checkers=trust_checkers,
    )
    try:
        run_server(settings, host=host, port=port, drain_seconds=drain_seconds)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
