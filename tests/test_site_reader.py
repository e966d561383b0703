"""One reader, one answer, in Chromium: after "Use in every instrument" every instrument says
it was sent from the deployment as it is now and, under its lead, why its number may differ; a change in
the panel marks the sent values stale, with a one-click "Send again"; figures fit their panel at 320 px
before the lab is live (JavaScript off), and controls that cannot move look disabled."""

import re

import pytest

import sitepage
from lab import instruments, views
from lab.widgets import deployment as widget
from sitepage import wait_live, wait_summary
from test_site_deployment import ORIGIN_KINDS, SENT, form_values, origin, set_control

SELECTOR = "#deployment-lab"
STALE = "Sent from \u201cYour deployment\u201d, which has changed since: these are its earlier settings."


def differs(pg, kind) -> str:
    return pg.evaluate("(k) => document.querySelector(`form[data-lab='${k}'] output[name='differs']`).value", kind)


def shown(pg, selector) -> bool:
    return pg.locator(selector).is_visible()


def wait_rendered(pg, kind):
    """Wait until the widget shows what CPython's view gives for its form's values now."""
    values = form_values(pg, kind)
    wait_summary(pg, kind, instruments.part("widgets", kind).view(values)["summary"])
    return values


def test_a_send_is_current_then_stale_after_a_panel_change_and_one_click_sends_again(page):
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url + "#deployment-lab")
    wait_live(pg)
    pg.click(f"{SELECTOR} button[data-action='send-all']")
    pg.wait_for_function("(sel) => document.querySelector(`${sel} [data-send-status]`).textContent.includes('Sent to')",
                         arg=SELECTOR)
    answer = widget.view(form_values(pg, "deployment"))["answer"]
    for kind in ORIGIN_KINDS:
        values = wait_rendered(pg, kind)
        assert values["origin"] == "sent", kind
        assert origin(pg, kind) == SENT, kind
        # under the lead, in one sentence, why its number may differ: the view's own for the sent values
        module = instruments.part("widgets", kind)
        expected = views.sent_differs(module, module.view(values), values)
        assert expected, kind  # (a sent value may equal the default: the summary alone does not show the render)
        pg.wait_for_function("([k, text]) => document.querySelector(`form[data-lab='${k}'] output[name='differs']`)"
                             ".value === text", arg=[kind, expected])
        assert not shown(pg, f"#{kind}-lab button[data-action='resend']")
    # the serving model agrees with the panel: same speedup and best lookahead
    serving = instruments.part("widgets", "serving").view(form_values(pg, "serving"))
    assert serving["readouts"]["speedup"] == f"{answer['servingSent']['speedup']:.3f}"   # at the sent percent

    # the panel changes: every sent instrument says its settings are the panel's earlier ones
    set_control(pg, "batchExp", "6")
    wait_rendered(pg, "deployment")
    pg.wait_for_function("(text) => document.querySelector('#ledger-lab [data-origin]').textContent === text", arg=STALE)
    for kind in ORIGIN_KINDS:
        assert origin(pg, kind) == STALE, kind
        assert shown(pg, f"#{kind}-lab button[data-action='resend']"), kind
        assert not shown(pg, f"#{kind}-lab button[data-action='pull']"), kind
    assert pg.text_content(f"{SELECTOR} [data-send-status]") == ""  # "Sent to 7 instruments" no longer holds
    label = pg.get_attribute("#ledger-lab button[data-action='resend']", "aria-label")
    assert label == "Send again: The latency ledger"

    # one click sends the panel's current values again, to that instrument only
    pg.click("#serving-lab button[data-action='resend']")
    fresh = widget.view(form_values(pg, "deployment"))["answer"]
    values = wait_rendered(pg, "serving")
    assert values["batchExp"] == "6"
    assert origin(pg, "serving") == SENT
    assert not shown(pg, "#serving-lab button[data-action='resend']")
    serving = instruments.part("widgets", "serving").view(values)
    assert serving["readouts"]["speedup"] == f"{fresh['servingSent']['speedup']:.3f}"
    assert origin(pg, "ledger") == STALE

    # the panel put back as it was: what was sent is current again
    set_control(pg, "batchExp", "5")
    wait_rendered(pg, "deployment")
    pg.wait_for_function("(text) => document.querySelector('#ledger-lab [data-origin]').textContent === text", arg=SENT)
    assert origin(pg, "serving") != SENT  # it took batch 64 since: stale against batch 32
    assert pg.console_errors == []


