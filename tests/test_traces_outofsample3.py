"""The trace reader out of sample, third pass (6 December 2026, branch pastes11): public engine output that no test had
used (not the texts of tests/test_traces_outofsample.py or tests/test_traces_outofsample2.py, nor any earlier sample),
found through the search tools (issues corpus, code index), run through the reader at main 3e6c49b BEFORE any change
and only then fixed where it misread. 25 texts, 14 at k = 5 to 15; 21 read right before (a correct refusal counts as
right). Each expectation is worked by hand in the comment beside it from the text's own printed figures (each vLLM
line's calls = Drafted / k, its mean 1 + Accepted / calls printed back, each count = rate x calls rounded, the counts
summing to the line's Accepted; each bench block's calls = Drafts, Draft tokens / Drafts = k); none was taken from
running the reader. Only the lines needed are quoted. docs/READING.md ("December 2026: the trace reader out of sample,
third pass") lists the sources and what the reader returned before and after."""

import pytest

from lab import traces
from lab.traces.common import LookaheadMissing, TraceError


def _counts(trace):
    return trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition


def _line(pid, stamp, where, mean, tps, accepted, drafted, rates, avg):
    """A vLLM SpecDecoding metrics line as the text printed it."""
    return (f"(APIServer pid={pid}) INFO {stamp} [metrics.py:{where}] SpecDecoding metrics: Mean acceptance length: "
            f"{mean}, Accepted throughput: {tps[0]} tokens/s, Drafted throughput: {tps[1]} tokens/s, Accepted: "
            f"{accepted} tokens, Drafted: {drafted} tokens, Per-position acceptance rate: {rates}, Avg Draft "
            f"acceptance rate: {avg}%\n")


# --- read right before (guards) --------------------------------------------------------------------------------------

# a note on serving DeepSeek-V4-Flash-0731 with its DSpark drafter on vLLM 0.26.0 ('num_speculative_tokens': 7;
# code index, lines of 08-04; the index does not name its repository): two intervals, an elision, a third
DSPARK_K7 = (_line(347228, "08-04 20:51:08", 120, "3.49", ("0.12", "0.34"), 92, 259,
                   "0.757, 0.622, 0.432, 0.324, 0.189, 0.108, 0.054", "35.5")
             + "\n\n...\n\n"
             + _line(347228, "08-04 21:01:58", 120, "7.24", ("23.10", "25.90"), 231, 259,
                     "1.000, 1.000, 0.973, 0.973, 0.892, 0.784, 0.622", "89.2")
             + '(APIServer pid=347228) INFO:     127.0.0.1:56326 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
             + _line(347228, "08-04 21:02:08", 120, "7.50", ("3.90", "4.20"), 39, 42,
                     "1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 0.500", "92.9"))


def test_dspark_k7_three_intervals_around_an_elision():
    # 259 / 7 = 37 (1 + 92 / 37 = 3.486): 28.01, 23.01, 15.98, 11.99, 6.99, 4.0, 2.0 -> 28, 23, 16, 12, 7, 4, 2 (92);
    # 259 / 7 = 37 (1 + 231 / 37 = 7.243): 37, 37, 36.0, 36.0, 33.0, 29.01, 23.01 -> (231); 42 / 7 = 6 (1 + 39 / 6 =
    # 7.5): 6 x 6, 3 (39). Together 80 calls, (71, 66, 58, 54, 46, 39, 28), 362 accepted
    assert _counts(traces.parse(DSPARK_K7)) == (7, 80, 560, 362, (71, 66, 58, 54, 46, 39, 28))


# a TPU DFlash port's development note ('Doc 62 Appendix: Raw Benchmark Logs', 2026-03-15, vllm/vllm-tpu; code index;
# cited by the curve searches below, never read by the reader): one k = 15 line a fence, the baseline and the cold run
TPU_K15 = ("```\n" + _line(10, "03-15 16:06:44", 100, "3.53", ("7.34", "43.54"), 455, 2700,
                           "0.722, 0.528, 0.389, 0.278, 0.139, 0.111, 0.083, 0.083, " + ", ".join(["0.028"] * 7), "16.9")
           + "```\n")
