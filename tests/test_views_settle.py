"""lab.views.settle, which the worker calls after each reply: it freezes the heap without a collection
after a widget's view, so a view must make no cyclic garbage (what only the collector would free);
after any other request it collects first."""

from __future__ import annotations

import gc
import json
import random
import weakref

import pytest

from bench.browser import slider_plan
from lab import instruments, views
from lab.jsformat import to_js_string


def _specs(widget) -> list[dict]:
    return [{"name": s.name, "min": s.minimum, "max": s.maximum, "step": s.step, "value": s.default}
            for s in widget.SLIDERS if s.control == "range"]


def _states(kind: str, steps: int) -> list[dict]:
    """A widget's form values over a slider plan of the browser bench's kind (each step from the one
    before); the traces widget, which has no slider, through its presets."""
    widget = instruments.part("widgets", kind)
    if kind == "traces":
        return [{widget.PRESET.name: name, "width": "640"} for name in widget.PRESET.options]
    state, states = {"width": "640"}, []
    for name, value in slider_plan(_specs(widget), steps, random.Random(f"settle:{kind}")):
        slider = next(s for s in widget.SLIDERS if s.name == name)
        state = dict(state, **{name: value})
        if getattr(slider, "typed_key", ""):  # a log slider's typed twin follows it, as app.js sets it
            state[slider.typed_name] = to_js_string(slider.base ** int(float(value)))
        states.append(state)
    return states


def _ask(kind: str, state: dict) -> dict:
    return json.loads(views.handle(json.dumps({"kind": kind, "input": state})))


@pytest.mark.parametrize("kind", instruments.widget_names())
def test_a_widgets_slider_steps_make_no_cyclic_garbage(kind):
    states = _states(kind, 24)
    assert states, f"{kind}: no states to render"
    _ask(kind, {"width": "640"})  # the first view imports the widget's modules (their garbage is once a page)
    gc.collect()
    gc.disable()
    try:
        for state in states:
            reply = _ask(kind, state)
            assert "error" not in reply, (kind, state, reply.get("error"))
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0, f"{kind}: {found} objects in reference cycles left by {len(states)} views"


class _Node:
    pass


def _loop() -> weakref.ref:
    """A cycle nothing holds, and a weak reference that says whether it still exists."""
    node = _Node()
    node.me = node
    return weakref.ref(node)


def test_settle_freezes_after_a_view_and_collects_first_after_any_other_request():
    try:
        gc.collect()
        after_view = _loop()
        assert "error" not in _ask("exact", {"width": "640"})
        assert views._last["view"] is True
        views.settle()
        assert gc.get_freeze_count() > 0
        gc.collect()
        assert after_view() is not None, "a cycle made before a view's settle is frozen, not collected"

        after_other = _loop()
        assert "error" in json.loads(views.handle(json.dumps({"kind": "nope"})))
        assert views._last["view"] is False
        views.settle()
        assert after_other() is None, "after a request that is no view, settle collects before it freezes"

        assert "error" in json.loads(views.handle("not json"))
        assert views._last["view"] is False
    finally:
        gc.unfreeze()
        gc.collect()
    assert after_view() is None, "unfrozen, the cycle is collected"
