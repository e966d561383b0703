"""Engine output the trace reader was not built for (5-6 December 2026, branch pastes9): public pastes found through
the search tools (issues corpus, code index) that no earlier test used, run through the reader BEFORE any change and
only then fixed where it misread. Each expectation is worked by hand from the paste's own printed figures in the
comment beside it (each line's calls = Drafted / k, its mean 1 + Accepted / calls printed back, each per-position
count = rate x calls rounded, the counts summing to the line's Accepted); none was taken from running the reader.
Only the lines needed are quoted. docs/READING.md ("December 2026: the trace reader out of sample") lists the sources
and what the reader returned before and after."""

import pytest

from lab import traces


def _counts(trace):
    return trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition


def _line(pid, stamp, mean, accepted, drafted, rates, avg, where="metrics.py:101"):
    """A vLLM SpecDecoding metrics line as the paste printed it (its throughputs are not read, so written as 0)."""
    return (f"(APIServer pid={pid}) INFO {stamp} [{where}] SpecDecoding metrics: Mean acceptance length: {mean}, "
            f"Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: {accepted} tokens, "
            f"Drafted: {drafted} tokens, Per-position acceptance rate: {rates}, Avg Draft acceptance rate: {avg}%\n")


# --- read right before (guards) --------------------------------------------------------------------------------------

# vllm-project/vllm-ascend#13665 (baiyu-123, description, 2026-08): Qwen3-8B with an EAGLE-3 drafter at k = 5 on two
# cards, prefill/decode disaggregated; the decode node's lines, grepped, accept nothing
ASCEND_13665 = "".join(_line(6485, f"08-05 {stamp}", "1.00", 0, 495, ", ".join(["0.000"] * 5), "0.0",
                             "metrics.py:100") for stamp in ("20:20:43", "20:35:43", "20:38:23"))


def test_ascend_eagle3_k5_lines_that_accept_nothing():
    # 495 / 5 = 99 calls a line, three lines: 297 calls, 1485 drafted, 0 accepted; mean 1 + 0 / 99 = 1.00 as printed
    trace = traces.parse(ASCEND_13665)
    assert _counts(trace) == (5, 297, 1485, 0, (0, 0, 0, 0, 0))
    assert traces.analyse(trace)["meanAcceptanceLength"] == 1.0


# vllm-project/vllm-ascend#9803 (LookAround0301, description): GLM-5 with MTP at k = 3 behind several API servers
# ('1 Engines Aggregated' each), their lines interleaved
ASCEND_9803 = (_line(2523786, "05-30 15:21:33", "3.28", 474, 624, "0.938, 0.769, 0.572", "76.0")
               + _line(2523785, "05-30 15:21:33", "3.24", 418, 561, "0.877, 0.749, 0.610", "74.5"))


def test_ascend_mtp_k3_lines_of_two_api_servers_are_summed_and_named():
    # 624 / 3 = 208 calls (1 + 474 / 208 = 3.279 prints 3.28): 0.938 x 208 = 195.1 -> 195, 0.769 x 208 = 159.95 -> 160,
    # 0.572 x 208 = 118.98 -> 119 (sum 474); 561 / 3 = 187 (1 + 418 / 187 = 3.235 prints 3.24): 0.877 x 187 = 164.0
    # -> 164, 0.749 x 187 = 140.06 -> 140, 0.610 x 187 = 114.07 -> 114 (sum 418)
    trace = traces.parse(ASCEND_9803)
    assert _counts(trace) == (3, 395, 1185, 892, (359, 300, 233))
    assert any("2 processes" in note for note in trace.notes)


# vllm-project/vllm#7301 (Neo9061, comment, 2025-02-06): vLLM V0 at k = 5, two cumulative lines
VLLM_7301 = ("INFO 02-06 03:05:53 metrics.py:475] Speculative metrics: Draft acceptance rate: 0.200, System efficiency: "
             "0.167, Number of speculative tokens: 5, Number of accepted tokens: 1, Number of draft tokens: 5, Number of "
             "emitted tokens: 1.\n"
             "INFO 02-06 03:18:09 metrics.py:475] Speculative metrics: Draft acceptance rate: 0.067, System efficiency: "
             "0.167, Number of speculative tokens: 5, Number of accepted tokens: 1, Number of draft tokens: 15, Number "
             "of emitted tokens: 3.\n")


