"""The serving widget in Chromium: the pre-rendered default with JavaScript off, keyboard and select
input rendering exactly what lab.widgets.serving.view gives in CPython (drawn for the panel's width),
the tail following the exact lab's settings (data-with), the measured-curve mode set through the
page's generic send mechanism, URL state both ways, and a clean console. Without a browser: the
figures lay out for every width, and the measured-curve mode feeds the curve to the model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import sitepage
from lab import figures, serving
from lab.widgets import ledger as ledger_widget
from lab.widgets import serving as widget
from sitepage import (RENDER_TIMEOUT_MS, assert_shows, mismatched_figures, notes, query,
                      slider_values, status_text, summary, wait_live, with_width)

SEL = "#serving-lab"
PRESET = "club3090-mtp"  # a traces preset: linkable


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
    """Wait until the widget shows view(raw) at its figure width, then compare everything (the tail
    first: a change of the exact lab moves it without touching the summary)."""
    view = widget.view(with_width(pg, "serving", raw))
    try:
        pg.wait_for_function("([sel, svg]) => { const s = document.createElement('div'); s.innerHTML = svg;"
                             " return document.querySelector(`${sel} [data-figure='tail']`).innerHTML === s.innerHTML; }",
                             arg=[SEL, view["figures"]["tail"]], timeout=RENDER_TIMEOUT_MS)
    except Exception as error:
        raise AssertionError(f"serving tail never matched; summary {summary(pg, 'serving')!r}; "
                             f"status: {status_text(pg)}") from error
    view = assert_shows(pg, "serving", raw)
    assert _readouts(pg) == view["readouts"]
    return view


def _mismatched(pg, view):
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
    assert "speculation keeps paying at every batch that fits (up to 392)" in view["summary"]   # today's vLLM V1
    assert "Predicted against measured" in html and 'data-appendix="appendix-validation"' in html  # computed by the build
    assert "srv-validation-table" in (built_site / "appendix.html").read_text(encoding="utf-8")  # its rows, linked
    assert _readouts(pg) == view["readouts"]
    assert notes(pg, "serving") == []
    assert _controls(pg) == {**{s.name: view["shown"][s.name] for s in widget.SLIDERS},
                             **{s.typed_name: view["shown"][s.typed_name] for s in widget.SLIDERS if s.typed_name},
                             **{s.name: s.default for s in widget.SELECTS}, "srvCurve": "", "origin": ""}
    assert pg.evaluate("(sel) => [...document.querySelectorAll(`${sel} form input, ${sel} form select`)]"
                       ".every((c) => c.disabled)", SEL)  # shipped disabled: app.js enables them
    # 11 x 9 heatmap cells, each in the table too; the reader's cell is outlined once
    assert pg.locator(f"{SEL} [data-figure=table] td").count() == 99
    assert pg.locator(f"{SEL} [data-figure=table] td.selected").count() == 1
    assert pg.locator(f"{SEL} [data-figure=heatmapSelection] rect.fig-selected").count() == 1
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
    sitepage.open_more(live, "#serving-gpu")  # the hardware and the models are folded under "More settings"
    live.select_option("#serving-gpu", "l40s")
    view = _wait_shows(live, _sent(live))
    assert view["params"]["gpu"] == "l40s" and "L40S" in summary(live, "serving")
    assert query(live)["srvGpu"] == "l40s"
    live.locator("#serving-draft").focus()
    live.select_option("#serving-draft", "ngram")
    view = _wait_shows(live, _sent(live))
    # n-gram lookup on the CPU, today's vLLM V1: a 20 us call and a scan of every context token at 70.28 ms per
    # 512 x 129,536 tokens (vLLM pull request 56732), once a cycle, so a draft step is that over k
    batch, params = int(view["readouts"]["batch"]), view["params"]
    assert params["engine"] == "vllm-v1"
    cycle = 0.02 + batch * params["context"] * 70.28 / (512 * 129536)
    assert float(view["readouts"]["draftStepMs"]) == pytest.approx(cycle / params["lookahead"], abs=1e-3)
    assert live.console_errors == []


def _deferred(pg) -> str | None:
    """The data-with widgets owing a render for another widget's change until they come near."""
    return pg.evaluate("() => document.documentElement.dataset.deferredRenders ?? null")


