"""The traces widget in Chromium: the default preset with JavaScript off, a preset driving the curve
and the ledger (URL state both ways), keyboard use, a pasted exposition, a bad paste that keeps
the reader's text, and a 50 MB file read in slices with progress and a cancel button, all without
a request leaving the page. Live, the figure is drawn for its panel's width (the form's data-width),
and the send buttons hand the same curve token to the ledger, the serving model and the policies."""

from __future__ import annotations

import json

import pytest

import sitepage
from lab import traces
from lab.widgets import ledger as ledger_widget
from lab.widgets import traces as widget
from sitepage import (assert_shows, figure_width, mismatched_figures, notes, query, summary, wait_audit, wait_live,
                      wait_summary)

SELECTOR = "#traces-lab"
SEND_LABELS = {"serving": ("srvCurve", "Use this curve in the serving model"),
               "policies": ("polCurve", "Use this curve in the lookahead policies")}


def form_values(pg) -> dict[str, str]:
    """What app.js sends for the traces form (named inputs, selects and textareas)."""
    return pg.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        'form[data-lab="traces"] input[name], form[data-lab="traces"] select[name], form[data-lab="traces"] textarea[name]')]
        .filter((c) => c.type !== 'file').map((c) => [c.name, c.value]))""")


def readouts(pg) -> dict[str, str]:
    return sitepage.readouts(pg, "traces")


def assert_traces_shows(pg, raw):
    """The summary, every figure (drawn for the panel's width), the readouts and the notes are
    what lab.widgets.traces.view gives in CPython for `raw`."""
    return assert_shows(pg, "traces", raw)


def send_buttons(pg) -> list[dict]:
    """Every send button of the widget: target, parsed values and label."""
    return pg.evaluate("""() => [...document.querySelectorAll('#traces-lab button[data-action="send"]')].map((b) =>
        ({ target: b.dataset.target, values: JSON.parse(b.dataset.values), text: b.textContent.trim() }))""")


def assert_curve_hand_offs(pg, token):
    """The serving and policies buttons carry the very token the ledger's curve button carries."""
    buttons = send_buttons(pg)
    assert buttons[0]["target"] == "ledger" and buttons[0]["values"]["trcCurve"] == token
    for target, (name, text) in SEND_LABELS.items():
        [button] = [b for b in buttons if b["target"] == target]
        assert button == {"target": target, "values": {name: token}, "text": text}
        selector = f"{SELECTOR} button[data-action='send'][data-target='{target}']"
        assert json.loads(pg.get_attribute(selector, "data-values")) == {name: token}
        assert pg.is_enabled(selector)
    return traces.ledger_curve(token)


@pytest.fixture(scope="module")
def live(module_page):
    pg = module_page()
    pg.goto(pg.base_url)
    wait_live(pg)
    wait_audit(pg)
    return pg


def test_default_preset_without_javascript(page):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    view = widget.view(None)
    assert summary(pg, "traces") == view["summary"]
    assert figure_width(pg, "traces") == str(view["width"]) == "640"  # pre-rendered at the default width
    assert mismatched_figures(pg, "traces", view) == []
    assert readouts(pg) == view["readouts"]
    assert pg.locator(f"{SELECTOR} [data-figure='curve'] svg circle").count() == view["analysis"]["lookahead"]
    assert pg.input_value("#traces-preset") == traces.DEFAULT_PRESET
    assert pg.locator('progress[data-progress-for="traces-file"]').is_hidden()
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_preset_drives_the_curve_keyboard_and_url(live):
    live.locator("#traces-preset").select_option("llamacpp-24536-eagle3")
    view = assert_traces_shows(live, form_values(live))
    assert view["analysis"]["lookahead"] == 3
    assert live.text_content(f"{SELECTOR} [data-live]") == view["live"]  # one short sentence for screen readers
    assert len(view["live"].split()) <= 12 and live.locator(f"{SELECTOR} [aria-live=polite]").count() == 1
    assert live.get_attribute(f"{SELECTOR} output[name=summary]", "aria-live") == "off"
    assert query(live)["trcPreset"] == "llamacpp-24536-eagle3"
    live.locator("#traces-preset").focus()
    live.keyboard.press("ArrowUp")  # keyboard: the previous preset
    assert live.input_value("#traces-preset") == "vllm-26191-eagle3"
    assert_traces_shows(live, form_values(live))
    assert query(live)["trcPreset"] == "vllm-26191-eagle3"
    assert live.locator("#traces-preset").evaluate("(el) => document.activeElement === el")
    assert live.console_errors == []


def test_url_state_round_trips(page):
    pg = page()
    pg.goto(pg.base_url + "?trcPreset=llamacpp-24536-eagle3&trcFormat=auto&acceptance=60")
    wait_live(pg)
    assert pg.input_value("#traces-preset") == "llamacpp-24536-eagle3"
    assert_traces_shows(pg, "?trcPreset=llamacpp-24536-eagle3&trcFormat=auto&acceptance=60")
    assert query(pg)["trcPreset"] == "llamacpp-24536-eagle3" and query(pg)["acceptance"] == "60"
    # the ledger's measured-curve mode comes back from the address too
    curve = "?trcCurve=club3090-mtp&lookahead=6"
    pg.goto(pg.base_url + curve)
    wait_live(pg)
    wait_summary(pg, "ledger", ledger_widget.view(curve)["summary"])
    assert pg.input_value('form[data-lab="ledger"] input[name="trcCurve"]') == "club3090-mtp"
    assert query(pg)["trcCurve"] == "club3090-mtp"
    bad = "?trcPreset=../etc&trcLookahead=nine"
    pg.goto(pg.base_url + bad)
    wait_live(pg)
    view = assert_traces_shows(pg, bad)
    assert any(note.startswith("Public trace: '../etc' is not one of") for note in view["notes"])
    assert pg.console_errors == [] and pg.foreign_requests() == []


def test_send_curve_to_the_ledger(live):
    live.locator("#traces-preset").select_option("club3090-mtp")
    assert_traces_shows(live, form_values(live))
    token = "club3090-mtp~mtp"   # the preset and its drafter family (its method, MTP)
    curve, label, linkable = assert_curve_hand_offs(live, token)
    assert linkable and curve == traces.measured_curve(traces.analyse(traces.preset_trace("club3090-mtp")))
    live.locator(f"{SELECTOR} button[data-action='send'][data-target='ledger']").first.click()
    expected = ledger_widget.view({**{s: live.input_value(f"#ledger-{s}") for s in
                                     ("acceptance", "draftCost", "overheadMs", "targetMs", "verifyTax")},
                                  "lookahead": "6", "trcCurve": token})
    wait_summary(live, "ledger", expected["summary"])
    assert summary(live, "ledger").startswith("In measured curve mode (")
    assert query(live)["trcCurve"] == token and query(live)["lookahead"] == "6"
    assert live.text_content(f"{SELECTOR} [data-send-status]").startswith("Sent:")
    # the one-number hand-off leaves curve mode and moves the acceptance slider to alphaIid
    live.locator(f"{SELECTOR} button[data-action='send'][data-target='ledger']").nth(1).click()
    live.wait_for_function("() => !document.querySelector('form[data-lab=\"ledger\"] output[name=\"summary\"]')"
                           ".value.startsWith('In measured curve mode')")
    assert live.input_value("#ledger-acceptance") == "66" and "trcCurve" not in query(live)
    assert live.console_errors == []


def test_pasted_exposition_and_bad_paste(live):
    text = traces.render_exposition(200, 600, 260, (150, 80, 30), [(("engine", "0"),), (("engine", "1"),)])
    live.locator("#traces-text").fill(text)
    view = assert_traces_shows(live, form_values(live))
    assert view["summary"].startswith("Your pasted text") and view["readouts"]["drafts"] == "200"
    # pasted data cannot be linked: the send buttons carry a custom curve, the ledger says so
    token = send_buttons(live)[0]["values"]["trcCurve"]
    assert token.startswith("custom:")
    curve, _, linkable = assert_curve_hand_offs(live, token)
    assert not linkable and len(curve) == view["analysis"]["lookahead"]
    live.locator(f"{SELECTOR} button[data-action='send'][data-target='ledger']").first.click()
    live.wait_for_function("() => [...document.querySelectorAll('[data-notes=\"ledger\"] p')].some((p) => "
                           "p.textContent.includes('cannot be put in a link'))")
    assert "trcCurve" not in query(live)
    live.locator("#traces-text").fill("this is not a trace")
    view = assert_traces_shows(live, form_values(live))
    assert notes(live, "traces")[0].startswith("Your text could not be read: unrecognised format")
    assert live.input_value("#traces-text") == "this is not a trace"  # the reader's text stays
    live.locator("#traces-text").fill("")
    assert_traces_shows(live, form_values(live))
    assert live.console_errors == []


def test_several_models_offer_a_choice_and_a_refusal_shows_no_preset_numbers(live):
    text = traces.sample_text("prometheus_two_models.prom")
    live.locator("#traces-lab details.more-settings > summary").click()  # the model box is folded with the format
    live.locator("#traces-text").fill(text)
    view = assert_traces_shows(live, form_values(live))
    assert "choose one in the model box" in view["summary"] and set(view["readouts"].values()) == {"n/a"}
    assert live.locator("#traces-models option").count() == 2
    live.locator("#traces-model").fill("b")
    view = assert_traces_shows(live, form_values(live))
    assert readouts(live)["drafts"] == "80" and readouts(live)["format"] == "prometheus (b)"
    live.locator("#traces-text").fill("")
    live.locator("#traces-model").fill("")
    assert_traces_shows(live, form_values(live))
    assert live.console_errors == []


def _big_log(megabytes: int) -> bytes:
    noise = ("(APIServer pid=1) INFO 05-08 16:25:19 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 "
             "tokens/s, Avg generation throughput: 72.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs\n") * 40
    block = (noise + traces.PRESETS["club3090-mtp"]["text"]).encode()
    return block * (megabytes * 1_000_000 // len(block))


def test_fifty_megabyte_file_progress_cancel_and_parse(page, tmp_path):
    pg = page()
    pg.goto(pg.base_url + "#traces-lab")
    wait_live(pg)
    data = _big_log(50)
    assert len(data) > 49_000_000
    progress = pg.locator('progress[data-progress-for="traces-file"]')
    cancel = pg.locator('button[data-action="cancel"][data-for="traces-file"]')
    before = summary(pg, "traces")
    # Chosen from disk, as a reader would: the browser reads the path itself. (A 50 MB in-memory
    # buffer goes through the driver's pipe as base64 and took over 30 s on a loaded machine.)
    big = tmp_path / "big.log"
    big.write_bytes(data)
    pg.set_input_files("#traces-file", files=[big])
    # keep the chosen file: the second run below reuses it instead of pushing 50 MB through again
    assert pg.evaluate("() => (window.__big = document.querySelector('#traces-file').files[0]).size") == len(data)
    pg.wait_for_function("() => document.querySelector('progress[data-progress-for=\"traces-file\"]').value > 0",
                         timeout=60_000)
    assert progress.is_visible() and cancel.is_visible()
    cancel.click()
    assert progress.is_hidden() and cancel.is_hidden()
    assert notes(pg, "traces") == ["Reading cancelled: nothing from the file was kept."]
    pg.wait_for_timeout(1500)
    assert summary(pg, "traces") == before  # the cancelled file never rendered

    assert pg.input_value("#traces-file") == ""  # cancelling cleared the input, so the same file can be chosen again
    pg.evaluate("""() => {
        const transfer = new DataTransfer();
        transfer.items.add(window.__big);
        const input = document.querySelector('#traces-file');
        input.files = transfer.files;
        input.dispatchEvent(new Event('change', { bubbles: true }));
    }""")
    pg.wait_for_function("() => document.querySelector('form[data-lab=\"traces\"] output[name=\"summary\"]')"
                         ".value.startsWith('Your file big.log')", timeout=180_000)
    per_block = traces.parse(traces.PRESETS["club3090-mtp"]["text"])
    count = data.count(b"SpecDecoding metrics:") // 2
    assert readouts(pg)["drafts"] == str(per_block.drafts * count)
    assert readouts(pg)["acceptedTokens"] == str(per_block.accepted * count)
    assert progress.is_hidden()
    assert pg.console_errors == [] and pg.foreign_requests() == []
    # the file went to the page's own worker only: no request carried it anywhere
    assert not any("big.log" in u for u in pg.requests)
