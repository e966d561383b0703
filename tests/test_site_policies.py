"""The lookahead-policies widget in Chromium: pre-rendered with JavaScript off, live figures equal to
CPython's lab.widgets.policies.view for the same values at the panel's width, keyboard use, URL state,
the measured-curve mode (polCurve, set through the page's generic send mechanism), no console errors.
The first tests run in CPython only: the view's curve mode and its figures' layout at every width."""

import re

import pytest

import sitepage
from lab import figures, policies, traces
from lab.widgets import policies as widget
from sitepage import assert_shows, notes, query, slider_values, summary, wait_live

KIND, SELECTOR = "policies", "#policies-lab"
PRESET = "club3090-mtp"


# --- CPython: the measured-curve mode and the layout ---------------------------------------------

def test_curve_mode_evaluates_the_measured_curve():
    sliders = widget.view({"draftCost": "12", "threshold": "40", "lookahead": "5"})
    view = widget.view({"draftCost": "12", "threshold": "40", "lookahead": "5", "polCurve": PRESET, "width": "400"})
    curve, label, linkable = traces.ledger_curve(PRESET)
    expected = policies.evaluate_policies(policies.received_curve(curve), policies.Costs(0.12), 5, 0.4)
    assert view["curveMode"] and linkable and view["notes"] == []
    assert view["summary"].startswith(f"In measured curve mode ({label};") and view["summary"] != sliders["summary"]
    assert view["live"].startswith("Measured curve:") and len(view["live"].split()) < 12
    assert view["readouts"]["bestStatic"] == f"k = {expected['best-static']['k']}, {expected['best-static']['speedup']:.2f}x"
    for name, numbers in view["policies"].items():
        assert numbers["speedup"] == expected[name]["speedup"], name
    # a per-depth curve has no stretches: the best k per stretch is hidden, the threshold marked modelled
    assert "state-aware" not in view["policies"] and "best k per stretch" not in view["figures"]["bars"]
    assert "(modelled)" in view["figures"]["bars"] and view["figures"]["table"].count("<tr>") == 1 + 5
    assert "k-lull" not in view["figures"]["strip"]
    assert view["shown"]["polCurve"] == PRESET and view["query"].endswith(f"&polCurve={PRESET}")
    assert 'data-action="send"' in view["figures"]["mode"] and "&quot;polCurve&quot;: &quot;&quot;" in view["figures"]["mode"]
    # the same from the address, and the width changes the drawing only
    again = widget.view(f"?{view['query']}")
    assert again["summary"] == view["summary"] and again["shown"]["polCurve"] == PRESET
    assert again["figures"]["bars"] != view["figures"]["bars"] and again["figures"]["table"] == view["figures"]["table"]


def test_curve_mode_falls_back_with_a_note_and_keeps_own_data_out_of_the_address():
    plain = widget.view("?polBurst=30")
    bad = widget.view("?polBurst=30&polCurve=../etc")
    assert not bad["curveMode"] and bad["summary"] == plain["summary"] and bad["shown"]["polCurve"] == ""
    assert len(bad["notes"]) == 1 and bad["notes"][0].startswith("polCurve:") and "using the sliders" in bad["notes"][0]
    own = widget.view({"polCurve": "custom:0.9,0.6,0.5"})
    assert own["curveMode"] and "your own trace" in own["summary"] and "polCurve" not in own["query"]
    assert any("cannot be put in a link" in note for note in own["notes"])
    assert widget.view({"polCurve": ""})["summary"] == widget.view(None)["summary"]
    assert widget.view(None)["figures"]["mode"] == ""


def test_acceptance_process_select():
    toy = widget.view({"polProcess": "toy"})
    expected = policies.evaluate_policies(policies.toy(64, 72), policies.Costs(0.12), 5, 0.4)
    assert toy["summary"].startswith("On the sampler's toy model") and toy["live"].startswith("Toy model:")
    assert all(toy["policies"][n]["speedup"] == expected[n]["speedup"] for n in toy["policies"])
    assert "k per position slot" in toy["figures"]["bars"] and toy["query"].endswith("&polProcess=toy")
    assert widget.view(f"?{toy['query']}")["summary"] == toy["summary"]
    independent = widget.view({"polProcess": "independent", "burst": "80"})
    assert independent["summary"] == widget.view({"burst": "0"})["summary"]
    default = widget.view(None)
    assert default["shown"]["polProcess"] == "bursty" and "polProcess" not in default["query"]
    bad = widget.view("?polProcess=zzz")
    assert bad["summary"] == default["summary"] and bad["notes"][0].startswith("Acceptance process:")


