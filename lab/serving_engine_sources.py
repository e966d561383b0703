"""Where each engine version's costs were read: the citation text of :data:`lab.serving_calibration.ENGINES`'
``costs`` (each switch with the place in that version's code or the measurement that prices it). Text only, kept
apart from the calibration so a reader can audit the sources in one place and the calibration module keeps its
numbers and logic."""

__all__ = ["V0_COSTS", "V1_SHARED", "TRT_MTP_BLOG", "TRTLLM_COSTS", "VLLM_DSV3_FUSION", "VLLM_GLM_FUSION",
           "VLLM_QWEN3_NEXT_SPLIT", "SGLANG_DSV3_FUSION"]

V0_COSTS = (
    ("batch expansion", "vllm/spec_decode/spec_decode_worker.py (V0, vllm-project/vllm at 00b974db, read through the "
     "code index), create_worker: 'Disabling MQA scorer as the target model is not running in eager mode', so with "
     "CUDA graphs, the default, the scorer is BatchExpansionTop1Scorer (vllm/spec_decode/batch_expansion.py); its "
     "scoring times: vLLM pull request 5691, comment of 2024-07-09, BatchExpansionTop1Scorer column"),
    ("its bookkeeping", "vLLM issue #6915: 'another 0.5-1ms spent in python processing' (0.75 ms)"),
    ("speculation bookkeeping", "vLLM issue #6915: proposals copied to the CPU '~1ms', prepare inputs '(300us)', "
     "'~1.3ms for MQA' end to end a cycle"),
    ("serial output processing", "vllm/config.py (V0), ModelConfig.verify_async_output_proc: 'if speculative_config: "
     "self.use_async_output_proc = False' ('Async output processing is not supported with speculative decoding "
     "currently'); the time: vLLM issue #6913"),
    ("per-token output work", "vllm/engine/output_processor/multi_step.py (V0), MultiStepOutputProcessor."
     "_process_seq_outputs: 'Incrementally append tokens to the sequence, as if we had only one new token'; the "
     "time: vLLM issue #5206"),
    ("draft CUDA graphs", "V0's TP1DraftModelRunner runs the draft's steps in captured graphs (supports_gpu_multi_step)"),
    ("a draft model on several GPUs", "vllm/config.py (V0), SpeculativeConfig._verify_and_get_draft_model_tensor_"
     "parallel_size: an unset speculative_draft_tensor_parallel_size takes the target's tensor_parallel_size (1 only "
     "for an mlp_speculator); vllm/spec_decode/spec_decode_worker.py, create_worker: TP1DraftModelRunner only 'if "
     "draft_tp == 1', else MultiStepWorker with the ordinary model runner; vllm/spec_decode/multi_step_worker.py, "
     "sampler_output: without TP1DraftModelRunner.supports_gpu_multi_step it runs 'multi-step directly, with every "
     "step prepared on the CPU' ('TODO: Remove this branch once DraftModelRunner supports TP>1'), one "
     "worker.execute_model a step, whose driver prepares the inputs and broadcasts them to the other ranks; the "
     "forward itself replays CUDA graphs (SpeculativeConfig.maybe_create_spec_config: the draft's ModelConfig takes "
     "'enforce_eager=target_model_config.enforce_eager') (read through the code index): each draft step priced as a "
     "host-driven pass (passMs) with the per-sequence work "
     "(sequenceUs); the broadcast itself was not found measured and is not charged"),
    ("n-gram proposal", "vllm/spec_decode/ngram_worker.py (V0), NGramWorker; its proposal time: vLLM pull request 9333 "
     "(NGRAM_V0_PROPOSAL_TOKEN_MS, per proposed token)"),
)
V1_SHARED = (
    ("verify in one pass", "vllm/v1/worker/gpu_model_runner.py: the drafts of every sequence are scheduled as extra "
     "tokens of that sequence (spec_decode_metadata) and scored in one forward pass, each KV cache read once; "
     "the EAGLE proposer (vllm/v1/spec_decode/eagle.py) runs its first step over the verified tokens, no extra pass"),
    ("no serial output processing", "the engine core runs in its own process (vllm/v1/engine/core.py) and the "
     "front end detokenizes: vllm/v1/engine/output_processor.py, OutputProcessor with an IncrementalDetokenizer per "
     "request, run by the API process's AsyncLLM (read at d0782260), overlapped with the next step, speculating or "
     "not (vLLM's V1 announcement, 2025-01-27: de-tokenization overlaps the core execution loop)"),
    ("first draft step over the verified tokens", "vllm/v1/spec_decode/eagle.py, EagleProposer.propose (a mid-2025 "
     "copy and later ones, read through the code index): the first forward runs over every token the verify step "
     "scheduled ('self.model(self.input_ids[:num_input_tokens], ...)' with num_tokens the target's), and only "
     "'sample_hidden_states = last_hidden_states[last_token_indices]' reach compute_logits, one row a sequence; the "
     "other k - 1 steps run over one token a sequence. Priced as its layers over the k + 1 verified tokens and its "
     "LM head over one (rejected tokens, which it drops, counted: an upper bound)"),
)
# NVIDIA/TensorRT-LLM's MTP blog, the source of the trtllm engine's one-model path (ENGINES["trtllm"]).
TRT_MTP_BLOG = ("NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog2_DeepSeek_R1_MTP_Implementation_and_Optimization.md "
                 "(at 000a01de), 'MTP implementation in TensorRT-LLM'")
