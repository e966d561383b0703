"""The header table (sitebuild/headers.py) against the responses of both servers that serve the
site: tools/serve.py (development) and nginx with the generated production config.

Every file type, a hashed name against an unhashed one, the precompressed siblings (sent only when
asked for, brotli first, with the right length), and what is never served. The same assertions
run on a small tree made here (every type, with and without siblings) and on the real build.
"""

from __future__ import annotations

import brotli
import gzip
import http.client
import random
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitebuild import headers as table
from sitebuild.compress import Compressor

SERVERS = ("serve.py", "nginx")
TEXT = b"speculative decoding keeps the target distribution exactly; " * 64
NOISE = random.Random(14).randbytes(4096)  # incompressible: no sibling pays

# path -> bytes. Compressible text for most; noise where a sibling must not be written.
TREE = {
    "index.html": b"<!doctype html><title>x</title>" + TEXT,
    "app.1a2b3c4d.js": b"export {};" + TEXT,
    "plain.js": b"// unhashed" + TEXT,
    "style.0badcafe.css": b"body{}" + TEXT,
    "notes.css": b"p{}" + TEXT,
    "data.json": b'{"a": "' + TEXT + b'"}',
    "icon.svg": b"<svg/>" + TEXT,
    "lab.0123abcd.zip": b"PK" + NOISE,
    "pyodide-deadbeef/pyodide.asm.wasm": b"\0asm" + TEXT,
    "pyodide-deadbeef/pyodide.mjs": b"export {};" + TEXT,
    "pyodide-deadbeef/python_stdlib.zip": b"PK" + TEXT,  # a stored zip: compression pays
    "pyodide-deadbeef/pyodide-lock.json": b"{}",           # too small to gain
    "image.png": b"\x89PNG" + NOISE,
    "unknown.bin": b"\0" + NOISE,
    "bench/bare.html": b"<!doctype html>" + TEXT,
    "bench/bare.99aabbcc.js": b"export {};" + TEXT,
}
HIDDEN = {".proofroom-build": b"marker", "_headers": b"/*\n  X-Test: 1\n"}


def siblings_of(root: Path, rel: str) -> set[str]:
    return {coding for coding, suffix in table.ENCODINGS if (root / f"{rel}{suffix}").is_file()}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    compressor = Compressor(None)  # exactly what the build writes, minus its cache
    for rel, data in {**TREE, **HIDDEN}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if rel in TREE:
            for suffix, packed in compressor.siblings(path.name, data).items():
                Path(f"{path}{suffix}").write_bytes(packed)
    return root