def test_vllm_v0_k5_cumulative_lines_read_the_last():
    # the last line: 15 / 5 = 3 calls emitting 3 tokens, one each, so no accepted prefix (V0's 'accepted' 1 came after
    # a rejection, vllm-project/vllm#9565); 3 / (3 x 6) = 0.167 is the printed system efficiency
    trace = traces.parse(VLLM_7301)
    assert _counts(trace)[:4] == (5, 3, 15, 0)


# vllm-project/speculators#613 (huaxuan250, description, 2026-06-16): vLLM 0.22.1, a DFlash drafter served at
# num_speculative_tokens 8, five intervals
SPECULATORS_613_K8 = "".join(
    _line(1874323, f"06-16 {stamp}", mean, accepted, drafted, first + ", " + ", ".join(["0.000"] * 7), avg)
    for stamp, mean, accepted, drafted, first, avg in (
        ("19:27:45", "1.23", 54, 1872, "0.231", "2.9"), ("19:27:55", "1.14", 106, 6096, "0.139", "1.7"),
        ("19:28:05", "1.12", 88, 5832, "0.121", "1.5"), ("19:28:15", "1.10", 71, 5584, "0.102", "1.3"),
        ("19:28:25", "1.09", 57, 5344, "0.085", "1.1")))


def test_speculators_dflash_k8_intervals():
    # calls 1872/8 = 234, 6096/8 = 762, 5832/8 = 729, 5584/8 = 698, 5344/8 = 668 (3091); position 1: 0.231 x 234 =
    # 54.05 -> 54, 0.139 x 762 = 105.9 -> 106, 0.121 x 729 = 88.2 -> 88, 0.102 x 698 = 71.2 -> 71, 0.085 x 668 = 56.8
    # -> 57: 376 = the Accepted total, nothing past position 1
    trace = traces.parse(SPECULATORS_613_K8)
    assert _counts(trace) == (8, 3091, 24728, 376, (376,) + (0,) * 7)


# the same thread (huaxuan250, comments 2026-06-16 and 2026-07-07): `vllm bench serve`'s block at k = 8, whole, with
# its header and without, and with a shorter ruler
BENCH_613 = """---------------Speculative Decoding---------------
Acceptance rate (%):                     47.16     
Acceptance length:                       4.77      
Drafts:                                  446819    
Draft tokens:                            3574552   
Accepted tokens:                         1685779   
Per-position acceptance (%):
  Position 0:                            82.27     
  Position 1:                            66.16     
  Position 2:                            54.24     
  Position 3:                            45.65     
  Position 4:                            38.99     
  Position 5:                            33.89     
  Position 6:                            29.75     
  Position 7:                            26.34     
==================================================
"""
BENCH_613_BARE = """```
Acceptance rate (%):                     65.97     
Acceptance length:                       6.28      
Drafts:                                  255426    
Draft tokens:                            2043408   
Accepted tokens:                         1347987   
Per-position acceptance (%):
  Position 0:                            83.95     
  Position 1:                            75.11     
  Position 2:                            69.54     
  Position 3:                            65.11     
  Position 4:                            62.09     
  Position 5:                            59.36     
  Position 6:                            57.24     
  Position 7:                            55.33     
```
"""
BENCH_613_SHORT = """-------------Speculative Decoding---------------
Acceptance rate (%):                     22.44     
Acceptance length:                       2.80      
Drafts:                                  367207    
Draft tokens:                            2937656   
Accepted tokens:                         659241    
Per-position acceptance (%):
  Position 0:                            84.27     
  Position 1:                            45.23     
  Position 2:                            20.06     
  Position 3:                            11.59     
  Position 4:                            7.81      
  Position 5:                            6.19      
  Position 6:                            3.24      
  Position 7:                            1.13      
"""