TPU_K15_COLD = ("```\n" + _line(10, "03-15 15:46:04", 100, "1.78", ("0.64", "12.37"), 14, 270,
                                "0.444, 0.222, 0.111, " + ", ".join(["0.000"] * 12), "5.2") + "```\n")


@pytest.mark.parametrize("text, expected", [
    # 2700 / 15 = 180 (1 + 455 / 180 = 3.528): 129.96, 95.04, 70.02, 50.04, 25.02, 19.98, 14.94, 14.94, 5.04 x 7 ->
    # 130, 95, 70, 50, 25, 20, 15, 15, 5 x 7 (sum 455)
    (TPU_K15, (15, 180, 2700, 455, (130, 95, 70, 50, 25, 20, 15, 15) + (5,) * 7)),
    # 270 / 15 = 18 (1 + 14 / 18 = 1.778): 7.99, 4.0, 2.0, then zeros (sum 14)
    (TPU_K15_COLD, (15, 18, 270, 14, (8, 4, 2) + (0,) * 12)),
])
def test_tpu_dflash_k15_lines(text, expected):
    assert _counts(traces.parse(text)) == expected


# a note deploying SGLang's DFlash (PR #23000) on a DGX Spark, verified 2026-07-14 with Qwen3.6-27B and z-lab's DFlash
# draft (code index): the decode lines quoted with their middle elided
SGLANG_DFLASH = """```
Decode batch ... accept len: 5.30, accept rate: 0.29, gen throughput (token/s): 1.41   \u2190 JIT
Decode batch ... accept len: 3.62, accept rate: 0.17, gen throughput (token/s): 10.57  \u2190 steady
```
"""


def test_sglang_dflash_lines_give_k15_from_the_accept_rate():
    # the newer rate (accept len - 1) / k: k = 15 gives 4.30 / 15 = 0.287 -> 0.29 and 2.62 / 15 = 0.175 -> 0.17
    # (k = 14: 0.31, k = 16: 0.27; the older accept len / (k + 1) fits no k for both); no counts: the two means
    # averaged unweighted, (5.30 + 3.62) / 2 = 4.46
    trace = traces.parse(SGLANG_DFLASH)
    assert (trace.lookahead, trace.drafts) == (15, None)
    assert trace.meanAcceptanceLength == pytest.approx(4.46)


# sgl-project/sgl-kernel-npu#608 (666syh, description, lines of 2026-07-21): SGLang on Ascend NPUs ('npu graph'), its
# three decode lines (the prefill and request lines between them not quoted)
SGLANG_NPU = "".join(
    f"[2026-07-21 15:00:{s} TP0 EP0] Decode batch, #running-req: {r}, #token: {t}, token usage: {u}, accept len: {l}, "
    f"accept rate: {a}, npu graph: True, gen throughput (token/s): {g}, #queue-req: {q}\n"
    for s, r, t, u, l, a, g, q in (("13", 24, 233600, "0.66", "3.05", "0.68", "239.06", 2),
                                   ("17", 23, 227968, "0.64", "2.63", "0.54", "631.96", 3),
                                   ("21", 22, 222720, "0.63", "2.83", "0.61", "648.87", 4)))

# mit-han-lab/fastrl#4 (Ximingwang-09, description, 2025-12-04): a fork's decode lines ('Decode batch.') above its
# adaptive-speculation batch threshold
FASTRL = "".join(
    f"2025-12-04 20:35:53 INFO 151972 [scheduler_metrics_mixin.py:287] Decode batch. #running-req: 48, #token: {t}, token "
    f"usage: 0.00, accept len: 1.00, accept rate: 0.11, cuda graph: False, gen throughput (token/s): {g}, #queue-req: 0, \n"
    for t, g in ((3894, "5452.63"), (5814, "5399.46")))


