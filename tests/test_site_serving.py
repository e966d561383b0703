"""The serving widget in Chromium: the pre-rendered default with JavaScript off, keyboard and select
input rendering exactly what lab.widgets.serving.view gives in CPython, the tail following the exact
lab's settings (data-with), URL state both ways, and a clean console."""

from __future__ import annotations

import pytest

from lab.widgets import serving as widget
from sitepage import (BOOT_TIMEOUT_MS, RENDER_TIMEOUT_MS, mismatched_figures, notes, query, slider_values,
                      status_text, summary, wait_live)

SEL = "#serving-lab"


def _controls(pg, kind="serving") -> dict[str, str]:
    """Every named control of a form (ranges and selects), as app.js sends them."""
    return pg.evaluate("""(k) => Object.fromEntries([...document.querySelectorAll(
        `form[data-lab='${k}'] input[name], form[data-lab='${k}'] select[name]`)].map((c) => [c.name, c.value]))""", kind)


def _sent(pg) -> dict[str, str]:
    """What the page sends for the serving widget: its controls plus the exact lab's as exact.<name>."""
    values = _controls(pg)
    values.update({f"exact.{name}": value for name, value in _controls(pg, "exact").items()})
    return values


def _readouts(pg) -> dict[str, str]:
    return pg.evaluate("""(sel) => Object.fromEntries([...document.querySelectorAll(`${sel} [data-readout]`)]
        .map((d) => [d.dataset.readout, d.textContent]))""", SEL)


def _wait_shows(pg, raw):
    view = widget.view(raw)
    try:
        pg.wait_for_function(
            "(text) => document.querySelector(`form[data-lab='serving'] output[name='summary']`).value === text",
            arg=view["summary"], timeout=RENDER_TIMEOUT_MS)
    except Exception as error:
        raise AssertionError(f"serving summary never became {view['summary']!r}; it says "
                             f"{summary(pg, 'serving')!r}; status: {status_text(pg)}") from error
    pg.wait_for_function("([sel, svg]) => { const s = document.createElement('div'); s.innerHTML = svg;"
                         " return document.querySelector(`${sel} [data-figure='tail']`).innerHTML === s.innerHTML; }",
                         arg=[SEL, view["figures"]["tail"]], timeout=RENDER_TIMEOUT_MS)
    assert _mismatched(pg, view) == []
    assert _readouts(pg) == view["readouts"]
    assert notes(pg, "serving") == view["notes"]
    return view


def _mismatched(pg, view):
    import sitepage
    sitepage.WIDGET.setdefault("serving", SEL)
    return mismatched_figures(pg, "serving", view)


@pytest.fixture(scope="module")
def live(module_page):
    pg = module_page()
    pg.goto(pg.base_url)
    wait_live(pg)
    pg.locator(SEL).scroll_into_view_if_needed()
    return pg


