"""The deployment panel in Chromium: pre-rendered with JavaScript off, live answers equal to CPython's
lab.widgets.deployment.view for the same controls, and "Use in every instrument" (the page's generic
data-action="send-all") setting every instrument, after which the ledger and the serving model name the
same best lookahead, or the panel says why they do not; each instrument's own "Use your deployment"
(data-action="pull"), and the line that says where its settings came from."""

import pytest

import sitepage
from lab import deployment, serving
from lab.widgets import deployment as widget, ledger as ledger_widget, serving as serving_widget
from sitepage import notes, summary, wait_live, wait_summary
from test_deployment import disagreeing

KIND, SELECTOR = "deployment", "#deployment-lab"


def form_values(pg, kind) -> dict[str, str]:
    """What app.js sends for a form: its named inputs and selects."""
    return pg.evaluate("""(k) => Object.fromEntries([...document.querySelectorAll(
        `form[data-lab='${k}'] input[name], form[data-lab='${k}'] select[name]`)]
        .filter((c) => c.type !== 'file').map((c) => [c.name, c.value]))""", kind)


def set_control(pg, name, value, kind=KIND):
    """Set one control of a widget (the panel unless ``kind`` says) as a reader would, and fire the
    events app.js listens to."""
    pg.evaluate("""([kind, name, value]) => {
        const control = document.querySelector(`form[data-lab='${kind}'] [name='${name}']`);
        control.value = value;
        control.dispatchEvent(new Event('input', { bubbles: true }));
        control.dispatchEvent(new Event('change', { bubbles: true }));
    }""", [kind, name, value])


OWN = "Its own settings, not your deployment\u2019s."
SENT = "Settings sent from \u201cYour deployment\u201d as it is now."
CHANGED = "Settings sent from \u201cYour deployment\u201d, then changed here."
LINKED = "Settings from the link you opened."
LINKED_CHANGED = "Settings from the link you opened, then changed here."


# Every instrument but the trace reader (whose input is the reader's own pasted text, which the panel
# is fed from) says where its settings came from.
ORIGIN_KINDS = [name for name, _, _ in widget.INSTRUMENTS if name != "traces"]


def origin(pg, kind) -> str:
    """What a widget says set its settings (its [data-origin] line, spaces collapsed)."""
    return " ".join(pg.locator(f"#{kind}-lab [data-origin]").text_content().split())


def test_the_panel_without_javascript(page):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    view = widget.view(None)
    assert summary(pg, KIND) == view["summary"]
    assert sitepage.mismatched_figures(pg, KIND, view) == []
    # it sits before Part one and the contents name it under the opening
    assert pg.evaluate("() => document.getElementById('deployment-lab').closest('section').id") == "opening"
    assert pg.locator("#contents a[href='#deployment-lab']").text_content() == "Your deployment"
    assert pg.locator(f"{SELECTOR} button[data-action='send-all']").is_disabled()
    # every instrument says its settings are its own, with a button to take the panel's (off here)
    pulls = pg.locator("button[data-action='pull']")
    assert pulls.count() == len(ORIGIN_KINDS)
    assert all(pulls.nth(i).is_disabled() for i in range(pulls.count()))
    assert {origin(pg, name) for name in ORIGIN_KINDS} == {OWN}
    assert pg.locator(f"{SELECTOR} [data-origin]").count() == 0  # the panel sets nothing of its own
    assert pg.locator("#traces-lab [data-origin]").count() == 0


