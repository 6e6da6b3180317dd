"""Bounded concurrency: at most ``running`` requests grade at once and at most ``waiting``
wait for a turn; one more is refused at once (:class:`~.errors.Busy`, HTTP 503 with
``Retry-After``) rather than left hanging on an overloaded server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from .errors import Busy


class Gate:
    def __init__(self, running: int, waiting: int) -> None:
        self.limit = max(1, running)
        self.max_waiting = max(0, waiting)
        self.running = 0
        self.waiting = 0
        self._slots = asyncio.Semaphore(self.limit)

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """A slot for one request; :class:`Busy` when the queue is already full."""
        if self._slots.locked() and self.waiting >= self.max_waiting:
            raise Busy(f"server busy: {self.running} running, {self.waiting} waiting")
        self.waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1
            self._slots.release()
