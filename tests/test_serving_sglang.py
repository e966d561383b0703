"""Today's SGLang (lab.serving_calibration.ENGINES["sglang"], lab.serving_sglang): what its code runs while speculating,
each switch against its neighbours. The expected figures are written from the code as read (lab.serving_sglang names
the places), not read back from the model's totals."""

import pytest

from lab import serving, serving_calibration as cal, serving_sglang

CHAIN = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="llama-3-8b", draft=serving.EAGLE3,
                                       gpu="h100-sxm", gpus=1, lookahead=3, acceptance=70, batch=32, context=1024,
                                       engine="sglang")


def _eager_share(settings):
    """What today's SGLang's extend pass costs beyond 2025's captured one (sglang-no-overlap: the same pass, captured
    by its V1 worker on every backend, FA3 first), ms: less that worker's eager ops a cycle, which today's V2 worker
    does not pay serially (lab.serving_sglang.V1_EAGER_OPS; taken off here since that term came, December 2026)."""
    older = settings.with_(engine="sglang-no-overlap")
    return (serving.draft_extend_ms(settings, 32, 1024) - serving.draft_extend_ms(older, 32, 1024)
            + cal.cycle_eager_ms(cal.ENGINES["sglang-no-overlap"], older.lookahead))


def test_the_switches_are_those_read_in_its_code():
    """Overlap on while speculating (no serial host work or output processing), one verify pass, the k draft steps in
    one graph (no host ops between them), the extend pass after verify, captured except where FlashAttention 3 is the
    default (Hopper), n-gram drafts under the same overlap with their preparation serial."""
    e = cal.ENGINES["sglang"]
    assert (e.expandedVerify, e.draftExtend, e.eagerExtend, e.firstDraftOverVerified) == (False, True, False, False)
    assert (e.stepHostMs, e.specCycleMs, e.serialOutput, e.tokenOutput, e.asyncScheduling) == (0.0, 0.0, False, False, True)
    assert (e.interStepOps, e.ngramStepHostMs, e.ngramProposer) == (0, 0.0, "sglang-incremental")
    assert e.eagerExtendGpus == ("h100-sxm", "h200") and e.ngramRequestOps == 1
    assert cal.ENGINES["sglang-no-overlap"].eagerExtendGpus == () == cal.ENGINES["sglang-eager-extend"].eagerExtendGpus
    assert all(place for _, place in e.costs) and {name for name, _ in e.costs} >= {
        "overlap scheduler while speculating", "n-gram drafts with overlap, their preparation serial",
        "its CUDA graph, not on Hopper for a chain", "the k draft steps in one CUDA graph"}


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_a_chain_on_hopper_runs_its_extend_pass_eagerly(gpu):
    """FA3 for topk 1 on Hopper (get_default_attn_backend), not in the extend graph's list (eagle_worker_v2.py): a
    host-driven pass's fixed cost instead of a captured draft pass's, the lab's price for every eager extend."""
    c = cal.CALIBRATIONS[gpu]
    assert _eager_share(CHAIN.with_(gpu=gpu)) == pytest.approx(c.passMs - c.draftPassMs, rel=1e-12)
    assert c.passMs - c.draftPassMs > 0.3


@pytest.mark.parametrize("change", [{"treeTokens": 8}, {"gpu": "a100-80g"}, {"gpu": "b200"}, {"draft": "llama-3.2-1b"}])
def test_elsewhere_the_extend_pass_stays_captured(change):
    """A tree (topk > 1: flashinfer or triton, both captured), an A100 (flashinfer) or a Blackwell GPU (trtllm_mha):
    no eager share; a draft model pays the chain's eager share too (one draft-extend path)."""
    settings = CHAIN.with_(**change)
    if change.get("draft"):
        c = cal.CALIBRATIONS[settings.gpu]
        assert _eager_share(settings) == pytest.approx(c.passMs - c.draftPassMs, rel=1e-12)
    else:
        assert _eager_share(settings) == 0.0


