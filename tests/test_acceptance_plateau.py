"""On every library curve that plateaus (lab.acceptance.measured_plateau_start: the first measured k after
which every further draft together adds less than PLATEAU_GAIN tokens per call), no instrument recommends a
lookahead past the plateau's start plus one: the one best-k rule at any draft cost, the deployment panel's
three answers, and the ledger, serving and policies widgets on the curve's token, with drafts cheap enough
that their uncapped best would lie deeper. The plateau is read from the published numbers here, not from
the model's fitted curve."""

import re

import pytest

from lab import acceptance, deployment
from lab.acceptance_curves import CURVES
from lab.widgets import ledger as ledger_widget, policies as policies_widget, serving as serving_widget

PLATEAUING = [name for name in CURVES if acceptance.measured_plateau_start(acceptance.library_lengths(name))]
CHEAP = {"draftCost": "0", "verifyTax": "0", "overheadMs": "0"}


def _curve(name):
    """The curve as a reader gives it: every measured length (--lengths), or the engine's rates (--per-position)."""
    family, kind, values, *_ = CURVES[name]
    if kind == "lengths":
        return acceptance.from_lengths(dict(enumerate(values, start=1)), family)
    return acceptance.from_unconditional(values, family)


def test_the_library_has_plateauing_curves_of_both_kinds():
    """The test below tests something: the DeepSeek-V4-Pro MTP curve the issue names plateaus from k = 4, and an
    engine log (rates, not lengths) plateaus too."""
    assert acceptance.measured_plateau_start(acceptance.library_lengths("dsv4-pro-mtp-thinking")) == 4
    assert any(CURVES[name][1] == "unconditional" for name in PLATEAUING)
    assert len(PLATEAUING) >= 6


@pytest.mark.parametrize("name", PLATEAUING)
def test_no_instrument_recommends_past_the_plateau(name):
    start = acceptance.measured_plateau_start(acceptance.library_lengths(name))
    curve = _curve(name)
    limit = start + 1
    uncapped_deeper = False
    for cost in (0.0, 0.002, 0.01, 0.05):   # a draft pass as a share of the target's
        best = acceptance.best_lookahead(lambda k: curve.length(k) / (1 + cost * k), curve, 16)  # noqa: B023 (called in this iteration)
        assert best["k"] <= limit, (cost, best)
        uncapped_deeper |= best["uncappedK"] > limit
    assert uncapped_deeper or curve.length(16) - curve.length(limit) < acceptance.PLATEAU_GAIN
    answer = deployment.answer(deployment.DEFAULT_DEPLOYMENT, curve.rates(1)[0], curve)
    for part in ("serving", "servingSent", "ledger"):
        assert answer[part]["bestLookahead"] <= limit, (part, answer[part]["bestLookahead"])
    token = acceptance.curve_token(curve)
    assert ledger_widget.view({"trcCurve": token, **CHEAP})["bestLookahead"] <= limit
    found = re.search(r"The best lookahead here is (\d+) ", serving_widget.view({"srvCurve": token, "draft": "ngram"})["summary"])
    assert found and int(found.group(1)) <= limit
    found = re.match(r"k = (\d+),", policies_widget.view({"polCurve": token, "draftCost": "0"})["readouts"]["bestStatic"])
    assert found and int(found.group(1)) <= limit


def test_a_measured_plateau_is_read_from_the_lengths_themselves():
    assert acceptance.measured_plateau_start([1.8, 2.4, 2.9, 3.3]) is None          # still rising
    assert acceptance.measured_plateau_start([1.8, 2.4, 2.5, 2.52, 2.5]) == 3       # stalls from k = 3
    assert acceptance.measured_plateau_start([1.8, 2.4, 2.5, 2.52, 2.6]) is None    # k = 5 still adds 0.08
    assert acceptance.measured_plateau_start([1.8, 2.4, 2.5, 2.52, 2.6, 2.61]) == 5
    assert acceptance.measured_plateau_start({1: 1.8, 2: 2.4, 6: 2.42}) == 2
