"""The lookahead-policies widget in Chromium: pre-rendered with JavaScript off, live figures equal to
CPython's lab.widgets.policies.view for the same values, keyboard use, URL state, no console errors."""

import pytest

from lab.widgets import policies as widget
from sitepage import notes, query, slider_values, summary, wait_live

KIND, SELECTOR = "policies", "#policies-lab"
FIGURES = ("bars", "strip", "table")


def _figures(pg) -> dict[str, str]:
    return pg.evaluate("""([sel, names]) => Object.fromEntries(names.map((n) =>
        [n, document.querySelector(`${sel} [data-figure='${n}']`).innerHTML]))""", [SELECTOR, list(FIGURES)])


def _readouts(pg) -> dict[str, str]:
    return pg.evaluate("""(sel) => Object.fromEntries([...document.querySelectorAll(`${sel} [data-readout]`)]
        .map((d) => [d.dataset.readout, d.textContent]))""", SELECTOR)


def _mismatched(pg, view) -> list[str]:
    """Figure regions whose DOM differs from `view`'s markup (both through the browser's parser)."""
    return pg.evaluate("""([sel, figures]) => Object.entries(figures).filter(([name, markup]) => {
        const scratch = document.createElement('div');
        scratch.innerHTML = markup;
        return document.querySelector(`${sel} [data-figure='${name}']`).innerHTML !== scratch.innerHTML;
    }).map(([name]) => name)""", [SELECTOR, view["figures"]])


def _shows(pg, raw):
    """Wait until the widget shows view(raw)'s summary, then check figures, readouts and notes."""
    view = widget.view(raw)
    pg.wait_for_function(
        "([k, text]) => document.querySelector(`form[data-lab='${k}'] output[name='summary']`).value === text",
        arg=[KIND, view["summary"]], timeout=15_000)
    assert _mismatched(pg, view) == []
    assert _readouts(pg) == view["readouts"]
    assert notes(pg, KIND) == view["notes"]
    return view


@pytest.fixture(scope="module")
def live(module_page):
    pg = module_page()
    pg.goto(pg.base_url + "#queue")
    wait_live(pg)
    return pg


def test_prerendered_without_javascript(page, built_site):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    default = widget.view(None)
    html = (built_site / "index.html").read_text(encoding="utf-8")
    for name in FIGURES:
        assert default["figures"][name] in html, name
    assert summary(pg, KIND) == default["summary"]
    assert _readouts(pg) == default["readouts"]
    assert pg.locator(f"{SELECTOR} [data-figure='bars'] svg rect").count() == 6
    assert pg.locator(f"{SELECTOR} [data-figure='table'] tbody tr").count() == 6
    for slider in widget.SLIDERS:
        assert pg.text_content(f'{SELECTOR} output[data-value-for="{slider.name}"]') == default["shown"][slider.name]
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_keyboard_moves_the_widget_to_cpythons_view(live):
    burst = f"{SELECTOR} input[name='burst']"
    start = int(slider_values(live, KIND)["burst"])
    live.locator(burst).focus()
    before = _figures(live)
    for key, expect in (("ArrowLeft", start - 1), ("Home", 0), ("ArrowRight", 1)):
        live.locator(burst).press(key)
        values = slider_values(live, KIND)
        assert values["burst"] == str(expect), key
        view = _shows(live, values)
        assert live.locator(burst).evaluate("(i) => document.activeElement === i")
        assert query(live)["polBurst"] == str(expect)
        if expect == 0:  # burstiness 0: independent tokens, no stretches in the strip
            assert "accepted independently" in view["summary"] and "k-pol-good" not in view["figures"]["strip"]
    assert _figures(live)["strip"] != before["strip"]  # the stretches changed, so did the time strip
    threshold = f"{SELECTOR} input[name='threshold']"
    live.locator(threshold).focus()
    live.locator(threshold).press("End")
    _shows(live, slider_values(live, KIND))
    assert query(live)["polThreshold"] == "100"
    assert live.console_errors == []


def test_url_state_round_trips(page):
    pg = page()
    search = "?polAcceptance=60&polDraftCost=25&polBurst=90&polThreshold=55&polLookahead=3&acceptance=80"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    view = _shows(pg, search)
    values = slider_values(pg, KIND)
    assert (values["acceptance"], values["burst"], values["lookahead"]) == ("60", "90", "3")
    assert slider_values(pg, "ledger")["acceptance"] == "80"  # the ledger's key is its own
    address = query(pg)
    assert {k: v for k, v in address.items() if k.startswith("pol")} == dict(
        pair.split("=") for pair in view["query"].split("&"))
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_bad_url_values_are_clamped_with_a_note(page):
    pg = page()
    search = "?polAcceptance=250&polBurst=abc"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    view = _shows(pg, search)
    assert len(view["notes"]) == 2 and notes(pg, KIND) == view["notes"]
    assert slider_values(pg, KIND)["acceptance"] == "99"
    assert pg.console_errors == []


def test_phone_width_does_not_scroll_the_page(page):
    pg = page(viewport={"width": 390, "height": 800})
    pg.goto(pg.base_url + "#queue")
    wait_live(pg)
    right = pg.evaluate(f"() => document.querySelector('{SELECTOR}').getBoundingClientRect().right")
    assert right <= 390
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