def _sizes() -> dict[str, float]:
    css = (sitepage.views.__file__.rsplit("lab", 1)[0] + "site/widgets.css")
    with open(css, encoding="utf-8") as handle:
        return {name: float(size) for name, size in
                re.findall(r"\.(fig-[a-z]+)\s*\{[^}]*font-size:\s*([0-9.]+)px", handle.read())}


@pytest.mark.parametrize("width", [320, 360, 400, 520, 640, 920, 960])
@pytest.mark.parametrize("raw", [{}, {"polCurve": PRESET}, {"polProcess": "toy"}, {"acceptance": "99", "draftCost": "0", "burst": "95"},
                                 {"acceptance": "1", "draftCost": "100", "burst": "0", "lookahead": "20"}])
def test_figures_lay_out_for_their_width(width, raw):
    sizes = _sizes()
    view = widget.view({**raw, "width": str(width)})
    assert view["width"] == width and "width" not in view["query"]
    for name in ("bars", "strip"):
        svg = view["figures"][name]
        assert f'width="{width}"' in svg[:svg.index(">")] and f'viewBox="0 0 {width} ' in svg[:svg.index(">")]
        for classes, x, anchor, text in re.findall(
                r'<text class="([^"]*)" x="(-?[0-9.]+)" y="[^"]*"(?: text-anchor="([a-z]+)")?[^>]*>([^<]*)</text>', svg):
            size = max(sizes[c] for c in classes.split() if c in sizes)
            assert figures.MIN_TEXT <= size <= 18
            span = figures.text_width(text.replace("&#x27;", "'"), size)
            left = float(x) - {"middle": span / 2, "end": span}.get(anchor, 0)
            assert -1 <= left and left + span <= width + 1, (name, text, left, left + span)
        assert "<text>" not in svg and len(re.findall("<text ", svg)) == len(re.findall('<text class="fig-', svg))


# --- in the browser -------------------------------------------------------------------------------

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
    for name in sitepage.FIGURES[KIND]:
        assert default["figures"][name] in html, name
    assert summary(pg, KIND) == default["summary"]
    assert sitepage.readouts(pg, KIND) == default["readouts"]
    assert pg.get_attribute(f"form[data-lab='{KIND}']", "data-width") == str(default["width"])
    assert pg.locator(f"{SELECTOR} [data-figure='bars'] svg rect").count() == 6
    assert pg.locator(f"{SELECTOR} [data-figure='table'] tbody tr").count() == 6
    assert pg.locator(f"form[data-lab='{KIND}'] input:not([disabled]), form[data-lab='{KIND}'] select:not([disabled])").count() == 0
    for slider in widget.SLIDERS:
        assert pg.text_content(f'{SELECTOR} output[data-value-for="{slider.name}"]') == default["shown"][slider.name]
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_keyboard_moves_the_widget_to_cpythons_view(live):
    burst = f"{SELECTOR} input[name='burst']"
    start = int(slider_values(live, KIND)["burst"])
    live.locator(burst).focus()
    before = sitepage.figure_markup(live, KIND)
    for key, expect in (("ArrowLeft", start - 1), ("Home", 0), ("ArrowRight", 1)):
        live.locator(burst).press(key)
        values = slider_values(live, KIND)
        assert values["burst"] == str(expect), key
        view = assert_shows(live, KIND, values)
        assert live.locator(burst).evaluate("(i) => document.activeElement === i")
        assert query(live)["polBurst"] == str(expect)
        if expect == 0:  # burstiness 0: independent tokens, no stretches in the strip
            assert "accepted independently" in view["summary"] and "k-lull" not in view["figures"]["strip"]
    assert sitepage.figure_markup(live, KIND)["strip"] != before["strip"]  # the stretches changed, so did the strip
    threshold = f"{SELECTOR} input[name='threshold']"
    sitepage.open_more(live, threshold)
    live.locator(threshold).focus()
    live.locator(threshold).press("End")
    assert_shows(live, KIND, slider_values(live, KIND))
    assert query(live)["polThreshold"] == "100"
    assert live.console_errors == []


