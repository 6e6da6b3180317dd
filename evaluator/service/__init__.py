"""``mcevaluate serve``: the grader as an HTTP service that RL stacks already call.

Endpoints (details in README's "Use it as a service"):

* ``POST /run_code``: SandboxFusion's, one program on one stdin (verl's ``sandbox_fusion``
  reward sends one per test);
* ``POST /submit``: SandboxFusion's, one completion against a problem's stdin tests given in
  ``config.provided_data``;
* ``POST /grade``: ours, a whole batch of problems and samples in one request, answered with
  the rows ``mcevaluate grade`` writes;
* ``GET /health`` and SandboxFusion's ``GET /v1/ping``.

Needs the optional extra ``serve`` (uvicorn and Starlette); importing :mod:`evaluator` does
not import it.
"""

from __future__ import annotations

from evaluator.service.app import DEFAULT_MAX_BODY, Settings, create_app
from evaluator.service.uvicorn_server import is_loopback, serve

__all__ = ["DEFAULT_MAX_BODY", "Settings", "create_app", "is_loopback", "serve"]
