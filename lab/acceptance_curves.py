"""The library of measured acceptance curves the acceptance model (:mod:`lab.acceptance`) learns its
decay priors from and is judged on (leave one out). Data only: each curve as it was published, with
where it was read and under which licence.

Two kinds of curve:

* ``lengths``: the mean acceptance length measured at each lookahead k (one run per k), as the
  SemiAnalysis InferenceX benchmark publishes its reference ("golden") curves;
* ``unconditional``: an engine's per-position rates from one run at one k, as vLLM (its SpecDecoding
  log line, its offline example's "acceptance at token i") and llama.cpp print them (position i: the
  chance that the first i drafts all survived), so the mean acceptance length at every k up to the
  run's is ``1 + a_1 + ... + a_k`` (tests/test_acceptance_curves.py checks each against its print).

Families (the reader's ``--method``): ``mtp`` (multi-token prediction heads), ``eagle`` (EAGLE,
EAGLE-3), ``block`` (a block or parallel drafter, a separate model that proposes a block of positions in one pass:
DSpark, the drafter bundled with the DeepSeek-V4 and Kimi-K3 checkpoints, ``draft: Inferact/Kimi-K3-DSpark`` in its
YAML, and DFlash, a block-diffusion drafter), ``draft`` (a classic autoregressive draft model, a small model of the
target's family drafting token by token, vLLM's ``draft_model`` method: two families since docs/READING.md, "a classic
draft model and a block drafter are two families"), ``ngram`` (prompt lookup) and ``suffix`` (suffix decoding: one public curve,
fewer than the family needs, so that family borrows the copying curves' prior and spread, n-gram's and its own, and
says so: lab.acceptance.prior_group).

InferenceX: github.com/SemiAnalysisAI/InferenceX, directory ``golden_al_distribution/``, Apache
License 2.0 (the repository's LICENSE), read at commit 843c6254ff69b567f772f6a5fd97675af3d04431
(2026-08-21) and, for the two DSpark files since renamed, at commit 86a9eaa8f. Measured with
SPEED-Bench's coding category on B300 GPUs under vLLM, output length 4096, temperature as each file
states. Single-k files (``qwen3.8_mtp.yaml``: k = 7 only; ``qwen3.827b_*_mtp.yaml``: k = 3 only) are
not curves and are left out. Engine-issue curves: the text is quoted as evidence from public issue
threads (facts, not creative text), with the thread named. Reference curves of lengths come also from a drafter
study's k sweep (vllm-project/speculators issue #563, quoted likewise), engine curves from files in Apache-2.0
repositories (vllm-project/speculators, rasyosef/train-dspark-draft-models, noonghunna/club-3090), one evaluation
table without counts from speculators' v0.6.0 release notes (its subsets' equal-weight mean, :func:`mean_rates`), and
the first classic draft models' engine curves (vLLM V1's ``draft_model`` method) from a benchmark repository without a
licence file, its measured figures quoted as evidence (tomasruizt/vllm-scripts; docs/READING.md says why).
"""

__all__ = ["CURVES", "INFERENCEX", "INFERENCEX_LICENCE", "SAME_DRAFTER", "drafter_of", "mean_rates", "pooled_rates"]

INFERENCEX = "SemiAnalysisAI/InferenceX golden_al_distribution/"
INFERENCEX_LICENCE = "Apache-2.0"
_IX = "SemiAnalysisAI/InferenceX @843c6254, golden_al_distribution/"
_IX_OLD = "SemiAnalysisAI/InferenceX @86a9eaa8f, golden_al_distribution/"
# A fork's copies (wufann/InferenceX, a fork of the Apache-2.0 repository above): Qwen3.8-Flash-Next's file, which
# upstream's README at 0c66e113 lists among its current golden curves (source run: InferenceX Actions run 33034290269;
# FP8 on B300, vLLM native MTP, k = 1..6, thinking on only), and DeepSeek-V4.1-Flash's DSpark file (source run
# 34493175056; B200, TP 4, probabilistic draft, block rejection, adaptive verification off, temperature 1.0; k = 1..5:
# the image rejects 6 to 8), which upstream's README at 0c66e113 describes as a collector's candidate not yet committed.
_IX_FORK_QWEN38 = "wufann/InferenceX @0ab0bb89 (fork of SemiAnalysisAI/InferenceX), golden_al_distribution/"
_IX_FORK_DSV41 = "wufann/InferenceX @ff664264 (fork of SemiAnalysisAI/InferenceX), golden_al_distribution/"
_DSPARK_1B = ("rasyosef/train-dspark-draft-models @03b91937, README.md 'Evaluation' table (Apache-2.0; also quoted in "
              "vllm-project/speculators issue #1135, 2026-09-20): ")
_VLLM_26498 = ("vllm-project/vllm pull request #26498 ('[Bugfix] Invalidate positions when using padded speculative "
               "decoding'), its description (benchislett; read through the issues search corpus, which shows no date), ")
# Its rows, as the table prints them: subset, pos_1..pos_8 (unconditional), acceptance_length.
_DSPARK_1B_ROWS = (
    ("HumanEval", (0.837, 0.685, 0.562, 0.460, 0.368, 0.283, 0.217, 0.161), 4.573),
    ("math_reasoning", (0.836, 0.682, 0.550, 0.438, 0.345, 0.258, 0.192, 0.134), 4.436),
    ("tool_call", (0.733, 0.555, 0.413, 0.301, 0.202, 0.133, 0.081, 0.043), 3.462),
    ("question", (0.630, 0.389, 0.243, 0.158, 0.097, 0.064, 0.040, 0.025), 2.646),
    ("writing", (0.617, 0.388, 0.244, 0.158, 0.099, 0.062, 0.041, 0.026), 2.636),
    ("rag", (0.649, 0.394, 0.239, 0.133, 0.064, 0.028, 0.011, 0.005), 2.523),
    ("qa", (0.554, 0.321, 0.182, 0.096, 0.052, 0.028, 0.016, 0.009), 2.258),
    ("summarization", (0.585, 0.310, 0.163, 0.076, 0.032, 0.011, 0.004, 0.001), 2.182),
    ("translation", (0.546, 0.286, 0.126, 0.043, 0.013, 0.005, 0.002, 0.000), 2.021),
)

_SPECULATORS_FP8 = ("vllm-project/speculators (Apache-2.0, its pyproject.toml), docs/fp8_ablation/: Qwen/Qwen3-8B drafters "
                    "trained on 10K samples (5K magpie + 5K ultrachat) with bf16 hidden states, served by vLLM (DSpark: "
                    "0.27.1; the others: the team's own vLLM checkout) and evaluated on the nine RedHatAI/speculator_benchmarks subsets (RESULTS_SUMMARY.md @7b61e44c, its "
                    "'guidellm throughput eval' table); ")
# The per-subset rows of docs/fp8_ablation/{dflash,dspark}_bf16_acceptance.csv (DFlash at commit a910cec7, DSpark at
# c9000597): subset, num_drafts, then the drafts whose slot i survived, i = 1..k. The CSV prints the rates
# acceptance_at_pos_i = that count / num_drafts (unconditional, full precision); every rate times num_drafts is an
# integer to 1e-6, and the integers are kept so the pooled curve is exact (tests/test_acceptance_curves.py checks
# them against the CSV's num_accepted_tokens and the summary's weighted figures).
_FP8_ABLATION_DFLASH_ROWS = (  # k = 15 (num_draft_tokens = 15 x num_drafts)
    ("HumanEval", 127947, (80545, 40449, 19070, 8806, 4025, 1795, 758, 332, 170, 119, 112, 107, 101, 100, 98)),
    ("math_reasoning", 64478, (42128, 23228, 12685, 6802, 3529, 1752, 829, 348, 144, 46, 10, 2, 0, 0, 0)),
    ("qa", 56083, (30096, 12093, 4698, 2040, 975, 517, 243, 93, 49, 6, 3, 0, 0, 0, 0)),
    ("question", 72638, (41930, 18891, 8229, 3743, 1721, 718, 304, 111, 46, 15, 6, 1, 1, 0, 0)),
    ("rag", 39295, (20763, 8369, 3028, 1227, 521, 190, 69, 18, 6, 0, 0, 0, 0, 0, 0)),
    ("summarization", 27871, (12800, 4301, 1182, 326, 105, 42, 14, 7, 4, 1, 1, 0, 0, 0, 0)),
    ("tool_call", 34289, (18656, 8016, 3018, 1211, 489, 196, 72, 24, 8, 1, 1, 0, 0, 0, 0)),
    ("translation", 33496, (15802, 6516, 2201, 689, 234, 62, 13, 6, 1, 0, 0, 0, 0, 0, 0)),
    ("writing", 72048, (41453, 18781, 8254, 3702, 1696, 721, 291, 99, 32, 6, 1, 0, 0, 0, 0)),
)
_FP8_ABLATION_DSPARK_ROWS = (  # k = 8
    ("HumanEval", 200387, (130375, 76053, 42319, 22626, 12058, 6232, 3261, 1705)),
    ("math_reasoning", 57857, (38885, 23985, 14611, 8856, 5272, 3086, 1700, 906)),
    ("qa", 51928, (27273, 12302, 5337, 2406, 1098, 485, 203, 77)),
    ("question", 66814, (39479, 20667, 10621, 5617, 3019, 1523, 824, 417)),
    ("rag", 36758, (19530, 9164, 4050, 1801, 769, 330, 150, 75)),
    ("summarization", 28334, (13607, 5214, 1831, 663, 242, 96, 38, 13)),
    ("tool_call", 66722, (37993, 18977, 8776, 4296, 2071, 1018, 513, 238)),
    ("translation", 32499, (15284, 7054, 2788, 972, 369, 115, 43, 11)),
    ("writing", 66039, (38956, 20385, 10605, 5592, 2971, 1569, 810, 424)),
)


