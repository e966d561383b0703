#!/usr/bin/env python3
"""Measure, from screenshots, the contrast at which every figure's thin lines are painted.

    python -m tools.line_contrast --dir dist [--out /tmp/line-contrast] [--widths 390,1280] [--scales 1,2]

A colour can clear 3:1 while its line does not: a 1 px line centred on a whole pixel is painted at
1x as two rows at about half strength (docs/PALETTE.md, "Gridlines" and "Thin lines at 1x"). So this
reads the pixels. It serves the built site (tools/serve.py), opens the article live in headless
Chromium (tests/browser.py chooses which) once per device scale factor, opens every <details>,
reaches every widget, and at each width and colour scheme, for each figure and each group of its
thin lines (same tag, class and stroke width, stroke <= 2 px), hides everything else in that figure,
screenshots it and measures each line of the group: across the line (per pixel column of a wide
line, per row of a tall one) the strongest pixel's contrast with the panel, the median along the
line. A group's number is its weakest line's. Nominal is the colour's own contrast on the panel.

Writes report.json and one screenshot per figure, width, scheme and scale (as painted, nothing
hidden) into --out, and prints the groups under 3:1 (all of them with --all). Standard library and
Playwright only; the heatmaps are skipped (their lines sit on data colours, not on the panel). A filled
shape's outline (a tree's nodes) is left out, its fill being the mark; --outlines measures those too,
each with its fill hidden while it is shot (its group's key ends in "outline").
"""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import sys
import threading
from pathlib import Path

from lab.figures import MAX_WIDTH, MIN_WIDTH, WIDTH_STEP
from tools.serve import make_server

THIN = 2.0  # a stroke this wide or less (CSS px) counts as a thin line
HIDE = "crisp-measure-hide"

FIGURE_WIDTH_JS = f"""(k) => {{ const w = document.querySelector(`form[data-lab='${{k}}']`).closest('.lab-widget');
    const panel = w.querySelector('.figure-panel') || w;
    return Math.min({MAX_WIDTH}, Math.max({MIN_WIDTH}, Math.floor(panel.clientWidth / {WIDTH_STEP}) * {WIDTH_STEP})); }}"""

# Every thin stroked mark of every figure on a panel, grouped; each group's lines with their boxes.
GROUPS_JS = """([thin, outlines]) => {
    const parse = (c) => { const m = c && c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
        const [r, g, b, a = 1] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return a === 0 ? null : [r, g, b, a]; };
    const backdrop = (el) => { for (let n = el; n; n = n.parentElement) {
        if (n instanceof HTMLElement) { const c = parse(getComputedStyle(n).backgroundColor); if (c) return c; } }
        return [255, 255, 255, 1]; };
    const out = [], named = {};
    let f = 0;
    for (const svg of document.querySelectorAll('svg.figure')) {
        const box = svg.getBoundingClientRect();
        const name = svg.closest('[data-figure]')?.dataset.figure || 'figure';
        named[name] = (named[name] || 0) + 1;
        const figure = name + (named[name] > 1 ? '#' + named[name] : '');
        if (!box.width || !box.height || svg.closest('[data-figure^="heatmap"]')) {
            out.push({ figure, index: null, skipped: box.width ? 'heatmap' : 'not shown', groups: [] }); f++; continue; }
        svg.dataset.crispFigure = String(f++);
        const groups = {};
        let i = 0;
        for (const el of svg.querySelectorAll('line, path, polyline, rect, circle, polygon')) {
            const style = getComputedStyle(el);
            const stroke = style.stroke !== 'none' && parse(style.stroke);
            const width = parseFloat(style.strokeWidth);
            if (!stroke || !(width > 0) || width > thin || style.visibility === 'hidden' || style.display === 'none') continue;
            // a filled shape: its fill is the mark (with --outlines its outline is measured too, the fill hidden)
            const filled = el.tagName !== 'line' && parse(style.fill);
            if (filled && !outlines) continue;
            if (el.matches('.fig-halo, .fig-clear')) continue;
            const r = el.getBoundingClientRect();
            if (!r.width && !r.height) continue;
            const key = `${el.tagName}.${(el.getAttribute('class') || '').trim().replace(/\\s+/g, '.')} ${width}px` +
                (style.shapeRendering === 'crispedges' ? ' crisp' : '') + (filled ? ' outline' : '');
            el.dataset.crispLine = String(i++);
            if (filled) el.dataset.crispOutline = '';
            let alpha = stroke[3] * Number(style.strokeOpacity);  // the colour as blended on the panel
            for (let n = el; n !== svg.parentElement; n = n.parentElement) alpha *= Number(getComputedStyle(n).opacity);
            const ground = backdrop(svg);
            const seen = [0, 1, 2].map((c) => alpha * stroke[c] + (1 - alpha) * ground[c]);
            (groups[key] ||= { key, stroke: seen, lines: [] }).lines.push({ id: el.dataset.crispLine,
                x: r.left - box.left, y: r.top - box.top, w: r.width, h: r.height, half: width / 2 });
        }
        out.push({ figure, index: svg.dataset.crispFigure, ground: backdrop(svg), groups: Object.values(groups) });
    }
    return out;
}"""