def test_a_sent_curve_switches_to_curve_mode_and_back(live):
    """What the traces widget's button does: the generic send mechanism sets the hidden polCurve."""
    live.evaluate("""([sel, values]) => { const b = document.createElement('button');
        b.type = 'button'; b.id = 'test-send'; b.dataset.action = 'send'; b.dataset.target = 'policies';
        b.dataset.values = values; b.textContent = 'Send the curve';
        document.querySelector(sel).append(b); }""", [SELECTOR, f'{{"polCurve": "{PRESET}"}}'])
    live.click("#test-send")
    values = slider_values(live, KIND)
    assert values["polCurve"] == PRESET
    view = assert_shows(live, KIND, values)
    assert summary(live, KIND).startswith("In measured curve mode (") and view["curveMode"]
    assert query(live)["polCurve"] == PRESET
    assert live.locator(f"{SELECTOR} [data-figure='bars'] svg rect").count() == 5
    # moving a slider keeps the curve; "Use the sliders" leaves it
    sitepage.open_more(live, f"{SELECTOR} input[name='draftCost']")
    live.locator(f"{SELECTOR} input[name='draftCost']").press("ArrowRight")
    assert assert_shows(live, KIND, slider_values(live, KIND))["curveMode"]
    live.click(f"{SELECTOR} [data-figure='mode'] button[data-action='send']")
    values = slider_values(live, KIND)
    assert values["polCurve"] == ""
    view = assert_shows(live, KIND, values)
    assert not view["curveMode"] and "polCurve" not in query(live)
    assert live.locator(f"{SELECTOR} [data-figure='mode'] button").count() == 0
    live.evaluate("() => document.getElementById('test-send').remove()")
    assert live.console_errors == []


def test_process_select_moves_the_widget(live):
    select = f"{SELECTOR} select[name='polProcess']"
    sitepage.open_more(live, select)
    live.locator(select).select_option("toy")
    values = {**slider_values(live, KIND), "polProcess": "toy"}
    view = assert_shows(live, KIND, values)
    assert view["summary"].startswith("On the sampler's toy model") and query(live)["polProcess"] == "toy"
    live.locator(select).select_option("bursty")
    assert not assert_shows(live, KIND, slider_values(live, KIND))["summary"].startswith("On the")
    assert "polProcess" not in query(live) and live.console_errors == []


def test_url_state_round_trips(page):
    pg = page()
    search = "?polAcceptance=60&polDraftCost=25&polBurst=90&polThreshold=55&polLookahead=3&acceptance=80"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    view = assert_shows(pg, KIND, search)
    values = slider_values(pg, KIND)
    assert (values["acceptance"], values["burst"], values["lookahead"]) == ("60", "90", "3")
    assert slider_values(pg, "ledger")["acceptance"] == "80"  # the ledger's key is its own
    address = query(pg)
    assert {k: v for k, v in address.items() if k.startswith("pol")} == dict(
        pair.split("=") for pair in view["query"].split("&"))
    # the curve mode comes back from the address too
    toy = "?polProcess=toy&polDraftCost=20"
    pg.goto(pg.base_url + toy)
    wait_live(pg)
    assert assert_shows(pg, KIND, toy)["summary"].startswith("On the sampler's toy model")
    assert pg.input_value(f"{SELECTOR} select[name='polProcess']") == "toy"
    curve = f"?polCurve={PRESET}&polLookahead=6"
    pg.goto(pg.base_url + curve)
    wait_live(pg)
    assert assert_shows(pg, KIND, curve)["curveMode"]
    assert pg.input_value(f"form[data-lab='{KIND}'] input[name='polCurve']") == PRESET
    assert query(pg)["polCurve"] == PRESET
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_bad_url_values_are_clamped_with_a_note(page):
    pg = page()
    search = "?polAcceptance=250&polBurst=abc&polCurve=nope"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    view = assert_shows(pg, KIND, search)
    assert len(view["notes"]) == 3 and notes(pg, KIND) == view["notes"]
    assert slider_values(pg, KIND)["acceptance"] == "99" and not view["curveMode"]
    assert pg.console_errors == []


def test_phone_width_does_not_scroll_the_page(page):
    pg = page(viewport={"width": 390, "height": 800})
    pg.goto(pg.base_url + "#queue")
    wait_live(pg)
    right = pg.evaluate(f"() => document.querySelector('{SELECTOR}').getBoundingClientRect().right")
    assert right <= 390
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
    # the redraw for the panel's width follows reaching the widget (the built figures are 640 wide)
    sitepage.reach_every_widget(pg, [KIND])
    pg.wait_for_function("(k) => Number(document.querySelector(`form[data-lab='${k}']`).dataset.width) < 400", arg=KIND)
    width = pg.get_attribute(f"form[data-lab='{KIND}']", "data-width")
    assert int(width) < 400 and f'viewBox="0 0 {width} ' in pg.inner_html(f"{SELECTOR} [data-figure='bars']")
    assert pg.evaluate(f"""() => [...document.querySelectorAll('{SELECTOR} .figure-panel')]
        .every((p) => p.scrollWidth <= p.clientWidth)""")