# Where each engine version's MTP code builds the fusion whole on every GPU (Engine.mtpFusionWhole; lab.serving_mtp
# prices it): each read in that version's model file for that model.
VLLM_DSV3_FUSION = ("vllm/model_executor/models/deepseek_mtp.py, DeepSeekMultiTokenPredictorLayer: 'self.eh_proj = "
                     "nn.Linear(config.hidden_size * 2, config.hidden_size, bias=False)'")
VLLM_GLM_FUSION = ("vllm/model_executor/models/glm4_moe_mtp.py, Glm4MoeMultiTokenPredictorLayer: 'self.eh_proj = "
                    "nn.Linear(config.hidden_size * 2, config.hidden_size, bias=False)'")
VLLM_QWEN3_NEXT_SPLIT = ("qwen3_next_mtp.py's fusion is split, not charged: 'self.fc = ColumnParallelLinear(self.config."
                          "hidden_size * 2, self.config.hidden_size, gather_output=True, ...)'")
SGLANG_DSV3_FUSION = ("python/sglang/srt/models/deepseek_nextn.py, DeepseekModelNextN: 'self.eh_proj = nn.Linear(2 * "
                       "config.hidden_size, config.hidden_size, bias=False)'")

# TensorRT-LLM's one-model MTP path (ENGINES["trtllm"]), each switch with where it was read.
TRTLLM_COSTS = (
    ("verify in one pass", TRT_MTP_BLOG + ", 'Attention for MTP': 'for MTP, there will be K+1 input tokens' "
     "in the generation phase, 'a causal mask is enough' (a chain): each KV cache read once"),
    ("draft steps in the verify pass's CUDA graph", TRT_MTP_BLOG + ": 'Except for the Rewind KV Cache, all of "
     "those processes are inside the model engine forward function' and 'When enabling CUDA graph, both the "
     "verification and draft stages can be captured in one graph'; mtp.py, MTPEagleWorker.forward: "
     "sample_and_accept_draft_tokens, then 'for i in range(self.mtp_num_modules): hidden_states, logits = "
     "mtp_layers[0](...)' and draft_sampler (an argmax) on the GPU: no launch or host sampling a draft step "
     "(draftPassMs not charged), no eager ops between steps"),
    ("MTP fusion read whole (DeepSeek-V3)", "modeling_deepseekv3.py of the series (read through the code index, "
     "id 1539226111): 'self.eh_proj = Linear(config.hidden_size * 2, config.hidden_size, bias=False, "
     "dtype=config.torch_dtype, ...)' with no tensor-parallel mode (every GPU reads all of it), split by "
     "NVIDIA/TensorRT-LLM pull request 5689 (2025-07-02, 'eh_proj gemm sharding') after the blog "
     "(lab.serving_mtp); its MoE layer ('# MTP Layer Must have sparse MOE') is the checkpoint's and its "
     "logits' all-gather every engine's (lab.serving_mtp.LOGITS_GATHER)"),
    ("no extend pass, first step over one token", "mtp.py, MTPEagleWorker.prepare_drafter_inputs: for "
     "generation requests 'hidden_states_gen[gen_batch_idx, gen_token_idx, :]' with 'gen_token_idx = "
     "num_accepted_tokens[num_contexts:] - 1' and '_seq_lens[num_contexts:batch_size].fill_(1)': the first MTP "
     "step reads the last accepted token's hidden state alone, one token a sequence like the others"),
    ("overlap scheduler while speculating", "the blog's recipe (docs/source/blogs/Best_perf_practice_on_"
     "DeepSeek-R1_in_TensorRT-LLM.md, its first B200 min-latency recipe, TP 8 EP 4, MTP 3, 250 tokens/s, read "
     "through the code index, id 29446363329): 'pytorch_backend_config: enable_overlap_scheduler: true, "
     "use_cuda_graph: true'; the default from NVIDIA/TensorRT-LLM pull request 4174 (2025-05-09, 'Enabling "
     "scheduling overlap by default'); mtp.py returns 'next_new_tokens' ('prepare next new tokens to support "
     "overlap scheduler') so the next step is scheduled before MTPSampler.update_requests reads this one's "
     "tokens on the host: host work per step hidden, plain and speculative alike"),
    ("output processing", "MTPSampler.update_requests (add_new_token per accepted token, stop checks) runs on "
     "the host under the next step's forward (overlap scheduler): no serial term; detokenization is the LLM "
     "API's, outside the executor loop (not read for a cost)"),
    ("n-gram proposal", "TensorRT-LLM's n-gram drafter was not read: no proposal cost is charged (a lower "
     "bound), and a draft model runs as TensorRT-LLM's two-model path, not read either: priced as a captured "
     "draft pass (draftPassMs), outside the verify graph")
)
