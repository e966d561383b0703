"""The k schedule an operator runs (lab.production.steady_schedule): the serving model's best k by batch,
except that k is kept from rising back where the rise gains less than SCHEDULE_TOLERANCE, and the page
says where. The checks that hold it are broken on purpose here."""

import statistics

import pytest

from lab import deployment, production, serving, serving_calibration, serving_validation
from lab.checks import _run_check, deployment as family
from lab.widgets import deployment as widget

GRID = (*family.SCHEDULE_GRID, deployment.Deployment(target="mixtral-8x7b", gpu="h100-sxm", gpus=2))


def _schedules(d, percent=75):
    settings = deployment.serving_settings(d, percent)
    ks = production.k_by_batch(settings, deployment.MAX_LOOKAHEAD)
    return settings, ks, *production.steady_schedule(settings, ks)


def _fails(name):
    production._KEPT.clear()
    family._fit.cache_clear()
    outcome = _run_check(dict(family.CHECKS)[name])
    production._KEPT.clear()
    family._fit.cache_clear()
    return outcome.failure


def test_the_tolerance_is_under_the_step_models_median_error():
    """The reason the page gives for keeping k: a smaller gain is within the step model's error on the step
    times it is calibrated on."""
    errors = [abs(serving_validation.step_measurement_ms(m) / m.ms - 1) for m in serving_calibration.STEP_MEASUREMENTS]
    assert 0 < production.SCHEDULE_TOLERANCE < statistics.median(errors)


@pytest.mark.parametrize("d", GRID, ids=lambda d: f"{d.target}-{d.draft}-{d.gpu}x{d.gpus}")
def test_k_rises_only_where_the_rise_is_worth_the_tolerance(d):
    settings, ks, steady, held = _schedules(d)
    kept_batches = {b for r in held for b in range(r["from"], r["to"] + 1)}
    for batch in range(2, len(ks) + 1):
        (k, value), (best_k, best), before = steady[batch - 1], ks[batch - 1], steady[batch - 2][0]
        assert value >= best * (1 - production.SCHEDULE_TOLERANCE)
        if k > before:   # a rise is the best k and worth more than the tolerance over keeping the k before
            kept = 1.0 if before == 0 else serving.speedup_at(settings.with_(lookahead=before), batch, settings.context)
            assert k == best_k and kept < best * (1 - production.SCHEDULE_TOLERANCE)
        assert (k != best_k) == (batch in kept_batches)


def test_the_panels_default_schedule_only_falls_and_names_what_it_kept():
    _, ks, steady, held = _schedules(deployment.DEFAULT_DEPLOYMENT)
    best = [k for k, _ in ks]
    assert any(b > a for a, b in zip(best, best[1:]))   # the best k alone rises back (batch 11 to 17)
    ran = [k for k, _ in steady]
    assert all(b <= a for a, b in zip(ran, ran[1:]))
    assert held and all(r["kept"] < r["best"] and 0 < r["shortfall"] < production.SCHEDULE_TOLERANCE for r in held)
    html = widget.held_html(held)
    assert f"keeps k = {held[0]['kept']}" in html and "2%" in html


def test_a_material_rise_is_kept():
    """A mixture of experts reads more experts at batch 2: the best k jumps and the schedule follows."""
    _, ks, steady, _ = _schedules(GRID[-1])
    assert steady[1][0] == ks[1][0] > steady[0][0]


def test_no_tolerance_is_the_best_k_itself():
    settings, ks, _, _ = _schedules(deployment.DEFAULT_DEPLOYMENT)
    steady, held = production.steady_schedule(settings, ks, tolerance=0.0)
    assert [k for k, _ in steady] == [k for k, _ in ks] and held == []


def test_a_schedule_that_gives_up_too_much_fails_the_check(monkeypatch):
    original = production.steady_schedule
    monkeypatch.setattr(production, "steady_schedule", lambda s, ks, curve=None, tolerance=0.0: original(s, ks, curve, 0.2))
    failure = _fails("deployment-schedule-is-best-k")
    assert failure and "the schedule runs k =" in failure


def test_a_kept_run_left_unnamed_fails_the_check(monkeypatch):
    original = production.steady_schedule
    monkeypatch.setattr(production, "steady_schedule", lambda *a, **kw: (original(*a, **kw)[0], []))
    failure = _fails("deployment-schedule-is-best-k")
    assert failure and "not named as kept" in failure


def test_the_kept_runs_words_are_checked(monkeypatch):
    original = widget.held_words
    monkeypatch.setattr(widget, "held_words", lambda held: original(
        [{**r, "shortfall": r["shortfall"] + 0.001} for r in held]))
    failure = _fails("deployment-readouts-match-model")
    assert failure and "the schedule's kept runs" in failure


def test_a_schedule_that_hides_its_kept_runs_fails_the_readouts(monkeypatch):
    monkeypatch.setattr(widget, "held_html", lambda held: "")
    failure = _fails("deployment-readouts-match-model")
    assert failure and "does not name runs where it keeps k" in failure
