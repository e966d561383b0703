"""Published end-to-end speedups of speculative decoding, kept apart from the calibration.

:mod:`lab.serving_calibration` tunes the per-operator step model on measured step times only.
The rows here are what the whole model predicts, compared with what engines measured end to end:
each with its source, setting and the mean acceptance length it was measured at. The model is
given that acceptance length (as the flat per-token acceptance that yields it at the row's
lookahead, :func:`alpha_for_length`) and nothing else from the row.

The page draws :func:`comparison` as its predicted-against-measured figure and table; the error
summary is computed, not written (:func:`summary`). Standard library only; data as literals.

>>> rows = comparison()
>>> len(rows) == len(VALIDATION) and all(row["predicted"] > 0 for row in rows)
True
"""

import math
from typing import NamedTuple

from . import serving
from .stats import median
from .traces import alpha_iid

__all__ = ["ValidationPoint", "VALIDATION", "alpha_for_length", "predict", "comparison", "summary", "source_key",
           "leave_one_source_out", "step_measurement_ms", "fit_calibration", "held_out_steps",
           "moe_steps", "fit_moe_layer_us", "moe_kernels_of", "fit_eagle3_proposal_ms", "summary_by_engine",
           "CrossoverBracket", "CROSSOVER_BRACKETS", "crossover_comparison", "first_loss",
           "bracket_settings", "search_limit",
           "smallest_batch_speedups"]


class ValidationPoint(NamedTuple):
    """One measured end-to-end speedup: ``measured`` for ``target`` drafted by ``draft`` on
    ``gpus`` x ``gpu`` at ``batch`` sequences, lookahead ``lookahead``, mean acceptance length
    ``acceptanceLength`` (tokens per verifier call) and about ``context`` tokens of context, on
    ``engine`` (:data:`lab.serving_calibration.ENGINES`), the target's weights in ``precision``, the
    draft's in ``draftPrecision`` where the source says it ran in another ("": the target's), and the verify
    pass scoring a tree of ``treeTokens`` tokens a sequence, the root included, where the source drafted a tree
    (0: a chain's ``lookahead + 1``, :func:`lab.serving.verify_tokens`)."""

    label: str
    gpu: str
    target: str
    draft: str
    gpus: int
    batch: int
    lookahead: int
    acceptanceLength: float
    context: int
    measured: float
    source: str
    note: str
    engine: str = serving.DEFAULT_ENGINE
    precision: str = "bf16"
    draftPrecision: str = ""
    treeTokens: int = 0


_FRSPEC = ("vLLM pull request 24343 (github.com/vllm-project/vllm/pull/24343), comment of 2025-09-14: 'run on an A100 "
           "with 40GB memory', Llama-3.1-8B-Instruct, EAGLE head with a frequency-ranked draft vocabulary (fr-spec), "
           "MT-Bench, batch size 1; 'fr-spec is 32.11% faster than vanilla' at 1 token, 108.45 tokens/s; 48.32 tokens/s "
           "at 32")
_EAGLE_V1 = ("vLLM pull request 16035 (github.com/vllm-project/vllm/pull/16035), comment of 2025-04-09: Llama-3-8B-"
             "Instruct with lmsys/sglang-EAGLE-LLaMA3-Instruct-8B on MT-Bench, max_num_seqs 1: vanilla 128.64 "
             "output tokens/s; k=2 175.49 (acceptance length 1.89), k=4 165.65 (2.08)")

_ISSUE20780 = ("vLLM issue #20780 (github.com/vllm-project/vllm/issues/20780), 2025-07-10: Llama-3.1-8B, batch 1, "
               "mean acceptance length and TPOT for EAGLE-1 and EAGLE-3 at K = 2 to 7, vanilla TPOT 7.07 ms; "
               "measured = 7.07 / TPOT")
_E1 = ((2, 2.10, 4.37), (3, 2.29, 4.29), (4, 2.39, 4.48), (5, 2.43, 4.71), (6, 2.45, 4.94), (7, 2.47, 5.20))
_E3 = ((2, 2.36, 4.32), (3, 2.79, 4.09), (4, 3.08, 4.05), (5, 3.32, 4.13), (6, 3.46, 4.20), (7, 3.54, 4.29))
_GPU_NOTE = "the issue names no GPU: one H100 assumed (its author's other runs are on H100, vanilla 7.07 ms a token)"

# The batch-one rows ran on vLLM V1 between April and September 2025 (0.8 to 0.10): speculative decoding then ran
# with synchronous scheduling (asynchronous scheduling joined it in vLLM pull request 24799, September 2025, and became
# its default in 0.14.0), so each row runs with the engine setting of those versions, "vllm-v1-0.10".
_SYNC_V1 = "vllm-v1-0.10"

# Rows past batch one. SGLang's MTP for DeepSeek-V3 of July 2025: the draft-extend pass in a CUDA graph (SGLang pull
# request 6606, May 2025) and the overlap scheduler off while speculating (the blog: "The current MTP implementation
# does not yet support overlap scheduling"), so each row runs with the engine setting of that time, "sglang-no-overlap".
_MTP_BLOG = ("LMSYS blog 'Accelerating SGLang with Multiple Token Prediction' (Eigen AI Team, 2025-07-17; "
             "github.com/lm-sys/lm-sys.github.io, blog/2025-07-17-mtp.md at 0947bdc0), Case Study 1: DeepSeek V3 on "
             "'two decoding nodes across a total of 16 H200 GPUs, running 2 concurrent requests per rank with input "
             "sequence length of 65,536 tokens and output sequence length of 4,096 tokens'; per rank 51.0 tokens/s with "
             "neither overlap scheduling nor MTP, 60.4 with overlap scheduling alone, 81.5 with 'a 3-token MTP window "
             "and topk=1' ('average acceptance length of 2.18 tokens') and 82.0 with a 4-token window (2.44)")
_MTP_NOTE = ("measured = MTP / 60.4, the overlapped plain rate: the model's plain step is SGLang's default, overlap on "
             "(against the blog's baseline with overlap off it is MTP / 51.0). Assumed: one decode node of 8 H200s "
             "priced as tensor parallel 8 at batch 16 (2 a rank x 8 ranks; the blog runs DP attention and expert "
             "parallelism with prefill on other nodes), FP8 weights (DeepSeek-V3's released ones), the context the "
             "middle of the 65,536 + 4,096 tokens, and an n-token window read as n - 1 drafted tokens (SGLang's "
             "num_draft_tokens counts the verified root of a topk 1 chain, as the blog's 'draft_token_num = 2' at "
             "'step size = 1' does)")