@pytest.mark.parametrize("text, calls, drafted, accepted, first", [
    # 3574552 / 446819 = 8; 1 + 1685779 / 446819 = 4.7728 prints 4.77; 1685779 / 3574552 = 47.16%; 82.27% x 446819 =
    # 367598.0 -> 367598
    (BENCH_613, 446819, 3574552, 1685779, 367598),
    # 2043408 / 255426 = 8; 1 + 1347987 / 255426 = 6.2774 prints 6.28; 83.95% x 255426 = 214430.1 -> 214430
    (BENCH_613_BARE, 255426, 2043408, 1347987, 214430),
    # the header's ruler shorter by two dashes: 2937656 / 367207 = 8; 1 + 659241 / 367207 = 2.795 prints 2.80;
    # 84.27% x 367207 = 309445.3 -> 309445
    (BENCH_613_SHORT, 367207, 2937656, 659241, 309445),
])
def test_speculators_bench_blocks_k8(text, calls, drafted, accepted, first):
    trace = traces.parse(text)
    assert (trace.format, trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted) == \
        ("vllm-bench", 8, calls, drafted, accepted)
    assert trace.perPosition[0] == first
    assert traces.analyse(trace)["meanAcceptanceLength"] == pytest.approx(1 + accepted / calls)


# the same thread (huaxuan250, two comments of 2026-07-01): DFlash at k = 15 on two servers (a dense and a MoE target)
K15_DENSE = _line(1129565, "07-01 19:08:52", "4.97", 699, 2640, "0.830, 0.670, 0.562, 0.483, 0.398, 0.347, 0.256, "
                  "0.142, 0.097, 0.085, 0.040, 0.017, 0.017, 0.017, 0.011", "26.5", "metrics.py:120")
K15_MOE = _line(1332443, "07-01 21:33:03", "5.05", 352, 1305, "0.897, 0.701, 0.575, 0.471, 0.333, 0.310, 0.230, "
                "0.161, 0.138, 0.115, 0.046, 0.023, 0.023, 0.011, 0.011", "27.0", "metrics.py:120")


def test_speculators_dflash_k15_lines():
    # 2640 / 15 = 176 calls, 1 + 699 / 176 = 4.972 prints 4.97; x 176: 146.08, 117.92, 98.91, 85.01, 70.05, 61.07,
    # 45.06, 24.99, 17.07, 14.96, 7.04, 2.99 (three times), 1.94 -> 146, 118, 99, 85, 70, 61, 45, 25, 17, 15, 7, 3, 3,
    # 3, 2 (sum 699)
    assert _counts(traces.parse(K15_DENSE)) == (15, 176, 2640, 699, (146, 118, 99, 85, 70, 61, 45, 25, 17, 15, 7, 3, 3,
                                                                     3, 2))
    # 1305 / 15 = 87 calls, 1 + 352 / 87 = 5.046 prints 5.05; x 87: 78.04, 60.99, 50.03, 40.98, 28.97, 26.97, 20.01,
    # 14.01, 12.01, 10.01, 4.00, 2.00 (twice), 0.96 (twice) -> 78, 61, 50, 41, 29, 27, 20, 14, 12, 10, 4, 2, 2, 1, 1
    # (sum 352)
    assert _counts(traces.parse(K15_MOE)) == (15, 87, 1305, 352, (78, 61, 50, 41, 29, 27, 20, 14, 12, 10, 4, 2, 2, 1, 1))
    # the two servers' lines together are summed as before, the note naming both processes
    both = traces.parse(K15_DENSE + K15_MOE)
    assert both.drafts == 176 + 87 and any("2 processes" in note for note in both.notes)


# a public project's notes (code index; vLLM 0.20.2, MTP at k = 3, the arguments line and four intervals of 05-21)
PRISMA_K3 = ("(APIServer pid=1) INFO 05-21 21:02:50 [utils.py:233] non-default args: {'max_model_len': 262144, "
             "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}\n"
             + _line(1, "05-21 21:32:26", "3.18", 371, 510, "0.876, 0.706, 0.600", "72.7")
             + _line(1, "05-21 21:32:36", "4.00", 3, 3, "1.000, 1.000, 1.000", "100.0")
             + _line(1, "05-21 21:38:16", "3.69", 333, 372, "0.927, 0.887, 0.871", "89.5")
             + _line(1, "05-21 21:43:46", "3.90", 563, 582, "1.000, 0.969, 0.933", "96.7"))