@pytest.mark.parametrize("text, k, mean", [
    # (3.05 - 1) / 3 = 0.683, (2.63 - 1) / 3 = 0.543, (2.83 - 1) / 3 = 0.610: k = 3 in the newer rate (the older
    # accept len / (k + 1) fits no k: 3.05 / 0.68 = 4.49); (3.05 + 2.63 + 2.83) / 3 = 2.837, unweighted
    (SGLANG_NPU, 3, (3.05 + 2.63 + 2.83) / 3),
    # accept len 1.00 and rate 0.11: the newer rate would be 0 at any k; the older 1.00 / (k + 1) = 0.11 gives k + 1 in
    # [0.995 / 0.115, 1.005 / 0.105] = [8.65, 9.57], so k = 8; the mean 1.00 (the PR says speculation is switched off
    # above its batch threshold: the lines cannot say whether nothing was drafted or nothing accepted)
    (FASTRL, 8, 1.00),
])
def test_sglang_decode_lines_on_npu_and_in_a_fork(text, k, mean):
    trace = traces.parse(text)
    assert (trace.format, trace.lookahead, trace.drafts) == ("sglang-log", k, None)
    assert trace.meanAcceptanceLength == pytest.approx(mean)


# a development journal (2026-05-13, 'DFlash acceptance scales inversely with concurrency'; code index): the line
# abridged to 'SpecDecoding: ...' with seven rates
DFLASH_SHORT = """```
SpecDecoding: Mean acceptance length: 8.00, ... Per-position acceptance rate: 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000
Engine: Avg generation throughput: 180.0 tokens/s, Running: 1 reqs
```
"""


def test_abridged_dflash_line_k7():
    # seven rates: k = 7, mean 8.00 = 1 + 7 x 1.000; no counts
    trace = traces.parse(DFLASH_SHORT)
    assert (trace.lookahead, trace.drafts, trace.meanAcceptanceLength) == (7, None, 8.00)


# a Qwen3.5 MTP x 3 log analysis (lines of 09-22, pid 118; code index): one line in a fence, then two lines whose
# throughputs the note elided
QWEN_K3 = ("```\n" + _line(118, "09-22 16:27:33", 120, "2.49", ("7.00", "14.10"), 70, 141, "0.723, 0.447, 0.319", "49.6")
           + "```\n```\n"
           + "(APIServer pid=118) INFO 09-22 16:23:33 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: "
             "3.33, ... Accepted: 7 tokens, Drafted: 9 tokens, Per-position acceptance rate: 1.000, 0.667, 0.667, "
             "Avg Draft acceptance rate: 77.8%\n"
           + "(APIServer pid=118) INFO 09-22 16:23:13 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: "
             "2.60, ... Accepted: 8 tokens, Drafted: 15 tokens, Per-position acceptance rate: 0.800, 0.400, 0.400, "
             "Avg Draft acceptance rate: 53.3%\n```\n")


def test_k3_lines_some_with_their_throughputs_elided():
    # 141 / 3 = 47: 33.98, 21.01, 14.99 -> 34, 21, 15 (70); 9 / 3 = 3: 3, 2.0, 2.0 (7); 15 / 3 = 5: 4, 2, 2 (8)
    assert _counts(traces.parse(QWEN_K3)) == (3, 55, 165, 85, (41, 25, 19))


# eugr/spark-vllm-docker#343 (sergioamsilva, description, 2026-08-10): gemma4-26b-a4b MTP at 4 and at 2 drafts, the
# rates quoted with the Avg Draft acceptance rate on the line below
@pytest.mark.parametrize("rates, avg, k, mean", [
    ("0.844, 0.599, 0.385, 0.271", "52.5", 4, 3.099),  # 1 + 2.099; 2.099 / 4 = 52.5%
    ("0.766, 0.545", "65.5", 2, 2.311),                # 1 + 1.311; 1.311 / 2 = 65.55%
])
def test_eugr_343_rates_quoted_alone(rates, avg, k, mean):
    trace = traces.parse(f"```\nPer-position acceptance rate: {rates}\nAvg Draft acceptance rate: {avg}%\n```\n")
    assert (trace.lookahead, trace.drafts) == (k, None)
    assert trace.meanAcceptanceLength == pytest.approx(mean)


