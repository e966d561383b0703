"""A copying drafter's rising curve approaches a ceiling below 1 instead of reaching certainty: every rate the model
fills in on an n-gram or suffix curve is at most lab.acceptance.copy_ceiling (the median of the copying curves' highest
rates at positions enough drafts reach), computed without the curve leave-one-out leaves out; rates a reader measured
are never changed, and model drafters are untouched (docs/READING.md, "A copying curve's model-filled rates stay under
a ceiling below 1", 4 December 2026)."""

import json
import math

import pytest

from lab import acceptance, acceptance_validation
from lab.acceptance_curves import CURVES
from lab.cli import main

COPYING = [name for name, entry in CURVES.items() if entry[0] in ("ngram", "suffix")]
MODEL = [name for name in CURVES if name not in COPYING]


def _filled(curve, k=acceptance.MAX_POSITIONS):
    """The rates the model filled in: every position past the reader's (measuredAt)."""
    return curve.rates(k)[curve.measuredAt:]


def _readers(method):
    """Curves an n-gram or suffix reader can build: one figure at k = 1, 2 and 4 over the whole range, measured rates
    that rise (vLLM #24344's n-gram run) or sit at 1, and lengths at k = 1, 2 and at k = 1..5."""
    for at in (1, 2, 4):
        for step in range(1, 20):
            yield acceptance.from_single(1 + at * step / 20, at, method)
    yield acceptance.from_conditional([0.81, 0.914, 0.946], method)
    yield acceptance.from_conditional([0.9, 1.0, 1.0], method)
    yield acceptance.from_conditional([0.98], method)
    yield acceptance.from_lengths({1: 1.8, 2: 2.7}, method)
    yield acceptance.from_lengths(dict(enumerate(acceptance.library_lengths("vllm-24344-ngram"), start=1)), method)


@pytest.mark.parametrize("method", ["ngram", "suffix"])
def test_no_rate_the_model_fills_in_on_a_copying_curve_reaches_1(method):
    """Past the reader's positions every rate is at most the ceiling, which is below 1, under the point's shape and
    under every shape of the prior's spread; the reader's own rates are kept as given (a measured 1.0 stays). On the
    code before the ceiling, 1.8 tokens per call at k = 1 gave 0.800, 0.934, 0.966, 0.999, then 1.0 at every position."""
    ceiling = acceptance.copy_ceiling(list(CURVES), method)
    assert 0.9 < ceiling < 1
    for curve in _readers(method):
        assert curve.ceiling == ceiling
        for shaped in [curve] + [curve._replace(shape=shape) for shape in curve.spread]:
            filled = _filled(shaped)
            assert filled and max(filled) <= ceiling < 1.0, (curve.source, curve.measured, shaped.shape)
    assert acceptance.from_conditional([0.9, 1.0, 1.0], method).rates(4)[:3] == [0.9, 1.0, 1.0]  # measured: kept
    rising = acceptance.from_single(1.8, 1, "ngram")
    assert [round(r, 3) for r in rising.rates(5)] == [0.8, 0.934, 0.965, 0.965, 0.965]
    assert 10.0 < rising.length(15) < 10.5 < 11.9   # it was 11.92
    # the interval is the held-out residuals' band (one figure, 14 positions past it), not capped by the ceiling: the
    # copying curves left out were measured above their points (the ceiling caps the model's rates, not the truth)
    low, high = rising.interval(15)
    q_low, q_high = acceptance.RESIDUAL_QUANTILES[1]
    assert (low, high) == pytest.approx((rising.length(15) * math.exp(14 * q_low), rising.length(15) * math.exp(14 * q_high)))