def test_tail_follows_the_exact_lab(live):
    """A change in the exact lab re-renders this widget's tail (data-with) when the widget comes near
    the viewport: at once if it is near, else once it is scrolled to, never before."""
    # the instruments suite runs in slices after the page goes live; a slice under way would hold
    # the renders timed below (the widget is idle once it has run, as the benchmark waits for too)
    sitepage.wait_instrument_audit(live)
    before = live.inner_html(f"{SEL} [data-figure=tail]")
    exact = slider_values(live, "exact")
    live.locator("#exact-certainty").focus()  # scrolls the exact lab into view, this widget far away
    live.wait_for_timeout(100)  # the observer reports the widget far (until it has, a widget counts as near)
    live.locator("#exact-certainty").press("ArrowLeft")  # a committed change of the exact lab
    assert slider_values(live, "exact")["certainty"] == str(int(exact["certainty"]) - 1)
    live.wait_for_function("() => document.documentElement.dataset.deferredRenders === 'serving'",
                           timeout=RENDER_TIMEOUT_MS)
    live.wait_for_timeout(300)
    assert live.inner_html(f"{SEL} [data-figure=tail]") == before  # off screen: not re-rendered yet
    live.locator(SEL).scroll_into_view_if_needed()
    view = _wait_shows(live, _sent(live))
    assert _deferred(live) is None
    assert view["exact"]["certainty"] == int(exact["certainty"]) - 1
    assert live.inner_html(f"{SEL} [data-figure=tail]") != before
    # near the viewport a change there renders the tail at once
    live.evaluate("""(sel) => { const widget = document.querySelector(sel);
        window.scrollTo(0, widget.getBoundingClientRect().top + window.scrollY); }""", SEL)
    live.wait_for_timeout(100)  # the observer reports the widget near
    live.evaluate("""() => { const c = document.querySelector('#exact-certainty'); c.value = String(+c.value + 1);
        c.dispatchEvent(new Event('input', {bubbles: true})); c.dispatchEvent(new Event('change', {bubbles: true})); }""")
    view = _wait_shows(live, _sent(live))
    assert view["exact"]["certainty"] == int(exact["certainty"]) and _deferred(live) is None
    assert "srvK" in query(live) and "certainty" in query(live)
    assert live.console_errors == []


def test_a_key_in_the_exact_lab_marks_only_the_last_render_final(live):
    """A key press in the exact lab renders it; this widget's tail (data-with) follows when it comes
    near the viewport: app.js's lab-rendered events say which render is the last one the key caused
    (what the benchmark's final-render keys time), and the deferred render is final in its turn."""
    sitepage.wait_instrument_audit(live)  # the page idle, as in the test above: no slice or boot render in the way
    live.evaluate("""() => { window.__renders = [];
        document.addEventListener('lab-rendered', (e) => window.__renders.push([e.detail.kind, e.detail.final])); }""")
    live.locator("#exact-match").focus()
    live.wait_for_timeout(100)  # the observer reports this widget far (until it has, a widget counts as near)
    live.locator("#exact-match").press("ArrowLeft")
    live.wait_for_function("() => window.__renders.some(([, final]) => final)", timeout=RENDER_TIMEOUT_MS)
    live.wait_for_timeout(300)  # nothing else follows the final render while this widget is far away
    renders = live.evaluate("() => window.__renders")
    assert renders == [["exact", True]], renders
    live.locator(SEL).scroll_into_view_if_needed()
    live.wait_for_function("() => window.__renders.length === 2", timeout=RENDER_TIMEOUT_MS)
    assert live.evaluate("() => window.__renders[1]") == ["serving", True]
    live.locator("#serving-lookahead").focus()
    live.locator("#serving-lookahead").press("ArrowRight")  # a widget no other reads: its one render is final
    live.wait_for_function("() => window.__renders.length === 3", timeout=RENDER_TIMEOUT_MS)
    assert live.evaluate("() => window.__renders[2]") == ["serving", True]
    assert live.console_errors == []


def test_heatmap_hover_readout(live):
    """Pointing at a heatmap cell reads its value out (the page's generic data-tip-values)."""
    grid = live.locator(f"{SEL} [data-figure=heatmap] .srv-hits")
    assert grid.count() == 1
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    grid.hover(position={"x": 2, "y": box["height"] - 2})  # bottom-left: context 512, batch 1
    settings = widget._settings(widget.view(_sent(live))["params"])
    first = serving.speedup_grid(settings.with_(batch=1, context=512))[0][0]  # row: context 512, column: batch 1
    assert live.text_content(f"{SEL} [data-tip-readout]") == f"context 512 tokens, batch 1: {widget._f(first)}x"