# a note comparing vLLM's server and LLM() paths with a Llama4 EAGLE drafter at k = 4 (code index): lines wrapped after
# each field, without counts
LLAMA4_K4 = """```
INFO SpecDecoding metrics: Mean acceptance length: 2.89,
Per-position acceptance rate: 0.763, 0.516, 0.354, 0.256,
Avg Draft acceptance rate: 47.4%

INFO SpecDecoding metrics: Mean acceptance length: 2.81,
Per-position acceptance rate: 0.758, 0.506, 0.341, 0.203,
Avg Draft acceptance rate: 45.3%
```
"""


def test_wrapped_abridged_lines_k4():
    # four rates: k = 4; no counts: the two means averaged unweighted, (2.89 + 2.81) / 2 = 2.85
    trace = traces.parse(LLAMA4_K4)
    assert (trace.lookahead, trace.drafts) == (4, None)
    assert trace.meanAcceptanceLength == pytest.approx(2.85)


# vllm-project/vllm#26498 (benchislett, description, 2025-10): the spec_decode example's '[SpecBench], Padding Enabled
# (Fixed), K=10' block (the MT-Bench block of the same description is in tests/test_traces_engines.py)
VLLM_26498_SPECBENCH = """--------------------------------------------------
total_num_output_tokens: 68596
num_drafts: 20468
num_draft_tokens: 204680
num_accepted_tokens: 48266
mean acceptance length: 3.36
--------------------------------------------------
""" + "".join(f"acceptance at token {i}: {r}\n" for i, r in enumerate(
    ("0.71", "0.50", "0.36", "0.26", "0.18", "0.13", "0.10", "0.07", "0.04", "0.02")))


def test_spec_decode_summary_k10():
    # 204680 = 10 x 20468; 1 + 48266 / 20468 = 3.358 (printed 3.36); each 2-decimal rate fixes its count within
    # +-0.005 x 20468 = 102: 0.71 x 20468 = 14532.3 ... 0.02 x 20468 = 409.4
    trace = traces.parse(VLLM_26498_SPECBENCH)
    assert _counts(trace)[:4] == (10, 20468, 204680, 48266)
    printed = (0.71, 0.50, 0.36, 0.26, 0.18, 0.13, 0.10, 0.07, 0.04, 0.02)
    assert all(abs(count - rate * 20468) <= 0.005 * 20468 for count, rate in zip(trace.perPosition, printed))


# a llama.cpp MTP note's annexed logs (code index; its first run's lines are in tests/test_traces_real.py): the
# second run with q4 K and V, and the first run with f16 K and V whose fence opens on the first log line
LLAMA_RUN2 = """```
0.43.828.261 I slot print_timing: id  0 | task 144 | draft acceptance = 0.57828 (  229 accepted /   396 generated), mean acceptance length =  3.31, acceptance rate per position = (0.778, 0.636, 0.495, 0.404)
0.43.828.282 I statistics        draft-mtp: #calls(b,g,a) =    3    233    233, #gen drafts =    233, #acc drafts =   186, #gen tokens =    932, #acc tokens =   583, #mean acc len = 3.50, #acc rate/pos = (0.798, 0.682, 0.567, 0.455), dur(b,g,a) = 0.006, 1417.448, 0.462 ms
```
"""
LLAMA_GLUED_FENCE = """```0.10.655.055 I slot print_timing: id  0 | task 0 | n_decoded =    374, tg = 123.96 t/s, tg_3s = 123.95 t/s
0.11.730.879 I slot print_timing: id  0 | task 0 | draft acceptance = 0.66312 (  374 accepted /   564 generated), mean acceptance length =  3.65, acceptance rate per position = (0.809, 0.723, 0.596, 0.525)
0.11.730.906 I statistics        draft-mtp: #calls(b,g,a) =    1    141    141, #gen drafts =    141, #acc drafts =   114, #gen tokens =    564, #acc tokens =   374, #mean acc len = 3.65, #acc rate/pos = (0.809, 0.723, 0.596, 0.525), dur(b,g,a) = 0.003, 662.976, 0.282 ms
```
"""


