"""The serving instrument's engine-costs check (each engine version pays exactly the costs its code was read to
have, read off the model's numbers, not its switches) and SGLang's EAGLE-3 cycle rebuilt from the step model's passes.
Apart from :mod:`lab.checks.serving` so that module stays under the thousand lines a lab module may have; the family's
CHECKS name both there.
"""

from .. import serving, serving_calibration

__all__ = ["ENGINE_COSTS_AS_READ", "OTHER_DRAFT_COSTS_AS_READ", "engine_costs_as_read", "sglang_eagle3_cycle_adds_up"]


# Which costs each engine version pays while speculating, as read in its code (lab.serving_calibration.ENGINES,
# the 'costs' of each, name the places): written out here a second time so that a changed switch fails a check.
# SGLang's V1 EAGLE worker (sglang-no-overlap, sglang-eager-extend) launches eager ops serially each cycle outside its
# graphs (lab.serving_sglang.V1_EAGER_OPS): 62 a cycle and 8 a draft step after the first with the extend pass
# captured, 78 at k = 3; 41 and 8 with it eager, 57 at k = 3; the 8 a step read off the model as the ops one more
# draft adds (below: "host ops between draft steps (8)", launched before the draft graph's replay, one set a step).
# Each also pays a MoE layer's fixed cost at its own MoE kernels' price (lab.serving_moe; Engine.moeKernels, read in
# each engine's code): vLLM and SGLang run the Triton fused_moe kernels, TensorRT-LLM its own.
_TRITON, _TRTLLM = frozenset({"MoE kernels (triton)"}), frozenset({"MoE kernels (trtllm)"})
ENGINE_COSTS_AS_READ = {
    "vllm-v1": frozenset({"first draft step over the verified tokens"}) | _TRITON,
    "vllm-v1-0.10": frozenset({"synchronous host work", "first draft step over the verified tokens"}) | _TRITON,
    "vllm-v0": frozenset({"batch expansion", "speculation bookkeeping", "serial output", "per-token output"}) | _TRITON,
    "sglang": frozenset({"draft extend", "first draft token from the extend pass", "eager extend on Hopper (fa3)"}) | _TRITON,
    "sglang-no-overlap": frozenset({"draft extend", "first draft token from the extend pass", "serial output",
                                    "eager ops a cycle at k = 3 (78)"}) | _TRITON,
    "sglang-eager-extend": frozenset({"draft extend", "first draft token from the extend pass", "eager extend",
                                      "serial output", "eager ops a cycle at k = 3 (57)"}) | _TRITON,
    "trtllm": frozenset({"draft steps in the verify graph"}) | _TRTLLM,
}
# The same for n-gram drafts and a draft model on several GPUs (lab.serving_calibration.ngram_proposal_ms, the
# engines' ngramProposer, ngramStepHostMs and hostDraftStepsAboveTp1), read off the model's numbers by
# _other_drafts_paid: vLLM V1 scans each context (one call over the batch today, one a request in 0.10) and today runs
# synchronously with n-gram drafts; V0 pays a measured price per proposed draft and prepares a multi-GPU draft's steps
# on the CPU; SGLang matches its trie once a request (measured, sglang pull request 22180) and builds each request's
# verify mask with eager ops after its sync (one today, four in its V1 worker: lab.serving_sglang). vLLM V1 0.10 runs an EAGLE-3
# head's auxiliary-state gathers, its fc and its vocabulary map eagerly (serving_calibration.eagle3_eager_ms; today's V1
# not read for them, so not charged) and an EAGLE-1 or EAGLE-3 proposal costs what SpecDecode-Bench's fit of the EAGLE-3
# one on 0.10.1 holds beyond them: 0.10.1 runs either head's drafts outside CUDA graphs (lab.serving_specdecode.
# proposal_ms; today's V1 captures them again, not charged). On every engine an
# MTP module of a MoE checkpoint runs as the MoE layer it is and gathers its logits each draft step on several GPUs
# (lab.serving_mtp.LOGITS_GATHER); the engines differ in which models' MTP fusion they read whole on every GPU
# (Engine.mtpFusionWhole, each read in that version's model file): vLLM splits Qwen3-Next's, SGLang does not, and an
# engine version whose code for a model was not read is charged nothing for it. vLLM V1 0.10 launches its state updates
# between two EAGLE steps as eager ops (eagle.py's propose: 11 a step after the first, one of which a fused kernel also
# needs: 10 beyond it), fused into one kernel since (today's V1): read off the model as the ops one more draft adds.
_MTP_EVERYWHERE = frozenset({"MTP module's MoE kernels", "MTP logits gathered", "MTP fusion read whole (deepseek-v3)"})
OTHER_DRAFT_COSTS_AS_READ = {
    "vllm-v1": frozenset({"n-gram scans the context", "synchronous with n-gram drafts",
                          "MTP fusion read whole (glm-4.5)"}) | _MTP_EVERYWHERE,
    "vllm-v1-0.10": frozenset({"n-gram scans the context", "n-gram call a request", "EAGLE-3 eager ops",
                               "EAGLE proposal beyond its ops", "MTP fusion read whole (glm-4.5)",
                               "host ops between draft steps (10)"}) | _MTP_EVERYWHERE,
    "vllm-v0": frozenset({"n-gram per proposed draft", "host-prepared draft steps"}) | _MTP_EVERYWHERE,
    "sglang": frozenset({"n-gram call a request", "n-gram mask ops a request (1)", "MTP fusion read whole (glm-4.5)",
                         "MTP fusion read whole (qwen3-next-80b-a3b)"}) | _MTP_EVERYWHERE,
    "sglang-no-overlap": frozenset({"n-gram call a request", "n-gram mask ops a request (4)",
                                    "host ops between draft steps (8)"}) | _MTP_EVERYWHERE,
    "sglang-eager-extend": frozenset({"n-gram call a request", "host ops between draft steps (8)"}) | _MTP_EVERYWHERE,
    # its n-gram drafter and two-model path were not read: nothing of theirs is charged
    "trtllm": _MTP_EVERYWHERE,
}
# The checkpoints with an MTP module whose fusion the engines' code was read for (lab.serving_mtp)
_MTP_TARGETS = ("deepseek-v3", "glm-4.5", "qwen3-next-80b-a3b")


