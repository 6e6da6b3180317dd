"""A request whose client has gone away is cancelled (issue 43).

verl sends one ``/run_code`` per test with its own client timeout and scores a late one as
failed; without this, the request it gave up on went on waiting for a turn, then ran to its
limit, answered to nobody, while live requests waited behind it.

* :func:`unless_gone`: a request's work, cancelled as soon as its client disconnects (the
  handler sees ``CancelledError``: a wait for a turn is dropped, a program run through
  :meth:`SandboxPool.run_async` killed, its worker free at once).
* :func:`graded`: a grader's result awaited so that such a cancellation leaves the grader's
  future alone (its runs end within their limits).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from concurrent.futures import Future
from typing import TypeVar

from starlette.requests import Request

from evaluator.runner import GradeResult

__all__ = ["Gone", "graded", "unless_gone"]

T = TypeVar("T")


class Gone(Exception):
    """The client went away before its answer was ready; its work was cancelled."""


async def _disconnected(request: Request) -> None:
    """Return once the client has gone away. Called after the body is read: the request's
    channel then holds nothing more until the server's ``http.disconnect`` (uvicorn sends it
    when the connection closes, or once the answer is sent)."""
    while (await request.receive())["type"] != "http.disconnect":
        await asyncio.sleep(0.05)  # never a busy loop, whatever a server sends


async def unless_gone(request: Request, work: Awaitable[T]) -> T:
    """``work``'s value, or :class:`Gone` as soon as the client has gone away, ``work`` then
    cancelled. If this coroutine is itself cancelled (a stop's drain cuts the request),
    ``work`` is cancelled with it."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not task.done():
            task.cancel()
    if not task.done():
        await asyncio.wait({task})  # its program stopped before the request's log line
        raise Gone
    return task.result()


async def graded(future: Future[GradeResult]) -> GradeResult:
    """``future``'s result (a :meth:`Grader.submit`'s). A request cancelled meanwhile (its
    client gone, a stop's drain) leaves the future alone: the grader sets it when the runs
    end, within their limits, and one cancelled under it would fail there."""
    return await asyncio.shield(asyncio.wrap_future(future))
