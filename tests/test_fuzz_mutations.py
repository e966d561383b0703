"""The hostile-input checks of the instruments suite (NAME-hostile-inputs-answered, and the deployment
panel's bad-values check) catch each guard against hostile input taken away: other scripts' digits or
underscores read as numbers, a rejected value echoed whole, an empty value taken as the default without
a word, the real text's smallest temperature, the policies' refusal of a curve ending at 1, a choice
that is none taken silently, and a view that raises or answers NaN."""

from __future__ import annotations

import math

import pytest

from lab import realtext, urlstate
from lab.checks import _run_check
from lab.checks import deployment as deployment_family
from lab.checks import policies as policies_family
from lab.checks import realtext as realtext_family
from lab.checks import trees as trees_family
from lab.widgets import deployment as deployment_widget
from lab.widgets import exact as exact_widget
from lab.widgets import ledger as ledger_widget
from lab.widgets import policies as policies_widget
from lab.widgets import realtext as realtext_widget
from lab.widgets import trees as trees_widget
from mutation import clear_caches, failure_of

CHECKS = {
    "policies-hostile-inputs-answered": policies_family.CHECKS,
    "trees-hostile-inputs-answered": trees_family.CHECKS,
    "realtext-hostile-inputs-answered": realtext_family.CHECKS,
    "seed-hostile-inputs-answered": deployment_family.CHECKS,
    "deployment-view-names-bad-values": deployment_family.CHECKS,
}
WIDGETS = (ledger_widget, exact_widget, policies_widget, trees_widget, deployment_widget, realtext_widget)


@pytest.fixture(autouse=True)
def _fresh_caches():
    clear_caches(*WIDGETS)
    yield
    clear_caches(*WIDGETS)


def test_the_hostile_input_checks_pass_unmutated():
    for name, checks in CHECKS.items():
        out = _run_check(dict(checks)[name])
        assert out.failure is None and out.visited > 20, (name, out.failure)


def _as_number_without(guard: str):
    """lab.urlstate._as_number with one of its guards taken away."""
    def as_number(raw):
        if isinstance(raw, bool):
            return None
        if isinstance(raw, (int, float)):
            return float(raw)
        if isinstance(raw, str) and (guard == "ascii" or raw.isascii()) and (guard == "underscore" or "_" not in raw):
            try:
                return float(raw.strip())
            except ValueError:
                return None
        return None
    return as_number


@pytest.mark.parametrize("name", list(CHECKS))
def test_other_scripts_digits_read_as_numbers_fail(monkeypatch, name):
    monkeypatch.setattr(urlstate, "_as_number", _as_number_without("ascii"))
    failure_of(CHECKS[name], name, "no note names")


@pytest.mark.parametrize("name", ["seed-hostile-inputs-answered", "realtext-hostile-inputs-answered"])  # a seed takes 1000
def test_underscores_read_as_numbers_fail(monkeypatch, name):
    monkeypatch.setattr(urlstate, "_as_number", _as_number_without("underscore"))
    failure_of(CHECKS[name], name, "'1_000'")


@pytest.mark.parametrize("name", list(CHECKS))
def test_a_rejected_value_echoed_whole_fails(monkeypatch, name):
    monkeypatch.setattr(urlstate, "quote", lambda raw: raw if isinstance(raw, str) else type(raw).__name__)
    failure_of(CHECKS[name], name)


def test_an_empty_value_taken_as_the_default_without_a_note_fails(monkeypatch):
    original = urlstate.clamp_value

    def silent(slider, raw, label=""):
        if raw == "":
            return urlstate._typed(slider, slider.default), None
        return original(slider, raw, label)
    monkeypatch.setattr(urlstate, "clamp_value", silent)
    failure_of(CHECKS["trees-hostile-inputs-answered"], "trees-hostile-inputs-answered", "''", "no note names")


def test_the_real_texts_smallest_temperature_taken_away_fails(monkeypatch):
    monkeypatch.setattr(realtext, "MIN_TEMPERATURE", 1e-12)
    failure_of(CHECKS["realtext-hostile-inputs-answered"], "realtext-hostile-inputs-answered", "rtTemperature")


def test_a_policies_curve_ending_at_1_taken_fails(monkeypatch):
    """The widget's guard (``found[1][0][-1] >= 1``) not firing: the curve reaches the model as read."""
    class LastHidden(list):
        def __getitem__(self, index):
            return 0.0 if index == -1 else list.__getitem__(self, index)

    original = policies_widget.requested_curve

    def unguarded(*args, **kwargs):
        found = original(*args, **kwargs)
        if not found:
            return found
        token, (curve, label, linkable) = found
        return token, (LastHidden(curve), label, linkable)
    monkeypatch.setattr(policies_widget, "requested_curve", unguarded)
    failure_of(CHECKS["policies-hostile-inputs-answered"], "policies-hostile-inputs-answered", "custom:1")


def test_a_choice_that_is_none_taken_silently_fails(monkeypatch):
    original = urlstate.Choice.read

    def silent(self, raw, label=""):
        value, note = original(self, raw, label)
        return value, None
    monkeypatch.setattr(urlstate.Choice, "read", silent)
    failure_of(CHECKS["trees-hostile-inputs-answered"], "trees-hostile-inputs-answered", "Verify cost")


@pytest.mark.parametrize("widget, name", [(trees_widget, "trees-hostile-inputs-answered"),
                                          (ledger_widget, "seed-hostile-inputs-answered"),
                                          (deployment_widget, "deployment-view-names-bad-values")])
def test_a_view_that_raises_on_a_huge_value_fails(monkeypatch, widget, name):
    original = widget.view

    def fragile(raw=None):
        view = original(raw)
        if any(n for n in view.get("notes", ()) if "infinity" in n or "largest" in n):
            raise OverflowError("int too large to convert to float")
        return view
    monkeypatch.setattr(widget, "view", fragile)
    failure_of(CHECKS[name], name, "raised OverflowError")


def test_a_view_answering_nan_fails(monkeypatch):
    original = ledger_widget.view
    monkeypatch.setattr(ledger_widget, "view", lambda raw=None: (lambda v: {
        **v, "bestSpeedup": math.nan if v["notes"] else v["bestSpeedup"]})(original(raw)))
    failure_of(CHECKS["seed-hostile-inputs-answered"], "seed-hostile-inputs-answered", "not finite JSON")


def test_a_slider_left_out_of_range_fails(monkeypatch):
    original = exact_widget.view
    monkeypatch.setattr(exact_widget, "view", lambda raw=None: (lambda v: {
        **v, "shown": {**v["shown"], "length": "1e400"} if any("Tokens" in n for n in v["notes"]) else v["shown"]})(
        original(raw)))
    failure_of(CHECKS["seed-hostile-inputs-answered"], "seed-hostile-inputs-answered", "the slider shows")
