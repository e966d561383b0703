"""tools/serve.py's server, wrapped to count what it sends.

Counting at the server sees every request, the page's and its Web Workers' alike, and counts
exactly the bytes put on the wire (status line, headers and body). A response the browser takes
from its own cache never reaches the server and counts nothing, which is what "transferred" means.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import partial

from tools.serve import make_server


class _CountingWriter:
    """Wraps the handler's wfile; counts bytes written, delegates everything else."""

    def __init__(self, raw):
        self._raw = raw
        self.count = 0

    def write(self, data):
        written = self._raw.write(data)
        self.count += len(data) if written is None else written
        return written

    def __getattr__(self, name):
        return getattr(self._raw, name)


@dataclass
class Transfer:
    path: str
    status: int | None
    bytes: int
    accept_encoding: str
    content_encoding: str


@dataclass
class ByteLog:
    """Shared between the request threads and the benchmark; compress=False makes the server ignore
    its .br/.gz siblings (the uncompressed baseline)."""

    compress: bool = True
    _entries: list = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, entry: Transfer) -> None:
        with self._lock:
            self._entries.append(entry)

    def take(self) -> list[Transfer]:
        """Everything logged since the last take() (and forget it)."""
        with self._lock:
            entries, self._entries = self._entries, []
        return entries


def transfer_totals(entries: list[Transfer]) -> dict:
    """The bytes and responses of a list of transfers, and each transfer, largest first."""
    return {
        "bytes": sum(e.bytes for e in entries),
        "requests": len(entries),
        "transfers": [
            {"path": e.path, "status": e.status, "bytes": e.bytes, "acceptEncoding": e.accept_encoding,
             "contentEncoding": e.content_encoding}
            for e in sorted(entries, key=lambda e: -e.bytes)
        ],
    }


def counting_server(directory, log: ByteLog):
    """make_server(directory) whose handler logs one Transfer per request into `log`."""
    server = make_server(directory, quiet=True)
    bound = server.RequestHandlerClass  # functools.partial(BoundHandler, directory=...)
    base = bound.func

    class CountingHandler(base):
        def setup(self):
            super().setup()
            self.wfile = _CountingWriter(self.wfile)

        def _choose_encoding(self, available):
            return super()._choose_encoding(available) if log.compress else None

        def send_response(self, code, message=None):
            self._bench_status = code
            super().send_response(code, message)

        def send_header(self, keyword, value):
            if keyword.lower() == "content-encoding":
                self._bench_encoding = value
            super().send_header(keyword, value)

        def handle_one_request(self):
            start = self.wfile.count
            self._bench_status, self._bench_encoding = None, ""
            try:
                super().handle_one_request()
            finally:
                sent = self.wfile.count - start
                if sent:
                    headers = getattr(self, "headers", None)
                    log.add(Transfer(
                        path=getattr(self, "path", "?"),
                        status=self._bench_status,
                        bytes=sent,
                        accept_encoding=headers.get("Accept-Encoding", "") if headers else "",
                        content_encoding=self._bench_encoding,
                    ))

    server.RequestHandlerClass = partial(CountingHandler, *bound.args, **bound.keywords)
    return server
