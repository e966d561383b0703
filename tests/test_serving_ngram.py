"""n-gram drafting priced by engine, and vLLM V0's draft model on several GPUs (lab.serving_calibration:
ngram_proposal_ms, the engines' ngramProposer / ngramStepHostMs / hostDraftStepsAboveTp1; lab.serving_step). The
expected figures are written from the sources' numbers, not read back from the module's constants."""

import pytest

from lab import serving
from lab import serving_calibration as cal
from lab.serving_step import _measured_constants

# vLLM pull request 56732: 512 sequences x 129,536 tokens of context scanned in 70.28 ms on one thread a rank
SCAN_MS_PER_TOKEN = 70.28 / (512 * 129536)
# vLLM pull request 9333: V0's proposal time after the PR, 1.5 ms (read per proposed token)
V0_MS_PER_DRAFT = 1.5
SYNC_HOST_MS = 1.20683946   # SpecDecode-Bench's synchronous V1 host time a step

NGRAM = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, draft=serving.NGRAM, target="llama-3-8b",
                                       gpu="h100-sxm", gpus=1, lookahead=4, acceptance=60)


def test_v1_scan_reproduces_the_measured_row():
    """PR 56732's microbenchmark row is what the proposer charges at its batch and context (plus the assumed call)."""
    got = cal.ngram_proposal_ms(cal.ENGINES["vllm-v1"], 512, 129536, 5)
    assert got == pytest.approx(70.28 + 0.02, rel=1e-12)


@pytest.mark.parametrize("engine", ["vllm-v1", "vllm-v1-0.10"])
def test_vllm_v1_proposal_grows_with_batch_times_context(engine):
    e = cal.ENGINES[engine]
    small, long_context, big_batch = (cal.ngram_proposal_ms(e, b, L, 4) for b, L in ((8, 1024), (8, 8192), (64, 1024)))
    assert long_context - small == pytest.approx(8 * (8192 - 1024) * SCAN_MS_PER_TOKEN, rel=1e-9)
    per_request = 0.002 if engine == "vllm-v1-0.10" else 0.0   # 0.10's Python loop: one call a request (assumed 2 us)
    assert big_batch - small == pytest.approx(56 * (1024 * SCAN_MS_PER_TOKEN + per_request), rel=1e-9)


def test_v0_proposal_is_per_draft_and_blind_to_batch_and_context():
    e = cal.ENGINES["vllm-v0"]
    assert cal.ngram_proposal_ms(e, 1, 512, 4) == cal.ngram_proposal_ms(e, 256, 32768, 4) == 4 * V0_MS_PER_DRAFT
    assert cal.ngram_proposal_ms(e, 8, 512, 7) == pytest.approx(7 * V0_MS_PER_DRAFT)


@pytest.mark.parametrize("engine", ["sglang", "sglang-no-overlap", "sglang-eager-extend"])
def test_sglang_trie_is_blind_to_context(engine):
    e = cal.ENGINES[engine]
    assert cal.ngram_proposal_ms(e, 16, 512, 4) == cal.ngram_proposal_ms(e, 16, 131072, 4) > 0


@pytest.mark.parametrize("engine, us, ops", [("sglang", 32.4, 1), ("sglang-no-overlap", 45.3, 4),
                                             ("sglang-eager-extend", 45.3, 0)])
def test_sglang_trie_match_as_measured_per_request(engine, us, ops):
    """sgl-project/sglang PR 22180: 32.4 us a step for the incremental match (from PR 21243, March 2026), 45.3 us for
    the rebuild before it, one request a call; charged per request, whatever k. Beside it, the eager ops a request the
    worker launches serially to build the verify mask (lab.serving_sglang.NGRAM_MASK_OPS): one strided copy today, four
    in the V1 worker (two host-to-device copies, a cat, a cast); the v0.4 lookahead worker was not read (none)."""
    e = cal.ENGINES[engine]
    assert e.ngramRequestOps == ops
    assert cal.ngram_proposal_ms(e, 64, 2048, 4) == pytest.approx(64 * (us + ops * cal.EAGER_OP_US) / 1000, rel=1e-12)
    assert cal.ngram_proposal_ms(e, 64, 2048, 9) == cal.ngram_proposal_ms(e, 64, 2048, 4)