def _probe(name):
    """The setting every cost is read off at: Llama-3-8B with an EAGLE head on one H100 under engine ``name``,
    batch 32, context 1024, k = 3, acceptance 70% (the readers below vary one thing of it at a time)."""
    return serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", draft=serving.EAGLE, gpus=1, gpu="h100-sxm", lookahead=3,
                                          acceptance=70, batch=32, context=1024, stepModel=serving.MEASURED, engine=name)


def _costs_paid(name):
    """The costs an engine's cycle pays, read off the model's numbers (not its switches), at :func:`_probe`'s
    setting."""
    s = _probe(name)
    cal, target, head = serving_calibration.CALIBRATIONS[s.gpu], serving.TARGETS[s.target], serving.draft_shape(s)
    plain = serving.step_breakdown(target, s, 32, 1, 1024)
    verify = serving.step_breakdown(target, s, 32, 4, 1024, "verify")
    one_pass = serving.step_breakdown(target, s, 32, 4, 1024)   # the same tokens as a plain pass
    paid = set()
    if plain["fixed"] - (cal.passMs + target.layers * cal.layerMs) > 1e-9:
        paid.add("synchronous host work")
    if verify["attention"] > one_pass["attention"] * (1 + 1e-9):
        paid.add("batch expansion")
    if verify["fixed"] - plain["fixed"] > 1e-9:
        paid.add("speculation bookkeeping")
    if verify["engine"] - 32 * (cal.sequenceUs + 3 * cal.rejectUs) / 1000 > 1e-9:
        paid.add("serial output")
    if serving.emitted_output_ms(s, 32, 2.5) > 0:
        paid.add("per-token output")
    engine = serving_calibration.ENGINES[name]
    host = serving_calibration.proposal_ms(engine, s.draft, 3) + serving_calibration.inter_step_ms(engine, 2)
    ops = serving_calibration.cycle_eager_ms(engine, 3)   # the worker's eager ops a cycle, read off below

    def beyond_a_pass(settings, in_place, less=ops):   # the extend share (less its host terms) beyond a pass over 4 tokens
        full = sum(serving.step_breakdown(head, settings, 32, 4, 1024, "draft").values())
        step = sum(serving.step_breakdown(head, settings, 32, 1, 1024, "draft").values()) if in_place else 0.0
        return serving.draft_extend_ms(settings, 32, 1024) - host - less + step - full

    extend = serving.draft_extend_ms(s, 32, 1024)
    # a whole extend pass beside the k one-token steps, or one in place of the first of them (its logits give the
    # first draft token: SGLang), or less than a pass: a first step over the verified tokens (vLLM V1)
    in_place = beyond_a_pass(s, False) < -1e-9 <= beyond_a_pass(s, True)
    if beyond_a_pass(s, in_place) >= -1e-9:
        paid.add("draft extend")
        if in_place:
            paid.add("first draft token from the extend pass")
        if beyond_a_pass(s, in_place) > 1e-9:   # eager everywhere, or only where FlashAttention 3 is the default
            captured = beyond_a_pass(s.with_(gpu="a100-80g"), in_place) <= 1e-9
            paid.add("eager extend on Hopper (fa3)" if captured else "eager extend")
        # what the extend share holds on an A100 beyond its pass, the step it replaces and, where the pass runs eagerly
        # everywhere, a host-driven pass's fixed cost: the worker's eager ops a cycle, in EAGER_OP_US
        a100 = s.with_(gpu="a100-80g")
        rest = beyond_a_pass(a100, in_place, 0.0)
        if "eager extend" in paid:
            rest -= serving_calibration.CALIBRATIONS["a100-80g"].passMs - serving_calibration.CALIBRATIONS["a100-80g"].draftPassMs
        count = round(rest * 1000 / serving_calibration.EAGER_OP_US, 6)
        if count:
            paid.add(f"eager ops a cycle at k = 3 ({count:g})")
    elif extend > 0:  # less than a whole pass: a first step over the verified tokens, beyond a one-token step
        paid.add("first draft step over the verified tokens")
    # a draft step without a launch and sampling of its own (draftPassMs): the head runs in the verify pass's CUDA graph
    if serving.step_breakdown(head, s, 32, 1, 1024, "draft")["fixed"] < cal.draftPassMs + head.layers * cal.layerMs - 1e-9:
        paid.add("draft steps in the verify graph")
    return paid | _moe_kernels_paid(s)