@pytest.mark.parametrize("case", ["agree", "round", "line"])
def test_use_in_every_instrument_gives_one_answer(page, case):
    """``agree``: the reader's question at a batch and context of their own, where the two models agree;
    ``round`` and ``line``: settings (found by search) where the ledger names another best lookahead,
    because of its whole-unit sliders or of its straight verify line, and the panel says which."""
    changes = ({"unit": "length", "value": "2.8", "measuredK": "4", "batchExp": "3", "contextExp": "12"}
               if case == "agree" else {"measuredK": "4", **disagreeing(case)})
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url + "#deployment-lab")
    wait_live(pg)
    for name, value in changes.items():
        set_control(pg, name, value)
    values = form_values(pg, KIND)
    view = widget.view(values)
    wait_summary(pg, KIND, view["summary"])
    assert notes(pg, KIND) == []
    answer = view["answer"]
    pg.click(f"{SELECTOR} button[data-action='send-all']")
    pg.wait_for_function("(sel) => document.querySelector(`${sel} [data-send-status]`).textContent.includes('Sent to')",
                         arg=SELECTOR)
    status = pg.locator(f"{SELECTOR} [data-send-status]")
    assert status.text_content().startswith(f"Sent to {len(widget.INSTRUMENTS)} instruments. ")
    assert status.locator("a").get_attribute("href") == "#ledger-lab"  # the first instrument it set
    # the ledger and the serving model show what CPython gives for exactly what they were sent
    ledger_view = ledger_widget.view(form_values(pg, "ledger"))
    serving_view = serving_widget.view(form_values(pg, "serving"))
    wait_summary(pg, "ledger", ledger_view["summary"])
    wait_summary(pg, "serving", serving_view["summary"])
    assert {k: str(v) for k, v in answer["values"]["ledger"].items() if k != "trcCurve"} == {
        k: form_values(pg, "ledger")[k] for k in answer["values"]["ledger"] if k != "trcCurve"}
    assert serving_view["readouts"]["speedup"] == f"{answer['servingSent']['speedup']:.3f}"
    serving_best = serving.best_lookahead(serving_widget._settings(serving_view["params"]), deployment.MAX_LOOKAHEAD)[0]
    assert serving_best == answer["servingSent"]["bestLookahead"]
    assert ledger_view["bestLookahead"] == answer["ledger"]["bestLookahead"]
    panel = summary(pg, KIND)
    assert (case == "agree") == (ledger_view["bestLookahead"] == serving_best), case
    if ledger_view["bestLookahead"] == serving_best:
        assert f"name the same best k: best k = {serving_best}" in panel
    else:  # the page says why the two differ, with both best lookaheads
        assert f"The ledger's simpler model says best k = {ledger_view['bestLookahead']}" in panel
        assert {"round": "only because its sliders hold whole units",
                "line": "because it prices each extra verified token at one tax"}[case] in panel, panel
    # the policies got the ledger's costs; the traces widget got the reader's figure as text
    policies_values = form_values(pg, "policies")
    for name in ("verifyTax", "overheadMs", "targetMs", "draftCost"):
        assert policies_values[name] == str(answer["values"]["ledger"][name]), name
    assert pg.input_value("#traces-text") == widget.SINGLE_FIGURE_TEXT[changes["unit"]].format(value=changes["value"])
    assert pg.input_value("#traces-lookahead") == changes["measuredK"]
    # and each instrument says where its settings came from
    assert {name: origin(pg, name) for name in ORIGIN_KINDS} == {name: SENT for name in ORIGIN_KINDS}
    assert pg.console_errors == []


def test_an_instrument_takes_the_deployment_itself_and_says_so(page):
    """"Use your deployment" in one instrument applies what the panel's "Use in every instrument" holds
    for it, and no other; the line above the answer says so, and says so again once the reader moves
    one of its controls."""
    pg = page(viewport={"width": 390, "height": 800})
    pg.goto(pg.base_url + "#ledger-lab")
    wait_live(pg)
    assert origin(pg, "ledger") == OWN
    pg.click("#ledger-lab button[data-action='pull']")
    sent = widget.view(None)["answer"]["values"]["ledger"]
    ledger_view = ledger_widget.view(form_values(pg, "ledger"))
    wait_summary(pg, "ledger", ledger_view["summary"])
    assert {k: str(v) for k, v in sent.items() if k != "trcCurve"} == {
        k: form_values(pg, "ledger")[k] for k in sent if k != "trcCurve"}
    assert origin(pg, "ledger") == SENT
    assert origin(pg, "serving") == OWN  # only the instrument asked
    set_control(pg, "acceptance", "60", kind="ledger")
    wait_summary(pg, "ledger", ledger_widget.view(form_values(pg, "ledger"))["summary"])
    assert origin(pg, "ledger") == CHANGED
    assert pg.console_errors == []


def test_one_send_button_sets_its_instrument_and_links_to_it(page):
    pg = page(viewport={"width": 390, "height": 800})
    pg.goto(pg.base_url + "#deployment-lab")
    wait_live(pg)
    pg.click(f"{SELECTOR} details.dep-details summary >> nth=0")
    button = f"{SELECTOR} button[data-action='send'][data-target='serving']"
    pg.click(button)
    status = pg.locator(f"{SELECTOR} [data-send-status]")
    assert status.text_content().startswith("Sent: Send to the serving model.")
    assert status.locator("a").get_attribute("href") == "#serving-lab"
    answer = widget.view(None)["answer"]
    serving_view = serving_widget.view(form_values(pg, "serving"))
    wait_summary(pg, "serving", serving_view["summary"])
    assert serving_view["readouts"]["speedup"] == f"{answer['servingSent']['speedup']:.3f}"
    # the panel fits a phone: nothing scrolls sideways
    assert pg.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth") == 0
    assert pg.console_errors == []


