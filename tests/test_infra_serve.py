"""tools/serve.py: its own parts (revalidation of precompressed files, CLI errors); the header
table itself is checked against this server and nginx in tests/test_infra_headers.py."""

import gzip

import brotli
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from sitebuild.csp import CONTENT_SECURITY_POLICY
from tools.serve import make_server

ROOT = Path(__file__).resolve().parent.parent
FILES = {
    "index.html": b"<!doctype html><title>x</title>",
    "index.html.gz": gzip.compress(b"<!doctype html><title>x</title>", mtime=0),
    "app.1a2b3c4d.js": b"export {};",
    "style.css": b"body{}",
    "lab.0123abcd.zip": b"PK",
    "data.json": b"{}",
    "icon.svg": b"<svg/>",
    "pyodide-deadbeef/pyodide.asm.wasm": b"\0asm",
    "pyodide-deadbeef/pyodide.mjs": b"export {};",
    "pyodide-deadbeef/python_stdlib.zip": b"PK",
    "big.js": b"console.log(1);" * 100,
    "big.js.gz": gzip.compress(b"console.log(1);" * 100, mtime=0),
    "big.js.br": brotli.compress(b"console.log(1);" * 100),
    ".proofroom-build": b"marker",
}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    for name, data in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    server = make_server(root, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def get(url, **headers):
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


# Types, cache and security headers, siblings for every file type: tests/test_infra_headers.py
# (against this server and nginx alike). Here: what is particular to tools/serve.py.

def test_policy_allows_wasm_but_not_eval_or_inline():
    assert "'wasm-unsafe-eval'" in CONTENT_SECURITY_POLICY
    assert "'unsafe-eval'" not in CONTENT_SECURITY_POLICY
    assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY


@pytest.mark.parametrize("path", [".proofroom-build", "pyodide-deadbeef/", "missing.js"])
def test_not_served(base, path):
    status, headers, _ = get(base + path)
    assert status == 404
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


def test_brotli_preferred_gzip_otherwise(base):
    status, headers, body = get(base + "big.js", **{"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200 and headers["Content-Encoding"] == "br" and headers["Vary"] == "Accept-Encoding"
    assert brotli.decompress(body) == FILES["big.js"] and int(headers["Content-Length"]) == len(body)
    status, headers, body = get(base + "big.js", **{"Accept-Encoding": "gzip"})
    assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == FILES["big.js"]
    status, headers, body = get(base + "big.js")
    assert headers["Content-Encoding"] is None and body == FILES["big.js"]
    assert headers["Vary"] == "Accept-Encoding"  # the answer depends on the header, even when plain


def test_no_vary_without_siblings(base):
    _, headers, _ = get(base + "style.css", **{"Accept-Encoding": "gzip, br"})
    assert headers["Vary"] is None and headers["Content-Encoding"] is None


def test_site_root_is_sent_compressed(base):
    status, headers, body = get(base, **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert headers["Content-Type"] == "text/html; charset=utf-8" and headers["Cache-Control"] == "no-cache"
    assert gzip.decompress(body) == FILES["index.html"]


@pytest.mark.parametrize("path", ["", "big.js"])
def test_compressed_files_revalidate_with_304(base, path):
    _, headers, _ = get(base + path, **{"Accept-Encoding": "gzip"})
    status, _, body = get(base + path, **{"Accept-Encoding": "gzip", "If-Modified-Since": headers["Last-Modified"]})
    assert status == 304 and body == b""
    status, _, _ = get(base + path, **{"Accept-Encoding": "gzip", "If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"})
    assert status == 200


@pytest.mark.parametrize("args, fragment", [
    (["--dir", ".", "--port", "abc"], "port must be a number"),
    (["--dir", ".", "--port", "0"], "1..65535"),
    (["--dir", ".", "--port", "70000"], "1..65535"),
    (["--dir", "/nonexistent/proofroom"], "not a directory"),
    (["--port", "8000"], "--dir"),
])
def test_cli_errors_are_one_line(args, fragment):
    proc = subprocess.run([sys.executable, "-m", "tools.serve", *args],  # as `make serve` runs it
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert proc.returncode == 2
    assert fragment in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
