"""Helpers for the Playwright tests of the built page (tests/test_site*.py).

The expected values are literals on purpose: the site audit compares the strings the page shows
with these constants, so a drift in lab/ cannot silently move both sides. Figures and summaries
are compared with what lab.views produces in CPython for the same settings: the page must show
exactly what the Python would.

Every widget is known here by the lab's own table (lab.instruments), as the build and the worker
know it: `VIEW[kind]` is its view, `WIDGET[kind]` its element (`#KIND-lab`), `FIGURES[kind]` its
figure regions. A new instrument needs no line in this file or in its own site test.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from urllib.parse import parse_qs

from lab import instruments, views  # noqa: F401  (other site tests reach the lab's path through sitepage.views)
from lab.figures import MAX_WIDTH, MIN_WIDTH, WIDTH_STEP

EXPECTED_COUNTER = "20/20 speculative decoding checks passed"
EXPECTED_MARK = "\u2713 verified in this browser"
EXPECTED_SIGNATURES = {
    "audit": "20:20:0:1296:0.000000000000:0.000000000000",
    "legacy": "74:12:5:6:80:3:2.214590:3.214590:48.000000:89.600000:143.600000:44.671321:1.790858:2.785410:4:1.819264",
    "exact": "64:9:5:96:72:23:0:0.816833:0.183167:0.000000000000:0.095338:0.839579:2.793327:3.180915:21:102:75:9:12"
             ":4.571429:0.012412:0.012819:0.100947",
}

BOOT_TIMEOUT_MS = 90_000  # a cold Pyodide boot takes ~2.5 s here; generous for a loaded CI box
RENDER_TIMEOUT_MS = 10_000

# The least a rendered figure holds: the heatmap's selection is one outline on its own canvas.
MIN_FIGURE_PARTS = {"heatmapSelection": 1}

# The widgets, found as the build and the worker find them: every name in lab.instruments' table
# (lab.instruments.widget_names()), so a new instrument needs nothing here. The seed's two come first.
SEED = instruments.SEED


class _ByWidget(Mapping):
    """name -> what `find(name)` gives, for every widget in lab.instruments' table, in page order;
    a name not in the table is a KeyError naming the valid ones (lab.instruments.part's)."""

    def __init__(self, find):
        self._find = find

    def __getitem__(self, name):
        return self._find(name)

    def __iter__(self):
        return iter(instruments.widget_names())

    def __len__(self):
        return len(instruments.widget_names())


def _view(name):
    """The widget's view (lab/widgets/NAME.py), imported on first use as the worker does."""
    return instruments.part("widgets", name).view


@cache
def _figures(name) -> tuple[str, ...]:
    """The figure regions the widget's view fills (its `figures`' names, at the defaults the build
    renders): app.js puts each into the form's [data-figure=NAME]."""
    return tuple(_view(name)(None)["figures"])


def _selector(name) -> str:
    """The widget's element: its partial's <figure class="lab-widget" id="NAME-lab">
    (tests/test_instruments_scaffold.py holds every partial to it)."""
    if not instruments.is_widget(name):
        raise KeyError(f"unknown widget {name!r}; valid: {', '.join(instruments.widget_names())}")
    return f"#{name}-lab"


VIEW = _ByWidget(_view)
FIGURES = _ByWidget(_figures)
WIDGET = _ByWidget(_selector)


# What app.js asks for: the first figure panel's width in steps of WIDTH_STEP px, within MIN_WIDTH..MAX_WIDTH
# (lab.figures' constants, which the build writes into the page config for app.js).
FIGURE_WIDTH_JS = f"""(k) => {{ const w = document.querySelector(`form[data-lab='${{k}}']`).closest('.lab-widget');
    const panel = w.querySelector('.figure-panel') || w;
    return Math.min({MAX_WIDTH}, Math.max({MIN_WIDTH}, Math.floor(panel.clientWidth / {WIDTH_STEP}) * {WIDTH_STEP})); }}"""


def wait_live(pg, timeout=BOOT_TIMEOUT_MS):
    """Wait until the page has left its pre-rendered state; fail with the status text if not live."""
    pg.wait_for_function("() => document.documentElement.dataset.labState", timeout=timeout)
    state = pg.evaluate("() => document.documentElement.dataset.labState")
    assert state == "live", f"labState={state!r}: {status_text(pg)}"


def wait_audit(pg, timeout=BOOT_TIMEOUT_MS):
    pg.wait_for_function(
        "() => document.querySelector('[data-audit-counter]').dataset.source === 'browser'"
        " || document.documentElement.dataset.labState === 'failed'", timeout=timeout)
    assert pg.get_attribute("[data-audit-counter]", "data-source") == "browser", status_text(pg)


def run_every_family(pg, timeout=BOOT_TIMEOUT_MS):
    """Ask the page to re-run every instrument's checks now, as a reader does with the counter's "Re-run
    the rest now" button (each family otherwise runs when the reader reaches its widget). Clicked by
    script, so the page does not scroll."""
    pg.wait_for_function(
        "() => document.querySelector('[data-action=\"run-checks\"]')"
        " || document.querySelector('[data-instrument-counter]').dataset.source === 'browser'"
        " || document.documentElement.dataset.labState === 'failed'", timeout=timeout)
    pg.evaluate("() => document.querySelector('[data-action=\"run-checks\"]')?.click()")


def reach_every_widget(pg, kinds=None):
    """Reach widgets as a reader does by touching them (a focusin on each widget, which site/audit.js
    listens for beside its IntersectionObserver), without scrolling: their lab modules load and their
    figures are redrawn for their panels' widths. A widget nobody reached keeps the build's drawing
    (the lab loads what the reader reaches), so a test that checks every widget's live figures asks."""
    # site/audit.js listens for a reach once the page is live and sets data-lab-reached then
    pg.wait_for_function("() => document.documentElement.dataset.labReached !== undefined", timeout=BOOT_TIMEOUT_MS)
    pg.evaluate("""(kinds) => { for (const form of document.querySelectorAll('form[data-lab]')) {
        if (kinds && !kinds.includes(form.dataset.lab)) continue;
        (form.closest('.lab-widget') || form).dispatchEvent(new FocusEvent('focusin')); } }""", kinds)


def wait_instrument_audit(pg, timeout=BOOT_TIMEOUT_MS):
    """Wait for the second counter (the instruments suite), which re-runs a family at a time after the
    seed audit, each as its widget is reached: this asks for all of them (:func:`run_every_family`). On a
    page opened without the suite (conftest: make(instrument_suite=False), the default) the seed audit
    is the last thing the page runs after going live: wait for that, so the page is idle as well."""
    if not getattr(pg, "instrument_suite", True):
        wait_audit(pg, timeout)
        return
    run_every_family(pg, timeout)
    pg.wait_for_function(
        "() => document.querySelector('[data-instrument-counter]').dataset.source === 'browser'"
        " || document.documentElement.dataset.labState === 'failed'", timeout=timeout)
    assert pg.get_attribute("[data-instrument-counter]", "data-source") == "browser", status_text(pg)


def expected_instrument_counter() -> str:
    """`K/K instrument checks passed`, K read from the frozen suite signature (instruments:K:...)."""
    from lab.checks import EXPECTED_SIGNATURE

    checked = int(EXPECTED_SIGNATURE.split(":")[1])
    return f"{checked}/{checked} instrument checks passed"


def status_text(pg) -> str:
    return " ".join(pg.text_content("#runtime-status").split())


def summary(pg, kind) -> str:
    return pg.evaluate("(k) => document.querySelector(`form[data-lab='${k}'] output[name='summary']`).value", kind)


def lead(pg, kind) -> str:
    """The widget's one-sentence answer, shown above its folded working (output[name=lead])."""
    return pg.evaluate("(k) => document.querySelector(`form[data-lab='${k}'] output[name='lead']`).value", kind)


def slider_values(pg, kind) -> dict[str, str]:
    """The form's named inputs (sliders and the seed) as the raw strings app.js sends to the worker."""
    return pg.evaluate("""(k) => Object.fromEntries([...document.querySelectorAll(
        `form[data-lab='${k}'] input[name]`)].map((i) => [i.name, i.value]))""", kind)


def figure_width(pg, kind) -> str:
    """The width the widget's figures are drawn for (app.js sends it with every request)."""
    return pg.get_attribute(f"form[data-lab='{kind}']", "data-width")


def with_width(pg, kind, raw):
    """`raw` (slider values or a URL query) as app.js sends it: with the figure width."""
    width = figure_width(pg, kind)
    return {"query": raw, "width": width} if isinstance(raw, str) else {**raw, "width": width}


def figure_markup(pg, kind) -> dict[str, str]:
    return pg.evaluate("""([sel, names]) => Object.fromEntries(names.map((n) =>
        [n, document.querySelector(`${sel} [data-figure='${n}']`).innerHTML]))""", [WIDGET[kind], list(FIGURES[kind])])


def readouts(pg, kind) -> dict[str, str]:
    return pg.evaluate("""(sel) => Object.fromEntries([...document.querySelectorAll(`${sel} [data-readout]`)]
        .map((d) => [d.dataset.readout, d.textContent]))""", WIDGET[kind])


def notes(pg, kind) -> list[str]:
    return pg.evaluate("(k) => [...document.querySelectorAll(`[data-notes='${k}'] p`)].map((p) => p.textContent)", kind)


def wait_url_written(pg, timeout=RENDER_TIMEOUT_MS) -> None:
    """Wait until app.js has written the address: it rewrites it once the settings have rested
    (<html data-url-pending> while a write waits)."""
    pg.wait_for_function("() => !document.documentElement.hasAttribute('data-url-pending')", timeout=timeout)


def default_pairs() -> set[str]:
    """Every widget's default settings as "key=value" pairs: what the page is built with, and what
    the address leaves out (app.js writes only the settings that differ)."""
    joined = [VIEW[name](None)["query"] for name in instruments.widget_names()]
    return {pair for query in joined for pair in query.split("&") if pair}


def address(pg) -> dict[str, str]:
    """location.search as a dict (last value wins, like lab.urlstate), read from the page itself
    once app.js has written it (Playwright's pg.url learns of history.replaceState a moment later).
    It holds only the settings that differ from the defaults."""
    wait_url_written(pg)
    search = pg.evaluate("() => location.search")
    return {k: v[-1] for k, v in parse_qs(search.lstrip("?"), keep_blank_values=True).items()}


def query(pg) -> dict[str, str]:
    """The settings the address stands for: every default, overridden by the pairs it holds."""
    return {**dict(pair.split("=", 1) for pair in default_pairs()), **address(pg)}


def wait_summary(pg, kind, expected, timeout=RENDER_TIMEOUT_MS):
    """Wait until the widget's summary is exactly `expected` (the latest input wins, so earlier
    renders may come first)."""
    try:
        pg.wait_for_function(
            "([k, text]) => document.querySelector(`form[data-lab='${k}'] output[name='summary']`).value === text",
            arg=[kind, expected], timeout=timeout)
    except Exception as error:  # show what the page does say
        raise AssertionError(f"{kind} summary never became {expected!r}; it says {summary(pg, kind)!r}; "
                             f"status: {status_text(pg)}") from error


def mismatched_figures(pg, kind, view) -> list[str]:
    """Names of figure regions whose DOM differs from `view`'s markup. Both sides go through the
    browser's HTML parser and serializer, so only a real difference in the markup counts. A region
    inside a closed <details> is compared as the reader would see it: opened (app.js puts its
    latest markup in on the toggle event), then closed again; action buttons count as app.js leaves
    them, enabled. With JavaScript off nothing swaps
    markup (and no toggle event would reach a listener), so the regions are compared as built."""
    if not getattr(pg, "js_enabled", True):
        return pg.evaluate("""([sel, figures]) => Object.entries(figures).filter(([name, markup]) => {
            const scratch = document.createElement('div');
            scratch.innerHTML = markup;
            return document.querySelector(`${sel} [data-figure='${name}']`).innerHTML !== scratch.innerHTML;
        }).map(([name]) => name)""", [WIDGET[kind], view["figures"]])
    return pg.evaluate("""async ([sel, figures]) => {
        const opened = [...document.querySelectorAll(`${sel} details:not([open])`)];
        await Promise.all(opened.map((d) => new Promise((resolve) => {
            d.addEventListener('toggle', () => setTimeout(resolve, 0), { once: true });
            d.open = true;
        })));
        const out = Object.entries(figures).filter(([name, markup]) => {
            const scratch = document.createElement('div');
            scratch.innerHTML = markup;
            // app.js enables the action buttons a figure's markup ships disabled, as it swaps it in
            for (const b of scratch.querySelectorAll('button[data-action]:disabled')) b.disabled = false;
            return document.querySelector(`${sel} [data-figure='${name}']`).innerHTML !== scratch.innerHTML;
        }).map(([name]) => name);
        for (const d of opened) d.open = false;
        return out;
    }""", [WIDGET[kind], view["figures"]])


def assert_shows(pg, kind, raw):
    """Wait for, then check, that the widget shows exactly what lab.views gives in CPython for `raw`
    (slider values or a URL query), drawn for the widget's figure width: the lead and the summary,
    every figure, readouts and notes. Returns the view."""
    view = VIEW[kind](raw)
    wait_summary(pg, kind, view["summary"])
    pg.wait_for_function("([k, w]) => document.querySelector(`form[data-lab='${k}']`).dataset.width === w",
                         arg=[kind, str(pg.evaluate(FIGURE_WIDTH_JS, kind))], timeout=RENDER_TIMEOUT_MS)
    view = VIEW[kind](with_width(pg, kind, raw))
    assert mismatched_figures(pg, kind, view) == []
    if "readouts" in view:
        assert readouts(pg, kind) == view["readouts"]
    assert notes(pg, kind) == view["notes"]
    assert lead(pg, kind) == view["lead"]
    return view


def open_more(pg, selector) -> None:
    """Open the "More settings" group that folds the control at `selector`, as a reader would (a
    click on its summary); nothing when the control is not folded or already shown."""
    group = pg.locator(selector).locator("xpath=ancestor::details[1]")
    for _ in range(2):
        if not group.count() or group.get_attribute("open") is not None:
            break
        group.locator("summary").first.click()
        # A widget that redraws as the click lands (the real-text models arriving, say) can move
        # the summary from under it; a reader would click again, and so does this.
        try:
            pg.wait_for_function("(group) => group.open", arg=group.element_handle(), timeout=2000)
        except Exception:
            continue
    pg.locator(selector).wait_for(state="visible")