def test_the_cycle_pays_one_proposal_whatever_the_k_scanned():
    """best_lookahead and the grids call the cycle at other k than the settings': the proposal at that k, not the
    settings' spread over it (V1's scan does not grow with k; V0's proposal does)."""
    for engine in ("vllm-v1", "vllm-v0"):
        s = NGRAM.with_(engine=engine)
        target, verify, draft, _ = serving._cycle_steps(s)
        assert draft is None
        for k in (1, 3, 8):
            n = serving.verify_tokens(s.with_(lookahead=k))
            tokens = serving.tokens_per_cycle(0.6, k)
            cycle = serving._cycle_ms(s, k, draft, verify, 32, n, 2048, tokens)
            alone = serving._cycle_ms(s.with_(lookahead=k), k, draft, serving._cycle_steps(s.with_(lookahead=k))[1],
                                      32, n, 2048, tokens)
            assert cycle == pytest.approx(alone, rel=1e-12)
            proposal = cal.ngram_proposal_ms(cal.ENGINES[engine], 32, 2048, k)
            assert cycle - proposal == pytest.approx(
                serving._time(verify, 32, n, 2048) + serving._emitted_output_ms(verify, 32, tokens), rel=1e-12)


def test_readout_cycle_adds_up_with_ngram_on_every_engine():
    for engine in cal.ENGINES:
        r = serving.serving(NGRAM.with_(engine=engine, batch=48, context=4096))
        k = NGRAM.lookahead
        assert k * r.draftStepMs == pytest.approx(cal.ngram_proposal_ms(cal.ENGINES[engine], 48, 4096, k), rel=1e-12)
        cycle = k * r.draftStepMs + r.draftExtendMs + r.verifyStepMs + r.emittedOutputMs
        assert r.speedup == pytest.approx(r.plainStepMs * r.tokensPerCall / cycle, rel=1e-9)


def test_todays_v1_runs_synchronously_with_ngram_drafts_only():
    """vLLM PR 31998: asynchronous scheduling stays off for non-EAGLE/MTP drafts, so the CPU n-gram proposer's verify
    step pays the synchronous host time; an EAGLE verify step and every plain step do not."""
    v1 = NGRAM.with_(engine="vllm-v1")
    eagle = v1.with_(draft=serving.EAGLE)
    assert serving.verify_step_ms(v1, 16, 1024) - serving.verify_step_ms(eagle, 16, 1024) == pytest.approx(SYNC_HOST_MS)
    assert serving.serving(v1).plainStepMs == serving.serving(eagle).plainStepMs
    # V1 0.10 was synchronous for every draft already: n-gram adds nothing there
    old = NGRAM.with_(engine="vllm-v1-0.10")
    assert serving.verify_step_ms(old, 16, 1024) == serving.verify_step_ms(old.with_(draft=serving.EAGLE), 16, 1024)


def test_the_ideal_limit_and_the_roofline_price_no_ngram_host_work():
    for model in (serving.OPERATORS, serving.ROOFLINE):
        s = NGRAM.with_(stepModel=model)
        assert serving.ngram_cycle_ms(s, 64, 8192) == 0.0
        assert serving.verify_step_ms(s, 16, 1024) == serving.verify_step_ms(s.with_(draft=serving.EAGLE), 16, 1024)


def test_a_v1_charged_v0s_proposal_is_caught(monkeypatch):
    """Mutation: today's V1 charged V0's measured proposal (1.5 ms a draft) would cost milliseconds a cycle at batch
    one, where its scan of 600 tokens costs about a microsecond plus the call."""
    assert serving.ngram_cycle_ms(NGRAM, 1, 600) < 0.03
    engines = dict(cal.ENGINES)
    engines["vllm-v1"] = engines["vllm-v1"]._replace(ngramProposer="vllm-v0")
    monkeypatch.setattr(cal, "ENGINES", engines)
    monkeypatch.setattr(serving.serving_step, "ENGINES", engines)
    assert serving.ngram_cycle_ms(NGRAM, 1, 600) >= 0.03


