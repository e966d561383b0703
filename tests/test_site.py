"""The built page in Chromium: the site audit, the page without JavaScript, keyboard use of the
sliders, restoring settings from the address, copying a link, and a clean console.

Tests that only read or move sliders share one live page (module scope): a cold Pyodide boot
costs seconds. Each test reads the sliders' current values rather than assuming defaults, so the
order of the tests does not matter for their assertions.
"""

from __future__ import annotations

import pytest

from lab import views
from sitepage import (EXPECTED_COUNTER, EXPECTED_MARK, EXPECTED_SIGNATURES, FIGURES, MIN_FIGURE_PARTS, WIDGET,
                      assert_shows, figure_markup, mismatched_figures, notes, query, readouts, slider_values,
                      status_text, summary, wait_audit, wait_live, wait_summary)


@pytest.fixture(scope="module")
def live(module_page):
    """One page at the site root, live, with the in-browser audit done."""
    pg = module_page(permissions=["clipboard-read", "clipboard-write"])
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.goto(pg.base_url)
    wait_live(pg)
    wait_audit(pg)
    return pg


# --- the site audit -------------------------------------------------------------------------------

def test_site_audit_in_browser(live):
    counter = live.locator("[data-audit-counter]")
    assert counter.text_content() == EXPECTED_COUNTER
    assert counter.get_attribute("data-source") == "browser"
    assert "audit-pass" in counter.get_attribute("class").split()
    assert live.text_content("[data-audit-mark]") == EXPECTED_MARK
    shown = {name: live.text_content(f'[data-signature="{name}"]') for name in EXPECTED_SIGNATURES}
    assert shown == EXPECTED_SIGNATURES
    states = live.eval_on_selector_all("[data-audit-checks] li.check", "(els) => els.map((e) => e.className)")
    assert len(states) == 20 and all("check-pass" in s for s in states), states
    assert status_text(live) == "Live: the figures recompute in Python, in your browser, as you move the sliders."


def test_first_live_render_matches_cpython(live):
    """The live page swapped in the worker's markup; it equals CPython's for the same settings."""
    for kind in ("ledger", "exact"):
        assert_shows(live, kind, slider_values(live, kind))


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
    return view, before_figures


def _full_query(pg) -> dict[str, str]:
    """The canonical address for both widgets' current sliders, as lab.views writes it."""
    joined = views.ledger_view(slider_values(pg, "ledger"))["query"] + "&" + \
        views.exact_view(slider_values(pg, "exact"))["query"]
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
        view = views.ledger_view(slider_values(live, "ledger"))
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


# --- copy link --------------------------------------------------------------------------------------

def test_copy_link(live):
    for kind in ("ledger", "exact"):
        status = live.locator(f"{WIDGET[kind]} [data-copy-status]")
        live.evaluate("(el) => { el.textContent = ''; }", status.element_handle())
        live.locator(f'{WIDGET[kind]} [data-action="copy-link"]').click()
        live.wait_for_function("(el) => el.textContent !== ''", arg=status.element_handle())
        text, url = status.text_content(), live.url
        assert text in ("Link copied.", f"Copy this link: {url}"), text
        if text == "Link copied.":  # this context may read the clipboard: it holds the address
            assert live.evaluate("() => navigator.clipboard.readText()") == url
    assert live.console_errors == []


# --- the whole session on the shared page -------------------------------------------------------------

def test_live_page_console_and_network(live):
    """Runs last in this module: nothing the tests above did logged an error or left the origin."""
    assert live.console_errors == []
    assert live.foreign_requests() == []
    assert live.dialogs == []
    assert any("/pyodide-" in u and u.endswith("/pyodide.asm.wasm") for u in live.requests)


# --- without JavaScript -----------------------------------------------------------------------------

def test_page_without_javascript(page, built_site):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    ctx = views.page_context()
    html = (built_site / "index.html").read_text(encoding="utf-8")

    for kind in ("ledger", "exact"):
        view = ctx[kind]
        for name in FIGURES[kind]:
            assert view["figures"][name] in html, name  # the build wrote CPython's markup verbatim
        figures_shown = figure_markup(pg, kind)
        for name in FIGURES[kind]:
            element = "table" if name == "table" else "svg"
            assert pg.locator(f'{WIDGET[kind]} [data-figure="{name}"] {element}').count() == 1, name
            assert len(figures_shown[name]) > (200 if name in MIN_FIGURE_PARTS else 500), name
        assert summary(pg, kind) == view["summary"]
        assert pg.locator(f'form[data-lab="{kind}"] output[name="summary"]').is_visible()
        assert notes(pg, kind) == []
        for slider, value in ((s["name"], view["params"][s["name"]]) for s in ctx[f"{kind}Sliders"]):
            # shown as JavaScript's String(value) would: 74, not 74.0
            shown = str(int(value)) if float(value).is_integer() else repr(float(value))
            assert pg.text_content(f'{WIDGET[kind]} output[data-value-for="{slider}"]') == shown
    assert readouts(pg, "exact") == ctx["exact"]["readouts"]
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
    assert "computed when this page was built" in status_text(pg)
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
    assert summary(pg, "exact") != views.exact_view()["summary"]
    assert summary(pg, "exact") == views.exact_view({"certainty": "20", "draftCost": "30"})["summary"]
    # The address is rewritten to the canonical, complete settings.
    address = query(pg)
    assert address["acceptance"] == "90" and address["lookahead"] == "3"
    assert address["certainty"] == "20" and address["exactDraftCost"] == "30" and address["draftCost"] == "12"
    assert pg.console_errors == []
    assert pg.foreign_requests() == []
