"""``mcevaluate serve``: the grader as an HTTP service that RL stacks already call.

Endpoints (details in ``docs/service.md``):

* ``POST /run_code``: SandboxFusion's, one program on one stdin (verl's ``sandbox_fusion``
  reward sends one per test);
* ``POST /submit``: SandboxFusion's, one completion against a problem's stdin tests given in
  ``config.provided_data``;
* ``POST /grade``: ours, a whole batch of problems and samples in one request, answered with
  the rows ``mcevaluate grade`` writes;
* ``GET /health`` and SandboxFusion's ``GET /v1/ping``.

Needs the optional extra ``serve`` (uvicorn and Starlette); importing :mod:`evaluator` does
not import it. Imported lazily: each name is imported from its module on first use, so that the
command line takes :mod:`.server_defaults` at its start without importing either.
"""

from __future__ import annotations

from evaluator.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "DEFAULT_MAX_BODY": ".server_defaults",
        "Settings": ".app",
        "create_app": ".app",
        "is_loopback": ".uvicorn_server",
        "serve": ".uvicorn_server",
    },
)