def _moe_kernels_paid(s):
    """Which MoE kernel stack's price a plain step pays per MoE layer, read off the model's numbers on one H100:
    Qwen3-30B-A3B's fixed cost beyond Llama-3-8B's (the same engine's host work in both) less its 16 more layers' own
    fixed cost, over its 48 MoE layers, against each stack's value in the GPU's calibration (lab.serving_moe)."""
    cal, moe, dense = serving_calibration.CALIBRATIONS[s.gpu], serving.TARGETS["qwen3-30b-a3b"], serving.TARGETS["llama-3-8b"]
    fixed = [serving.step_breakdown(shape, s.with_(target=name, precision="bf16"), 1, 1, 1024)["fixed"]
             for name, shape in (("qwen3-30b-a3b", moe), ("llama-3-8b", dense))]
    per_layer = (fixed[0] - fixed[1] - (moe.layers - dense.layers) * cal.layerMs) * 1000 / serving.moe_layers(moe)
    return {f"MoE kernels ({stack})" for stack, us in cal.moeLayerUs if abs(us - per_layer) < 1e-6}


def _other_drafts_paid(name):
    """What n-gram drafts and a draft model on four GPUs cost an engine, read off the model's numbers (from
    :func:`_probe`'s setting)."""
    s = _probe(name)
    return (_ngram_costs_paid(s) | _multi_gpu_draft_costs_paid(s) | _eagle3_costs_paid(s) | _mtp_module_costs_paid(s)
            | _inter_step_costs_paid(s))


def _inter_step_costs_paid(s):
    """Host ops between two chained draft steps, read off the model's numbers: at batch one (where a step reads its
    weights whatever its tokens) what one more draft adds to an EAGLE head's draft beyond its one-token steps
    (serving.draft_extend_ms from k = 3 to 4), in eager ops (EAGER_OP_US each), where it is at least one."""
    s = s.with_(batch=1)
    grown = serving.draft_extend_ms(s.with_(lookahead=4), 1, 1024) - serving.draft_extend_ms(s.with_(lookahead=3), 1, 1024)
    ops = round(grown * 1000 / serving_calibration.EAGER_OP_US)
    return {f"host ops between draft steps ({ops})"} if ops >= 1 else set()


