#!/usr/bin/env python3
"""Whether two built sites look the same: every element's computed colours, and full-page pixels.

    python -m tools.same_colours --before /tmp/main-dist --after dist [--out /tmp/same-colours]
                                 [--widths 390,1280] [--schemes light,dark] [--js off,on]

For a change to how the page's colours are written that should change none of them (the palette the
build writes into style.css, docs/PALETTE.md). It serves both directories (tools/serve.py), opens the
article in headless Chromium (tests/browser.py chooses which) at each width, colour scheme and
JavaScript setting (on: once the lab is live), opens every <details>, and reads on every element and its
::before, ::after and ::marker the computed value of each property in PROPERTIES (colour, fill, stroke,
backgrounds, borders, outline, shadows, mask, opacities), until two readings a second apart agree (the
tables' scroll-driven fade settles late). Then it screenshots each whole page, in bands of BAND px, and
compares them pixel for pixel (bands of the same bytes are the same; any other is decoded in the browser and
both are written to --out). Build the other tree from a copy, never a second worktree:
``git archive main | tar -x -C /tmp/main`` then ``python build.py --out /tmp/main-dist`` there.

Prints one JSON line per run and writes report.json (and any band that differs) into --out. Exits 0 when every
run has the same elements, values and pixels, 1 when one differs (the first five differences named),
2 when it cannot compare. Standard library and Playwright only.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import threading
from pathlib import Path

from tools.serve import make_server

PROPERTIES = ("color", "fill", "stroke", "background-color", "background-image", "border-top-color",
              "border-right-color", "border-bottom-color", "border-left-color", "outline-color", "box-shadow",
              "text-decoration-color", "stop-color", "flood-color", "lighting-color", "caret-color",
              "column-rule-color", "mask-image", "accent-color", "opacity", "fill-opacity", "stroke-opacity",
              "text-shadow", "-webkit-text-fill-color")
BOOT_TIMEOUT_MS = 180_000
BAND = 4000  # px of page height per screenshot

COLLECT_JS = """(props) => {
  const out = [];
  for (const el of document.querySelectorAll('*')) {
    for (const pseudo of [null, '::before', '::after', '::marker']) {
      const cs = getComputedStyle(el, pseudo);
      if (pseudo && pseudo !== '::marker' && (cs.content === 'none' || cs.content === 'normal')) continue;
      out.push([el.tagName + (el.id ? '#' + el.id : '') + '.' + (el.getAttribute('class') || ''), pseudo || '',
                ...props.map((p) => cs.getPropertyValue(p))]);
    }
  }
  return out;
}"""

PIXELS_JS = """async ([a, b]) => {
  const load = (src) => new Promise((ok, bad) => { const im = new Image(); im.onload = () => ok(im); im.onerror = bad; im.src = src; });
  const [ia, ib] = await Promise.all([load(a), load(b)]);
  if (ia.width !== ib.width || ia.height !== ib.height) return {sizes: [ia.width, ia.height, ib.width, ib.height], differ: -1};
  const px = (im) => { const c = new OffscreenCanvas(im.width, im.height); const g = c.getContext('2d');
                       g.drawImage(im, 0, 0); return g.getImageData(0, 0, im.width, im.height).data; };
  const da = px(ia), db = px(ib);
  let differ = 0, first = -1;
  for (let i = 0; i < da.length; i += 4) {
    if (da[i] !== db[i] || da[i + 1] !== db[i + 1] || da[i + 2] !== db[i + 2] || da[i + 3] !== db[i + 3]) {
      differ++; if (first < 0) first = i / 4;
    }
  }
  return {width: ia.width, height: ia.height, differ, firstAt: first < 0 ? null : [first % ia.width, Math.floor(first / ia.width)]};
}"""


def _read(browser, url: str, scheme: str, width: int, js: bool) -> tuple[list, list[bytes]]:
    """Every element's computed values on ``url`` as set, and its whole page as PNG screenshots of
    :data:`BAND` px from the top down (a canvas cannot hold a page of 100,000 px to compare)."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                                  java_script_enabled=js, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(url, wait_until="load")
        if js:
            page.wait_for_function("() => document.documentElement.dataset.labState === 'live'", timeout=BOOT_TIMEOUT_MS)
            page.wait_for_timeout(3000)
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_timeout(500)
        last = None
        for _ in range(6):
            now = page.evaluate(COLLECT_JS, list(PROPERTIES))
            if now == last:
                break
            last = now
            page.wait_for_timeout(1000)
        height = page.evaluate("() => document.documentElement.scrollHeight")
        bands = [page.screenshot(full_page=True, clip={"x": 0, "y": top, "width": width,
                                                       "height": min(BAND, height - top)})
                 for top in range(0, height, BAND)]
        return now, bands
    finally:
        context.close()


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _pixels(browser, before: list[bytes], after: list[bytes], out: Path, name: str) -> dict:
    """Pixels that differ between two pages' bands (the same bytes are the same pixels; other bands are
    decoded and compared in the browser, and both written to ``out`` for a look)."""
    if len(before) != len(after):
        return {"bands": [len(before), len(after)], "differ": -1}
    differ, first = 0, None
    checker = browser.new_page()
    try:
        for index, (a, b) in enumerate(zip(before, after)):
            if a == b:
                continue
            result = checker.evaluate(PIXELS_JS, [_data_url(a), _data_url(b)])
            if result["differ"]:
                (out / f"before-{name}-band{index}.png").write_bytes(a)
                (out / f"after-{name}-band{index}.png").write_bytes(b)
                differ += max(result["differ"], 0) or 1
                if first is None:
                    first = [index, result]
    finally:
        checker.close()
    return {"bands": len(before), "bandsSameBytes": sum(a == b for a, b in zip(before, after)), "differ": differ,
            "first": first}


