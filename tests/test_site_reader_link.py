"""N4-20: after "Use in every instrument", the link restores the trace reader too. The text a send puts in the
trace reader cannot travel in a link, but the panel's figure does: lab.urlstate.panel_figure_from_link rebuilds
it from the dep* keys, and the page shows the trace reader with it (Chromium)."""

import html
import json
import re

from lab import deployment
from lab.urlstate import (PANEL_DEFAULT_MEASURED_K, PANEL_DEFAULT_UNIT, PANEL_FIGURE_TEXT, PANEL_MEASURED_K_KEY,
                          PANEL_UNIT_KEY, PANEL_VALUE_KEY, panel_figure_from_link)
from lab.widgets import deployment as panel, traces
from sitepage import wait_live
from test_site_deployment import set_control
from test_site_reader import wait_rendered


def sent_to_traces(view) -> dict:
    """What "Use in every instrument" sends the trace reader: its entry in the button's data-sends."""
    markup = view["figures"]["sendAll"]
    sends = json.loads(html.unescape(re.search(r'data-sends="([^"]*)"', markup).group(1)))
    return next(send["values"] for send in sends if send["target"] == "traces")


def test_the_link_keys_and_defaults_are_the_panels():
    keys = {control.name: control.key for control in panel.CONTROLS}
    assert (keys["unit"], keys["value"], keys["measuredK"]) == (PANEL_UNIT_KEY, PANEL_VALUE_KEY, PANEL_MEASURED_K_KEY)
    assert (panel.DEFAULT_UNIT, panel.DEFAULT_MEASURED_K) == (PANEL_DEFAULT_UNIT, PANEL_DEFAULT_MEASURED_K)
    assert set(PANEL_FIGURE_TEXT) == set(deployment.UNITS)


def test_what_a_send_gives_the_trace_reader_is_what_its_link_gives():
    """The panel's send and the link made from it put the same answer in the trace reader, for every unit."""
    for unit, value, k in (("length", "2.6", "5"), ("rate", "44", "4"), ("alpha", "71", "3")):
        sent = sent_to_traces(panel.view({"unit": unit, "value": value, "measuredK": k}))
        by_form = traces.view(sent)
        link = f"?{PANEL_UNIT_KEY}={unit}&{PANEL_VALUE_KEY}={value}&{PANEL_MEASURED_K_KEY}={k}&trcLookahead={k}"
        assert panel_figure_from_link(link) == sent["trcText"]
        by_link = traces.view(link)
        assert by_link["lead"] == by_form["lead"] and by_link["readouts"] == by_form["readouts"], unit
        assert by_link["shown"]["trcText"] == sent["trcText"]       # the box shows the figure it reads
        assert not any("cannot be put in a link" in note for note in by_link["notes"])


def test_a_link_without_the_panels_figure_keeps_the_preset():
    preset = traces.view(None)
    for link in ("?trcLookahead=4", "?depValue=2.6&trcLookahead=6", "?depValue=2.6&depMeasuredK=5&trcLookahead=4"):
        assert traces.view(link)["lead"] == preset["lead"], link   # the preset's trace, not a figure
    assert "trcText" not in traces.view("?trcLookahead=4")["shown"]
    assert "trcText" not in traces.view("?depValue=2.6&trcLookahead=6")["shown"]   # not the panel's k: not a send


def test_the_link_after_use_in_every_instrument_restores_the_trace_reader(page):
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url + "#deployment-lab")
    wait_live(pg)
    set_control(pg, "value", "2.6")
    set_control(pg, "measuredK", "5")
    wait_rendered(pg, "deployment")   # the panel shows what CPython's view gives for these values
    assert "mean acceptance length 2.6" in pg.get_attribute("#deployment-lab button[data-action=send-all]", "data-sends")
    pg.click("#deployment-lab button[data-action='send-all']")
    expected = traces.view({"trcText": "mean acceptance length 2.6", "trcLookahead": "5", "trcFormat": "auto"})
    pg.wait_for_function("(lead) => document.querySelector('#traces-lab output[name=lead]').value === lead",
                         arg=expected["lead"])
    pg.wait_for_function("() => !document.documentElement.hasAttribute('data-url-pending')")
    link = pg.evaluate("() => location.href")
    assert "depValue=2.6" in link and "trcLookahead=5" in link, link

    fresh = page(viewport={"width": 1280, "height": 900})
    fresh.goto(link)
    wait_live(fresh)
    fresh.wait_for_function("(lead) => document.querySelector('#traces-lab output[name=lead]').value === lead",
                            arg=expected["lead"])
    assert fresh.input_value("#traces-text") == "mean acceptance length 2.6"
    assert fresh.console_errors == []