def test_an_mla_target_on_hopper_runs_it_eagerly_even_as_a_tree():
    """MLA gets FA3 on Hopper whatever the topk: DeepSeek-V3's MTP head on 8 H200s, a tree of 8, still eager."""
    s = CHAIN.with_(target="deepseek-v3", draft=serving.EAGLE, gpu="h200", gpus=8, precision="fp8", treeTokens=8)
    c = cal.CALIBRATIONS["h200"]
    assert _eager_share(s) == pytest.approx(c.passMs - c.draftPassMs, rel=1e-9)
    assert _eager_share(s.with_(gpu="b200")) == pytest.approx(0.0, abs=1e-12)


def test_the_ngram_mask_copy_is_serial_a_request():
    """One strided device copy a request after the sync on the previous verify (today's ngram_worker.py), priced as an
    eager op beside the trie's measured match: at batch 256, 256 x (32.4 + 8.6) us."""
    e = cal.ENGINES["sglang"]
    assert cal.ngram_proposal_ms(e, 256, 4096, 3) == pytest.approx(256 * (32.4 + 8.6) / 1000, rel=1e-12)
    assert serving_sglang.NGRAM_MASK_OPS == {"today": 1, "v1": 4}


def test_the_plain_step_is_priced_as_the_speculative_one():
    """The overlap scheduler hides the same host work plain or speculating: no engine host time in either step (the
    pass's fixed cost, charged to both, is the calibration's), so the plain step is vLLM V1's (also asynchronous)."""
    plain = serving.step_breakdown(serving.TARGETS["llama-3-8b"], CHAIN, 32, 1, 1024)
    assert plain == serving.step_breakdown(serving.TARGETS["llama-3-8b"], CHAIN.with_(engine="vllm-v1"), 32, 1, 1024)
    verify = serving.verify_step_ms(CHAIN, 32, 1024)
    assert verify == pytest.approx(serving.verify_step_ms(CHAIN.with_(engine="vllm-v1"), 32, 1024), rel=1e-12)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_a_cycle_runs_k_minus_one_draft_steps_beside_its_extend_pass(k):
    """draft_forward breaks before its last forward ('we get 1 token from draft prefill and (#spec steps - 1) tokens
    here'): a cycle of k drafts is k - 1 one-token draft steps, the extend pass over the k + 1 verified tokens (whose
    logits give the next first draft token) and the verify step, on an A100 (the extend captured). The load curves'
    affine terms price the same cycle."""
    from lab import serving_load, serving_step
    s = CHAIN.with_(gpu="a100-80g", draft=serving.EAGLE, lookahead=k)
    _, verify, draft, n = serving_step._cycle_steps(s)
    by_hand = ((k - 1) * serving_step._time(draft, 32, 1, 1024) + serving_step._time(draft, 32, k + 1, 1024)
               + serving_step._time(verify, 32, k + 1, 1024))
    tokens = serving_step.tokens_per_cycle(0.7, k)
    assert n == k + 1
    assert serving_step._cycle_ms(s, k, draft, verify, 32, n, 1024, tokens) == pytest.approx(by_hand, rel=1e-12)
    per_token = serving_load._per_token_function(s, True)
    assert per_token(32) == pytest.approx(by_hand / tokens, rel=1e-9)
    # vLLM V1 0.14 on: its first draft step over the verified tokens is one of the k, so it runs k steps in all
    assert cal.ENGINES["vllm-v1"].firstDraftFromExtend is False