# The ninth search (branch curves9, 6 December 2026): vllm-project/speculators issue #613 ('[Bug]:
# RedHatAI/Qwen3.6-35B-A3B-NVFP4 - Dflash - Very Low Acceptance Despite Good Validation Metrics', huaxuan250), read
# whole in the code index's copy of the thread. The thread's bug is the author's own drafter; these are its working
# lines: z-lab's DFlash drafter (z-lab/Qwen3.6-35B-A3B-DFlash, the reference the author compares against) on
# RedHatAI/Qwen3.6-35B-A3B-NVFP4 at num_speculative_tokens 8, two `vllm bench serve` blocks ('Per-position acceptance
# (%)', accepted at position i over drafts, two decimals), and the author's DFlash drafters trained on UltraChat after
# the thread's two fixes, one SpecDecoding line each at k = 15. Predicted out of sample before they joined
# (docs/READING.md, 'curves the model had not seen, predicted before they joined').
_SPECULATORS_613 = ("vllm-project/speculators issue #613 ('[Bug]: RedHatAI/Qwen3.6-35B-A3B-NVFP4 - Dflash - Very Low "
                    "Acceptance Despite Good Validation Metrics'), ")
# As printed: drafts, draft tokens, accepted tokens, acceptance length, per-position acceptance (%) at positions 0..7.
_SPECULATORS_613_BENCH = {
    "06-16": (446819, 3574552, 1685779, 4.77, (82.27, 66.16, 54.24, 45.65, 38.99, 33.89, 29.75, 26.34)),
    "07-07": (255426, 2043408, 1347987, 6.28, (83.95, 75.11, 69.54, 65.11, 62.09, 59.36, 57.24, 55.33)),
}
# The two k = 15 lines, kept as counts: (drafts = Drafted / 15, accepted at positions 1..15). Each count is the only
# integer over the drafts that prints the line's rate, the counts sum to its Accepted (699 and 352), and 1 + Accepted
# / drafts prints its mean (4.97, 5.05) (tests/test_acceptance_curves.py; tests/test_traces_outofsample.py reads the
# same lines).
_SPECULATORS_613_K15 = {
    "qwen3.5-4b": (176, (146, 118, 99, 85, 70, 61, 45, 25, 17, 15, 7, 3, 3, 3, 2)),
    "qwen3.6-35b": (87, (78, 61, 50, 41, 29, 27, 20, 14, 12, 10, 4, 2, 2, 1, 1)),
}

# The tenth search (branch curves10, 6 December 2026): the first classic autoregressive draft models (a small model of
# the target's family drafting token by token: vLLM V1's `draft_model` method) and two EAGLE-3 heads, from the
# `draft_model` method's author's benchmark repository, tomasruizt/vllm-scripts (no LICENSE file; the measured figures
# are quoted as evidence with file and commit: docs/READING.md, "classic draft models the model has never seen").
# `vllm bench serve` blocks (vLLM V1 v0.1.dev13107+ge1a34c3a5, temperature 0): 'Per-position acceptance (%)' is the
# accepted count at position i over the drafts (unconditional). One curve per drafter and workload: the sweep's run at
# its largest k, of that k's runs the one with the most drafts. Predicted out of sample before they joined.
_VLLM_SCRIPTS = "tomasruizt/vllm-scripts "
_VLLM_SCRIPTS_LICENCE = "no licence file in the repository; measured figures quoted as evidence (file and commit)"
# As printed: drafts, draft tokens, accepted tokens, acceptance length, per-position acceptance (%) at positions 0..k-1.
_VLLM_SCRIPTS_BENCH = {
    # @8d588608, online-throughput/k8/tp-results-{draft-model,eagle3}/bench-*-c64.log: meta-llama/Llama-3.3-70B-Instruct
    # (TP 2) on likaixin/InstructCoder, 640 prompts, concurrency 64, k = 8.
    "llama3.3-70b-draft": (16882, 135056, 76428, 5.53, (79.88, 69.61, 61.62, 56.12, 51.55, 47.74, 44.48, 41.72)),
    "llama3.3-70b-eagle3": (24514, 196112, 68784, 3.81, (72.55, 56.18, 43.32, 33.41, 26.13, 20.57, 16.24, 12.20)),
    # @fccb8619, results/logs-2026-01-23/vllm-throughput-{dataset}-sd-{method}-{drafter}-k6-t0.0-tp1/0_out.logs, the
    # last block: Qwen/Qwen3-32B at k = 6; InstructCoder 2,560 prompts at concurrency 256, MT-Bench 80 at 80.
    "qwen3-32b-draft-1.7b-instructcoder": (164929, 989574, 347799, 3.11, (69.70, 47.93, 34.34, 25.43, 18.96, 14.52)),
    "qwen3-32b-draft-1.7b-mtbench": (5735, 34410, 14832, 3.59, (74.59, 56.11, 43.19, 34.18, 27.81, 22.74)),
    "qwen3-32b-draft-4b-instructcoder": (144588, 867528, 368496, 3.55, (74.35, 56.45, 43.63, 33.41, 26.23, 20.79)),
    "qwen3-32b-draft-4b-mtbench": (5167, 31002, 15397, 3.98, (77.88, 62.36, 51.50, 42.02, 35.07, 29.17)),
    "qwen3-32b-eagle3-instructcoder": (222088, 1332528, 289004, 2.30, (61.83, 34.69, 18.21, 8.79, 4.28, 2.33)),
    "qwen3-32b-eagle3-mtbench": (8261, 49566, 12249, 2.48, (65.44, 39.05, 22.18, 11.35, 6.36, 3.90)),
}
_VLLM_SCRIPTS_FILES = {
    "llama3.3-70b-draft": ("@8d588608, online-throughput/k8/tp-results-draft-model/bench-draft-model-c64.log "
                           "(serve: method draft_model, model meta-llama/Llama-3.2-1B, num_speculative_tokens 8)"),
    "llama3.3-70b-eagle3": ("@8d588608, online-throughput/k8/tp-results-eagle3/bench-eagle3-c64.log (serve: method "
                            "eagle3, model yuhuili/EAGLE3-LLaMA3.3-Instruct-70B, num_speculative_tokens 8)"),
    **{key: (f"@fccb8619, results/logs-2026-01-23/vllm-throughput-{dataset}-sd-{method}-{drafter}-k6-t0.0-tp1/"
             f"0_out.logs, its last block")
       for key, dataset, method, drafter in (
           ("qwen3-32b-draft-1.7b-instructcoder", "InstructCoder", "draft_model", "Qwen3-1.7B"),
           ("qwen3-32b-draft-1.7b-mtbench", "mt-bench", "draft_model", "Qwen3-1.7B"),
           ("qwen3-32b-draft-4b-instructcoder", "InstructCoder", "draft_model", "Qwen3-4B"),
           ("qwen3-32b-draft-4b-mtbench", "mt-bench", "draft_model", "Qwen3-4B"),
           ("qwen3-32b-eagle3-instructcoder", "InstructCoder", "eagle3", "Qwen3-32B-speculator.eagle3"),
           ("qwen3-32b-eagle3-mtbench", "mt-bench", "eagle3", "Qwen3-32B-speculator.eagle3"))},
}


def _vllm_scripts_curve(key: str, family: str, label: str) -> tuple:
    """A library entry for one of tomasruizt/vllm-scripts' bench blocks: its printed rates over 100, its file and
    printed counts as the source (no doctest: data only)."""
    drafts, draft_tokens, accepted, length, percents = _VLLM_SCRIPTS_BENCH[key]
    return (family, "unconditional", tuple(p / 100 for p in percents), label,
            _VLLM_SCRIPTS + _VLLM_SCRIPTS_FILES[key] + f": {drafts:,} drafts, {draft_tokens:,} draft tokens, "
            f"{accepted:,} accepted, acceptance length {length:.2f}, per-position acceptance {percents[0]:.2f} ... "
            f"{percents[-1]:.2f}%", _VLLM_SCRIPTS_LICENCE)