def test_figures_fit_their_panel_at_320_px_before_live_and_controls_look_disabled(page):
    pg = page(java_script_enabled=False, viewport={"width": 320, "height": 800})
    pg.goto(pg.base_url)
    overflow = pg.evaluate("""() => [...document.querySelectorAll('.lab-widget svg.figure')]
        .filter((svg) => svg.getBoundingClientRect().width > 0 && !svg.closest('details:not([open])'))
        .map((svg) => {
            const panel = svg.closest('.figure-panel, .table-wrap') || svg.parentElement;
            return [svg.closest('.lab-widget').id, Math.round(svg.getBoundingClientRect().width),
                    panel.clientWidth];
        }).filter(([, width, room]) => width > room + 1)""")
    assert overflow == []
    assert pg.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth") == 0
    # the heatmap's selection outline still lies exactly over the scaled heatmap
    boxes = pg.evaluate("""() => ['heatmap', 'heatmapSelection'].map((name) => {
        const box = document.querySelector(`#ledger-lab [data-figure='${name}'] svg`).getBoundingClientRect();
        return [Math.round(box.left), Math.round(box.top), Math.round(box.width), Math.round(box.height)]; })""")
    assert boxes[0] == boxes[1] and boxes[0][2] <= 320
    # every kind of control that cannot move looks it
    for selector in ("#ledger-lab button[data-action='copy-link']", "#deployment-value",
                     "#traces-lab textarea", "#deployment-lab button[data-action='send-all']"):
        style = pg.evaluate("""(sel) => { const s = getComputedStyle(document.querySelector(sel));
            return [Number(s.opacity), s.cursor]; }""", selector)
        assert style[0] < 0.8 and style[1] == "not-allowed", (selector, style)


VLLM_LINE = ("INFO 12-03 10:00:00 [metrics.py:92] SpecDecoding metrics: Mean acceptance length: 2.79, Accepted: "
             "1000 tokens, Drafted: 2000 tokens, Per-position acceptance rate: 0.734, 0.459, 0.292, 0.169, 0.087, "
             "0.049, Avg Draft acceptance rate: 29.9%")


def test_a_log_line_pasted_into_the_panel_fills_it_and_notes_speak_the_readers_words(page):
    pg = page(viewport={"width": 390, "height": 844})
    pg.goto(pg.base_url)
    wait_live(pg)
    # the line under the lede leads to the panel; on a phone its answer is in view after the jump
    pg.click(".lede-jump a")
    pg.wait_for_function("() => location.hash === '#deployment-lab'")
    top = pg.evaluate("() => document.querySelector('#deployment-lab output[name=lead]').getBoundingClientRect().bottom")
    assert 0 < top <= 844
    pg.fill("#deployment-value", VLLM_LINE)  # as a paste: the field gets the whole line
    expected = widget.view({**form_values(pg, "deployment"), "value": VLLM_LINE})
    wait_summary(pg, "deployment", expected["summary"])
    assert form_values(pg, "deployment")["value"] == "2.79"
    assert form_values(pg, "deployment")["measuredK"] == "6" and form_values(pg, "deployment")["unit"] == "length"
    assert sitepage.notes(pg, "deployment") == expected["notes"]
    assert expected["notes"][0].startswith("Your acceptance figure: read from the vLLM log you pasted: mean "
                                           "acceptance length 2.79 at k = 6")
    # the lead says each speedup once: a best k that ties the reader's k to two decimals is said to tie
    lead = sitepage.lead(pg, "deployment")
    speedups = re.findall(r"\d+\.\d\dx", lead)
    assert lead == expected["lead"] and len(speedups) == len(set(speedups)), lead
    best = expected["answer"]["serving"]["bestLookahead"]  # the tie's wording: the doctest of lab.widgets.deployment._best
    assert f"the best lookahead is {best}" in lead and (len(speedups) == 1) == ("(the same to two decimals)" in lead)
    # text nobody can read: the panel keeps its default answer and says where such text is read
    pg.fill("#deployment-value", "garbage: not a log at all")
    note = "Your acceptance figure: this text is not one number"
    pg.wait_for_function("(n) => document.querySelector('[data-notes=deployment]').textContent.startsWith(n)", arg=note)
    assert "\u201cBring your own trace\u201d" in sitepage.notes(pg, "deployment")[0]
    assert pg.console_errors == []


