"""Running the application under uvicorn: the bind rule, logging, and a bounded stop.

SIGTERM and SIGINT stop accepting connections and let the requests in flight finish for at
most ``drain_seconds`` (:data:`.server_defaults.DRAIN_SECONDS`); those still running then are
cut (their connections closed, their tasks cancelled), and the sandbox pool closes (the
application's lifespan). :func:`serve` then returns: the process exits 0, where uvicorn alone would raise
the signal again and end by it (143), even when it stopped idle."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import signal
import socket
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from evaluator.service.app import Settings, create_app
from evaluator.service.server_defaults import DEFAULT_HOST, DEFAULT_PORT, DRAIN_SECONDS

__all__ = ["DRAIN_SECONDS", "is_loopback", "serve"]

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

log = logging.getLogger("mcevaluate.serve")


def _stopper(base: type) -> type:
    """uvicorn's ``Server`` that takes SIGTERM/SIGINT as a request to stop and leaves it
    there: the process ends by returning, exit status 0, once the stop is done. (uvicorn
    raises the signal again after its shutdown, so that the exit status says why; for this
    service a drained stop is the expected end, and a supervisor reads 143 as a failure.)"""

    class Stopper(base):  # type: ignore[misc, valid-type]
        drain_seconds = DRAIN_SECONDS
        service: Any = None  # the application's Service: told when a stop begins

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield  # signals reach only the main thread: nothing to take over
                return
            previous = {sig: signal.signal(sig, self.on_signal) for sig in _STOP_SIGNALS}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

        def on_signal(self, sig: int, frame: FrameType | None) -> None:
            if not self.should_exit:
                name = signal.Signals(sig).name
                log.info(
                    "%s: stopping; requests in flight have %g s to finish", name, self.drain_seconds
                )
                if self.service is not None:
                    self.service.stopping = True
            self.handle_exit(sig, frame)  # a second SIGINT forces the exit, as uvicorn's
            self._captured_signals.clear()  # never raised again after the stop: see above

    return Stopper


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
        except OSError:
            return False
        return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


def serve(
    settings: Settings,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    drain_seconds: float = DRAIN_SECONDS,
    log_level: str = "info",
) -> None:
    """Serve until SIGTERM or SIGINT, then stop within ``drain_seconds`` of the requests in
    flight (see the module's notes). A non-loopback ``host`` needs ``settings.token``."""
    import uvicorn

    if not is_loopback(host) and not settings.token:
        raise ValueError(f"refusing to bind {host} without --token: only loopback is open")
    logging.basicConfig(
        level=getattr(logging, log_level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,  # our own line per request says more (see app._endpoint)
        timeout_graceful_shutdown=drain_seconds,
        lifespan="on",
    )
    server: Any = _stopper(uvicorn.Server)(config)
    server.drain_seconds, server.service = drain_seconds, app.state.service
    server.run()
