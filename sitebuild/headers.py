"""The one table of response rules for the built site, read by every server that serves it.

`tools/serve.py` applies it per request, `sitebuild/nginx.py` generates the nginx config from it
(`deploy/nginx.conf` is that output), and the build writes `_headers` (Netlify, Cloudflare Pages)
from it. `tests/test_infra_headers.py` asks tools/serve.py and a real nginx for every file type and
compares what they send with `response_headers()`, so the three cannot drift apart.

The rules:
- Content-Type from the suffix, by this table only (never the host's MIME database): Pyodide needs
  application/wasm to compile while downloading, and module scripts need a JavaScript type.
- Every response, errors included, carries the security headers: the Content-Security-Policy of
  `sitebuild/csp.py`, nosniff (a browser must not second-guess the types above), no referrer, and
  no framing (the header twin of the policy's frame-ancestors, for browsers without CSP 2).
- Cache-Control: a file whose name carries its content hash (`app.1a2b3c4d.js`, anything under
  `pyodide-1a2b3c4d/`) never changes, so it is immutable for a year; everything else (the HTML,
  the bench page) is `no-cache`, i.e. revalidated on every visit; error responses are `no-store`,
  so a hashed name that 404s during a deploy is not remembered for a year.
- Precompressed siblings: the build writes `x.br` and `x.gz` next to `x` for the suffixes below
  when they are smaller; a server sends one only to a client whose Accept-Encoding takes it
  (brotli first), with `Content-Encoding` and `Vary: Accept-Encoding`. A file that has siblings
  carries the Vary header whichever body is sent; a file without siblings has no Vary.
- Not served: dotfiles (the build marker) and the static-host config `_headers`. No directory is
  listed or redirected (`/bench` is a 404, not a redirect to `/bench/`); a path ending in "/" maps
  to the index.html in it, if any ("/" is the article).
"""

from __future__ import annotations

import re

from .csp import CONTENT_SECURITY_POLICY

# Suffix -> Content-Type. A charset is given for text types only.
MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
DEFAULT_TYPE = "application/octet-stream"

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
ERROR_CACHE = "no-store"
# A name carries its content hash ('app.1a2b3c4d.js') or lives in a hashed dir ('pyodide-1a2b3c4d/').
# Written so Python's re and nginx's PCRE read it the same way.
HASHED_PATH = r"(^|/)pyodide-[0-9a-f]{8,}/|\.[0-9a-f]{8,}\.[^/]+$"
_HASHED = re.compile(HASHED_PATH)

# Suffixes that get precompressed siblings (when the sibling is smaller; see MIN_SAVING). Images and
# fonts in formats that are already compressed are left out; zips are in: Pyodide's stdlib zip
# still shrinks by a few per cent.
COMPRESSED_SUFFIXES = (".html", ".js", ".mjs", ".css", ".txt", ".json", ".map", ".wasm", ".zip", ".svg",
                       ".ico")
# (Content-Encoding token, sibling suffix), in order of preference.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
# Siblings are written only if the best of them saves at least this fraction of the file: below
# that, the extra files and the decoding are not worth it (a deflated zip gzipped again saves well
# under 1%). A file gets every sibling or none (sitebuild.compress), so both servers agree on Vary.
MIN_SAVING = 0.01

# The static-host config files the build writes into the site: consumed by the host, never served.
HOST_CONFIG_FILES = ("_headers",)
INDEX = "index.html"


def content_type(path: str) -> str:
    dot = path.rfind(".")
    suffix = path[dot:].lower() if dot > path.rfind("/") else ""
    return MIME_TYPES.get(suffix, DEFAULT_TYPE)


def is_hashed(url_path: str) -> bool:
    return bool(_HASHED.search(url_path))


def cache_control(url_path: str, status: int = 200) -> str:
    if status >= 400:
        return ERROR_CACHE
    return IMMUTABLE if is_hashed(url_path) else REVALIDATE


def is_served(url_path: str) -> bool:
    """False for paths the site never serves, whatever exists on disk (dotfiles, host configs)."""
    parts = url_path.split("/")
    return not any(p.startswith(".") for p in parts) and url_path.lstrip("/") not in HOST_CONFIG_FILES


def accepted_encodings(accept_encoding: str | None) -> set[str]:
    """Codings the client takes (q > 0), lower case: 'gzip, br;q=0' -> {'gzip'}. No '*' handling:
    browsers name their codings, and sending a sibling to a '*' is not worth the ambiguity."""
    taken = set()
    for item in (accept_encoding or "").split(","):
        name, _, params = item.partition(";")
        name = name.strip().lower()
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name and q > 0:
            taken.add(name)
    return taken


def choose_encoding(accept_encoding: str | None, available: set[str]) -> str | None:
    """The preferred coding among the siblings that exist and the client takes, or None."""
    taken = accepted_encodings(accept_encoding)
    for coding, _ in ENCODINGS:
        if coding in available and coding in taken:
            return coding
    return None


def response_headers(url_path: str, status: int = 200, file_path: str | None = None,
                     siblings: set[str] = frozenset(), encoding: str | None = None) -> dict[str, str]:
    """The headers the table prescribes for one response.

    url_path: the request path; file_path: the file served (for "/", "/index.html"); siblings: the
    codings with a sibling on disk; encoding: the coding of the body sent (None for the file itself).
    Headers a server adds of its own (Date, Server, Last-Modified, ETag, Content-Length) are not
    part of the table."""
    headers = dict(SECURITY_HEADERS)
    headers["Cache-Control"] = cache_control(url_path, status)
    if status < 300:
        headers["Content-Type"] = content_type(file_path or url_path)
    if status == 200 and siblings:
        headers["Vary"] = "Accept-Encoding"
    if encoding:
        headers["Content-Encoding"] = encoding
    return headers


def netlify_headers(paths: list[str]) -> str:
    """The `_headers` file (Netlify, Cloudflare Pages) for the site's files.

    `paths` are the published files relative to the site root ('index.html', 'pyodide-…/x.wasm').
    Every file gets its own block (Content-Type and Cache-Control), and "/" gets index.html's; the
    security headers sit on "/*" alone. No header name appears in two blocks that match the same
    path, because both hosts join such values with a comma ("no-cache, public, …")."""
    lines = [
        "# Generated by build.py from sitebuild/headers.py; do not edit (rebuild instead).",
        "# Netlify and Cloudflare Pages read this file; they compress on their own, so the .br/.gz",
        "# siblings in this directory are not needed there.",
        "/*",
        *(f"  {name}: {value}" for name, value in SECURITY_HEADERS.items()),
    ]
    urls = []
    for path in sorted(paths):
        if not is_served("/" + path):
            continue
        if path == INDEX:
            urls.append(("/", path))
        urls.append(("/" + path, path))
    for url, path in urls:
        lines += [url, f"  Content-Type: {content_type(path)}", f"  Cache-Control: {cache_control(url)}"]
    return "\n".join(lines) + "\n"