# In a blank page: decode a screenshot and measure each line of a group against the panel.
MEASURE_JS = """async ({ png, scale, ground, lines }) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + png;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const g = lum(ground);
    const ratio = (l) => (Math.max(l, g) + 0.05) / (Math.min(l, g) + 0.05);
    const at = (x, y) => { const k = (y * canvas.width + x) * 4; return ratio(lum([data[k], data[k + 1], data[k + 2]])); };
    return lines.map((ln) => {
        const pad = Math.ceil((ln.half + 1.5) * scale);
        const [x0, x1] = [Math.floor(ln.x * scale) - pad, Math.ceil((ln.x + ln.w) * scale) + pad];
        const [y0, y1] = [Math.floor(ln.y * scale) - pad, Math.ceil((ln.y + ln.h) * scale) + pad];
        const clampX = (v) => Math.max(0, Math.min(canvas.width - 1, v));
        const clampY = (v) => Math.max(0, Math.min(canvas.height - 1, v));
        const wide = ln.w >= ln.h;
        // along the line, inside its geometry (ends trimmed by a device pixel or two: caps, joins)
        const [a0, a1] = wide ? [Math.ceil(ln.x * scale) + 2, Math.floor((ln.x + ln.w) * scale) - 2]
                              : [Math.ceil(ln.y * scale) + 2, Math.floor((ln.y + ln.h) * scale) - 2];
        const [c0, c1] = wide ? [clampY(y0), clampY(y1)] : [clampX(x0), clampX(x1)];
        const cores = [];
        for (let a = Math.max(a0, 0); a <= Math.min(a1, (wide ? canvas.width : canvas.height) - 1); a++) {
            let best = 1;
            for (let c = c0; c <= c1; c++) best = Math.max(best, wide ? at(a, c) : at(c, a));
            if (best > 1.05) cores.push(best);  // a path of separate pieces (ticks) has gaps between them
        }
        cores.sort((p, q) => p - q);
        return { painted: cores.length ? cores[Math.floor(cores.length / 2)] : 1, samples: cores.length,
                 geometry: [ln.x, ln.y, ln.w, ln.h].map((v) => Math.round(v * 100) / 100) };
    });
}"""


def _lum(rgb):
    def f(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = rgb[:3]
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)


def _ratio(a, b):
    x, y = sorted((_lum(a), _lum(b)), reverse=True)
    return (x + 0.05) / (y + 0.05)


