"""The built page in Chromium: the site audit, the page without JavaScript, keyboard use of the
sliders, restoring settings from the address, copying a link, and a clean console.

Tests that only read or move sliders share one live page (module scope): a cold Pyodide boot
costs seconds. Each test reads the sliders' current values rather than assuming defaults, so the
order of the tests does not matter for their assertions.

The core of the site audit (counter and signatures, the first live render, one slider move, a clean
console and no foreign request) runs against both servers: tools/serve.py and nginx with the
production config (`served_live`); the rest runs against tools/serve.py only, since it tests the
page, not the server. The instruments suite's counter is one of the rest: the suite runs in the
worker on the files the page fetched, and tests/test_infra_headers.py
(test_built_site_follows_the_table) holds that both servers send every built file with the table's
headers and bytes that decode to the file itself, so a second 83-check run from nginx would see the
same files (its page still boots, renders and audits the seed from nginx here).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from lab import instruments, views
from lab.widgets import exact as exact_widget, ledger as ledger_widget
from sitebuild.csp import CONTENT_SECURITY_POLICY
from sitepage import (EXPECTED_COUNTER, EXPECTED_MARK, EXPECTED_SIGNATURES, FIGURES, MIN_FIGURE_PARTS, VIEW, WIDGET,
                      assert_shows, figure_markup, mismatched_figures, notes, query, readouts, slider_values,
                      status_text, summary, wait_audit, wait_instrument_audit, wait_live, wait_summary, with_width,
                      expected_instrument_counter, wait_url_written, open_more, default_pairs, address)


@pytest.fixture(scope="module")
def live(module_page):
    """One page at the site root, live, with the in-browser audit done."""
    pg = module_page(permissions=["clipboard-read", "clipboard-write"], instrument_suite=True)
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.goto(pg.base_url)
    wait_live(pg)
    wait_audit(pg)
    return pg


@pytest.fixture(scope="module", params=["serve.py", "nginx"])
def served_live(request):
    """The live page from each server. For serve.py it is `live` itself (no second boot)."""
    if request.param == "serve.py":
        return request.getfixturevalue("live")
    # a context of its own: its responses are all this page's and come from nginx, none from a cache
    pg = request.getfixturevalue("nginx_module_page")(instrument_suite=True, own_context=True)
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.responses = []
    pg.context.on("response", lambda r: pg.responses.append(r))
    response = pg.goto(pg.base_url)
    assert response.headers["server"] == "nginx"
    wait_live(pg)
    wait_audit(pg)
    return pg


# --- the site audit -------------------------------------------------------------------------------

def test_site_audit_in_browser(served_live):
    live = served_live
    counter = live.locator("[data-audit-counter]")
    assert counter.text_content() == EXPECTED_COUNTER
    assert counter.get_attribute("data-source") == "browser"
    assert "audit-pass" in counter.get_attribute("class").split()
    assert live.text_content("[data-audit-mark]") == EXPECTED_MARK
    shown = {name: live.text_content(f'[data-signature="{name}"]') for name in EXPECTED_SIGNATURES}
    assert shown == EXPECTED_SIGNATURES
    states = live.eval_on_selector_all("[data-audit-checks] li.check", "(els) => els.map((e) => e.className)")
    assert len(states) == 20 and all("check-pass" in s for s in states), states
    # The browser's lab carries no docstrings: each description is the build's, kept in place.
    described = live.eval_on_selector_all("[data-audit-checks] .check-description", "(els) => els.map((e) => e.textContent)")
    assert described == [c["description"] for c in views.audit_view()["checks"]]
    assert status_text(live) == "Live: the figures recompute in Python, in your browser, as you move the sliders."


def test_instrument_audit_in_browser(live):
    """The second counter re-runs in the browser after the seed audit, under the first one, and
    shows the frozen suite signature (docs/CONTRACT.md section 5). From tools/serve.py only: see the
    module's docstring for why nginx's identical files need no second run."""
    from lab.checks import EXPECTED_SIGNATURE

    wait_instrument_audit(live)
    counter = live.locator("[data-instrument-counter]")
    assert counter.text_content() == expected_instrument_counter()
    assert "audit-pass" in counter.get_attribute("class").split()
    assert live.text_content('[data-signature="instruments"]') == EXPECTED_SIGNATURE
    order = live.evaluate("""() => document.querySelector('[data-audit-counter]')
        .compareDocumentPosition(document.querySelector('[data-instrument-counter]'))""")
    assert order & 4, "the instruments counter must follow the seed counter"
    states = live.eval_on_selector_all("[data-instrument-checks] li.check", "(els) => els.map((e) => e.className)")
    assert len(states) == int(EXPECTED_SIGNATURE.split(":")[1]) and all("check-pass" in s for s in states), states
    described = live.eval_on_selector_all("[data-instrument-checks] .check-description", "(els) => els.map((e) => e.textContent)")
    assert described == [c["description"] for c in views.instrument_audit_view()["checks"]] and all(described)


def test_first_live_render_matches_cpython(served_live):
    """The live page swapped in the worker's markup; it equals CPython's for the same settings."""
    for kind in ("ledger", "exact"):
        assert_shows(served_live, kind, slider_values(served_live, kind))


def test_one_slider_move(served_live):
    """One step of the sampler's match slider re-renders every figure as CPython does."""
    live, sel = served_live, "#exact-match"
    start = int(slider_values(live, "exact")["match"])
    key, expect = ("ArrowLeft", start - 1) if start > 0 else ("ArrowRight", start + 1)
    live.locator(sel).focus()
    _, before = _press(live, "exact", sel, key, str(expect))
    assert figure_markup(live, "exact") != before
    assert query(live)["match"] == str(expect)