def test_url_state_round_trips(page):
    pg = page()
    search = "?srvK=6&srvGpu=h200&srvBatchLog2=7&srvContextLog2=13&srvPrecision=fp8&certainty=40&srvDraft=nope"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    view = _wait_shows(pg, search)
    assert view["params"]["gpu"] == "h200" and view["params"]["lookahead"] == 6 and view["exact"]["certainty"] == 40
    assert notes(pg, "serving") == [f"Draft: 'nope' is not one of the {len(serving.DRAFT_CHOICES)} choices; using EAGLE or MTP head (1 layer)"]
    controls = _controls(pg)
    assert (controls["lookahead"], controls["gpu"], controls["batchExp"], controls["precision"]) == ("6", "h200", "7", "fp8")
    address = query(pg)
    assert (address["srvK"], address["srvGpu"], address["srvBatchLog2"], address["srvContextLog2"]) == ("6", "h200", "7", "13")
    assert address["srvDraft"] == "eagle-head"  # rewritten to the valid value
    # reloading the canonical address shows the same widget, with no note left
    canonical = pg.evaluate("() => location.href")  # query() waited for app.js to write it
    pg.goto(canonical)
    wait_live(pg)
    again = _wait_shows(pg, "?" + canonical.split("?", 1)[1])
    assert again["params"] == view["params"] and notes(pg, "serving") == []
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_measured_curve_via_the_send_mechanism(live):
    """A button like the traces widget's (data-action="send", data-values='{"srvCurve": TOKEN}')
    switches the widget to the measured curve; its own "use the acceptance slider" button, the
    same mechanism on its own form, switches back."""
    before = summary(live, "serving")
    assert not before.startswith("In measured curve mode")
    live.evaluate("""(token) => { const b = document.createElement('button'); b.type = 'button';
        b.id = 'test-send-curve'; b.dataset.action = 'send'; b.dataset.target = 'serving';
        b.dataset.values = JSON.stringify({srvCurve: token}); b.textContent = 'Send the curve';
        document.querySelector('#own-trace').after(b); }""", PRESET)
    live.click("#test-send-curve")
    assert _controls(live)["srvCurve"] == PRESET
    view = _wait_shows(live, _sent(live))
    assert view["curveMode"] and summary(live, "serving").startswith("In measured curve mode (Qwen3.6-27B")
    assert query(live)["srvCurve"] == PRESET
    back = live.locator(f"{SEL} [data-figure=curveSwitch] button", has_text="Use the acceptance slider")
    assert back.count() == 1
    back.click()
    assert _controls(live)["srvCurve"] == ""
    view = _wait_shows(live, _sent(live))
    assert not view["curveMode"] and summary(live, "serving") == before
    assert "srvCurve" not in query(live)
    assert live.locator(f"{SEL} [data-figure=curveSwitch] *").count() == 0
    live.evaluate("() => document.querySelector('#test-send-curve').remove()")
    assert live.console_errors == []


def test_measured_curve_restores_from_the_address(page):
    pg = page()
    search = f"?srvK=8&srvCurve={PRESET}"
    pg.goto(pg.base_url + search)
    wait_live(pg)
    view = _wait_shows(pg, search)
    assert view["curveMode"] and "positions 7 to 8 extrapolated by the acceptance model past the measured k = 6" in view["summary"]
    assert _controls(pg)["srvCurve"] == PRESET and query(pg)["srvCurve"] == PRESET
    assert pg.console_errors == []


# --- without a browser ----------------------------------------------------------------------------------

def test_measured_curve_mode_feeds_the_curve_to_the_model():
    from lab import acceptance
    from lab.traces import ledger_curve

    curve, label, linkable = ledger_curve(PRESET)
    alpha = widget.view(None)
    mode = widget.view({"srvCurve": PRESET})
    assert mode["curveMode"] and linkable and not alpha["curveMode"]
    assert mode["summary"].startswith(f"In measured curve mode ({label}; the acceptance slider is set aside), ")
    assert mode["params"] == alpha["params"] and mode["notes"] == []
    assert mode["query"] == alpha["query"] + f"&srvCurve={PRESET}" and mode["shown"]["srvCurve"] == PRESET
    assert mode["live"].startswith("measured curve: ") and len(mode["live"].split()) < 12
    settings = widget._settings(mode["params"])
    expected = serving.serving(settings, curve)
    assert mode["readouts"]["tokensPerCall"] == widget._f(expected.tokensPerCall, 3)
    assert mode["readouts"]["speedup"] == widget._f(expected.speedup, 3) != alpha["readouts"]["speedup"]
    assert mode["crossoverBatch"] == serving.crossover_batch(settings, curve=curve)
    assert mode["figures"]["heatmap"] != alpha["figures"]["heatmap"]
    assert mode["figures"]["tail"] == alpha["figures"]["tail"]  # the exact lab's runs: no acceptance slider there
    assert 'data-values="{&quot;srvCurve&quot;: &quot;&quot;}"' in mode["figures"]["curveSwitch"]
    assert alpha["figures"]["curveSwitch"] == ""
    # the address carries it too, and the lookahead past the measured positions extrapolates
    url = widget.view(f"?srvK=8&srvCurve={PRESET}")
    assert url["curveMode"] and "positions 7 to 8 extrapolated by the acceptance model past the measured k = 6" in url["summary"]
    continued = acceptance.extended_rates(curve, 8)  # the acceptance model's continuation, not the last rate again
    assert continued[6:8] != [curve[-1]] * 2
    assert url["readouts"]["tokensPerCall"] == widget._f(serving.tokens_per_cycle(0, 8, continued), 3)