# The fifth search (December 2026). vllm-project/speculators issue #563 ('[RFC]: Support Qwen3 base architecture for
# eagle3 & p-eagle'), comment of 2026-06-08 (orestis-z), read through the issues search corpus: two EAGLE-3 drafters
# for Qwen/Qwen3-8B, one on a Qwen3 base architecture and one on the usual Llama one, 'Both drafters trained on the
# same dataset (Qwen3-8B-Regenerated-Collection, 508k samples), same hyperparameters (2 epochs, --draft-vocab-size
# 32000, online mode), evaluated with the same sampling params (temp=0.6, top_p=0.95, top_k=20)'; its table
# 'Acceptance lengths (Qwen3-arch vs Llama-arch)', 'Format: Qwen3 (Llama)', one row per use case, k = 1..7. As printed:
# use case, Qwen3-arch lengths at k = 1..7, Llama-arch lengths at k = 1..7. The evaluation engine is not named in the
# part read (the speculators project evaluates on vLLM).
_SPECULATORS_563 = ("vllm-project/speculators issue #563 ('[RFC]: Support Qwen3 base architecture for eagle3 & "
                    "p-eagle'), comment of 2026-06-08 (orestis-z), table 'Acceptance lengths (Qwen3-arch vs "
                    "Llama-arch)': ")
_SPECULATORS_563_ROWS = (
    ("Coding", (1.81, 2.40, 2.80, 3.06, 3.22, 3.30, 3.33), (1.79, 2.35, 2.71, 2.88, 3.00, 3.06, 3.10)),
    ("Math", (1.83, 2.50, 2.95, 3.28, 3.45, 3.61, 3.68), (1.81, 2.42, 2.87, 3.12, 3.30, 3.42, 3.45)),
    ("Summarization", (1.69, 2.11, 2.35, 2.46, 2.50, 2.52, 2.52), (1.67, 2.05, 2.25, 2.33, 2.37, 2.38, 2.39)),
)
# vllm-project/speculators pull request #610 ('feat(eagle3): add Eagle 3.1 training support'), comment of 2026-06-26
# (orestis-z): an EAGLE-3 (Llama) and an EAGLE-3.1 fc-norm (Llama) drafter for Qwen/Qwen3-30B-A3B, 'Evaluated on
# RedHatAI/speculator_benchmarks (9 subsets), k=5 draft tokens, temp=0.6, top_p=0.95, top_k=20, 80 requests per
# subset'; 'Per-Position Acceptance Rates (averaged across subsets)', positions 0..4, and the subsets' average
# acceptance length (2.156 and 2.180). As printed, per drafter: the nine subsets' lengths (HumanEval, Math Reasoning,
# QA, Question, RAG, Summarization, Tool Call, Translation, Writing), the printed average, the five rates.
_SPECULATORS_610 = ("vllm-project/speculators pull request #610 ('feat(eagle3): add Eagle 3.1 training support'), "
                    "comment of 2026-06-26 (orestis-z), 'Eagle 3.1 (fc-norm) Evaluation Results - Qwen3-30B-A3B': ")
_SPECULATORS_610_ROWS = {
    "Eagle 3 (Llama)": ((2.300, 2.460, 2.000, 2.130, 2.140, 1.940, 2.160, 2.120, 2.150), 2.156,
                        (0.5858, 0.2991, 0.1491, 0.0790, 0.0423)),
    "Eagle 3.1 fc-norm (Llama)": ((2.373, 2.479, 2.013, 2.179, 2.162, 1.944, 2.167, 2.153, 2.152), 2.180,
                                  (0.5890, 0.3028, 0.1558, 0.0846, 0.0481)),
}
# noonghunna/club-3090 (Apache-2.0, its LICENSE), commit 0bdcb69f (2026-05-01, noonghunna, 'results: re-bench dual.yml
# + dual-dflash + dual-dflash-noviz on v0.20'), results/v0.20-migration/dual-dflash-bench.txt and
# dual-dflash-noviz-bench.txt, each ending '=== Last 3 SpecDecoding metrics ===' (vLLM's 10-second SpecDecoding
# windows after the bench's narrative and code prompts): DFlash ('{"method":"dflash","model":".../qwen3.6-27b-dflash",
# "num_speculative_tokens":5}', z-lab's Qwen3.6-27B drafter per the compose header) on Qwen3.6-27B AutoRound INT4,
# two RTX 3090s (TP 2), with and without the vision tower (docker-compose.dual-dflash{,-noviz}.yml at the same commit).
# Each line prints 'Accepted: A tokens, Drafted: D tokens, Per-position acceptance rate: ...' (three decimals); a fixed
# k = 5 gives D / 5 drafts, and only one integer count per position gives each printed rate, the five summing to A
# (tests/test_acceptance_curves.py). Kept as counts: (window, drafts, accepted at positions 1..5).
_CLUB3090_DFLASH = ("noonghunna/club-3090 @0bdcb69f (Apache-2.0), results/v0.20-migration/")
_CLUB3090_DFLASH_ROWS = {
    "dual-dflash": (("19:24:24", 292, (257, 230, 188, 156, 127)), ("19:24:34", 292, (254, 222, 181, 156, 131)),
                    ("19:24:44", 292, (265, 225, 191, 155, 135))),
    "dual-dflash-noviz": (("19:32:33", 293, (269, 234, 193, 159, 136)), ("19:32:43", 291, (255, 229, 186, 158, 125)),
                          ("19:32:53", 292, (260, 218, 179, 145, 116))),
}


# The seventh search (5 December 2026; the rules in docs/READING.md were written before any curve was predicted).
# vllm-project/speculators pull request #822 ('Add dspark tests', shanjiaz, description, 2026-07-19), its regression
# run of tests/e2e/regression/test_training_only_acceptance.py::test_dspark_qwen3_8b_sharegpt (the test as added at
# b33b06bb: a DSpark drafter trained 5 epochs on Qwen3-8B ShareGPT hidden states, 3 layers, block size 8, Markov rank
# 256, confidence head; served by vLLM at temperature 0 with max_tokens 512 and ignore_eos on the three prompts of
# tests/e2e/conftest.py), which printed, and passed its bars:
#   metrics_dict: {'total_num_output_tokens': 1536, 'num_drafts': 1035, 'num_draft_tokens': 8280,
#   'num_accepted_tokens': 499, 'acceptance_length': 1.4821256038647344, 'acceptance_at_token_0': 0.3217391304347826,
#   'acceptance_at_token_1': 0.1072463768115942, 'acceptance_at_token_2': 0.035748792270531404,
#   'acceptance_at_token_3': 0.012560386473429951, 'acceptance_at_token_4': 0.004830917874396135,
#   'acceptance_at_token_5': 0.0, 'acceptance_at_token_6': 0.0, 'acceptance_at_token_7': 0.0}
# tests/e2e/run_vllm.py divides each position's accepted count by num_drafts (unconditional); each rate times 1035 is
# an integer, kept here as counts (tests/test_acceptance_curves.py).
_SPECULATORS_822 = ("vllm-project/speculators pull request #822 ('Add dspark tests', shanjiaz, description, "
                    "2026-07-19), its regression run test_dspark_qwen3_8b_sharegpt: ")
_SPECULATORS_822_DRAFTS = 1035
_SPECULATORS_822_COUNTS = (333, 111, 37, 13, 5, 0, 0, 0)

# The eighth search (5 December 2026; its rule for evaluation tables that print no counts was written in
# docs/READING.md before any table was read). vllm-project/speculators release v0.6.0 (2026-06-16), its notes'
# 'Acceptance rates matrix for the Qwen3-8B P-EAGLE model' (RedHatAI/Qwen3-8B-speculator.peagle on Qwen/Qwen3-8B), read
# through a code-index copy 'Changelog (aggregated from releases.body)' that names the release and its date. The
# release's evaluation suite (tag v0.6.0, scripts/evaluate/evaluate.py and perf_utils.py: acceptance_at_pos_i = the
# drafts whose slot i survived over num_drafts, from vLLM's Prometheus counters, so unconditional; 80 requests a subset
# by default) on the nine RedHatAI/speculator_benchmarks subsets. As printed: subset, Pos 0..6 in percent (two
# decimals), Avg. Length. No counts; each row's 1 + sum is its printed length within rounding
# (tests/test_acceptance_curves.py), and the library keeps the nine rows' equal-weight mean: one curve for the drafter.
_SPECULATORS_V060 = ("vllm-project/speculators release v0.6.0 (2026-06-16), its notes' 'Acceptance rates matrix for the "
                     "Qwen3-8B P-EAGLE model' (read through a code-index copy of the release notes): ")
_SPECULATORS_V060_PEAGLE_ROWS = (
    ("HumanEval", (81.30, 59.00, 41.10, 27.90, 18.80, 12.80, 8.90), 3.5),
    ("math_reasoning", (83.30, 63.50, 47.00, 34.30, 24.40, 17.20, 11.80), 3.82),
    ("qa", (70.50, 44.70, 27.60, 17.10, 10.80, 7.10, 4.80), 2.83),
    ("question", (74.60, 49.60, 31.60, 20.20, 13.10, 8.50, 5.60), 3.03),
    ("rag", (73.60, 48.40, 29.80, 18.40, 11.30, 6.90, 4.10), 2.93),
    ("summarization", (68.00, 39.00, 21.00, 10.80, 5.40, 2.60, 1.20), 2.48),
    ("tool_call", (73.70, 47.60, 28.70, 17.10, 10.30, 6.20, 3.70), 2.87),
    ("translation", (73.80, 47.70, 28.70, 17.30, 10.40, 6.50, 4.10), 2.89),
    ("writing", (75.00, 50.00, 32.10, 20.60, 13.30, 8.70, 5.70), 3.05),
)

