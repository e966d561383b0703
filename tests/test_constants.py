"""Numbers two files must agree on are defined once, and a widget's URL and form state is read by
one function (lab.urlstate.read_controls) from its declared controls."""

import json
import re
from pathlib import Path

import pytest

from lab import figures, urlstate
from lab.widgets import exact, ledger, policies, realtext, traces, trees
from lab.traces.formats import FORMATS

ROOT = Path(__file__).resolve().parent.parent
READERS = {"ledger": ledger, "exact": exact, "policies": policies, "trees": trees, "traces": traces,
           "realtext": realtext}


def test_the_build_writes_the_figure_widths_app_js_uses(built_site):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    config = json.loads(re.search(r'<script type="application/json" id="lab-config">(.*?)</script>', html, re.S)[1])
    assert config["figureWidths"] == {"min": figures.MIN_WIDTH, "max": figures.MAX_WIDTH, "step": figures.WIDTH_STEP}
    app = (ROOT / "site" / "app.js").read_text(encoding="utf-8")
    assert "config.figureWidths" in app
    for number in (figures.MIN_WIDTH, figures.MAX_WIDTH):
        assert not re.search(rf"\b{number}\b", app), f"app.js types {number} instead of reading the config"


@pytest.mark.parametrize("name", READERS)
def test_a_widget_reads_its_state_through_read_controls_only(name):
    """No hand-written query or form parsing in the widget: it declares its controls."""
    source = (ROOT / "lab" / "widgets" / f"{name}.py").read_text(encoding="utf-8")
    assert "read_controls(" in source
    for private_reader in ("split_query(", "parse_query(", "clamp_params(", "raw_value(", "2048", "[:40]", "[:48]"):
        assert private_reader not in source, (name, private_reader)


@pytest.mark.parametrize("name", READERS)
def test_a_link_and_the_form_give_the_same_settings(name):
    """The same values, once as the address carries them (URL keys) and once as the form sends
    them (names), read to the same params."""
    module = READERS[name]
    controls = getattr(module, "CONTROLS", module.SLIDERS)
    # typed text is read from the form only (it never rides in a link), so only the linkable controls
    linkable = [control for control in controls if getattr(control, "linkable", True)]
    values = [(control, list(control.options)[-1] if isinstance(control, urlstate.Choice)
               else urlstate.to_js_string(control.maximum)) for control in linkable]
    query = "?" + "&".join(f"{c.key}={v}" for c, v in values)
    form = {c.name: v for c, v in values}
    assert urlstate.read_controls(query, controls) == urlstate.read_controls(form, controls)
    view = module.view(form)
    assert module.view(query)["params"] == view["params"] and view["notes"] == []


@pytest.mark.parametrize("name, raw, expected", [
    ("traces", "?trcPreset=../etc", "Public trace: '../etc' is not one of \u201cQwen3.6-27B"),
    # the choices: "detect" and every format in the registry (lab.traces.formats.FORMATS)
    ("traces", {"trcFormat": 3}, f"Format: 'int' is not one of the {len(FORMATS) + 1} choices; using detect it"),
    ("traces", "?trcLookahead=nine", "Lookahead k: 'nine' is not an integer from 1 to 64; reading it from the trace"),
    ("traces", {"trcLookahead": 65}, "Lookahead k: '65' is not an integer from 1 to 64; reading it from the trace"),
    ("traces", {"trcText": 5}, "Pasted trace: a value of type int is not text; using nothing"),
    ("traces", {"trcModel": "m" * 300}, "Model: 300 characters, more than the 200 read; using the first 200"),
    ("realtext", "?rtPreset=../x", "Prompt: '../x' is not one of \u201ca Python function\u201d"),
    ("realtext", {"rtProposer": "eagle"}, "Proposer: 'eagle' is not one of \u201cdraft model (sampled)\u201d"),
    ("realtext", {"rtPrompt": "x" * 3000}, "Your prompt: 3000 characters, more than the 2000 read; using the first 2000"),
    ("realtext", "?rtLookahead=abc", "Lookahead k: 'abc' is not a number; using 4 tokens (valid: a whole number, 1 to 8 tokens)"),
])
def test_a_bad_value_gives_a_note_naming_it_and_what_is_valid(name, raw, expected):
    """A bad value is a note (what was wrong, what is valid), never a traceback, in the two widgets
    whose readers are the newest to move to read_controls."""
    notes = READERS[name].view(raw)["notes"]
    assert any(note.startswith(expected) for note in notes), notes


def test_typed_text_never_rides_in_a_link():
    assert traces.view("?trcText=nonsense")["summary"] == traces.view(None)["summary"]
    assert realtext._settings("?rtPrompt=hello")[0]["prompt"] == ""
    assert realtext._settings({"rtPrompt": "hello"})[0]["prompt"] == "hello"