def _mtp_module_costs_paid(s):
    """An MTP module's own costs, read off the model's numbers at batch one on B200: DeepSeek-V3's head's draft step
    on one GPU has a fixed cost beyond its layer's (and the draft pass's own, where it pays one): a MoE layer's
    kernels; on eight GPUs its all-reduce carries the gathered logits beside its layer's all-reduces; and, for each
    checkpoint with an MTP module, a fusion read whole on each GPU shows as more weights than an eighth of one GPU's:
    exactly the 7/8 of its 2 h^2 weights beyond each GPU's share (else it is named mispriced)."""
    s = s.with_(target="deepseek-v3", gpu="b200", precision="fp4", batch=1)
    cal, head = serving_calibration.CALIBRATIONS[s.gpu], serving.draft_shape(s)
    step = lambda settings, gpus: serving.step_breakdown(serving.draft_shape(settings), settings.with_(gpus=gpus),  # noqa: E731
                                                         1, 1, 2048, "draft")
    paid = set()
    beyond = step(s, 1)["fixed"] - head.layers * cal.layerMs
    if min(abs(beyond), abs(beyond - cal.draftPassMs)) > 1e-9:
        paid.add("MTP module's MoE kernels")
    if serving._step(head, s.with_(gpus=8), "draft").gather_ms > 0:
        paid.add("MTP logits gathered")
    for target in _MTP_TARGETS:
        t = s.with_(target=target)
        beyond = 8 * step(t, 8)["weights"] - step(t, 1)["weights"]   # ms, memory-bound at batch one
        if beyond > 1e-9:
            # read whole on each of 8 GPUs: 7/8 of the 2 h^2 fusion beyond each GPU's share, 7 fusions in all
            fusion = 2 * serving.TARGETS[target].hidden ** 2 * serving.PRECISIONS[serving.pass_precision(t, "draft")].bytes
            bandwidth = serving.GPUS[t.gpu].bandwidth * cal.memEfficiency / 1000   # bytes a ms, one GPU (t.gpu is s.gpu)
            whole = abs(beyond * bandwidth / (7 * fusion) - 1) < 1e-6
            paid.add(f"MTP fusion read whole ({target})" if whole else f"MTP fusion mispriced ({target})")
    return paid


def _eagle3_costs_paid(s):
    """An EAGLE head's proposal costs, read off the model's numbers at batch one (where its steps read their weights
    whatever the tokens). An EAGLE-3 head's eager ops outside the draft's graph: ``e(3)``, its draft's cost beyond its
    3 steps less an EAGLE-1 head's, is positive with them (without, less: its fc runs in one step of the k). The
    proposal's fitted cost beyond its ops (lab.serving_specdecode), once a cycle and the same for either head: an
    EAGLE-1 head's draft beyond its one step holds the engine's fitted term whole, and an EAGLE-3 head's no more of it."""
    def extend(draft, k):
        return serving.draft_extend_ms(s.with_(draft=draft, lookahead=k), 1, 1024)
    paid = {"EAGLE-3 eager ops"} if extend(serving.EAGLE3, 3) - extend(serving.EAGLE, 3) > 0.01 else set()
    fitted = serving_calibration.proposal_ms(serving_calibration.ENGINES[s.engine], serving.EAGLE, 1)
    if fitted > 0 and extend(serving.EAGLE, 1) >= fitted and extend(serving.EAGLE3, 1) - extend(serving.EAGLE, 1) < 0.2:
        paid.add("EAGLE proposal beyond its ops")
    return paid


def _ngram_costs_paid(s):
    """n-gram drafting's costs read off the model's numbers: a proposal that grows with the context (a scan of
    it), with the batch at no context (a call a request), with k (a price per proposed draft), and a verify
    step dearer than an EAGLE draft's (the engine turns its asynchronous scheduling off for n-gram drafts)."""
    s = s.with_(draft=serving.NGRAM)
    cycle = lambda batch, context, k=3: serving.ngram_cycle_ms(s, batch, context, k)  # noqa: E731
    paid = set()
    if cycle(32, 8192) - cycle(32, 1024) > 1e-9:
        paid.add("n-gram scans the context")
    if cycle(64, 0) - cycle(32, 0) > 1e-9:
        paid.add("n-gram call a request")
    if cycle(32, 1024, 6) - cycle(32, 1024, 3) > 1e-9:
        paid.add("n-gram per proposed draft")
    if serving.verify_step_ms(s, 32, 1024) - serving.verify_step_ms(s.with_(draft=serving.EAGLE), 32, 1024) > 1e-9:
        paid.add("synchronous with n-gram drafts")
    engine, proposal_ms = serving_calibration.ENGINES[s.engine], serving_calibration.ngram_proposal_ms
    if engine.ngramProposer.startswith("sglang-"):   # beyond the trie's measured match, eager ops a request (the mask)
        slope = (proposal_ms(engine, 64, 0, 3) - proposal_ms(engine, 32, 0, 3)) * 1000 / 32
        match_us = serving_calibration.SGL_NGRAM_REQUEST_US[engine.ngramProposer.removeprefix("sglang-")]
        ops = round((slope - match_us) / serving_calibration.EAGER_OP_US, 6)
        if ops:
            paid.add(f"n-gram mask ops a request ({ops:g})")
    return paid


