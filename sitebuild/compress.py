"""Precompressed siblings (`x.br`, `x.gz`) for the built site, reproducible to the byte.

gzip by zopfli for files up to ZOPFLI_MAX_BYTES (the article's own HTML, CSS, JS and lab zip: a
standard gzip stream 2 to 6% smaller than zlib's level 9, for clients that do not take brotli; it
costs about a second per 300 KB, so Pyodide's large files get zlib level 9), mtime 0 and no file
name; brotli at quality 11 (the densest; the default window). The same input bytes and library
versions give the same output bytes. A sibling is kept
only where `sitebuild.headers` says it pays (suffix listed, at least MIN_SAVING smaller).

Brotli 11 on Pyodide's 9.6 MB wasm takes about 20 s, so results are cached by content: the key is
the SHA-256 of the input plus the encoder and its settings, the value is exactly what the encoder
returned. Pyodide's files never change between builds, so every build after the first costs
nothing for them. The cache lives in `.cache/compressed/` of the checkout (git-ignored; `make
clean` removes it); deleting it only costs time.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import zlib
from pathlib import Path

import brotli
import zopfli.gzip

from . import headers

BROTLI_QUALITY = 11
GZIP_LEVEL = 9
ZOPFLI_MAX_BYTES = 1_000_000
_BROTLI_VERSION = getattr(brotli, "__version__", "?")
_ZOPFLI_VERSION = getattr(zopfli, "__version__", "?")


def gzip_bytes(data: bytes) -> bytes:
    """gzip with mtime=0 and no file name, so the .gz sibling is reproducible too: zopfli's
    for files up to ZOPFLI_MAX_BYTES, zlib's level 9 above."""
    if len(data) <= ZOPFLI_MAX_BYTES:
        return zopfli.gzip.compress(data)
    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


def brotli_bytes(data: bytes) -> bytes:
    return brotli.compress(data, quality=BROTLI_QUALITY)


_ENCODERS = {
    "br": (brotli_bytes, f"brotli-{_BROTLI_VERSION}-q{BROTLI_QUALITY}"),
    "gzip": (gzip_bytes, f"gzip-zlib-{zlib.ZLIB_RUNTIME_VERSION}-l{GZIP_LEVEL}-zopfli-{_ZOPFLI_VERSION}-{ZOPFLI_MAX_BYTES}"),
}


class Compressor:
    """encode(coding, data) with an optional on-disk cache (cache_dir=None: no cache)."""

    def __init__(self, cache_dir: Path | None = None):
        self.cache_dir = Path(cache_dir) if cache_dir else None

    def encode(self, coding: str, data: bytes) -> bytes:
        encoder, tag = _ENCODERS[coding]
        if self.cache_dir is None or len(data) < 64 * 1024:  # small files: faster than a lookup
            return encoder(data)
        key = hashlib.sha256(tag.encode() + b"\0" + data).hexdigest()
        path = self.cache_dir / key[:2] / key
        try:
            return path.read_bytes()
        except OSError:
            pass
        out = encoder(data)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(out)
            os.replace(tmp, path)  # atomic: a concurrent build reads a whole entry or none
        except OSError:
            pass  # a read-only checkout still builds, just slower
        return out

    def siblings(self, name: str, data: bytes) -> dict[str, bytes]:
        """{sibling suffix: bytes} for a file called `name`: every encoding or none.

        All of them when the best saves at least MIN_SAVING and none is larger than the file;
        otherwise none. Half a set would make the servers disagree: nginx's brotli_static sends
        no ``Vary`` where gzip_static would, so a file with only a .br sibling is answered with
        different headers by nginx and by tools/serve.py."""
        dot = name.rfind(".")
        if dot < 0 or name[dot:].lower() not in headers.COMPRESSED_SUFFIXES:
            return {}
        packed = {suffix: self.encode(coding, data) for coding, suffix in headers.ENCODINGS}
        best = min(len(value) for value in packed.values())
        if best > len(data) * (1 - headers.MIN_SAVING) or any(len(value) > len(data) for value in packed.values()):
            return {}
        return packed
