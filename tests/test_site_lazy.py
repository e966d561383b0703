"""The article loads only what the reader reaches: before the page is live the worker has fetched the
lab's core and no chunk; a widget's chunks come when it nears the viewport, and then its family of the
instruments suite re-runs, the counter saying which families ran in this browser (data-source
"partial") until every one has (then "browser", with the whole suite's signature)."""

import json
from collections import Counter

from sitepage import BOOT_TIMEOUT_MS, EXPECTED_COUNTER, expected_instrument_counter, run_every_family, wait_audit, wait_live

PARTIAL_OR_DONE = ("() => ['partial', 'browser'].includes(document.querySelector('[data-instrument-counter]').dataset.source)")


def _config(pg) -> dict:
    return json.loads(pg.text_content("#lab-config"))


def _chunks_fetched(pg) -> set[str]:
    chunks = set(_config(pg)["labChunks"])
    return {url.rsplit("/", 1)[-1] for url in pg.requests} & chunks


def test_first_load_is_the_core_and_a_widget_loads_when_reached(page):
    pg = page(instrument_suite=True, viewport={"width": 1280, "height": 800})
    # Hold every chunk until the page is live, so "fetched before live" cannot depend on timing.
    held, holding = [], [True]
    pg.route("**/lab-*.zip", lambda route: held.append(route) if holding[0] else route.continue_())
    pg.goto(pg.base_url)
    wait_live(pg)
    config = _config(pg)
    lab_zips = [url.rsplit("/", 1)[-1] for url in pg.requests if url.rsplit("/", 1)[-1].startswith("lab")
                and url.endswith(".zip")]
    assert config["labZipURL"] in lab_zips
    fetched = [route.request.url.rsplit("/", 1)[-1] for route in held]
    assert set(fetched) <= set(config["labChunks"])
    # the seed audit's modules are a chunk too (held here, and the page went live without them)
    assert config["labAudit"] and set(config["labAudit"]) <= set(config["labChunks"])
    # (the seed audit's chunk is asked for right after live: held until here, released before the unroute,
    # which would hand a route still held to the network itself)
    holding[0] = False
    for route in held:
        route.continue_()
    pg.unroute("**/lab-*.zip")
    wait_audit(pg)
    assert pg.text_content("[data-audit-counter]") == EXPECTED_COUNTER
    assert set(config["labAudit"]) <= _chunks_fetched(pg)

    # A form far below (the last widget on the page) has not been reached, and its chunks that no
    # reached widget shares are not fetched.
    reached = set((pg.evaluate("() => document.documentElement.dataset.labReached") or "").split())
    forms = pg.evaluate("""() => [...document.querySelectorAll('form[data-lab]')].map((f) =>
        ({kind: f.dataset.lab, modules: f.dataset.modules.split(' ').filter(Boolean), family: 'family' in f.dataset}))""")
    far = [form for form in forms if form["kind"] not in reached and form["modules"]]
    assert far, f"every widget was reached at load: {reached}"
    last = far[-1]
    near = {url for form in forms if form["kind"] in reached for url in form["modules"]}
    own = set(last["modules"]) - near
    assert own and not own & _chunks_fetched(pg)

    # Scrolled to, it loads, answers a move, and its family re-runs: the counter says so.
    pg.locator(f"form[data-lab='{last['kind']}']").scroll_into_view_if_needed()
    pg.wait_for_function("(k) => (document.documentElement.dataset.labReached || '').split(' ').includes(k)",
                         arg=last["kind"], timeout=BOOT_TIMEOUT_MS)
    pg.wait_for_function(PARTIAL_OR_DONE, timeout=BOOT_TIMEOUT_MS)
    pg.wait_for_function("(k) => document.querySelector('[data-instrument-mark]').textContent.includes(k)"
                         " || document.querySelector('[data-instrument-counter]').dataset.source === 'browser'",
                         arg=last["kind"], timeout=BOOT_TIMEOUT_MS)
    assert own <= _chunks_fetched(pg)
    counter = pg.locator("[data-instrument-counter]")
    if counter.get_attribute("data-source") == "partial":
        # the list holds every check once (the browser's for the families run, the build's for the rest)
        total = int(expected_instrument_counter().split("/")[1].split()[0])
        assert counter.text_content() == expected_instrument_counter()
        assert pg.locator("[data-instrument-checks] li.check").count() == total
        assert "re-run in this browser" in pg.text_content("[data-instrument-mark]")

    # The counter's button re-runs the rest: then the whole suite, as one run gives.
    run_every_family(pg)
    # the rest of the suite in Pyodide: a minute on an idle machine, more on a shared one
    pg.wait_for_function("() => document.querySelector('[data-instrument-counter]').dataset.source === 'browser'",
                         timeout=4 * BOOT_TIMEOUT_MS)
    assert counter.text_content() == expected_instrument_counter()
    assert pg.text_content("[data-instrument-mark]") == "\u2713 verified in this browser"
    assert _chunks_fetched(pg) == set(config["labChunks"])
    assert pg.console_errors == [] and pg.foreign_requests() == []


