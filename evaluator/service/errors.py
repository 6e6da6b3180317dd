"""What a request can do wrong, as one line for its client."""

from __future__ import annotations


class BadRequest(ValueError):
    """The request cannot be served as sent; the text names the field (HTTP 400)."""

    status = 400


class Busy(RuntimeError):
    """Every slot is taken and the queue is full: try again later (HTTP 503)."""

    status = 503
