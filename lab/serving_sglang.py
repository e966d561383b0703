"""Today's SGLang as its code was read in December 2026: the ``sglang`` preset's costs (:data:`SGLANG_TODAY_COSTS`,
named in :data:`lab.serving_calibration.ENGINES`), where its draft-extend pass runs outside a CUDA graph
(:func:`eager_extend_here`), the tokens that pass runs over (:func:`extend_tokens`) and the serial per-request op of
its n-gram draft preparation (:data:`NGRAM_MASK_OPS`). Data and two small functions, apart from
:mod:`lab.serving_calibration` so that module stays under the thousand lines a lab module may have; it imports
nothing of the lab's.

Each place below was read in sgl-project/sglang through the code index (a file's id is the index's, its commit where
the index gave one); pull requests through their threads.
"""

__all__ = ["FIRST_DRAFT_FROM_EXTEND", "HOPPER_FA3_GPUS", "NGRAM_MASK_OPS", "SGLANG_TODAY_COSTS", "eager_extend_here",
           "extend_tokens"]

# The GPUs on which today's SGLang picks FlashAttention 3 by default for a chain, and so runs its draft-extend pass
# eagerly. python/sglang/srt/arg_groups/model_override_base.py, get_default_attn_backend (a late-2026 copy, id
# 57685658290): an MHA model gets 'fa3' when 'get_platform().is_hopper_with_cuda_12_3 and
# is_no_spec_infer_or_topk_one(...)' (topk 1 and page size 1: a chain), flashinfer or triton otherwise (a tree); an
# MLA model gets 'fa3' on Hopper whatever the topk. python/sglang/srt/speculative/eagle_worker_v2.py captures the
# draft-extend graph only when the extend backend is one of 'graph_supported_backend_types' (TritonAttnBackend,
# TRTLLMMLABackend, TRTLLMHAAttnBackend, TokenspeedMLABackend, FlashInferAttnBackend, with DSA, DeepSeek-V4 and FlashMLA
# on CUDA; ids 54500431553, 60260918368, 70177608579): FlashAttentionBackend is not among them, so the pass runs eagerly
# there. SGLang pull request 40762 (2026-09-22, open when read) says the same of the code it changes: 'chain-mode EAGLE
# (--speculative-eagle-topk 1) resolves to fa3 and silently loses the draft-extend graph; tree mode (topk > 1) falls
# back to flashinfer / triton, which are in the list, and keeps it'; pull request 36324 (2026-08-25, open when read)
# would capture it. Elsewhere (A100: flashinfer; Blackwell: trtllm_mha for a chain) the backend is in the list. What
# the eager pass costs beyond a captured one is the lab's assumption for every eager extend (a host-driven pass's fixed
# cost, passMs, instead of draftPassMs): no step time of it was found.
HOPPER_FA3_GPUS = ("h100-sxm", "h200")

# Eager ops a request that SGLang's n-gram draft preparation launches after it has synchronised on the previous verify
# step and before it launches this one (so none hides under the GPU), by the worker's version. Today's
# python/sglang/srt/speculative/ngram_worker.py (NGRAMWorker on BaseSpecWorker, after pull request 27799 of 2026-06-10;
# id 55288406377), _prepare_for_speculative_decoding with USE_FULL_MASK = True: after 'prev_token_ids.cpu()' and
# 'ngram_corpus.batch_get', 'for i in range(bs): ... full_mask_out[off : off + d * (s + d)].view(d, s + d)[:, s:] =
# qlen_mask[i]', one strided device copy a request (pull request 35207, 2026-08-17, hoisted the ones-fill above the
# sync, not these copies): 1. The V1 worker before it (ngram_worker.py at f3b0fcd573b6afafedc611cbb09f105bda5a723d,
# ScheduleBatch, NgramCache) built each request's mask with 'torch.ones((self.draft_token_num, seq_len - 1)).cuda()',
# 'torch.cat((req_mask, torch.from_numpy(mask[i]).cuda()), dim=1).to(torch.bool)': two host-to-device copies, a cat and
# a cast, 4. Each priced as one eager op (lab.serving_calibration.EAGER_OP_US); the Python views around them and the
# per-request token splice are not charged (under a microsecond or two each, not measured), nor is the trie's match
# beyond its measured price.
NGRAM_MASK_OPS = {"today": 1, "v1": 4}