# SGLang past batch one, December 2025: Qwen3-30B-A3B drafted by EAGLE-3 heads, timed with and without speculation by
# SpecForge's benchmarks/bench_eagle3.py (the prompt set run with num_threads = batch size against a server launched
# with --max-running-requests and --cuda-graph-max-bs equal to it; output tokens over the run's wall time; the
# acceptance length as output tokens over verify passes, spec_verify_ct). Both runs are dated before SGLang pull
# request 25464 (2026-05-16) and show no SGLANG_ENABLE_SPEC_V2, and most are trees (topk > 1), which only the V1
# worker ran then: the overlap scheduler was off while speculating, so each row runs on "sglang-no-overlap". Chosen
# by the rules in docs/READING.md ("SGLang's end-to-end speedups past batch one, searched for again") before any of
# their predictions was computed. (batch, steps, topk, num_draft_tokens, throughput, acceptance length), as printed.
_SGL_Q3_SPECFORGE = ("sgl-project/SpecForge issue #339 (github.com/sgl-project/SpecForge/issues/339, 'Throughput "
                     "degradation on Qwen3-30B-A3B with EAGLE3', 2025-12-01): Qwen/Qwen3-30B-A3B on 'H100*2', "
                     "bench_eagle3.py --tp-size 2 --benchmark-list mtbench:20 --dtype bfloat16, draft "
                     "zhuyksir/EAGLE3-Qwen3-30B-A3B-DenseHead; 'The base model speed' bs 1: 222.47, bs 4: 566.21 "
                     "(8: 733.61, 16: 1012.96, 32: 1077.55, 64: 1073.69); EAGLE3 'bs | steps | topk | num_draft | "
                     "throughput | acc len': 1|3|1|4|159.78|1.86, 1|3|3|8|172.99|2.20, 1|3|3|4|207.62|1.99, "
                     "1|7|4|16|191.90|2.52, 1|6|4|12|171.54|2.42, 1|8|8|60|177.5|3.2, 4|3|1|4|447.90|1.86, "
                     "4|3|3|8|426.46|2.27")
_SGL_Q3_SPECFORGE_PLAIN = {1: 222.47, 4: 566.21}
_SGL_Q3_SPECFORGE_POINTS = ((1, 3, 1, 4, 159.78, 1.86), (1, 3, 3, 8, 172.99, 2.20), (1, 3, 3, 4, 207.62, 1.99),
                            (1, 7, 4, 16, 191.90, 2.52), (1, 6, 4, 12, 171.54, 2.42), (1, 8, 8, 60, 177.5, 3.2),
                            (4, 3, 1, 4, 447.90, 1.86), (4, 3, 3, 8, 426.46, 2.27))
_SGL_Q3_ANGELSLIM = ("Tencent/AngelSlim issue #163 (github.com/Tencent/AngelSlim/issues/163, 'How to repreduce the "
                     "reported results of Qwen3-30B-A3B with EAGLE3?', 2025-12-08, by the author of SpecForge issue "
                     "#339): Qwen3-30B-A3B with AngelSlim's EAGLE-3 weight, 'GPU: H100*4', 'Temperature = 0', 'Code: "
                     "SGLang(SpecForge)'; 'tp | ep | batch_size | steps | topk | num_draft_tokens | latency | "
                     "throughput | accept_length': plain (steps 0) at tp 4, ep 1: bs 1: 795.87 s, 218.89; bs 4: "
                     "507.49; bs 8: 677.14; bs 32: 1128.30; bs 64: 1237.84; EAGLE3: 1|3|3|4: 170.35, 2.017; "
                     "1|3|2|8: 185.28, 2.216; 1|4|4|16: 185.64, 2.542; 1|7|10|64: 193.31, 3.034; 4|4|4|16: 476.37, "
                     "2.556; 8|4|4|16: 673.14, 2.578; 32|4|4|16: 927.11, 2.560; 64|4|4|16: 1307.95, 2.553")
_SGL_Q3_ANGELSLIM_PLAIN = {1: 218.89, 4: 507.49, 8: 677.14, 32: 1128.30, 64: 1237.84}
_SGL_Q3_ANGELSLIM_POINTS = ((1, 3, 3, 4, 170.35, 2.017), (1, 3, 2, 8, 185.28, 2.216), (1, 4, 4, 16, 185.64, 2.542),
                            (1, 7, 10, 64, 193.31, 3.034), (4, 4, 4, 16, 476.37, 2.556), (8, 4, 4, 16, 673.14, 2.578),
                            (32, 4, 4, 16, 927.11, 2.560), (64, 4, 4, 16, 1307.95, 2.553))
_SGL_Q3_NOTE = ("measured = EAGLE-3 throughput / plain throughput at the same batch (the same script, prompt set, model "
                "and GPUs); batch = the client's threads, the server's running-request cap (the last wave of "
                "requests drains below it, in both runs). Assumed: H100 SXM; BF16 weights; a context of 1,200 "
                "tokens (MT-Bench's two turns answered by Qwen3 with its thinking on, about 1,090 output tokens an "
                "answer; the AngelSlim issue does not name its prompt set); a tree (topk > 1) scored as its "
                "num_draft_tokens (treeTokens) with each draft step priced at one token a sequence; the EAGLE-3 head "
                "priced at the target's width (lab.serving.eagle3_head); plain tensor parallelism (ep 1)")
_SGL_NO_OVERLAP = "sglang-no-overlap"
# The two runs: (GPUs, source, plain throughput by batch, speculative points).
_SGL_Q3_RUNS = ((2, _SGL_Q3_SPECFORGE, _SGL_Q3_SPECFORGE_PLAIN, _SGL_Q3_SPECFORGE_POINTS),
                (4, _SGL_Q3_ANGELSLIM, _SGL_Q3_ANGELSLIM_PLAIN, _SGL_Q3_ANGELSLIM_POINTS))

# Today's vLLM V1 past batch one, on Blackwell: vllm-project/speculators' throughput-vs-interactivity sweep of
# Qwen3.8-27B (2026-10-06), closed loop at N = 1 to 128 requests in flight, each point's acceptance length read
# from the server's counters beside it. Quoted per point from the committed CSVs (mean_itl_ms, acceptance_length;
# one run a point): (subset, N, plain mean ITL ms, MTP mean ITL ms, MTP acceptance length).
_QWEN38_SWEEP = ("vllm-project/speculators, examples/evaluate/results/qwen3_8_27b_dspark/ (baseline_<subset>.csv at "
                 "01d6d4d4, mtp_<subset>.csv at 8685273f; the tutorial docs/user_guide/tutorials/"
                 "throughput_interactivity.md): Qwen/Qwen3.8-27B alone and with its own MTP layer "
                 "('--speculative-config {\"method\":\"mtp\",\"num_speculative_tokens\":2}', serve_mtp_command.txt), "
                 "one B200 per server (TP 1), vLLM 0.30.1rc1.dev418+g50319916a nightly, GuideLLM closed loop with N "
                 "requests in flight, RedHatAI/speculator_benchmarks HumanEval and math_reasoning through "
                 "/v1/chat/completions, max_tokens 1024, measured 2026-10-06; mean inter-token latency "
                 "(last token - first token) / (output tokens - 1) and the acceptance length over the run, per point")
