"""Session fixtures: one build of the site, its two servers (tools/serve.py and nginx), one browser
(all started lazily).

Browser fixtures only start when a test asks for them, so pure-Python tests never launch Chromium,
and nginx only starts for the tests that use it. Where nginx cannot run (not installed, no
brotli_static module) those tests fail with tools/nginx.py's one-line reason; they are never
skipped.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, Path(__file__).resolve().parent):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

# Hypothesis fails an example that takes longer than its deadline (200 ms unless told): a timed
# assertion, which a busy machine trips. No test here has a deadline; speed is `make bench`'s.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("proofroom", deadline=None)
_hypothesis_settings.load_profile("proofroom")


def pytest_sessionstart(session):
    """The real-text model and its held-out texts where the checkout's lab reads them (``.cache/``),
    made by the build's own step (the lab never imports the build): trained once, then only checked.
    A checkout without node_modules has no corpus; the real-text tests then say so."""
    from sitebuild import realtext_train

    try:
        realtext_train.prepare(ROOT)
    except FileNotFoundError:
        pass


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site built once per session into a temporary directory, shared by the xdist workers:
    the first worker to ask builds it under a lock, the others wait for it and read the same files
    (a cold build compresses every file, minutes of CPU that a second worker would only repeat).
    Tests only read it; tests/test_infra_build.py builds its own copies to compare with it."""
    import fcntl
    import os

    from sitebuild.pipeline import build_site

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        out = tmp_path_factory.mktemp("site") / "dist"
        build_site(out, ROOT)
        return out
    shared = tmp_path_factory.getbasetemp().parent  # the session's root, above each worker's own
    out, done = shared / "shared-site" / "dist", shared / "shared-site" / "built"
    with open(shared / "shared-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            build_site(out, ROOT)
            done.write_text("ok\n")
    return out


@pytest.fixture(scope="session")
def site_server(built_site):
    """Base URL ('http://127.0.0.1:PORT/') of tools/serve.py serving the built site."""
    from tools.serve import make_server

    server = make_server(built_site, quiet=True)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def nginx_factory():
    """start(directory) -> base URL of an nginx serving `directory` with the production config
    (tools/nginx.py: a free loopback port, a temporary prefix, stopped at the end of the session)."""
    from tools.nginx import NginxServer, NginxUnavailable

    servers = {}

    def start(directory) -> str:
        key = str(Path(directory).resolve())
        if key not in servers:
            try:
                servers[key] = NginxServer(directory).start()
            except NginxUnavailable as exc:
                pytest.fail(f"nginx unavailable: {exc}", pytrace=False)
        return servers[key].url

    yield start
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="session")
def nginx_server(built_site, nginx_factory):
    """Base URL of nginx serving the built site (the same dist as `site_server`)."""
    return nginx_factory(built_site)


# Tests only (never bench/, which measures the reader's Chromium): every fresh context boots Pyodide from
# scratch, and V8's optimizing wasm tier (TurboFan) recompiles its hot functions in the background each time.
# Liftoff's baseline code runs the same wasm with the same results; measured on 4 browser files interleaved
# A/B (docs/PERFORMANCE.md, "Test-only Chromium flags"), Chromium's CPU fell to 0.81 of the default.
TEST_CHROMIUM_ARGS = ["--js-flags=--liftoff-only"]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from browser import launch

    with sync_playwright() as pw:
        b = launch(pw, args=TEST_CHROMIUM_ARGS)
        yield b
        b.close()


# Set before app.js reads it (goLive runs after DOMContentLoaded and the worker's boot).
SUITE_MANUAL_JS = """document.addEventListener('DOMContentLoaded',
    () => { document.documentElement.dataset.instrumentSuite = 'manual'; });"""


def _page_factory(browser, site_server, contexts):
    """make(instrument_suite=False, **context_kwargs): a fresh context + page with recorders attached
    (see `page`). The instruments suite re-runs in the page only with instrument_suite=True: most tests
    never read its counter, and its 83 checks would compete for the CPU with what they do check."""
    origin = urlsplit(site_server).netloc

    def make(instrument_suite=False, **context_kwargs):
        context = browser.new_context(**context_kwargs)
        contexts.append(context)
        if not instrument_suite:
            # The page's documented switch (app.js goLive): the instruments suite (83 checks in Pyodide)
            # does not re-run after the page goes live, so it takes no CPU from what the test does.
            # Only a test that reads that counter asks for it: make(instrument_suite=True).
            context.add_init_script(SUITE_MANUAL_JS)
        pg = context.new_page()
        pg.console_errors, pg.requests = [], []
        pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
        pg.on("pageerror", lambda e: pg.console_errors.append(f"pageerror: {e}"))
        # Context-level so requests from Web Workers are seen too; a worker's failed fetch logs
        # nothing to the console, so HTTP errors are recorded here as well.
        context.on("request", lambda r: pg.requests.append(r.url))
        context.on("response", lambda r: r.status >= 400 and pg.console_errors.append(f"HTTP {r.status} {r.url}"))
        pg.foreign_requests = lambda: [
            u for u in pg.requests
            if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).netloc != origin
        ]
        pg.base_url = site_server
        pg.js_enabled = context_kwargs.get("java_script_enabled", True)
        pg.instrument_suite = instrument_suite
        return pg

    return make


@pytest.fixture
def page(browser, site_server):
    """Factory: page = page() gives a fresh context + page with recorders attached.

    page.console_errors: console errors (workers' included), uncaught page errors, HTTP errors >= 400.
    page.requests: every URL requested by the page and its workers.
    page.foreign_requests(): requested URLs not on the test server's origin.
    """
    contexts = []
    yield _page_factory(browser, site_server, contexts)
    for context in contexts:
        context.close()


@pytest.fixture(scope="module")
def module_page(browser, site_server):
    """The same factory as `page`, but its pages live for the whole test module: for tests that
    share one live page (a cold Pyodide boot costs seconds)."""
    contexts = []
    yield _page_factory(browser, site_server, contexts)
    for context in contexts:
        context.close()


@pytest.fixture(scope="module")
def nginx_module_page(browser, nginx_server):
    """`module_page`, but the pages load the site from nginx."""
    contexts = []
    yield _page_factory(browser, nginx_server, contexts)
    for context in contexts:
        context.close()