@pytest.mark.parametrize("text, expected", [
    # the statistics line is the server's cumulative count (both runs: 134 + 99 calls), read before the request line:
    # 233 calls, 932 = 4 x 233, 1 + 583 / 233 = 3.502; 185.9, 158.9, 132.1, 106.0 -> 186 (= #acc drafts), 159, 132,
    # 106 (sum 583)
    (LLAMA_RUN2, (4, 233, 932, 583, (186, 159, 132, 106))),
    # 141 calls, 564 = 4 x 141, 1 + 374 / 141 = 3.652; 114.07, 101.9, 84.04, 74.03 -> 114 (= #acc drafts), 102, 84,
    # 74 (sum 374)
    (LLAMA_GLUED_FENCE, (4, 141, 564, 374, (114, 102, 84, 74))),
])
def test_llamacpp_statistics_lines_k4(text, expected):
    assert _counts(traces.parse(text)) == expected


# a llama.cpp MTP note on Vulkan (code index; a sibling of the k = 2 notes of tests/test_traces_outofsample.py): the
# start-up line, the shortened request line and the statistics line, before a </details>
LLAMA_VULKAN_K2 = """0.07.038.055 I spec common_specu: - n_max=2, n_min=0, p_min=0.00, n_embd=5120, backend_sampling=1
0.21.844.936 I slot print_timing: id  3 | task 0 | draft acceptance = 0.87838 (  325 accepted /   370 generated), mean len =  2.76
0.21.844.998 I spec common_specu: statistics        draft-mtp: #calls(b,g,a) =    1    185    185, #gen drafts =    185, #acc drafts =   171, #gen tokens =    370, #acc tokens =   325, #mean acc len = 2.76, #acc rate/pos = (0.924, 0.832), dur(b,g,a) = 0.003, 920.623, 0.413 ms
```
</details>
"""


def test_llamacpp_vulkan_k2():
    # 185 calls, 370 = 2 x 185, 1 + 325 / 185 = 2.757; 170.9, 153.9 -> 171 (= #acc drafts), 154 (sum 325)
    assert _counts(traces.parse(LLAMA_VULKAN_K2)) == (2, 185, 370, 325, (171, 154))


def _bench(length, drafts, draft_tokens, accepted, rates, stray=None, pad=True):
    """A `vllm bench serve` block as a deployment note quoted it: no ruler and no 'Speculative Decoding' header, the
    padding as printed (or collapsed), a stray line where the note has one."""
    def row(label, value):
        return f"{label:<40} {value}\n" if pad else f"{label} {value}\n"
    return ("```\n" + row("Acceptance length:", length) + row("Drafts:", drafts) + row("Draft tokens:", draft_tokens)
            + row("Accepted tokens:", accepted) + "Per-position acceptance (%):\n" + (stray + "\n" if stray else "")
            + "".join(row(f"  Position {i}:" if pad else f"Position {i}:", rate) for i, rate in enumerate(rates))
            + "```\n")