_QWEN38_POINTS = (
    ("HumanEval", 1, 10.86, 5.40, 2.25), ("HumanEval", 2, 11.25, 5.40, 2.27), ("HumanEval", 4, 11.50, 5.67, 2.28),
    ("HumanEval", 8, 11.85, 6.12, 2.29), ("HumanEval", 16, 12.72, 6.91, 2.26), ("HumanEval", 32, 14.19, 8.39, 2.27),
    ("HumanEval", 64, 17.32, 12.05, 2.28), ("HumanEval", 128, 23.62, 20.25, 2.27),
    ("math_reasoning", 1, 10.82, 4.84, 2.51), ("math_reasoning", 2, 11.22, 4.86, 2.51),
    ("math_reasoning", 4, 11.51, 5.17, 2.53), ("math_reasoning", 8, 12.01, 5.73, 2.52),
    ("math_reasoning", 16, 13.12, 6.62, 2.53), ("math_reasoning", 32, 14.93, 8.18, 2.53),
    ("math_reasoning", 64, 18.35, 11.82, 2.53), ("math_reasoning", 128, 25.28, 19.88, 2.54),
)
# The context a decode step reads, on average over a request's life: its prompt plus half its output (the CSVs'
# mean_prompt_tokens and mean_output_tokens, MTP and plain runs alike: HumanEval about 190 + 760 / 2, math_reasoning
# about 112 + 280 / 2).
_QWEN38_CONTEXT = {"HumanEval": 570, "math_reasoning": 250}
_QWEN38_NOTE = ("measured = plain mean ITL / MTP mean ITL at the same N (the per-user gain; TTFT and queueing are in "
                "neither); batch = N (no point queued inside the server: the sweep's validate reports warn of none "
                "past N = 1). Assumed: the context the prompt plus half the output; BF16 weights (no quantization in "
                "either serve command); the MTP layer priced as one softmax-attention decoder layer of the target's "
                "width with a 2h->h fusion and the target's LM head (lab.serving.eagle_head); the engine today's V1 "
                "(asynchronous scheduling, default with MTP since 0.14.0). Steps that carry another request's prefill "
                "chunk are in both runs' ITL; the MTP run finishes requests sooner, so more of its steps carry one "
                "(its measured gain is a little low)")

# TensorRT-LLM's one-model MTP on Blackwell at batch one: NVIDIA's DeepSeek-R1 min-latency blog, its table
# 'Autoregressive MTP Layers' (MTP Eagle: the checkpoint's one MTP layer run k times), each row against the same
# table's 'Without MTP' 111 TPS/User. The table's 'Acceptance Rate' column counts tokens a step (1.00 without MTP): the
# mean acceptance length. (k, acceptance length, TPS/User), as printed.
_TRT_MTP_TABLE = ("NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog1_Pushing_Latency_Boundaries_Optimizing_"
                  "DeepSeek-R1_Performance_on_NVIDIA_B200_GPUs.md (at 5685103; read again at 01c4ece9), table "
                  "'Autoregressive MTP Layers': DeepSeek-R1 on 8 x B200, ISL 1k, OSL 2k, one user; 'Without MTP' "
                  "1.00, 111 TPS/User; MTP 1 to 5: acceptance 1.92, 2.58, 2.82, 2.99, 3.01 and 198, 250, 253, 245, 239 "
                  "TPS/User")
_TRT_MTP_POINTS = ((1, 1.92, 198), (2, 2.58, 250), (3, 2.82, 253), (4, 2.99, 245), (5, 3.01, 239))
_TRT_MTP_NOTE = ("measured = TPS/User with MTP / 111 (the table's own speedup column rounds the same ratios); batch one "
                 "(the blog's min-latency scenario: concurrency 1, max_batch_size 1); the context the 1k prompt plus "
                 "half the 2k output. The blog's 'Precision Strategy' table ('64x Attention Modules | bf16*', '3x "
                 "Dense FFN Layers | nvfp4**', '58x MoE FFN Layers | nvfp4', '3x MTP Layers | bf16', 'RouterGEMM*** "
                 "| bf16'): the MTP layer priced in BF16 (draftPrecision, a stated fact of the run), the target in "
                 "FP4 throughout (the preset's one precision: its attention and router in BF16 left out, so the "
                 "target's steps are a little fast); TP 8 for every layer (the "
                 "sparse experts ran TP 4 x EP 2 or EP 4: the model prices no expert parallelism); the engine "
                 "TensorRT-LLM's one-model MTP with the overlap scheduler and CUDA graphs on (the blog's recipe), "
                 "serving_calibration.ENGINES['trtllm']; the MTP layer priced as DeepSeek-V3's MTP module (one MoE "
                 "decoder layer with its routed experts and their kernels, the 2h -> h fusion, the target's LM head) "
                 "with what TensorRT-LLM's code runs beyond it each step (lab.serving_mtp: its fusion unsplit, its "
                 "logits gathered). Relaxed "
                 "acceptance off (its own later table)")

# SGLang before its draft-extend CUDA graph (pull request 6606, May 2025), at batch one on eight H100s: the EAGLE-3 fix
# for Llama-3.3-70B of March 2025, timed with and without speculation by the same MT-bench script
# (benchmark/mtbench/bench_sglang_eagle.py: both turns' output tokens over the wall time; the acceptance length as
# completion tokens over verify passes). Chosen before the model's prediction for it was seen.
_SGL_EAGLE3_70B = ("SGLang pull request 4716 (github.com/sgl-project/sglang/pull/4716, 'Fix EAGLE3 for llama3.3 70b'), "
                   "comment of 2025-03-24: 'Tested meta-llama/Llama-3.3-70B-Instruct on H100 TP8', --speculative-algo "
                   "EAGLE3 --speculative-draft EAGLE3-LLaMA3.3-Instruct-70B --speculative-num-steps 8 "
                   "--speculative-eagle-topk 8 --speculative-num-draft-tokens 64 --cuda-graph-max-bs 1 --dtype "
                   "float16 --tp 8; 'w/o spec: #questions: 80, Throughput: 88.61 token/s, Acceptance length: 1.00'; "
                   "'EAGLE3: #questions: 80, Throughput: 234.54 token/s, Acceptance length: 5.88'")
_SGL_EAGLE3_70B_NOTE = ("measured = 234.54 / 88.61 (MT-bench's 80 questions, two turns each). Assumed: one request at "
                        "a time (the script's --parallel is not shown; 88.61 token/s is one 70B sequence's rate on "
                        "eight H100s, and the server captured CUDA graphs for batch 1 only), H100 SXM, FP16 priced as "
                        "BF16 (two bytes a weight), the plain run launched like the speculative one without its "
                        "speculative flags, about 600 tokens of context (a system prompt, two turns and their "
                        "answers), the engine SGLang of March 2025 (sglang-eager-extend: overlap off while "
                        "speculating, the draft extend pass outside a CUDA graph). A tree: 8 draft steps of top-8 "
                        "candidates and 64 tokens verified a sequence (treeTokens, the root included), its 5.88 "
                        "tokens a verify pass given as a chain of 8 drafts; each draft step priced at one token a "
                        "sequence where SGLang runs its top 8 (at batch one the step reads the same weights); the "
                        "EAGLE-3 head priced at the target's width as vLLM builds it (lab.serving.eagle3_head; this "
                        "checkpoint's fc maps to a smaller hidden size, so the head is priced a little heavy). Both "
                        "runs' throughput includes both turns' prefills")