def test_the_address_is_written_once_the_settings_rest(live):
    """Five quick key presses render five times but rewrite the address once, after they stop
    (history.replaceState is the costliest part of a step on the main thread), and it then holds
    the last value; copying the link writes a pending address at once."""
    wait_url_written(live)
    live.evaluate("""() => {
      window.__urlWrites = 0;
      const replace = history.replaceState.bind(history);
      history.replaceState = (...args) => { window.__urlWrites += 1; return replace(...args); };
    }""")
    selector = "#ledger-acceptance"
    start = int(slider_values(live, "ledger")["acceptance"])
    key, sign = ("ArrowLeft", -1) if start > 50 else ("ArrowRight", 1)
    live.locator(selector).focus()
    for _ in range(5):
        live.locator(selector).press(key)
    wait_summary(live, "ledger", ledger_widget.view(slider_values(live, "ledger"))["summary"])
    assert query(live)["acceptance"] == str(start + 5 * sign)
    assert live.evaluate("() => window.__urlWrites") == 1
    # A pending write happens at once when the link is copied.
    live.locator(selector).press(key)
    wait_summary(live, "ledger", ledger_widget.view(slider_values(live, "ledger"))["summary"])
    live.locator(f'{WIDGET["ledger"]} [data-action="copy-link"]').click()
    assert live.evaluate("() => new URLSearchParams(location.search).get('acceptance')") == str(start + 6 * sign)
    live.evaluate("() => { delete history.replaceState; }")


# --- keyboard ---------------------------------------------------------------------------------------

def _press(pg, kind, selector, key, expect):
    """Press `key` on the focused slider, wait for the widget to show CPython's view of the new
    values, and check that the slider moved to `expect`. Returns (view, figures before)."""
    before_figures, before_summary = figure_markup(pg, kind), summary(pg, kind)
    pg.locator(selector).press(key)
    values = slider_values(pg, kind)
    name = pg.get_attribute(selector, "name")
    assert values[name] == expect, (key, values)
    view = assert_shows(pg, kind, values)
    assert summary(pg, kind) != before_summary
    assert pg.locator(selector).evaluate("(i) => document.activeElement === i")
    assert pg.text_content(f'{WIDGET[kind]} output[data-value-for="{name}"]') == expect
    # one short sentence for screen readers, and the slider's value with its unit
    assert pg.text_content(f"{WIDGET[kind]} [data-live]") == view["live"]
    unit = pg.get_attribute(selector, "data-unit")
    assert pg.get_attribute(selector, "aria-valuetext") == expect + ("" if unit.startswith("%") else " ") + unit
    return view, before_figures