RUN_ALL_AT_ONCE_LOADS = 3  # page loads; each asks for every family the moment the counter's button exists


def test_every_family_asked_for_at_once_after_live_runs_on_chunks_loaded_once(page):
    """The counter's "Re-run the rest now" right after the page goes live asks for every widget's
    chunks at once, many shared: each chunk is fetched and unpacked once (one promise per chunk, on
    the page and in the worker), every family's request waits for its chunks, and the suite ends
    with its whole signature, on every load. (The lab's chunks once all reported failed after
    unpacking: CPython 3.14's importlib.invalidate_caches imports importlib.metadata, which the
    trimmed standard library leaves out. So every request fetched its chunks again, and a family
    whose failed load answered before its own chunk arrived ran without it: stuck, intermittently, on
    ModuleNotFoundError.)"""
    from lab.checks import EXPECTED_SIGNATURE

    for attempt in range(RUN_ALL_AT_ONCE_LOADS):
        pg = page(instrument_suite=True, viewport={"width": 1280, "height": 800})
        pg.goto(pg.base_url)
        wait_live(pg)
        run_every_family(pg)
        pg.wait_for_function(
            "() => document.querySelector('[data-instrument-counter]').dataset.source === 'browser'"
            " || document.querySelector('[data-instrument-counter]').parentElement.querySelector('.lab-notice')"
            " || document.documentElement.dataset.labState === 'failed'", timeout=4 * BOOT_TIMEOUT_MS)
        where = f"load {attempt + 1}: {pg.text_content('[data-instrument-mark]')!r}"
        notices = pg.evaluate("() => [...document.querySelectorAll('.lab-notice')].map((n) => n.textContent.trim())")
        assert notices == [], f"{where}: {notices}"
        assert pg.get_attribute("[data-instrument-counter]", "data-source") == "browser", where
        assert pg.text_content('[data-signature="instruments"]') == EXPECTED_SIGNATURE, where
        assert pg.text_content("[data-instrument-counter]") == expected_instrument_counter(), where
        chunks = set(_config(pg)["labChunks"])
        fetched = Counter(name for name in (url.rsplit("/", 1)[-1] for url in pg.requests) if name in chunks)
        assert set(fetched) == chunks, f"{where}: not fetched {sorted(chunks - set(fetched))}"
        assert [name for name, times in fetched.items() if times > 1] == [], f"{where}: fetched again {fetched}"
        assert pg.console_errors == [] and pg.foreign_requests() == [], where
        pg.context.close()


def test_a_link_to_a_curve_loads_the_module_the_core_lacks(page):
    """The ledger asked for a measured curve imports the traces model, which is not in the core: the
    worker loads the chunk holding it when the import misses, and the ledger answers as CPython does."""
    from sitepage import assert_shows

    query = "?trcCurve=custom:0.9,0.7,0.5"
    pg = page()
    pg.goto(pg.base_url + query)
    wait_live(pg)
    view = assert_shows(pg, "ledger", query)
    assert "your own trace" in view["summary"] or view["notes"], view["notes"]
    assert pg.console_errors == [] and pg.foreign_requests() == []
