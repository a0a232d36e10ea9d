"""Serving one page on loopback (stdlib ``http.server``) until Ctrl-C."""

from __future__ import annotations

import errno
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

from accord.errors import UserError

HOST = "127.0.0.1"


def serve(
    page: str, port: int, on_ready: Callable[[str], None] = lambda url: None, others: dict[str, str] | None = None
) -> None:
    """Serves ``page`` at ``http://127.0.0.1:PORT/`` (port 0: a free one) until interrupted, and each
    of ``others`` (URL path -> page: the pages an index links to) at its path."""
    pages = {"/": page.encode("utf-8"), "/index.html": page.encode("utf-8")}
    pages.update({p: text.encode("utf-8") for p, text in (others or {}).items()})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = pages.get(unquote(self.path.split("?")[0]))
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet: the command prints the address once
            pass

    try:
        server = ThreadingHTTPServer((HOST, port), Handler)
    except OSError as exc:
        why = "in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise UserError(f"--port {port}: cannot serve on {HOST} ({why})") from None
    with server:
        on_ready(f"http://{HOST}:{server.server_address[1]}/")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