VALIDATION = (
    ValidationPoint("fr-spec EAGLE, k = 1", "a100-40g", "llama-3-8b", serving.EAGLE, 1, 1, 1, 1.63, 600, 1.3211,
                    _FRSPEC, "its draft head scores a quarter of the vocabulary; the model charges the full LM head", _SYNC_V1),
    ValidationPoint("fr-spec EAGLE, k = 32", "a100-40g", "llama-3-8b", serving.EAGLE, 1, 1, 32, 2.18, 600,
                    48.32 / (108.45 / 1.3211), _FRSPEC,
                    "measured = 48.32 / vanilla, vanilla = 108.45 / 1.3211 tokens/s", _SYNC_V1),
    ValidationPoint("EAGLE, k = 2", "h100-sxm", "llama-3-8b", serving.EAGLE, 1, 1, 2, 1.89, 600, 175.49 / 128.64,
                    _EAGLE_V1, "the comment names no GPU: one H100 assumed from the vanilla rate (7.8 ms a token)", _SYNC_V1),
    ValidationPoint("EAGLE, k = 4", "h100-sxm", "llama-3-8b", serving.EAGLE, 1, 1, 4, 2.08, 600, 165.65 / 128.64,
                    _EAGLE_V1, "the comment names no GPU: one H100 assumed from the vanilla rate (7.8 ms a token)", _SYNC_V1),
    *(ValidationPoint(f"EAGLE-1, k = {k}", "h100-sxm", "llama-3-8b", serving.EAGLE, 1, 1, k, length, 600,
                      7.07 / tpot, _ISSUE20780, _GPU_NOTE, _SYNC_V1) for k, length, tpot in _E1),
    *(ValidationPoint(f"EAGLE-3, k = {k}", "h100-sxm", "llama-3-8b", serving.EAGLE3, 1, 1, k, length, 600,
                      7.07 / tpot, _ISSUE20780, _GPU_NOTE + "; EAGLE-3's head priced as vLLM's llama_eagle3.py "
                      "builds it (lab.serving.eagle3_head: 2h-input q, k, v, a 3h->h fc, a 32k-token LM head)",
                      _SYNC_V1) for k, length, tpot in _E3),
    ValidationPoint("DeepSeek-V3 MTP, k = 2", "h200", "deepseek-v3", serving.EAGLE, 8, 16, 2, 2.18, 67584, 81.5 / 60.4,
                    _MTP_BLOG, _MTP_NOTE, "sglang-no-overlap", "fp8"),
    ValidationPoint("DeepSeek-V3 MTP, k = 3", "h200", "deepseek-v3", serving.EAGLE, 8, 16, 3, 2.44, 67584, 82.0 / 60.4,
                    _MTP_BLOG, _MTP_NOTE, "sglang-no-overlap", "fp8"),
    *(ValidationPoint(f"Qwen3-30B-A3B EAGLE-3 on SGLang, TP {gpus}, B = {b}, {k}/{topk}/{ndt}", "h100-sxm",
                      "qwen3-30b-a3b", serving.EAGLE3, gpus, b, k, length, 1200, tps / plain[b], source, _SGL_Q3_NOTE,
                      _SGL_NO_OVERLAP, treeTokens=ndt if topk > 1 else 0)
      for gpus, source, plain, points in _SGL_Q3_RUNS for b, k, topk, ndt, tps, length in points),
    *(ValidationPoint(f"Qwen3.8-27B MTP, {subset}, N = {n}", "b200", "qwen3.8-27b", serving.EAGLE, 1, n, 2, length,
                      _QWEN38_CONTEXT[subset], plain / mtp, _QWEN38_SWEEP, _QWEN38_NOTE, "vllm-v1")
      for subset, n, plain, mtp, length in _QWEN38_POINTS),
    *(ValidationPoint(f"DeepSeek-R1 MTP on TensorRT-LLM, k = {k}", "b200", "deepseek-v3", serving.EAGLE, 8, 1, k,
                      length, 1024 + 2048 // 2, tps / 111, _TRT_MTP_TABLE, _TRT_MTP_NOTE, "trtllm", "fp4", "bf16")
      for k, length, tps in _TRT_MTP_POINTS),
    ValidationPoint("Llama-3.3-70B EAGLE-3 tree on SGLang, k = 8", "h100-sxm", "llama-3-70b", serving.EAGLE3, 8, 1,
                    8, 5.88, 600, 234.54 / 88.61, _SGL_EAGLE3_70B, _SGL_EAGLE3_70B_NOTE, "sglang-eager-extend",
                    treeTokens=64),
)


def step_measurement_ms(m, calibration=None, engine=None) -> float:
    """What the model gives for one measured step (:data:`lab.serving_calibration.STEP_MEASUREMENTS`),
    timed as the measurement was (:data:`lab.serving_calibration.KINDS`) on its engine (or ``engine`` in its place, a
    refit of an engine constant), with the GPU's calibration or ``calibration`` in its place (a refit,
    :func:`fit_calibration`).

    >>> from lab.serving_calibration import STEP_MEASUREMENTS
    >>> m = STEP_MEASUREMENTS[0]
    >>> abs(step_measurement_ms(m) / m.ms - 1) <= m.tolerance
    True
    """
    from .serving_calibration import CALIBRATIONS, ENGINES
    cal = CALIBRATIONS[m.gpu] if calibration is None else calibration
    if engine is None:
        engine = ENGINES[m.engine] if m.engine else ENGINES[serving.DEFAULT_ENGINE]._replace(stepHostMs=0.0)
    target = serving.TARGETS[m.target]

    def step(shape, role, costs=engine):
        return serving._measured_constants(shape, m.gpu, m.precision, m.gpus, cal, role, costs)
    if m.kind == "pass":
        return serving._time(step(target, "target"), m.batch, m.newTokens, m.context)
    if m.kind == "verify":
        return serving._time(step(target, "verify"), m.batch, m.newTokens, m.context)
    if m.kind == "scoring":  # the verify pass in the engine's layout, none of the cycle's other host work and not the
        # rejection sampler: V0 times it apart, as verification_time_ms (lab.serving_v0_stages)
        scorer = engine._replace(specCycleMs=0.0, serialOutput=False, tokenOutput=False, stepHostMs=0.0)
        return serving._time(serving._measured_constants(target, m.gpu, m.precision, m.gpus, cal._replace(rejectUs=0.0),
                                                         "verify", scorer), m.batch, m.newTokens, m.context)
    if m.kind == "proposal":  # the cycle's own draft cost (lab.serving_step._cycle_ms): its k steps and beyond them
        settings = serving.DEFAULT_SETTINGS.with_(
            stepModel=serving.MEASURED, target=m.target, draft=m.draft or serving.EAGLE, gpu=m.gpu, precision=m.precision,
            gpus=m.gpus, lookahead=m.newTokens - 1, treeTokens=0, engine=m.engine, batch=m.batch, context=m.context)
        head = step(serving.draft_shape(settings), "draft")
        return ((m.newTokens - 1) * serving._time(head, m.batch, 1, m.context)
                + serving._extend_time(settings, head, m.batch, m.newTokens, m.context, m.newTokens - 1))
    if m.kind == "cycle":  # the whole speculative step, composed as every search composes it (serving._cycle_ms)
        from .serving_step import _measured_step
        settings = serving.DEFAULT_SETTINGS.with_(
            stepModel=serving.MEASURED, target=m.target, draft=m.draft or serving.EAGLE, gpu=m.gpu, precision=m.precision,
            gpus=m.gpus, lookahead=m.newTokens - 1, treeTokens=0, engine=m.engine, batch=m.batch, context=m.context)
        shape = serving.draft_shape(settings)
        head = None if shape is None else _measured_step(shape, settings, "draft", cal, engine)
        return serving._cycle_ms(settings, m.newTokens - 1, head, _measured_step(target, settings, "verify", cal, engine),
                                 m.batch, m.newTokens, m.context, 1.0)
    raise ValueError(f"unknown step measurement kind {m.kind!r}")


FITTED = ("memEfficiency", "flopEfficiency", "overlap", "passMs")  # what a GPU family's calibration fits


def fit_calibration(start, measurements, names=FITTED, rounds: int = 6):
    """The calibration that minimises the sum of squared log ratios, model over measured, over
    ``measurements`` (kinds "pass", "verify" and "scoring"; a "proposal" depends on an assumed
    lookahead and only checks), starting from ``start`` and moving each of ``names`` in turn over a
    shrinking grid (coordinate descent: ``rounds`` passes, each step a tenth of the last). How the
    calibrations of :mod:`lab.serving_calibration` were found; the leave-one-source-out column of
    the validation reruns it without one source (:func:`leave_one_source_out`).

    >>> from lab.serving_calibration import CALIBRATIONS, STEP_MEASUREMENTS
    >>> rows = [m for m in STEP_MEASUREMENTS if m.gpu == "a100-80g"]
    >>> fitted = fit_calibration(CALIBRATIONS["a100-80g"], rows, rounds=1)
    >>> _loss(fitted, rows) <= _loss(CALIBRATIONS["a100-80g"], rows)
    True
    """
    rows = [m for m in measurements if m.kind != "proposal"]
    best, best_loss = start, _loss(start, rows)
    for round_ in range(rounds):
        for name in names:
            value = getattr(best, name)
            step = max(abs(value), 0.05) * 0.5 ** (round_ + 1)
            for candidate in (value + i * step / 4 for i in range(-4, 5)):
                if candidate <= 0 or (name != "passMs" and candidate > 1):
                    continue
                trial = best._replace(**{name: round(candidate, 4)})
                loss = _loss(trial, rows)
                if loss < best_loss:
                    best, best_loss = trial, loss
    return best


def _loss(calibration, rows) -> float:
    """Sum of squared log ratios of model to measurement over ``rows``."""
    import math
    return sum(math.log(step_measurement_ms(m, calibration) / m.ms) ** 2 for m in rows)


def moe_kernels_of(m) -> str:
    """The MoE kernel stack a measured step ran on: its engine's (``Engine.moeKernels``), the default engine's for a row
    timed as the GPU pass alone (engine "", as :func:`step_measurement_ms` times it).

    >>> from lab.serving_calibration import MOE_STEP_MEASUREMENTS
    >>> sorted({moe_kernels_of(m) for m in MOE_STEP_MEASUREMENTS})
    ['triton', 'trtllm']
    """
    from .serving_calibration import ENGINES
    return ENGINES[m.engine or serving.DEFAULT_ENGINE].moeKernels


def fit_moe_layer_us(calibration, rows, low: float = 0.0, high: float = 1000.0) -> float:
    """The per-MoE-layer fixed cost (us) of the rows' MoE kernel stack (:func:`moe_kernels_of`: they must share one)
    that minimises the sum of squared log ratios, model over measured, over ``rows`` with every other constant of
    ``calibration`` held: a one-dimensional ternary search over ``[low, high]`` (the loss is unimodal in it: each row's
    model is affine in it), to 0.1 us. How :data:`lab.serving_moe.MOE_LAYER_US` was found, each stack and GPU family on
    its own rows of :data:`lab.serving_calibration.MOE_STEP_MEASUREMENTS` only.

    >>> from lab.serving_calibration import CALIBRATIONS, MOE_STEP_MEASUREMENTS
    >>> rows = [m for m in MOE_STEP_MEASUREMENTS if m.gpu == "h200"]
    >>> round(fit_moe_layer_us(CALIBRATIONS["h200"], rows))
    182
    >>> fit_moe_layer_us(CALIBRATIONS["h200"], MOE_STEP_MEASUREMENTS)
    Traceback (most recent call last):
    ...
    ValueError: the rows run on more than one MoE kernel stack (triton, trtllm); fit one stack's rows at a time
    """
    from .serving_moe import with_moe_layer_us
    stacks = sorted({moe_kernels_of(m) for m in rows})
    if len(stacks) != 1:
        raise ValueError(f"the rows run on more than one MoE kernel stack ({', '.join(stacks) or 'no rows'}); "
                         "fit one stack's rows at a time")
    return round(_ternary_minimum(lambda us: _loss(with_moe_layer_us(calibration, stacks[0], us), rows), low, high,
                                  0.05), 1)


def _ternary_minimum(loss, low: float, high: float, width: float) -> float:
    """Where a unimodal ``loss`` is least in ``[low, high]``: a ternary search until the bracket is ``width`` wide,
    its middle (one constant fitted with every other held, as :func:`fit_moe_layer_us` and
    :func:`fit_eagle3_proposal_ms` fit theirs).

    >>> round(_ternary_minimum(lambda x: (x - 0.3) ** 2, 0.0, 1.0, 1e-6), 4)
    0.3
    """
    while high - low > width:
        a, b = low + (high - low) / 3, high - (high - low) / 3
        if loss(a) <= loss(b):
            high = b
        else:
            low = a
    return (low + high) / 2


def fit_eagle3_proposal_ms(rows=None, low: float = 0.0, high: float = 3.0) -> float:
    """What an EAGLE proposal costs a cycle beyond the ops the lab prices from the code (``proposalMs``, ms)
    that minimises the sum of squared log ratios, model over measured, over ``rows`` (default: the EAGLE-3 proposal
    rows of :data:`lab.serving_calibration.STEP_MEASUREMENTS`, SpecDecode-Bench's fitted proposal on vLLM 0.10.1),
    every other constant held: a ternary search over ``[low, high]`` (each row's model is affine in it), to 0.001 ms.
    How :data:`lab.serving_specdecode.EAGLE3_PROPOSAL_MS` was found.

    >>> fit_eagle3_proposal_ms()
    0.306
    """
    from .serving_calibration import STEP_MEASUREMENTS
    rows = [m for m in STEP_MEASUREMENTS if m.kind == "proposal" and m.draft == serving.EAGLE3] if rows is None else rows
    # each row's model without the term: the term is added once a proposal, so subtract the engine's own
    base = [(step_measurement_ms(m) - serving.ENGINES[m.engine].proposalMs, m.ms) for m in rows]

    return round(_ternary_minimum(lambda c: sum(math.log((got + c) / ms) ** 2 for got, ms in base), low, high, 0.0001), 3)


def alpha_for_length(length: float, lookahead: int) -> float:
    """The flat per-token acceptance ``a`` with ``1 + a + ... + a**k = length``: how a measured mean
    acceptance length enters the model. The one inversion of that sum, :func:`lab.traces.alpha_iid`
    (``a + ... + a**k = length - 1``), not a copy of it.

    >>> round(alpha_for_length(1.75, 2), 9)
    0.5
    """
    return alpha_iid(length - 1, lookahead)


def predict(point: ValidationPoint) -> dict:
    """The per-operator model's prediction for one row, with its settings."""
    settings = serving.DEFAULT_SETTINGS.with_(
        gpu=point.gpu, target=point.target, draft=point.draft, gpus=point.gpus, batch=point.batch,
        lookahead=point.lookahead, acceptance=100 * alpha_for_length(point.acceptanceLength, point.lookahead),
        context=point.context, stepModel=serving.MEASURED, engine=point.engine, precision=point.precision,
        draftPrecision=point.draftPrecision, treeTokens=point.treeTokens)
    result = serving.serving(settings)
    return {"predicted": result.speedup, "settings": settings, "plainStepMs": result.plainStepMs,
            "draftStepMs": result.draftStepMs, "verifyStepMs": result.verifyStepMs}


def comparison() -> list[dict]:
    """Every row with its prediction and the ratio predicted / measured."""
    rows = []
    for point in VALIDATION:
        prediction = predict(point)
        rows.append({**point._asdict(), "predicted": prediction["predicted"],
                     "ratio": prediction["predicted"] / point.measured})
    return rows


def eagle3_cycle_in_plain_steps(lookahead: int = 3) -> dict:
    """An EAGLE-3 cycle at batch one (Llama-3.1-8B, one H100, the context of vLLM issue #20780's rows) as a
    multiple of a plain step, three ways: SpecDecode-Bench's step times fitted on vLLM 0.10.1 (``fit``: its
    forward over k + 1 tokens and its EAGLE-3 proposal, both with the per-step overhead, over its plain step; the
    only EAGLE-3 step times measured on that engine, at k = 3), the model (``model``: the row's mean acceptance
    length over its predicted speedup) and the rows themselves (``measured``: mean acceptance length x TPOT / vanilla
    TPOT, for EAGLE-3 and, beside it, EAGLE-1's ``measuredEagle1``). Where ``measured`` stands above ``fit`` by
    about what it stands above ``model``, the rows disagree with the step times the model follows, not only with
    the model.

    >>> c = eagle3_cycle_in_plain_steps()
    >>> round(c["fit"], 2), round(c["model"], 2), round(c["measured"], 2), round(c["measuredEagle1"], 2)
    (1.31, 1.28, 1.61, 1.39)
    """
    from .serving_calibration import _specdecode_draft_ms, _specdecode_forward_ms

    e3 = next(p for p in VALIDATION if p.source == _ISSUE20780 and p.draft == serving.EAGLE3 and p.lookahead == lookahead)
    e1 = next(p for p in VALIDATION if p.source == _ISSUE20780 and p.draft == serving.EAGLE and p.lookahead == lookahead)
    tokens, context = lookahead + 1, e3.context
    fit = (_specdecode_forward_ms(1, tokens, context) + _specdecode_draft_ms(1, tokens, context)) \
        / _specdecode_forward_ms(1, 1, context)
    return {"lookahead": lookahead, "fit": fit, "model": e3.acceptanceLength / predict(e3)["predicted"],
            "measured": e3.acceptanceLength / e3.measured, "measuredEagle1": e1.acceptanceLength / e1.measured}


def _held_out_steps():
    """The plain steps the validation sources timed beside their speedups: kept out of the calibration,
    so they test it out of sample (step times, on the engine of each source's date)."""
    from .serving_calibration import StepMeasurement

    return (
        StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, 1, 1, 600, 7.07, 0.15, _ISSUE20780,
                        "vanilla TPOT; " + _GPU_NOTE, _SYNC_V1),
        StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, 1, 1, 600, 1000 / 128.64, 0.15, _EAGLE_V1,
                        "1000 / vanilla tokens/s; the comment names no GPU: one H100 assumed", _SYNC_V1),
        StepMeasurement("a100-40g", "llama-3-8b", "bf16", 1, 1, 1, 600, 1000 * 1.3211 / 108.45, 0.15, _FRSPEC,
                        "1000 / vanilla tokens/s, vanilla = 108.45 / 1.3211", _SYNC_V1),
        # one request in flight: no other request's prefill rides in its decode steps (past N = 1 they do, so those
        # plain ITLs are not one plain step each and are left out)
        *(StepMeasurement("b200", "qwen3.8-27b", "bf16", 1, 1, 1, _QWEN38_CONTEXT[subset], plain, 0.15,
                          _QWEN38_SWEEP, f"plain mean ITL at N = 1 on {subset}", "vllm-v1")
          for subset, n, plain, _, _ in _QWEN38_POINTS if n == 1),
        # SGLang's plain runs of Qwen3-30B-A3B at batch one, beside the EAGLE-3 rows (added 5 December 2026, after those
        # rows were looked at once: a step time the sources printed, held out of every fit like the rows above); the
        # plain run is SGLang's default, its overlap scheduler on ("sglang"); past batch one the runs drain, so only
        # batch one is a plain step
        *(StepMeasurement("h100-sxm", "qwen3-30b-a3b", "bf16", gpus, 1, 1, 1200, 1000 / plain[1], 0.15, source,
                          f"1000 / the plain run's {plain[1]} tokens/s at batch one, TP {gpus}; " + _SGL_Q3_NOTE, "sglang")
          for gpus, source, plain, _ in _SGL_Q3_RUNS),
    )