def test_a_trace_hands_its_alpha_to_the_panel(page):
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url + "#traces-lab")
    wait_live(pg)
    button = "#traces-lab button[data-action='send'][data-target='deployment']"
    values = pg.evaluate("(sel) => JSON.parse(document.querySelector(sel).dataset.values)", button)
    pg.click(button)
    wait_summary(pg, KIND, widget.view(values)["summary"])
    assert form_values(pg, KIND)["unit"] == "alpha" and form_values(pg, KIND)["value"] == values["value"]
    assert pg.locator("#traces-lab [data-send-status] a").get_attribute("href") == "#deployment-lab"
    assert pg.console_errors == []


def test_settings_from_a_link_say_so(page):
    """An instrument whose settings the opened link changed says they are the link's; the others
    still say they are their own."""
    from lab import instruments

    link = "acceptance=60"
    linked = {name for name in ORIGIN_KINDS
              if set(instruments.part("widgets", name).view(link)["query"].split("&"))
              - set(instruments.part("widgets", name).view(None)["query"].split("&"))}
    assert linked == {"ledger"}
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url + f"?{link}#ledger-lab")
    wait_live(pg)
    wait_summary(pg, "ledger", ledger_widget.view(link)["summary"])
    assert {name: origin(pg, name) for name in ORIGIN_KINDS} == {
        name: LINKED if name in linked else OWN for name in ORIGIN_KINDS}
    set_control(pg, "lookahead", "3", kind="ledger")
    wait_summary(pg, "ledger", ledger_widget.view(form_values(pg, "ledger"))["summary"])
    assert origin(pg, "ledger") == LINKED_CHANGED
    assert pg.console_errors == []


def test_the_engine_configuration_is_copied_in_one_click_and_the_link_keeps_its_inputs(page):
    """The reader picks an engine, a price and a TPOT target: the configuration, schedule, production
    terms and diagnosis are CPython's for those controls, the Copy button (the page's generic
    data-action="copy") puts the configuration's text on the clipboard, and the address carries the
    three inputs (depConfig, depGpuHour, depTpotMs)."""
    pg = page(viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"])
    pg.goto(pg.base_url + "#deployment-lab")
    wait_live(pg)
    # the figures sit in a folded group: app.js fills them when it opens
    pg.click(f"{SELECTOR} details.dep-details summary:has-text('Your engine')")
    pg.click(f"{SELECTOR} details.dep-details summary:has-text('In production')")
    # TensorRT-LLM's PyTorch backend runs no EAGLE-1 head (the default's): the reader picks the EAGLE-3 head
    set_control(pg, "draft", "eagle3-head")
    set_control(pg, "configEngine", "trtllm")
    set_control(pg, "gpuHour", "4")
    set_control(pg, "tpotTarget", "30")
    view = widget.view(form_values(pg, KIND))
    assert "draft_len_schedule:" in view["engineAnswer"]["config"]["text"]
    pg.wait_for_function("(t) => (document.getElementById('deployment-config-text') || {}).textContent === t",
                         arg=view["engineAnswer"]["config"]["text"], timeout=30_000)
    # and the last input's render: the production caption names the price and the target
    pg.wait_for_function("() => /At \\$4 per GPU-hour.*TPOT target 30 ms/.test(document.querySelector("
                         "'#deployment-lab [data-figure=production] caption')?.textContent || '')", timeout=30_000)
    assert sitepage.mismatched_figures(pg, KIND, view) == []
    pg.click(f"{SELECTOR} button[data-action='copy']")
    pg.wait_for_function("() => document.querySelector('#deployment-lab [data-figure=engineConfig] "
                         "[data-copy-status]').textContent === 'Copied.'")
    assert pg.evaluate("() => navigator.clipboard.readText()") == view["engineAnswer"]["config"]["text"]
    pg.wait_for_function("() => !document.documentElement.hasAttribute('data-url-pending')")
    query = pg.evaluate("() => location.search")
    assert "depConfig=trtllm" in query and "depGpuHour=4" in query and "depTpotMs=30" in query
    assert "depDraft=eagle3-head" in query
    assert pg.console_errors == []