def test_a_broken_link_gets_one_note_per_field_in_the_readers_words(page):
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url + "?depValue=-1&depUnit=length&srvBatchLog2=99&seed=inf#deployment-lab")
    wait_live(pg)
    pg.wait_for_function("() => document.querySelector('[data-notes=serving]').textContent !== ''")
    assert sitepage.notes(pg, "deployment") == [
        "Your acceptance figure: -1 is not a mean acceptance length at k = 4 (valid: 1 to k + 1 = 5); using 1"]
    assert sitepage.notes(pg, "serving")[0] == ("Batch B: 2^99 sequences is more than the largest, 1,024 sequences; "
                                                "using 1,024 sequences")
    pg.wait_for_function("() => document.querySelector('[data-notes=exact]').textContent !== ''")
    assert sitepage.notes(pg, "exact") == ["Seed: infinity is more than the largest, 9999; using 9999"]


def test_real_text_reads_as_plain_text_to_a_screen_reader(page):
    """The marked-up stream (struck-through rejected drafts, boxed corrections) is hidden from the
    accessibility tree; a plain-text rendering of the same text stands in for it."""
    from lab.widgets import realtext

    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    assert pg.get_attribute("#realtext-lab .rt-text", "aria-hidden") == "true"
    plain = " ".join(pg.text_content("#realtext-lab [data-figure='plainText']").split())
    view = realtext.view(None)
    assert view["figures"]["plainText"] and plain.startswith("The text after ")
    # the stream's panel reads as the plain text alone: no fragments, no "deletion" per rejected draft
    snapshot = pg.locator("#realtext-lab .rt-panel").aria_snapshot()
    assert "deletion" not in snapshot and "rt-rejected" not in snapshot


def test_acceptance_has_one_name_and_every_count_its_unit(module_page):
    """N4-17 (docs/GLOSSARY.md): every slider of per-token acceptance is labelled "Per-token acceptance α",
    with what differs in brackets; a tree's candidates are announced in candidates, k in tokens."""
    pg = module_page(java_script_enabled=False)
    pg.goto(pg.base_url)
    labels = pg.evaluate("""() => [...document.querySelectorAll('input[type=range]')]
        .filter((r) => /^(acceptance|top1)$/.test(r.name))
        .map((r) => document.querySelector(`label[for="${r.id}"]`).textContent.trim())""")
    assert len(labels) >= 4, labels
    assert all(re.fullmatch(r"Per-token acceptance \u03b1( \((mean|top-1)\))?", label) for label in labels), labels
    assert pg.get_attribute("#trees-drafts", "aria-valuetext") == "4 candidates"
    units = pg.evaluate("""() => [...document.querySelectorAll('input[type=range]')]
        .filter((r) => /lookahead|^gamma$|^srvK$/i.test(r.name)).map((r) => r.dataset.unit)""")
    assert units and set(units) == {"tokens"}, units


@pytest.mark.parametrize("js", [False, True])
@pytest.mark.parametrize("width, height", [(320, 568), (390, 844), (768, 1024), (1280, 900)])
def test_the_jump_to_the_panel_is_whole_in_the_first_screen(page, js, width, height):
    """N4-8: the line that leads to the panel is in the first screen, not cut at its bottom edge, on the
    smallest phone too (320 x 568), with and without JavaScript."""
    pg = page(viewport={"width": width, "height": height}, java_script_enabled=js)
    pg.goto(pg.base_url)
    if js:
        wait_live(pg)
    box = pg.evaluate("() => { const r = document.querySelector('.lede-jump a').getBoundingClientRect();"
                      " return [r.top, r.bottom, r.width]; }")
    assert 0 <= box[0] and box[1] <= height and box[2] > 0, box


def test_every_widgets_folds_and_buttons_have_names_of_their_own(module_page):
    """N4-16: a screen reader's list of controls tells the widgets apart: no two folds ("The numbers behind
    it", "More settings", "The heatmap as a table") and no two of the buttons every widget has (use your
    deployment, copy a link, new seed) share an accessible name."""
    pg = module_page()
    pg.goto(pg.base_url)
    wait_live(pg)  # the page names the generic buttons once live (site/app.js nameActions)
    names = pg.evaluate("""() => [...document.querySelectorAll('.lab-widget summary, .lab-widget button:not([hidden])')]
        .map((el) => (el.getAttribute('aria-label') || el.textContent).trim().replace(/\\s+/g, ' '))""")
    folds = [n for n in names if n.startswith(("The numbers behind it", "More settings"))]
    assert len(folds) >= 15 and len(set(folds)) == len(folds), folds
    assert "The numbers behind it: the latency ledger" in folds and "More settings for token trees" not in folds
    shared = ("Use your deployment", "Copy a link", "New seed", "The heatmap as a table")
    repeated = sorted({n for n in names if names.count(n) > 1 and n.startswith(shared)})
    assert repeated == [] and sum(n.startswith("Use your deployment: ") for n in names) >= 6, repeated
