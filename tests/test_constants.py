"""Numbers two files must agree on are defined once, and a widget's URL and form state is read by
one function (lab.urlstate.read_controls) from its declared controls."""

import json
import re
from pathlib import Path

import pytest

from lab import figures, urlstate
from lab.widgets import exact, ledger, policies, trees

ROOT = Path(__file__).resolve().parent.parent
READERS = {"ledger": ledger, "exact": exact, "policies": policies, "trees": trees}


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
    values = [(control, list(control.options)[-1] if isinstance(control, urlstate.Choice)
               else urlstate.to_js_string(control.maximum)) for control in controls]
    query = "?" + "&".join(f"{c.key}={v}" for c, v in values)
    form = {c.name: v for c, v in values}
    assert urlstate.read_controls(query, controls) == urlstate.read_controls(form, controls)
    view = module.view(form)
    assert module.view(query)["params"] == view["params"] and view["notes"] == []