def test_vllm_mtp_k3_intervals_with_the_arguments_line():
    # 170 calls: 148.9 -> 149, 120.0 -> 120, 102 (371); 1 call: 1, 1, 1; 124: 114.9 -> 115, 110.0 -> 110, 108.0 -> 108
    # (333); 194: 194, 188.0 -> 188, 181.0 -> 181 (563): 489 calls, (459, 419, 392)
    trace = traces.parse(PRISMA_K3)
    assert _counts(trace) == (3, 489, 1467, 1270, (459, 419, 392))
    assert trace.method == "mtp"


# SGLang 2026: a deployment tutorial's MTP lines (code index, 2026-10-10, no 'cuda graph' field) and a public test's
# fixture of a Ray actor's colourised lines (code index, 2026-10-06, '#swa token' fields)
SGLANG_MTP = "".join(f"[2026-10-10 17:18:{s}] Decode batch, #running-req: 1, #full token: {t}, full token usage: {u}, "
                     f"accept len: {a}, accept rate: {r}, gen throughput (token/s): {g}\n"
                     for s, t, u, a, r, g in (("22", 16320, "0.63", "3.05", "0.68", "58.50"),
                                              ("26", 16512, "0.63", "3.00", "0.67", "57.85"),
                                              ("34", 512, "0.02", "3.17", "0.72", "63.36")))
SGLANG_RAY = "".join(f"\x1b[36m(CommandActor pid=105447)\x1b[0m [2026-10-06 11:{s} TP0 EP0] Decode batch, #running-req: "
                     f"{n}, #full token: {t}, full token usage: 0.00, #swa token: {w}, swa token usage: {u}, accept len: "
                     f"{a}, accept rate: {r}, cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}\n"
                     for s, n, t, w, u, a, r, g, q in (("00:59", 56, 20224, 14976, "0.05", "2.69", "0.24", "22.47", 0),
                                                       ("01:01", 13, 8704, 3712, "0.01", "3.19", "0.31", "0.50", 2)))


def test_sglang_2026_lines_give_k_from_their_accept_rate():
    # (3.05 - 1) / 3 = 0.683, (3.00 - 1) / 3 = 0.667, (3.17 - 1) / 3 = 0.723 print 0.68, 0.67, 0.72 (k = 2 gives 1.03,
    # k = 4 gives 0.51): k = 3, the windows' mean (3.05 + 3.00 + 3.17) / 3 = 3.0733
    trace = traces.parse(SGLANG_MTP)
    assert (trace.format, trace.lookahead) == ("sglang-log", 3)
    assert trace.meanAcceptanceLength == pytest.approx(9.22 / 3)
    # (2.69 - 1) / 7 = 0.241, (3.19 - 1) / 7 = 0.313 print 0.24, 0.31 (k = 6 gives 0.28, k = 8 gives 0.21): k = 7
    trace = traces.parse(SGLANG_RAY)
    assert (trace.lookahead, trace.meanAcceptanceLength) == (7, pytest.approx(2.94))


# a public project's notes (code index): llama-server with an MTP head at n_max 2, the request line and the
# statistics line after it
LLAMA_MTP_K2 = ("0 | task 0 | draft acceptance = 0.76049 (  308 accepted /   405 generated), mean len =  2.52\n"
                "0.27.402.358 I spec common_specu: statistics        draft-mtp: #calls(b,g,a) =    1    203    203, #gen "
                "drafts =    203, #acc drafts =   172, #gen tokens =    405, #acc tokens =   308, #mean acc len = 2.52, "
                "#acc rate/pos = (0.847, 0.670), dur(b,g,a) = 0.003, 1396.591, 0.467 ms\n")


def test_llamacpp_mtp_k2_statistics_line():
    # 203 calls; 0.847 x 203 = 171.9 -> 172 (= #acc drafts), 0.670 x 203 = 136.0 -> 136 (172 + 136 = 308)
    assert _counts(traces.parse(LLAMA_MTP_K2)) == (2, 203, 405, 308, (172, 136))


def test_llamacpp_older_request_line_still_asks_for_k():
    # ggml-org/llama.cpp#25792 (michaeltrabalka-tech, comment, 2026-07-17): the line without a mean counts tokens only
    with pytest.raises(traces.TraceError, match="does not record the lookahead"):
        traces.parse("draft acceptance = 0.93939 (31 accepted / 33 generated)     # vs 0.298 (51/171) at default\n")


# --- misread before, fixed -----------------------------------------------------------------------------------------