def pooled_rates(rows) -> tuple:
    """One run's unconditional per-position rates from per-subset counts, as one engine log over all of them prints
    them: a_i = (drafts whose slot i survived, summed) / (drafts, summed). Rows: (subset, drafts, survived counts).

    >>> pooled_rates((("a", 10, (8, 4)), ("b", 30, (12, 6))))
    (0.5, 0.25)
    """
    drafts = sum(row[1] for row in rows)
    return tuple(sum(counts) / drafts for counts in zip(*(row[2] for row in rows)))


def mean_rates(rows, unit: float = 1.0) -> tuple:
    """A table's subset rows of unconditional rates averaged position by position with equal weights, for a table that
    prints no drafts (rows: (subset, rates, printed length); ``unit`` scales the printed figures, 0.01 for percents):
    the curve's length at every k is then the mean of the subsets' lengths.

    >>> mean_rates((("a", (80.0, 40.0), 2.2), ("b", (60.0, 20.0), 1.8)), unit=0.01)
    (0.7, 0.3)
    """
    return tuple(round(sum(column) * unit / len(rows), 12) for column in zip(*(row[1] for row in rows)))


# name -> (family, kind, values, label, source, licence)
# lengths: mean acceptance length at k = 1, 2, ... (in order, no gaps); unconditional: a_1, a_2, ...
CURVES = {
    "dsv4-pro-mtp-thinking": ("mtp", "lengths", (1.79, 2.27, 2.49, 2.54, 2.55, 2.55, 2.54, 2.58),
                              "DeepSeek-V4-Pro, MTP, thinking on", _IX + "dsv4_mtp.yaml (thinking_on)", "Apache-2.0"),
    "dsv4-pro-mtp": ("mtp", "lengths", (1.92, 2.61, 2.97, 3.00, 3.10, 3.16, 3.00, 3.11),
                     "DeepSeek-V4-Pro, MTP, thinking off", _IX + "dsv4_mtp.yaml (thinking_off)", "Apache-2.0"),
    "glm-5.2-mtp-thinking": ("mtp", "lengths", (1.84, 2.50, 2.99, 3.33, 3.61, 3.78, 3.91, 4.06),
                             "GLM-5.2 FP8, MTP, thinking on", _IX + "glm5.2_mtp.yaml (thinking_on)", "Apache-2.0"),
    "qwen3.5-397b-mtp-thinking": ("mtp", "lengths", (1.93, 2.73, 3.39, 3.97, 4.41, 4.80, 5.04, 5.21),
                                  "Qwen3.5-397B-A17B, MTP, thinking on", _IX + "qwen3.5_mtp.yaml (thinking_on)",
                                  "Apache-2.0"),
    "qwen3.5-397b-mtp": ("mtp", "lengths", (1.92, 2.70, 3.33, 3.83, 4.20, 4.48, 4.73, 4.71),
                         "Qwen3.5-397B-A17B, MTP, thinking off", _IX + "qwen3.5_mtp.yaml (thinking_off)", "Apache-2.0"),
    "kimi-k2.5-eagle3-thinking": ("eagle", "lengths", (1.83, 2.43, 2.88, 3.24, 3.46, 3.62, 3.71, 3.77),
                                  "Kimi-K2.5 NVFP4, EAGLE-3, thinking on", _IX + "kimik2.5_eagle3.yaml (thinking_on)",
                                  "Apache-2.0"),
    "kimi-k2.5-eagle3": ("eagle", "lengths", (1.80, 2.33, 2.75, 3.06, 3.25, 3.43, 3.46, 3.51),
                         "Kimi-K2.5 NVFP4, EAGLE-3, thinking off", _IX + "kimik2.5_eagle3.yaml (thinking_off)",
                         "Apache-2.0"),
    "minimax-m3-eagle3-thinking": ("eagle", "lengths", (1.78, 2.38, 2.83, 3.11, 3.35, 3.45, 3.53, 3.74),
                                   "MiniMax-M3, EAGLE-3, thinking on", _IX + "minimaxm3_eagle3.yaml (thinking_on)",
                                   "Apache-2.0"),
    "minimax-m3-eagle3": ("eagle", "lengths", (1.84, 2.52, 2.93, 3.41, 3.59, 3.57, 3.85, 4.06),
                          "MiniMax-M3, EAGLE-3, thinking off", _IX + "minimaxm3_eagle3.yaml (thinking_off)", "Apache-2.0"),
    "minimax-m3-eagle3-gqa-thinking": ("eagle", "lengths", (1.79, 2.39, 2.78, 3.02, 3.21, 3.30, 3.52, 3.51),
                                       "MiniMax-M3, EAGLE-3 GQA head, thinking on",
                                       _IX + "minimaxm3_eagle3_gqa.yaml (thinking_on)", "Apache-2.0"),
    "minimax-m3-eagle3-gqa": ("eagle", "lengths", (1.83, 2.46, 2.97, 3.29, 3.72, 3.76, 3.75, 3.93),
                              "MiniMax-M3, EAGLE-3 GQA head, thinking off",
                              _IX + "minimaxm3_eagle3_gqa.yaml (thinking_off)", "Apache-2.0"),
    "kimi-k3-dspark-thinking": ("block", "lengths", (1.84, 2.45, 2.87, 3.22, 3.44, 3.54, 3.78, 3.88),
                                "Kimi-K3, DSpark draft, thinking on", _IX + "kimik3_dspark.yaml (thinking_on)",
                                "Apache-2.0"),
    "kimi-k3-dspark-block-thinking": ("block", "lengths", (1.85, 2.51, 3.00, 3.36, 3.62, 3.75, 3.84, 4.00),
                                      "Kimi-K3, DSpark draft, block rejection, thinking on",
                                      _IX + "kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method.yaml"
                                      " (thinking_on)", "Apache-2.0"),
    "dsv4-pro-0813-dspark-thinking": ("block", "lengths", (1.84, 2.51, 3.01, 3.36, 3.61, 3.77, 3.73, 3.47),
                                      "DeepSeek-V4-Pro-0813, DSpark draft, thinking on",
                                      _IX + "dsv4-pro-0813-dspark.yaml (thinking_on)", "Apache-2.0"),
    "dsv4-pro-0813-dspark": ("block", "lengths", (1.94, 2.81, 3.58, 4.17, 4.74, 5.12, 5.24, 4.95),
                             "DeepSeek-V4-Pro-0813, DSpark draft, thinking off",
                             _IX_OLD + "dsv4_0813_dspark_probabilistic.yaml (thinking_off)", "Apache-2.0"),
    "dsv4-pro-dspark-thinking": ("block", "lengths", (1.86, 2.55, 3.08, 3.43, 3.74, 3.82, 3.86, 3.75),
                                 "DeepSeek-V4-Pro, DSpark draft, thinking on",
                                 _IX_OLD + "dsv4_dspark_probabilistic.yaml (thinking_on)", "Apache-2.0"),
    "dsv4-pro-dspark": ("block", "lengths", (1.93, 2.76, 3.47, 4.10, 4.52, 4.87, 4.94, 4.94),
                        "DeepSeek-V4-Pro, DSpark draft, thinking off",
                        _IX_OLD + "dsv4_dspark_probabilistic.yaml (thinking_off)", "Apache-2.0"),
    # The page's trace presets (lab.traces.PRESETS), per-position counts summed over their lines
    # (tests/test_acceptance.py checks these rates against lab.traces' own reading of the presets).
    "club3090-qwen3.6-27b-mtp": ("mtp", "unconditional",
                                 (0.73435, 0.45920, 0.29222, 0.16888, 0.08729, 0.04934),
                                 "Qwen3.6-27B, MTP, vLLM (trace preset)",
                                 "noonghunna/club-3090 issue #105, two vLLM SpecDecoding lines (05-08 16:25:09, 16:25:19)",
                                 "quoted from a public issue thread"),
    "llamacpp-24536-eagle3": ("eagle", "unconditional", (0.80460, 0.63218, 0.48276),
                              "EAGLE-3, llama.cpp server (trace preset)",
                              "ggml-org/llama.cpp pull request #24536, the server's print_timing line",
                              "quoted from a public pull request thread"),
    # Engine curves at k = 7 and 8 from public threads (added December 2026 for the priors past k = 6).
    "vllm-48892-mtp8": ("mtp", "unconditional", (0.7617, 0.6158, 0.5125, 0.4243, 0.3640, 0.3094, 0.2722, 0.2365),
                        "MTP, 8 steps, vLLM Model Runner V2, GSM8K, temperature 0",
                        "vllm-project/vllm pull request #48892 (multi-layer MTP speculator), comment of 2026-08-03: "
                        "'Per-position acceptance (%)' positions 0-7 of the MTP 8 run (acceptance length 4.50, "
                        "88,344 draft tokens)", "quoted from a public pull request thread"),
    "ascend-13664-dspark": ("block", "unconditional", (0.70515, 0.43569, 0.34632, 0.17964, 0.12788, 0.07713, 0.05146),
                            "DeepSeek-V4-Flash-0731, DSpark draft, vLLM-Ascend",
                            "vllm-project/vllm-ascend issue #13640 (2026-08-05; refiled as #13664 the next day with "
                            "the same lines), its two SpecDecoding lines (08-05 12:25:03 and 12:25:13; k = 7, 23 and 55 "
                            "verifier calls), per-position rates summed weighted by calls",
                            "quoted from a public issue thread"),
    "vllm-24127-ngram": ("ngram", "unconditional", (0.983, 0.949, 0.915, 0.881, 0.712),
                         "OPT-125m, n-gram prompt lookup, vLLM",
                         "vllm-project/vllm pull request #24127, its test result's SpecDecoding metrics line "
                         "(prompt_lookup_min 5, max 10, k = 5, temperature 0.7)",
                         "quoted from a public pull request thread"),
    # Suffix decoding (draft length chosen per call, up to 24 here): vLLM's per-position rate divides by every draft,
    # so 1 + a_1 + ... + a_k is the mean acceptance length with drafts capped at k (a cap changes no position before
    # it); no draft survived past position 12.
    "vllm-35521-suffix": ("suffix", "unconditional",
                          (0.339, 0.146, 0.071, 0.039, 0.030, 0.028, 0.024, 0.021, 0.021, 0.021, 0.021, 0.019,
                           0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000),
                          "Nanbeige4.1-3B, suffix decoding (Arctic Inference), vLLM, batch 1",
                          "vllm-project/vllm issue #35521, its SpecDecoding line of 02-27 23:14:12 (mean acceptance "
                          "length 1.78, 364 accepted of 1190 drafted; the two requests before the scheduler crash the "
                          "issue reports)", "quoted from a public issue thread"),
    # Engine curves at k = 10 (the first past k = 8 from a drafter working as intended): vLLM V1's offline example
    # (examples/offline_inference/spec_decode.py) prints "acceptance at token i" = accepted at position i / drafts
    # (unconditional, two decimals), 1 + their sum is its "mean acceptance length". Pull request #26498 fixed the
    # padded speculation of vLLM's EAGLE proposer (positions of rejected drafts not invalidated) and printed K = 10
    # runs with the fix and with padding disabled; the head is an EAGLE-family drafter (the part of the description
    # read names neither head nor target; the alternative fix, pull request #29845, measures the same K = 10
    # SpecBench case with EAGLE-3 on Llama-3.1-8B-Instruct). The MT-Bench block's own header is outside the copy
    # read: it is the block printed just before "[SpecBench], Padding Enabled (Fixed), K=10", with the 16,994
    # output tokens of the MT-Bench runs, and its length (3.64) is within 1% of the padding-disabled run's (3.67).
    "vllm-26498-eagle-mtbench": ("eagle", "unconditional",
                                 (0.74, 0.54, 0.41, 0.30, 0.22, 0.16, 0.12, 0.08, 0.05, 0.02),
                                 "EAGLE-family head, vLLM V1 (padded speculation, fixed), MT-Bench, k = 10",
                                 _VLLM_26498 + "the MT-Bench block before the SpecBench one (mean acceptance length "
                                 "3.64; 4,687 drafts, 46,870 draft tokens, 12,368 accepted)",
                                 "quoted from a public pull request thread"),
    "vllm-26498-eagle-specbench": ("eagle", "unconditional",
                                   (0.71, 0.50, 0.36, 0.26, 0.18, 0.13, 0.10, 0.07, 0.04, 0.02),
                                   "EAGLE-family head, vLLM V1 (padded speculation, fixed), SpecBench, k = 10",
                                   _VLLM_26498 + "'[SpecBench], Padding Enabled (Fixed), K=10' (mean acceptance length "
                                   "3.36; 20,468 drafts, 204,680 draft tokens, 48,266 accepted)",
                                   "quoted from a public pull request thread"),
    # vLLM V1's EAGLE-3 at k = 8 on HumanEval, whole percents: the baseline table of pull request #32628 (parallel
    # token drafting for EAGLE, closed unmerged; this curve is its "Vanilla EAGLE3" run, not the proposed drafter).
    # Its description serves openai/gpt-oss-120b; the EAGLE-3 head is not named in the part read.
    "vllm-32628-eagle3-humaneval": ("eagle", "unconditional", (0.71, 0.49, 0.32, 0.21, 0.14, 0.09, 0.05, 0.03),
                                    "EAGLE-3, vLLM V1, gpt-oss-120b, HumanEval, k = 8",
                                    "vllm-project/vllm pull request #32628 ('feat: add parallel token drafting for "
                                    "EAGLE'), its description (hai-meh-cs, 2026-01-20), 'Vanilla EAGLE3 Results "
                                    "(HumanEval)', Per-Position Acceptance row K = 8 (Accept 25.7%: length 1 + 8 x "
                                    "0.257 = 3.056)", "quoted from a public pull request thread"),
    # n-gram prompt lookup at k = 5 on an editing workload (the same example script's print): a second n-gram
    # drafter, whose conditional rates barely fall (0.81, 0.91, 0.95, 0.97, 0.97).
    "vllm-24344-ngram": ("ngram", "unconditional", (0.81, 0.74, 0.70, 0.68, 0.66),
                         "n-gram prompt lookup (min 2, max 5), vLLM V1, code edits (vdaita/edit_5k_char), k = 5",
                         "vllm-project/vllm pull request #24344 ('[Spec Decode][Hybrid] Add ngram-eagle SD method'), "
                         "its description's 'method: ngram' run (--num_spec_tokens 5 --prompt_lookup_max 5 "
                         "--prompt_lookup_min 2, 90 prompts, output 2048): mean acceptance length 4.59, 993 drafts, "
                         "4,960 draft tokens, 3,562 accepted", "quoted from a public pull request thread"),
    # A DSpark drafter for Llama-3.2-1B-Instruct evaluated by vllm-project/speculators' evaluate.py on vLLM, one
    # row per RedHatAI/speculator_benchmarks subset (k = 8): pos_N, the share of blocks whose slot N survived, is
    # unconditional (each row's sum plus one is its acceptance_length to 0.001; checked in tests/test_acceptance.py).
    **{f"dspark-llama1b-{subset.lower().replace('_', '-')}": (
        "block", "unconditional", rates, f"Llama-3.2-1B-Instruct, DSpark draft (block 8), vLLM, {subset}",
        _DSPARK_1B + f"{subset} row (acceptance length {length:.3f})", "Apache-2.0")
       for subset, rates, length in _DSPARK_1B_ROWS},
    # Past k = 10: a block-diffusion drafter (DFlash, a separate draft model: family block) at k = 15 and a DSpark at
    # k = 8, each pooled over the nine subsets (one curve per drafter, as one engine log over the run would print
    # it, so no near-twin is left in the prior when a curve is held out). Small-data drafters (10K training samples):
    # their rates fall fast. The same study's FP8-hidden-state twins (within 0.5% of these) and its EAGLE-3 at k = 3
    # are left out.
    "speculators-fp8-dflash-qwen3-8b": ("block", "unconditional", pooled_rates(_FP8_ABLATION_DFLASH_ROWS),
                                        "Qwen3-8B, DFlash draft, vLLM, nine subsets, k = 15",
                                        _SPECULATORS_FP8 + "dflash_bf16_acceptance.csv @a910cec7, the nine rows pooled "
                                        "(528,145 drafts; weighted acceptance length 2.0600)", "Apache-2.0"),
    "speculators-fp8-dspark-qwen3-8b": ("block", "unconditional", pooled_rates(_FP8_ABLATION_DSPARK_ROWS),
                                        "Qwen3-8B, DSpark draft, vLLM 0.27.1, nine subsets, k = 8",
                                        _SPECULATORS_FP8 + "dspark_bf16_acceptance.csv @c9000597, the nine rows pooled "
                                        "(607,338 drafts; weighted acceptance length 2.2558)", "Apache-2.0"),
    # Engine curves at k = 7 from public threads (added December 2026, so engine logs weigh more against the reference
    # curves). Chosen before any prediction was looked at: k >= 5 with per-position rates, a drafter working as
    # intended, at least ~30 verifier calls behind the rates, one method family each (docs/READING.md lists the
    # threads read and not used, with the reason for each).
    # vLLM issue #26191 ('[Bug]: Performance Regression in Acceptance length for EAGLE3', tomasruizt, description; read
    # through a code-index copy of the text and the issues search corpus, neither showing its date) quotes the
    # run before the regression as its baseline ('Previous AL=3.53'; spec_decode.py, yuhuili/EAGLE3-LLaMA3.1-Instruct-8B
    # on meta-llama/Llama-3.1-8B-Instruct, --num_spec_tokens 7, philschmid/mt-bench, 80 prompts, --temp 0.0):
    #   num_drafts: 4816 / num_draft_tokens: 33712 / num_accepted_tokens: 12208 / mean acceptance length: 3.53
    #   acceptance at token 0..6: 0.74, 0.54, 0.41, 0.31, 0.23, 0.17, 0.13
    # Its 'Current AL=3.40' block (the regression, fixed by pull request #26498) is not used. Pull request #26498's K = 10
    # curves fix that issue on the same MT-Bench case, so the three curves are one drafter (SAME_DRAFTER).
    "vllm-26191-eagle3-mtbench": ("eagle", "unconditional", (0.74, 0.54, 0.41, 0.31, 0.23, 0.17, 0.13),
                                  "EAGLE-3 (yuhuili), Llama-3.1-8B-Instruct, vLLM V1, MT-Bench, k = 7",
                                  "vllm-project/vllm issue #26191 (tomasruizt, description), its 'Previous AL=3.53' "
                                  "block: 4,816 drafts, 33,712 draft tokens, 12,208 accepted, mean acceptance length "
                                  "3.53, acceptance at token 0..6 = 0.74, 0.54, 0.41, 0.31, 0.23, 0.17, 0.13",
                                  "quoted from a public issue thread"),
    # vllm-ascend pull request #11602 ('[Feature][MRV2] Add qwen dspark support for mrv2', wxsIcey, description,
    # 2026-07-08): examples/test_dspark_acceptance.py, Qwen3-8B with deepseek-ai/dspark_qwen3_8b_block7,
    # --num-spec-tokens 7, openai/gsm8k, 400 prompts, --temp 0, --output-len 256, on vllm-ascend (Model Runner V2):
    #   num_drafts: 13638 / num_draft_tokens: 95466 / num_accepted_tokens: 74759 / mean acceptance length: 6.48
    #   acceptance at token 0..6: 0.9471, 0.8904, 0.8319, 0.7782, 0.7284, 0.6780, 0.6277
    # The same description's GPU vLLM run (13,642 drafts, 74,717 accepted, 6.48) is the same drafter; its rates are
    # not in the part read. vllm-ascend pull request #11765's DSpark row (same drafter, target and dataset; no counts)
    # is left out as a near-twin of this one.
    "ascend-11602-dspark-qwen3-8b": ("block", "unconditional",
                                     (0.9471, 0.8904, 0.8319, 0.7782, 0.7284, 0.6780, 0.6277),
                                     "Qwen3-8B, DSpark draft (dspark_qwen3_8b_block7), vLLM-Ascend, GSM8K, k = 7",
                                     "vllm-project/vllm-ascend pull request #11602 (wxsIcey, description, 2026-07-08), "
                                     "its vllm-ascend run: 13,638 drafts, 95,466 draft tokens, 74,759 accepted, mean "
                                     "acceptance length 6.48, acceptance at token 0..6 = 0.9471, 0.8904, 0.8319, "
                                     "0.7782, 0.7284, 0.6780, 0.6277", "quoted from a public pull request thread"),
    # vllm-ascend pull request #11765 ('[Feature] Add qwen/glm dspark for mrv1', chenaoxuan, description, 2026-07-09),
    # its Performance Test table: 'The first 100 requests from gsm8k dataset, num_speculative_tokens=7, temperature=0
    # and without topk/topp, output_len=2048', row 'Qwen3-8B | DFlash | 4.73 | [0.85, 0.71, 0.59, 0.50, 0.42, 0.36,
    # 0.30]'. No counts are printed; 100 requests each need at least one verifier call (with up to 2,048 output tokens
    # at 4.73 a call, many more). The drafter is not named; its rates (0.85 first) are not the speculators FP8-study
    # DFlash's (0.58 first), so it is its own drafter.
    "ascend-11765-dflash-qwen3-8b": ("block", "unconditional", (0.85, 0.71, 0.59, 0.50, 0.42, 0.36, 0.30),
                                     "Qwen3-8B, DFlash draft, vLLM-Ascend, GSM8K (100 requests), k = 7",
                                     "vllm-project/vllm-ascend pull request #11765 (chenaoxuan, description, "
                                     "2026-07-09), its Performance Test table, the Qwen3-8B DFlash row: Acc Length "
                                     "4.73, Acc Rate per Position [0.85, 0.71, 0.59, 0.50, 0.42, 0.36, 0.30]",
                                     "quoted from a public pull request thread"),
    # Engine curves at k = 4 and 5 from public threads (added December 2026, the fourth search: the curation rules in
    # docs/READING.md were written before any of them was predicted; each prints its counts, worked by hand in
    # tests/test_acceptance_curves.py).
    # vLLM pull request #42764 ('[Model] Support post-norm architecture for EAGLE-3 supeculators', Dogacel, description,
    # 2026-05-15): its script (spec_decode_gptoss.py: philschmid/mt-bench first turns, 20 prompts, temperature 0.7,
    # max_tokens 2048, max_num_seqs 8, k = 5) run with an existing gpt-oss EAGLE-3 head and with the new post-norm
    # head (EAGLE-3.1, Dogacel/specdrift); each prints num_drafts and per position 'rate (count)':
    #   existing: 6590 drafts, 2.359; 0.622 (4098), 0.356 (2344), 0.203 (1339), 0.119 (783), 0.060 (394)
    #   ours:     7431 drafts, 2.346; 0.610 (4530), 0.342 (2544), 0.202 (1500), 0.120 (891), 0.072 (538)
    # The library keeps the counts over the drafts. The existing head is not named in the part read (a copy of the
    # script in the code index serves openai/gpt-oss-120b with nvidia/gpt-oss-120b-Eagle3-v3), so it may be the
    # unnamed gpt-oss-120b head of pull request #32628: it joins that drafter (SAME_DRAFTER), not a new vote.
    "vllm-42764-eagle31-gptoss": ("eagle", "unconditional", tuple(n / 7431 for n in (4530, 2544, 1500, 891, 538)),
                                  "EAGLE-3.1 post-norm head (Dogacel/specdrift), gpt-oss, vLLM V1, MT-Bench, k = 5",
                                  "vllm-project/vllm pull request #42764 (Dogacel, description, 2026-05-15), its 'Ours' "
                                  "block: 7,431 drafts, mean acceptance length 2.346, accepted at positions 0..4 = "
                                  "4530, 2544, 1500, 891, 538 (0.610, 0.342, 0.202, 0.120, 0.072)",
                                  "quoted from a public pull request thread"),
    "vllm-42764-eagle3-gptoss": ("eagle", "unconditional", tuple(n / 6590 for n in (4098, 2344, 1339, 783, 394)),
                                 "EAGLE-3 head (existing, not named), gpt-oss, vLLM V1, MT-Bench, k = 5",
                                 "vllm-project/vllm pull request #42764 (Dogacel, description, 2026-05-15), its "
                                 "'Existing' block: 6,590 drafts, mean acceptance length 2.359, accepted at positions "
                                 "0..4 = 4098, 2344, 1339, 783, 394 (0.622, 0.356, 0.203, 0.119, 0.060)",
                                 "quoted from a public pull request thread"),
    # vLLM pull request #43010 ('Add parallel drafting to v2 model runner unsupported features', shanjiaz,
    # description, 2026-05-18): the speculators correctness test's P-EAGLE run after the fix (the thread's subject is
    # the collapse it fixes; the line used is the fixed run): nm-testing/qwen3-8b-peagle-speculators (a parallel-drafting
    # EAGLE-3 head for Qwen3-8B, k = 4 from its config, trained on limited data for tests) on GSM8K:
    #   num_drafts 66849 / num_draft_tokens 267396 / num_accepted_tokens 89024 / per-position accepted tokens
    #   [45145, 25136, 13110, 5633]; rates 0.6753, 0.3760, 0.1961, 0.0843; acceptance_len 2.3317
    "vllm-43010-peagle-qwen3-8b": ("eagle", "unconditional", tuple(n / 66849 for n in (45145, 25136, 13110, 5633)),
                                   "P-EAGLE (parallel drafting) head, Qwen3-8B, vLLM V1, GSM8K, k = 4",
                                   "vllm-project/vllm pull request #43010 (shanjiaz, description, 2026-05-18), its "
                                   "test result: 66,849 drafts, 267,396 draft tokens, 89,024 accepted, per-position "
                                   "accepted tokens 45145, 25136, 13110, 5633, acceptance length 2.3317",
                                   "quoted from a public pull request thread"),
    # ggml-org/llama.cpp pull request #27917 ('Add MTP for GLM-5.3-Flash', timkhronos, description, 2026-08-28; open
    # when read): llama-server's MTP draft head of GLM-5.3-Flash (the layer quantized to Q4), five positions:
    #   draft acceptance = 0.74485 ( 3474 accepted /  4664 generated), mean len =  4.13
    #   acc per pos = (0.924, 0.813, 0.600, 0.441, 0.348)
    # llama.cpp divides each position's count by the drafts (pull request #24536); 3474 / (4.13 - 1) gives 1,109 to
    # 1,111 drafts and the rates' sum 1,111 to 1,112, so 1,111, whose counts (1027, 903, 667, 490, 387) give every
    # printed rate and sum to 3474. 4,664 draft tokens over 1,111 drafts is 4.2 a draft: drafts stop early below the
    # draft confidence floor, so, as with the suffix curve, 1 + a_1 + ... + a_k is the length with drafts capped at k.
    "llamacpp-27917-glm53flash-mtp": ("mtp", "unconditional", (0.924, 0.813, 0.600, 0.441, 0.348),
                                      "GLM-5.3-Flash, MTP head (Q4), llama.cpp server, up to 5 a draft",
                                      "ggml-org/llama.cpp pull request #27917 (timkhronos, description, 2026-08-28): "
                                      "'draft acceptance = 0.74485 ( 3474 accepted /  4664 generated), mean len =  "
                                      "4.13', 'acc per pos = (0.924, 0.813, 0.600, 0.441, 0.348)'",
                                      "quoted from a public pull request thread"),
    # vLLM pull request #24344 (above), its second 'method: ngram' run: the same n-gram settings (--num_spec_tokens 5
    # --prompt_lookup_max 5 --prompt_lookup_min 2, the script's default target) on likaixin/InstructCoder, 1000
    # prompts: 30,249 drafts, 150,775 draft tokens, 79,552 accepted, mean acceptance length 3.63, acceptance at token
    # 0..4 = 0.69, 0.57, 0.50, 0.45, 0.42. The same drafter as the edit run (SAME_DRAFTER).
    "vllm-24344-ngram-instructcoder": ("ngram", "unconditional", (0.69, 0.57, 0.50, 0.45, 0.42),
                                       "n-gram prompt lookup (min 2, max 5), vLLM V1, InstructCoder, k = 5",
                                       "vllm-project/vllm pull request #24344 (ekagra-ranjan, description), its "
                                       "'method: ngram' run on likaixin/InstructCoder (--num-prompts 1000): mean "
                                       "acceptance length 3.63, 30,249 drafts, 150,775 draft tokens, 79,552 accepted",
                                       "quoted from a public pull request thread"),
    # The fifth search (December 2026; the rules in docs/READING.md were written before any of these was predicted).
    # Six reference curves at k = 1..7 (two EAGLE-3 drafters for Qwen3-8B, three use cases each: one drafter per
    # SAME_DRAFTER group), as speculators issue #563 prints them (above).
    **{f"speculators-563-eagle3-{arch.lower()}-qwen3-8b-{case.lower()}": (
        "eagle", "lengths", lengths, f"Qwen3-8B, EAGLE-3 ({arch} base), {case}, temperature 0.6",
        _SPECULATORS_563 + f"{case} row, the {arch}-arch lengths at k = 1..7", "quoted from a public issue thread")
       for case, qwen3, llama in _SPECULATORS_563_ROWS for arch, lengths in (("Qwen3", qwen3), ("Llama", llama))},
    # Two drafters' per-position rates at k = 5 on Qwen3-30B-A3B, averaged over the nine subsets (speculators PR #610).
    "speculators-610-eagle3-qwen3-30b": ("eagle", "unconditional", _SPECULATORS_610_ROWS["Eagle 3 (Llama)"][2],
                                         "Qwen3-30B-A3B, EAGLE-3 (Llama base), nine subsets, k = 5",
                                         _SPECULATORS_610 + "'Eagle 3 (Llama)' column: average acceptance length 2.156, "
                                         "per-position rates 0.5858, 0.2991, 0.1491, 0.0790, 0.0423 (9 x 80 requests)",
                                         "quoted from a public pull request thread"),
    "speculators-610-eagle31-qwen3-30b": ("eagle", "unconditional",
                                          _SPECULATORS_610_ROWS["Eagle 3.1 fc-norm (Llama)"][2],
                                          "Qwen3-30B-A3B, EAGLE-3.1 fc-norm (Llama base), nine subsets, k = 5",
                                          _SPECULATORS_610 + "'Eagle 3.1 fc-norm (Llama)' column: average acceptance "
                                          "length 2.180, per-position rates 0.5890, 0.3028, 0.1558, 0.0846, 0.0481 "
                                          "(9 x 80 requests)", "quoted from a public pull request thread"),
    # DFlash at k = 5 on Qwen3.6-27B (club-3090's results files), each file's three windows pooled (876 drafts); the
    # two files are one drafter on one target (vision tower on and off): SAME_DRAFTER.
    "club3090-qwen3.6-27b-dflash": ("block", "unconditional", pooled_rates(_CLUB3090_DFLASH_ROWS["dual-dflash"]),
                                    "Qwen3.6-27B INT4, DFlash draft, vLLM, two RTX 3090, k = 5",
                                    _CLUB3090_DFLASH + "dual-dflash-bench.txt, its last three SpecDecoding lines "
                                    "(05-01 19:24:24 to 19:24:44; 876 drafts, 2,873 accepted)", "Apache-2.0"),
    "club3090-qwen3.6-27b-dflash-noviz": ("block", "unconditional",
                                          pooled_rates(_CLUB3090_DFLASH_ROWS["dual-dflash-noviz"]),
                                          "Qwen3.6-27B INT4, DFlash draft, vLLM, no vision tower, k = 5",
                                          _CLUB3090_DFLASH + "dual-dflash-noviz-bench.txt, its last three SpecDecoding "
                                          "lines (05-01 19:32:33 to 19:32:53; 876 drafts, 2,862 accepted)",
                                          "Apache-2.0"),
    # The seventh search: a test-trained DSpark drafter on Qwen3-8B at k = 8 (speculators #822, above), its own drafter.
    "speculators-822-dspark-qwen3-8b": ("block", "unconditional",
                                        tuple(n / _SPECULATORS_822_DRAFTS for n in _SPECULATORS_822_COUNTS),
                                        "Qwen3-8B, DSpark draft (speculators regression test), vLLM, 3 prompts, k = 8",
                                        _SPECULATORS_822 + "1,035 drafts, 8,280 draft tokens, 499 accepted, acceptance "
                                        "length 1.4821, acceptance at tokens 0..7 = 333, 111, 37, 13, 5, 0, 0, 0 drafts "
                                        "of 1,035", "quoted from a public pull request thread"),
    # The eighth search: a released P-EAGLE drafter on Qwen3-8B at k = 7, its nine subsets' equal-weight mean (above);
    # its own drafter (not the test-trained P-EAGLE head of vLLM #43010, a different checkpoint).
    "speculators-v060-peagle-qwen3-8b": ("eagle", "unconditional", mean_rates(_SPECULATORS_V060_PEAGLE_ROWS, 0.01),
                                         "Qwen3-8B, P-EAGLE (RedHatAI/Qwen3-8B-speculator.peagle), vLLM, nine subsets, "
                                         "k = 7", _SPECULATORS_V060 + "the nine rows' equal-weight mean (1 + the mean "
                                         "rates' sum 3.0431; the printed lengths average 3.0444; 80 requests a "
                                         "subset)", "quoted from a public release note (Apache-2.0 repository)"),
    # Three reference curves found on 5 December 2026 in a fork of InferenceX (wufann/InferenceX, whose files are
    # upstream's, Apache-2.0), collected by the same SPEED-Bench coding workflow. Before they joined the library the
    # model predicted each from k = 1 and k = 1..2 as a reader would (`python -m lab acceptance --lengths ...`): out of
    # sample, errors at the largest k -5.6%, +4.9%, +1.5% from k = 1 (i.i.d. +2.1%, +9.7%, +7.6%) and -2.6%, +0.1%,
    # -0.6% from k = 1..2 (i.i.d. +0.9%, +6.4%, +4.2%) (docs/READING.md, "Three curves the model had not seen").
    "qwen3.8-flash-next-mtp-thinking": ("mtp", "lengths", (1.65, 2.06, 2.32, 2.47, 2.59, 2.66),
                                        "Qwen3.8-Flash-Next FP8, MTP (native), thinking on", _IX_FORK_QWEN38
                                        + "qwen3.8next_mtp.yaml (thinking_on)", "Apache-2.0"),
    "dsv4.1-flash-dspark-thinking": ("block", "lengths", (1.81, 2.43, 2.90, 3.26, 3.51),
                                     "DeepSeek-V4.1-Flash, DSpark draft, block rejection, thinking on",
                                     _IX_FORK_DSV41 + "dsv41flash_dspark.yaml (thinking_on)", "Apache-2.0"),
    "dsv4.1-flash-dspark": ("block", "lengths", (1.88, 2.62, 3.27, 3.73, 4.07),
                            "DeepSeek-V4.1-Flash, DSpark draft, block rejection, thinking off",
                            _IX_FORK_DSV41 + "dsv41flash_dspark.yaml (thinking_off)", "Apache-2.0"),
    # The ninth search: four DFlash engine curves from speculators #613 (above), predicted out of sample before they
    # joined: from k = 1 -12.9%, -30.4%, -10.8%, +11.8% (i.i.d. -2.2%, -21.3%, +12.1%, +58.2%), from k = 1..2 -12.0%,
    # -17.2%, -9.8%, -13.3% (i.i.d. -4.1%, -16.5%, +8.5%, +28.4%). z-lab's two have conditional rates that rise with
    # position, which the model's falling prior for a model drafter does not follow.
    "speculators-613-zlab-dflash-qwen3.6-35b": (
        "block", "unconditional", tuple(p / 100 for p in _SPECULATORS_613_BENCH["06-16"][4]),
        "Qwen3.6-35B-A3B NVFP4, DFlash draft (z-lab), vLLM 0.22.1, 640 internal prompts, k = 8",
        _SPECULATORS_613 + "comment of 2026-06-16 (huaxuan250), z-lab/Qwen3.6-35B-A3B-DFlash's 'vllm bench serve' "
        "block: 446,819 drafts, 3,574,552 draft tokens, 1,685,779 accepted, acceptance length 4.77, per-position "
        "acceptance 82.27 ... 26.34%", "quoted from a public issue thread"),
    "speculators-613-zlab-dflash-qwen3.6-35b-garp": (
        "block", "unconditional", tuple(p / 100 for p in _SPECULATORS_613_BENCH["07-07"][4]),
        "Qwen3.6-35B-A3B NVFP4, DFlash draft (z-lab), vLLM, 320 internal prompts, temperature 0, k = 8",
        _SPECULATORS_613 + "comment of 2026-07-07 (huaxuan250), its 'Z-Lab' block (the drafter's config as the "
        "06-16 comment prints z-lab's): 255,426 drafts, 2,043,408 draft tokens, 1,347,987 accepted, acceptance length "
        "6.28, per-position acceptance 83.95 ... 55.33%", "quoted from a public issue thread"),
    "speculators-613-dflash-qwen3.5-4b-ultrachat": (
        "block", "unconditional",
        tuple(n / _SPECULATORS_613_K15["qwen3.5-4b"][0] for n in _SPECULATORS_613_K15["qwen3.5-4b"][1]),
        "Qwen3.5-4B, DFlash draft trained on UltraChat, vLLM, one request (temperature 0), k = 15",
        _SPECULATORS_613 + "comment of 2026-07-01 (huaxuan250), SpecDecoding line 07-01 19:08:52: mean 4.97, "
        "Accepted 699, Drafted 2640 (176 drafts), rates 0.830 ... 0.011", "quoted from a public issue thread"),
    "speculators-613-dflash-qwen3.6-35b-ultrachat": (
        "block", "unconditional",
        tuple(n / _SPECULATORS_613_K15["qwen3.6-35b"][0] for n in _SPECULATORS_613_K15["qwen3.6-35b"][1]),
        "Qwen3.6-35B-A3B NVFP4, DFlash draft trained on UltraChat, vLLM, one request, k = 15",
        _SPECULATORS_613 + "comment of 2026-07-01 (huaxuan250, 'Qwen3.6 MOE'), SpecDecoding line 07-01 21:33:03: "
        "mean 5.05, Accepted 352, Drafted 1305 (87 drafts), rates 0.897 ... 0.011", "quoted from a public issue thread"),
    # The tenth search: classic autoregressive draft models (family draft: a separate draft model) and EAGLE-3 heads
    # from tomasruizt/vllm-scripts (above), predicted out of sample before they joined: the five draft-model curves'
    # conditional rates rise with position (+0.8 to +2.0 points a position), which the draft family's falling prior
    # did not follow (docs/READING.md, "classic draft models the model has never seen"); since then the block drafters
    # are family block and these the whole draft family (docs/READING.md, "... are two families").
    "tomasruizt-draft-llama3.2-1b-llama3.3-70b": _vllm_scripts_curve(
        "llama3.3-70b-draft", "draft", "Llama-3.3-70B-Instruct, Llama-3.2-1B draft model, vLLM V1, InstructCoder, k = 8"),
    "tomasruizt-eagle3-llama3.3-70b": _vllm_scripts_curve(
        "llama3.3-70b-eagle3", "eagle", "Llama-3.3-70B-Instruct, EAGLE-3 (yuhuili), vLLM V1, InstructCoder, k = 8"),
    "tomasruizt-draft-qwen3-1.7b-qwen3-32b-instructcoder": _vllm_scripts_curve(
        "qwen3-32b-draft-1.7b-instructcoder", "draft", "Qwen3-32B, Qwen3-1.7B draft model, vLLM V1, InstructCoder, k = 6"),
    "tomasruizt-draft-qwen3-1.7b-qwen3-32b-mtbench": _vllm_scripts_curve(
        "qwen3-32b-draft-1.7b-mtbench", "draft", "Qwen3-32B, Qwen3-1.7B draft model, vLLM V1, MT-Bench, k = 6"),
    "tomasruizt-draft-qwen3-4b-qwen3-32b-instructcoder": _vllm_scripts_curve(
        "qwen3-32b-draft-4b-instructcoder", "draft", "Qwen3-32B, Qwen3-4B draft model, vLLM V1, InstructCoder, k = 6"),
    "tomasruizt-draft-qwen3-4b-qwen3-32b-mtbench": _vllm_scripts_curve(
        "qwen3-32b-draft-4b-mtbench", "draft", "Qwen3-32B, Qwen3-4B draft model, vLLM V1, MT-Bench, k = 6"),
    "tomasruizt-eagle3-qwen3-32b-instructcoder": _vllm_scripts_curve(
        "qwen3-32b-eagle3-instructcoder", "eagle",
        "Qwen3-32B, EAGLE-3 (RedHatAI speculator), vLLM V1, InstructCoder, k = 6"),
    "tomasruizt-eagle3-qwen3-32b-mtbench": _vllm_scripts_curve(
        "qwen3-32b-eagle3-mtbench", "eagle", "Qwen3-32B, EAGLE-3 (RedHatAI speculator), vLLM V1, MT-Bench, k = 6"),
}