def compare(before: str, after: str, widths, schemes, js_settings, out: Path) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from bench.browser import launcher  # tests/browser.py's launch(): the tests' choice of Chromium

    results = []
    with sync_playwright() as p:
        browser = launcher()(p)
        try:
            for js in js_settings:
                for scheme in schemes:
                    for width in widths:
                        name = f"{scheme}-{width}-js-{'on' if js else 'off'}"
                        (a, shots_a), (b, shots_b) = (_read(browser, url, scheme, width, js) for url in (before, after))
                        differences = [{"element": x[0], "pseudo": x[1],
                                        "values": {prop: [x[i + 2], y[i + 2]] for i, prop in enumerate(PROPERTIES)
                                                   if x[i + 2] != y[i + 2]}}
                                       for x, y in zip(a, b) if x != y]
                        pixels = _pixels(browser, shots_a, shots_b, out, name)
                        result = {"scheme": scheme, "width": width, "js": js, "elements": [len(a), len(b)],
                                  "differences": len(differences) + abs(len(a) - len(b)),
                                  "first": differences[:5], "pixels": pixels}
                        print(json.dumps(result), flush=True)
                        results.append(result)
        finally:
            browser.close()
    return results


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        self.exit(2, f"{self.prog}: error: {message}\n")


def _list(kind, valid=None):
    def parse(text):
        items = [item.strip() for item in text.split(",") if item.strip()]
        try:
            items = [kind(item) for item in items]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: a comma-separated list of {kind.__name__}s") from None
        if not items or (valid and any(item not in valid for item in items)):
            raise argparse.ArgumentTypeError(f"{text!r}: valid values are {', '.join(map(str, valid or ['numbers']))}")
        return items
    return parse


def main(argv=None) -> int:
    parser = _Parser(prog="same_colours.py", description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, type=Path, help="a built site (the reference, e.g. main's)")
    parser.add_argument("--after", required=True, type=Path, help="a built site (the change)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/same-colours"), help="report and screenshots")
    parser.add_argument("--widths", type=_list(int), default=[390, 1280], help="viewport widths in CSS px")
    parser.add_argument("--schemes", type=_list(str, ("light", "dark")), default=["light", "dark"])
    parser.add_argument("--js", type=_list(str, ("off", "on")), default=["off", "on"], help="JavaScript off, on")
    args = parser.parse_args(argv)
    for directory in (args.before, args.after):
        if not (directory / "index.html").is_file():
            parser.error(f"{directory}: no index.html; give a directory build.py wrote")
    if any(width < 200 or width > 4000 for width in args.widths):
        parser.error(f"--widths {args.widths}: each between 200 and 4000 px")
    args.out.mkdir(parents=True, exist_ok=True)
    servers = [make_server(directory, quiet=True) for directory in (args.before, args.after)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    before, after = (f"http://127.0.0.1:{server.server_address[1]}/" for server in servers)
    from playwright.sync_api import Error as PlaywrightError

    try:
        results = compare(before, after, args.widths, args.schemes, [js == "on" for js in args.js], args.out)
    except (RuntimeError, PlaywrightError) as exc:  # no Chromium, or a page or the lab did not load
        print(f"same_colours.py: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    finally:
        for server in servers:
            server.shutdown()
    (args.out / "report.json").write_text(json.dumps(results, indent=1))
    same = all(r["differences"] == 0 and r["pixels"].get("differ") == 0 for r in results)
    print(f"{len(results)} runs: {'the same' if same else 'DIFFERENT'} (report: {args.out / 'report.json'})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
