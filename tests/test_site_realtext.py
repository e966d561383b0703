"""The real-text widget in Chromium: the pre-rendered run with JavaScript off; the models fetched only
once the reader comes near the widget (not on the first load); a live run equal to CPython's view; the
run's trace sent to the trace reader; nothing requested outside the page's origin."""

from __future__ import annotations

from lab.widgets import realtext as widget
from sitepage import (assert_shows, mismatched_figures, open_more, summary, wait_audit, wait_instrument_audit,
                      wait_live)

SELECTOR = "#realtext-lab"
MODEL = "realtext-model."


def form_values(pg) -> dict[str, str]:
    return pg.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        'form[data-lab="realtext"] input[name], form[data-lab="realtext"] select[name], form[data-lab="realtext"] textarea[name]')]
        .map((c) => [c.name, c.value]))""")


def _model_requests(pg) -> list[str]:
    return [url for url in pg.requests if MODEL in url]


def test_pre_rendered_run_without_javascript(page):
    pg = page(java_script_enabled=False)
    pg.goto(pg.base_url)
    view = widget.view(None)
    assert summary(pg, "realtext") == view["summary"]
    assert mismatched_figures(pg, "realtext", view) == []
    assert pg.locator(f"{SELECTOR} .rt-call").count() == int(view["readouts"]["calls"])
    # each role has its own shape, not only its colour: underline, strike-through (a <del>), boxes
    assert pg.locator(f"{SELECTOR} [data-figure='text'] del.rt-rejected").count() >= 1
    styles = pg.evaluate("""() => Object.fromEntries(['rt-accepted', 'rt-rejected', 'rt-correction', 'rt-bonus'].map((c) => {
        const el = document.querySelector(`#realtext-lab .legend .${c}`); const s = getComputedStyle(el);
        return [c, [s.textDecorationLine, s.outlineStyle].join(' ')]; }))""")
    assert styles == {"rt-accepted": "underline none", "rt-rejected": "line-through none",
                      "rt-correction": "none solid", "rt-bonus": "none dashed"}
    assert _model_requests(pg) == [] and pg.foreign_requests() == [] and pg.console_errors == []


def test_models_load_only_near_the_widget_then_decode_live(page):
    pg = page(instrument_suite=True)  # the suite's checks must not fetch the models either
    pg.goto(pg.base_url)
    wait_live(pg)
    wait_audit(pg)
    wait_instrument_audit(pg)
    assert _model_requests(pg) == [], "the models were fetched before the reader came near the widget"
    pg.locator(SELECTOR).scroll_into_view_if_needed()
    pg.locator("#realtext-proposer").select_option("ngram")
    pg.locator("#realtext-preset").select_option("template")
    open_more(pg, "#realtext-rtTemperature")  # the temperature is folded under "More settings"
    pg.locator("#realtext-rtTemperature").fill("0")
    view = assert_shows(pg, "realtext", form_values(pg))
    assert len(_model_requests(pg)) == 1
    assert "At T = 0 the text is exactly the target's greedy text." in view["summary"]
    assert pg.locator(f"{SELECTOR} .rt-call").count() == int(view["readouts"]["calls"])
    # the run's trace goes to the trace reader, which reads it as cycles at the same lookahead
    pg.locator(f"{SELECTOR} button[data-action='send'][data-target='traces']").click()
    pg.wait_for_function("() => document.querySelector('form[data-lab=\"traces\"] output[name=\"summary\"]')"
                         ".value.startsWith('Your pasted text')")
    head, *cycles = pg.input_value("#traces-text").splitlines()   # a comment naming the drafter, then the cycles
    assert cycles == [str(c) for c in view["cycles"]] and head.endswith("SpeculativeConfig(method='ngram')")
    assert pg.input_value("#traces-lookahead") == str(view["params"]["rtLookahead"])
    # a typed prompt overrides the preset
    pg.locator("#realtext-prompt").fill("import os\nimport")
    view = assert_shows(pg, "realtext", form_values(pg))
    assert view["summary"].startswith("Your prompt")
    assert pg.foreign_requests() == [] and pg.console_errors == []


def test_step_generate_and_stop_one_verifier_call_at_a_time(page):
    """Play runs the run from its first call, one request per call (the step rides in the
    form: the worker keeps nothing); Stop freezes it where it is; Step adds one call; at the end of
    the run Play is offered again and Step wraps to the first call. Every state shown is what
    CPython's view gives for the form's values."""
    pg = page()
    pg.goto(pg.base_url)
    wait_live(pg)
    pg.locator(SELECTOR).scroll_into_view_if_needed()
    step = pg.locator("#realtext-step")
    play = pg.locator(f"{SELECTOR} button[data-action='play']")
    stop = pg.locator(f"{SELECTOR} button[data-action='stop']")
    one = pg.locator(f"{SELECTOR} button[data-action='step']").first
    whole = widget.view(None)
    calls = int(whole["readouts"]["calls"])
    assert stop.is_disabled() and not play.is_disabled()
    play.click()
    pg.wait_for_function("() => Number(document.getElementById('realtext-step').value) >= 3", timeout=60000)
    stop.click()
    assert stop.is_disabled() and not play.is_disabled()
    stopped = step.input_value()
    view = assert_shows(pg, "realtext", form_values(pg))
    assert "so far" in view["summary"] and int(stopped) < calls
    pg.wait_for_timeout(1000)
    assert step.input_value() == stopped, "the run went on after Stop"
    one.click()
    assert step.input_value() == str(int(stopped) + 1)
    view = assert_shows(pg, "realtext", form_values(pg))
    assert pg.locator(f"{SELECTOR} .rt-call").count() == int(stopped) + 1
    assert pg.locator(f"{SELECTOR} .rt-newest").count() == 1
    # play to the end: the view sends the run's length as the step's max, and play stops there
    play.click()
    pg.wait_for_function(f"() => document.getElementById('realtext-step').value === '{calls}' && "
                         "document.querySelector('#realtext-lab button[data-action=\"stop\"]').disabled", timeout=90000)
    view = assert_shows(pg, "realtext", form_values(pg))
    assert view["summary"] == whole["summary"] and step.get_attribute("max") == str(calls)
    one.click()  # at the end, Step starts over at the first call
    assert step.input_value() == "1"
    assert_shows(pg, "realtext", form_values(pg))
    assert pg.console_errors == [] and pg.foreign_requests() == []