def test_a_negative_extend_share_leaves_the_ledger_a_slider_value():
    """An EAGLE-3 head on SGLang at batch one on an A100: the extend pass over 4 tokens costs less than the one-token
    step it replaces plus the fc its 2 other steps skip, so the share beyond k steps is below zero; the ledger's fit
    moves it into the draft steps (overhead 0), and its cycle is still the serving model's."""
    from lab import deployment
    d = deployment.Deployment(target="llama-3-8b", draft=serving.EAGLE3, gpu="a100-80g", gpus=1, engine="sglang",
                              batch=1, lookahead=3)
    s = deployment.serving_settings(d, 0)
    assert serving.draft_extend_ms(s, 1, d.context) < 0
    costs = deployment.ledger_costs(d)
    assert costs["overheadMs"] == 0.0 and costs["draftCost"] > 0
    serving_cycle = (3 * serving.draft_step_ms(s, 1, d.context) + serving.draft_extend_ms(s, 1, d.context)
                     + serving.verify_step_ms(s, 1, d.context))
    assert deployment.ledger_cycle_ms(costs, 3) == pytest.approx(serving_cycle, rel=1e-9)


TREE = CHAIN.with_(treeTokens=8, lookahead=4)   # a tree of 8 verified tokens: topk > 1 for k up to 6, a chain at 7


@pytest.mark.parametrize("k, eager", [(4, False), (6, False), (7, True), (9, True)])
def test_the_eager_extend_follows_the_k_priced_not_the_settings_lookahead(k, eager):
    """Whether the extend pass runs eagerly (FA3 for a chain on Hopper) is a property of the cycle priced: a tree of 8
    scanned at k = 7 or more verifies k + 1 tokens (verify_tokens), a chain, whatever lookahead the settings hold."""
    from lab import serving_step
    c, n = cal.CALIBRATIONS["h100-sxm"], serving.verify_tokens(TREE.with_(lookahead=k))
    assert n == max(8, k + 1)
    for lookahead in (1, 4, 7, 12):
        share = serving_step._eager_extend_ms(TREE.with_(lookahead=lookahead), n, k)
        assert share == (pytest.approx(c.passMs - c.draftPassMs, rel=1e-12) if eager else 0.0)


def test_a_scan_over_k_prices_each_k_as_its_own_settings():
    """best_lookahead and the deployment panel's k by batch (its sweep and its straightforward oracle) give at each k
    the speedup of the settings with that lookahead: a tree on an H100 (the k past its depth a chain, its extend eager)
    gets one answer whatever lookahead it is scanned from."""
    from lab import production
    context = TREE.context
    answers = {serving.best_lookahead(TREE.with_(lookahead=lookahead), 12) for lookahead in (1, 4, 7)}
    assert len(answers) == 1
    best_k, best = answers.pop()
    assert best == pytest.approx(serving.speedup_at(TREE.with_(lookahead=best_k), TREE.batch, context), rel=1e-12)
    ks = production.k_by_batch(TREE, 12)
    assert ks == production.k_by_batch_scan(TREE, 12)
    for batch, (k, value) in enumerate(ks, start=1):
        assert k == 0 or value == pytest.approx(serving.speedup_at(TREE.with_(lookahead=k), batch, context), rel=1e-12)
    # past the tree's depth the extend pass runs eagerly: k = 7 costs more than k = 6 at every batch from 61 on
    assert {k for k, _ in ks[60:]} <= {0, 6}


@pytest.mark.parametrize("engine", ["sglang", "sglang-no-overlap"])
def test_a_trees_extend_pass_runs_over_the_chains_k_plus_one_tokens(engine):
    """SGLang's draft-extend pass runs over ``speculative_num_steps + 1`` tokens a sequence whatever the tree (its
    draft-extend CUDA graph runners' ``num_tokens_per_bs``), and the EAGLE-3 fc comes off the k - 1 one-token steps it
    runs, not off n - 2: on an A100 (no eager pass on either side) a tree of 8 or 16 verified tokens at k = 3 costs in its
    extend what the chain of 4 does (priced over n, as before, a tree of 16 costs more than one of 8)."""
    from lab import serving_step
    s = TREE.with_(gpu="a100-80g", engine=engine)
    draft = serving._step(serving.draft_shape(s), s, "draft")
    chain = serving_step._extend_time(s, draft, 32, 4, 1024, 3)
    for n in (8, 16):
        assert serving_step._extend_time(s, draft, 32, n, 1024, 3) == chain
    assert serving_sglang.extend_tokens(16, 3) == 4 and serving_sglang.extend_tokens(3, 3) == 3