def test_steady_load_model_agrees_with_the_cycle_for_ngram():
    """The load model's affine per-token terms (lab.serving_load) give the readout's cycle at whole batches."""
    for engine in ("vllm-v1", "vllm-v1-0.10", "vllm-v0", "sglang"):
        s = NGRAM.with_(engine=engine, context=4096)
        for batch in (1, 8, 64):
            r = serving.serving(s.with_(batch=batch))
            cycle = r.plainStepMs * r.tokensPerCall / r.speedup
            assert serving.ms_per_token(s, batch, True) == pytest.approx(cycle / r.tokensPerCall, rel=1e-9)


# --- vLLM V0's draft model on several GPUs ---------------------------------------------------------

V0_70B = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="llama-3-70b", draft="llama-3.2-1b",
                                        gpu="h100-sxm", gpus=4, lookahead=4, engine="vllm-v0", context=1024)


def _captured_draft_ms(settings, batch):
    """The same draft step priced as a captured pass inside the step (the engine's switch off)."""
    engine = cal.ENGINES["vllm-v0"]._replace(hostDraftStepsAboveTp1=False)
    step = _measured_constants(serving.DRAFTS[settings.draft], settings.gpu, settings.precision, settings.gpus,
                               cal.CALIBRATIONS[settings.gpu], "draft", engine)
    return serving._time(step, batch, 1, settings.context)


@pytest.mark.parametrize("batch", [1, 16, 32])
def test_v0_draft_on_several_gpus_is_a_host_prepared_step(batch):
    hopper = cal.CALIBRATIONS["h100-sxm"]
    extra = hopper.passMs - hopper.draftPassMs + batch * hopper.sequenceUs / 1000
    assert serving.draft_step_ms(V0_70B, batch, 1024) - _captured_draft_ms(V0_70B, batch) == pytest.approx(extra)


def test_v0_draft_on_one_gpu_stays_captured():
    one = V0_70B.with_(target="llama-3-8b", gpus=1)
    assert serving.draft_step_ms(one, 16, 1024) == pytest.approx(_captured_draft_ms(one, 16), rel=1e-12)


@pytest.mark.parametrize("engine", [name for name in cal.ENGINES if name != "vllm-v0"])
def test_no_other_engine_prepares_draft_steps_on_the_host(engine):
    assert not cal.ENGINES[engine].hostDraftStepsAboveTp1
    s = V0_70B.with_(engine=engine)
    hopper = cal.CALIBRATIONS["h100-sxm"]
    # on a host-prepared step the draft would pay passMs, well above a captured pass's draftPassMs at batch 1
    assert serving.draft_step_ms(s, 1, 1024) < _captured_draft_ms(V0_70B, 1) + (hopper.passMs - hopper.draftPassMs) / 2


# --- mutations: each engine switch flipped is caught by the instruments check -------------------------

@pytest.mark.parametrize("engine, change, fragment", [
    ("vllm-v1", {"ngramProposer": "vllm-v0"},
     "kernels\", 'n-gram per proposed draft', 'synchronous with n-gram drafts'], read"),   # (the MTP costs sort first)
    ("vllm-v1", {"hostDraftStepsAboveTp1": True}, "vllm-v1 pays for n-gram and multi-GPU drafts"),   # V1 given V0's
    ("vllm-v1", {"ngramStepHostMs": 0.0}, "kernels\", 'n-gram scans the context'], read"),
    ("vllm-v1-0.10", {"ngramProposer": "vllm-batched"}, "vllm-v1-0.10 pays for n-gram and multi-GPU drafts"),
    ("vllm-v0", {"hostDraftStepsAboveTp1": False}, "kernels\", 'n-gram per proposed draft'], read"),
    ("vllm-v0", {"ngramProposer": "vllm-batched"}, "vllm-v0 pays for n-gram and multi-GPU drafts"),
    ("sglang", {"ngramProposer": "vllm-batched"}, "sglang pays for n-gram and multi-GPU drafts"),
])
def test_engine_costs_check_catches_each_new_switch_flipped(monkeypatch, engine, change, fragment):
    from lab.checks import serving as family
    from mutation import failure_of
    monkeypatch.setitem(cal.ENGINES, engine, cal.ENGINES[engine]._replace(**change))
    serving._measured_constants.cache_clear()
    try:
        failure_of(family.CHECKS, "serving-engine-costs-as-read", fragment, "read in its code")
    finally:
        serving._measured_constants.cache_clear()