# a deployment note benchmarking a model's MTP drafter at 2 to 8 tokens on RTX PRO 5000 / 4000, RTX 3090 and A6000
# cards with vLLM 0.27.1 to 0.29 (code index; the index does not name its repository): headerless blocks, one with a
# version-control line pasted inside it ('Parent commit (@-):'), one with another ('scheduling-processo'), one with
# its padding collapsed
@pytest.mark.parametrize("text, expected", [
    # MTP 5: 35665 / 7133 = 5, 1 + 24872 / 7133 = 4.487; 6538.8, 5553.8, 4642.9, 4232.0, 3903.9 -> (24872)
    (_bench("4.49", 7133, 35665, 24872, ("91.67", "77.86", "65.09", "59.33", "54.73")),
     (5, 7133, 35665, 24872, (6539, 5554, 4643, 4232, 3904))),
    # MTP 8: 39824 / 4978 = 8, 1 + 27045 / 4978 = 6.433; 4851.1, 4676.8, 4533.9, 3906.2, 2401.9, 2315.8, 2301.8, 2056.9
    (_bench("6.43", 4978, 39824, 27045, ("97.45", "93.95", "91.08", "78.47", "48.25", "46.52", "46.24", "41.32")),
     (8, 4978, 39824, 27045, (4851, 4677, 4534, 3906, 2402, 2316, 2302, 2057))),
    # MTP 6: 37230 / 6205 = 6, 1 + 25811 / 6205 = 5.160; 5737.8, 5264.9, 4043.2, 3834.1, 3607.0, 3324.0 -> (25811)
    (_bench("5.16", 6205, 37230, 25811, ("92.47", "84.85", "65.16", "61.79", "58.13", "53.57")),
     (6, 6205, 37230, 25811, (5738, 5265, 4043, 3834, 3607, 3324))),
    # MTP 7 with the stray line: 36974 / 5282 = 7, 1 + 26729 / 5282 = 6.060; 5100.8, 4827.7, 4208.2, 3597.0, 3366.2,
    # 2850.2, 2778.9 -> (26729)
    (_bench("6.06", 5282, 36974, 26729, ("96.57", "91.40", "79.67", "68.10", "63.73", "53.96", "52.61"),
            stray="Parent commit (@-):"),
     (7, 5282, 36974, 26729, (5101, 4828, 4208, 3597, 3366, 2850, 2779))),
    # MTP 5 on the A6000, padding collapsed: 48930 / 9786 = 5, 1 + 22211 / 9786 = 3.270; 8094.0, 4517.2, 3645.3,
    # 3172.6, 2782.2 -> (22211)
    (_bench("3.27", 9786, 48930, 22211, ("82.71", "46.16", "37.25", "32.42", "28.43"), pad=False),
     (5, 9786, 48930, 22211, (8094, 4517, 3645, 3173, 2782))),
    # MTP 4 with 'scheduling-processo': 34712 / 8678 = 4, 1 + 23322 / 8678 = 3.687; 7653.1, 6900.7, 4910.9, 3857.4
    (_bench("3.69", 8678, 34712, 23322, ("88.19", "79.52", "56.59", "44.45"), stray="scheduling-processo"),
     (4, 8678, 34712, 23322, (7653, 6901, 4911, 3857))),
])
def test_headerless_bench_blocks_k4_to_k8(text, expected):
    trace = traces.parse(text)
    assert trace.format == "vllm-bench" and _counts(trace) == expected


# --- misread before, fixed ------------------------------------------------------------------------------------------

# a note tuning a three-node DGX Spark DeepSeek-V4-Flash deployment (code index): 'Live metrics at MTP_NUM_TOKENS=5',
# the line wrapped after the mean, no counts, no rates, no Avg Draft acceptance rate
MTP5_THROUGHPUTS = """Live metrics at `MTP_NUM_TOKENS=5`:

```
SpecDecoding metrics: Mean acceptance length: 3.21,
  Accepted throughput: 8.03 tokens/s, Drafted throughput: 18.17 tokens/s
```
"""


def test_k_from_the_throughputs_ratio():
    # before: refused, k asked for. vLLM divides the interval's accepted and drafted tokens by the same elapsed time,
    # so 8.03 / 18.17 is accepted / drafted within [8.025 / 18.175, 8.035 / 18.165] = [0.4415, 0.4423]; mean - 1 =
    # 2.21 +- 0.005 = k x rate: k in [4.985, 5.016], so k = 5 (k = 4: 1.77; k = 6: 2.65); the mean 3.21 at k = 5
    trace = traces.parse(MTP5_THROUGHPUTS)
    assert (trace.lookahead, trace.drafts, trace.meanAcceptanceLength) == (5, None, 3.21)
    assert any("throughputs' ratio" in note for note in trace.notes)


def test_throughputs_that_fit_several_k_still_ask_for_it():
    # 0.10 / 0.30 tokens/s: the ratio lies in [0.095 / 0.305, 0.105 / 0.295] = [0.3115, 0.3559], and mean - 1 = 2.49 +-
    # 0.005 fits k from 6.98 to 8.01: k = 7 and k = 8, so asked for; 0.12 / 0.34: [0.3333, 0.3731], k from 6.66 to
    # 7.49: k = 7 alone
    text = "SpecDecoding metrics: Mean acceptance length: 3.49, Accepted throughput: 0.10 tokens/s, Drafted throughput: 0.30 tokens/s\n"
    with pytest.raises(LookaheadMissing):
        traces.parse(text)
    assert traces.parse(text.replace("0.10 tokens/s", "0.12 tokens/s").replace("0.30 tokens/s", "0.34 tokens/s")).lookahead == 7


