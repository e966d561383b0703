"""The palette and the figure widths, without a browser.

lab/figures.py COLOURS is the single source of what each colour means; the build writes it into
style.css as --k-<concept> in both schemes (sitebuild/palette.py, with INK, HEATMAP_SCALE and RING),
no stylesheet types one of those values itself, and widgets.css gives every concept its k-<concept>
class. Every figure function lays out for the width it is given, with no text under 12 px.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lab import figures
from lab.widgets import exact as exact_widget, ledger as ledger_widget
from sitebuild import assets, palette

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (ROOT / "site" / "style.css").read_text(encoding="utf-8")  # as typed
STYLE = palette.fill(SOURCE)  # as the build publishes it (before minifying)
WIDGETS = (ROOT / "site" / "widgets.css").read_text(encoding="utf-8")


def _block(css: str, start: str) -> str:
    """The declarations of the first rule opened after `start`."""
    at = css.index(start)
    return css[at:css.index("}", at)]


LIGHT = _block(STYLE, ":root {")
DARK = _block(STYLE, "@media (prefers-color-scheme: dark) {")


def _var(block: str, name: str) -> str:
    match = re.search(rf"--{re.escape(name)}:\s*(#[0-9a-fA-F]{{6}})\s*;", block)
    assert match, f"--{name} missing"
    return match.group(1).lower()


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_published_style_css_declares_the_palette():
    """The build writes COLOURS (light, dark), INK, HEATMAP_SCALE and RING into style.css's two scheme blocks,
    once each; the minified stylesheet the page links holds the same declarations."""
    for concept, (light, dark) in figures.COLOURS.items():
        assert _var(LIGHT, f"k-{concept}") == light, concept
        assert _var(DARK, f"k-{concept}") == dark, concept
    assert _var(LIGHT, "on-mark") == figures.INK
    for name, colour in figures.HEATMAP_SCALE.items():
        assert _var(LIGHT, f"heat-{name}") == colour, name
    assert _var(LIGHT, "heat-ring") == figures.RING
    written = {**palette.properties("light"), **palette.properties("dark")}
    code = re.sub(r"/\*.*?\*/", "", STYLE, flags=re.S)
    for name in written:  # once in each block it belongs to, nowhere else
        assert code.count(f"{name}:") == (name in palette.properties("light")) + (name in palette.properties("dark")), name
    assert set(re.findall(r"--k-([a-z]+):", STYLE)) == set(figures.COLOURS)  # no colour without a meaning
    minified = assets.minify_css(STYLE.encode()).decode()
    for scheme in ("light", "dark"):
        assert palette.declarations(scheme).replace("\n", "").replace(": ", ":") in minified.replace(": ", ":"), scheme


def _colour_literals(css: str) -> list[tuple[str, str]]:
    """(property, colour) of every hex colour written in ``css``'s declarations, comments left out, the colour
    lower case and at six digits (``#fff`` -> ``#ffffff``)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found = []
    for prop, value in re.findall(r"([-\w]+)\s*:\s*([^;{}]*)", css):
        for colour in re.findall(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b", value):
            colour = colour.lower() if len(colour) == 6 else "".join(c * 2 for c in colour.lower())
            found.append((prop, f"#{colour}"))
    return found


# The page's own tokens whose value is also a figure colour by coincidence, not by meaning: the light scheme's
# text (which follows the scheme, INK does not) and the printed page's white background and surface.
PAGE_TOKENS_THAT_MATCH = {("--fg", figures.INK), ("--bg", figures.RING), ("--surface", figures.RING)}


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "site").glob("*.css")))
def test_no_stylesheet_types_a_figure_colour(name):
    """A figure's colour is typed once, in lab/figures.py: the hand-written CSS reads --k-<concept>, --on-mark and
    --heat-*, and declares none of them nor writes one of their values (a literal creeping back would
    drift from the figures the lab draws when COLOURS changes). widgets.css, the figures' sheet, writes no hex
    colour at all; style.css writes one only as a value of the page's own custom properties, or in a mask (where
    only its alpha counts)."""
    css = (ROOT / "site" / name).read_text(encoding="utf-8")
    written = {**palette.properties("light"), **palette.properties("dark")}
    figure_colours = set(written.values())
    for prop, colour in _colour_literals(css):
        assert prop not in written, (name, prop)
        assert colour not in figure_colours or (prop, colour) in PAGE_TOKENS_THAT_MATCH, (name, prop, colour)
        assert name != "widgets.css", (name, prop, colour)
        assert prop.startswith("--") or prop == "mask-image", (name, prop, colour)
    code = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    assert not re.findall(rf"({'|'.join(map(re.escape, written))})\s*:", code), name
    # every figure colour the sheet reads is one the build writes
    for used in re.findall(r"var\((--(?:k|heat)-[a-z]+|--on-mark)\)", css):
        assert used in written, (name, used)
    if name == "style.css":
        assert all(css.count(marker) == 1 for marker in palette.MARKERS.values())


