"""Today's SGLang as its code was read in December 2026: the ``sglang`` preset's costs (:data:`SGLANG_TODAY_COSTS`,
named in :data:`lab.serving_calibration.ENGINES`), where its draft-extend pass runs outside a CUDA graph
(:func:`eager_extend_here`), the tokens that pass runs over (:func:`extend_tokens`) and the serial per-request op of
its n-gram draft preparation (:data:`NGRAM_MASK_OPS`); and its V1 EAGLE worker's eager ops a cycle, counted in its code
(:data:`V1_EAGER_OPS`, :data:`V1_CYCLE_OPS`, :data:`V1_STEP_OPS`, :func:`v1_cycle_ops`), which the 2025 presets pay. Data and two small functions, apart from
:mod:`lab.serving_calibration` so that module stays under the thousand lines a lab module may have; it imports
nothing of the lab's.

Each place below was read in sgl-project/sglang through the code index (a file's id is the index's, its commit where
the index gave one); pull requests through their threads.
"""

__all__ = ["FIRST_DRAFT_FROM_EXTEND", "HOPPER_FA3_GPUS", "NGRAM_MASK_OPS", "SGLANG_TODAY_COSTS", "V1_CYCLE_OPS",
           "V1_STEP_OPS", "V1_EAGER_OPS", "eager_extend_here", "extend_tokens", "v1_cycle_ops"]

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
    ("no serial eager ops a cycle", "the V2 worker's accept lengths reach the scheduler already on the CPU, copied "
     "asynchronously and resolved a step later (_resolve_spec_overlap_tokens: 'assert result.accept_lens.is_cpu', code "
     "index id 270618477; id 54602209525: 'instead of doing a synchronous GPU→CPU copy in the worker hot path'), so its "
     "launches queue behind the GPU's work: none of the V1 worker's V1_EAGER_OPS is charged"),
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