# a GLM-5.2 DCP / MTP debugging journal (2026-06-26, 'DCP1 MTP3 probability control'; code index): the line's fields
# quoted one a line, its counts among them
FIELDS_K3 = """```text
Mean acceptance length: 3.12
Accepted: 55 tokens
Drafted: 78 tokens
Per-position acceptance rate: 0.885, 0.692, 0.538
Avg Draft acceptance rate: 70.5%
```
"""


def test_fields_quoted_one_a_line_keep_their_counts():
    # before: the mean 3.12 at k = 3, no counts (the count lines were not read). 78 / 3 = 26 calls, 1 + 55 / 26 =
    # 3.115 (printed 3.12); 0.885 x 26 = 23.01, 0.692 x 26 = 17.99, 0.538 x 26 = 13.99 -> 23, 18, 14 (sum 55); 55 / 78
    # = 70.5% as printed
    trace = traces.parse(FIELDS_K3)
    assert _counts(trace) == (3, 26, 78, 55, (23, 18, 14))
    assert any("quoted one a line" in note for note in trace.notes)


def test_a_count_quoted_alone_opens_no_format_and_a_far_one_is_named():
    with pytest.raises(TraceError, match="unrecognised format"):
        traces.parse("Accepted: 55 tokens\n")
    far = "Accepted: 55 tokens\nDrafted: 78 tokens\n" + "prose\n" * 6 + "Per-position acceptance rate: 0.885, 0.692, 0.538\n"
    trace = traces.parse(far)
    assert trace.drafts is None  # too far from the rates to be their line's counts: the mean alone
    trace = traces.parse(FIELDS_K3.replace("Accepted: 55 tokens\nDrafted: 78 tokens\n", "") + "\n" * 6
                         + "Accepted: 55 tokens\n")
    assert trace.drafts is None and any("quoted alone" in note for note in trace.notes)


def test_quoted_counts_without_a_quoted_mean():
    # no mean quoted: the counts give the calls (78 / 3 = 26) and the rates their counts (23, 18, 14); the rates' sum
    # is not passed off as a printed mean: the notes say none was printed
    trace = traces.parse(FIELDS_K3.replace("Mean acceptance length: 3.12\n", ""))
    assert _counts(trace) == (3, 26, 78, 55, (23, 18, 14))
    assert any("no mean acceptance length printed" in note for note in trace.notes)


def test_quoted_counts_are_checked_against_the_quoted_mean_as_a_line_is():
    # Drafted 90 at k = 3 would be 30 calls and a mean of 1 + 55 / 30 = 2.83, not the quoted 3.12: as for a printed
    # line, the mean fixes the calls (55 / 2.12 = 25.9 -> 26) and the short drafts are named
    trace = traces.parse(FIELDS_K3.replace("Drafted: 78 tokens", "Drafted: 90 tokens"))
    assert (trace.drafts, trace.draftTokens) == (26, 90) and any("short drafts" in note for note in trace.notes)


# a llama.cpp harness's test file quoting its server log ('logs/dflash2-dflash2-ngram-real-code-c16384-r3.log', the
# cumulative block after the run's last task; code index; cited by the curve searches, never read by the reader): two
# implementations chained, ngram-mod's drafts far longer than its two printed rates
LLAMA_NGRAM_MOD = (
    "0.42.130.633 I spec common_specu: statistics        ngram-mod: #calls(b,g,a) =    4    542     31, #gen drafts =  "
    "   31, #acc drafts =    28, #gen tokens =    920, #acc tokens =   527, #mean acc len = 18.00, #acc rate/pos = (0.903,"
    " 0.806), dur(b,g,a) = 0.688, 0.851, 0.021 ms\n"
    "0.42.130.640 I spec common_specu: statistics     draft-dflash: #calls(b,g,a) =    4    511    511, #gen drafts =  "
    "  511, #acc drafts =   390, #gen tokens =   2041, #acc tokens =   974, #mean acc len = 2.91, #acc rate/pos = (0.763,"
    " 0.526, 0.362, 0.254), dur(b,g,a) = 0.004, 3421.333, 0.148 ms\n")