def _against_model(m, **extra) -> dict:
    """A measured step as a row: its fields, the model's value for it (priced once) and the ratio model / measured."""
    model = step_measurement_ms(m)
    return {**m._asdict(), "model": model, "ratio": model / m.ms, **extra}


def held_out_steps() -> list[dict]:
    """Each held-out plain step with the model's value and the ratio model / measured.

    >>> [round(row["ratio"], 2) for row in held_out_steps()]
    [1.05, 0.96, 1.31, 0.82, 0.82, 0.89, 0.77]
    """
    return [_against_model(m) for m in _held_out_steps()]


def moe_steps() -> list[dict]:
    """The measured plain steps of a mixture of experts (:mod:`lab.serving_calibration`), each with the model's value,
    the ratio model / measured and its role: ``"fitted"`` (:data:`MOE_STEP_MEASUREMENTS`, the only rows
    :data:`MOE_LAYER_US` was fitted on) or ``"held out"`` (:data:`MOE_HELD_OUT_STEPS`, in no fit, and
    :data:`MOE_TRITON_HOPPER_STEPS`, read for a Hopper fit that its screen refused, so in no fit either: out of sample
    for the Ampere value Hopper borrows).

    >>> [(row["role"], round(row["ratio"], 2)) for row in moe_steps()][:3]
    [('fitted', 1.02), ('fitted', 0.97), ('fitted', 1.0)]
    >>> [round(row["ratio"], 2) for row in moe_steps() if row["gpu"] != "a100-80g" and row["target"] == "mixtral-8x7b"]
    [0.89, 0.96, 0.38]
    """
    from .serving_calibration import MOE_HELD_OUT_STEPS, MOE_STEP_MEASUREMENTS, MOE_TRITON_HOPPER_STEPS

    return [_against_model(m, role=role)
            for role, rows in (("fitted", MOE_STEP_MEASUREMENTS), ("held out", MOE_HELD_OUT_STEPS + MOE_TRITON_HOPPER_STEPS))
            for m in rows]


