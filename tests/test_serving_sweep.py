"""The sweeps that price a cycle at every batch (lab.serving_sweep, used by lab.production.k_by_batch_steps and
lab.serving.batch_sweep) give the very floats of the straightforward computation: _time and _cycle_ms at every
batch and k (production.k_by_batch_scan, the oracle, and the loops written out here), compared with ==, on every
engine, the draft kinds (a draft model, the EAGLE-1/MTP and EAGLE-3 heads, n-gram lookup, suffix decoding), dense, MoE, latent,
sliding-window and hybrid linear-attention targets, the three step models, trees and acceptance curves."""

import itertools
import random

import pytest

from lab import deployment, production, serving, serving_step, serving_sweep

M = serving.MEASURED
BASE = serving.DEFAULT_SETTINGS.with_(stepModel=M)
CURVE = serving.received_curve([0.82, 0.7, 0.61])

# chosen: each engine with each draft kind on a target that fits, the MoE, latent, window and hybrid targets
CHOSEN = [
    dict(target="llama-3-70b", draft=serving.EAGLE, gpu="h100-sxm", gpus=4),                    # the panel's default
    dict(target="llama-3-70b", draft=serving.EAGLE, gpu="h200", gpus=4, context=512),
    dict(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=1, engine="vllm-v1-0.10"),
    dict(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=1, engine="sglang"),
    dict(target="llama-3-8b", draft=serving.EAGLE3, gpu="a100-80g", gpus=1, engine="sglang"),
    dict(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=2, engine="vllm-v0"),
    dict(target="llama-3-8b", draft="llama-3.2-1b", gpu="a100-80g", gpus=2, engine="vllm-v0"),
    dict(target="llama-3-8b", draft="llama-3.2-1b", gpu="h100-sxm", gpus=1, engine="sglang-eager-extend"),
    dict(target="llama-3-8b", draft="qwen2.5-0.5b", gpu="l40s", gpus=1, engine="sglang-no-overlap"),
    dict(target="llama-3-8b", draft=serving.NGRAM, gpu="h100-sxm", gpus=1, engine="vllm-v1", context=8192),
    dict(target="llama-3-8b", draft=serving.NGRAM, gpu="h100-sxm", gpus=1, engine="vllm-v1-0.10"),
    dict(target="llama-3-8b", draft=serving.NGRAM, gpu="h100-sxm", gpus=1, engine="vllm-v0"),
    dict(target="llama-3-8b", draft=serving.NGRAM, gpu="h200", gpus=1, engine="sglang"),
    dict(target="llama-3-8b", draft=serving.NGRAM, gpu="b200", gpus=1, engine="trtllm"),
    dict(target="mixtral-8x7b", draft=serving.EAGLE, gpu="h100-sxm", gpus=2),
    dict(target="mixtral-8x7b", draft="qwen2.5-0.5b", gpu="h100-sxm", gpus=2, engine="vllm-v0"),
    dict(target="qwen3-30b-a3b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=1, engine="sglang"),
    dict(target="deepseek-v3", draft=serving.EAGLE, gpu="h200", gpus=8, precision="fp8", engine="sglang"),
    dict(target="deepseek-v3", draft=serving.EAGLE, gpu="b200", gpus=8, precision="fp8", engine="trtllm"),
    dict(target="deepseek-v3", draft=serving.EAGLE, gpu="b200", gpus=8, precision="fp4", draftPrecision="bf16",
         engine="trtllm"),
    dict(target="qwen3-next-80b-a3b", draft=serving.EAGLE, gpu="h100-sxm", gpus=4),
    dict(target="qwen3-next-80b-a3b", draft=serving.EAGLE, gpu="h200", gpus=2, engine="sglang", context=16384),
    dict(target="gpt-oss-120b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=2, context=64),      # under the window
    dict(target="gpt-oss-120b", draft=serving.EAGLE3, gpu="mi300x", gpus=1, engine="vllm-v1-0.10"),
    dict(target="llama-3-70b", draft=serving.EAGLE, gpu="h100-sxm", gpus=4, treeTokens=8, engine="sglang"),
    dict(target="llama-3-70b", draft="llama-3.2-1b", gpu="h100-sxm", gpus=8, treeTokens=6, engine="vllm-v0"),
    dict(target="llama-3-70b", draft=serving.EAGLE, gpu="h100-sxm", gpus=4, stepModel=serving.ROOFLINE),
    dict(target="mixtral-8x7b", draft="qwen2.5-0.5b", gpu="h100-sxm", gpus=2, stepModel=serving.ROOFLINE,
         attentionFlops=True),
    dict(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=2, stepModel=serving.OPERATORS,
         engine="sglang"),
    dict(target="qwen3-next-80b-a3b", draft=serving.NGRAM, gpu="b200", gpus=2, stepModel=serving.OPERATORS),
    dict(target="qwen3-8b", draft=serving.SUFFIX, gpu="h100-sxm", gpus=1, engine="vllm-v1"),  # the other model-free
    dict(target="qwen3-8b", draft=serving.SUFFIX, gpu="h100-sxm", gpus=1, engine="vllm-v1-0.10"),  # the plugin's two loops
    dict(target="qwen3-8b", draft="qwen3-0.6b", gpu="h100-sxm", gpus=1, engine="vllm-v1-0.10"),
    dict(target="glm-4.5-air", draft=serving.EAGLE, gpu="h200", gpus=2, precision="fp8", engine="sglang"),  # its MTP
]


def _sampled(count=24, seed=11):
    """A seeded sample of the whole grid, kept where more than a few batches fit."""
    grid = list(itertools.product(serving.TARGETS, [*serving.DRAFTS, serving.EAGLE, serving.EAGLE3, serving.NGRAM],
                                  serving.GPUS, (1, 2, 4, 8), serving.ENGINES, ("bf16", "fp8"), (256, 2048, 32768)))
    random.Random(seed).shuffle(grid)
    chosen = []
    for target, draft, gpu, gpus, engine, precision, context in grid:
        s = BASE.with_(target=target, draft=draft, gpu=gpu, gpus=gpus, engine=engine, precision=precision,
                       context=context)
        if production.schedule_limit(s) >= 16:
            chosen.append(s)
        if len(chosen) == count:
            return chosen
    return chosen


SETTINGS = [BASE.with_(**c) for c in CHOSEN] + _sampled()


def _id(s):
    return f"{s.target}-{s.draft}-{s.gpu}x{s.gpus}-{s.engine}-{s.stepModel}-L{s.context}-T{s.treeTokens}"


@pytest.mark.parametrize("settings", SETTINGS, ids=_id)
def test_k_by_batch_is_the_scan_float_for_float(settings):
    production._KEPT.clear()
    try:
        assert production.k_by_batch(settings, 12) == production.k_by_batch_scan(settings, 12)
        rates, cap = tuple(CURVE[:12]), 5
        production._KEPT.clear()
        assert production.k_by_batch(settings, 12, rates, cap) == production.k_by_batch_scan(settings, 12, rates, cap)
    finally:
        production._KEPT.clear()


def test_the_settings_cover_what_the_brief_names():
    """The grid holds every engine, every draft kind, a MoE, the hybrid, trees, three step models and big schedules."""
    assert {s.engine for s in SETTINGS} == set(serving.ENGINES)
    assert {serving.NGRAM, serving.EAGLE, serving.EAGLE3, "llama-3.2-1b"} <= {s.draft for s in SETTINGS}
    assert {"mixtral-8x7b", "qwen3-next-80b-a3b", "deepseek-v3", "gpt-oss-120b"} <= {s.target for s in SETTINGS}
    assert {s.stepModel for s in SETTINGS} == {M, serving.ROOFLINE, serving.OPERATORS}
    assert any(s.treeTokens for s in SETTINGS)
    assert sum(production.schedule_limit(s) >= 512 for s in SETTINGS) >= 10


def _reference_rows(settings, batches, curve=None):
    """serving.batch_sweep as it was written: _time and _cycle_ms at every batch."""
    context, k = settings.context, settings.lookahead
    target, verify, draft, n = serving._cycle_steps(settings)
    tokens = serving.tokens_per_cycle(settings.acceptance / 100, k, curve)
    rows = []
    for batch in batches:
        plain = serving._time(target, batch, 1, context)
        cycle = serving._cycle_ms(settings, k, draft, verify, batch, n, context, tokens)
        rows.append({"batch": batch, "speedup": serving.cycle_speedup(plain, tokens, cycle),
                     "plainTokensPerSecond": batch * 1000 / plain, "specTokensPerSecond": batch * tokens * 1000 / cycle})
    return rows


@pytest.mark.parametrize("settings", SETTINGS[::2], ids=_id)
def test_batch_sweep_and_crossover_are_the_reference_floats(settings):
    batches = list(range(1, production.schedule_limit(settings) + 1))
    for k, curve in ((1, None), (4, None), (7, CURVE)):
        s = settings.with_(lookahead=k)
        reference = _reference_rows(s, batches, curve)
        assert serving.batch_sweep(s, batches, curve) == reference
        assert serving.plain_tokens_per_second(s, batches) == [row["plainTokensPerSecond"] for row in reference]
        assert serving.spec_tokens_per_second(s, batches, curve) == [row["specTokensPerSecond"] for row in reference]
        first = next((row["batch"] for row in reference if row["speedup"] <= 1), None)
        assert production.crossover_within(s, len(batches), curve) == first


@pytest.mark.parametrize("settings", SETTINGS[::3], ids=_id)
def test_tpots_by_batch_is_the_reference_float(settings):
    """Plain and scheduled TPOT by batch (the production panel's target rows) from the reference rows."""
    production._KEPT.clear()
    ks = [k for k, _ in production.k_by_batch(settings, 12)]
    production._KEPT.clear()
    batches = list(range(1, len(ks) + 1))
    expected = []
    for b, k in zip(batches, ks):
        row = _reference_rows(settings.with_(lookahead=max(1, k)), [b])[0]
        expected.append(b * 1000.0 / (row["plainTokensPerSecond"] if k == 0 else row["specTokensPerSecond"]))
    assert production.tpots_by_batch(settings, batches, ks) == expected


@pytest.mark.parametrize("settings", SETTINGS[1::3], ids=_id)
@pytest.mark.parametrize("curve", [None, tuple(CURVE[:12])], ids=["iid", "curve"])
def test_tpots_read_from_the_schedules_sweep_are_the_ones_priced_afresh(settings, curve):
    """After k_by_batch, tpots_by_batch reads the plain steps and cycles its sweep priced, kept with its answer
    (production.Priced, read through production._priced) instead of pricing them again: the very floats, also after
    another schedule was computed; a cleared _KEPT lets none of them through, nor other settings or another curve."""
    production._KEPT.clear()
    filed = production._kept_as(settings, curve, batch=1, lookahead=1)
    ks = [k for k, _ in production.k_by_batch(settings, 12, curve)]
    kept = production._KEPT[filed, 12, curve, None]
    assert isinstance(kept, production.Priced) and list(kept.ks) == production.k_by_batch(settings, 12, curve)
    assert len(kept.plain) == len(ks) and len(kept.cycles) == max(ks)   # the k a schedule from ks can run
    other = filed.with_(gpus=filed.gpus * 2)
    production.k_by_batch(other, 12, curve)   # another schedule, kept after it: the first's steps are still read
    batches = list(range(1, len(ks) + 1))
    assert production._priced(filed, None, 0, len(ks)) is kept.plain
    assert all(production._priced(filed, curve, k, len(ks)) is kept.cycles[k - 1] for k in set(ks) - {0})
    assert production._priced(filed.with_(context=filed.context + 1), None, 0, 1) is None
    if max(ks):   # a cycle is read on its own curve only (the plain step on any)
        assert production._priced(filed, (0.5,) * 12 if curve is None else None, max(ks), 1) is None
    assert production._priced(filed, curve, max(ks) + 1, 1) is None
    assert production._priced(filed, None, 0, len(ks) + 1) is None
    read = production.tpots_by_batch(filed, batches, ks, curve), production.tpots_by_batch(filed, batches, [0] * len(ks))
    production._KEPT.clear()
    assert production._priced(filed, None, 0, 1) is None
    assert read == (production.tpots_by_batch(filed, batches, ks, curve),
                    production.tpots_by_batch(filed, batches, [0] * len(ks)))


@pytest.mark.parametrize("settings", SETTINGS, ids=_id)
def test_every_step_and_cycle_piece_is_the_reference_float(settings):
    """step_in_batch is _time for the plain, draft, verify, first-step and fc-free steps at batches across the
    all-reduce and gather knees and contexts on either side of a sliding window; cycles_in_batch is _cycle_ms
    at every k, trees sharing verify token counts included."""
    target, verify, draft, _ = serving._cycle_steps(settings)
    steps = [target, verify] + ([] if draft is None else [draft])
    if draft is not None and settings.draft == serving.EAGLE3:
        steps.append(serving_step._eagle3_fc_free(settings, draft))
    for n in (1, 2, 5, 13):
        first = serving._first_step(settings, draft, n)
        for context in (1, 100, 128, 4096, 131072):
            for step in steps + ([] if first is None else [first]):
                at = serving_sweep.step_in_batch(step, n, context)
                assert [at(b) for b in (1, 2, 3, 17, 64, 255, 1000, 4096)] == [
                    serving._time(step, b, n, context) for b in (1, 2, 3, 17, 64, 255, 1000, 4096)]
    for tree in (0, 6):
        s = settings.with_(treeTokens=tree, batch=1, lookahead=1)
        per_k = [(k, serving.verify_tokens(s.with_(lookahead=k)), serving.tokens_per_cycle(0.71, k)) for k in range(1, 13)]
        at = serving_sweep.cycles_in_batch(s, draft, verify, per_k, s.context)
        for b in (1, 7, 96, 700):
            assert at(b) == [serving._cycle_ms(s, k, draft, verify, b, n, s.context, t) for k, n, t in per_k]


def test_the_panels_schedule_is_the_scan():
    """The deployment panel's own path (engine_answer on its default curve) gives the oracle's list."""
    d = deployment.DEFAULT_DEPLOYMENT
    curve = deployment.figure_curve(deployment.alpha_from(2.8, "length", 4), 4, d.draft, target=d.target)
    rates, cap = deployment.curve_schedule_terms(curve)
    settings = deployment.serving_settings(d, 71)
    production._KEPT.clear()
    answer = deployment.engine_answer(d, 71, curve=curve)
    production._KEPT.clear()
    assert answer["kByBatch"] == production.k_by_batch_scan(settings, deployment.MAX_LOOKAHEAD, rates, cap)


def test_step_in_batch_reads_every_field_of_the_per_operator_step():
    """step_in_batch writes _time's sum in line: a field added to the step (a new term) must be read there too,
    or the sweeps would price a step without it. Every field but token_output_ms, a cycle's term that _time does not
    read either (serving_step._emitted_output_ms, which the sweeps call)."""
    import inspect

    source = inspect.getsource(serving_sweep.step_in_batch)
    unread = [name for name in serving._MeasuredStep._fields if f"step.{name}" not in source]
    assert unread == ["token_output_ms"], unread


def _clear_kept():
    production._KEPT.clear()
    production._sweeps.cache_clear()
    production._crossover.cache_clear()


@pytest.mark.parametrize("settings", [SETTINGS[0], BASE.with_(target="qwen3-next-80b-a3b", draft=serving.EAGLE3,
                                                              engine="sglang", gpus=2, gpu="h200")], ids=_id)
def test_on_a_curve_kept_answers_serve_every_acceptance(settings):
    """On a curve nothing reads the acceptance, so the schedule, the production terms and the diagnosis are filed
    without it (production._kept_as): answers kept at one acceptance are the very ones computed afresh at another."""
    rates, cap = tuple(CURVE[:12]), 6
    here, there = settings.with_(acceptance=55, batch=48, lookahead=3), settings.with_(acceptance=81, batch=48, lookahead=3)

    def panel(s):
        ks = production.k_by_batch(s, 12, rates, cap)
        return ks, production.production(s, 3, 2.5, 50.0, ks, rates), production.diagnosis(s, 3, ks, None, rates)

    _clear_kept()
    fresh = panel(there)
    _clear_kept()
    panel(here)
    kept = len(production._KEPT)
    assert panel(there) == fresh and len(production._KEPT) == kept == 1
    assert fresh[0] == production.k_by_batch_scan(there, 12, rates, cap)
    _clear_kept()
    production.k_by_batch(here, 12)   # without a curve the acceptance enters: a new answer
    production.k_by_batch(there, 12)
    assert len(production._KEPT) == 2
    _clear_kept()