def _multi_gpu_draft_costs_paid(s):
    """A draft model on four GPUs (a 1B draft for Llama-3-70B) whose draft pass pays per-sequence engine work: each
    step prepared on the CPU as an engine step (vLLM V0 above TP 1)."""
    s = s.with_(target="llama-3-70b", draft="llama-3.2-1b", gpus=4)
    parts = serving.step_breakdown(serving.draft_shape(s), s, 32, 1, 1024, "draft")
    return {"host-prepared draft steps"} if parts["engine"] > 0 else set()


def engine_costs_as_read(out):
    """Each engine version pays exactly the costs its code was read to have (ENGINE_COSTS_AS_READ, the
    places in lab.serving_calibration.ENGINES): read off the model's numbers, not its switches, so vLLM V1
    charged V0's serial output processing, or SGLang today charged the overlap it no longer turns off,
    fails here, and so does TensorRT-LLM's MTP head charged a draft pass's own launch outside its verify graph; so do its
    n-gram and multi-GPU draft costs (OTHER_DRAFT_COSTS_AS_READ): V1 charged V0's n-gram
    price or V0's host-prepared draft steps fails, and so do V1 0.10's eager ops between draft steps miscounted or fused
    and an MTP fusion read whole charged other than 7/8 of its weights beyond each GPU's share; and so does an engine
    charged another's MoE kernels (vLLM or SGLang TensorRT-LLM's cost a MoE layer, or TensorRT-LLM the Triton
    kernels'). Every engine is named in the table and the table names no other."""
    if set(ENGINE_COSTS_AS_READ) != set(serving_calibration.ENGINES):
        out.fail(f"engines {sorted(serving_calibration.ENGINES)} against the table {sorted(ENGINE_COSTS_AS_READ)}")
    for name in serving_calibration.ENGINES:
        out.visited += 1
        paid, expected = _costs_paid(name), ENGINE_COSTS_AS_READ.get(name, frozenset())
        if paid != expected:
            out.fail(f"{name} pays {sorted(paid)}, read in its code: {sorted(expected)}")
        paid, expected = _other_drafts_paid(name), OTHER_DRAFT_COSTS_AS_READ.get(name, frozenset())
        if paid != expected:
            out.fail(f"{name} pays for n-gram and multi-GPU drafts {sorted(paid)}, read in its code: {sorted(expected)}")


def sglang_eagle3_cycle_adds_up(out):
    """SGLang's cycle with an EAGLE-3 head drafts as its code runs it (lab.serving_step._eagle3_fc_ms names the
    places): one extend pass of the head over the k + 1 verified tokens, fc included (its logits give the first
    draft token), then k - 1 one-token draft steps without the fc (they take the draft's own h-wide state). Rebuilt
    here from the step model's passes, the head without its fc being the head with 3 h^2 fewer weights, and held to
    the model's draft share of a cycle (k one-token steps plus serving.draft_extend_ms), on an A100 (the extend pass
    captured) at batch 1 and 64, k = 2 to 4, for a chain and for a tree of 8 verified tokens (its extend pass still
    over k + 1 tokens: the draft-extend graph runners' ``num_tokens_per_bs``, lab.serving_sglang.extend_tokens)."""
    base = serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", draft=serving.EAGLE3, gpus=1, gpu="a100-80g",
                                          context=1024, stepModel=serving.MEASURED, engine="sglang", acceptance=70)
    head = serving.draft_shape(base)
    without_fc = head._replace(name=head.name + "-without-fc", params=head.params - 3 * serving.TARGETS[base.target].hidden ** 2)
    for k, tree, batch in ((k, tree, batch) for k in (2, 3, 4) for tree in (0, 8) for batch in (1, 64)):
        out.visited += 1
        s = base.with_(lookahead=k, batch=batch, treeTokens=tree)
        model = k * serving.draft_step_ms(s, batch, s.context) + serving.draft_extend_ms(s, batch, s.context)
        rebuilt = (serving.step_time_ms(head, s, batch, k + 1, s.context, "draft")
                   + (k - 1) * serving.step_time_ms(without_fc, s, batch, 1, s.context, "draft"))
        if abs(model - rebuilt) > 1e-9 * rebuilt:
            out.fail(f"k = {k}, tree {tree}, batch {batch}: the model drafts in {model:.6f} ms, an extend pass and "
                     f"k - 1 steps without the fc take {rebuilt:.6f} ms")
            return
