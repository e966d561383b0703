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
    Tests only read it; tests/test_infra_build.py builds one copy of its own to compare with it."""
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
# This browser now makes only the pages that need a context of their own (see `page`); the others come
# from the warm profile below, which keeps V8's default tiers: its code cache serves TurboFan's code.
TEST_CHROMIUM_ARGS = ["--js-flags=--liftoff-only"]

# What a page of the warm profile may be given per page (set on the page, not on a context): any other
# context option (JavaScript off, permissions, forced colours, ...) gets a fresh context as before.
WARM_PAGE_OPTIONS = {"viewport", "color_scheme"}
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}  # Playwright's default for a new context
# Everything an origin keeps in a profile but its HTTP and code caches (CDP Storage.clearDataForOrigin).
WARM_CLEARED_STORAGE = ("cookies,file_systems,indexeddb,local_storage,websql,service_workers,cache_storage,"
                        "shared_storage,storage_buckets")


@pytest.fixture(scope="session")
def playwright_driver():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_driver):
    from browser import launch

    b = launch(playwright_driver, args=TEST_CHROMIUM_ARGS)
    yield b
    b.close()


class WarmProfile:
    """One persistent Chromium profile per worker (a user-data directory on disk), launched on first
    use: its HTTP cache and V8's wasm code cache outlive each page, so a later page that boots Pyodide
    fetches none of its 10 MB of wasm again and takes the optimized code V8 cached for it (a fresh
    context is an empty off-the-record profile that fetches and compiles everything, every test). Each test still gets a new page (sessionStorage and the
    address are the page's own) and the origin's stored data is cleared before it opens. A test that
    closes the context (pg.context.close()) closes this browser; the next page relaunches it on the
    same directory, its caches intact."""

    def __init__(self, pw, directory):
        self.pw, self.directory, self.context = pw, directory, None

    def _launch(self):
        from browser import launch_persistent

        self.context = launch_persistent(self.pw, self.directory, viewport=DEFAULT_VIEWPORT)
        self.context.on("close", lambda _: setattr(self, "context", None))

    def new_page(self, origin, viewport=None, color_scheme=None):
        if self.context is None:
            self._launch()
        context = self.context
        context.clear_cookies()
        context.clear_permissions()
        pg = context.new_page()
        session = context.new_cdp_session(pg)
        session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": WARM_CLEARED_STORAGE})
        session.detach()
        pg.set_viewport_size(viewport or DEFAULT_VIEWPORT)
        pg.emulate_media(color_scheme=color_scheme or "light")
        return pg

    def check_unrouted(self):
        """A route on the shared context would reach every later test's pages: fail the test that
        left one (it asks for page(own_context=True)), and take the routes off."""
        context = self.context
        routes = getattr(getattr(context, "_impl_obj", None), "_routes", None) if context else None
        if routes:
            context.unroute_all(behavior="ignoreErrors")
            pytest.fail("a test routed the shared warm context: open its page with page(own_context=True)",
                        pytrace=False)

    def close(self):
        if self.context is not None:
            self.context.close()


@pytest.fixture(scope="session")
def warm_profile(playwright_driver, tmp_path_factory):
    profile = WarmProfile(playwright_driver, tmp_path_factory.mktemp("chromium-profile"))
    yield profile
    profile.close()


# Set before app.js reads it (goLive runs after DOMContentLoaded and the worker's boot).
SUITE_MANUAL_JS = """document.addEventListener('DOMContentLoaded',
    () => { document.documentElement.dataset.instrumentSuite = 'manual'; });"""


def _page_factory(browser, warm_profile, site_server, contexts, warm_pages):
    """make(instrument_suite=False, own_context=False, **context_kwargs): a fresh page with recorders
    attached (see `page`). The instruments suite re-runs in the page only with instrument_suite=True:
    most tests never read its counter, and its 98 checks would compete for the CPU with what they do
    check. A page asked for with no context option but a viewport or a colour scheme comes from the
    warm profile (`WarmProfile`); one with any other option, or own_context=True (a test that routes
    or closes its context), gets a fresh context of the liftoff-only browser, as every page once did."""
    server = urlsplit(site_server)
    origin = f"{server.scheme}://{server.netloc}"

    def make(instrument_suite=False, own_context=False, **context_kwargs):
        warm = not own_context and set(context_kwargs) <= WARM_PAGE_OPTIONS
        if warm:
            pg = warm_profile.new_page(origin, **context_kwargs)
            context = pg.context
            warm_pages.append(pg)
        else:
            context = browser.new_context(**context_kwargs)
            contexts.append(context)
            pg = context.new_page()
        if not instrument_suite:
            # The page's documented switch (app.js goLive): the instruments suite (98 checks in Pyodide)
            # does not re-run after the page goes live, so it takes no CPU from what the test does.
            # Only a test that reads that counter asks for it: make(instrument_suite=True). Set on the
            # page, so a shared context's other pages keep their own choice.
            pg.add_init_script(SUITE_MANUAL_JS)
        pg.console_errors, pg.requests = [], []
        pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
        pg.on("pageerror", lambda e: pg.console_errors.append(f"pageerror: {e}"))

        # Context-level so requests from Web Workers are seen too; a worker's failed fetch logs
        # nothing to the console, so HTTP errors are recorded here as well. A warm context is shared
        # by other pages (a module's), so only this page's requests (its workers' included) count.
        def mine(r):
            if not warm:
                return True
            try:
                return r.frame.page == pg
            except Exception:  # no frame: a service worker's request, no page's
                return False

        on_request = lambda r: mine(r) and pg.requests.append(r.url)
        on_response = lambda r: r.status >= 400 and mine(r) and pg.console_errors.append(f"HTTP {r.status} {r.url}")
        context.on("request", on_request)
        context.on("response", on_response)
        if warm:
            pg.on("close", lambda _: [context.remove_listener(*pair) for pair in
                                      (("request", on_request), ("response", on_response))])
        pg.foreign_requests = lambda: [
            u for u in pg.requests
            if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).netloc != server.netloc
        ]
        pg.base_url = site_server
        pg.js_enabled = context_kwargs.get("java_script_enabled", True)
        pg.instrument_suite = instrument_suite
        return pg

    return make


def _close(contexts, warm_pages, warm_profile):
    for context in contexts:
        context.close()
    for pg in warm_pages:
        if not pg.is_closed():
            pg.close()
    warm_profile.check_unrouted()


@pytest.fixture
def page(browser, warm_profile, site_server):
    """Factory: page = page() gives a fresh page with recorders attached.

    page.console_errors: console errors (workers' included), uncaught page errors, HTTP errors >= 400.
    page.requests: every URL requested by the page and its workers.
    page.foreign_requests(): requested URLs not on the test server's origin.
    page(own_context=True): a context of the page's own, for a test that routes or closes it.
    """
    contexts, warm_pages = [], []
    yield _page_factory(browser, warm_profile, site_server, contexts, warm_pages)
    _close(contexts, warm_pages, warm_profile)


@pytest.fixture(scope="module")
def module_page(browser, warm_profile, site_server):
    """The same factory as `page`, but its pages live for the whole test module: for tests that
    share one live page (a cold Pyodide boot costs seconds)."""
    contexts, warm_pages = [], []
    yield _page_factory(browser, warm_profile, site_server, contexts, warm_pages)
    _close(contexts, warm_pages, warm_profile)


@pytest.fixture(scope="module")
def nginx_module_page(browser, warm_profile, nginx_server):
    """`module_page`, but the pages load the site from nginx."""
    contexts, warm_pages = [], []
    yield _page_factory(browser, warm_profile, nginx_server, contexts, warm_pages)
    _close(contexts, warm_pages, warm_profile)