# The eager ops SGLang's V1 EAGLE worker (python/sglang/srt/speculative/eagle_worker.py, EAGLEWorker, the overlap
# scheduler off while speculating: every launch serial with the GPU) runs each cycle outside its CUDA graphs, counted
# by the rule of docs/READING.md ("SGLang's V1 EAGLE worker, its eager ops a cycle counted in its code"): one op is one
# kernel or copy launched outside a graph replay (a torch op on CUDA tensors that launches, a Triton or CUDA custom
# kernel, a host/device copy, .tolist()/.item() on a CUDA tensor); views, torch.empty, CPU tensors and pure Python are
# not counted; a sync is priced as its one op. The path counted: greedy verification, page size 1, no grammar, logprobs
# or penalties, no request finishing this cycle, FlashAttention 3's metadata (the Hopper default of 2025). The
# code index holds one V1 worker (eagle_worker.py at 00559eac, id 54801322191, 2026, before pull request 27964 retired
# V1), one eagle_info.py of late 2025 (0007d13b, id 38205286015: global_server_args_dict, before its removal) and
# 2025/2026 copies of the graph runners and backends named below; the ops counted in the 2026 worker are those whose
# code is also in the late-2025 eagle_info.py or graph runners, or were in the worker since the V1 EAGLE worker's
# first copies (assign_draft_cache_locs, seq_lens_sum's .item(), build_tree_kernel_efficient, the backups).
V1_EAGER_OPS = {
    # draft(): _draft_preprocess_decode: assign_draft_cache_locs[(num_seqs,)] (1), 'torch.sum(batch.seq_lens).item()'
    # (2), 'batch.seq_lens.repeat_interleave(self.topk, dim=0)' (1); EAGLEDraftCudaGraphRunner.replay (00023be5, id
    # 56372098303): seq_lens, out_cache_loc, positions, topk_p, topk_index, hidden_states and req_pool_indices copied into
    # the graph's buffers (7; seven fills more when the batch is padded to a captured size, not counted);
    # build_tree_kernel_efficient (eagle_utils.py at 003ddbce, id 70810451851): the torch.cat of the bonus and draft
    # tokens, the tree mask's torch.full, the retrieve buffer's torch.full and the tree kernel (4)
    "draft preparation": 15,
    # verify(): prepare_for_verify (eagle_info.py at 0007d13b): 'batch.seq_lens + self.draft_token_num' and
    # assign_req_to_token_pool (2); EagleVerifyInput.verify, greedy: accept_index's torch.full, torch.argmax,
    # verify_tree_greedy, 'accept_index.tolist()', 'predict.tolist()' (5), 'accept_index[accept_index != -1]' (a
    # compare, a boolean index counted as 2: 3), 'predict[accept_index]', torch.full_like for evict_mask, its index
    # put (3), 'token_to_kv_pool_allocator.free(batch.out_cache_loc[evict_mask])' (a boolean index, 2, and the free
    # list's torch.cat, 1: 3), 'batch.out_cache_loc[accept_index]', 'batch.seq_lens + accept_length + 1' (2),
    # assign_req_to_token_pool, 'batch.seq_lens.add_(accept_length + 1)' (2), 'hidden_states[accept_index]',
    # 'accept_length.tolist()' (8): 22; the worker's 'next_token_logits[res.accepted_indices]' and
    # 'hidden_states[res.accepted_indices]' (2). Sampling instead of greedy adds 10 (repeat_interleave, the temperature
    # division, softmax, top_k_renorm_prob, the top-p test and its sync, zeros, two rand, the sampling kernel for the
    # argmax and greedy kernel): not charged, the lab prices the greedy path
    "verify": 26,
    # forward_draft_extend_after_decode: 'batch.seq_lens.clone()' (1); prepare_extend_after_decode: 'accept_length.add_(1)'
    # and create_extend_after_decode_spec_info (2); ForwardBatch.init_new's extend branch (a late-2025 copy, id
    # 286988748): extend_seq_lens and extend_prefix_lens to the device and compute_position (3)
    "extend preparation": 6,
    # EAGLEDraftExtendCudaGraphRunner.replay (a late-2025 copy with DRAFT_EXTEND_V2, id 246663299): the padding fills
    # run whenever 'bs * self.num_tokens_per_bs != num_tokens', that is unless every request accepted all k drafts (5),
    # and the copies of input_ids, seq_lens, extend_seq_lens, out_cache_loc, positions, hidden_states, accept_length
    # and req_pool_indices (8); FlashAttention 3's draft-extend metadata (flashattention_backend.py, is_draft_extend,
    # ids 114469199, 22771095275): cache_seqlens' copy, two cumsums and their copies, the page table's gather, its
    # division and copy (8)
    "extend graph prologue": 21,
    # what a plain decode step runs that a speculative cycle does not, held by the measured plain step (passMs):
    # ScheduleBatch.prepare_for_decode returns early 'if self.spec_algorithm.is_eagle()' (id 106318879), skipping the
    # seq_lens clone and add_, the out_cache_loc cast and the req_to_token write (4); the sampler's greedy argmax (the
    # verify samples instead, 1); ForwardBatch.init_new's clamp_position (the verify's positions come with it, 1)
    "a plain step's own": -6,
}
# Once a draft step after the first: FlashAttentionMultiStepBackend.init_forward_metadata_replay_cuda_graph runs each of
# the k - 1 step backends' draft-decode metadata before the draft graph's replay (an early-2025 copy, id 846186427):
# '(seq_lens + (self.step_id + 1)).to(torch.int32)' into cache_seqlens (3), cumsum, pad and the copy into cu_seqlens_k
# (3), the page table's gather and copy (2): 8. FlashInfer's multi-step replay (A100's default, and a tree's) was not
# read: the same count is assumed there.
V1_STEP_OPS = 8
# Once a cycle, by whether the draft-extend pass is replayed from its CUDA graph (pull request 6606 on: its prologue's
# copies and metadata counted here) or run eagerly (before it: its launches are the eager pass's fixed cost, passMs).
V1_CYCLE_OPS = {
    "captured extend": sum(V1_EAGER_OPS.values()),
    "eager extend": sum(V1_EAGER_OPS.values()) - V1_EAGER_OPS["extend graph prologue"],
}


def v1_cycle_ops(steps: int, cycle_ops: int, step_ops: int) -> int:
    """The eager ops of one cycle of ``steps`` draft steps: ``cycle_ops + (steps - 1) step_ops`` (no steps, none).

    >>> v1_cycle_ops(3, V1_CYCLE_OPS["captured extend"], V1_STEP_OPS), v1_cycle_ops(3, V1_CYCLE_OPS["eager extend"], 8)
    (78, 57)
    >>> v1_cycle_ops(0, 62, 8)
    0
    """
    return 0 if steps <= 0 else cycle_ops + (steps - 1) * step_ops