def test_without_javascript_shows_the_default(page, built_site):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    view = widget.view(None)
    html = (built_site / "index.html").read_text(encoding="utf-8")
    for name, markup in view["figures"].items():
        assert markup in html, name  # the build wrote CPython's markup verbatim
    assert _mismatched(pg, view) == []
    assert summary(pg, "serving") == view["summary"]
    assert "stops paying at batch 163" in view["summary"]  # the crossover batch is named
    assert _readouts(pg) == view["readouts"]
    assert notes(pg, "serving") == []
    assert _controls(pg) == {**{s.name: view["shown"][s.name] for s in widget.SLIDERS},
                             **{s.name: s.default for s in widget.SELECTS}}
    # 11 x 9 heatmap cells, each in the table too; the reader's cell is outlined once
    assert pg.locator(f"{SEL} [data-figure=table] td").count() == 99
    assert pg.locator(f"{SEL} [data-figure=table] td.selected").count() == 1
    assert pg.locator(f"{SEL} [data-figure=heatmapSelection] rect").count() == 1
    assert "Seed 23 is one draw" in pg.text_content("#queue")
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_keyboard_moves_the_lookahead_and_the_batch(live):
    start = int(slider_values(live, "serving")["lookahead"])
    assert 1 < start < 12
    live.locator("#serving-lookahead").focus()
    for key, expect in (("ArrowRight", start + 1), ("ArrowLeft", start), ("ArrowLeft", start - 1)):
        live.locator("#serving-lookahead").press(key)
        assert slider_values(live, "serving")["lookahead"] == str(expect)
        view = _wait_shows(live, _sent(live))
        assert view["params"]["lookahead"] == expect
        assert query(live)["srvK"] == str(expect)
        assert live.text_content(f'{SEL} output[data-value-for="lookahead"]') == str(expect)
        assert live.locator("#serving-lookahead").evaluate("(i) => document.activeElement === i")
    before = live.inner_html(f"{SEL} [data-figure=heatmapSelection]")
    heatmap = live.inner_html(f"{SEL} [data-figure=heatmap]")
    live.locator("#serving-batchExp").focus()
    live.locator("#serving-batchExp").press("End")
    view = _wait_shows(live, _sent(live))
    assert view["readouts"]["batch"] == "1024" and query(live)["srvBatchLog2"] == "10"
    assert live.inner_html(f"{SEL} [data-figure=heatmapSelection]") != before  # the outline moved
    assert live.inner_html(f"{SEL} [data-figure=heatmap]") == heatmap        # the cells did not change
    assert live.console_errors == []


def test_selects_change_the_preset(live):
    live.select_option("#serving-gpu", "l40s")
    view = _wait_shows(live, _sent(live))
    assert view["params"]["gpu"] == "l40s" and "L40S" in summary(live, "serving")
    assert query(live)["srvGpu"] == "l40s"
    live.locator("#serving-draft").focus()
    live.select_option("#serving-draft", "ngram")
    view = _wait_shows(live, _sent(live))
    assert view["readouts"]["draftStepMs"] == "0.000"
    assert live.console_errors == []


def test_tail_follows_the_exact_lab(live):
    before = live.inner_html(f"{SEL} [data-figure=tail]")
    exact = slider_values(live, "exact")
    live.locator("#exact-certainty").focus()
    live.locator("#exact-certainty").press("ArrowLeft")  # a committed change of the exact lab
    assert slider_values(live, "exact")["certainty"] == str(int(exact["certainty"]) - 1)
    view = _wait_shows(live, _sent(live))
    assert view["exact"]["certainty"] == int(exact["certainty"]) - 1
    assert live.inner_html(f"{SEL} [data-figure=tail]") != before
    assert "srvK" in query(live) and "certainty" in query(live)
    assert live.console_errors == []


def test_url_state_round_trips(page):
    pg = page()
    search = "?srvK=6&srvGpu=h200&srvBatchLog2=7&srvContextLog2=13&srvPrecision=fp8&certainty=40&srvDraft=nope"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    view = _wait_shows(pg, search)
    assert view["params"]["gpu"] == "h200" and view["params"]["lookahead"] == 6 and view["exact"]["certainty"] == 40
    assert notes(pg, "serving") == ["srvDraft: 'nope' is not one of llama-3.2-1b, qwen2.5-0.5b, eagle-head, ngram; "
                                    "using qwen2.5-0.5b"]
    controls = _controls(pg)
    assert (controls["lookahead"], controls["gpu"], controls["batchExp"], controls["precision"]) == ("6", "h200", "7", "fp8")
    address = query(pg)
    assert (address["srvK"], address["srvGpu"], address["srvBatchLog2"], address["srvContextLog2"]) == ("6", "h200", "7", "13")
    assert address["srvDraft"] == "qwen2.5-0.5b"  # rewritten to the valid value
    # reloading the canonical address shows the same widget, with no note left
    pg.goto(pg.url)
    wait_live(pg)
    again = _wait_shows(pg, "?" + pg.url.split("?", 1)[1])
    assert again["params"] == view["params"] and notes(pg, "serving") == []
    assert pg.console_errors == [] and pg.foreign_requests() == []