def test_two_implementations_are_named_and_dflash_reads():
    with pytest.raises(TraceError, match="ngram-mod, draft-dflash"):
        traces.parse(LLAMA_NGRAM_MOD)
    # 511 calls, 1 + 974 / 511 = 2.906; 389.9, 268.8, 185.0, 129.8 -> 390 (= #acc drafts), 269, 185, 130 (sum 974);
    # 2041 drafted, not 4 x 511 = 2044: three drafts stopped short
    assert _counts(traces.parse(LLAMA_NGRAM_MOD, model="draft-dflash")) == (4, 511, 2041, 974, (390, 269, 185, 130))


def test_ngram_mod_rates_shorter_than_its_drafts():
    # before: refused as 'inconsistent counts: 527 accepted tokens exceed k x drafts = 2 x 31' (k taken from the two
    # rates), and with --lookahead 32 'the log prints 2 per-position rates but the lookahead given is 32'. The counts
    # agree: 1 + 527 / 31 = 18.00 as printed; 920 / 31 = 29.68 tokens a draft, so two rates cover the first two
    # positions only (0.903 x 31 = 28 = #acc drafts). Now: k asked for, saying why; with k >= 30 the totals, no curve
    with pytest.raises(LookaheadMissing, match="covers the first positions only"):
        traces.parse(LLAMA_NGRAM_MOD, model="ngram-mod")
    with pytest.raises(TraceError, match="more than the lookahead given, 16"):
        traces.parse(LLAMA_NGRAM_MOD, model="ngram-mod", lookahead=16)
    trace = traces.parse(LLAMA_NGRAM_MOD, model="ngram-mod", lookahead=32)
    assert _counts(trace) == (32, 31, 920, 527, None)
    assert 1 + trace.accepted / trace.drafts == pytest.approx(18.0)
    assert any("(0.903, 0.806): not read as a curve" in note for note in trace.notes)


# a Gemma-4 12B MTP drafter's training report (code index; cited by the curve searches, never read by the reader):
# vllm bench serve's per-position acceptance at spec_tokens=5 as a markdown table, no acceptance length
GEMMA4_TABLE = """Per-position acceptance (%):

| run | pos0 | pos1 | pos2 | pos3 | pos4 |
|-----|------|------|------|------|------|
| baseline (official) | 86.26 | 75.61 | 64.36 | 54.88 | 46.73 |
| trained fp8 | 42.66 | 36.82 | 32.60 | 28.38 | 24.67 |
| trained bf16 | 43.03 | 37.20 | 32.90 | 29.03 | 25.34 |
"""


@pytest.mark.parametrize("run, mean", [
    ("baseline (official)", 1 + (86.26 + 75.61 + 64.36 + 54.88 + 46.73) / 100),  # 4.2784
    ("trained fp8", 1 + (42.66 + 36.82 + 32.60 + 28.38 + 24.67) / 100),           # 2.6513
    ("trained bf16", 1 + (43.03 + 37.20 + 32.90 + 29.03 + 25.34) / 100),          # 2.6750
])
def test_per_position_table_without_acceptance_length(run, mean):
    # before: 'unrecognised format'. vllm bench serve's rate at position i is accepted there / drafts, so the mean is
    # 1 + the rates' sum at k = 5 columns; no counts
    trace = traces.parse(GEMMA4_TABLE, model=run)
    assert (trace.lookahead, trace.drafts) == (5, None)
    assert trace.meanAcceptanceLength == pytest.approx(mean)


def test_per_position_table_asks_for_the_row_and_refuses_rising_rates():
    with pytest.raises(TraceError, match="3 subsets"):
        traces.parse(GEMMA4_TABLE)
    rising = "| run | pos0 | pos1 |\n|---|---|---|\n| a | 0.80 | 0.90 |\n"
    with pytest.raises(TraceError, match="pos_1 exceeds pos_0"):
        traces.parse(rising)
    fractions = traces.parse("| run | pos0 | pos1 |\n|---|---|---|\n| a | 0.80 | 0.60 |\n")
    assert fractions.meanAcceptanceLength == pytest.approx(2.40)
