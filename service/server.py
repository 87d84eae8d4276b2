"""uvicorn, with the connection rules a server facing many clients needs: a connection that sends
nothing is closed after `idle_timeout_s` (when new, and between requests), and a request whose
headers and body have not all arrived `request_timeout_s` after its first byte is answered 408
and closed, so neither idle sockets nor stalled bodies hold the server. A request the HTTP parser
cannot read (a negative Content-Length, a bad header) gets the JSON error shape too.

    uvicorn_config(app, config, host="127.0.0.1", port=8000) -> uvicorn.Config
"""

from __future__ import annotations

import json
import logging

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .config import ServiceConfig

log = logging.getLogger("bertscope.service")


def _json_error(status: int, reason: str, message: str, type_: str) -> bytes:
    body = json.dumps({"error": {"message": message, "type": type_}}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class TimedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with an idle timeout from the first moment and a deadline
    for each request to arrive whole."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._deadline = None
        self.idle_timeout_s = self.config.timeout_keep_alive
        self.request_timeout_s = getattr(self.config, "request_timeout_s", 30.0)
        # uvicorn arms its keep-alive timer only after a response; arm it for a new connection
        # too (any byte received cancels it)
        self.timeout_keep_alive_task = self.loop.call_later(self.idle_timeout_s,
                                                            self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.request_timeout_s, self._too_slow)
        super().data_received(data)

    def on_message_complete(self) -> None:
        self._cancel_deadline()
        super().on_message_complete()

    def connection_lost(self, exc) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and (cycle.response_started or not cycle.more_body):
            return  # the request arrived: what runs now is the answer, not the upload
        log.warning("closed a connection from %s: its request had not arrived whole after "
                    "%g s (--request-timeout)", (self.client or ("?",))[0],
                    self.request_timeout_s)
        self.transport.write(_json_error(
            408, "Request Timeout", f"the request did not arrive whole within "
            f"{self.request_timeout_s:g} s of its first byte (--request-timeout); send the "
            "headers and the whole body at once", "request_timeout"))
        if cycle is not None:
            cycle.disconnected = True  # the route's read of the body ends; its answer is dropped
            cycle.message_event.set()
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        self.transport.write(_json_error(
            400, "Bad Request", "the request is not valid HTTP/1.1 (a malformed request line or "
            "header, or a Content-Length that is not a number >= 0); it was not read",
            "invalid_request_error"))
        self.transport.close()


class Config(uvicorn.Config):
    """uvicorn's settings, with the request deadline beside its keep-alive (which is the idle
    timeout here), carried to each worker process with the rest."""

    def __init__(self, app, *, request_timeout_s: float = 30.0, **options) -> None:
        super().__init__(app, http=TimedHttpTools, access_log=False, **options)
        self.request_timeout_s = request_timeout_s


def uvicorn_config(app, config: ServiceConfig, **options) -> Config:
    """The uvicorn settings serving `app` (or an import string with `factory=True`) by the
    rules of `config`; `options`: uvicorn's own (host, port, log_level, workers, ...)."""
    return Config(app, timeout_keep_alive=config.idle_timeout_s,
                  request_timeout_s=config.request_timeout_s, **options)


def serve(config: Config) -> None:
    """Run the server (in `config.workers` processes when more than 1), as `uvicorn.run`."""
    from uvicorn.supervisors import Multiprocess

    if config.workers <= 1:
        uvicorn.Server(config).run()
        return
    sock = config.bind_socket()
    Multiprocess(config, sockets=[sock]).run()
