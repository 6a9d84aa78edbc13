"""The viewer's local server: the page over HTTP on 127.0.0.1, for `lexsym view` without `--out`.

It binds the loopback address only (never 0.0.0.0: runs hold prompts and answers that are not for the
network), serves the one page it was given, and answers 403 to a request whose Host header names anything
but this address and port, so a web page elsewhere cannot read it through a rebound DNS name.
"""

from __future__ import annotations

import logging
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lexsym._util.errors import InputError

HOST = "127.0.0.1"
PATHS = ("/", "/index.html")

log = logging.getLogger("lexsym.viewer")


class _Handler(BaseHTTPRequestHandler):
    server: _PageServer
    server_version = "lexsym-view"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _allowed_host(self) -> bool:
        port = self.server.server_address[1]
        return (self.headers.get("Host") or "").lower() in {f"{HOST}:{port}", f"localhost:{port}"}

    def _answer(self, body: bool) -> None:
        if not self._allowed_host():
            self._send(
                HTTPStatus.FORBIDDEN,
                b"this viewer answers only at its 127.0.0.1 address\n",
                "text/plain",
                body,
            )
        elif self.path.split("?", 1)[0] in PATHS:
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8", body)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", body)

    def _send(self, status: HTTPStatus, data: bytes, kind: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        if self.server.policy:
            self.send_header("Content-Security-Policy", f"{self.server.policy}; frame-ancestors 'none'")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)


class _PageServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, page: bytes, policy: str | None):
        self.page = page
        self.policy = policy
        super().__init__((HOST, port), _Handler)


class ViewerServer:
    """The page on http://127.0.0.1:PORT/ (port 0: a free one). `serve_forever()` blocks; `start()` serves
    from a thread and `stop()` ends it."""

    def __init__(self, page: str, *, port: int = 0, policy: str | None = None):
        if not 0 <= port <= 65535:
            raise InputError(f"--port {port}: give a port from 1 to 65535 (0: any free port)")
        try:
            self._server = _PageServer(port, page.encode("utf-8"), policy)
        except OSError as error:
            raise InputError(f"cannot serve on {HOST}:{port}: {error.strerror or error}") from None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def serve_forever(self) -> None:
        try:
            self._server.serve_forever(poll_interval=0.2)
        finally:
            self._server.server_close()

    def start(self) -> ViewerServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