def test_the_build_refuses_a_stylesheet_without_its_markers():
    with pytest.raises(ValueError, match="palette: dark"):
        palette.fill(SOURCE.replace(palette.MARKERS["dark"], ""))
    with pytest.raises(ValueError, match="2 times"):
        palette.fill(SOURCE + palette.MARKERS["light"])


def test_every_concept_has_its_class():
    for concept in figures.COLOURS:
        rule = re.search(rf"\.k-{concept}\s*\{{([^}}]*)\}}", WIDGETS)
        assert rule, concept
        assert f"fill: var(--k-{concept})" in rule.group(1) and f"background: var(--k-{concept})" in rule.group(1)


@pytest.mark.parametrize("scheme", [0, 1], ids=["light", "dark"])
def test_palette_contrast(scheme):
    """Each mark colour stands out from the widget surface (3:1) and carries ink labels (4.5:1)."""
    block = (LIGHT, DARK)[scheme]
    surface, ink = _var(block, "surface"), _var(LIGHT, "on-mark")
    for concept, pair in figures.COLOURS.items():
        assert contrast(pair[scheme], surface) >= 3, concept
        assert contrast(pair[scheme], ink) >= 4.5, concept
    # the heatmap's fixed ink marks against every shade of its scale
    for step in range(-figures.COLOUR_STEPS, figures.COLOUR_STEPS + 1):
        shade = figures.speedup_colour(figures.SATURATION_SPEEDUP ** (step / figures.COLOUR_STEPS))
        assert contrast(figures.INK, shade) >= 3, shade


@pytest.mark.parametrize("scheme", [0, 1], ids=["light", "dark"])
def test_gridlines_recede_and_still_reach_3_to_1(scheme):
    """--grid (fig-grid): a guide for reading values is a part of the graphic the reader needs (WCAG 1.4.11,
    docs/PALETTE.md), so it clears 3:1 on the surface; it recedes by being lighter than the axes' --muted."""
    block = (LIGHT, DARK)[scheme]
    surface = _var(block, "surface")
    grid, muted = contrast(_var(block, "grid"), surface), contrast(_var(block, "muted"), surface)
    assert 3 <= grid < muted - 1, (grid, muted)
    assert re.search(r"\.fig-grid\s*\{[^}]*stroke:\s*var\(--grid\)", WIDGETS)
    # crisp by the rule for every figure's <line> (the next test), and drawn only as <line>s
    assert not re.search(r"\.fig-grid\s*\{[^}]*shape-rendering", WIDGETS)
    grids = [tag for svg in _every_figure(640).values() for tag in re.findall(r"<\w+\b[^>]*\bfig-grid\b", svg)]
    assert grids and all(tag.startswith("<line") for tag in grids), grids


def _every_figure(width: int) -> dict[str, str]:
    """Every widget's SVG figures at ``width`` (their default settings), and the serving section's two
    figures the build draws (validation, brackets)."""
    import importlib

    shown = {}
    for name in ("deployment", "exact", "ledger", "policies", "realtext", "serving", "traces", "trees"):
        module = importlib.import_module(f"lab.widgets.{name}")
        for figure, svg in module.view({"width": str(width)}).get("figures", {}).items():
            if isinstance(svg, str) and svg.startswith("<svg"):
                shown[f"{name}.{figure}"] = svg
        if name == "serving":
            shown["serving.validation"] = module._validation_figure(width)
            shown["serving.brackets"] = module._brackets_figure(width)
    return shown


