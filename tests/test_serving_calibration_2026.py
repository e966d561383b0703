"""The 2026 GPUs' step calibration (lab.serving_calibration): what is fitted on measured steps (MI300X's fixed cost
per pass, on AMD's published vLLM latencies) and what stays assumed (every efficiency; B200, B300 and MI355X whole),
and that the one measured dense step on B200 (the speculators qwen3.8-27b sweep) fits nothing."""

import pytest

from lab import serving_calibration as cal
from lab.serving_validation import _held_out_steps, fit_calibration, source_key, step_measurement_ms


def _refit_pass_ms(start, rows):
    """fit_calibration over passMs alone, repeated until it stops moving (its grid reaches a little under one
    step a call): how MI300X_PASS_MS was found."""
    for _ in range(20):
        fitted = fit_calibration(start, rows, names=("passMs",))
        if fitted == start:
            return fitted.passMs
        start = fitted
    raise AssertionError("the fixed cost per pass did not settle")


def test_mi300x_fixed_cost_per_pass_is_the_fit_on_amds_latencies_and_only_that():
    rows = cal.PASS_STEP_MEASUREMENTS
    assert rows and {m.gpu for m in rows} == {"mi300x"} and {(m.gpus, m.precision) for m in rows} == {(8, "fp8")}
    assert _refit_pass_ms(cal.HOPPER._replace(**{k: getattr(cal.MI300X, k) for k in ("allreduce", "allreduceBeyond",
                                                                                     "linkBandwidth")}),
                          rows) == pytest.approx(cal.MI300X_PASS_MS, abs=1e-4)
    assert cal.CALIBRATIONS["mi300x"].passMs == cal.MI300X_PASS_MS
    # everything else MI300X assumes is still Hopper's, and the page is told it is assumed
    for name in ("memEfficiency", "flopEfficiency", "overlap", "draftPassMs", "specCycleMs"):
        assert getattr(cal.MI300X, name) == getattr(cal.HOPPER, name), name
    assert not cal.MI300X.measured and "mi300x" not in cal.MEASURED_GPUS
    assert f"{cal.MI300X_PASS_MS:.2f} ms" in cal.MI300X.source and "assumed" in cal.MI300X.source
    # the page's calibration table lists the GPUs fitted whole; these rows fit one constant and stay apart
    assert not set(rows) & set(cal.STEP_MEASUREMENTS)


def test_amds_latencies_come_within_their_tolerance_only_with_the_fitted_cost():
    """Each row within its 25% (in fact 0.95 to 1.13); with Hopper's 0.74 ms a pass every row comes out at least
    17% fast, the gap the fitted cost closes."""
    ratios = [step_measurement_ms(m) / m.ms for m in cal.PASS_STEP_MEASUREMENTS]
    assert all(abs(r - 1) <= m.tolerance for r, m in zip(ratios, cal.PASS_STEP_MEASUREMENTS))
    assert [round(r, 2) for r in ratios] == [1.0, 0.96, 1.13, 0.96, 0.95, 1.09, 0.97, 0.95]
    hopper_cost = cal.MI300X._replace(passMs=cal.HOPPER.passMs)
    assert all(step_measurement_ms(m, hopper_cost) / m.ms < 0.83 for m in cal.PASS_STEP_MEASUREMENTS)


def test_a_row_is_a_step_read_off_the_published_latency():
    """latency / 2048 output tokens, at the input plus half the output of context, each source naming its
    container and value."""
    for m in cal.PASS_STEP_MEASUREMENTS:
        seconds = float(m.source.rsplit(", ", 1)[-1].removesuffix(" s)"))
        assert m.ms == pytest.approx(seconds * 1000 / 2048) and m.context == 128 + 1024 and m.newTokens == 1
        assert "rocm" in m.source and f"batch {m.batch}" in m.source
    assert sorted(m.batch for m in cal.PASS_STEP_MEASUREMENTS) == [1, 1, 1, 2, 2, 2, 4, 4]


def test_b200_dense_step_is_held_out_of_every_fit_and_the_other_2026_gpus_stay_assumed():
    fitted = cal.STEP_MEASUREMENTS + cal.MOE_STEP_MEASUREMENTS + cal.PASS_STEP_MEASUREMENTS
    assert not any(m.target == "qwen3.8-27b" for m in fitted)
    held = [m for m in _held_out_steps() if m.gpu == "b200"]
    assert held and not {source_key(m.source) for m in held} & {source_key(m.source) for m in fitted}
    for name in ("b200", "b300", "mi355x"):
        c = cal.CALIBRATIONS[name]
        assert not c.measured and c.passMs == cal.HOPPER.passMs and c.source.startswith("no step-time measurement")


def test_the_instruments_check_catches_mi300x_without_its_fitted_cost(monkeypatch):
    """calibration_holds holds the model to AMD's MI300X steps too: given Hopper's fixed cost back (the assumption
    before the fit), it fails, naming an MI300X row."""
    from lab import serving
    from lab.checks import serving as family
    from mutation import clear_caches, failure_of

    calibrations = dict(cal.CALIBRATIONS)
    calibrations["mi300x"] = cal.MI300X._replace(passMs=cal.HOPPER.passMs)
    monkeypatch.setattr(cal, "CALIBRATIONS", calibrations)
    clear_caches(serving, cal)
    try:
        failure_of(family.CHECKS, "serving-calibration-holds", "mi300x", "llama-3-70b")
    finally:
        monkeypatch.undo()
        clear_caches(serving, cal)