def _full_query(pg) -> dict[str, str]:
    """The canonical address for every widget's current controls, as lab.views (and each
    instrument's view) writes it."""
    joined = ledger_widget.view(slider_values(pg, "ledger"))["query"] + "&" + \
        exact_widget.view(slider_values(pg, "exact"))["query"]
    for name in instruments.NAMES:
        values = pg.evaluate("""(k) => Object.fromEntries([...document.querySelectorAll(
            `form[data-lab='${k}'] [name]`)].filter((c) => c.name && c.type !== 'file').map((c) => [c.name, c.value]))""", name)
        joined += "&" + instruments.part("widgets", name).view(values)["query"]
    return dict(pair.split("=") for pair in joined.split("&"))


def test_keyboard_ledger(live):
    sel = "#ledger-acceptance"
    live.locator(sel).focus()
    start = int(slider_values(live, "ledger")["acceptance"])
    assert 0 < start < 99, start  # room for ArrowRight and two ArrowLefts

    for key, expect in (("ArrowRight", start + 1), ("ArrowLeft", start), ("ArrowLeft", start - 1),
                        ("End", 100), ("Home", 0), ("ArrowUp", 1)):
        _, before = _press(live, "ledger", sel, key, str(expect))
        after = figure_markup(live, "ledger")
        assert after["breakdown"] != before["breakdown"], key  # accepted drafts change the bar
        if key in ("End", "Home"):  # the outlined cell moves to the last or first row
            assert after["heatmapSelection"] != before["heatmapSelection"] and after["table"] != before["table"], key
        # acceptance never changes the cells themselves: the page keeps that SVG as it was
        assert after["heatmap"] == before["heatmap"], key
        address = query(live)
        assert address["acceptance"] == str(expect)
        assert address == _full_query(live)
        assert f"At {expect}% acceptance and lookahead" in summary(live, "ledger")
    assert live.console_errors == []


def test_closed_table_waits_until_opened(live):
    """A figure inside a closed <details> is not swapped per step (nobody sees it); opening the
    <details> shows the latest settings' markup."""
    sel = "#ledger-acceptance"
    table = f"{WIDGET['ledger']} [data-figure='table']"
    assert live.evaluate(f"() => !document.querySelector(`{table}`).closest('details').open")
    live.evaluate(f"""() => {{
        window.__tableMutations = 0;
        new MutationObserver(() => window.__tableMutations++).observe(
            document.querySelector(`{table}`), {{ childList: true, subtree: true }});
    }}""")
    start = int(slider_values(live, "ledger")["acceptance"])
    live.locator(sel).focus()
    for key in ("Home", "End", "ArrowLeft"):
        live.locator(sel).press(key)
        view = ledger_widget.view(with_width(live, "ledger", slider_values(live, "ledger")))
        wait_summary(live, "ledger", view["summary"])
    assert int(slider_values(live, "ledger")["acceptance"]) != start
    assert live.evaluate("() => window.__tableMutations") == 0
    live.click(f"{WIDGET['ledger']} details.lab-table > summary")
    live.wait_for_function("() => window.__tableMutations > 0", timeout=5000)
    assert mismatched_figures(live, "ledger", view) == []
    live.click(f"{WIDGET['ledger']} details.lab-table > summary")
    assert live.console_errors == []