@pytest.mark.parametrize("engine, cycle_ops", [("sglang-no-overlap", 62), ("sglang-eager-extend", 41), ("sglang", 0)])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_the_v1_worker_pays_its_eager_ops_a_cycle_serially(engine, cycle_ops, k):
    """SGLang's V1 EAGLE worker, with the overlap scheduler off while speculating, launches outside its CUDA graphs each
    cycle the draft's preparation (15 ops), the verify's preparation and greedy acceptance (26), the extend pass's
    inputs (6) and, with that pass captured, its graph's prologue (21), less a plain step's own (6): 62 with the extend
    captured, 41 with it eager; and 8 more for each draft step after the first (FlashAttention 3's metadata of each step
    backend), each an eager op (8.6 us, pytorch/pytorch issue #114860), counted in its code (lab.serving_sglang names
    the places). Today's V2 worker runs under the overlap scheduler: nothing of it is charged. Written from the counts,
    not read back from the model: on an A100 (the extend pass captured where the engine captures it) the extend share
    is its pass less the one-token step it replaces, plus an eager pass's fixed cost where the engine runs one, plus the
    ops."""
    s = CHAIN.with_(engine=engine, gpu="a100-80g", draft=serving.EAGLE, lookahead=k)
    draft = serving._step(serving.draft_shape(s), s, "draft")
    calib = cal.CALIBRATIONS["a100-80g"]
    eager = calib.passMs - calib.draftPassMs if engine == "sglang-eager-extend" else 0.0
    ops = 0 if cycle_ops == 0 else cycle_ops + 8 * (k - 1)
    expected = (serving._time(draft, 32, k + 1, 1024) - serving._time(draft, 32, 1, 1024) + eager
                + ops * 8.6 / 1000)
    assert serving.draft_extend_ms(s, 32, 1024) == pytest.approx(expected, rel=1e-9)
    assert sum(serving_sglang.V1_EAGER_OPS.values()) == 62 and serving_sglang.V1_STEP_OPS == 8


def test_the_v1_ops_stay_out_of_ngram_drafts_and_the_ideal_limit():
    """The ops are the EAGLE worker's (its verify input, its tree, its draft and extend graphs): an n-gram draft runs
    another worker (its own mask ops, NGRAM_MASK_OPS) and the ideal limit charges no engine's host work."""
    older = CHAIN.with_(engine="sglang-no-overlap")
    ngram = older.with_(draft=serving.NGRAM)
    assert serving.draft_extend_ms(ngram, 32, 1024) == 0.0
    ideal = older.with_(stepModel=serving.OPERATORS)   # per operator, uncalibrated (the ideal limit)
    assert serving.draft_extend_ms(ideal, 32, 1024) == serving.draft_extend_ms(ideal.with_(engine="sglang"), 32, 1024)


def test_the_article_states_the_v1_workers_counts_as_the_lab_holds_them():
    """The serving fold of the article (templates/article/02-queue.html.j2) names the V1 worker's eager ops as
    literals: they are the lab's counts and its price of one op."""
    from pathlib import Path
    text = " ".join((Path(__file__).resolve().parent.parent / "templates/article/02-queue.html.j2").read_text().split())
    cycle, step = serving_sglang.V1_CYCLE_OPS["captured extend"], serving_sglang.V1_STEP_OPS
    assert f"({cycle} a cycle and {step} more a draft step, counted in its code" in text
    assert f"eager operation&rsquo;s {cal.EAGER_OP_US:g}&nbsp;&micro;s each" in text