# a Chinese note on a DFlash2 deployment (code index, 2026-09-20): one SpecDecoding line reworded and wrapped by the
# note ('Drafted: 17.05 tokens/s' for the drafted throughput, 'Accepted 417 / Drafted 693' for the counts), its rates
# on a line of their own, k = 7
DFLASH2_NOTE = """```
SpecDecoding metrics: Mean acceptance length: 5.21, Accepted throughput: 10.26 tokens/s,
  Drafted: 17.05 tokens/s, Accepted 417 / Drafted 693, Avg Draft acceptance rate: 60.2%
Per-position acceptance rate: 0.879, 0.778, 0.687, 0.586, 0.495, 0.434, 0.354
```
"""


def test_reworded_counts_are_read():
    # before: the mean 5.21 at k = 7 alone, no counts, the curve flat. 693 / 7 = 99 calls; 1 + 417 / 99 = 5.212 prints
    # 5.21; 417 / 693 = 60.2%; x 99: 87.02, 77.02, 68.01, 58.01, 49.01, 42.97, 35.05 -> 87, 77, 68, 58, 49, 43, 35
    # (sum 417)
    trace = traces.parse(DFLASH2_NOTE)
    assert _counts(trace) == (7, 99, 693, 417, (87, 77, 68, 58, 49, 43, 35))
    assert any("Accepted N / Drafted M" in note for note in trace.notes)
    # the drafted throughput reworded as 'Drafted: 17.05 tokens/s' is never read as a count
    assert traces.parse(DFLASH2_NOTE.replace("Accepted 417 / Drafted 693, ", "")).drafts is None


def test_abbreviated_lines_are_refused_not_read_as_k_1():
    # the same note, three intervals in one: before, read as one rate, k = 1, mean 2.00 (a silent wrong answer); the
    # true k is 7 and the means about 8
    text = ("```\nMean acceptance length: 7.99 / 8.00 / 7.99, Accepted throughput: 274.60 / 270.18 / 267.59 tokens/s,\n"
            "  Per-position acceptance rate: 1.000 \u00d77, Avg Draft acceptance rate: 100.0%\n```\n")
    with pytest.raises(traces.TraceError, match=r"abbreviates what vLLM prints \('Per-position acceptance rate: "
                                                r"1\.000 \u00d77'\)"):
        traces.parse(text)
    with pytest.raises(traces.TraceError, match="abbreviates what vLLM prints"):
        traces.parse("SpecDecoding metrics: Mean acceptance length: 7.99 / 8.00, Per-position acceptance rate: 1.000, "
                     "1.000\n")


# ggml-org/llama.cpp#22105 (joostwestra, comment, 2026-05-01): DFlash at --draft-max 6, the example's summary as the
# comment kept it (its 'decoded' line reworded, the n_predict line dropped)
LLAMA_22105 = """Result:

decoded 514 tokens in ~14.3-14.5s
n_draft   = 6
n_drafted = 430
n_accept  = 427
accept    = 99.302%
"""


def test_llamacpp_summary_without_its_n_predict_line():
    # before: refused ('n_drafted and n_accept without n_predict'). The examples print n_predict in 'decoded %4d
    # tokens': calls = 514 - 427 - 1 = 86 (the speculative example; speculative-simple would give 87); 430 drafted in
    # 86 calls = 5.0 of at most 6; mean 1 + 427 / 86 = 5.965
    trace = traces.parse(LLAMA_22105)
    assert _counts(trace)[:4] == (6, 86, 430, 427)
    assert any("'decoded 514 tokens'" in note for note in trace.notes)
    # an n_predict line, where kept, is read as before
    assert traces.parse(LLAMA_22105.replace("n_draft   = 6\n", "n_draft   = 6\nn_predict = 520\n")).drafts == 92


# a project's notes on a vLLM crash (code index): the line quoted with its middle elided, k = 5 (five scheduled
# draft tokens)
ELIDED_MEAN_6 = ("Excerpt from logs SpecDecoding metrics: Mean acceptance length: 6.00, ..., Avg Draft acceptance rate: "
                 "100.0% scheduled_spec_decode_tokens={...: [-1, -1, -1, -1, -1]} ...\n")