def test_keyboard_exact(live):
    certainty, cost = "#exact-certainty", "#exact-draftCost"
    start = slider_values(live, "exact")
    ledger_cost = slider_values(live, "ledger")["draftCost"]
    c, d = int(start["certainty"]), int(start["draftCost"])
    assert 0 < c < 100 and 0 < d < 99, start

    live.locator(certainty).focus()
    _, before = _press(live, "exact", certainty, "ArrowRight", str(c + 1))
    after = figure_markup(live, "exact")
    assert after["distributions"] != before["distributions"]  # p is more peaked
    assert query(live)["certainty"] == str(c + 1)
    _press(live, "exact", certainty, "ArrowLeft", str(c))
    assert query(live)["certainty"] == str(c)

    # The exact lab's draft cost travels as exactDraftCost; the ledger's draftCost is untouched.
    open_more(live, cost)
    live.locator(cost).focus()
    shown_before = readouts(live, "exact")
    for key, expect in (("ArrowRight", d + 1), ("ArrowRight", d + 2)):
        _press(live, "exact", cost, key, str(expect))
        address = query(live)
        assert address["exactDraftCost"] == str(expect)
        assert address["draftCost"] == ledger_cost
        assert address == _full_query(live)
    assert slider_values(live, "ledger")["draftCost"] == ledger_cost
    assert readouts(live, "exact")["theoreticalSpeedup"] != shown_before["theoreticalSpeedup"]
    assert live.console_errors == []


# --- screen readers, the seed, pointing at the heatmap ---------------------------------------------

def test_only_the_short_sentence_is_live(live):
    """The summary paragraph and the value outputs are not live regions; one short region per widget is."""
    for kind in ("ledger", "exact"):
        assert live.get_attribute(f"{WIDGET[kind]} output[name=summary]", "aria-live") == "off"
        assert live.evaluate(f"""() => [...document.querySelectorAll('{WIDGET[kind]} output[data-value-for]')]
            .every((o) => o.getAttribute('aria-live') === 'off')""")
        assert live.locator(f"{WIDGET[kind]} [aria-live=polite]").count() == 1
        assert len(live.text_content(f"{WIDGET[kind]} [data-live]").split()) <= 12
    assert live.evaluate("() => [...document.querySelectorAll('input[type=range]')].every((i) => i.hasAttribute('aria-valuetext'))")
    # the boot reported its bytes as they came: about all of the runtime and the lab
    received, total = live.evaluate("""() => [Number(document.documentElement.dataset.bootReceived),
        JSON.parse(document.getElementById('lab-config').textContent).bootBytes]""")
    assert total > 1_000_000 and 0.9 * total <= received <= 1.1 * total, (received, total)


def test_new_seed_button(live):
    seed = live.locator("#exact-seed")
    assert seed.get_attribute("type") == "number"
    before = seed.input_value()
    open_more(live, "#exact-seed")
    live.locator('button[data-action="new-seed"][data-for="exact-seed"]').click()
    after = seed.input_value()
    assert after != before and 0 <= int(after) <= 9999
    view = assert_shows(live, "exact", slider_values(live, "exact"))
    assert view["params"]["seed"] == int(after)
    assert query(live)["seed"] == after
    assert live.text_content("#exact-lab [data-live]") == view["live"]
    assert live.console_errors == []


def test_heatmap_hover_readout(live):
    grid = live.locator('[data-figure="heatmap"] .fig-hits')
    assert grid.count() == 1
    box = grid.bounding_box()
    grid.hover(position={"x": 2, "y": 2})  # the top-left cell: 100% acceptance, lookahead 1
    first_row = live.evaluate("() => document.querySelector('.heatmap-table tbody tr td').textContent")
    assert live.text_content("#ledger-lab [data-tip-readout]") == f"acceptance 100%, lookahead 1: {first_row}x"
    grid.hover(position={"x": box["width"] - 2, "y": box["height"] - 2})  # bottom-right: 0%, 12
    assert live.text_content("#ledger-lab [data-tip-readout]").startswith("acceptance 0%, lookahead 12: ")