def source_key(source: str) -> str:
    """A source's identity across the data's wording: its first 'pull request N' or 'issue #N', else the
    text before its first comma.

    >>> source_key("vLLM pull request 24343 (github.com/...), comment of 2025-09-14"), source_key("vLLM issue #20780 (x)")
    ('pull request 24343', 'issue #20780')
    """
    import re
    found = re.search(r"pull request \d+|issue #\d+", source)
    return found.group(0) if found else source.split(",")[0]


def leave_one_source_out(rows=None) -> list[dict]:
    """Each validation row predicted by a model calibrated without its own source: the step
    measurements from the same source (:func:`source_key`) are dropped and the row's GPU family
    refitted (:func:`fit_calibration`) before predicting it. ``leftOut`` counts the dropped step
    rows; where it is 0 no step time came from that source and the prediction is the row's own.

    >>> rows = leave_one_source_out()
    >>> all(row["leftOut"] == 0 and row["predictedWithout"] == row["predicted"] for row in rows)
    True
    """
    from .serving_calibration import CALIBRATIONS, STEP_MEASUREMENTS

    rows = comparison() if rows is None else rows
    out = []
    for row in rows:
        key = source_key(row["source"])
        family = CALIBRATIONS[row["gpu"]]
        same = [m for m in STEP_MEASUREMENTS if CALIBRATIONS[m.gpu] is family]
        kept = [m for m in same if source_key(m.source) != key]
        predicted = row["predicted"]
        if len(kept) < len(same):
            refit = fit_calibration(family, kept)
            names = [name for name, cal in CALIBRATIONS.items() if cal is family]
            try:
                for name in names:
                    CALIBRATIONS[name] = refit
                serving._measured_constants.cache_clear()
                predicted = predict(ValidationPoint(**{f: row[f] for f in ValidationPoint._fields}))["predicted"]
            finally:
                for name in names:
                    CALIBRATIONS[name] = family
                serving._measured_constants.cache_clear()
        out.append({**row, "leftOut": len(same) - len(kept), "predictedWithout": predicted,
                    "ratioWithout": predicted / row["measured"]})
    return out