# Every SGLang EAGLE worker since pull request 3468 ('[Eagle] reduce one draft forward', early 2025) takes a cycle's first
# draft token from the previous extend pass's logits (its top-k kept as the next draft input) and runs the draft model
# k - 1 times for the other k - 1: 'We don't need to run the last forward. we get 1 token from draft prefill and (#spec
# steps - 1) tokens here', 'if i == self.speculative_num_steps - 1: break' in draft_forward. Read in today's
# eagle_worker_v2.py (006b0e3d, EagleDraftWorker.draft_forward, and _draft_extend_for_decode: 'ret_topk_p,
# ret_topk_index = fast_topk(probs, self.topk, dim=-1)' into next_draft_input), in V1 eagle_worker.py copies (ids
# 25295752575, 55590200779) and in a mid-2025 V2 prototype ('if i == self.num_steps - 1', id 8396519673); the v0.4
# worker of the March 2025 rows comes after pull request 3468 by its number (between 2643, December 2024, and 4716,
# March 2025; its date not read). With one draft step (k = 1) no draft forward runs at all ('`draft_forward` only does
# sample in this case'). The lab keeps k draft steps in every cycle's sum and takes the one the extend pass replaces
# off the extend pass's share (lab.serving_step._extend_time), as it does for vLLM V1's first step.
FIRST_DRAFT_FROM_EXTEND = (
    "first draft token from the extend pass", "draft_forward: 'We don't need to run the last forward. we get 1 token "
    "from draft prefill and (#spec steps - 1) tokens here' (pull request 3468 on; lab.serving_sglang)")

SGLANG_TODAY_COSTS = (
    ("draft extend pass", "SGLang pull request 21895 (2026): 'Decode executes in the order Draft -> Verify -> "
     "DraftExtend'; pull request 35546 (2026): 'the model computes full-vocabulary logits for every draft row'"),
    ("its CUDA graph, not on Hopper for a chain", "SGLang pull request 6606 ('Support EAGLE draft extend CUDA graph', "
     "2025-05; 6705 for Triton, 6805 for FlashInfer); today's eagle_worker_v2.py captures it only for the backends in "
     "'graph_supported_backend_types', which FlashAttention 3, Hopper's default for a chain, is not (HOPPER_FA3_GPUS, "
     "lab.serving_sglang)"),
    ("the k draft steps in one CUDA graph", "python/sglang/srt/speculative/eagle_worker_v2.py (006b0e3d), "
     "EagleDraftWorker.draft: 'if can_cuda_graph: ... self.cuda_graph_runner.replay(forward_batch)', the "
     "EAGLEDraftCudaGraphRunner capturing draft_forward's whole loop (no host op between steps)"),
    ("overlap scheduler while speculating", "SGLang pull request 11398 ('Beta spec-overlap for EAGLE', "
     "SGLANG_ENABLE_SPEC_V2=1, 2025-10-09), pull request 25464 ('Deprecate Spec V1', 2026-05-16: EAGLE, EAGLE3, "
     "STANDALONE, MULTI_LAYER_EAGLE 'now always run the V2 worker'), pull request 27977 (2026-06-11: 'Every "
     "speculative algorithm now runs on the V2 workers' ... 'is_eagle() or is_standalone() or is_ngram() or "
     "is_dflash()') and pull request 27964 ('Retire Spec V1', 2026-06-11: the flag removed, overlap on unless "
     "--disable-overlap-schedule): "
     "no serial output processing, plain or speculative"),
    ("n-gram drafts with overlap, their preparation serial", "ngram_worker.py (id 55288406377): 'self.enable_overlap = "
     "not server_args.disable_overlap_schedule'; the draft is prepared after 'prev_token_ids.cpu()' on the previous "
     "verify's accept tensors, so the trie's match (SGL_NGRAM_REQUEST_US) and the per-request mask copy "
     "(NGRAM_MASK_OPS) run while the GPU waits; n-gram support for the overlap scheduler: pull request 17260 "
     "(2026-01-17)"),
    ("verify in one pass", "the target verifies with a prefill kernel and a tree mask, each KV cache read once"),
    ("detokenizing", "SGLang's DetokenizerManager runs in its own process"),
    FIRST_DRAFT_FROM_EXTEND,
)


def eager_extend_here(gpus: tuple, gpu: str, chain: bool, mla: bool) -> bool:
    """Whether an engine that captures its extend pass elsewhere runs it eagerly on ``gpu``: a GPU whose default
    attention backend for this case has no draft-extend graph (``gpus``, the engine's ``eagerExtendGpus``), for a
    chain (topk 1) or an MLA target (FlashAttention 3 on Hopper whatever the topk).

    >>> hopper = HOPPER_FA3_GPUS
    >>> eager_extend_here(hopper, "h100-sxm", True, False), eager_extend_here(hopper, "h100-sxm", False, False)
    (True, False)
    >>> eager_extend_here(hopper, "a100-80g", True, False), eager_extend_here(hopper, "h200", False, True)
    (False, True)
    """
    return gpu in gpus and (chain or mla)


def extend_tokens(n: int, k: int) -> int:
    """The tokens a sequence an extend pass runs over, ``min(n, k + 1)``: the ``k + 1`` a chain of lookahead ``k``
    verifies, for a tree of ``n > k + 1`` verified tokens too (SGLang's draft-extend CUDA graph runners,
    ``num_tokens_per_bs = self.speculative_num_steps + 1``: the accepted tokens and the bonus one, padded;
    docs/READING.md, "SGLang's speculative stage times, searched for"); ``n`` itself when ``n <= k + 1`` (a chain, or
    a tree verified at a k past its depth, priced as the chain it is).

    >>> extend_tokens(8, 3), extend_tokens(4, 3), extend_tokens(4, 6)
    (4, 4, 4)
    """
    return min(n, k + 1)