# --- copy link --------------------------------------------------------------------------------------

def test_copy_link(live):
    """A widget's link holds its own settings that differ from the defaults, and its fragment."""
    for kind in ("ledger", "exact"):
        status = live.locator(f"{WIDGET[kind]} [data-copy-status]")
        live.evaluate("(el) => { el.textContent = ''; }", status.element_handle())
        live.locator(f'{WIDGET[kind]} [data-action="copy-link"]').click()
        live.wait_for_function("(el) => el.textContent !== ''", arg=status.element_handle())
        own = [pair for pair in VIEW[kind](slider_values(live, kind))["query"].split("&") if pair not in default_pairs()]
        base = live.url.split("?")[0].split("#")[0]
        url = base + ("?" + "&".join(own) if own else "") + WIDGET[kind]
        text = status.text_content()
        assert text in ("Link copied.", f"Copy this link: {url}"), (text, url)
        if text == "Link copied.":  # this context may read the clipboard: it holds the link
            assert live.evaluate("() => navigator.clipboard.readText()") == url
    assert live.console_errors == []


# --- the whole session on the shared page -------------------------------------------------------------

def test_served_page_console_and_network(served_live):
    """Nothing the core tests did on this server's page logged an error or left the origin; from
    nginx, the big files came precompressed and the document under the policy header."""
    live = served_live
    assert live.console_errors == []
    assert live.foreign_requests() == []
    assert live.dialogs == []
    assert any("/pyodide-" in u and u.endswith("/pyodide.asm.wasm") for u in live.requests)
    if hasattr(live, "responses"):
        encodings = {urlsplit(r.url).path.rsplit("/", 1)[-1]: r.headers.get("content-encoding")
                     for r in live.responses}
        assert encodings["pyodide.asm.wasm"] in ("gzip", "br") and encodings[""] in ("gzip", "br"), encodings
        document = next(r for r in live.responses if urlsplit(r.url).path == "/")
        assert document.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_live_page_console_and_network(live):
    """Runs last of the tests on the shared serve.py page: nothing they did logged an error or
    left the origin."""
    assert live.console_errors == []
    assert live.foreign_requests() == []
    assert live.dialogs == []
    assert any("/pyodide-" in u and u.endswith("/pyodide.asm.wasm") for u in live.requests)


# --- without JavaScript -----------------------------------------------------------------------------