def summary(rows=None) -> dict:
    """Median and worst ratio (worst: farthest from 1 on a log scale), the median absolute
    relative error, and how many predictions lie above their measurement."""
    rows = comparison() if rows is None else rows
    ratios = sorted(row["ratio"] for row in rows)
    worst = max(ratios, key=lambda r: max(r, 1 / r))
    return {"points": len(ratios), "medianRatio": median(ratios), "worstRatio": worst,
            "medianAbsError": median(abs(r - 1) for r in ratios), "above": sum(r > 1 for r in ratios)}


def summary_by_engine(rows=None) -> list[dict]:
    """Each engine setting's rows summarised apart (an error band is an engine's own, never pooled across
    engines): ``engine``, ``points``, ``medianLogError`` (the median of ``|ln(predicted / measured)|``),
    ``medianAbsError`` and ``above`` as in :func:`summary`, and the ``batches`` its rows ran at, in the
    order the engines first appear in the rows.

    >>> [(s["engine"], s["points"], s["batches"]) for s in summary_by_engine()]
    [('vllm-v1-0.10', 16, [1]), ('sglang-no-overlap', 18, [1, 4, 8, 16, 32, 64]), ('vllm-v1', 16, [1, 2, 4, 8, 16, 32, 64, 128]), ('trtllm', 5, [1]), ('sglang-eager-extend', 1, [1])]
    """
    rows = comparison() if rows is None else rows
    out = []
    for engine in dict.fromkeys(row["engine"] for row in rows):
        mine = [row for row in rows if row["engine"] == engine]
        overall = summary(mine)
        out.append({"engine": engine, "points": len(mine),
                    "medianLogError": median(abs(math.log(row["ratio"])) for row in mine),
                    "medianAbsError": overall["medianAbsError"], "above": overall["above"],
                    "batches": sorted({row["batch"] for row in mine})})
    return out


class CrossoverBracket(NamedTuple):
    """A published batch sweep's first loss: the speedup of ``target`` drafted by ``draft`` on
    ``gpus`` x ``gpu`` at lookahead ``lookahead`` was above 1 at batch ``low`` and at or below 1 at
    ``high``, on ``engine``. None of the sweeps states the acceptance it ran at: the model is run at
    each of ``acceptanceLengths`` (the first is the one ``note`` argues for), at ``context`` tokens.

    ``quoted``: the sweep's speedups as its source prints them, ``(batch, speedup)`` pairs in batch order
    (quoted, never computed; empty where the source prints none), from which ``low`` and ``high`` follow
    (:func:`first_loss`). ``gpuBasis``: how the source names the GPU the bracket runs on: "stated" (it
    names ``gpu``'s model), "disputed" (versions or passages of the source name different GPUs, one of
    them ``gpu``'s and another the model has no preset for) or "assumed" (it names none)."""

    label: str
    gpu: str
    target: str
    draft: str
    gpus: int
    lookahead: int
    low: int
    high: int
    acceptanceLengths: tuple
    context: int
    source: str
    note: str
    engine: str = serving.DEFAULT_ENGINE
    quoted: tuple = ()
    gpuBasis: str = "stated"


def first_loss(quoted) -> tuple:
    """The bracket ``(low, high]`` a quoted sweep puts its first loss in: ``high`` the first batch whose
    speedup is at or below 1, ``low`` the batch before it; ``None`` where no batch lost.

    >>> first_loss(((2, 1.40), (16, 1.02), (24, 0.93), (32, 0.94)))
    (16, 24)
    >>> first_loss(((2, 1.3), (4, 1.2))) is None
    True
    """
    for (low, _), (high, speedup) in zip(quoted, quoted[1:]):
        if speedup <= 1:
            return low, high
    return None


# The EAGLE-3 paper (Li, Wei, Zhang, Zhang), read in two versions through the code index (the brackets'
# fact check, 4 December 2026): arXiv 2503.01840v3 of 2025-04-23 (a text transcription whose first line is
# "arXiv:2503.01840v3[cs.CL]23Apr2025", index id 60816773899) and the NeurIPS 2025 version (affiliations in the
# order University of Waterloo, Peking University; numbered references; index id 53345082648). Both print the
# same Tables 3 and 5.
_EAGLE3_PAPER = ("the EAGLE-3 paper (Li et al., arXiv 2503.01840v3, 2025-04-23, and its NeurIPS 2025 version), "
                 "Llama-3.1-8B-Instruct ('LLaMA-Instruct 3.1 8B') on MT-Bench, speedup over the same engine without "
                 "speculation")
_ACCEPT_20780 = ("acceptance not given with the table: the model runs at the mean acceptance length vLLM issue #20780 "
                 "measured for an EAGLE-1 head on Llama-3.1-8B at the same lookahead ({length}, batch one), and 0.3 "
                 "either side")

_V0_NOTE = ("; vLLM V0 (the paper predates V1's EAGLE, vLLM 0.8; the issue's draft-model speculation ran on V0, "
            "where V1 had none), which verifies by batch expansion with CUDA graphs on")

# Section 4.3, both versions: "The performance of EAGLE-3 for large batches on a single H100 GPU and LLaMA-Instruct
# 3.1 8B in the SGLang v0.4.4 environment ... This part of the experiment did not use the tree structure, the chain
# length was set to 3, and the testing dataset was MT-Bench. EAGLE reduces throughput at a batch size of 24";
# "evaluated by the SGLang team" (v3, and the caption of v3's Table 3). Table 3, EAGLE row, quoted below.
# Against the bracket: H100, one GPU, Llama-3.1-8B, EAGLE(-1) head, a chain of 3 drafts (top-k 1 verifies the root
# and the 3 drafts, 4 tokens a sequence, as SGLang's later server_args.py enforce for top-k 1, v0.4.4's own not read:
# the model's chain, lookahead + 1), first loss in (16, 24]: all as the source says. Not stated, so assumed: the H100's form (SXM), the context (1024), the acceptance (no
# acceptance length is printed for these runs), the draft head's checkpoint. The engine: v0.4.4 is named; v3 (of
# 2025-04-23) names it, so it predates SGLang's draft-extend CUDA graph (pull request 6606, 2025-05-26).
_SGLANG_TABLE3 = ((2, 1.40), (4, 1.38), (8, 1.23), (16, 1.02), (24, 0.93), (32, 0.94), (48, 0.88), (56, 0.99),
                  (64, 0.99))
