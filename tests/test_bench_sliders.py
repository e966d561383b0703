"""``BENCH_ONLY=sliders``: the summary of the slider steps (bench.run.slider_summary) and the one clear
message for a ``BENCH_BESIDE`` that is not a checkout (nothing is built or launched then)."""

from bench import run


def _steps(latencies, python=None):
    python = python or [None] * len(latencies)
    return {"steps": [{"latencyMs": v, "pythonMs": p} for v, p in zip(latencies, python)]}


def test_slider_summary_counts_the_steps_over_one_frame_per_widget():
    out = run.slider_summary({"a": _steps([10.0, 12.0, 20.0], [2.0, 3.0, 9.0]), "b": _steps([16.0, 17.0])})
    assert out["sliderSteps"] == 5 and out["stepsOverOneFrame"] == 2  # 20 and 17 ms: a frame is 16.67 ms
    assert out["sliderByWidget"]["a"]["overOneFrame"] == 1 and out["sliderByWidget"]["b"]["overOneFrame"] == 1
    assert out["sliderByWidget"]["a"]["pythonP50Ms"] == 3.0 and out["sliderByWidget"]["b"]["pythonP50Ms"] is None
    assert out["sliderP50Ms"] == 16.0 and out["sliderByWidget"]["b"]["p50Ms"] == 16.5


def test_a_beside_that_is_not_a_checkout_is_refused_by_name(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("BENCH_ONLY", "sliders")
    monkeypatch.setenv("BENCH_BESIDE", str(tmp_path))
    monkeypatch.setattr(run, "measure_sliders_only", lambda *a: (_ for _ in ()).throw(AssertionError("measured")))
    assert run.main([]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "not a checkout" in err and "no lab/" in err


def test_the_throttled_steps_join_the_same_summary_only_when_given():
    plain = {"a": _steps([10.0, 12.0, 20.0]), "b": _steps([16.0, 17.0])}
    out = run.slider_summary(plain, {"a": _steps([30.0, 40.0]), "b": _steps([20.0, 21.0, 50.0])})
    assert out["sliderThrottledP50Ms"] == 30.0 and out["sliderThrottledP95Ms"] == 48.0  # a, b: 20 21 30 40 50
    assert out["sliderByWidget"]["a"]["throttledP50Ms"] == 35.0 and out["sliderByWidget"]["b"]["throttledP95Ms"] == 47.1
    assert out["sliderByWidget"]["a"]["p50Ms"] == 12.0 and out["stepsOverOneFrame"] == 2  # the plain steps, as before
    alone = run.slider_summary(plain)
    assert "sliderThrottledP50Ms" not in alone and "throttledP50Ms" not in alone["sliderByWidget"]["a"]