@pytest.mark.parametrize("raw, note", [
    ({"srvCurve": "custom:0.9,0.5"}, "This curve came from your own data: it cannot be put in a link"),
    ({"srvCurve": "nope"}, "srvCurve: 'nope' is not a preset"),
    ("?srvCurve=custom:1.5", "srvCurve: curve: rate 1.5 is not a fraction from 0 to 1; using the acceptance slider"),
])
def test_measured_curve_notes(raw, note):
    view = widget.view(raw)
    assert any(n.startswith(note) for n in view["notes"]), view["notes"]
    assert "srvCurve" not in view["query"]
    custom = raw == {"srvCurve": "custom:0.9,0.5"}  # the reader's own curve works, unlinked
    assert view["curveMode"] == custom
    if not custom:  # a bad token leaves the acceptance slider in charge
        assert view["summary"] == widget.view(None)["summary"]


def test_the_ledger_keeps_its_measured_curve_mode():
    mode = ledger_widget.view({"trcCurve": PRESET})
    assert mode["curveMode"] and mode["summary"].startswith("In measured curve mode (")
    assert mode["query"].endswith(f"&trcCurve={PRESET}")
    bad = ledger_widget.view({"trcCurve": "nope"})
    assert not bad["curveMode"] and bad["notes"][0].startswith("trcCurve: 'nope' is not a preset")
    assert "trcCurve" not in widget.view({"trcCurve": PRESET})["query"]  # each widget reads its own key


EXTREMES = ({}, {"lookahead": "12", "acceptance": "100", "batchExp": "10", "contextExp": "17", "gpu": "l40s",
                 "gpus": "1", "exact.certainty": "0", "exact.length": "256"},
            {"lookahead": "1", "acceptance": "0", "batchExp": "0", "contextExp": "9", "draft": "ngram",
             "overheadMs": "5", "exact.certainty": "100", "exact.match": "0"},
            {"srvCurve": PRESET, "precision": "fp8", "attentionFlops": "1"})


@pytest.mark.parametrize("width", [320, 360, 390, 640, 920, 960])
def test_figures_lay_out_for_their_width(width):
    """As tests/test_palette.py checks the seed figures: width attribute = viewBox width, every
    text in a fig-* class of at least 12 px, and every label on the canvas."""
    css = (Path(__file__).resolve().parent.parent / "site" / "widgets.css").read_text(encoding="utf-8")
    sizes = {name: float(size) for name, size in re.findall(r"\.(fig-[a-z]+)\s*\{[^}]*font-size:\s*([0-9.]+)px", css)}
    for number, raw in enumerate(EXTREMES):
        view = widget.view({**raw, "width": str(width)})
        assert view["width"] == width and not any("could not be drawn" in n for n in view["notes"])
        for name, svg in view["figures"].items():
            if not svg.startswith("<svg"):
                continue
            head = svg[:svg.index(">")]
            assert f'width="{width}"' in head and f'viewBox="0 0 {width} ' in head, name
            assert "<text>" not in svg and "style=" not in svg, name
            for classes in re.findall(r'<text class="([^"]*)"', svg):
                assert max([sizes[c] for c in classes.split() if c in sizes] or [0]) >= figures.MIN_TEXT, classes
            for classes, x, anchor, text in re.findall(
                    r'<text class="([^"]*)" x="(-?[0-9.]+)" y="[^"]*"(?: text-anchor="([a-z]+)")?[^>]*>([^<]*)</text>', svg):
                size = max(sizes[c] for c in classes.split() if c in sizes)
                span = figures.text_width(text.replace("&#x27;", "'"), size)
                left = float(x) - {"middle": span / 2, "end": span}.get(anchor, 0)
                assert -1 <= left and left + span <= width + 1, (number, name, text, left, left + span)
    narrow, default = widget.view({"width": str(width)}), widget.view(None)
    for key in ("params", "query", "notes", "summary", "live", "readouts"):
        assert narrow[key] == default[key], key  # the width is presentation only
