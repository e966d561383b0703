"""A failure stays in its widget: when one widget's view raises inside the real worker, that widget
says so (with Retry) and every other widget, the audits and the page status stay live.

The failure is made by the test alone, so production cannot trigger it: the browser is served the
build's own lab zip with one widget module changed so that its view raises (a Playwright route on
the lab zip's URL). Everything else (worker, Pyodide, the page's script) is the build's."""

import io
import json
import re
import zipfile

from lab import instruments
from sitepage import BOOT_TIMEOUT_MS, RENDER_TIMEOUT_MS, status_text, wait_audit, wait_live

BROKEN = "exact"  # sends a render right after the page goes live (data-warm="render"), so it fails first
RAISE = "\n\ndef view(raw=None):\n    raise RuntimeError('this view is broken on purpose by the test')\n"

# Move one control of widget `kind` (a range, number or select) and resolve once it re-rendered.
POKE = """(kind) => new Promise((resolve) => {
  const form = document.querySelector(`form[data-lab="${kind}"]`);
  const control = [...form.querySelectorAll('input[type=range], input[type=number], select')]
    .find((c) => c.name && !c.disabled && !('local' in c.dataset));
  document.addEventListener('lab-rendered', function done(event) {
    if (event.detail.kind !== kind) return;
    document.removeEventListener('lab-rendered', done);
    resolve(control.name);
  });
  if (control.tagName === 'SELECT') {
    control.selectedIndex = (control.selectedIndex + 1) % control.options.length;
    control.dispatchEvent(new Event('change', { bubbles: true }));
  } else {
    const low = Number(control.min), step = Number(control.step) || 1;
    control.value = String(Number(control.value) === low ? low + step : low);
    control.dispatchEvent(new Event('input', { bubbles: true }));
  }
})"""


def _broken_lab_zip(built_site) -> tuple[str, bytes]:
    """The build's lab zip, its name, and a copy whose BROKEN widget's view raises."""
    html = (built_site / "index.html").read_text(encoding="utf-8")
    config = json.loads(re.search(r'<script type="application/json" id="lab-config">(.*?)</script>', html, re.S)[1])
    name = config["labZipURL"]
    source, out = zipfile.ZipFile(io.BytesIO((built_site / name).read_bytes())), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == f"lab/widgets/{BROKEN}.py":
                data += RAISE.encode()
            target.writestr(item, data)
    return name, out.getvalue()


def test_one_failing_view_leaves_the_other_widgets_live(page, built_site):
    name, broken = _broken_lab_zip(built_site)
    pg = page(own_context=True)  # its context is routed
    pg.context.route(f"**/{name}", lambda route: route.fulfill(status=200, body=broken, content_type="application/zip"))
    pg.goto(pg.base_url)
    wait_live(pg)
    notice = pg.locator(f'form[data-lab="{BROKEN}"] ~ .lab-notice[data-view-error]')
    notice.wait_for(timeout=RENDER_TIMEOUT_MS)
    assert "could not be computed" in notice.locator("p").first.text_content()
    assert "broken on purpose" in notice.locator("details").text_content()
    assert notice.locator("button", has_text="Retry").is_visible()

    kinds = pg.evaluate("() => [...document.querySelectorAll('form[data-lab]')].map((f) => f.dataset.lab)")
    assert set(kinds) == set(instruments.widget_names())
    for kind in kinds:
        if kind != BROKEN:
            assert pg.evaluate(POKE, kind), kind  # it answered with a fresh render
            assert pg.locator(f'form[data-lab="{kind}"] ~ .lab-notice').count() == 0, kind
    wait_audit(pg, timeout=BOOT_TIMEOUT_MS)  # the seed audit re-ran in this browser too
    assert pg.evaluate("() => document.documentElement.dataset.labState") == "live", status_text(pg)
    assert status_text(pg).startswith("Live:"), status_text(pg)
    assert pg.evaluate(f"() => [...document.querySelectorAll('form[data-lab=\"{BROKEN}\"] input')].every((i) => !i.disabled)")

    # Retry asks again: the view still raises, so a new note replaces the old one and the page stays live.
    notice.evaluate("(box) => { box.dataset.before = ''; }")
    notice.locator("button", has_text="Retry").click()
    pg.wait_for_function(f"""() => {{
        const notes = document.querySelectorAll('form[data-lab="{BROKEN}"] ~ .lab-notice');
        return notes.length === 1 && !('before' in notes[0].dataset); }}""", timeout=RENDER_TIMEOUT_MS)
    assert pg.evaluate("() => document.documentElement.dataset.labState") == "live"
    assert pg.console_errors == []
    assert pg.foreign_requests() == []