def _open(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => document.documentElement.dataset.labState", timeout=120_000)
    state = page.evaluate("() => document.documentElement.dataset.labState")
    if state != "live":
        raise SystemExit(f"line_contrast: the page did not go live (labState={state!r})")
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_function("() => document.documentElement.dataset.labReached !== undefined", timeout=120_000)
    page.evaluate("""() => { for (const form of document.querySelectorAll('form[data-lab]'))
        (form.closest('.lab-widget') || form).dispatchEvent(new FocusEvent('focusin')); }""")
    page.add_style_tag(content=f"svg.figure.{HIDE} * {{ visibility: hidden !important; }}"
                               f" svg.figure.{HIDE} [data-crisp-on] {{ visibility: visible !important; }}"
                               f" svg.figure.{HIDE} [data-crisp-on][data-crisp-outline] {{ fill: none !important; }}")
    return page


def _settle(page, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('form[data-lab]')].every((f) => f.dataset.width === undefined ||
            f.dataset.width === String(({FIGURE_WIDTH_JS})(f.dataset.lab)))""", timeout=120_000)
    page.wait_for_timeout(300)


def _shoot(page, index, whole=False):
    """A screenshot of the figure, taken once its place on the screen holds still for a frame (a layout
    shift between finding it and painting it would move every line off its box): the figure alone, or
    the whole viewport (whole=True) with the figure's top-left corner in it (CSS px)."""
    where = f'svg.figure[data-crisp-figure="{index}"]'
    rect = """(sel) => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
        const r = document.querySelector(sel).getBoundingClientRect(); done([r.left, r.top, r.width, r.height]); })))"""
    page.evaluate("(sel) => document.querySelector(sel).scrollIntoView({ block: 'center', behavior: 'instant' })", where)
    for _ in range(10):
        before = page.evaluate(rect, where)
        clip = None if whole else {"x": before[0], "y": before[1], "width": before[2], "height": before[3]}
        png = page.screenshot(animations="disabled", clip=clip)
        if page.evaluate(rect, where) == before:
            return png, before[:2]
    raise SystemExit(f"line_contrast: figure {index} kept moving on the screen")


def measure(url, widths, scales, schemes, out: Path, outlines: bool = False):
    from playwright.sync_api import sync_playwright

    from bench.browser import launcher  # tests/browser.py's launch(): the tests' choice of Chromium

    rows, seen, skipped = [], set(), set()
    with sync_playwright() as p:
        browser = launcher()(p)
        for scale in scales:
            context = browser.new_context(viewport={"width": widths[0], "height": 900}, device_scale_factor=scale,
                                          bypass_csp=True)  # for the one style tag that hides the rest
            page, blank = _open(context, url), context.new_page()
            for width in widths:
                _settle(page, width)
                for scheme in schemes:
                    page.emulate_media(color_scheme=scheme)
                    page.wait_for_timeout(100)
                    figures = page.evaluate(GROUPS_JS, [THIN, outlines])
                    for fig in figures:
                        if fig["index"] is None:
                            skipped.add((fig["figure"], fig["skipped"]))
                            continue
                        seen.add(fig["figure"])
                        png, _ = _shoot(page, fig["index"])
                        (out / f"{fig['figure']}-{width}-{scheme}-{scale}x.png").write_bytes(png)
                        for group in fig["groups"]:
                            ids = [ln["id"] for ln in group["lines"]]
                            page.evaluate("""([f, ids, hide]) => { const svg = document.querySelector(`svg.figure[data-crisp-figure="${f}"]`);
                                svg.classList.add(hide); for (const id of ids) svg.querySelector(`[data-crisp-line="${id}"]`).dataset.crispOn = '';
                            }""", [fig["index"], ids, HIDE])
                            png, offset = _shoot(page, fig["index"], whole=True)
                            page.evaluate("""([f, hide]) => { const svg = document.querySelector(`svg.figure[data-crisp-figure="${f}"]`);
                                svg.classList.remove(hide); svg.querySelectorAll('[data-crisp-on]').forEach((e) => delete e.dataset.crispOn);
                            }""", [fig["index"], HIDE])
                            lines = [{**ln, "x": ln["x"] + offset[0], "y": ln["y"] + offset[1]} for ln in group["lines"]]
                            got = blank.evaluate(MEASURE_JS, {"png": base64.b64encode(png).decode(), "scale": scale,
                                                              "ground": fig["ground"], "lines": lines})
                            painted = [g["painted"] for g in got if g["samples"]]
                            rows.append({
                                "figure": fig["figure"], "group": group["key"], "width": width, "scheme": scheme,
                                "scale": scale, "lines": len(got), "nominal": round(_ratio(group["stroke"], fig["ground"]), 2),
                                "painted_min": round(min(painted), 2) if painted else None,
                                "painted_median": round(statistics.median(painted), 2) if painted else None,
                                "weakest": min(got, key=lambda g: g["painted"])["geometry"] if got else None,
                            })
            context.close()
        browser.close()
    print(f"figures measured: {', '.join(sorted(seen))}")
    print(f"figures skipped: {', '.join(f'{f} ({why})' for f, why in sorted(skipped))}")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="line_contrast.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, type=Path, help="a built site (python build.py --out DIR)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/line-contrast"), help="report.json and screenshots")
    parser.add_argument("--widths", default="390,1280", help="viewport widths, comma-separated (default 390,1280)")
    parser.add_argument("--scales", default="1,2", help="device scale factors, comma-separated (default 1,2)")
    parser.add_argument("--schemes", default="light,dark", help="colour schemes (default light,dark)")
    parser.add_argument("--all", action="store_true", help="print every group, not only those under 3:1")
    parser.add_argument("--outlines", action="store_true",
                        help="also measure the outlines of filled shapes (a tree's nodes), each with its fill hidden")
    args = parser.parse_args(argv)
    if not (args.dir / "index.html").is_file():
        parser.exit(2, f"line_contrast.py: error: --dir {args.dir} holds no index.html: build the site first\n")
    try:
        widths = [int(w) for w in args.widths.split(",")]
        scales = [float(s) if "." in s else int(s) for s in args.scales.split(",")]
    except ValueError:
        parser.exit(2, "line_contrast.py: error: --widths and --scales take comma-separated numbers, e.g. 390,1280\n")
    schemes = args.schemes.split(",")
    if not set(schemes) <= {"light", "dark"}:
        parser.exit(2, f"line_contrast.py: error: --schemes takes light and/or dark, not {args.schemes}\n")
    args.out.mkdir(parents=True, exist_ok=True)

    server = make_server(args.dir, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        rows = measure(f"http://127.0.0.1:{server.server_address[1]}/", widths, scales, schemes, args.out, args.outlines)
    finally:
        server.shutdown()
    (args.out / "report.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    under = [r for r in rows if r["painted_min"] is not None and r["painted_min"] < 3]
    for r in sorted(rows if args.all else under, key=lambda r: (r["figure"], r["group"], r["scale"], r["width"], r["scheme"])):
        print(f'{r["figure"]:18} {r["group"]:44} {r["width"]:>5} {r["scheme"]:5} {r["scale"]}x  '
              f'n={r["lines"]:<3} nominal {r["nominal"]:5.2f}  painted min {r["painted_min"]:5.2f} '
              f'median {r["painted_median"]:5.2f}  weakest at {r["weakest"]}')
    print(f"{len(rows)} groups measured, {len(under)} with a line painted under 3:1; {args.out}/report.json")
    return 1 if under else 0


if __name__ == "__main__":
    sys.exit(main())