# Curves that measure one drafter on one target (thinking on and off, one evaluation's subsets, a sampling variant
# of the same checkpoints): one piece of evidence about how that drafter's acceptance falls, so the prior's median
# gives the group one vote in all (lab.acceptance.prior). Every other curve is its own drafter.
SAME_DRAFTER = {
    "dsv4-pro-mtp": ("dsv4-pro-mtp-thinking", "dsv4-pro-mtp"),
    "qwen3.5-397b-mtp": ("qwen3.5-397b-mtp-thinking", "qwen3.5-397b-mtp"),
    "kimi-k2.5-eagle3": ("kimi-k2.5-eagle3-thinking", "kimi-k2.5-eagle3"),
    "minimax-m3-eagle3": ("minimax-m3-eagle3-thinking", "minimax-m3-eagle3"),
    "minimax-m3-eagle3-gqa": ("minimax-m3-eagle3-gqa-thinking", "minimax-m3-eagle3-gqa"),
    "kimi-k3-dspark": ("kimi-k3-dspark-thinking", "kimi-k3-dspark-block-thinking"),
    "dsv4-pro-0813-dspark": ("dsv4-pro-0813-dspark-thinking", "dsv4-pro-0813-dspark"),
    "dsv4-pro-dspark": ("dsv4-pro-dspark-thinking", "dsv4-pro-dspark"),
    "dsv4.1-flash-dspark": ("dsv4.1-flash-dspark-thinking", "dsv4.1-flash-dspark"),
    "dspark-llama1b": tuple(name for name in CURVES if name.startswith("dspark-llama1b-")),
    "vllm-26498-eagle": ("vllm-26498-eagle-mtbench", "vllm-26498-eagle-specbench", "vllm-26191-eagle3-mtbench"),
    # One n-gram configuration on one target, two workloads; an unnamed gpt-oss EAGLE-3 head that may be #32628's.
    "vllm-24344-ngram": ("vllm-24344-ngram", "vllm-24344-ngram-instructcoder"),
    "vllm-32628-eagle3-humaneval": ("vllm-32628-eagle3-humaneval", "vllm-42764-eagle3-gptoss"),
    # The fifth search: each EAGLE-3 drafter of speculators #563 on its three use cases; club-3090's DFlash with and
    # without the vision tower.
    "speculators-563-eagle3-qwen3": tuple(name for name in CURVES if name.startswith("speculators-563-eagle3-qwen3-")),
    "speculators-563-eagle3-llama": tuple(name for name in CURVES if name.startswith("speculators-563-eagle3-llama-")),
    "club3090-qwen3.6-27b-dflash": ("club3090-qwen3.6-27b-dflash", "club3090-qwen3.6-27b-dflash-noviz"),
    # The ninth search: z-lab's DFlash drafter on Qwen3.6-35B-A3B on two internal workloads (speculators #613).
    "speculators-613-zlab-dflash-qwen3.6-35b": ("speculators-613-zlab-dflash-qwen3.6-35b",
                                                "speculators-613-zlab-dflash-qwen3.6-35b-garp"),
    # The tenth search: each Qwen3-32B drafter of tomasruizt/vllm-scripts on InstructCoder and MT-Bench.
    "tomasruizt-draft-qwen3-1.7b-qwen3-32b": ("tomasruizt-draft-qwen3-1.7b-qwen3-32b-instructcoder",
                                              "tomasruizt-draft-qwen3-1.7b-qwen3-32b-mtbench"),
    "tomasruizt-draft-qwen3-4b-qwen3-32b": ("tomasruizt-draft-qwen3-4b-qwen3-32b-instructcoder",
                                            "tomasruizt-draft-qwen3-4b-qwen3-32b-mtbench"),
    "tomasruizt-eagle3-qwen3-32b": ("tomasruizt-eagle3-qwen3-32b-instructcoder", "tomasruizt-eagle3-qwen3-32b-mtbench"),
}


def drafter_of(name: str) -> str:
    """The drafter (a drafter on one target) a library curve measures: its SAME_DRAFTER group, else itself.

    >>> drafter_of("qwen3.5-397b-mtp-thinking"), drafter_of("vllm-48892-mtp8")
    ('qwen3.5-397b-mtp', 'vllm-48892-mtp8')
    """
    for group, names in SAME_DRAFTER.items():
        if name in names:
            return group
    return name