def test_abridged_line_takes_k_from_its_mean_and_rate():
    # before: refused (k asked for). mean - 1 = k x rate: 5.00 = k x 1.000, and within the printing (6.00 +- 0.005,
    # 100.0% - 0.05%) only k = 5 fits
    trace = traces.parse(ELIDED_MEAN_6)
    assert (trace.lookahead, trace.meanAcceptanceLength, trace.drafts) == (5, 6.0, None)
    assert any("Avg Draft acceptance rate" in note for note in trace.notes)
    # nothing accepted fits every k: still asked for
    with pytest.raises(traces.TraceError, match="does not record the lookahead"):
        traces.parse("SpecDecoding metrics: Mean acceptance length: 1.00, ..., Avg Draft acceptance rate: 0.0%\n")


# llama-server's shortened request line ('mean len' without its rates, which it logs at trace level only):
# noonghunna/club-3090#1106 (shaxs, description; DeepSeek-V4-Flash with MTP, two requests), ggml-org/llama.cpp#27342
# (tadasv, comment; DFlash2) and lemonade-sdk/llamacpp-rocm#129 (emircanerkul, comment; one long request)
CLUB_1106 = ("132.05.318.181 I slot print_timing: id  0 | task 9126 | draft acceptance = 0.67500 (  108 accepted /   160 "
             "generated), mean len =  4.38\n"
             "132.15.702.033 I slot print_timing: id  0 | task 9161 | draft acceptance = 0.92727 (   51 accepted /    55 "
             "generated), mean len =  5.64\n")
LLAMA_27342 = ("4.58.584.379 I slot print_timing: id  0 | task 4827 | draft acceptance = 0.98444 (  886 accepted /   900 "
               "generated), mean len =  4.94\n")
ROCM_129 = ("4.01.806.856 I slot print_timing: id  0 | task 0 | draft acceptance = 0.65959 ( 5995 accepted /  9089 "
            "generated), mean len =  4.30\n")


def test_llamacpp_shortened_line_gives_the_calls_and_asks_only_for_k():
    # without n_max the lookahead is asked for, the refusal now saying the mean gives the calls (before: 'it counts
    # tokens, not verifier calls', which is the older line's)
    for text in (CLUB_1106, LLAMA_27342, ROCM_129):
        with pytest.raises(traces.TraceError, match="its mean acceptance length gives the verifier calls"):
            traces.parse(text)
    # 108 / (4.38 - 1) = 31.95 -> 32 (1 + 108 / 32 = 4.375 prints 4.38), 51 / 4.64 = 10.99 -> 11 (5.636 prints 5.64):
    # 43 calls; 160 + 55 = 215 drafted = 5 a call, every draft full at n_max 5
    assert _counts(traces.parse(CLUB_1106, lookahead=5))[:4] == (5, 43, 215, 159)
    # 886 / 3.94 = 224.9 -> 225 (1 + 886 / 225 = 4.938 prints 4.94), 900 drafted = 4 a call
    assert _counts(traces.parse(LLAMA_27342, lookahead=4))[:4] == (4, 225, 900, 886)


def test_llamacpp_loose_call_count_is_said():
    # 5995 / (4.30 +- 0.005 - 1) allows 1814 to 1819 calls (1 + 5995 / 1814 = 4.3048 and 1 + 5995 / 1819 = 4.2958 both
    # print 4.30); 5995 / 3.30 = 1816.7 -> 1817 is read. Before, the range went unsaid
    trace = traces.parse(ROCM_129, lookahead=6)
    assert trace.drafts == 1817
    assert any("1814 to 1819, 1817 read" in note for note in trace.notes)


# ggml-org/llama.cpp#27210 (open, comments): an adaptive MTP depth's log lines, printed when the depth changes (not a
# count of every call): refused, as before, saying what to paste
ADAPTIVE_27210 = ("0.48.122.337 I spec       accept: adaptive n : 1 -> 2 (seq 0, n_draft=1, n_accepted=1)\n"
                  "0.54.188.272 I spec       accept: adaptive n : 5 -> 4 (seq 0, n_draft=5, n_accepted=1)\n"
                  "2.07.530.515 I spec       accept: adaptive draft depth seq 0: 7 -> 6 (n_draft=7, n_accepted=4, n_cur=6, "
                  "n_climb=0, n_drop=0, cur_accepted=8096, cur_generated=11029, cur_drop=-2933)\n")


