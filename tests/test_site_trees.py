"""The token-tree widget in Chromium: pre-rendered with JavaScript off, live slider changes equal to
what lab.widgets.trees.view() computes in CPython, keyboard use, URL state, a clean console."""

from __future__ import annotations

import sitepage
from lab.widgets import trees as widget
from sitepage import assert_shows, figure_width, mismatched_figures, open_more, query, readouts, summary, wait_live

SELECTOR = "#trees-lab"
KIND = "trees"


def _figures(pg) -> dict[str, str]:
    return pg.evaluate("""(sel) => Object.fromEntries([...document.querySelectorAll(`${sel} [data-figure]`)]
        .map((el) => [el.dataset.figure, el.innerHTML]))""", SELECTOR)


def _controls(pg) -> dict[str, str]:
    """What app.js sends: every named input and select of the form (the width is added by assert_shows)."""
    return pg.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        `form[data-lab='trees'] input[name], form[data-lab='trees'] select[name]`)].map((i) => [i.name, i.value]))""")


def _sliders(pg) -> dict[str, str]:
    return {name: value for name, value in _controls(pg).items() if name != widget.COST_KEY}


def _assert_shows(pg, raw):
    return assert_shows(pg, KIND, raw)


def _readouts(pg) -> dict[str, str]:
    return readouts(pg, KIND)


def test_prerendered_without_javascript(page):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    view = widget.view({"width": figure_width(pg, KIND)})
    assert view["width"] == 640   # pre-rendered at the default width
    assert summary(pg, KIND) == view["summary"]
    assert mismatched_figures(pg, KIND, view) == []
    assert _readouts(pg) == view["readouts"]
    controls = pg.locator(f"form[data-lab='{KIND}'] input, form[data-lab='{KIND}'] select")
    assert controls.count() == 9 and all(controls.nth(i).is_disabled() for i in range(controls.count()))  # 9: treCurve
    assert pg.locator(f"{SELECTOR} [data-figure='tree'] svg circle").count() == view["tree"]["nodes"]
    assert pg.text_content(f'{SELECTOR} output[data-value-for="budget"]') == "32"
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_keyboard_moves_the_budget_and_the_url_follows(page):
    pg = page()
    pg.goto(pg.base_url)
    wait_live(pg)
    pg.locator(SELECTOR).scroll_into_view_if_needed()
    before = _figures(pg)
    pg.locator("#trees-budget").focus()
    for key in ("ArrowLeft", "ArrowLeft", "ArrowLeft"):
        pg.keyboard.press(key)
    _assert_shows(pg, _controls(pg))
    assert _sliders(pg)["budget"] == "29"
    after = _figures(pg)
    assert after["tree"] != before["tree"] and after["length"] != before["length"]
    open_more(pg, "#trees-drafts")
    pg.locator("#trees-drafts").focus()
    pg.keyboard.press("Home")
    view = _assert_shows(pg, _controls(pg))
    assert view["params"]["drafts"] == 1 and "With 1 tree candidate," in summary(pg, KIND)
    assert pg.text_content(f"{SELECTOR} [data-live]") == view["live"]
    address = query(pg)
    assert address["treeBudget"] == "29" and address["treeDrafts"] == "1"
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_url_state_round_trips(page):
    pg = page()
    search = "?treeBudget=12&treeDepth=4&treeTop1=85&treeDrafts=2&treeVerifyTax=oops"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    pg.locator(SELECTOR).scroll_into_view_if_needed()
    view = _assert_shows(pg, search)
    assert (view["params"]["budget"], view["params"]["maxDepth"], view["params"]["drafts"]) == (12, 4, 2)
    sliders = _sliders(pg)
    assert (sliders["budget"], sliders["maxDepth"], sliders["top1"], sliders["drafts"]) == ("12", "4", "85", "2")
    shown = pg.evaluate("() => [...document.querySelectorAll(`[data-notes='trees'] p`)].map((p) => p.textContent)")
    assert shown == view["notes"] and any(note.startswith("Verify tax") for note in shown)
    address = query(pg)
    assert address["treeBudget"] == "12" and "treeVerifyTax" not in sitepage.address(pg)  # the bad value replaced by the default
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_the_verify_cost_select_switches_the_speedup_to_the_roofline(page):
    """Choosing a roofline preset redraws the speedup figure as CPython's view computes it for the
    same controls: the best budget moves from the tax's 12 nodes to the ridge's neighbourhood."""
    pg = page()
    pg.goto(pg.base_url)
    wait_live(pg)
    pg.locator(SELECTOR).scroll_into_view_if_needed()
    taxed = _assert_shows(pg, _controls(pg))
    open_more(pg, "#trees-verifyCost")
    assert pg.locator("label[for='trees-verifyCost']").is_visible()
    pg.select_option("#trees-verifyCost", "a100")
    view = _assert_shows(pg, _controls(pg))
    assert view["params"]["verifyCost"] == "a100"
    assert _figures(pg)["speedup"] != taxed["figures"]["speedup"]
    assert mismatched_figures(pg, KIND, {"figures": {"speedup": view["figures"]["speedup"]}}) == []
    assert _readouts(pg)["bestBudget"] == view["readouts"]["bestBudget"] != taxed["readouts"]["bestBudget"]
    assert "ridge: 116 nodes" in _figures(pg)["speedup"]
    assert query(pg)["treeVerifyCost"] == "a100"
    pg.reload()
    wait_live(pg)
    assert pg.input_value("#trees-verifyCost") == "a100"
    _assert_shows(pg, _controls(pg))
    assert pg.console_errors == [] and pg.foreign_requests() == []


def _luminance(rgb) -> float:
    """WCAG relative luminance of an (r, g, b) in 0..255."""
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(channel, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_rare_nodes_recede_in_both_schemes(page):
    """The tree's nodes stand out from their panel in order of reach, in the light and the dark scheme
    (a fixed pale-to-dark ramp once made the rarest nodes the brightest marks on a dark panel): each
    node's colour as painted (its fill at its fill-opacity over the panel's background) has less
    contrast with the panel the rarer the node."""
    for scheme in ("light", "dark"):
        pg = page(java_script_enabled=False, color_scheme=scheme)
        pg.goto(pg.base_url)
        nodes = pg.evaluate("""(sel) => {
            // rgb(r, g, b) in 0..255, or color(srgb r g b) in 0..1 (how a color-mix() is computed)
            const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number)
                .map((value) => text.startsWith('color(srgb') ? value * 255 : value);
            let panel = document.querySelector(`${sel} [data-figure='tree']`);
            let background = getComputedStyle(panel).backgroundColor;
            while (background === 'rgba(0, 0, 0, 0)' && panel.parentElement) {
                panel = panel.parentElement; background = getComputedStyle(panel).backgroundColor; }
            return [...document.querySelectorAll(`${sel} [data-figure='tree'] circle.tr-node`)].map((node) => ({
                fill: rgb(getComputedStyle(node).fill), opacity: Number(getComputedStyle(node).fillOpacity),
                reach: Number(node.querySelector('title').textContent.match(/probability ([\\d.]+)/)[1]),
                background: rgb(background)}));
        }""", SELECTOR)
        assert len(nodes) > 3
        painted = [(node["reach"], _contrast([node["opacity"] * f + (1 - node["opacity"]) * b
                                              for f, b in zip(node["fill"], node["background"])], node["background"]))
                   for node in nodes]
        painted.sort()
        rarest, root = painted[0], painted[-1]
        assert root[0] == 1.0 and rarest[0] < root[0]
        assert rarest[1] < root[1] / 2, (scheme, rarest, root)
        # prominence never falls as reach grows (equal reaches paint alike)
        assert all(a[1] <= b[1] + 1e-9 for a, b in zip(painted, painted[1:])), scheme