# Section 4.4 and Table 5: "the results on RTX3090 and LLaMA-Instruct 3.1 8B are shown in Table 5 ... This part of
# the experiment did not use the tree structure, the maximum chain length was set to 2, and the testing dataset was
# MT-Bench." Table 5's caption: "on A100" in arXiv v3, "on RTX3090" in the NeurIPS version; the text says RTX3090 in
# both. So the later version makes the caption agree with the text, and the sweep ran on an RTX 3090; neither names
# an A100's memory. The bracket runs on the `rtx-3090` preset (lab.serving_presets.GPUS; until 4 December 2026 it ran
# on `a100-80g`, marked disputed, for want of one), whose calibration is assumed: no step time measured on an RTX
# 3090 is in the model (lab.serving_calibration.CALIBRATIONS). The preset and that choice were committed before the
# bracket's crossover on it was computed, once. As the source says: one GPU (an RTX 3090), Llama-3.1-8B, EAGLE(-1)
# head, a chain of at most 2 drafts (lookahead 2, 3 tokens verified a sequence), first loss in (24, 32]. Not stated,
# so assumed: the calibration (above), vLLM's version and
# engine (V0), the context (1024), the acceptance. (The text's "EAGLE shows the maximum throughput improvement at a
# batch size of 24" does not match its own table, whose EAGLE maximum is 1.30x at batch 2; the table is used.)
_VLLM_TABLE5 = ((2, 1.30), (4, 1.25), (8, 1.21), (16, 1.10), (24, 1.03), (32, 0.93), (48, 0.82), (56, 0.71))

CROSSOVER_BRACKETS = (
    CrossoverBracket("EAGLE, SGLang, k = 3", "h100-sxm", "llama-3-8b", serving.EAGLE, 1, 3, 16, 24,
                     (2.29, 1.99, 2.59), 1024, _EAGLE3_PAPER + ", Section 4.3 and Table 3: SGLang v0.4.4 on 'a single "
                     "H100', no tree, 'the chain length was set to 3', experiments 'conducted by the SGLang team'; "
                     "EAGLE 1.02x at batch 16, 0.93x at 24 (quoted)", _ACCEPT_20780.format(length=2.29) + "; SGLang "
                     "v0.4.4 (named by the paper, whose v3 of April 2025 predates the draft-extend CUDA graph of pull "
                     "request 6606, May 2025): overlap off and the extend pass eager; H100 SXM and 1024 tokens of "
                     "context assumed", "sglang-eager-extend", _SGLANG_TABLE3, "stated"),
    CrossoverBracket("EAGLE, vLLM, k = 2", "rtx-3090", "llama-3-8b", serving.EAGLE, 1, 2, 24, 32,
                     (2.10, 1.80, 2.40), 1024, _EAGLE3_PAPER + ", Section 4.4 and Table 5: vLLM (version not stated), "
                     "no tree, 'the maximum chain length was set to 2'; the text says 'RTX3090' in both versions, "
                     "Table 5's caption 'A100' in v3 and 'RTX3090' in the NeurIPS version; EAGLE 1.03x at batch 24, "
                     "0.93x at 32 (quoted)", _ACCEPT_20780.format(length=2.10) + _V0_NOTE + "; one RTX 3090, as the "
                     "text and the later caption say, its calibration assumed (no step time measured on one: Ampere's "
                     "efficiencies, as for the RTX 4090); the engine (V0) and 1024 tokens of context assumed", "vllm-v0",
                     _VLLM_TABLE5, "stated"),
    # vLLM issue #17984 (yesredpig, 2025-05-12), its text as the code index keeps it: "When using the LLaMA 1B SSM
    # model on the LLaMA 70B Original model, a performance reversal occurs at Batchsize 32. In addition, when the
    # _num_speculative_tokens_ (SL; speculative length) is large, the inefficiency increases further as the batch
    # size increases (Fig. 2)", then V0's batch expansion and MQA scorer as the work so far. Its figures are
    # images: no speedup is printed as text, and no GPU, lookahead, draft tensor parallelism, engine version or
    # acceptance is written (the thread's comments were not found in the index). Nothing here contradicts it; all
    # of the setting is assumed: four H100s, k = 4, the draft at the target's tensor parallelism (V0's default),
    # V0 (V1 had no draft-model speculation in May 2025), the acceptance, 1024 tokens, and batches as powers of
    # two, so the first loss in (16, 32].
    CrossoverBracket("1B draft for 70B, vLLM", "h100-sxm", "llama-3-70b", "llama-3.2-1b", 4, 4, 16, 32,
                     (2.5, 2.0, 3.0), 1024, "vLLM issue #17984 (github.com/vllm-project/vllm/issues/17984, "
                     "2025-05-12): 'When using the LLaMA 1B SSM model on the LLaMA 70B Original model, a performance "
                     "reversal occurs at Batchsize 32'",
                     "four H100s, k = 4 and the acceptance assumed (the issue's figures are images); batches taken "
                     "as powers of two, so the first loss lies in (16, 32]" + _V0_NOTE, "vllm-v0", (), "assumed"),
)


def bracket_settings(bracket: CrossoverBracket, length: float) -> serving.ServingSettings:
    """The serving setting a bracket is run at, at mean acceptance length ``length``."""
    return serving.DEFAULT_SETTINGS.with_(
        gpu=bracket.gpu, target=bracket.target, draft=bracket.draft, gpus=bracket.gpus, lookahead=bracket.lookahead,
        acceptance=100 * alpha_for_length(length, bracket.lookahead), context=bracket.context,
        stepModel=serving.MEASURED, engine=bracket.engine)


def smallest_batch_speedups(bracket: CrossoverBracket) -> dict | None:
    """The bracket's first quoted batch: its quoted speedup (``measured``) beside the model's at the central
    acceptance (``model``); None where the source quotes no table. Looked at, never fitted.

    >>> row = smallest_batch_speedups(CROSSOVER_BRACKETS[0])
    >>> row["batch"], row["measured"], row["model"] > row["measured"]
    (2, 1.4, True)
    """
    if not bracket.quoted:
        return None
    batch, measured = bracket.quoted[0]
    model = serving.speedup_at(bracket_settings(bracket, bracket.acceptanceLengths[0]), batch, bracket.context)
    return {"batch": batch, "measured": measured, "model": model}


def search_limit(bracket: CrossoverBracket) -> int:
    """The largest batch the model's crossover search visits for ``bracket``: every batch up to
    :data:`lab.serving.MAX_BATCH` whose sequences of the bracket's context fit in its GPU's memory (weights,
    draft and KV caches under its engine's memory default; the same at every acceptance). A crossover of
    None means no loss up to here.

    >>> search_limit(CROSSOVER_BRACKETS[1])    # Llama-3-8B and its EAGLE head, 1024 tokens, one RTX 3090
    28
    """
    settings = bracket_settings(bracket, bracket.acceptanceLengths[0])
    return max(1, min(serving.MAX_BATCH, int(serving.max_batch_in_memory(settings))))


def crossover_comparison(brackets=CROSSOVER_BRACKETS) -> list[dict]:
    """Each bracket with the model's crossover batch (:func:`lab.serving.crossover_batch`) at each
    of its acceptance lengths (None: no loss up to ``fits``, :func:`search_limit`), and whether it falls
    inside ``(low, high]``.

    >>> rows = crossover_comparison()
    >>> [row["label"] for row in rows][:1], all(len(row["crossovers"]) == 3 for row in rows)
    (['EAGLE, SGLang, k = 3'], True)
    """
    rows = []
    for bracket in brackets:
        crossovers = []
        for length in bracket.acceptanceLengths:
            crossovers.append(serving.crossover_batch(bracket_settings(bracket, length)))
        inside = [c is not None and bracket.low < c <= bracket.high for c in crossovers]
        rows.append({**bracket._asdict(), "crossovers": tuple(crossovers), "inside": tuple(inside),
                     "fits": search_limit(bracket)})
    return rows
