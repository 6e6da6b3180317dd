"""Running the application under uvicorn: the bind rule, logging, and a graceful stop.

SIGTERM and SIGINT stop accepting connections, let the requests in flight finish (at most
``drain_seconds``), then close the sandbox pool (the application's lifespan)."""

from __future__ import annotations

import ipaddress
import logging
import socket

from evaluator.service.app import Settings, create_app

__all__ = ["is_loopback", "serve"]


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
    host: str = "127.0.0.1",
    port: int = 8080,
    drain_seconds: float = 30.0,
    log_level: str = "info",
) -> None:
    """Serve until SIGTERM or SIGINT. A non-loopback ``host`` needs ``settings.token``."""
    import uvicorn

    if not is_loopback(host) and not settings.token:
        raise ValueError(f"refusing to bind {host} without --token: only loopback is open")
    logging.basicConfig(
        level=getattr(logging, log_level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    config = uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,  # our own line per request says more (see app._endpoint)
        timeout_graceful_shutdown=drain_seconds,
        lifespan="on",
    )
    uvicorn.Server(config).run()
