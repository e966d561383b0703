"""The token-tree widget in Chromium: pre-rendered with JavaScript off, live slider changes equal to
what lab.widgets.trees.view() computes in CPython, keyboard use, URL state, a clean console."""

from __future__ import annotations

from lab.widgets import trees as widget
from sitepage import query, status_text, wait_live

SELECTOR = "#trees-lab"


def _figures(pg) -> dict[str, str]:
    return pg.evaluate("""(sel) => Object.fromEntries([...document.querySelectorAll(`${sel} [data-figure]`)]
        .map((el) => [el.dataset.figure, el.innerHTML]))""", SELECTOR)


def _mismatched(pg, view) -> list[str]:
    """Figure regions whose DOM differs from `view`'s markup (both through the HTML parser)."""
    return pg.evaluate("""([sel, figures]) => Object.entries(figures).filter(([name, markup]) => {
        const scratch = document.createElement('div');
        scratch.innerHTML = markup;
        return document.querySelector(`${sel} [data-figure='${name}']`).innerHTML !== scratch.innerHTML;
    }).map(([name]) => name)""", [SELECTOR, view["figures"]])


def _summary(pg) -> str:
    return pg.evaluate("() => document.querySelector(`form[data-lab='trees'] output[name='summary']`).value")


def _sliders(pg) -> dict[str, str]:
    return pg.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        `form[data-lab='trees'] input[type='range']`)].map((i) => [i.name, i.value]))""")


def _readouts(pg) -> dict[str, str]:
    return pg.evaluate("""(sel) => Object.fromEntries([...document.querySelectorAll(`${sel} [data-readout]`)]
        .map((d) => [d.dataset.readout, d.textContent]))""", SELECTOR)


def _wait_summary(pg, expected):
    try:
        pg.wait_for_function("(text) => document.querySelector(`form[data-lab='trees'] output[name='summary']`)"
                             ".value === text", arg=expected, timeout=15_000)
    except Exception as error:
        raise AssertionError(f"summary never became {expected!r}; it says {_summary(pg)!r}; {status_text(pg)}") from error


def _assert_shows(pg, raw):
    view = widget.view(raw)
    _wait_summary(pg, view["summary"])
    assert _mismatched(pg, view) == []
    assert _readouts(pg) == view["readouts"]
    return view


def test_prerendered_without_javascript(page):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    view = widget.view(None)
    assert _summary(pg) == view["summary"]
    assert _mismatched(pg, view) == []
    assert _readouts(pg) == view["readouts"]
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
    _assert_shows(pg, {**_sliders(pg)})
    assert _sliders(pg)["budget"] == "29"
    after = _figures(pg)
    assert after["tree"] != before["tree"] and after["length"] != before["length"]
    pg.locator("#trees-drafts").focus()
    pg.keyboard.press("Home")
    view = _assert_shows(pg, {**_sliders(pg)})
    assert view["params"]["drafts"] == 1 and "With k = 1 candidates" in _summary(pg)
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
    assert shown == view["notes"] and any("treeVerifyTax" in note for note in shown)
    address = query(pg)
    assert address["treeBudget"] == "12" and address["treeVerifyTax"] == "3"   # canonical, the bad value replaced
    assert pg.console_errors == [] and pg.foreign_requests() == []