def test_page_without_javascript(page, built_site):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    # the two widgets' entries of views.page_context()['widgets'], made by the same calls without the
    # rest of the page's context (both audits and every other widget: seconds of CPU this never reads)
    ctx = {"widgets": {"ledger": ledger_widget.page_context(), "exact": exact_widget.page_context()}}
    html = (built_site / "index.html").read_text(encoding="utf-8")

    for kind in ("ledger", "exact"):
        view = ctx["widgets"][kind]["view"]
        for name in FIGURES[kind]:
            assert view["figures"][name] in html, name  # the build wrote CPython's markup verbatim
        figures_shown = figure_markup(pg, kind)
        for name in FIGURES[kind]:
            element = "table" if name == "table" else "svg"
            assert pg.locator(f'{WIDGET[kind]} [data-figure="{name}"] {element}').count() == 1, name
            assert len(figures_shown[name]) > (200 if name in MIN_FIGURE_PARTS else 500), name
        assert summary(pg, kind) == view["summary"]
        # the answer leads, visible; the working is folded under it and opens without JavaScript
        assert pg.locator(f'form[data-lab="{kind}"] output[name="lead"]').inner_text() == view["lead"]
        working = pg.locator(f'form[data-lab="{kind}"] output[name="summary"]')
        assert not working.is_visible()
        pg.locator(f'form[data-lab="{kind}"] .lab-working > summary').click()
        assert working.is_visible()
        assert notes(pg, kind) == []
        for spec in ctx["widgets"][kind]["sliders"]:
            slider, value = spec["name"], view["params"][spec["name"]]
            # shown as JavaScript's String(value) would: 74, not 74.0
            shown = str(int(value)) if float(value).is_integer() else repr(float(value))
            if spec["control"] == "range":
                assert pg.text_content(f'{WIDGET[kind]} output[data-value-for="{slider}"]') == shown
            assert pg.get_attribute(f'{WIDGET[kind]} [name="{slider}"]', "value") == shown
        # Without JavaScript nothing could act on a control: every one is shipped disabled.
        assert pg.evaluate(f"""() => [...document.querySelectorAll('{WIDGET[kind]} input, {WIDGET[kind]} form button')]
            .every((c) => c.disabled)""")
    assert readouts(pg, "exact") == ctx["widgets"]["exact"]["view"]["readouts"]
    # every one of the 12 x 21 cells is drawn: one unit square "M{col} {row}h1v1h-1z" per cell
    cells = pg.evaluate("""() => [...document.querySelectorAll('[data-figure="heatmap"] svg g path')]
        .map((path) => (path.getAttribute('d').match(/h1v1h-1z/g) || []).length).reduce((a, b) => a + b, 0)""")
    assert cells == 12 * 21
    assert summary(pg, "ledger").startswith("At 74% acceptance and lookahead 5,")

    counter = pg.locator("[data-audit-counter]")
    assert counter.text_content() == EXPECTED_COUNTER and counter.get_attribute("data-source") == "build"
    assert counter.is_visible()
    assert pg.text_content("[data-audit-mark]") == "computed when this page was built"
    shown = {name: pg.text_content(f'[data-signature="{name}"]') for name in EXPECTED_SIGNATURES}
    assert shown == EXPECTED_SIGNATURES
    instrument_counter = pg.locator("[data-instrument-counter]")
    assert instrument_counter.text_content() == expected_instrument_counter()
    assert instrument_counter.get_attribute("data-source") == "build"
    assert status_text(pg).startswith("The figures below show the default settings, computed when this page was "
                                      "built. Moving them needs JavaScript, which is off")
    assert pg.evaluate("() => document.documentElement.dataset.labState ?? null") is None
    assert pg.console_errors == []
    assert pg.foreign_requests() == []
    assert not any("/pyodide-" in u or "/worker." in u for u in pg.requests)


# --- restoring settings from the address ------------------------------------------------------------

def test_url_restore(page):
    pg = page()
    search = "?acceptance=90&lookahead=3&certainty=20&exactDraftCost=30"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    ledger, exact = slider_values(pg, "ledger"), slider_values(pg, "exact")
    assert (ledger["acceptance"], ledger["lookahead"]) == ("90", "3")
    assert (exact["certainty"], exact["draftCost"]) == ("20", "30")
    assert ledger["draftCost"] == "12"  # exactDraftCost is the sampler's, not the ledger's
    for kind, name, value in (("ledger", "acceptance", "90"), ("ledger", "lookahead", "3"),
                              ("exact", "certainty", "20"), ("exact", "draftCost", "30")):
        assert pg.text_content(f'{WIDGET[kind]} output[data-value-for="{name}"]') == value
    # Both widgets show exactly what CPython computes from the same address.
    assert_shows(pg, "ledger", search)
    assert_shows(pg, "exact", search)
    assert summary(pg, "ledger").startswith("At 90% acceptance and lookahead 3,")
    # exact_view at certainty 20 / draft cost 30 differs from the default render: the restore took.
    assert summary(pg, "exact") != exact_widget.view()["summary"]
    assert summary(pg, "exact") == exact_widget.view({"certainty": "20", "draftCost": "30"})["summary"]
    # The address is rewritten to the canonical settings that differ from the defaults.
    shown = address(pg)
    assert shown["acceptance"] == "90" and shown["lookahead"] == "3"
    assert shown["certainty"] == "20" and shown["exactDraftCost"] == "30" and "draftCost" not in shown
    assert pg.console_errors == []
    assert pg.foreign_requests() == []