@pytest.mark.parametrize("width", [320, 640, 960])
def test_every_line_of_a_figure_is_level_or_upright_and_drawn_crisp(width):
    """widgets.css draws every <line> of a figure (and every fig-axisline, <line> or tick path) with crisp
    edges: at 1x a 1 px line centred on a whole pixel is otherwise painted as two rows at half strength,
    under 3:1 although its colour clears it (docs/PALETTE.md, "Thin lines at 1x"; tools/line_contrast.py
    measures it). Crisp edges would make a slanted line jagged, so a figure draws a slant as a <path>: every
    <line> is level or upright, and every path of the rule's classes is made of h and v steps only."""
    assert re.search(r"(^|\n)svg\.figure line, \.fig-axisline, \.pol-one, \.pol-best-line \{ shape-rendering: crispEdges; \}",
                     WIDGETS)
    lines = 0
    for name, svg in _every_figure(width).items():
        for tag in re.findall(r"<line\b[^>]*>", svg):
            at = dict(re.findall(r'\b(x1|x2|y1|y2)="([^"]*)"', tag))
            assert len(at) == 4 and (at["x1"] == at["x2"] or at["y1"] == at["y2"]), (name, tag)
            lines += 1
        for d in re.findall(r'<path class="[^"]*\b(?:fig-axisline|pol-one|pol-best-line)\b[^"]*" d="([^"]*)"', svg):
            assert re.fullmatch(r"(M-?[\d.]+ -?[\d.]+([hv]-?[\d.]+)+)+", d), (name, d)
    assert lines >= 30, lines


def _font_sizes() -> dict[str, float]:
    sizes = {}
    for name, size in re.findall(r"\.(fig-[a-z]+)\s*\{[^}]*font-size:\s*([0-9.]+)px", WIDGETS):
        sizes[name] = float(size)
    return sizes


EXTREMES = ({}, {"acceptance": "100", "lookahead": "12", "draftCost": "0", "overheadMs": "200", "targetMs": "1",
                 "verifyTax": "50", "certainty": "100", "match": "0", "gamma": "12", "length": "256"},
            {"acceptance": "0", "lookahead": "1", "draftCost": "100", "targetMs": "500", "certainty": "0",
             "match": "100", "gamma": "1", "length": "1"})


def _figures_at(width: int) -> dict[str, str]:
    shown = {}
    for number, raw in enumerate(EXTREMES):
        raw = {**raw, "width": str(width)}
        for name, svg in (ledger_widget.view(raw)["figures"] | exact_widget.view(raw)["figures"]).items():
            if svg.startswith("<svg"):
                shown[f"{name}/{number}"] = svg
    return shown


@pytest.mark.parametrize("width", [320, 390, 640, 920, 960])
def test_figures_lay_out_for_their_width(width):
    sizes = _font_sizes()
    base = float(re.search(r"svg\.figure\s*\{[^}]*font:\s*([0-9.]+)px", WIDGETS).group(1))
    assert base >= figures.MIN_TEXT
    for name, svg in _figures_at(width).items():
        head = svg[:svg.index(">")]
        assert f'width="{width}"' in head and f'viewBox="0 0 {width} ' in head, name
        for classes in re.findall(r'<text class="([^"]*)"', svg):
            size = max([sizes[c] for c in classes.split() if c in sizes] or [base])
            assert size >= figures.MIN_TEXT, (name, classes)
        assert "<text>" not in svg and "<text " not in svg.replace("<text class=", ""), name  # every text is styled
        # every label fits on the canvas (by a generous estimate of its width)
        for classes, x, anchor, text in re.findall(
                r'<text class="([^"]*)" x="(-?[0-9.]+)" y="[^"]*"(?: text-anchor="([a-z]+)")?[^>]*>([^<]*)</text>', svg):
            size = max([sizes[c] for c in classes.split() if c in sizes] or [base])
            span = figures.text_width(text.replace("&#x27;", "'"), size)
            left = float(x) - {"middle": span / 2, "end": span}.get(anchor, 0)
            assert -1 <= left and left + span <= width + 1, (name, text, left, left + span)



def test_width_is_presentation_only():
    """The width changes the drawing, never the numbers, the URL query or the notes."""
    narrow, default = ledger_widget.view({"width": "320"}), ledger_widget.view()
    assert narrow["figures"]["heatmap"] != default["figures"]["heatmap"]
    for key in ("params", "query", "notes", "summary", "live", "ledger", "bestLookahead"):
        assert narrow[key] == default[key], key
    assert exact_widget.view({"width": "abc"})["width"] == figures.DEFAULT_WIDTH
    assert exact_widget.view({"query": "?seed=7", "width": "400"})["params"]["seed"] == 7
    assert "width" not in exact_widget.view({"width": "400"})["query"]