def test_llamacpp_adaptive_depth_lines_are_not_counts():
    with pytest.raises(traces.TraceError, match="no llama.cpp draft acceptance line, statistics line"):
        traces.parse(ADAPTIVE_27210)


# --- a second pass through the code index (vLLM lines quoted in notes) -----------------------------------------------

# a Chinese question-and-answer note (code index): DeepSeek MTP at k = 8, one line of 02-28
MTP8_NOTE = _line(1, "02-28 04:23:51", "3.97", 95, 256, "0.750, 0.594, 0.375, 0.344, 0.312, 0.219, 0.188, 0.188", "37.1",
                  "metrics.py:100")
# a note on a Qwen MTP deployment (code index): the abridged line wrapped after each field, k = 4
WRAPPED_ABRIDGED = ("SpecDecoding metrics: Mean acceptance length: 2.72,\nPer-position acceptance rate: 0.707, 0.453, "
                    "0.307, 0.253,\nAvg Draft acceptance rate: 43.0%\n")
# a README repairing a DSpark drafter (code index): the line quoted in a shell comment, its rates elided
ELIDED_IN_COMMENT = ("docker logs dsv4-vllm 2>&1 | grep \"SpecDecoding metrics\" | tail -1\n"
                     "# Mean acceptance length: 3.54, ... Per-position acceptance rate: 0.778, 0.601, 0.434, ...\n")
# a note summarising a vLLM issue (code index), its newlines lost: two requests' abridged lines at k = 2
FLATTENED = ("The speculative decoding metrics reflect this degradation: Request 1 (output is coherent): ```` SpecDecoding "
             "metrics: Mean acceptance length: 2.23, Avg Draft acceptance rate: 61.3% Per-position acceptance rate: 0.798, "
             "0.427 ```` Request 2 (output starts to degrade): ```` SpecDecoding metrics: Mean acceptance length: 1.02, "
             "Avg Draft acceptance rate: 0.9% Per-position acceptance rate: 0.018, 0.000 ```` Request 3\n")
# a Chinese development log (code index): a benchmark script's copy of vLLM's line, its rates on a second line
TWO_LINE_COPY = ("   SpecDecoding metrics: Mean acceptance length: 3.96, Accepted throughput: 40.93 tokens/s, Drafted "
                 "throughput: 69.22 tokens/s, Accepted: 411 tokens, Drafted: 695 tokens\n"
                 "   Per-position acceptance rate: 0.727, 0.647, 0.547, 0.518, 0.518\n")


def test_second_pass_read_right_before():
    # 256 / 8 = 32 calls, 1 + 95 / 32 = 3.969 prints 3.97; x 32: 24.0, 19.0, 12.0, 11.0, 9.98, 7.0, 6.0, 6.0 -> 24, 19,
    # 12, 11, 10, 7, 6, 6 (sum 95)
    assert _counts(traces.parse(MTP8_NOTE)) == (8, 32, 256, 95, (24, 19, 12, 11, 10, 7, 6, 6))
    # the rates sum to 1.720 = 2.72 - 1: the mean at k = 4, no counts
    trace = traces.parse(WRAPPED_ABRIDGED)
    assert (trace.lookahead, trace.meanAcceptanceLength, trace.drafts) == (4, 2.72, None)
    with pytest.raises(traces.TraceError, match=r"elided \('\.\.\.'\)"):
        traces.parse(ELIDED_IN_COMMENT)
    # two requests' means averaged unweighted, as abridged lines are: (2.23 + 1.02) / 2 = 1.625 at k = 2
    trace = traces.parse(FLATTENED)
    assert (trace.lookahead, trace.meanAcceptanceLength) == (2, pytest.approx(1.625))


def test_rates_on_the_line_below_their_counts():
    # before: refused (k asked for: 'the log line has no per-position rates'). 695 / 5 = 139 calls, 1 + 411 / 139 =
    # 3.957 prints 3.96; x 139: 101.05, 89.93, 76.03, 72.0, 72.0 -> 101, 90, 76, 72, 72 (sum 411)
    assert _counts(traces.parse(TWO_LINE_COPY)) == (5, 139, 695, 411, (101, 90, 76, 72, 72))
