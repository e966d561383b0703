"""The page as a designer, a screen-reader user and a phone reader meet it: axe-core finds
nothing at four widths in both colour schemes, with every <details> open and closed, with JavaScript
off and on; no width from 320 to 1920 px scrolls the page sideways; display formulas fit their
column; figure text is at least 12 px and never larger than the body text; and every SVG text, figure
mark and legend swatch has enough contrast, computed from the colours the browser rendered.

"JavaScript off" is emulated by serving an empty app.js: the page is then exactly what a reader
without JavaScript gets (the build's markup, nothing enabled), while the test can still inject axe.
Both schemes share one page per mode (the scheme switched by emulated media), resized between widths.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitepage import FIGURE_WIDTH_JS, reach_every_widget, wait_live

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # pinned in package-lock.json (npm ci)

AXE_WIDTHS = (390, 768, 1280, 1440)
SCROLL_WIDTHS = (320, 360, 390, 414, 768, 1024, 1152, 1280, 1351, 1440, 1920)
SCHEMES = ("light", "dark")
BODY_TEXT_PX = 18  # style.css: body 1.125rem


def _open_page(make, scheme, js, width=1280):
    # JavaScript off routes app.js on the page's context: a context of its own (conftest `page`)
    pg = make(viewport={"width": width, "height": 900}, color_scheme=scheme, own_context=not js)
    if not js:
        pg.context.route("**/app.*.js", lambda route: route.fulfill(body="", content_type="text/javascript"))
    pg.goto(pg.base_url)
    if js:
        wait_live(pg)
        reach_every_widget(pg)  # every widget's live figures are scanned, not only those in view
    return pg


@pytest.fixture(scope="module")
def pages(module_page):
    """(scheme, js) -> the page of that JavaScript mode, opened on first use, in that colour scheme.
    One page per mode serves both schemes: the scheme is the page's emulated media
    (prefers-color-scheme, page.emulate_media, as the warm profile sets it on every page it opens),
    which style.css alone reads (no script reads a colour), so switching it restyles the same
    markup as a page opened in that scheme, without a second load and Pyodide boot."""
    opened = {}

    def get(scheme, js):
        if js not in opened:
            opened[js] = _open_page(module_page, scheme, js)
        pg = opened[js]
        pg.emulate_media(color_scheme=scheme)
        assert pg.evaluate("(s) => matchMedia(`(prefers-color-scheme: ${s})`).matches", scheme), scheme
        return pg

    return get


def _resize(pg, width, js):
    pg.set_viewport_size({"width": width, "height": 900})
    if js:  # the figures are redrawn for the new panel width (after a short debounce); a form without
        # data-width draws nothing for a width and is not redrawn (app.js widthChanged)
        pg.wait_for_function(
            f"""() => [...document.querySelectorAll('form[data-lab]')].every((f) => f.dataset.width === undefined ||
                f.dataset.width === String(({FIGURE_WIDTH_JS})(f.dataset.lab)))""", timeout=60_000)
        # (the first resize after the page opens also loads every widget's lab modules: see _open_page)
        pg.wait_for_timeout(50)


def _axe(pg):
    # Fail, never skip: without axe-core this test would silently stop guarding the page.
    assert AXE.is_file(), f"axe-core is not installed at {AXE}: run `npm ci` (make test does)"
    if not pg.evaluate("() => Boolean(window.axe)"):
        pg.evaluate(AXE.read_text(encoding="utf-8"))
    return pg.evaluate("""() => axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) =>
        `${v.id} (${v.impact}): ` + v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ')))""")


@pytest.mark.parametrize("js", [False, True], ids=["js-off", "js-on"])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_nothing(pages, scheme, js):
    pg = pages(scheme, js)
    found = {}
    for width in AXE_WIDTHS:
        _resize(pg, width, js)
        for opened in (False, True):
            pg.evaluate("(open) => document.querySelectorAll('details').forEach((d) => { d.open = open; })", opened)
            pg.wait_for_timeout(50)  # a toggle event reaches app.js, which updates the Tab stops
            violations = _axe(pg)
            if violations:
                found[f"{width}px, details {'open' if opened else 'closed'}"] = violations
    pg.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = false; })")
    assert found == {}
    assert pg.console_errors == []


@pytest.mark.parametrize("js", [False, True], ids=["js-off", "js-on"])
def test_no_width_scrolls_the_page_sideways(pages, js):
    pg = pages("light", js)
    wide = {}
    for width in SCROLL_WIDTHS:
        _resize(pg, width, js)
        for opened in (False, True):
            pg.evaluate("(open) => document.querySelectorAll('details').forEach((d) => { d.open = open; })", opened)
            scroll, client = pg.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            if scroll != client:
                wide[width, opened] = (scroll, client)
            # every display formula fits its column: nothing is cut off
            cut = pg.evaluate("""() => [...document.querySelectorAll('.eq')].filter((eq) => eq.offsetParent)
                .filter((eq) => [...eq.querySelectorAll('math')].some((m) =>
                    m.getBoundingClientRect().right > eq.getBoundingClientRect().right + 0.5
                    || m.getBoundingClientRect().left < eq.getBoundingClientRect().left - 0.5))
                .map((eq) => eq.textContent.trim().slice(0, 40))""")
            if cut:
                wide[width, opened, "formulas"] = cut
    pg.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = false; })")
    assert wide == {}