@pytest.fixture(scope="module")
def serve_py_tree(tree):
    import threading

    from tools.serve import make_server

    server = make_server(tree, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(params=SERVERS)
def tree_server(request, tree):
    """(name, base URL) of each server serving `tree`."""
    if request.param == "serve.py":
        return request.param, request.getfixturevalue("serve_py_tree")
    return request.param, request.getfixturevalue("nginx_factory")(tree)


@pytest.fixture(params=SERVERS)
def site_servers(request, built_site):
    if request.param == "serve.py":
        return request.param, request.getfixturevalue("site_server")
    return request.param, request.getfixturevalue("nginx_server")


def get(url, **headers):
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def decode(body: bytes, coding: str | None) -> bytes:
    return {None: lambda b: b, "gzip": gzip.decompress, "br": brotli.decompress}[coding](body)


TABLE_NAMES = (*table.SECURITY_HEADERS, "Cache-Control", "Content-Type", "Vary", "Content-Encoding")


def assert_table(headers, expected: dict[str, str], where: str) -> None:
    """Every header the table speaks about is exactly as prescribed, or absent where it is not."""
    for name in TABLE_NAMES:
        got = headers.get_all(name) or []
        if name in expected:
            assert got == [expected[name]], f"{where}: {name}: {got!r}, table says {expected[name]!r}"
        else:
            assert got == [], f"{where}: unexpected {name}: {got!r}"


def check_file(base, root: Path, rel: str, accept: str | None, server: str):
    """GET one file; assert the table, the body and Content-Length; return the coding sent."""
    url_path = "/" + rel
    file_rel = rel + table.INDEX if rel.endswith("/") or rel == "" else rel
    available = siblings_of(root, file_rel)
    coding = table.choose_encoding(accept, available)
    headers = {"Accept-Encoding": accept} if accept is not None else {}
    status, got, body = get(base + rel, **headers)
    where = f"{server} {url_path} (Accept-Encoding: {accept})"
    assert status == 200, where
    assert_table(got, table.response_headers(url_path, 200, "/" + file_rel, available, coding), where)
    assert int(got["Content-Length"]) == len(body), where
    assert decode(body, coding) == (root / file_rel).read_bytes(), where
    return coding


# --- a tree with every type -------------------------------------------------------------------------

@pytest.mark.parametrize("rel", ["", *TREE])
def test_identity_responses_follow_the_table(tree_server, tree, rel):
    server, base = tree_server
    assert check_file(base, tree, rel, None, server) is None


def test_the_tree_has_what_the_rules_need(tree):
    """Siblings exist where they pay and not elsewhere, so both kinds are tested."""
    assert siblings_of(tree, "index.html") == {"br", "gzip"}
    assert siblings_of(tree, "pyodide-deadbeef/python_stdlib.zip") == {"br", "gzip"}
    for rel in ("lab.0123abcd.zip", "pyodide-deadbeef/pyodide-lock.json", "image.png", "unknown.bin"):
        assert siblings_of(tree, rel) == set(), rel


ACCEPTS = ["gzip", "br", "gzip, deflate, br", "gzip, deflate, br, zstd", "identity", "deflate", "br;q=0, gzip",
           "gzip;q=0"]


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("rel", ["", "index.html", "app.1a2b3c4d.js", "pyodide-deadbeef/pyodide.asm.wasm",
                                 "pyodide-deadbeef/python_stdlib.zip", "lab.0123abcd.zip", "image.png"])
def test_siblings_only_when_asked(tree_server, tree, rel, accept):
    server, base = tree_server
    coding = check_file(base, tree, rel, accept, server)
    if rel in ("lab.0123abcd.zip", "image.png"):
        assert coding is None  # no sibling on disk: the file itself, whatever was asked
    elif accept in ("identity", "deflate", "gzip;q=0"):
        assert coding is None
    else:
        assert coding == ("gzip" if accept == "br;q=0, gzip" or "br" not in accept else "br")


def test_hashed_and_unhashed_differ_only_in_caching(tree_server):
    server, base = tree_server
    _, hashed, _ = get(base + "app.1a2b3c4d.js")
    _, plain, _ = get(base + "plain.js")
    assert hashed["Cache-Control"] == table.IMMUTABLE and plain["Cache-Control"] == "no-cache"
    _, html, _ = get(base)
    assert html["Cache-Control"] == "no-cache"
    assert hashed["Content-Type"] == plain["Content-Type"] == "text/javascript; charset=utf-8"


@pytest.mark.parametrize("rel", [".proofroom-build", "_headers", "pyodide-deadbeef/", "bench/", "bench",
                                 "missing.js", "app.00000000.js", "pyodide-deadbeef/.hidden"])
def test_not_served(tree_server, rel):
    server, base = tree_server
    status, got, body = get(base + rel)
    assert status == 404, (server, rel)
    for name, value in table.SECURITY_HEADERS.items():
        assert got[name] == value, (server, rel, name)
    assert got["Cache-Control"] == table.ERROR_CACHE, (server, rel)  # a 404 is never kept
    assert b"marker" not in body and b"X-Test" not in body


@pytest.mark.parametrize("raw", ["/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/pyodide-deadbeef/../../etc/passwd"])
def test_nothing_outside_the_root(tree_server, raw):
    server, base = tree_server
    netloc = urlsplit(base).netloc
    conn = http.client.HTTPConnection(netloc, timeout=30)
    try:
        conn.request("GET", raw)
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    assert resp.status in (400, 404), (server, raw, resp.status)
    assert b"root:" not in body


# --- the real build -----------------------------------------------------------------------------------

def published(root: Path) -> list[str]:
    """The files a visitor may fetch: everything but siblings, dotfiles and host configs."""
    return sorted(
        rel for rel in (p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        if not rel.endswith((".br", ".gz")) and table.is_served("/" + rel)
    )


@pytest.mark.parametrize("accept", [None, "gzip, deflate", "gzip, deflate, br"])
def test_built_site_follows_the_table(site_servers, built_site, accept):
    server, base = site_servers
    files = published(built_site)
    suffixes = {Path(rel).suffix for rel in files}
    assert {".html", ".js", ".mjs", ".css", ".wasm", ".zip", ".json"} <= suffixes, suffixes
    codings = {rel: check_file(base, built_site, rel, accept, server) for rel in ["", *files]}
    if accept and "br" in accept:
        assert codings[""] == "br" and codings["index.html"] == "br"
        assert any(rel.endswith(".wasm") and c == "br" for rel, c in codings.items())
    for rel in (".proofroom-build", "_headers"):
        assert get(base + rel)[0] == 404, rel


def test_each_server_is_the_one_named(tree_server):
    """Guards the parametrisation: the nginx case really talks to nginx."""
    server, base = tree_server
    software = get(base)[1]["Server"]
    assert software.startswith("nginx" if server == "nginx" else "SimpleHTTP"), software


def test_a_file_gets_every_sibling_or_none(tmp_path):
    """Where only brotli pays, both siblings are still written (the servers then agree on Vary);
    where one encoding would grow the file, none is."""
    from sitebuild import headers
    from sitebuild.compress import Compressor

    class Scripted(Compressor):
        def __init__(self, sizes):
            super().__init__(tmp_path / "cache")
            self.sizes = sizes

        def encode(self, coding, data):
            return b"x" * self.sizes[coding]

    data = b"y" * 1000
    codings = [coding for coding, _ in headers.ENCODINGS]
    suffixes = {suffix for _, suffix in headers.ENCODINGS}
    only_brotli_pays = {coding: (900 if coding == "br" else 995) for coding in codings}
    assert set(Scripted(only_brotli_pays).siblings("lab.zip", data)) == suffixes
    one_grows = {coding: (900 if coding == "br" else 1001) for coding in codings}
    assert Scripted(one_grows).siblings("lab.zip", data) == {}
    nothing_pays = {coding: 995 for coding in codings}
    assert Scripted(nothing_pays).siblings("lab.zip", data) == {}