def test_the_cli_s_n_gram_rates_stay_under_the_ceiling(capsys):
    """`acceptance --lengths 1:1.8 --method ngram --lookahead 15 --json`: every rate past position 1 under the
    n-gram ceiling, and the length at k = 15 the curve's."""
    assert main(["acceptance", "--lengths", "1:1.8", "--method", "ngram", "--lookahead", "15", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    ceiling = acceptance.copy_ceiling(list(CURVES), "ngram")
    assert max(document["perPosition"][1:]) == pytest.approx(ceiling) and ceiling < 1
    assert document["meanAcceptanceLength"] == pytest.approx(acceptance.from_single(1.8, 1, "ngram").length(15))


def test_the_ceiling_is_read_from_the_copying_curves():
    """Each copying curve's level is its highest conditional rate from position 2 on at a position at least
    PLATEAU_GAIN of its drafts reach (the suffix run's 1.0 at positions 9 to 11, reached by 2.1%, is left out); the
    ceiling is the median over the reader's copying group. No copying curve: no ceiling; a model drafter: none."""
    levels = {name: round(acceptance._copy_level(name), 4) for name in COPYING}
    assert levels == {"vllm-24127-ngram": 0.9654, "vllm-35521-suffix": 0.5493, "vllm-24344-ngram": 0.9714,
                      "vllm-24344-ngram-instructcoder": 0.9333}
    assert round(acceptance.copy_ceiling(list(CURVES), "ngram"), 4) == 0.9654      # the three n-gram curves
    assert round(acceptance.copy_ceiling(list(CURVES), "suffix"), 4) == 0.9494     # the four copying curves
    for family in (None, "draft", "eagle", "mtp"):
        assert acceptance.copy_ceiling(list(CURVES), family) == 1.0
    assert acceptance.copy_ceiling(MODEL, "ngram") == 1.0


@pytest.mark.parametrize("name", COPYING)
def test_leave_one_out_computes_the_ceiling_without_the_curve_left_out(monkeypatch, name):
    """Left out, a copying curve's prediction carries the ceiling of the other curves; were the left-out curve's own
    rates to say a copy never breaks, its prediction (plain and nested) would not move, though the ceiling with it
    in the library would."""
    family = CURVES[name][0]
    without = acceptance.copy_ceiling([n for n in CURVES if n != name], family)
    r1 = acceptance.conditional_from_unconditional(CURVES[name][2][:1])
    assert acceptance.from_conditional(r1, family, exclude=name).ceiling == without
    if name == "vllm-24344-ngram":
        assert round(without, 4) == 0.9333 != round(acceptance.copy_ceiling(list(CURVES), family), 4)
    rows = {known: acceptance_validation.predict_from_lengths(name, known)["predicted"] for known in (1, 2)}
    pool = [n for n in CURVES if n != name]
    nested = {known: acceptance_validation._option_error(name, known, "pooled", pool) for known in (1, 2)}
    full = acceptance.copy_ceiling(list(CURVES), family)
    entry = CURVES[name]
    certain = tuple(entry[2][:2]) + (entry[2][1],) * (len(entry[2]) - 2)   # every rate from position 3 on: 1
    monkeypatch.setitem(CURVES, name, (entry[0], entry[1], certain) + tuple(entry[3:]))
    acceptance._library_shapes.cache_clear()
    try:
        if name != "vllm-24344-ngram":   # its level lies above the n-gram median already: raising it moves nothing
            assert acceptance.copy_ceiling(list(CURVES), family) > full   # the ceiling with the curve in would move
        for known in (1, 2):
            assert acceptance_validation.predict_from_lengths(name, known)["predicted"] == rows[known]
            # the nested arithmetic's error is against the (now changed) measured length: compare its prediction
            moved = acceptance_validation._option_error(name, known, "pooled", pool)
            now_top, before_top = acceptance.library_lengths(name)[-1], 1 + sum(entry[2])
            assert (moved + 1) * now_top == pytest.approx((nested[known] + 1) * before_top, rel=1e-12)
    finally:
        acceptance._library_shapes.cache_clear()


def test_model_drafters_carry_no_ceiling_and_are_unchanged():
    """A model drafter's curve, a reader with no method, an i.i.d. curve and a received token carry ceiling 1, and
    their rates are the ones the multiplicative shape capped at 1 gives (the model before the ceiling): every
    model-drafter library curve left out, from k = 1 and k = 1..2, and the readers' curves."""
    for name in MODEL:
        family, kind, values, *_ = CURVES[name]
        lengths = acceptance.library_lengths(name)
        for known in (1, 2):
            if kind == "unconditional":
                curve = acceptance.from_conditional(acceptance.conditional_from_unconditional(values[:known]), family,
                                                    exclude=name)
            else:
                curve = acceptance.from_lengths({k: lengths[k - 1] for k in range(1, known + 1)}, family, exclude=name)
            assert curve.ceiling == 1.0 and curve.rates(24) == _uncapped(curve, 24), name
    for method in (None, "draft", "eagle", "mtp"):
        for curve in (acceptance.from_single(1.8, 1, method), acceptance.from_lengths({1: 1.8, 2: 2.5}, method),
                      acceptance.from_conditional([0.8, 0.6, 0.5], method)):
            assert curve.ceiling == 1.0 and curve.rates(24) == _uncapped(curve, 24)
    assert acceptance.iid(0.74).ceiling == 1.0 and acceptance.iid(0.74).rates(6) == [0.74] * 6
    assert acceptance.token_curve([0.9, 0.95, 1.0]).rates(5) == [0.9, 0.95, 1.0, 1.0, 1.0]


def _uncapped(curve, k):
    """The rates as the model gave them before the ceiling: the shape's rise and fall capped at exactly 1."""
    c, d = curve.shape
    out = list(curve.measured)
    if len(out) == 1 and k > 1:
        out.append(min(1.0, out[0] * c))
    rate = out[-1] if curve.anchor is None or len(out) != len(curve.measured) else curve.anchor
    while len(out) < k:
        rate = min(1.0, rate * d)
        out.append(rate)
    return out[:k]