def test_live_figures_fit_their_panel_with_legible_text(pages):
    """Live, each widget's figures are drawn for its panel: no sideways scroll from 360 px up,
    one SVG unit per CSS pixel, text >= 12 px, and on a desktop no larger than the body text."""
    pg = pages("light", True)
    for width in (360, 390, 768, 1280, 1920):
        _resize(pg, width, True)
        report = pg.evaluate("""() => [...document.querySelectorAll('.lab-widget svg.figure')].map((svg) => {
            const box = svg.getBoundingClientRect();
            const panel = svg.closest('.figure-panel');
            const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize));
            return { cls: svg.getAttribute('class'), scale: box.width / Number(svg.getAttribute('width')),
                     overflow: panel.scrollWidth - panel.clientWidth, min: Math.min(...sizes, 99),
                     max: Math.max(...sizes, 0) };
        })""")
        for figure in report:
            assert abs(figure["scale"] - 1) < 0.01, (width, figure)
            assert figure["overflow"] <= 0, (width, figure)
            assert figure["min"] >= 12, (width, figure)
            assert figure["max"] <= BODY_TEXT_PX, (width, figure)


CONTRAST_JS = """() => {
    const parse = (c) => { const m = c && c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
        const [r, g, b, a = 1] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return a === 0 ? null : [r, g, b]; };
    const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
    const backdrop = (el) => { for (let n = el; n; n = n.parentElement) {
        if (n instanceof HTMLElement) { const c = parse(getComputedStyle(n).backgroundColor); if (c) return c; } }
        return [255, 255, 255]; };
    const name = (el) => `${el.closest('svg') ? el.closest('svg').getAttribute('class') + ' ' : ''}${el.tagName}.${el.getAttribute('class') || ''} ${(el.textContent || '').trim().slice(0, 30)}`;
    const failures = [];
    let checked = 0;
    const need = (el, fg, bg, min) => { checked++; const r = ratio(fg, bg);
        if (r < min) failures.push(`${name(el)}: ${r.toFixed(2)}:1 < ${min}:1`); };
    for (const svg of document.querySelectorAll('.lab-widget svg.figure')) {
        const ground = backdrop(svg);
        // the heatmap's own shades, on which its fixed-ink marks sit
        const shades = [...document.querySelectorAll('[data-figure="heatmap"] svg g path[fill]')].map((p) => hex(p.getAttribute('fill')));
        for (const text of svg.querySelectorAll('text')) {
            const fill = parse(getComputedStyle(text).fill);
            if (text.classList.contains('fig-onmark')) {  // a label on a bar: against that bar
                let bar = text.previousElementSibling;
                while (bar && bar.tagName !== 'rect') bar = bar.previousElementSibling;
                need(text, fill, parse(getComputedStyle(bar).fill), 4.5);
            } else need(text, fill, ground, 4.5);
        }
        for (const mark of svg.querySelectorAll('[class^="k-"], .fig-target, .fig-exact, .fig-baseline, .fig-axisline, .fig-frame, .fig-marker')) {
            const style = getComputedStyle(mark);
            const colour = style.stroke !== 'none' ? parse(style.stroke) : parse(style.fill);  // a line, or a filled shape
            need(mark, colour, ground, 3);
        }
        for (const mark of svg.querySelectorAll('.fig-breakeven, .fig-selected')) {
            const colour = parse(getComputedStyle(mark).stroke);
            for (const shade of shades) need(mark, colour, shade, 3);
        }
    }
    for (const swatch of document.querySelectorAll('.legend .swatch')) {
        const style = getComputedStyle(swatch);
        const colours = [style.backgroundColor, style.borderTopColor, ...(style.backgroundImage.match(/rgba?\\([^)]+\\)/g) || [])]
            .map(parse).filter(Boolean);
        const ground = backdrop(swatch.parentElement);
        checked++;
        const best = Math.max(0, ...colours.map((c) => ratio(c, ground)));
        if (best < 3) failures.push(`legend swatch ${swatch.className}: ${best.toFixed(2)}:1 < 3:1`);
    }
    return { checked, failures };
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_figure_text_and_marks_have_contrast(pages, scheme):
    """Text >= 4.5:1 and non-text marks >= 3:1 against what they sit on, from rendered colours."""
    for js in (False, True):
        pg = pages(scheme, js)
        _resize(pg, 1280, js)
        result = pg.evaluate(CONTRAST_JS)
        assert result["checked"] > 100, result
        assert result["failures"] == [], (js, result["failures"])


MARKS_ON_PANEL_JS = """() => {
    const parse = (c) => { const m = c && c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
        const [r, g, b, a = 1] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return a === 0 ? null : [r, g, b, a]; };
    const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const backdrop = (el) => { for (let n = el; n; n = n.parentElement) {
        if (n instanceof HTMLElement) { const c = parse(getComputedStyle(n).backgroundColor); if (c) return c; } }
        return [255, 255, 255]; };
    const failures = [];
    let checked = 0;
    for (const svg of document.querySelectorAll('.lab-widget svg.figure')) {
        // the heatmaps' cells are data colours, and their marks are checked against those shades above
        if (svg.closest('[data-figure^="heatmap"]')) continue;
        const ground = backdrop(svg);
        for (const el of svg.querySelectorAll('line, path, polyline, rect, circle, polygon')) {
            if (el.matches('.fig-halo, .fig-clear')) continue;  // a halo is the ground's own colour on purpose
            const style = getComputedStyle(el);
            const stroked = style.stroke !== 'none' && parse(style.stroke);
            const colour = stroked ? parse(style.stroke) : parse(style.fill);
            if (!colour) continue;
            let alpha = colour[3] * Number(stroked ? style.strokeOpacity : style.fillOpacity);
            for (let n = el; n !== svg.parentElement; n = n.parentElement) alpha *= Number(getComputedStyle(n).opacity);
            const seen = [0, 1, 2].map((i) => alpha * colour[i] + (1 - alpha) * ground[i]);
            checked++;
            const r = ratio(seen, ground);
            if (r < 3) failures.push(`${svg.getAttribute('class')} ${el.tagName}.${el.getAttribute('class') || ''}: ${r.toFixed(2)}:1`);
        }
    }
    return { checked, failures };
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_mark_on_a_panel_reaches_3_to_1_as_rendered(pages, scheme):
    """Every line, area and shape drawn on a figure's panel (any class: hatches, bands, reference
    lines as well as the palette's marks) against the panel, with its opacity blended in as the
    browser paints it: >= 3:1. (A hatch of fixed dark ink at a fifth of its opacity once vanished
    in dark mode; a band at a third of the muted colour had no edge a reader could see.)"""
    pg = pages(scheme, True)
    _resize(pg, 1280, True)
    result = pg.evaluate(MARKS_ON_PANEL_JS)
    assert result["checked"] > 200, result
    assert result["failures"] == [], result["failures"]


STRAIGHT_LINES_JS = """() => {
    const straight = (d) => /^(\\s*[MmHhVv][\\s\\d.,-]*)+$/.test(d || '');
    const out = { lines: 0, paths: 0, slanted: [], soft: [] };
    for (const svg of document.querySelectorAll('svg.figure')) {
        const name = svg.getAttribute('class');
        for (const el of svg.querySelectorAll('line')) {
            out.lines++;
            const [x1, x2, y1, y2] = ['x1', 'x2', 'y1', 'y2'].map((a) => el.getAttribute(a));
            if (x1 !== x2 && y1 !== y2) out.slanted.push(`${name} line.${el.getAttribute('class')}`);
            if (getComputedStyle(el).shapeRendering !== 'crispedges') out.soft.push(`${name} line.${el.getAttribute('class')}`);
        }
        for (const el of svg.querySelectorAll('path')) {
            const style = getComputedStyle(el);
            if (style.stroke === 'none' || parseFloat(style.strokeWidth) > 1.5 || !straight(el.getAttribute('d'))) continue;
            out.paths++;
            if (style.shapeRendering !== 'crispedges') out.soft.push(`${name} path.${el.getAttribute('class')}`);
        }
    }
    return out;
}"""


def test_every_thin_straight_line_of_a_figure_is_drawn_crisp(pages):
    """A 1 px line centred on a whole pixel is painted at device scale 1 as two rows at half strength, under
    3:1 although its colour clears it (docs/PALETTE.md, "Thin lines at 1x"; tools/line_contrast.py measures
    it from the pixels). So every <line> of every figure, and every thin path of level and upright steps
    (ticks), is drawn with crisp edges as the page renders it, and a <line> is never slanted (a slant would
    turn jagged: a figure draws it as a path). Live at 390 px and 1,280 px, and as the build drew it."""
    for js, widths in ((True, (390, 1280)), (False, (1280,))):
        pg = pages("light", js)
        for width in widths:
            _resize(pg, width, js)
            result = pg.evaluate(STRAIGHT_LINES_JS)
            assert result["lines"] >= 40 and result["paths"] >= 1, (js, width, result)
            assert result["slanted"] == [] and result["soft"] == [], (js, width, result)


def test_forced_colours_keep_legend_swatches(page):
    """Windows high contrast: the swatches keep their colours instead of becoming empty boxes."""
    pg = page(forced_colors="active")
    pg.context.route("**/app.*.js", lambda route: route.fulfill(body="", content_type="text/javascript"))
    pg.goto(pg.base_url)
    shown = pg.evaluate("""() => [...document.querySelectorAll('.legend .swatch[class*="k-"]')].map((s) =>
        [s.className, getComputedStyle(s).backgroundColor])""")
    assert len(shown) >= 9
    colours = {colour for _, colour in shown}
    assert len(colours) >= 8, shown  # still one colour per concept, not all one system colour
    assert not any(colour in ("rgba(0, 0, 0, 0)", "transparent") for _, colour in shown), shown
