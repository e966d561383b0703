#!/usr/bin/env python3
"""Static server for the built site with the headers production would send.

    python -m tools.serve --dir dist --port 8000     # from the checkout's root, as `make serve` does

Why not `python -m http.server`: it guesses MIME types from the host's tables (.wasm and .mjs are
wrong or missing on some systems, and Pyodide needs application/wasm for streaming compilation),
and it sends neither the CSP nor cache headers, so it cannot show whether the page works under them.
Every rule (types, security and cache headers, which precompressed .br/.gz sibling to send) comes
from sitebuild/headers.py, the table deploy/nginx.conf and the static hosts' `_headers` are made
from; `make serve-nginx` serves the same directory with nginx.
"""

from __future__ import annotations

import argparse
import email.utils
import os
import sys
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sitebuild import headers as table


class Handler(SimpleHTTPRequestHandler):
    """Every header rule comes from sitebuild/headers.py (the table nginx's config is made from)."""

    quiet = False

    def guess_type(self, path):
        return table.content_type(str(path))

    def send_response(self, code, message=None):
        self._status = code
        super().send_response(code, message)

    def send_head(self):
        self._status, self._vary = 200, False
        url_path = unquote(urlsplit(self.path).path)
        if not table.is_served(url_path):
            self.send_error(404, "File not found")
            return None
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not url_path.endswith("/"):
                # No redirect from /dir to /dir/ (nginx's config has none either): a 404.
                self.send_error(404, "File not found")
                return None
            path = os.path.join(path, table.INDEX)  # "/" is the article
        available = {coding for coding, suffix in table.ENCODINGS if os.path.isfile(path + suffix)}
        self._vary = bool(available) and os.path.isfile(path)
        coding = self._choose_encoding(available) if self._vary else None
        if coding is None:
            return super().send_head()
        return self._send_compressed(path, coding)

    def _choose_encoding(self, available):
        """The coding of the sibling to send (brotli first), or None for the file itself."""
        return table.choose_encoding(self.headers.get("Accept-Encoding"), available)

    def _send_compressed(self, path, coding):
        suffix = dict(table.ENCODINGS)[coding]
        f = open(path + suffix, "rb")
        try:
            fs = os.fstat(f.fileno())
            if self._not_modified_since(fs.st_mtime):
                f.close()
                self.send_response(304)
                self.end_headers()
                return None
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(fs.st_size))
            self.send_header("Last-Modified", email.utils.formatdate(fs.st_mtime, usegmt=True))
            self.end_headers()
            return f
        except BaseException:
            f.close()
            raise

    def _not_modified_since(self, mtime: float) -> bool:
        """The plain handler's If-Modified-Since rule, for the precompressed path."""
        since = self.headers.get("If-Modified-Since")
        if not since or self.headers.get("If-None-Match"):
            return False
        try:
            when = email.utils.parsedate_to_datetime(since)
        except (TypeError, ValueError, IndexError, OverflowError):
            return False
        return when is not None and when.timestamp() >= int(mtime)

    def end_headers(self):
        status = getattr(self, "_status", 200)
        url_path = unquote(urlsplit(self.path).path)
        self.send_header("Cache-Control", table.cache_control(url_path, status))
        for name, value in table.SECURITY_HEADERS.items():
            self.send_header(name, value)
        if getattr(self, "_vary", False) and status in (200, 304):
            self.send_header("Vary", "Accept-Encoding")
        super().end_headers()

    def list_directory(self, path):
        # A deployed static host does not list directories; neither do we.
        self.send_error(404, "File not found")
        return None

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # Browsers drop connections they no longer need (navigation, cancelled fetches); that is
        # not a server fault worth a traceback.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def make_server(directory, host="127.0.0.1", port=0, quiet=False):
    """A ready-to-run ThreadingHTTPServer for `directory`; port 0 picks a free port.

    Call serve_forever() (for example in a daemon thread) and shutdown() when done; the bound port
    is server.server_address[1].
    """
    directory = os.fspath(Path(directory).resolve())
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"not a directory: {directory}")
    handler = type("BoundHandler", (Handler,), {"quiet": quiet})
    return Server((host, port), partial(handler, directory=directory))


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line on stderr, exit 2, no usage dump
        self.exit(2, f"{self.prog}: error: {message}\n")


def _port(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port must be a number, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be in 1..65535, got {value}")
    return value


def main(argv=None):
    parser = _Parser(prog="serve.py", description="Serve a built site with production headers.")
    parser.add_argument("--dir", required=True, help="directory to serve (e.g. dist)")
    parser.add_argument("--port", type=_port, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.dir):
        parser.error(f"--dir {args.dir!r} is not a directory (run `make build` first?)")
    try:
        server = make_server(args.dir, args.host, args.port)
    except OSError as exc:
        print(f"serve.py: error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    print(f"Serving {args.dir} at http://{host}:{port}/  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
